//! `adji.perft`: move-sequence counts, interruptible.

use std::sync::atomic::{AtomicBool, Ordering};

use pyo3::exceptions::PyKeyboardInterrupt;
use pyo3::prelude::*;

use adji::notation::Stores;

use crate::errors::{to_py, Count};
use crate::position::position_arg;
use crate::work::interruptible;

/// `adji perft`: the number of move sequences of exactly `depth` moves
/// (docs/RULES.md §6); with `divide`, a dict of the count after each
/// first move, as `adji perft --divide --json` gives it.
#[pyfunction]
#[pyo3(signature = (position, depth, divide = false, game = "adjito", rules = "default"))]
pub(crate) fn perft(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    depth: Count<u32>,
    divide: bool,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let depth = depth.get();
    let p = position_arg(position, game, rules, Stores::Required)?;
    let stop = AtomicBool::new(false);
    let r = interruptible(py, &|| stop.store(true, Ordering::Relaxed), || {
        p.posed.perft_stoppable(depth, &stop)
    })?
    .map_err(|_| PyKeyboardInterrupt::new_err("interrupted"))?;
    if divide {
        to_py(py, &r)
    } else {
        Ok(r.nodes.into_pyobject(py)?.into_any().unbind())
    }
}
