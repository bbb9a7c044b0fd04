//! `adji.Tables` (opened endgame tables: probes, batches of raw boards,
//! statistics) and `adji.build_tables` (a build with a progress callback).

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use adji::game::GameId;
use adji::notation::Stores;
use adji::oracle::{tables, Facts, Oracle};
use adji::progress::Progress;
use adji::report::ProbeReport;
use adji::rules::RuleSet;

use adji::tables::{OpenCheck, TableSet};
use adji::value::LoopRule;

use crate::errors::{adji_err, parse_rule, parse_rules, to_py, Count};
use crate::position::{position_in, PyPosition};
use crate::work::{interruptible, Interrupted};

/// Endgame tables of one game and loop rule, opened from a directory
/// (every consecutive level from 0 that is present).
#[pyclass(module = "adji._adji", name = "Tables", frozen)]
pub(crate) struct PyTables {
    pub(crate) set: Arc<TableSet>,
    /// The rule set asked for (its positions are probed; the tables are
    /// those of its [`RuleSet::tables`]).
    pub(crate) rules: RuleSet,
    pub(crate) dir: PathBuf,
}

pub(crate) fn open_tables(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    trust: bool,
) -> PyResult<TableSet> {
    let check = if trust {
        OpenCheck::Header
    } else {
        OpenCheck::Full
    };
    let game = rules.game();
    let set = tables::open(rules, dir, rule, check).map_err(adji_err)?;
    if set.covered() == 0 {
        let present: Vec<String> = GameId::ALL
            .into_iter()
            .flat_map(|g| {
                TableSet::rules_present(dir, adji::rules::RuleSet::default_for(g))
                    .into_iter()
                    .filter(move |&r| (g, r) != (game, rule))
                    .map(move |r| format!("{g} tables for --loop {}", r.name()))
            })
            .collect();
        let found = if present.is_empty() {
            "no level-0 table of either game".to_string()
        } else {
            present.join(", ")
        };
        return Err(adji_err(format!(
            "no {} tables for --loop {} in {} (it holds {found})",
            adji::report::tables_label(rules),
            rule.name(),
            dir.display()
        )));
    }
    Ok(set)
}

impl PyTables {
    fn probe_pos(&self, p: &PyPosition) -> PyResult<ProbeReport> {
        self.probe_pos_nogil(p).map_err(adji_err)
    }

    /// The probe report of `p` (no Python object touched: callable with
    /// the GIL released); the error is the command line's message.
    fn probe_pos_nogil(&self, p: &PyPosition) -> Result<ProbeReport, String> {
        let oracle =
            Oracle::with_set(self.set.rule, self.set.clone()).map_err(|e| e.to_string())?;
        oracle.probe(&p.posed).map_err(|e| e.to_string())
    }
}

#[pymethods]
impl PyTables {
    /// Opens the tables of `game` under rule set `rules` (those of the rule
    /// set whose tables it reads) built under loop rule `loop` in `dir`.
    /// With `trust`, only headers, sizes and exception lists are checked
    /// (as `--trust-tables`).
    #[new]
    #[pyo3(signature = (dir = "tables".into(), game = "adjito", rules = "default", r#loop = "start", trust = false))]
    fn new(
        py: Python<'_>,
        dir: PathBuf,
        game: &str,
        rules: &str,
        r#loop: &str,
        trust: bool,
    ) -> PyResult<Self> {
        let (g, rule) = (parse_rules(game, rules)?, parse_rule(r#loop)?);
        let set = py.allow_threads(|| open_tables(&dir, g, rule, trust))?;
        Ok(PyTables {
            rules: g,
            set: Arc::new(set),
            dir,
        })
    }

    /// `adjito` or `adjiboto`.
    #[getter]
    fn game(&self) -> &'static str {
        self.set.game.name()
    }

    /// The rule set asked for (`default`, `valdez`, …); the tables are
    /// those of the rule set it reads (`valdez` reads the default's).
    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// The loop rule the tables were built with: `start` or `even`.
    #[getter(r#loop)]
    fn rule(&self) -> &'static str {
        self.set.rule.name()
    }

    /// The directory.
    #[getter]
    fn dir(&self) -> PathBuf {
        self.dir.clone()
    }

