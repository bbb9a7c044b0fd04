//! Values (docs/RULES.md §4): the loop rule, `w`, and the `lo`/`hi` bounds.
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

/// Whether `v` is a possible value of a position with `n` seeds on the
/// board: `−n ≤ v ≤ n`. Tables and checkpoints refuse anything else.
#[inline]
pub const fn possible_value(n: i32, v: i32) -> bool {
    -n <= v && v <= n
}

/// Whether `v` is a possible `lo` bound with `n` seeds on the board: a
/// possible value, or −∞ (a position whose mover cannot leave a quiet cycle).
#[inline]
pub const fn possible_lo(n: i32, v: i32) -> bool {
    v == NEG_INF || possible_value(n, v)
}

/// Whether `v` is a possible `hi` bound with `n` seeds on the board: a
/// possible value, or +∞.
#[inline]
pub const fn possible_hi(n: i32, v: i32) -> bool {
    v == POS_INF || possible_value(n, v)
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

/// Closed bounds on a value; `lower == upper` when exact.
///
/// This is the one home of docs/RULES.md §4's value algebra: every consumer
/// (tables, verify, search, openings, reports) values a move and joins moves
/// into a position with these operations, on exact values (a [`Range::point`])
/// and on proven bounds alike.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Range {
    /// Lower bound.
    pub lower: i32,
    /// Upper bound.
    pub upper: i32,
}

impl Range {
    /// The identity of [`Range::max_join`]: below every value.
    pub const NONE: Range = Range {
        lower: i32::MIN,
        upper: i32::MIN,
    };

    /// An exact value.
    #[inline]
    pub const fn point(v: i32) -> Range {
        Range { lower: v, upper: v }
    }

    /// The whole range of a stretch start with `n` seeds on the board whose
    /// endless play scores `w` (which may be ±∞): `−n..=n`, widened to `w`.
    #[inline]
    pub fn full(n: i32, w: i32) -> Range {
        Range {
            lower: (-n).min(w),
            upper: n.max(w),
        }
    }

    /// True when exact.
    #[inline]
    pub const fn exact(&self) -> bool {
        self.lower == self.upper
    }

    /// The same bounds seen by the other player.
    #[inline]
    pub const fn neg(self) -> Range {
        Range {
            lower: -self.upper,
            upper: -self.lower,
        }
    }

    /// The bounds moved by `c` (for example the seeds a capture takes).
    #[inline]
    pub const fn shift(self, c: i32) -> Range {
        Range {
            lower: self.lower + c,
            upper: self.upper + c,
        }
    }

    /// Both bounds at once: `self` and `other` each contain the same value
    /// (two proofs about one position), so their intersection does. Disjoint
    /// bounds mean one of the proofs is wrong (checked in debug builds).
    #[inline]
    pub fn meet(self, other: Range) -> Range {
        let r = Range {
            lower: self.lower.max(other.lower),
            upper: self.upper.min(other.upper),
        };
        debug_assert!(r.lower <= r.upper, "disjoint bounds {self:?} and {other:?}");
        r
    }

    /// Bounds of the maximum of two values (the mover picks the better move).
    #[inline]
    pub fn max_join(self, other: Range) -> Range {
        Range {
            lower: self.lower.max(other.lower),
            upper: self.upper.max(other.upper),
        }
    }
}

/// Whether a value depends on how endless play is scored, from bounds on
/// its `lo` and `hi` (docs/RULES.md §4: loop-sensitive when `lo < hi`):
/// `Some(true)` when every `lo` allowed is below every `hi` allowed, even if
/// neither is exact; `Some(false)` when both are exact and equal; `None`
/// when the limits left it open. Positions and moves alike, in every report.
#[inline]
pub const fn loop_flag(lo: Range, hi: Range) -> Option<bool> {
    if lo.upper < hi.lower {
        Some(true)
    } else if lo.exact() && hi.exact() {
        Some(lo.lower < hi.lower)
    } else {
        None
    }
}

/// What one move contributes to its position (docs/RULES.md §4): to the value,
/// and to the `lo`/`hi` fixpoints. A position's value, `lo` and `hi` are the
/// [`Contribution::join`] of its moves' contributions, or the split when the
/// game is over ([`Contribution::end`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Contribution {
    /// Bounds of the move's value for the mover.
    pub value: Range,
    /// Its contribution to the position's `lo`.
    pub lo: Range,
    /// Its contribution to the position's `hi`.
    pub hi: Range,
}

impl Contribution {
    /// The identity of [`Contribution::join`] (a position with no moves yet).
    pub const NONE: Contribution = Contribution {
        value: Range::NONE,
        lo: Range::NONE,
        hi: Range::NONE,
    };

