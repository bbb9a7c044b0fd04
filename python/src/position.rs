//! `adji.Position`: a position of any rule set, its moves and actions, and
//! the naming of moves by action number. It holds the library's
//! [`Posed`] (a position with its rule set) and asks it every question.

use pyo3::prelude::*;

use adji::game::Move;
use adji::notation::Stores;
use adji::oracle::{Facts, Posed};
use adji::rules::RuleSet;

use crate::errors::{adji_err, parse_rules, to_py};

/// A position of Adjito or Adji-Boto with the seeds captured so far
/// (immutable; `play` returns a new one).
#[pyclass(module = "adji._adji", name = "Position", frozen)]
#[derive(Clone, Copy)]
pub(crate) struct PyPosition {
    pub(crate) posed: Posed,
}

/// A `position` argument: a `Position`, or notation for `game` under
/// rule set `rules`. A Position keeps its own rule set; naming another
/// (not the default) is an error.
pub(crate) fn position_arg(
    obj: &Bound<'_, PyAny>,
    game: &str,
    rules: &str,
    stores: Stores,
) -> PyResult<PyPosition> {
    if let Ok(p) = obj.downcast::<PyPosition>() {
        let p = *p.get();
        let own = p.posed.rules().name();
        if rules != "default" && rules != own {
            return Err(adji_err(format!(
                "rules: the position is of the rule set '{own}', not '{rules}'"
            )));
        }
        return Ok(p);
    }
    position_in(obj, parse_rules(game, rules)?, stores)
}

/// A `position` argument for rule set `rules`: a Position of that rule
/// set's tables, or notation.
pub(crate) fn position_in(
    obj: &Bound<'_, PyAny>,
    rules: RuleSet,
    stores: Stores,
) -> PyResult<PyPosition> {
    if let Ok(p) = obj.downcast::<PyPosition>() {
        return Ok(*p.get());
    }
    let text: String = obj.extract().map_err(|_| {
        pyo3::exceptions::PyTypeError::new_err("position: expected an adji.Position or a str")
    })?;
    PyPosition::parse(&text, rules, stores)
}

impl PyPosition {
    pub(crate) fn parse(text: &str, rules: RuleSet, stores: Stores) -> PyResult<PyPosition> {
        let posed = Posed::parse(rules, text, stores).map_err(adji_err)?;
        Ok(PyPosition { posed })
    }

    pub(crate) fn notation(&self) -> String {
        self.posed.notation()
    }

    /// The move named `name` or numbered `action` (absolute pit; the pit
    /// count for `pass`), parsed for the mover, legal or not.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<(Move, String)> {
        let name = move_name(self.posed.rules(), mv)?;
        let m = self.posed.parse_move(&name).map_err(adji_err)?;
        Ok((m, self.posed.move_name(m)))
    }

    /// The error the command line gives for playing `name` here, where it
    /// cannot be played (`adji replay`'s message).
    fn cannot_play(&self, name: &str) -> PyErr {
        match self.posed.replay(&format!(" {name}")) {
            Err(fail) => adji_err(fail.error),
            Ok(_) => adji_err(format!("move {name} cannot be played")),
        }
    }
}