    /// Number of levels covered (levels 0..covered-1).
    #[getter]
    fn covered(&self) -> u32 {
        self.set.covered()
    }

    /// Bytes of the table files mapped read-only: page cache, which the
    /// kernel drops and reads again, not memory the tables hold.
    #[getter]
    fn mapped_bytes(&self) -> u64 {
        self.set.mapped_bytes()
    }

    /// Bytes the tables allocate, at most: the caches of decoded blocks
    /// of compressed levels (what a memory plan counts).
    #[getter]
    fn allocated_bytes(&self) -> u64 {
        self.set.allocated_bytes()
    }

    /// `adji tables probe --json`: value, lo, hi, loop-sensitivity and
    /// every move's value. A string position may leave the stores out.
    #[pyo3(signature = (position))]
    fn probe(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let p = position_in(position, self.rules, Stores::Optional)?;
        to_py(py, &self.probe_pos(&p)?)
    }

    /// The value of `position` (mover minus opponent, seeds on the board).
    fn value(&self, position: &Bound<'_, PyAny>) -> PyResult<i32> {
        let p = position_in(position, self.rules, Stores::Optional)?;
        Ok(self.probe_pos(&p)?.value)
    }

    /// Probes many positions; one report per position, in order.
    fn probe_many(&self, py: Python<'_>, positions: &Bound<'_, PyAny>) -> PyResult<PyObject> {
        let mut ps = Vec::new();
        for p in positions.try_iter()? {
            ps.push(position_in(&p?, self.rules, Stores::Optional)?);
        }
        let reports = py.allow_threads(|| {
            ps.iter()
                .map(|p| self.probe_pos_nogil(p))
                .collect::<Result<Vec<_>, String>>()
        });
        to_py(py, &reports.map_err(adji_err)?)
    }

    /// Batch probe of raw boards (the package's `probe_boards` wraps it for
    /// NumPy): `boards` holds `n` boards of the game's pit count, one byte
    /// per pit, each relative to the mover (mover's row first, in sowing
    /// order), main phase. Returns three little-endian int32 byte strings:
    /// values, lo and hi (±1000 stand for ±infinity in lo/hi).
    fn _probe_boards<'py>(
        &self,
        py: Python<'py>,
        boards: &[u8],
    ) -> PyResult<(
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
        Bound<'py, PyBytes>,
    )> {
        let pits = Facts::of(self.rules).pits;
        if !boards.len().is_multiple_of(pits) {
            return Err(adji_err(format!(
                "boards: expected rows of {pits} pits, found {} numbers",
                boards.len()
            )));
        }
        if let Some(i) = boards.iter().position(|&b| b > 127) {
            return Err(adji_err(format!(
                "boards[{}, {}] is {}: expected a seed count from 0 to 127",
                i / pits,
                i % pits,
                boards[i]
            )));
        }
        let out = py.allow_threads(|| tables::probe_boards(self.rules, &self.set, boards));
        let (v, lo, hi) = out.map_err(adji_err)?;
        let bytes = |x: &[i32]| {
            let b: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
            PyBytes::new(py, &b)
        };
        Ok((bytes(&v), bytes(&lo), bytes(&hi)))
    }

    /// `adji tables stats` for one level: positions, wins, draws, losses
    /// for the mover, loop-sensitive count and the value histogram.
    fn stats(&self, py: Python<'_>, level: Count<u32>) -> PyResult<PyObject> {
        let level = level.get();
        if level >= self.set.covered() {
            return Err(adji_err(format!(
                "level {level} is not built; tables cover levels 0..={}",
                self.set.covered() as i64 - 1
            )));
        }
        let s = py.allow_threads(|| tables::level_stats(self.rules, &self.set, level));
        to_py(py, &s.map_err(|e| adji_err(e.to_string()))?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Tables({:?}, game={:?}, loop={:?}, covered={})",
            self.dir.display().to_string(),
            self.set.game.name(),
            self.set.rule.name(),
            self.set.covered()
        )
    }
}

/// Receives a table build's progress and forwards it to a Python callback;
/// unwinds the build (with [`Interrupted`]) once stopped.
pub(crate) struct PyProgress {
    cb: Option<PyObject>,
    stop: AtomicBool,
    error: Mutex<Option<PyErr>>,
    phase: Mutex<(String, u64)>,
    done: AtomicU64,
    last: Mutex<Instant>,
}

