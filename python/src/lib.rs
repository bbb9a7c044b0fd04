//! `adji._adji`: the Python binding of the adji library (the `adji` Python
//! package re-exports it and adds NumPy batches and the OpenSpiel games).
//!
//! Every answer that the command line gives as JSON is built here from the
//! same report types (`adji::report`) and handed to Python through
//! `serde_json` and `json.loads`, so a dict from `adji.solve` has the fields
//! of `adji solve --json`, value for value. Long calls run on a worker
//! thread with the GIL released; the calling thread polls
//! `Python::check_signals` and stops the work on Ctrl-C (a search through
//! its stop flag, a table build through its progress hook).
//!
//! One module per concern: `position`, `driver`, `perft`, `tables`,
//! `solver`, `errors` (errors and argument parsing) and `work`
//! (interruptible calls). None names a game type: each asks the library's
//! run-time facade, `adji::oracle` (a `Posed` position, a `Playing` game,
//! a rule set's `Facts`, `oracle::tables`, an `Oracle`), the one door of
//! every front end, with the rule set chosen at run time.
#![deny(missing_docs)]

mod driver;
mod errors;
mod perft;
mod position;
mod solver;
mod tables;
mod work;

use pyo3::prelude::*;

use driver::{replay, PyDriver};
use errors::AdjiError;
use position::{py_num_actions, PyPosition};
use solver::{analyse, solve, PySolver};
use tables::{build_tables, PyTables};

/// The Python module `adji._adji`.
#[pymodule]
fn _adji(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("AdjiError", m.py().get_type::<AdjiError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyDriver>()?;
    m.add_class::<PyTables>()?;
    m.add_class::<PySolver>()?;
    m.add_function(wrap_pyfunction!(perft::perft, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add_function(wrap_pyfunction!(py_num_actions, m)?)?;
    Ok(())
}
