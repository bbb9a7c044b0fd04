//! `adji.Solver`, `adji.solve` and `adji.analyse`: the exact search and
//! the engine's estimate.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use pyo3::prelude::*;

use adji::notation::Stores;
use adji::oracle::{Eval, Oracle, SolveOptions, Watch};
use adji::search::Limits;
use adji::tables::TableSet;
use adji::tt::AtomicTable;
use adji::value::LoopRule;

use crate::errors::{adji_err, parse_rule, to_py, Count};
use crate::position::{position_arg, PyPosition};
use crate::tables::PyTables;
use crate::work::interruptible;

/// The tables of a search.
pub(crate) fn search_tables(tables: Option<&Bound<'_, PyTables>>) -> Option<Arc<TableSet>> {
    tables.map(|t| t.get().set.clone())
}

/// The oracle of a search under loop rule `rule`: over exactly `tables`
/// when given (a position of another family, or tables of another loop
/// rule, refused with the search's words), or over none.
pub(crate) fn oracle(tables: Option<Arc<TableSet>>, rule: LoopRule) -> PyResult<Oracle> {
    match tables {
        Some(t) => Oracle::with_set(rule, t).map_err(adji_err),
        None => Ok(Oracle::new(rule)),
    }
}

pub(crate) fn limits(time: Option<f64>, nodes: Option<u64>) -> PyResult<Limits> {
    if let Some(t) = time {
        if !(t > 0.0 && t <= 1e9) {
            return Err(adji_err(format!(
                "time: expected a number of seconds above 0 and at most 1e9, found '{t}'"
            )));
        }
    }
    if nodes == Some(0) {
        return Err(adji_err("nodes: expected at least 1"));
    }
    Ok(Limits {
        time: time.map(Duration::from_secs_f64),
        nodes,
    })
}

/// An exact solver that keeps its transposition table (and thread pool)
/// between positions, as `adji solve --positions-file` does: cheaper than
/// `adji.solve` for many small positions.
#[pyclass(module = "adji._adji", name = "Solver", frozen)]
pub(crate) struct PySolver {
    tables: Option<Arc<TableSet>>,
    rule: LoopRule,
    threads: usize,
    pool: Option<rayon::ThreadPool>,
    tt: AtomicTable,
}

impl PySolver {
    fn make(
        tables: Option<&Bound<'_, PyTables>>,
        rule: &str,
        threads: Option<usize>,
        hash_mib: usize,
    ) -> PyResult<Self> {
        let rule = parse_rule(rule)?;
        let threads = threads.unwrap_or_else(rayon::current_num_threads);
        if threads == 0 || threads > 1024 {
            return Err(adji_err(format!(
                "threads: expected 1 to 1024, found {threads}"
            )));
        }
        // One thread needs no pool: the search then runs no rayon job.
        let pool = if threads > 1 {
            Some(
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .map_err(|e| adji_err(format!("threads: {e}")))?,
            )
        } else {
            None
        };
        let tt = AtomicTable::try_new(hash_mib).map_err(|e| adji_err(format!("hash_mib: {e}")))?;
        Ok(PySolver {
            tables: search_tables(tables),
            rule,
            threads,
            pool,
            tt,
        })
    }

    /// Solves `p` under loop rule `rule`. The table is shared by every
    /// call, whatever its game, rule set or loop rule: the library keys its
    /// entries by all three (`adji::tt::Context`).
    fn run(
        &self,
        py: Python<'_>,
        p: &PyPosition,
        rule: LoopRule,
        limits: Limits,
    ) -> PyResult<PyObject> {
        let oracle = oracle(self.tables.clone(), rule)?;
        let opts = SolveOptions {
            limits,
            parallel: self.threads > 1,
            ..Default::default()
        };
        let p = p.posed;
        let watch = Watch::new();
        let solved = interruptible(py, &|| watch.stop(), || {
            let solve = || oracle.solve(&p, &self.tt, opts, Some(&watch));
            match &self.pool {
                Some(pool) => pool.install(solve),
                None => solve(),
            }
        })?;
        let report = solved.map_err(adji_err)?.report;
        to_py(py, &report)
    }
}

