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
#![deny(missing_docs)]

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use pyo3::create_exception;
use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};

use adji::driver::Driver;
use adji::engine::{Engine, EngineOptions};
use adji::eval::Model;
use adji::game::{Game, GameId, Move, State};
use adji::notation::{format_move, format_state, parse_move, parse_state, Stores};
use adji::progress::Progress;
use adji::report::{
    AnalyseReport, MovesReport, PerftReport, ProbeReport, ReplayReport, SolveReport,
};
use adji::rules::RuleSet;
use adji::search::{Limits, Options, SearchError, Searcher};
use adji::tables::retrograde::build_tables_within;
use adji::tables::{OpenCheck, TableSet};
use adji::tt::{AtomicTable, TransTable};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

create_exception!(
    adji,
    AdjiError,
    PyValueError,
    "Bad input or an impossible request: malformed notation, an illegal move, \
     a missing or corrupt table, tables of another game or loop rule. The \
     message is the command line's."
);

/// An [`AdjiError`] with `msg`.
fn adji_err(msg: impl std::fmt::Display) -> PyErr {
    AdjiError::new_err(msg.to_string())
}

/// Runs `$body` with `$G` bound to the game type of rule set `$rules`.
macro_rules! with_game {
    ($rules:expr, $G:ident => $body:expr) => {
        match $rules {
            RuleSet::AdjitoDefault => {
                type $G = Adjito;
                $body
            }
            RuleSet::AdjitoMustReach => {
                type $G = adji::adjito::AdjitoMustReach;
                $body
            }
            RuleSet::AdjitoSlamForbidden => {
                type $G = adji::adjito::AdjitoSlamForbidden;
                $body
            }
            RuleSet::AdjiBotoDefault => {
                type $G = AdjiBoto;
                $body
            }
            RuleSet::AdjiBotoValdez => {
                type $G = adji::adjiboto::AdjiBotoValdez;
                $body
            }
        }
    };
}

fn parse_game(name: &str) -> PyResult<GameId> {
    match name.trim().to_ascii_lowercase().replace('-', "").as_str() {
        "adjito" => Ok(GameId::Adjito),
        "adjiboto" => Ok(GameId::AdjiBoto),
        _ => Err(adji_err(format!(
            "game: expected `adjito` or `adjiboto`, found '{name}'"
        ))),
    }
}

/// The rule set `rules` of `game` (`adji rules` lists them).
fn parse_rules(game: &str, rules: &str) -> PyResult<RuleSet> {
    RuleSet::parse(parse_game(game)?, rules).map_err(|e| adji_err(format!("rules: {e}")))
}

fn parse_rule(name: &str) -> PyResult<LoopRule> {
    match name {
        "start" => Ok(LoopRule::Start),
        "even" => Ok(LoopRule::Even),
        _ => Err(adji_err(format!(
            "loop: expected `start` or `even`, found '{name}'"
        ))),
    }
}

/// A report as the Python object its JSON decodes to.
fn to_py<T: serde::Serialize>(py: Python<'_>, r: &T) -> PyResult<PyObject> {
    let s = serde_json::to_string(r).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (s,))?.unbind())
}

// ---------------------------------------------------------------------------
// Interruptible work

/// The payload a stopped table build unwinds with.
struct Interrupted;

/// Runs `work` on a worker thread with the GIL released; the calling
/// thread polls for signals every 50 ms and calls `stop` on the first
/// error (Ctrl-C), then waits for the worker and raises that error.
fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &(dyn Fn() + Sync),
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|s| {
        let done = &done;
        let h = s.spawn(move || {
            let r = std::panic::catch_unwind(AssertUnwindSafe(work));
            *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            done.1.notify_all();
            r
        });
        let mut raised: Option<PyErr> = None;
        loop {
            let finished = py.allow_threads(|| {
                let g = done.0.lock().unwrap_or_else(|e| e.into_inner());
                let (g, _) = done
                    .1
                    .wait_timeout_while(g, Duration::from_millis(50), |d| !*d)
                    .unwrap_or_else(|e| e.into_inner());
                *g
            });
            if finished {
                break;
            }
            if raised.is_none() {
                if let Err(e) = py.check_signals() {
                    stop();
                    raised = Some(e);
                }
            }
        }
        let r = py.allow_threads(|| h.join());
        if let Some(e) = raised {
            return Err(e);
        }
        match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(p)) | Err(p) => Err(if p.is::<Interrupted>() {
                PyKeyboardInterrupt::new_err("interrupted")
            } else if let Some(s) = p.downcast_ref::<String>() {
                PyRuntimeError::new_err(s.clone())
            } else if let Some(s) = p.downcast_ref::<&str>() {
                PyRuntimeError::new_err(s.to_string())
            } else {
                PyRuntimeError::new_err("the worker thread panicked")
            }),
        }
    })
}

