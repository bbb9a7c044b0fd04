//! The game abstraction shared by Adjito and Adji-Boto.
//!
//! This module owns the [`Game`] trait, the packed [`Position`] type, moves,
//! move lists, end reasons and the helpers that classify a position's moves
//! into exits (captures and game ends) and quiet moves. Search, tables,
//! perft and openings are all written once against [`Game`] and
//! monomorphised per game.
//!
//! # Relative boards
//!
//! A [`Position`] stores the board *relative to the mover*: pit 0 is the
//! mover's first pit in sowing order, the mover's row comes first, then the
//! opponent's row. Both games are symmetric under this rotation, so move
//! generation, values, table indices and keys never look at which absolute
//! side is to move; [`Position::side`] is kept only to name pits and to tell
//! two mirrored positions apart for the loop rule.

use std::fmt;

/// Largest number of pits of any supported game.
pub const MAX_PITS: usize = 12;

pub use crate::rules::GameId;

/// A move: a pit of the mover's row, counted from 0 in relative terms, or a pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move(pub u8);

impl Move {
    /// The pass move (Adji-Boto only).
    pub const PASS: Move = Move(0xFF);

    /// True for [`Move::PASS`].
    pub const fn is_pass(self) -> bool {
        self.0 == 0xFF
    }

    /// The relative pit index of a sowing move.
    pub const fn pit(self) -> usize {
        self.0 as usize
    }
}

/// A fixed-capacity list of moves (at most six in either game).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MoveList {
    moves: [u8; 6],
    len: u8,
}

impl MoveList {
    /// An empty list.
    pub const fn new() -> Self {
        MoveList {
            moves: [0; 6],
            len: 0,
        }
    }

    /// The sowing moves of the set bits of `mask`, pit `i` for bit `i`, in
    /// ascending order (the games decide their legal pits as a mask).
    #[inline]
    pub fn from_mask(mut mask: u32) -> Self {
        let mut ml = MoveList::new();
        while mask != 0 {
            ml.push(Move(mask.trailing_zeros() as u8));
            mask &= mask - 1;
        }
        ml
    }

    /// Appends a move.
    #[inline]
    pub fn push(&mut self, m: Move) {
        self.moves[self.len as usize] = m.0;
        self.len += 1;
    }

    /// Number of moves.
    pub const fn len(&self) -> usize {
        self.len as usize
    }

    /// True when there is no move, that is, when the game is over.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The `i`-th move.
    pub const fn get(&self, i: usize) -> Move {
        Move(self.moves[i])
    }

    /// Whether `m` is in the list.
    pub fn contains(&self, m: Move) -> bool {
        self.iter().any(|x| x == m)
    }

    /// Iterates over the moves.
    pub fn iter(&self) -> impl Iterator<Item = Move> + '_ {
        self.moves[..self.len as usize].iter().map(|&m| Move(m))
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum EndReason {
    /// Adjito: the mover has no seeds.
    MoverEmpty,
    /// Adjito: the opponent's row is empty and the mover cannot feed it.
    CannotFeed,
    /// Adji-Boto: neither player can move.
    NoMoves,
    /// A player has captured more than half of the seeds: Adjito's 24, or
    /// 50 under Valdez's Adji-Boto (game driver only).
    MoreThanHalf,
    /// The position repeated within a stretch (game driver only).
    Loop,
}

impl EndReason {
    /// A short human description.
    pub const fn describe(self) -> &'static str {
        match self {
            EndReason::MoverEmpty => "the player to move has no seeds",
            EndReason::CannotFeed => "the opponent's row is empty and the mover cannot feed it",
            EndReason::NoMoves => "neither player can move",
            EndReason::MoreThanHalf => "a player has captured more than half of the seeds",
            EndReason::Loop => "a position repeated with no capture in between (loop rule)",
        }
    }

    /// [`EndReason::describe`] under rule set `rules`: the early end names
    /// the rule that made it (its limit and whose reading it is).
    pub const fn describe_under(self, rules: crate::rules::RuleSet) -> &'static str {
        use crate::rules::RuleSet as R;
        match (self, rules) {
            (EndReason::MoreThanHalf, R::AdjiBotoValdez) => {
                "a store holds more than 50 seeds (Valdez's early end)"
            }
            (
                EndReason::MoreThanHalf,
                R::AdjitoDefault | R::AdjitoMustReach | R::AdjitoSlamForbidden,
            ) => "a store holds more than 24 seeds (Adjito's early end)",
            _ => self.describe(),
        }
    }
}

