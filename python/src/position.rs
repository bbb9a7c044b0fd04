//! `adji.Position`: a position of any rule set, its moves and actions, and
//! the naming of moves by action number.

use pyo3::prelude::*;

use adji::game::{Game, Move, State};
use adji::notation::{format_move, format_state, parse_move, parse_state, Stores};
use adji::report::{MovesReport, ReplayReport};
use adji::rules::RuleSet;

use crate::errors::{adji_err, parse_rules, to_py};

/// A position of Adjito or Adji-Boto with the seeds captured so far
/// (immutable; `play` returns a new one).
#[pyclass(module = "adji._adji", name = "Position", frozen)]
#[derive(Clone, Copy)]
pub(crate) struct PyPosition {
    pub(crate) rules: RuleSet,
    pub(crate) st: State,
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
        adji::with_rules!(rules, G => {
            let st = parse_state::<G>(text, stores).map_err(adji_err)?;
            Ok(PyPosition { rules, st })
        })
    }

    /// The position with its rule set, as the library's oracle takes it.
    pub(crate) fn posed(&self) -> PyResult<adji::oracle::Posed> {
        adji::oracle::Posed::new(self.rules, self.st).map_err(adji_err)
    }

    pub(crate) fn notation(&self) -> String {
        adji::with_rules!(self.rules, G => format_state::<G>(&self.st))
    }

    /// The move named `name` or numbered `action` (absolute pit; the pit
    /// count for `pass`), parsed for the mover, legal or not.
    fn parse_move(&self, mv: &Bound<'_, PyAny>) -> PyResult<(Move, String)> {
        let name = move_name(self.rules, mv)?;
        adji::with_rules!(self.rules, G => {
            let m = parse_move::<G>(&self.st.pos, &name).map_err(adji_err)?;
            Ok((m, format_move::<G>(&self.st.pos, m)))
        })
    }
}

/// Number of actions of a game: one per absolute pit, plus `pass`.
pub(crate) fn num_actions(game: RuleSet) -> usize {
    adji::with_rules!(game, G => G::PITS + G::HAS_PASS as usize)
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
    adji::with_rules!(game, G => {
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
pub(crate) fn action_of<G: Game>(pos: &adji::Position, m: Move) -> usize {
    if m.is_pass() {
        G::PITS
    } else {
        G::abs_pit(pos, m.pit())
    }
}

/// The error the command line gives for playing `name` at the end of
/// `history` from `start` (`adji replay`'s message).
pub(crate) fn replay_message(game: RuleSet, start: State, history: &[String], name: &str) -> PyErr {
    let mut line = history.join(" ");
    line.push(' ');
    line.push_str(name);
    adji::with_rules!(game, G => match ReplayReport::play::<G>(start, &line) {
        Err(e) => adji_err(e),
        Ok(_) => adji_err(format!("move {name} cannot be played")),
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
        adji::with_rules!(self.rules, G => G::side_name(self.st.pos.side).to_string())
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
        adji::with_rules!(self.rules, G => G::to_absolute(&self.st.pos)[..G::PITS].iter().map(|&x| x as u32).collect())
    }

    /// Seeds per pit relative to the mover: the mover's row first, in
    /// sowing order (the form the endgame tables are indexed by).
    #[getter]
    fn board(&self) -> Vec<u32> {
        adji::with_rules!(self.rules, G => self.st.pos.pits[..G::PITS].iter().map(|&x| x as u32).collect())
    }

    /// Adji-Boto's phase field (`main` or `opening:…`); None for Adjito.
    #[getter]
    fn phase(&self) -> Option<String> {
        adji::with_rules!(self.rules, G => G::HAS_PASS.then(|| adji::notation::format_phase::<G>(&self.st.pos)))
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
        adji::with_rules!(self.rules, G => G::legal_moves(&self.st.pos).is_empty())
    }

    /// Why the game is over (`MoverEmpty`, `CannotFeed`, `NoMoves`), or None.
    #[getter]
    fn end_reason(&self) -> Option<String> {
        adji::with_rules!(self.rules, G => G::end_reason(&self.st.pos)
            .filter(|_| G::legal_moves(&self.st.pos).is_empty())
            .map(|r| format!("{r:?}")))
    }

    /// Final seeds by absolute side if the game ended here (stores plus
    /// each player's own row).
    fn final_score(&self) -> (u32, u32) {
        let s = adji::with_rules!(self.rules, G => adji::driver::final_score::<G>(&self.st));
        (s[0], s[1])
    }

    /// The legal moves' names, in generation order.
    pub(crate) fn legal_moves(&self) -> Vec<String> {
        adji::with_rules!(self.rules, G => G::legal_moves(&self.st.pos)
            .iter()
            .map(|m| format_move::<G>(&self.st.pos, m))
            .collect())
    }

    /// The legal moves as action numbers: the absolute pit (0 = 1B or 0),
    /// or the pit count (10) for Adji-Boto's `pass`.
    pub(crate) fn legal_actions(&self) -> Vec<usize> {
        adji::with_rules!(self.rules, G => G::legal_moves(&self.st.pos)
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
        Ok(adji::with_rules!(self.rules, G => action_of::<G>(&self.st.pos, m)))
    }

    /// Plays `move` (a name or an action number); raises AdjiError with
    /// the command line's message for an illegal one.
    #[pyo3(name = "play", signature = (mv))]
    fn play(&self, mv: &Bound<'_, PyAny>) -> PyResult<PyPosition> {
        let name = move_name(self.rules, mv)?;
        adji::with_rules!(self.rules, G => {
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
        adji::with_rules!(self.rules, G => G::try_play(&self.st.pos, m)
            .map(|p| p.captured)
            .map_err(|_| replay_message(self.rules, self.st, &[], &name)))
    }

    /// `adji moves --json`: every legal move with the position after it
    /// and the seeds captured, or how the game ended.
    fn moves(&self, py: Python<'_>) -> PyResult<PyObject> {
        adji::with_rules!(self.rules, G => to_py(py, &MovesReport::new::<G>(&self.st)))
    }

    /// The board diagram of `adji show`.
    fn diagram(&self) -> String {
        adji::with_rules!(self.rules, G => adji::display::diagram::<G>(&self.st))
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

/// Number of distinct actions of `game`: its pits, plus `pass` for Adji-Boto.
#[pyfunction]
#[pyo3(name = "num_actions", signature = (game = "adjito", rules = "default"))]
pub(crate) fn py_num_actions(game: &str, rules: &str) -> PyResult<usize> {
    Ok(num_actions(parse_rules(game, rules)?))
}