// ---------------------------------------------------------------------------
// Positions

/// A position of Adjito or Adji-Boto with the seeds captured so far
/// (immutable; `play` returns a new one).
#[pyclass(module = "adji._adji", name = "Position", frozen)]
#[derive(Clone, Copy)]
struct PyPosition {
    rules: RuleSet,
    st: State,
}

/// A `position` argument: a `Position`, or notation for `game` under
/// rule set `rules`. A Position keeps its own rule set; naming another
/// (not the default) is an error.
fn position_arg(
    obj: &Bound<'_, PyAny>,
    game: &str,
    rules: &str,
    stores: Stores,
) -> PyResult<PyPosition> {
    if let Ok(p) = obj.downcast::<PyPosition>() {
        let p = *p.get();
        if rules != "default" && rules != p.rules.name() {
            return Err(adji_err(format!(
                "rules: the position is of the rule set '{}', not '{rules}'",
                p.rules.name()
            )));
        }
        return Ok(p);
    }
    position_in(obj, parse_rules(game, rules)?, stores)
}

/// A `position` argument for rule set `rules`: a Position of that rule
/// set's tables, or notation.
fn position_in(obj: &Bound<'_, PyAny>, rules: RuleSet, stores: Stores) -> PyResult<PyPosition> {
    if let Ok(p) = obj.downcast::<PyPosition>() {
        return Ok(*p.get());
    }
    let text: String = obj.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("position: expected an adji.Position or a str")
    })?;
    PyPosition::parse(&text, rules, stores)
}

impl PyPosition {
    fn parse(text: &str, rules: RuleSet, stores: Stores) -> PyResult<PyPosition> {
        with_game!(rules, G => {
            let st = parse_state::<G>(text, stores).map_err(adji_err)?;
            Ok(PyPosition { rules, st })
        })
    }

    fn notation(&self) -> String {
        with_game!(self.rules, G => format_state::<G>(&self.st))
    }

    /// The move named `name` or numbered `action` (absolute pit; the pit
    /// count for `pass`), parsed for the mover, legal or not.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<(Move, String)> {
        let name = move_name(self.rules, mv)?;
        with_game!(self.rules, G => {
            let m = parse_move::<G>(&self.st.pos, &name).map_err(adji_err)?;
            Ok((m, format_move::<G>(&self.st.pos, m)))
        })
    }
}

/// Number of actions of a game: one per absolute pit, plus `pass`.
fn num_actions(game: RuleSet) -> usize {
    with_game!(game, G => G::PITS + G::HAS_PASS as usize)
}

/// The name of a move given as a name or as an action number.
fn move_name(game: RuleSet, mv: &Bound<'_, PyAny>) -> PyResult<String> {
    if let Ok(a) = mv.extract::<i64>() {
        return action_name(game, a);
    }
    mv.extract::<String>().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err(
            "move: expected a move name (str) or an action (int)",
        )
    })
}

/// The move name of action `a`: absolute pit `a`, or `pass` for the pit count.
fn action_name(game: RuleSet, a: i64) -> PyResult<String> {
    with_game!(game, G => {
        if a >= 0 && (a as usize) < G::PITS {
            Ok(G::pit_name(a as usize))
        } else if G::HAS_PASS && a as usize == G::PITS {
            Ok("pass".to_string())
        } else {
            Err(adji_err(format!(
                "move: expected an action from 0 to {}, found {a}",
                num_actions(game) - 1
            )))
        }
    })
}

/// The action number of move `m` of `pos`'s mover.
fn action_of<G: Game>(pos: &adji::Position, m: Move) -> usize {
    if m.is_pass() {
        G::PITS
    } else {
        G::abs_pit(pos, m.pit())
    }
}

/// The error the command line gives for playing `name` at the end of
/// `history` from `start` (`adji replay`'s message).
fn replay_message(game: RuleSet, start: State, history: &[String], name: &str) -> PyErr {
    let mut line = history.join(" ");
    line.push(' ');
    line.push_str(name);
    with_game!(game, G => match ReplayReport::play::<G>(start, &line) {
        Err(e) => adji_err(e),
        Ok(_) => adji_err(format!("move {name} cannot be played")),
    })
}

#[pymethods]
impl PyPosition {
    /// Parses `text` (the README's notation, §5, or `start`) for `game`
    /// (`adjito` or `adjiboto`).
    #[new]
    #[pyo3(signature = (text = "start", game = "adjito", rules = "default"))]
    fn new(text: &str, game: &str, rules: &str) -> PyResult<Self> {
        PyPosition::parse(text, parse_rules(game, rules)?, Stores::Required)
    }