impl PyProgress {
    fn check(&self) {
        if self.stop.load(Ordering::Relaxed) {
            std::panic::resume_unwind(Box::new(Interrupted));
        }
    }

    fn call(
        &self,
        kind: &str,
        message: &str,
        level: Option<&adji::tables::retrograde::BuildEvent>,
    ) {
        let Some(cb) = &self.cb else { return };
        let (phase, total) = self.phase.lock().map(|g| g.clone()).unwrap_or_default();
        Python::with_gil(|py| {
            let r = (|| -> PyResult<()> {
                let d = PyDict::new(py);
                d.set_item("kind", kind)?;
                d.set_item("phase", phase)?;
                d.set_item("done", self.done.load(Ordering::Relaxed))?;
                d.set_item("total", total)?;
                d.set_item("message", message)?;
                if let Some(ev) = level {
                    d.set_item("level", to_py(py, ev)?)?;
                }
                cb.call1(py, (d,))?;
                Ok(())
            })();
            if let Err(e) = r {
                if let Ok(mut g) = self.error.lock() {
                    g.get_or_insert(e);
                }
                self.stop.store(true, Ordering::Relaxed);
            }
        });
    }
}

impl Progress for PyProgress {
    fn start(&self, what: &str, total: u64) {
        self.check();
        if let Ok(mut g) = self.phase.lock() {
            *g = (what.to_string(), total);
        }
        self.done.store(0, Ordering::Relaxed);
        self.call("start", "", None);
    }

    fn inc(&self, n: u64) {
        self.check();
        self.done.fetch_add(n, Ordering::Relaxed);
        let due = match self.last.try_lock() {
            Ok(mut l) if l.elapsed() >= Duration::from_millis(200) => {
                *l = Instant::now();
                true
            }
            _ => false,
        };
        if due {
            self.call("progress", "", None);
        }
    }

    fn message(&self, message: &str) {
        self.check();
        self.call("message", message, None);
    }

    fn finish(&self, message: &str) {
        self.call("finish", message, None);
    }
}

/// `adji tables build`: builds (or resumes) levels 0..=`max_seeds` of
/// `game` under loop rule `loop` in `dir`. `progress`, if given, is called
/// with one dict per event (`kind`: start, progress, message, finish or
/// level; `phase`, `done`, `total`, `message`, and for `level` the
/// level's build event). `memory` (bytes) refuses a plan over it before
/// anything is allocated. Returns the build events, one per level.
#[pyfunction]
#[pyo3(signature = (dir, max_seeds, game = "adjito", rules = "default", r#loop = "start", progress = None, memory = None))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn build_tables(
    py: Python<'_>,
    dir: PathBuf,
    max_seeds: Count<u32>,
    game: &str,
    rules: &str,
    r#loop: &str,
    progress: Option<PyObject>,
    memory: Option<Count<u64>>,
) -> PyResult<PyObject> {
    let (max_seeds, memory) = (max_seeds.get(), memory.map(Count::get));
    let (g, rule) = (parse_rules(game, rules)?, parse_rule(r#loop)?);
    let bar = PyProgress {
        cb: progress,
        stop: AtomicBool::new(false),
        error: Mutex::new(None),
        phase: Mutex::new((String::new(), 0)),
        done: AtomicU64::new(0),
        last: Mutex::new(Instant::now()),
    };
    let events = Mutex::new(Vec::new());
    let r = interruptible(py, &|| bar.stop.store(true, Ordering::Relaxed), || {
        let memory = memory.unwrap_or(u64::MAX);
        tables::build_within(g, &dir, rule, max_seeds, memory, &bar, |ev| {
            bar.call("level", "", Some(ev));
            if let Ok(mut e) = events.lock() {
                e.push(ev.clone());
            }
            bar.check();
        })
        .map(|_| ())
    });
    if let Some(e) = bar.error.lock().ok().and_then(|mut g| g.take()) {
        return Err(e);
    }
    r?.map_err(adji_err)?;
    let events = events.into_inner().unwrap_or_default();
    to_py(py, &events)
}