#[pymethods]
impl PySolver {
    /// A solver over optional `tables` (an adji.Tables of the loop rule
    /// `loop`), on `threads` threads (default: all cores), with a
    /// transposition table of `hash_mib` MiB.
    #[new]
    #[pyo3(signature = (tables = None, r#loop = "start", threads = None, hash_mib = Count(64)))]
    fn new(
        tables: Option<&Bound<'_, PyTables>>,
        r#loop: &str,
        threads: Option<Count<usize>>,
        hash_mib: Count<usize>,
    ) -> PyResult<Self> {
        PySolver::make(tables, r#loop, threads.map(Count::get), hash_mib.get())
    }

    /// `adji solve --json` for `position`, within `time` seconds or `nodes`,
    /// under loop rule `loop` (default: the solver's). Any sequence of
    /// calls, of any games, rule sets and loop rules, gives the values of
    /// fresh solves.
    #[pyo3(signature = (position, time = None, nodes = None, game = "adjito", rules = "default", r#loop = None))]
    #[allow(clippy::too_many_arguments)]
    fn solve(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        time: Option<f64>,
        nodes: Option<Count<u64>>,
        game: &str,
        rules: &str,
        r#loop: Option<&str>,
    ) -> PyResult<PyObject> {
        let nodes = nodes.map(Count::get);
        let p = position_arg(position, game, rules, Stores::Required)?;
        let rule = match r#loop {
            Some(r) => parse_rule(r)?,
            None => self.rule,
        };
        self.run(py, &p, rule, limits(time, nodes)?)
    }

    /// The loop rule of solves that name none: `start` or `even`.
    #[getter(r#loop)]
    fn rule(&self) -> &'static str {
        self.rule.name()
    }
}

/// `adji solve --json`: the exact value of `position` and of each move,
/// the principal variation and the loop flag; with `time` (seconds) or
/// `nodes`, proven bounds. `tables` (an adji.Tables of the same game and
/// loop rule) are probed at every stretch start; `threads` search at once
/// (default: all cores); `hash_mib` sizes the transposition table. For
/// many positions, `adji.Solver` keeps its table between them.
#[pyfunction]
#[pyo3(signature = (position, tables = None, r#loop = "start", time = None, nodes = None, threads = None, hash_mib = Count(64), game = "adjito", rules = "default"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    tables: Option<&Bound<'_, PyTables>>,
    r#loop: &str,
    time: Option<f64>,
    nodes: Option<Count<u64>>,
    threads: Option<Count<usize>>,
    hash_mib: Count<usize>,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let p = position_arg(position, game, rules, Stores::Required)?;
    let limits = limits(time, nodes.map(Count::get))?;
    let s = PySolver::make(tables, r#loop, threads.map(Count::get), hash_mib.get())?;
    s.run(py, &p, s.rule, limits)
}

/// `adji analyse --json`: the engine's estimate of `position` and of each
/// move, kept apart from the proven bounds of the same search (`value` is
/// set only when they meet). Stops at `time` seconds (default 5 when no
/// limit is given), `nodes`, or iteration `depth`. `eval` is None (the
/// weights shipped with adji), `"baseline"` (the split alone) or a model
/// file.
#[pyfunction]
#[pyo3(signature = (position, depth = None, eval = None, tables = None, r#loop = "start", time = None, nodes = None, game = "adjito", rules = "default"))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn analyse(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    depth: Option<Count<u32>>,
    eval: Option<PathBuf>,
    tables: Option<&Bound<'_, PyTables>>,
    r#loop: &str,
    time: Option<f64>,
    nodes: Option<Count<u64>>,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let (depth, nodes) = (depth.map(Count::get), nodes.map(Count::get));
    let p = position_arg(position, game, rules, Stores::Required)?;
    let rule = parse_rule(r#loop)?;
    let default_time = (nodes.is_none() && depth.is_none()).then_some(5.0);
    let limits = limits(time.or(default_time), nodes)?;
    if depth.is_some_and(|d| !(1..=200).contains(&d)) {
        return Err(adji_err("depth: expected 1 to 200"));
    }
    let oracle = oracle(search_tables(tables), rule)?;
    let (p, watch) = (p.posed, Watch::new());
    let eval = match &eval {
        None => Eval::Shipped,
        Some(f) => Eval::File(f),
    };
    let max_depth = depth.unwrap_or(200);
    let report = interruptible(py, &|| watch.stop(), || {
        oracle.estimate(&p, eval, limits, max_depth, Some(&watch))
    })?
    .map_err(adji_err)?;
    to_py(py, &report)
}