    /// The starting position of `game` under rule set `rules`.
    #[staticmethod]
    #[pyo3(signature = (game = "adjito", rules = "default"))]
    fn start(game: &str, rules: &str) -> PyResult<Self> {
        PyPosition::parse("start", parse_rules(game, rules)?, Stores::Required)
    }

    /// `adjito` or `adjiboto`.
    #[getter]
    fn game(&self) -> &'static str {
        self.rules.game().name()
    }

    /// The rule set: `default`, `must-reach`, `slam-forbidden`, `valdez`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.rules.name()
    }

    /// The absolute side to move: 0 (Adjito B, Adji-Boto 0, who moves
    /// first from the start) or 1.
    #[getter]
    fn side(&self) -> u8 {
        self.st.pos.side
    }

    /// The mover's name: `B`/`A` or `0`/`1`.
    #[getter]
    fn mover(&self) -> String {
        with_game!(self.rules, G => G::side_name(self.st.pos.side).to_string())
    }

    /// Seeds captured so far, by absolute side: (side 0, side 1).
    #[getter]
    fn stores(&self) -> (u16, u16) {
        (self.st.stores[0], self.st.stores[1])
    }

    /// Seeds on the board.
    #[getter]
    fn level(&self) -> u32 {
        self.st.pos.level()
    }

    /// Seeds per pit in absolute sowing order (pit 0 is 1B or 0).
    #[getter]
    fn pits(&self) -> Vec<u32> {
        with_game!(self.rules, G => G::to_absolute(&self.st.pos)[..G::PITS].iter().map(|&x| x as u32).collect())
    }

    /// Seeds per pit relative to the mover: the mover's row first, in
    /// sowing order (the form the endgame tables are indexed by).
    #[getter]
    fn board(&self) -> Vec<u32> {
        with_game!(self.rules, G => self.st.pos.pits[..G::PITS].iter().map(|&x| x as u32).collect())
    }

    /// Adji-Boto's phase field (`main` or `opening:…`); None for Adjito.
    #[getter]
    fn phase(&self) -> Option<String> {
        with_game!(self.rules, G => G::HAS_PASS.then(|| adji::notation::format_phase::<G>(&self.st.pos)))
    }

    /// Whether Adji-Boto's opening is in progress.
    #[getter]
    fn in_opening(&self) -> bool {
        self.st.pos.in_opening()
    }

    /// The position in notation.
    #[getter(notation)]
    fn get_notation(&self) -> String {
        self.notation()
    }

    /// Whether the game is over by the position alone (no legal move); the
    /// loop rule and Adjito's early end need the history: see `Driver`.
    #[getter]
    fn game_over(&self) -> bool {
        with_game!(self.rules, G => G::legal_moves(&self.st.pos).is_empty())
    }

    /// Why the game is over (`MoverEmpty`, `CannotFeed`, `NoMoves`), or None.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        with_game!(self.rules, G => G::end_reason(&self.st.pos)
            .filter(|_| G::legal_moves(&self.st.pos).is_empty())
            .map(|r| format!("{r:?}")))
    }

    /// Final seeds by absolute side if the game ended here (stores plus
    /// each player's own row).
    fn final_score(&self) -> (u32, u32) {
        let s = with_game!(self.rules, G => adji::driver::final_score::<G>(&self.st));
        (s[0], s[1])
    }

    /// The legal moves' names, in generation order.
    fn legal_moves(&self) -> Vec<String> {
        with_game!(self.rules, G => G::legal_moves(&self.st.pos)
            .iter()
            .map(|m| format_move::<G>(&self.st.pos, m))
            .collect())
    }

    /// The legal moves as action numbers: the absolute pit (0 = 1B or 0),
    /// or the pit count (10) for Adji-Boto's `pass`.
    fn legal_actions(&self) -> Vec<usize> {
        with_game!(self.rules, G => G::legal_moves(&self.st.pos)
            .iter()
            .map(|m| action_of::<G>(&self.st.pos, m))
            .collect())
    }

    /// The name of action `action` (`2B`, `7`, `pass`).
    fn action_to_move(&self, action: i64) -> PyResult<String> {
        action_name(self.rules, action)
    }

    /// The action number of move `name` for this position's mover.
    fn move_to_action(&self, name: &Bound<'_, PyAny>) -> PyResult<usize> {
        let (m, _) = self.parse_move(name)?;
        Ok(with_game!(self.rules, G => action_of::<G>(&self.st.pos, m)))
    }

    /// Plays `move` (a name or an action number); raises AdjiError with
    /// the command line's message for an illegal one.
    #[pyo3(name = "play", signature = (mv))]
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let name = move_name(self.rules, mv)?;
        with_game!(self.rules, G => {
            match parse_move::<G>(&self.st.pos, &name).ok().filter(|m| G::legal_moves(&self.st.pos).contains(*m)) {
                Some(m) => Ok(PyPosition { rules: self.rules, st: self.st.play::<G>(m).0 }),
                None => Err(replay_message(self.rules, self.st, &[], &name)),
            }
        })
    }

    /// Seeds move `move` captures.
    #[pyo3(signature = (mv))]
    fn captures(&self, mv: &Bound<'_, PyAny>) -> PyResult<u8> {
        let (m, name) = self.parse_move(mv)?;
        with_game!(self.rules, G => G::try_play(&self.st.pos, m)
            .map(|p| p.captured)
            .map_err(|_| replay_message(self.rules, self.st, &[], &name)))
    }

    /// `adji moves --json`: every legal move with the position after it
    /// and the seeds captured, or how the game ended.
    fn moves(&self, py: Python<'_>) -> PyResult<PyObject> {
        with_game!(self.rules, G => to_py(py, &MovesReport::new::<G>(&self.st)))
    }

    /// The board diagram of `adji show`.
    fn diagram(&self) -> String {
        with_game!(self.rules, G => adji::display::diagram::<G>(&self.st))
    }

    fn __str__(&self) -> String {
        self.notation()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position({:?}, game={:?}, rules={:?})",
            self.notation(),
            self.rules.game().name(),
            self.rules.name()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<PyPosition>()
            .is_ok_and(|o| o.get().rules == self.rules && o.get().st == self.st)
    }

    fn __hash__(&self) -> u64 {
        let k = self.st.pos.key();
        k ^ ((self.st.stores[0] as u64) << 8 | (self.st.stores[1] as u64) << 24)
            ^ self.rules.game().code() as u64
            ^ (self.rules.code() as u64) << 4
    }

    #[allow(clippy::type_complexity)]
    fn __reduce__(
        slf: &Bound<'_, Self>,
    ) -> PyResult<(PyObject, (String, &'static str, &'static str))> {
        let p = slf.get();
        Ok((
            slf.get_type().into_any().unbind(),
            (p.notation(), p.rules.game().name(), p.rules.name()),
        ))
    }
}