/// The name of a move given as a name or as an action number.
pub(crate) fn move_name(game: RuleSet, mv: &Bound<'_, PyAny>) -> PyResult<String> {
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
pub(crate) fn action_name(game: RuleSet, a: i64) -> PyResult<String> {
    let facts = Facts::of(game);
    usize::try_from(a)
        .ok()
        .and_then(|a| facts.action_name(a))
        .ok_or_else(|| {
            adji_err(format!(
                "move: expected an action from 0 to {}, found {a}",
                facts.num_actions() - 1
            ))
        })
}

#[pymethods]
impl PyPosition {
    /// Parses `text` (the notation of docs/RULES.md §5, or `start`) for `game`
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
        self.posed.rules().game().name()
    }

    /// The rule set: `default`, `must-reach`, `slam-forbidden`, `valdez`.
    #[getter]
    fn rules(&self) -> &'static str {
        self.posed.rules().name()
    }

    /// The absolute side to move: 0 (Adjito B, Adji-Boto 0, who moves
    /// first from the start) or 1.
    #[getter]
    fn side(&self) -> u8 {
        self.posed.state().pos.side
    }

    /// The mover's name: `B`/`A` or `0`/`1`.
    #[getter]
    fn mover(&self) -> String {
        self.posed.mover().to_string()
    }

    /// Seeds captured so far, by absolute side: (side 0, side 1).
    #[getter]
    fn stores(&self) -> (u16, u16) {
        let [a, b] = self.posed.state().stores;
        (a, b)
    }

    /// Seeds on the board.
    #[getter]
    fn level(&self) -> u32 {
        self.posed.state().pos.level()
    }

    /// Seeds per pit in absolute sowing order (pit 0 is 1B or 0).
    #[getter]
    fn pits(&self) -> Vec<u32> {
        self.posed
            .absolute_pits()
            .into_iter()
            .map(u32::from)
            .collect()
    }

    /// Seeds per pit relative to the mover: the mover's row first, in
    /// sowing order (the form the endgame tables are indexed by).
    #[getter]
    fn board(&self) -> Vec<u32> {
        self.posed
            .relative_pits()
            .into_iter()
            .map(u32::from)
            .collect()
    }

    /// Adji-Boto's phase field (`main` or `opening:…`); None for Adjito.
    #[getter]
    fn phase(&self) -> Option<String> {
        self.posed.phase()
    }

    /// Whether Adji-Boto's opening is in progress.
    #[getter]
    fn in_opening(&self) -> bool {
        self.posed.state().pos.in_opening()
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
        self.posed.legal_moves().is_empty()
    }

    /// Why the game is over (`MoverEmpty`, `CannotFeed`, `NoMoves`), or None.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        self.posed.end_reason().map(|r| format!("{r:?}"))
    }

    /// Final seeds by absolute side if the game ended here (stores plus
    /// each player's own row).
    fn final_score(&self) -> (u32, u32) {
        let [a, b] = self.posed.final_score();
        (a, b)
    }

    /// The legal moves' names, in generation order.
    pub(crate) fn legal_moves(&self) -> Vec<String> {
        self.posed.move_names()
    }

    /// The legal moves as action numbers: the absolute pit (0 = 1B or 0),
    /// or the pit count (10) for Adji-Boto's `pass`.
    pub(crate) fn legal_actions(&self) -> Vec<usize> {
        let p = &self.posed;
        p.legal_moves()
            .into_iter()
            .map(|m| p.action_of(m))
            .collect()
    }

    /// The name of action `action` (`2B`, `7`, `pass`).
    fn action_to_move(&self, action: i64) -> PyResult<String> {
        action_name(self.posed.rules(), action)
    }

    /// The action number of move `name` for this position's mover.
    fn move_to_action(&self, name: &Bound<'_, PyAny>) -> PyResult<usize> {
        let (m, _) = self.parse_move(name)?;
        Ok(self.posed.action_of(m))
    }

    /// Plays `move` (a name or an action number); raises AdjiError with
    /// the command line's message for an illegal one.
    #[pyo3(name = "play", signature = (mv))]
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let name = move_name(self.posed.rules(), mv)?;
        let played = self.posed.parse_move(&name).ok();
        match played.and_then(|m| self.posed.play(m).ok()) {
            Some((posed, _)) => Ok(PyPosition { posed }),
            None => Err(self.cannot_play(&name)),
        }
    }

    /// Seeds move `move` captures.
    #[pyo3(signature = (mv))]
    fn captures(&self, mv: &Bound<'_, PyAny>) -> PyResult<u8> {
        let (m, name) = self.parse_move(mv)?;
        self.posed
            .play(m)
            .map(|(_, captured)| captured)
            .map_err(|_| self.cannot_play(&name))
    }

    /// `adji moves --json`: every legal move with the position after it
    /// and the seeds captured, or how the game ended.
    fn moves(&self, py: Python<'_>) -> PyResult<PyObject> {
        to_py(py, &self.posed.moves_report())
    }

    /// The board diagram of `adji show`.
    fn diagram(&self) -> String {
        self.posed.diagram()
    }

    fn __str__(&self) -> String {
        self.notation()
    }

    fn __repr__(&self) -> String {
        format!(
            "Position({:?}, game={:?}, rules={:?})",
            self.notation(),
            self.game(),
            self.rules()
        )
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .downcast::<PyPosition>()
            .is_ok_and(|o| o.get().posed == self.posed)
    }

    fn __hash__(&self) -> u64 {
        let (st, rules) = (self.posed.state(), self.posed.rules());
        st.pos.key()
            ^ ((st.stores[0] as u64) << 8 | (st.stores[1] as u64) << 24)
            ^ rules.game().code() as u64
            ^ (rules.code() as u64) << 4
    }

    #[allow(clippy::type_complexity)]
    fn __reduce__(
        slf: &Bound<'_, Self>,
    ) -> PyResult<(PyObject, (String, &'static str, &'static str))> {
        let p = slf.get();
        Ok((
            slf.get_type().into_any().unbind(),
            (p.notation(), p.game(), p.rules()),
        ))
    }
}

/// Number of distinct actions of `game`: its pits, plus `pass` for Adji-Boto.
#[pyfunction]
#[pyo3(name = "num_actions", signature = (game = "adjito", rules = "default"))]
pub(crate) fn py_num_actions(game: &str, rules: &str) -> PyResult<usize> {
    Ok(Facts::of(parse_rules(game, rules)?).num_actions())
}