    /// A capture of `captured` seeds whose child (a fresh stretch start) is
    /// worth `child`: an exit worth `captured − value(child)` under every
    /// loop convention.
    #[inline]
    pub const fn capture(captured: u8, child: Range) -> Contribution {
        let v = child.neg().shift(captured as i32);
        Contribution {
            value: v,
            lo: v,
            hi: v,
        }
    }

    /// A quiet move to a child with `lo`/`hi` bounds `child_lo`/`child_hi`,
    /// in a stretch whose endless play scores `w` for the mover. It gives
    /// `−hi(c)` to `lo`, `−lo(c)` to `hi`, and is worth
    /// `clamp(w, −hi(c), −lo(c))` (monotone in both, so bounds carry over).
    #[inline]
    pub fn quiet(w: i32, child_lo: Range, child_hi: Range) -> Contribution {
        Contribution {
            value: Range {
                lower: value_of(w, -child_hi.upper, -child_lo.upper.min(child_hi.upper)),
                upper: value_of(w, -child_hi.lower.max(child_lo.lower), -child_lo.lower),
            },
            lo: child_hi.neg(),
            hi: child_lo.neg(),
        }
    }

    /// The end of the game: everything is the split.
    #[inline]
    pub const fn end(split: i32) -> Contribution {
        let v = Range::point(split);
        Contribution {
            value: v,
            lo: v,
            hi: v,
        }
    }

    /// The position's bounds from two of its moves: the mover takes the
    /// better in each coordinate.
    #[inline]
    pub fn join(self, other: Contribution) -> Contribution {
        Contribution {
            value: self.value.max_join(other.value),
            lo: self.lo.max_join(other.lo),
            hi: self.hi.max_join(other.hi),
        }
    }
}

/// The value of a capture of `captured` seeds into a child worth `child`
/// (exact): `captured − child`. The table builder's and verifier's exit.
#[inline]
pub const fn capture_value(captured: u8, child: i32) -> i32 {
    Contribution::capture(captured, Range::point(child))
        .value
        .lower
}

/// The value of a quiet move into a child with exact bounds `child`, in a
/// stretch whose endless play scores `w` for the mover.
#[inline]
pub fn quiet_value(w: i32, child: Bounds) -> i32 {
    Contribution::quiet(w, Range::point(child.lo), Range::point(child.hi))
        .value
        .lower
}

impl Bounds {
    /// The contribution of a quiet move into a child with these exact bounds.
    #[inline]
    pub fn quiet_child(self, w: i32) -> Contribution {
        Contribution::quiet(w, Range::point(self.lo), Range::point(self.hi))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(lower: i32, upper: i32) -> Range {
        Range { lower, upper }
    }

    #[test]
    fn meet_intersects() {
        assert_eq!(r(-3, 4).meet(r(-1, 9)), r(-1, 4));
        assert_eq!(r(2, 2).meet(Range::full(5, 0)), r(2, 2));
        assert_eq!(
            r(-1, 7).meet(Range {
                lower: i32::MIN,
                upper: 3
            }),
            r(-1, 3)
        );
    }

    /// Every pair of small ranges: the flag is `Some(lo < hi)` when both are
    /// exact, `Some(true)` whenever every `lo` allowed is below every `hi`
    /// allowed, and `None` only when some allowed pair is sensitive and some
    /// is not.
    #[test]
    fn loop_flag_is_what_every_allowed_pair_agrees_on() {
        let ranges: Vec<Range> = (-3..=3)
            .flat_map(|a| (a..=3).map(move |b| r(a, b)))
            .collect();
        for &lo in &ranges {
            for &hi in &ranges {
                let pairs: Vec<bool> = (lo.lower..=lo.upper)
                    .flat_map(|l| {
                        (hi.lower..=hi.upper)
                            .filter(move |&h| l <= h)
                            .map(move |h| l < h)
                    })
                    .collect();
                if pairs.is_empty() {
                    continue;
                }
                let all = pairs.iter().all(|&s| s);
                let none = pairs.iter().all(|&s| !s);
                let want = if all {
                    Some(true)
                } else if none && lo.exact() && hi.exact() {
                    Some(false)
                } else {
                    None
                };
                let got = loop_flag(lo, hi);
                if none && !(lo.exact() && hi.exact()) {
                    // Not sensitive for every allowed pair, but only exact
                    // bounds are reported as a firm "no".
                    assert_eq!(got, None, "lo {lo:?} hi {hi:?}");
                } else {
                    assert_eq!(got, want, "lo {lo:?} hi {hi:?}");
                }
            }
        }
        // The case the openings JSON once missed: disjoint, neither exact.
        assert_eq!(loop_flag(r(-5, -3), r(1, 3)), Some(true));
    }
}