// ---------------------------------------------------------------------------
// The game driver

/// A game driver of any rule set: what the Python class asks of a
/// [`Driver`], implemented once for every game type, so that one boxed
/// value holds the driver of the rule set chosen at run time (no match
/// over the rule sets: a new one needs no change here).
trait AnyDriver: Send + Sync {
    /// The current state.
    fn state(&self) -> &State;
    /// How the game ended, if it has.
    fn result(&self) -> Option<&adji::driver::GameResult>;
    /// The result as `adji replay --json` reports it.
    fn result_report(&self) -> Option<adji::report::ResultReport>;
    /// Plays `m`; the seeds captured.
    fn play(&mut self, m: Move) -> Result<u8, adji::game::IllegalMove>;
    /// A copy.
    fn boxed(&self) -> Box<dyn AnyDriver>;
}

impl<G: Game> AnyDriver for Driver<G> {
    fn state(&self) -> &State {
        Driver::state(self)
    }

    fn result(&self) -> Option<&adji::driver::GameResult> {
        Driver::result(self)
    }

    fn result_report(&self) -> Option<adji::report::ResultReport> {
        Driver::result(self).map(adji::report::ResultReport::new::<G>)
    }

    fn play(&mut self, m: Move) -> Result<u8, adji::game::IllegalMove> {
        Driver::play(self, m).map(|(c, _)| c)
    }

    fn boxed(&self) -> Box<dyn AnyDriver> {
        Box::new(self.clone())
    }
}

impl Clone for Box<dyn AnyDriver> {
    fn clone(&self) -> Self {
        self.boxed()
    }
}

/// A driver of `G` from `st`, boxed.
fn new_driver<G: Game>(st: State) -> Box<dyn AnyDriver> {
    Box::new(Driver::<G>::new(st))
}

/// A game in play from a position, with every end rule applied literally
/// along the history, as `adji replay` applies them (the README's rules
/// §2–§4, "Playing a game"): the loop rule (a position repeated with no
/// capture in between), Adjito's end when a player has captured more than
/// 24, and the final sweep.
#[pyclass(module = "adji._adji", name = "Driver")]
#[derive(Clone)]
struct PyDriver {
    rules: RuleSet,
    start: State,
    d: Box<dyn AnyDriver>,
    history: Vec<String>,
}

