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

/// The game named `name` (`adjito`, `adjiboto`, `adji-boto`).
pub(crate) fn parse_game(name: &str) -> PyResult<GameId> {
    match name.trim().to_ascii_lowercase().replace('-', "").as_str() {
        "adjito" => Ok(GameId::Adjito),
        "adjiboto" => Ok(GameId::AdjiBoto),
        _ => Err(adji_err(format!(
            "game: expected `adjito` or `adjiboto`, found '{name}'"
        ))),
    }
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