/// A position: the board relative to the mover, the absolute side to move
/// and, for Adji-Boto, the opening state.
///
/// 16 bytes, `Copy`. See [`Packed`] for the bit-packed form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Position {
    /// Seeds per pit, mover's row first, in sowing order. Pits past the
    /// game's pit count are always 0.
    pub pits: [u8; MAX_PITS],
    /// Absolute side to move: 0 = bottom (Adjito B, Adji-Boto player 0),
    /// 1 = top (Adjito A, Adji-Boto player 1).
    pub side: u8,
    /// Adji-Boto opening state: 0 in the main phase; otherwise
    /// [`OPENING_ACTIVE`] plus one bit per pit (relative index) already played.
    pub opening: u16,
}

/// Flag in [`Position::opening`] that marks the opening phase.
pub const OPENING_ACTIVE: u16 = 0x8000;

const _: () = assert!(std::mem::size_of::<Position>() <= 16);

impl Position {
    /// Seeds on the board.
    #[inline]
    pub fn level(&self) -> u32 {
        self.pits.iter().map(|&x| x as u32).sum()
    }

    /// True while an Adji-Boto opening is in progress.
    #[inline]
    pub const fn in_opening(&self) -> bool {
        self.opening & OPENING_ACTIVE != 0
    }

    /// The bit-packed form.
    #[inline]
    pub fn pack(&self) -> Packed {
        Packed::pack(self)
    }

    /// Deterministic 64-bit key of the whole position (board, side, opening).
    #[inline]
    pub fn key(&self) -> u64 {
        self.pack().key()
    }

    /// The packed form with the side to move cleared. Values are relative
    /// to the mover, so they are keyed by this; the full packing (for the
    /// loop rule, which tells mirrored positions apart) is
    /// `pack_board().with_side(side)`, with no second packing.
    #[inline]
    pub fn pack_board(&self) -> Packed {
        Packed::pack(&Position { side: 0, ..*self })
    }
}

/// A [`Position`] packed into 128 bits.
///
/// ```text
///  127        96 95  94 ........ 85 84  83 ..... 77        6 ..... 0
/// +------------+---+---------------+---+----------+ ... +-----------+
/// |  unused 0  |act| played pits   |sd |  pit 11  |     |   pit 0   |
/// +------------+---+---------------+---+----------+ ... +-----------+
///   act: opening in progress; played pits: one bit per relative pit 0..9;
///   sd: absolute side to move; pit i: seeds in relative pit i, 7 bits (0..127).
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Packed(pub u128);

/// Bits per pit in [`Packed`].
pub const PIT_BITS: u32 = 7;
const SIDE_SHIFT: u32 = PIT_BITS * MAX_PITS as u32;
const PLAYED_SHIFT: u32 = SIDE_SHIFT + 1;
const ACTIVE_SHIFT: u32 = PLAYED_SHIFT + 10;
const _: () = assert!(ACTIVE_SHIFT < 128);
const _: () = assert!(std::mem::size_of::<Packed>() <= 16);

impl Packed {
    /// Packs a position. Pits must hold at most 127 seeds (always true: the
    /// largest game has 100).
    #[inline]
    pub fn pack(p: &Position) -> Packed {
        let mut x: u128 = 0;
        let mut i = MAX_PITS;
        while i > 0 {
            i -= 1;
            x = (x << PIT_BITS) | (p.pits[i] as u128 & 0x7F);
        }
        x |= (p.side as u128 & 1) << SIDE_SHIFT;
        x |= ((p.opening & 0x3FF) as u128) << PLAYED_SHIFT;
        x |= ((p.opening >> 15) as u128 & 1) << ACTIVE_SHIFT;
        Packed(x)
    }

    /// Unpacks to a [`Position`].
    #[inline]
    pub const fn unpack(self) -> Position {
        let mut pits = [0u8; MAX_PITS];
        let mut i = 0;
        while i < MAX_PITS {
            pits[i] = ((self.0 >> (PIT_BITS as usize * i)) & 0x7F) as u8;
            i += 1;
        }
        let side = ((self.0 >> SIDE_SHIFT) & 1) as u8;
        let played = ((self.0 >> PLAYED_SHIFT) & 0x3FF) as u16;
        let active = ((self.0 >> ACTIVE_SHIFT) & 1) as u16;
        Position {
            pits,
            side,
            opening: played | (active << 15),
        }
    }