#[pymethods]
impl PyDriver {
    /// A game from `position` (a Position, or notation for `game`).
    #[new]
    #[pyo3(signature = (position = None, game = "adjito", rules = "default"))]
    fn new(position: Option<&Bound<'_, PyAny>>, game: &str, rules: &str) -> PyResult<Self> {
        let p = match position {
            Some(p) => position_arg(p, game, rules, Stores::Required)?,
            None => PyPosition::parse("start", parse_rules(game, rules)?, Stores::Required)?,
        };
        let d = adji::with_rules!(p.rules, new_driver(p.st));
        Ok(PyDriver {
            rules: p.rules,
            start: p.st,
            d,
            history: Vec::new(),
        })
    }

    /// The current position.
    #[getter]
    fn position(&self) -> PyPosition {
        let st = *self.d.state();
        PyPosition {
            rules: self.rules,
            st,
        }
    }

    /// The starting position.
    #[getter]
    fn start(&self) -> PyPosition {
        PyPosition {
            rules: self.rules,
            st: self.start,
        }
    }

    /// The moves played, by name.
    #[getter]
    fn history(&self) -> Vec<String> {
        self.history.clone()
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.d.result().is_some()
    }

    /// How the game ended, as `adji replay --json` gives `result`
    /// (description, reason, score by name, winner), or None.
    fn result(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        match self.d.result_report() {
            Some(r) => Ok(Some(to_py(py, &r)?)),
            None => Ok(None),
        }
    }

    /// The end rule that ended the game (`Loop`, `MoreThanHalf`,
    /// `MoverEmpty`, `CannotFeed`, `NoMoves`), or None.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        self.d.result().map(|r| format!("{:?}", r.reason))
    }

    /// Final seeds by absolute side once the game is over, else None.
    #[getter]
    fn score(&self) -> Option<(u32, u32)> {
        self.d.result().map(|r| (r.score[0], r.score[1]))
    }

    /// The legal moves' names (none once the game is over).
    fn legal_moves(&self) -> Vec<String> {
        if self.is_over() {
            return Vec::new();
        }
        self.position().legal_moves()
    }

    /// The legal actions (none once the game is over).
    fn legal_actions(&self) -> Vec<usize> {
        if self.is_over() {
            return Vec::new();
        }
        self.position().legal_actions()
    }

    /// Plays `move` (a name or an action number) and returns the seeds it
    /// captured; raises AdjiError with `adji replay`'s message for an
    /// illegal move or a move after the end.
    #[pyo3(signature = (mv))]
    fn play(&mut self, mv: &Bound<'_, PyAny>) -> PyResult<u8> {
        let name = move_name(self.rules, mv)?;
        let pos = self.position();
        let parsed = with_game!(self.rules, G => parse_move::<G>(&pos.st.pos, &name).ok()
            .map(|m| (m, format_move::<G>(&pos.st.pos, m))));
        let Some((m, canonical)) = parsed else {
            return Err(replay_message(self.rules, self.start, &self.history, &name));
        };
        let r = self.d.play(m);
        match r {
            Ok(c) => {
                self.history.push(canonical);
                Ok(c)
            }
            Err(_) => Err(replay_message(self.rules, self.start, &self.history, &name)),
        }
    }

    /// A copy (OpenSpiel clones states by `copy.deepcopy`).
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    fn __repr__(&self) -> String {
        format!(
            "Driver(start={:?}, history={:?})",
            self.start().notation(),
            self.history.join(" ")
        )
    }
}

/// `adji replay --json`: plays `moves` (space-separated names, or a list
/// of names or actions) from `position`, every end rule applied literally.
#[pyfunction]
#[pyo3(signature = (position, moves, game = "adjito", rules = "default"))]
fn replay(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    moves: &Bound<'_, PyAny>,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let p = position_arg(position, game, rules, Stores::Required)?;
    let line = match moves.extract::<String>() {
        Ok(s) => s,
        Err(_) => {
            let mut names = Vec::new();
            for m in moves.try_iter()? {
                names.push(move_name(p.rules, &m?)?);
            }
            names.join(" ")
        }
    };
    with_game!(p.rules, G => {
        let r = ReplayReport::play::<G>(p.st, &line).map_err(adji_err)?;
        to_py(py, &r)
    })
}

// ---------------------------------------------------------------------------
// Perft

