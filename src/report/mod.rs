//! Reports: what each command answers, as plain data built from library
//! results. Each type serializes to the command's JSON (`--json`) and its
//! `Display` gives the command's text; the command line and the web server
//! print or serve these same types.
//!
//! Every `Display` writes whole lines, each ending with a newline. Fields
//! are declared in alphabetical order, so that the JSON keeps the key order
//! of the tool's earlier releases byte for byte.
//!
//! ```
//! use adji::report::MovesReport;
//! use adji::{Adjito, Game, State};
//!
//! let start = State { pos: Adjito::start(), stores: [0, 0] };
//! let r = MovesReport::new::<Adjito>(&start);
//! assert_eq!(r.moves[1].mv, "2B");
//! let json = serde_json::to_string(&r).unwrap();
//! assert!(json.starts_with(r#"{"game_over":null,"moves":[{"captured":4,"move":"1B","#));
//! assert!(r.to_string().starts_with("   1B  4,0,4,4,4,4/0,5,5,5,5,4 A 0-4  captures 4\n"));
//! ```

use std::collections::BTreeMap;
use std::fmt;

use serde::{Serialize, Serializer};

use crate::game::Game;

mod analyse;
mod basic;
mod misc;
mod rules;
mod solve;
mod tables;

pub use analyse::*;
pub use basic::*;
pub use misc::*;
pub use rules::*;
pub use solve::*;
pub use tables::*;

/// One number per player: a JSON object keyed by the players' names
/// (`{"A":25,"B":23}`, in name order); in text, by absolute side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sides<T> {
    /// The players' names, by absolute side.
    pub names: [char; 2],
    /// The numbers, by absolute side.
    pub values: [T; 2],
}

impl<T> Sides<T> {
    /// The numbers of game `G`'s players, by absolute side.
    pub fn new<G: Game>(values: [T; 2]) -> Self {
        Sides {
            names: [G::side_name(0), G::side_name(1)],
            values,
        }
    }
}

impl<T: Serialize> Serialize for Sides<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let m: BTreeMap<String, &T> = (0..2)
            .map(|i| (self.names[i].to_string(), &self.values[i]))
            .collect();
        m.serialize(s)
    }
}

impl<T: fmt::Display> Sides<T> {
    /// `B: 20 A: 28`: both players, by absolute side.
    pub fn text(&self) -> String {
        format!(
            "{}: {} {}: {}",
            self.names[0], self.values[0], self.names[1], self.values[1]
        )
    }
}

/// An error for one line of a positions file; the other lines are answered.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineError {
    /// What is wrong.
    pub error: String,
    /// The line as read (invalid UTF-8 replaced by U+FFFD), or its first
    /// [`QUOTED_CHARS`] characters and its length when longer.
    pub input: String,
    /// Line number, from 1.
    pub line: usize,
}

/// Characters of a bad line quoted in its [`LineError`].
pub const QUOTED_CHARS: usize = 200;

impl LineError {
    /// The error `error` of line `line` reading `input`, quoted by its first
    /// [`QUOTED_CHARS`] characters and its length in bytes when longer.
    pub fn new(line: usize, error: String, input: &str) -> Self {
        LineError {
            error,
            input: quote(input, input.len() as u64),
            line,
        }
    }
}

/// `text` (the start of an input of `bytes` bytes) as an error quotes it:
/// whole when it is the whole input and short, else its first
/// [`QUOTED_CHARS`] characters and "… (N bytes)".
pub fn quote(text: &str, bytes: u64) -> String {
    let cut = text
        .char_indices()
        .nth(QUOTED_CHARS)
        .map_or(text.len(), |(i, _)| i);
    if cut == text.len() && bytes == text.len() as u64 {
        return text.to_string();
    }
    format!("{}… ({bytes} bytes)", &text[..cut])
}

impl fmt::Display for LineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "line {}: error: {}", self.line, self.error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_inputs_are_quoted_by_a_prefix_on_a_char_boundary() {
        assert_eq!(quote("2B x", 4), "2B x");
        let long = "é".repeat(QUOTED_CHARS + 1);
        let q = quote(&long, long.len() as u64);
        assert_eq!(q, format!("{}… (402 bytes)", "é".repeat(QUOTED_CHARS)));
        assert_eq!(quote("abc", 10), "abc… (10 bytes)");
        let e = LineError::new(3, "bad".into(), &long);
        assert!(e.input.ends_with("… (402 bytes)"));
    }
}