    /// This packing with the side to move set to `side`; `self` must have
    /// its side cleared, as [`Position::pack_board`] gives it.
    #[inline]
    pub const fn with_side(self, side: u8) -> Packed {
        Packed(self.0 | ((side as u128 & 1) << SIDE_SHIFT))
    }

    /// A 64-bit key: a fixed mix of the packed bits, identical on every run
    /// and machine. Never written to files.
    #[inline]
    pub const fn key(self) -> u64 {
        let lo = self.0 as u64;
        let hi = (self.0 >> 64) as u64;
        mix64(lo ^ mix64(hi ^ 0x9E37_79B9_7F4A_7C15))
    }
}

/// SplitMix64's finaliser: a fixed bijective mix of 64 bits.
#[inline]
pub const fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A position together with the seeds already captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct State {
    /// The position.
    pub pos: Position,
    /// Seeds captured so far, indexed by absolute side (0 = bottom, 1 = top).
    pub stores: [u16; 2],
}

impl State {
    /// Plays `mv` (which must be legal) and credits any capture to the
    /// mover's store. Returns the new state and the seeds captured.
    #[inline]
    pub fn play<G: Game>(&self, mv: Move) -> (State, u8) {
        let p = G::play_unchecked(&self.pos, mv);
        let mut stores = self.stores;
        stores[self.pos.side as usize] += p.captured as u16;
        (State { pos: p.pos, stores }, p.captured)
    }
}

/// The result of playing one move.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Played {
    /// The position after the move, with the opponent to move.
    pub pos: Position,
    /// Seeds captured by the move.
    pub captured: u8,
}

/// An illegal move was asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IllegalMove {
    /// The move that was asked for.
    pub mv: Move,
    /// The legal moves of the position (empty when the game is over).
    pub legal: MoveList,
}

/// A per-pit feature of the learned evaluation: its value at pit `i` of a
/// relative board.
pub type PitFeature = fn(&[u8; MAX_PITS], usize) -> f64;

/// The rules of one game. Everything generic in the crate is written against
/// this trait and monomorphised, so the hot paths have no dynamic dispatch.
pub trait Game: Copy + Send + Sync + 'static + fmt::Debug + Default {
    /// Which game this is.
    const ID: GameId;
    /// Which reading of the game's rules ([`crate::rules`]).
    const RULES: crate::rules::RuleSet;
    /// Pits on the board (12 or 10).
    const PITS: usize;
    /// Pits per row.
    const HALF: usize = Self::PITS / 2;
    /// Seeds in a full game.
    const TOTAL: u32;
    /// Seeds per pit at the start.
    const START_SEEDS: u8;
    /// Whether the game has a pass move.
    const HAS_PASS: bool;
    /// Whether the game has an opening phase (`Position::opening`).
    const HAS_OPENING: bool;
    /// The exact search's order of the quiet moves whose sowing reaches
    /// the opponent's row: `1` highest pit first, `-1` lowest first
    /// (measured per game; `search::ordering`, results/search.md).
    const REACHING_ORDER: i32;
    /// The absolute pits of the board diagram's top and bottom rows, left
    /// to right, as the bottom player sees the board.
    const DIAGRAM: (&'static [usize], &'static [usize]);
    /// What the learned evaluation ([`crate::eval`]) reads of each pit of
    /// a relative board: the stem of the feature's name (`pit` names
    /// `pit_0`, `pit_1`, …) and its value at a pit.
    const EVAL_PIT: (&'static str, PitFeature);
    /// The evaluation's weights shipped in the binary: a model file's JSON
    /// (made by the command in `results/analysis.md`).
    const EVAL_WEIGHTS: &'static str;

    /// Index of the first pit of `side`'s row in absolute numbering.
    fn row_start(side: u8) -> usize;

    /// The name of absolute pit `abs`.
    fn pit_name(abs: usize) -> String;

    /// Parses a pit name into an absolute pit index.
    fn parse_pit(s: &str) -> Option<usize>;

    /// The character naming `side` in notation (`B`/`A` or `0`/`1`).
    fn side_name(side: u8) -> char;

    /// The starting position.
    fn start() -> Position;

    /// Legal moves of `pos`; empty exactly when the game is over.
    fn legal_moves(pos: &Position) -> MoveList;

    /// Why the game is over, if it is (ignoring the driver-only rules).
    fn end_reason(pos: &Position) -> Option<EndReason>;

    /// Plays a legal move. Behaviour for an illegal move is unspecified
    /// (but memory-safe).
    fn play_unchecked(pos: &Position, mv: Move) -> Played;

    /// Calls `f` once for every (predecessor, move) pair whose move is legal,
    /// captures nothing and leads to `child`. Used by the retrograde builder.
    fn for_each_quiet_predecessor(child: &Position, f: impl FnMut(Position));

    /// Plays `mv` if it is legal.
    ///
    /// # Errors
    /// [`IllegalMove`] with the legal moves when `mv` is not one of them.
    fn try_play(pos: &Position, mv: Move) -> Result<Played, IllegalMove> {
        let legal = Self::legal_moves(pos);
        if legal.contains(mv) {
            Ok(Self::play_unchecked(pos, mv))
        } else {
            Err(IllegalMove { mv, legal })
        }
    }

    /// Seeds on the mover's row and on the opponent's row.
    #[inline]
    fn rows(pos: &Position) -> (u32, u32) {
        let h = Self::HALF;
        let own = pos.pits[..h].iter().map(|&x| x as u32).sum();
        let opp = pos.pits[h..Self::PITS].iter().map(|&x| x as u32).sum();
        (own, opp)
    }

    /// The split seen by the mover: own row minus opponent's row.
    #[inline]
    fn split(pos: &Position) -> i32 {
        let (a, b) = Self::rows(pos);
        a as i32 - b as i32
    }

    /// Converts an absolute board (sowing order) to a relative one for `side`.
    fn to_relative(abs: &[u8; MAX_PITS], side: u8) -> [u8; MAX_PITS] {
        let s = Self::row_start(side);
        let mut r = [0u8; MAX_PITS];
        for (i, x) in r.iter_mut().enumerate().take(Self::PITS) {
            *x = abs[(s + i) % Self::PITS];
        }
        r
    }

    /// Converts a relative board to the absolute one.
    fn to_absolute(pos: &Position) -> [u8; MAX_PITS] {
        let s = Self::row_start(pos.side);
        let mut a = [0u8; MAX_PITS];
        for i in 0..Self::PITS {
            a[(s + i) % Self::PITS] = pos.pits[i];
        }
        a
    }

    /// Absolute pit index of relative pit `rel` for the mover of `pos`.
    fn abs_pit(pos: &Position, rel: usize) -> usize {
        (Self::row_start(pos.side) + rel) % Self::PITS
    }
}