/// The library's perft, checking `stop` at every node more than
/// [`PERFT_LEAF`] moves from the horizon.
fn perft_stoppable<G: Game>(
    pos: &adji::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<u64, Interrupted> {
    if depth <= PERFT_LEAF {
        return Ok(adji::perft::perft::<G>(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Interrupted);
    }
    G::legal_moves(pos)
        .iter()
        .map(|m| perft_stoppable::<G>(&G::play_unchecked(pos, m).pos, depth - 1, stop))
        .sum()
}

/// Subtrees of at most this many moves are counted without a stop check
/// (a few thousand nodes).
const PERFT_LEAF: u32 = 5;

/// Counts sequences of `depth` moves per first move, checking `stop`
/// between second-ply subtrees.
fn perft_divide<G: Game>(
    pos: &adji::Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<Vec<(Move, u64)>, Interrupted> {
    use rayon::prelude::*;
    if depth == 0 {
        return Ok(Vec::new());
    }
    G::legal_moves(pos)
        .iter()
        .collect::<Vec<_>>()
        .par_iter()
        .map(|&m| {
            let child = G::play_unchecked(pos, m).pos;
            if depth == 1 {
                return Ok((m, 1));
            }
            let grand: Vec<Move> = G::legal_moves(&child).iter().collect();
            let n = grand
                .par_iter()
                .map(|&g| {
                    if stop.load(Ordering::Relaxed) {
                        return Err(Interrupted);
                    }
                    perft_stoppable::<G>(&G::play_unchecked(&child, g).pos, depth - 2, stop)
                })
                .sum::<Result<u64, Interrupted>>()?;
            Ok((m, n))
        })
        .collect()
}

/// `adji perft`: the number of move sequences of exactly `depth` moves
/// (the README's rules §6); with `divide`, a dict of the count after each
/// first move, as `adji perft --divide --json` gives it.
#[pyfunction]
#[pyo3(signature = (position, depth, divide = false, game = "adjito", rules = "default"))]
fn perft(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    depth: u32,
    divide: bool,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let p = position_arg(position, game, rules, Stores::Required)?;
    let stop = AtomicBool::new(false);
    let d = interruptible(
        py,
        &|| stop.store(true, Ordering::Relaxed),
        || with_game!(p.rules, G => perft_divide::<G>(&p.st.pos, depth, &stop)
            .map(|v| v.into_iter().map(|(m, n)| (format_move::<G>(&p.st.pos, m), n)).collect::<Vec<_>>())),
    )?
    .map_err(|_| PyKeyboardInterrupt::new_err("interrupted"))?;
    let nodes = if depth == 0 {
        1
    } else {
        d.iter().map(|x| x.1).sum()
    };
    if divide {
        let r = PerftReport {
            divide: Some(d),
            nodes,
            rules: with_game!(p.rules, G => adji::report::RulesTag::of::<G>()),
        };
        to_py(py, &r)
    } else {
        Ok(nodes.into_pyobject(py)?.into_any().unbind())
    }
}

// ---------------------------------------------------------------------------
// Endgame tables

/// Endgame tables of one game and loop rule, opened from a directory
/// (every consecutive level from 0 that is present).
#[pyclass(module = "adji._adji", name = "Tables", frozen)]
struct PyTables {
    set: Arc<TableSet>,
    /// The rule set asked for (its positions are probed; the tables are
    /// those of its [`RuleSet::tables`]).
    rules: RuleSet,
    dir: PathBuf,
}

fn open_tables(dir: &Path, rules: RuleSet, rule: LoopRule, trust: bool) -> PyResult<TableSet> {
    let check = if trust {
        OpenCheck::Header
    } else {
        OpenCheck::Full
    };
    let game = rules.game();
    let set = with_game!(rules, G => TableSet::open_available_checked::<G>(dir, rule, check))
        .map_err(adji_err)?;
    if set.covered() == 0 {
        let present: Vec<String> = [GameId::Adjito, GameId::AdjiBoto]
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
        if p.rules.game() != self.set.game {
            return Err(SearchError::TablesGame {
                tables: self.set.game,
                search: p.rules.game(),
            }
            .to_string());
        }
        if p.rules.tables() != self.set.rules {
            return Err(SearchError::TablesRules {
                tables: self.set.rules,
                search: p.rules,
            }
            .to_string());
        }
        with_game!(p.rules, G => ProbeReport::new::<G>(&self.set, &p.st.pos).map_err(|e| e.to_string()))
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
        let pits = with_game!(self.rules, G => G::PITS);
        if !boards.len().is_multiple_of(pits) {
            return Err(adji_err(format!(
                "boards: expected rows of {pits} pits, found {} numbers",
                boards.len()
            )));
        }
        let n = boards.len() / pits;
        let out = py
            .allow_threads(|| with_game!(self.rules, G => probe_boards::<G>(&self.set, boards, n)));
        let (v, lo, hi) = out.map_err(adji_err)?;
        let bytes = |x: &[i32]| {
            let b: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
            PyBytes::new(py, &b)
        };
        Ok((bytes(&v), bytes(&lo), bytes(&hi)))
    }

    /// `adji tables stats` for one level: positions, wins, draws, losses
    /// for the mover, loop-sensitive count and the value histogram.
    fn stats(&self, py: Python<'_>, level: u32) -> PyResult<PyObject> {
        if level >= self.set.covered() {
            return Err(adji_err(format!(
                "level {level} is not built; tables cover levels 0..={}",
                self.set.covered() as i64 - 1
            )));
        }
        let s = py.allow_threads(
            || with_game!(self.rules, G => adji::tables::stats::level_stats::<G>(&self.set, level)),
        );
        to_py(py, &s)
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

/// Values, lo and hi of a batch of positions.
type Planes = (Vec<i32>, Vec<i32>, Vec<i32>);

/// Values, lo and hi of `n` relative boards (in parallel for big batches).
fn probe_boards<G: Game>(set: &TableSet, boards: &[u8], n: usize) -> Result<Planes, String> {
    use rayon::prelude::*;
    let one = |i: usize| -> Result<(i32, i32, i32), String> {
        let mut pos = adji::Position::default();
        pos.pits[..G::PITS].copy_from_slice(&boards[i * G::PITS..(i + 1) * G::PITS]);
        let b = set.bounds::<G>(&pos).ok_or_else(|| {
            format!(
                "board {i}: level {} is not built; tables cover levels 0..={}",
                pos.level(),
                set.covered() as i64 - 1
            )
        })?;
        Ok((b.value(set.rule.w::<G>(&pos)), b.lo, b.hi))
    };
    let r: Vec<(i32, i32, i32)> = if n >= 4096 {
        (0..n).into_par_iter().map(one).collect::<Result<_, _>>()?
    } else {
        (0..n).map(one).collect::<Result<_, _>>()?
    };
    Ok((
        r.iter().map(|x| x.0).collect(),
        r.iter().map(|x| x.1).collect(),
        r.iter().map(|x| x.2).collect(),
    ))
}

/// Receives a table build's progress and forwards it to a Python callback;
/// unwinds the build (with [`Interrupted`]) once stopped.
struct PyProgress {
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
fn build_tables(
    py: Python<'_>,
    dir: PathBuf,
    max_seeds: u32,
    game: &str,
    rules: &str,
    r#loop: &str,
    progress: Option<PyObject>,
    memory: Option<u64>,
) -> PyResult<PyObject> {
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
        with_game!(g, G => build_tables_within::<G>(&dir, rule, max_seeds, memory.unwrap_or(u64::MAX), &bar, |ev| {
                bar.call("level", "", Some(ev));
                if let Ok(mut e) = events.lock() {
                    e.push(ev.clone());
                }
                bar.check();
            }))
            .map(|_| ())
    });
    if let Some(e) = bar.error.lock().ok().and_then(|mut g| g.take()) {
        return Err(e);
    }
    r?.map_err(adji_err)?;
    let events = events.into_inner().unwrap_or_default();
    to_py(py, &events)
}

// ---------------------------------------------------------------------------
// Solve and analyse

/// The tables of a search, checked against its game and rule.
fn search_tables(tables: Option<&Bound<'_, PyTables>>) -> Option<Arc<TableSet>> {
    tables.map(|t| t.get().set.clone())
}

fn limits(time: Option<f64>, nodes: Option<u64>) -> PyResult<Limits> {
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
struct PySolver {
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

    fn run(&self, py: Python<'_>, p: &PyPosition, limits: Limits) -> PyResult<PyObject> {
        let opts = Options {
            rule: self.rule,
            limits,
            parallel: self.threads > 1,
            ..Options::default()
        };
        self.tt.new_generation();
        let report = with_game!(p.rules, G => {
            let s = Searcher::<G, _>::new(self.tables.as_deref(), &self.tt, opts).map_err(adji_err)?;
            let a = interruptible(py, &|| s.stop(), || match &self.pool {
                Some(pool) => pool.install(|| s.analyse(&p.st.pos)),
                None => s.analyse(&p.st.pos),
            })?;
            SolveReport::new::<G>(&p.st, &a)
        });
        to_py(py, &report)
    }
}

#[pymethods]
impl PySolver {
    /// A solver over optional `tables` (an adji.Tables of the loop rule
    /// `loop`), on `threads` threads (default: all cores), with a
    /// transposition table of `hash_mib` MiB.
    #[new]
    #[pyo3(signature = (tables = None, r#loop = "start", threads = None, hash_mib = 64))]
    fn new(
        tables: Option<&Bound<'_, PyTables>>,
        r#loop: &str,
        threads: Option<usize>,
        hash_mib: usize,
    ) -> PyResult<Self> {
        PySolver::make(tables, r#loop, threads, hash_mib)
    }

    /// `adji solve --json` for `position`, within `time` seconds or `nodes`.
    #[pyo3(signature = (position, time = None, nodes = None, game = "adjito", rules = "default"))]
    fn solve(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        time: Option<f64>,
        nodes: Option<u64>,
        game: &str,
        rules: &str,
    ) -> PyResult<PyObject> {
        let p = position_arg(position, game, rules, Stores::Required)?;
        self.run(py, &p, limits(time, nodes)?)
    }
}

/// `adji solve --json`: the exact value of `position` and of each move,
/// the principal variation and the loop flag; with `time` (seconds) or
/// `nodes`, proven bounds. `tables` (an adji.Tables of the same game and
/// loop rule) are probed at every stretch start; `threads` search at once
/// (default: all cores); `hash_mib` sizes the transposition table. For
/// many positions, `adji.Solver` keeps its table between them.
#[pyfunction]
#[pyo3(signature = (position, tables = None, r#loop = "start", time = None, nodes = None, threads = None, hash_mib = 64, game = "adjito", rules = "default"))]
#[allow(clippy::too_many_arguments)]
fn solve(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    tables: Option<&Bound<'_, PyTables>>,
    r#loop: &str,
    time: Option<f64>,
    nodes: Option<u64>,
    threads: Option<usize>,
    hash_mib: usize,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let p = position_arg(position, game, rules, Stores::Required)?;
    let limits = limits(time, nodes)?;
    PySolver::make(tables, r#loop, threads, hash_mib)?.run(py, &p, limits)
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
fn analyse(
    py: Python<'_>,
    position: &Bound<'_, PyAny>,
    depth: Option<u32>,
    eval: Option<PathBuf>,
    tables: Option<&Bound<'_, PyTables>>,
    r#loop: &str,
    time: Option<f64>,
    nodes: Option<u64>,
    game: &str,
    rules: &str,
) -> PyResult<PyObject> {
    let p = position_arg(position, game, rules, Stores::Required)?;
    let rule = parse_rule(r#loop)?;
    let default_time = (nodes.is_none() && depth.is_none()).then_some(5.0);
    let limits = limits(time.or(default_time), nodes)?;
    if depth.is_some_and(|d| !(1..=200).contains(&d)) {
        return Err(adji_err("depth: expected 1 to 200"));
    }
    let set = search_tables(tables);
    if let Some(t) = &set {
        // the exact search's checks, with its messages
        if t.rule != rule {
            return Err(adji_err(SearchError::TablesRule {
                tables: t.rule,
                search: rule,
            }));
        }
        if t.game != p.rules.game() {
            return Err(adji_err(SearchError::TablesGame {
                tables: t.game,
                search: p.rules.game(),
            }));
        }
        if t.rules != p.rules.tables() {
            return Err(adji_err(SearchError::TablesRules {
                tables: t.rules,
                search: p.rules,
            }));
        }
    }
    let opts = EngineOptions {
        rule,
        limits,
        max_depth: depth.unwrap_or(200),
    };
    let stop = Arc::new(AtomicBool::new(false));
    let report = with_game!(p.rules, G => {
        let model = match &eval {
            None => Model::default_for::<G>(),
            Some(f) if f.as_os_str() == "baseline" => Model::baseline::<G>(),
            Some(f) => {
                let text = std::fs::read_to_string(f).map_err(|e| adji_err(format!("--eval {}: {e}", f.display())))?;
                Model::from_json::<G>(&text).map_err(|e| adji_err(format!("--eval {}: {e}", f.display())))?
            }
        };
        let est = interruptible(py, &|| stop.store(true, Ordering::Relaxed), || {
            Engine::<G>::new(set.as_deref(), &model, opts).stop_when(stop.clone()).analyse(&p.st.pos)
        })?;
        AnalyseReport::new::<G>(&p.st, &est)
    });
    to_py(py, &report)
}

/// Number of distinct actions of `game`: its pits, plus `pass` for Adji-Boto.
#[pyfunction]
#[pyo3(name = "num_actions", signature = (game = "adjito", rules = "default"))]
fn py_num_actions(game: &str, rules: &str) -> PyResult<usize> {
    Ok(num_actions(parse_rules(game, rules)?))
}

/// The Python module `adji._adji`.
#[pymodule]
fn _adji(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("AdjiError", m.py().get_type::<AdjiError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add_class::<PyPosition>()?;
    m.add_class::<PyDriver>()?;
    m.add_class::<PyTables>()?;
    m.add_class::<PySolver>()?;
    m.add_function(wrap_pyfunction!(perft, m)?)?;
    m.add_function(wrap_pyfunction!(replay, m)?)?;
    m.add_function(wrap_pyfunction!(solve, m)?)?;
    m.add_function(wrap_pyfunction!(analyse, m)?)?;
    m.add_function(wrap_pyfunction!(build_tables, m)?)?;
    m.add_function(wrap_pyfunction!(py_num_actions, m)?)?;
    Ok(())
}
