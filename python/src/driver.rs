//! `adji.Driver` (a game in play, every end rule applied along the
//! history, as `adji replay` applies them) and `adji.replay`.

use pyo3::prelude::*;

use adji::notation::Stores;
use adji::oracle::Playing;

use crate::errors::{adji_err, parse_rules, to_py};
use crate::position::{move_name, position_arg, PyPosition};

/// A game in play from a position, with every end rule applied literally
/// along the history, as `adji replay` applies them (docs/RULES.md
/// §2–§4, "Playing a game"): the loop rule (a position repeated with no
/// capture in between), Adjito's end when a player has captured more than
/// 24, and the final sweep. It holds the library's [`Playing`].
#[pyclass(module = "adji._adji", name = "Driver")]
#[derive(Clone)]
pub(crate) struct PyDriver {
    game: Playing,
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
        Ok(PyDriver {
            game: Playing::new(p.posed),
        })
    }

    /// The current position.
    #[getter]
    fn position(&self) -> PyPosition {
        PyPosition {
            posed: self.game.position(),
        }
    }

    /// The starting position.
    #[getter]
    fn start(&self) -> PyPosition {
        PyPosition {
            posed: self.game.start(),
        }
    }

    /// The moves played, by name.
    #[getter]
    fn history(&self) -> Vec<String> {
        self.game.history().to_vec()
    }

    /// Whether the game has ended.
    #[getter]
    fn is_over(&self) -> bool {
        self.game.result().is_some()
    }

    /// How the game ended, as `adji replay --json` gives `result`
    /// (description, reason, score by name, winner), or None.
    fn result(&self, py: Python<'_>) -> PyResult<Option<PyObject>> {
        match self.game.result_report() {
            Some(r) => Ok(Some(to_py(py, &r)?)),
            None => Ok(None),
        }
    }

    /// The end rule that ended the game (`Loop`, `MoreThanHalf`,
    /// `MoverEmpty`, `CannotFeed`, `NoMoves`), or None.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        self.game.result().map(|r| format!("{:?}", r.reason))
    }

    /// Final seeds by absolute side once the game is over, else None.
    #[getter]
    fn score(&self) -> Option<(u32, u32)> {
        self.game.result().map(|r| (r.score[0], r.score[1]))
    }

    /// The legal moves' names (none once the game is over).
    fn legal_moves(&self) -> Vec<String> {
        self.game.move_names()
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
        let name = move_name(self.game.rules(), mv)?;
        self.game.play_name(&name).map_err(adji_err)
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
            d.history(),
        ))
    }

    /// Replays `history` from the start position (the inverse of
    /// `__reduce__`); raises AdjiError, as `play` does, for a move that
    /// cannot be played, leaving the driver at the start.
    fn __setstate__(&mut self, history: Vec<String>) -> PyResult<()> {
        let mut game = Playing::new(self.game.start());
        for name in &history {
            game.play_name(name).map_err(adji_err)?;
        }
        self.game = game;
        Ok(())
    }

    fn __repr__(&self) -> String {
        format!(
            "Driver(start={:?}, history={:?})",
            self.start().notation(),
            self.game.history().join(" ")
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
                names.push(move_name(p.posed.rules(), &m?)?);
            }
            names.join(" ")
        }
    };
    let r = p.posed.replay(&line).map_err(|fail| adji_err(fail.error))?;
    to_py(py, &r)
}
