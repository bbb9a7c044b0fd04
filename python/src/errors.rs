//! The errors that Python sees ([`AdjiError`], with the command line's
//! messages), the parsing of the arguments every function shares (game,
//! rule set, loop rule) and the conversion of reports to Python objects.

use pyo3::create_exception;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;

use adji::game::GameId;
use adji::rules::RuleSet;
use adji::value::LoopRule;

create_exception!(
    adji,
    AdjiError,
    PyValueError,
    "Bad input or an impossible request: malformed notation, an illegal move, \
     a missing or corrupt table, tables of another game or loop rule. The \
     message is the command line's."
);

/// An [`AdjiError`] with `msg`.
pub(crate) fn adji_err(msg: impl std::fmt::Display) -> PyErr {
    AdjiError::new_err(msg.to_string())
}

/// A count from Python (a level, depth, thread count, size, node
/// budget): any `int` is taken, and one that does not fit (negative, or
/// too large) is an [`AdjiError`] saying so, not the `OverflowError` of
/// the unsigned conversion.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Count<T>(pub T);

impl<T> Count<T> {
    /// The count.
    pub(crate) fn get(self) -> T {
        self.0
    }
}

impl<'py, T: TryFrom<i128> + num_max::MaxOf> FromPyObject<'py> for Count<T> {
    fn extract_bound(ob: &Bound<'py, PyAny>) -> PyResult<Self> {
        let v: i128 = ob.extract()?;
        T::try_from(v).map(Count).map_err(|_| {
            adji_err(format!(
                "{v} is out of range: expected a whole number from 0 to {}",
                T::MAX_TEXT
            ))
        })
    }
}

/// The largest value of each count type, for messages.
mod num_max {
    /// A type's largest value, as text.
    pub(crate) trait MaxOf {
        const MAX_TEXT: &'static str;
    }
    impl MaxOf for u32 {
        const MAX_TEXT: &'static str = "4294967295";
    }
    impl MaxOf for u64 {
        const MAX_TEXT: &'static str = "18446744073709551615";
    }
    impl MaxOf for usize {
        const MAX_TEXT: &'static str = "18446744073709551615";
    }
}

/// The game named `name` (`adjito`, `adjiboto`, `adji-boto`).
pub(crate) fn parse_game(name: &str) -> PyResult<GameId> {
    name.parse::<GameId>()
        .map_err(|e| adji_err(format!("game: {e}")))
}

/// The rule set `rules` of `game` (`adji rules` lists them).
pub(crate) fn parse_rules(game: &str, rules: &str) -> PyResult<RuleSet> {
    RuleSet::parse(parse_game(game)?, rules).map_err(|e| adji_err(format!("rules: {e}")))
}

/// The loop rule named `name` (`start` or `even`).
pub(crate) fn parse_rule(name: &str) -> PyResult<LoopRule> {
    match name {
        "start" => Ok(LoopRule::Start),
        "even" => Ok(LoopRule::Even),
        _ => Err(adji_err(format!(
            "loop: expected `start` or `even`, found '{name}'"
        ))),
    }
}

/// A report as the Python object its JSON decodes to.
pub(crate) fn to_py<T: serde::Serialize>(py: Python<'_>, r: &T) -> PyResult<PyObject> {
    let s = serde_json::to_string(r).map_err(|e| PyRuntimeError::new_err(e.to_string()))?;
    Ok(py.import("json")?.call_method1("loads", (s,))?.unbind())
}
