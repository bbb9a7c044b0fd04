//! What a search reports: each move's result, the position's analysis, the
//! principal variation's end and the counters.

use crate::game::Move;
use crate::value::{Contribution, Range};

/// One root move's result.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct MoveResult {
    /// The move.
    #[serde(skip)]
    pub mv: Move,
    /// Bounds of its value (exact when equal).
    pub value: Range,
    /// Seeds it captures.
    pub captured: u8,
    /// What it contributes to the position's value, `lo` and `hi`.
    #[serde(skip)]
    pub part: Contribution,
}

impl MoveResult {
    /// A capture of `captured` seeds whose child (a stretch start) has value bounds `child`.
    pub fn capture(mv: Move, captured: u8, child: Range) -> Self {
        Self::new(mv, captured, Contribution::capture(captured, child))
    }

    /// A quiet move whose child has `lo`/`hi` bounds, in a stretch whose
    /// repeat score seen by the mover is `w`.
    pub fn quiet(mv: Move, w: i32, lo: Range, hi: Range) -> Self {
        Self::new(mv, 0, Contribution::quiet(w, lo, hi))
    }

    /// This result, knowing that the move is worth at most `v` (the
    /// position's value is at most `v`).
    pub fn at_most(mut self, v: i32) -> Self {
        self.value = self.value.meet(Range {
            lower: i32::MIN,
            upper: v,
        });
        self.part.value = self.value;
        self
    }

    fn new(mv: Move, captured: u8, part: Contribution) -> Self {
        MoveResult {
            mv,
            value: part.value,
            captured,
            part,
        }
    }

    /// The position's value, `lo` and `hi` bounds from its moves.
    pub fn join(moves: &[MoveResult]) -> Contribution {
        moves
            .iter()
            .fold(Contribution::NONE, |acc, m| acc.join(m.part))
    }
}

/// Where a principal variation stopped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum PvEnd {
    /// The game ended.
    GameOver,
    /// The position is covered by the endgame tables.
    TableHit,
    /// A position of the line repeated within its stretch.
    Loop,
    /// The length cap was reached.
    Length,
    /// A value on the line is not exact (limits).
    Unresolved,
}

/// The full analysis of a position.
#[derive(Clone, Debug)]
pub struct Analysis {
    /// Bounds of the value.
    pub value: Range,
    /// Bounds of `lo` and `hi` of the root.
    pub lo: Range,
    /// See `lo`.
    pub hi: Range,
    /// Every legal move, best first.
    pub moves: Vec<MoveResult>,
    /// Principal variation.
    pub pv: Vec<Move>,
    /// Why the PV stops.
    pub pv_end: PvEnd,
    /// True if the whole answer came from the endgame tables.
    pub from_tables: bool,
    /// Milliseconds until `value` was exact, where the root's value is
    /// solved before its moves' values ([`super::RootPhase::First`]); the
    /// whole search's time otherwise, or when it is not exact.
    pub value_ms: u64,
    /// Counters.
    pub stats: Stats,
    /// Counters per ply, when the search profiled
    /// ([`super::Options::profile`]).
    pub profile: Option<super::Profile>,
}

impl Analysis {
    /// `Some(true/false)` when known, `None` when the limits left it open.
    pub fn loop_sensitive(&self) -> Option<bool> {
        crate::value::loop_flag(self.lo, self.hi)
    }
}

/// Search counters.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Stats {
    /// Nodes visited.
    pub nodes: u64,
    /// Transposition-table probes.
    pub tt_probes: u64,
    /// Probes that found an entry.
    pub tt_hits: u64,
    /// Endgame-table probes that answered.
    pub table_hits: u64,
    /// Wall time in milliseconds.
    pub time_ms: u64,
    /// Whether a path reached the longest the search follows
    /// (`max_ply` plies) and stopped the search there, as a limit does.
    pub ply_cap: bool,
    /// The longest path the search follows ([`super::Options::max_ply`]).
    #[serde(skip)]
    pub max_ply: usize,
}