/// Swaps the two rows of a relative board (the view of the other player).
#[inline]
pub fn rotate_half<const N: usize>(b: &[u8; MAX_PITS]) -> [u8; MAX_PITS] {
    let h = N / 2;
    let mut r = [0u8; MAX_PITS];
    r[..h].copy_from_slice(&b[h..N]);
    r[h..N].copy_from_slice(&b[..h]);
    r
}

/// One move of a position, classified for value computations.
#[derive(Clone, Copy, Debug)]
pub enum Step {
    /// A move that captures: a new stretch starts at `pos`.
    Capture {
        /// The move.
        mv: Move,
        /// The child.
        pos: Position,
        /// Seeds captured.
        captured: u8,
    },
    /// A move that captures nothing: same level, same stretch.
    Quiet {
        /// The move.
        mv: Move,
        /// The child.
        pos: Position,
    },
}

/// Calls `f` for each legal move of `pos`, classified. Returns `false` (and
/// calls nothing) when the game is over.
#[inline]
pub fn for_each_step<G: Game>(pos: &Position, mut f: impl FnMut(Step)) -> bool {
    let moves = G::legal_moves(pos);
    for mv in moves.iter() {
        let p = G::play_unchecked(pos, mv);
        if p.captured > 0 {
            f(Step::Capture {
                mv,
                pos: p.pos,
                captured: p.captured,
            });
        } else {
            f(Step::Quiet { mv, pos: p.pos });
        }
    }
    !moves.is_empty()
}

#[cfg(test)]
mod pack_tests {
    use super::*;

    #[test]
    fn board_packing_with_side_is_the_full_packing() {
        let mut p = Position {
            pits: [3, 0, 7, 1, 0, 2, 9, 4, 0, 0, 5, 1],
            side: 1,
            opening: OPENING_ACTIVE | 0b101,
        };
        for side in [0, 1] {
            p.side = side;
            assert_eq!(p.pack_board().with_side(side), p.pack());
            assert_eq!(p.pack_board(), Position { side: 0, ..p }.pack());
        }
    }
}
