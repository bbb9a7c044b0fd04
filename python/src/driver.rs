//! `adji.Driver` (a game in play, every end rule applied along the
//! history, as `adji replay` applies them) and `adji.replay`.

use pyo3::prelude::*;

use adji::driver::Driver;
use adji::game::{Game, Move, State};
use adji::notation::{format_move, parse_move, Stores};
use adji::report::ReplayReport;
use adji::rules::RuleSet;

use crate::errors::{adji_err, parse_rules, to_py};
use crate::position::{move_name, position_arg, replay_message, PyPosition};

/// A game driver of any rule set: what the Python class asks of a
/// [`Driver`], implemented once for every game type, so that one boxed
/// value holds the driver of the rule set chosen at run time (no match
/// over the rule sets: a new one needs no change here).
pub(crate) trait AnyDriver: Send + Sync {
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
pub(crate) fn new_driver<G: Game>(st: State) -> Box<dyn AnyDriver> {
    Box::new(Driver::<G>::new(st))
}

/// A game in play from a position, with every end rule applied literally
/// along the history, as `adji replay` applies them (docs/RULES.md
/// §2–§4, "Playing a game"): the loop rule (a position repeated with no
/// capture in between), Adjito's end when a player has captured more than
/// 24, and the final sweep.
#[pyclass(module = "adji._adji", name = "Driver")]
#[derive(Clone)]
pub(crate) struct PyDriver {
    rules: RuleSet,
    start: State,
    d: Box<dyn AnyDriver>,
    history: Vec<String>,
}

impl PyDriver {
    /// Plays the move named `name`; the seeds it captured.
    fn play_name(&mut self, name: &str) -> PyResult<u8> {
        let pos = self.position();
        let parsed = adji::with_rules!(self.rules, G => parse_move::<G>(&pos.st.pos, name).ok()
            .map(|m| (m, format_move::<G>(&pos.st.pos, m))));
        let Some((m, canonical)) = parsed else {
            return Err(replay_message(self.rules, self.start, &self.history, name));
        };
        match self.d.play(m) {
            Ok(c) => {
                self.history.push(canonical);
                Ok(c)
            }
            Err(_) => Err(replay_message(self.rules, self.start, &self.history, name)),
        }
    }
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
        self.play_name(&name)
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

    /// Pickling (and so OpenSpiel's serialisation of states): the start
    /// position, then the moves played, which `__setstate__` replays.
    #[allow(clippy::type_complexity)]
    fn __reduce__(slf: &Bound<'_, Self>) -> PyResult<(PyObject, (PyPosition,), Vec<String>)> {
        let d = slf.borrow();
        Ok((
            slf.get_type().into_any().unbind(),
            (d.start(),),
            d.history.clone(),
        ))
    }

    /// Replays `history` from the start position (the inverse of
    /// `__reduce__`); raises AdjiError, as `play` does, for a move that
    /// cannot be played, leaving the driver at the start.
    fn __setstate__(&mut self, history: Vec<String>) -> PyResult<()> {
        let mut d = PyDriver {
            rules: self.rules,
            start: self.start,
            d: adji::with_rules!(self.rules, G => new_driver::<G>(self.start)),
            history: Vec::new(),
        };
        for name in &history {
            d.play_name(name)?;
        }
        *self = d;
        Ok(())
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
pub(crate) fn replay(
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
    adji::with_rules!(p.rules, G => {
        let r = ReplayReport::play::<G>(p.st, &line).map_err(adji_err)?;
        to_py(py, &r)
    })
}
