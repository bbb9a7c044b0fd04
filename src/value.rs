//! Values (RULES.md §4): the loop rule, `w`, and the `lo`/`hi` bounds.
//!
//! A value is the mover's seeds minus the opponent's, counted over the seeds
//! still on the board, under perfect play, with the position taken as the
//! start of a stretch. Endless play scores `w`; `lo`/`hi` are the values when
//! endless play is the worst/best outcome for the mover, and
//! `value = clamp(w, lo, hi)`.

use crate::game::{Game, Position};

/// How endless play (a stretch that never captures again) is scored.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum LoopRule {
    /// `w` = the split of the position where the stretch began (default).
    Start,
    /// `w` = 0: the remaining seeds are shared evenly.
    Even,
}

impl LoopRule {
    /// The name used on the command line and in files.
    pub const fn name(self) -> &'static str {
        match self {
            LoopRule::Start => "start",
            LoopRule::Even => "even",
        }
    }

    /// The byte stored in table headers.
    pub const fn code(self) -> u8 {
        match self {
            LoopRule::Start => 0,
            LoopRule::Even => 1,
        }
    }

    /// Inverse of [`LoopRule::code`].
    pub const fn from_code(c: u8) -> Option<LoopRule> {
        match c {
            0 => Some(LoopRule::Start),
            1 => Some(LoopRule::Even),
            _ => None,
        }
    }

    /// `w` for a stretch starting at `pos`, seen by `pos`'s mover.
    #[inline]
    pub fn w<G: Game>(self, pos: &Position) -> i32 {
        match self {
            LoopRule::Start => G::split(pos),
            LoopRule::Even => 0,
        }
    }
}

/// Stands for −∞ in `lo` (endless play is all the mover can force and it is the worst).
pub const NEG_INF: i32 = -1000;
/// Stands for +∞ in `hi`.
pub const POS_INF: i32 = 1000;

/// Stored byte for −∞ in tables.
pub const NEG_INF_BYTE: i8 = i8::MIN;
/// Stored byte for +∞ in tables.
pub const POS_INF_BYTE: i8 = i8::MAX;

/// Decodes a stored bound byte.
#[inline]
pub const fn decode_bound(b: i8) -> i32 {
    match b {
        NEG_INF_BYTE => NEG_INF,
        POS_INF_BYTE => POS_INF,
        v => v as i32,
    }
}

/// The value of a position from its bounds: `clamp(w, lo, hi)`.
#[inline]
pub fn value_of(w: i32, lo: i32, hi: i32) -> i32 {
    debug_assert!(lo <= hi);
    w.max(lo).min(hi)
}

/// Exact bounds of a position, as stored in tables.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// Value when endless play is the worst outcome for the mover.
    pub lo: i32,
    /// Value when endless play is the best outcome for the mover.
    pub hi: i32,
}

impl Bounds {
    /// The value under `w`.
    #[inline]
    pub fn value(self, w: i32) -> i32 {
        value_of(w, self.lo, self.hi)
    }

    /// True when the value depends on the loop convention.
    #[inline]
    pub fn loop_sensitive(self) -> bool {
        self.lo < self.hi
    }
}
