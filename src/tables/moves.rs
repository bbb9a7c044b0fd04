//! The value of each legal move of a position, read from the tables: what
//! `probe`, the web board and the Python layer show beside a position.

use super::set::TableSet;
use crate::game::{Game, Position};
use crate::value::{capture_value, quiet_value};

/// The value of one legal move from a probe of the tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveValue {
    /// The move.
    pub mv: crate::game::Move,
    /// Its value for the mover, under the stretch that starts at the probed position.
    pub value: i32,
}

/// Values of every legal move of `pos`, from the tables: a capture is worth
/// `captured − value(child)`; a quiet move `clamp(w(pos), −hi(child), −lo(child))`.
/// Returns `None` when a needed level is not covered.
pub fn move_values<G: Game>(set: &TableSet, pos: &Position) -> Option<Vec<MoveValue>> {
    let w = set.rule.w::<G>(pos);
    let mut out = Vec::new();
    for mv in G::legal_moves(pos).iter() {
        let p = G::play_unchecked(pos, mv);
        let value = if p.captured > 0 {
            capture_value(p.captured, set.value::<G>(&p.pos)?)
        } else {
            quiet_value(w, set.bounds::<G>(&p.pos)?)
        };
        out.push(MoveValue { mv, value });
    }
    Some(out)
}
