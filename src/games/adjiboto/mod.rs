//! Adji-Boto rules (docs/RULES.md §3): 2×5 pits, 100 seeds, all-but-one sowing
//! whose laps include the origin, a ten-move opening with no captures, the
//! forward 1/3/5 capture chain, and passes; and the other readings of its
//! rule set ([`crate::rules`]).
//!
//! Each rule has one home here, which play, the builder's packed fast paths,
//! the un-moves, the search and the evaluation all use:
//! - sowing: the board in [`Game::play_unchecked`] below, and its closed
//!   form [`sowing`] (where the last seed lands, from the counts);
//! - which pits may be sown, the opening's order included: [`playable_mask`];
//! - the capture: [`takes`] (which counts are taken), [`TAKEN`], and
//!   [`captures_allowed`] (when captures start);
//! - passes and the end of the game: [`Game::legal_moves`] below.
//!
//! Relative pits 0..4 are the mover's, 5..9 the opponent's. In the opening,
//! [`Position::opening`] holds one bit per relative pit already played.

use crate::game::{
    rotate_half, EndReason, Game, Move, MoveList, Played, Position, MAX_PITS, OPENING_ACTIVE,
};
use crate::rules::RuleSet;

pub(crate) mod packed;

/// The game Adji-Boto under the reading whose [`RuleSet::code`] is `R`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdjiBotoOf<const R: u8>;

/// Adji-Boto, the default reading (docs/RULES.md §3).
pub type AdjiBoto = AdjiBotoOf<0>;
/// Adji-Boto as Valdez reads it ([`RuleSet::AdjiBotoValdez`]).
pub type AdjiBotoValdez = AdjiBotoOf<1>;

/// The counts a capture takes, bit `c` for a pit of `c` seeds: 1, 3 and 5.
pub const TAKEN: u64 = 0b10_1010;

/// Whether a pit of `c` seeds is taken by a capture (docs/RULES.md §3).
#[inline]
pub const fn takes(c: u64) -> bool {
    c < 64 && (TAKEN >> c) & 1 != 0
}

/// Whether a move made in opening state `opening` may capture: after the
/// opening, and within it once [`RuleSet::capture_free_moves`] moves have
/// been played (never by default, from the third move under Valdez's
/// reading). Every opening move sows a pit of its own, so the moves played
/// are the pits played.
#[inline]
pub const fn captures_allowed(rules: RuleSet, opening: u16) -> bool {
    opening & OPENING_ACTIVE == 0
        || (opening & ALL_PLAYED).count_ones() >= rules.capture_free_moves()
}

/// Where Adji-Boto's sowing from relative pit `o` ends, from the counts:
/// `m = s − 1` seeds sown in `laps` laps through the origin (which keeps
/// one seed) and a remainder of `r`, the last landing in pit `last`; the
/// deciding pit `q` after it then holds `v` seeds. (The closed form of the
/// sowing in [`Game::play_unchecked`]; tests check both agree on every move
/// of small levels and on laps.)
#[derive(Clone, Copy, Debug)]
pub struct Sowing {
    /// The origin.
    pub o: usize,
    /// Seeds sown.
    pub m: usize,
    /// Full laps of ten pits.
    pub laps: usize,
    /// The remainder, one seed in each of the `r` pits after `o`.
    pub r: usize,
    /// The pit of the last seed.
    pub last: usize,
    /// The pit after it, which decides the capture.
    pub q: usize,
    /// The seeds `q` holds after the sowing.
    pub v: usize,
}

impl Sowing {
    /// Seeds this sowing puts on the row across from its origin: half of
    /// every lap, and those of the remainder that pass the row's end (what
    /// the evaluation counts; `crate::eval`).
    pub fn across(&self) -> usize {
        let row = |p: usize| p / H;
        let rest = (1..=self.r).filter(|d| row((self.o + d) % N) != row(self.o));
        self.laps * H + rest.count()
    }
}

/// The sowing from relative pit `o` of `pits` (a pit of 2 or more for a
/// legal move; the fields of an illegal one are meaningless).
#[inline]
pub fn sowing(pits: &[u8; MAX_PITS], o: usize) -> Sowing {
    let m = (pits[o] as usize).saturating_sub(1);
    let (laps, r) = (m / N, m % N);
    // The last seed lands in pit o + r (o itself after whole laps), so the
    // deciding pit is o + r + 1: the origin (one seed plus the laps) when
    // r = 9, else a pit the remainder did not reach.
    let last = (o + r) % N;
    let q = (last + 1) % N;
    let v = if q == o { 1 } else { pits[q] as usize } + laps;
    Sowing {
        o,
        m,
        laps,
        r,
        last,
        q,
        v,
    }
}

const N: usize = 10;
const H: usize = 5;
const ALL_PLAYED: u16 = 0x3FF;

/// Swaps the row halves of an opening mask.
#[inline]
const fn rotate_mask(m: u16) -> u16 {
    if m & OPENING_ACTIVE == 0 {
        return 0;
    }
    let played = m & ALL_PLAYED;
    OPENING_ACTIVE | (played >> H) | ((played & 0x1F) << H)
}

/// The pits of the row `offset..offset + 5` (relative pits) that may be
/// sown in (`pits`, `opening`), bit `i` for pit `offset + i`: pits of 2 or
/// more, not yet played while the opening lasts (docs/RULES.md §3).
#[inline]
pub(crate) fn playable_mask(pits: &[u8; MAX_PITS], opening: u16, offset: usize) -> u32 {
    let open = opening & OPENING_ACTIVE != 0;
    (0..H).fold(0, |m, i| {
        let ok = pits[offset + i] >= 2 && !(open && opening & (1 << (offset + i)) != 0);
        m | u32::from(ok) << i
    })
}

impl<const R: u8> Game for AdjiBotoOf<R> {
    const ID: crate::game::GameId = crate::game::GameId::AdjiBoto;
    const RULES: RuleSet = match R {
        0 => RuleSet::AdjiBotoDefault,
        1 => RuleSet::AdjiBotoValdez,
        _ => panic!("no such Adji-Boto rule set"),
    };
    const PITS: usize = N;
    const TOTAL: u32 = 100;
    const START_SEEDS: u8 = 10;
    const HAS_PASS: bool = true;
    const HAS_OPENING: bool = true;
    const REACHING_ORDER: i32 = 1;
    // The seeds sowing the pit carries to the other row: unlike a pit
    // count, it stays meaningful for the large pits of 30-100 seed
    // positions (a lap spreads seeds over both rows).
    const EVAL_PIT: (&'static str, crate::game::PitFeature) =
        ("sown_across", |b, i| sowing(b, i).across() as f64);
    const EVAL_WEIGHTS: &'static str = include_str!("weights.json");
    // The source's diagram: 0..4 left to right on top, 9..5 below.
    const DIAGRAM: (&'static [usize], &'static [usize]) = (&[0, 1, 2, 3, 4], &[9, 8, 7, 6, 5]);

    fn row_start(side: u8) -> usize {
        if side == 0 {
            5
        } else {
            0
        }
    }

    fn pit_name(abs: usize) -> String {
        abs.to_string()
    }

    fn parse_pit(s: &str) -> Option<usize> {
        match s.as_bytes() {
            [d @ b'0'..=b'9'] => Some((d - b'0') as usize),
            _ => None,
        }
    }

    fn side_name(side: u8) -> char {
        if side == 0 {
            '0'
        } else {
            '1'
        }
    }

    fn start() -> Position {
        let mut pits = [0u8; MAX_PITS];
        pits[..N].fill(10);
        Position {
            pits,
            side: 0,
            opening: OPENING_ACTIVE,
        }
    }

    #[inline]
    fn legal_moves(pos: &Position) -> MoveList {
        let ml = MoveList::from_mask(playable_mask(&pos.pits, pos.opening, 0));
        if !ml.is_empty() {
            return ml;
        }
        // The opponent's moves, as seen from their side: their pits are 5..9
        // here, and their played bits are bits 5..9 of the mask.
        if playable_mask(&pos.pits, pos.opening, H) != 0 {
            let mut p = MoveList::new();
            p.push(Move::PASS);
            return p;
        }
        MoveList::new()
    }

    fn end_reason(pos: &Position) -> Option<EndReason> {
        if Self::legal_moves(pos).is_empty() {
            Some(EndReason::NoMoves)
        } else {
            None
        }
    }

    #[inline]
    fn play_unchecked(pos: &Position, mv: Move) -> Played {
        if mv.is_pass() {
            return Played {
                pos: Position {
                    pits: rotate_half::<N>(&pos.pits),
                    side: pos.side ^ 1,
                    opening: rotate_mask(pos.opening),
                },
                captured: 0,
            };
        }
        let o = mv.pit() % H;
        let mut b = pos.pits;
        let s = b[o];
        let mut captured = 0u8;
        if s >= 2 {
            let Sowing { laps, r, last, .. } = sowing(&b, o);
            b[o] = 1;
            if laps > 0 {
                for x in b.iter_mut().take(N) {
                    *x += laps as u8;
                }
            }
            for d in 1..=r {
                b[(o + d) % N] += 1;
            }
            if captures_allowed(Self::RULES, pos.opening) {
                let mut j = (last + 1) % N;
                while j != last && takes(b[j] as u64) {
                    captured += b[j];
                    b[j] = 0;
                    j = (j + 1) % N;
                }
            }
        }
        let mut opening = pos.opening;
        if opening & OPENING_ACTIVE != 0 {
            opening |= 1 << o;
            if opening & ALL_PLAYED == ALL_PLAYED {
                opening = 0;
            }
        }
        Played {
            pos: Position {
                pits: rotate_half::<N>(&b),
                side: pos.side ^ 1,
                opening: rotate_mask(opening),
            },
            captured,
        }
    }

    fn for_each_quiet_predecessor(child: &Position, mut f: impl FnMut(Position)) {
        // Main phase only: the retrograde builder covers positions after the
        // opening.
        debug_assert!(!child.in_opening());
        let after = rotate_half::<N>(&child.pits);
        let side = child.side ^ 1;
        // Pass: the board is unchanged; legal when the parent's mover had no
        // sowing move and the child's mover has one.
        if after[..H].iter().all(|&x| x < 2) && after[H..N].iter().any(|&x| x >= 2) {
            f(Position {
                pits: after,
                side,
                opening: 0,
            });
        }
        // The origin keeps exactly one seed of its own, plus one per full
        // lap: a move sowing m = 10k + r seeds (r < 10) leaves after[o] =
        // 1 + k, so k is fixed and only r = 0..9 remain to try.
        for o in 0..H {
            if after[o] == 0 {
                continue;
            }
            let k = after[o] - 1;
            if after[..N].iter().any(|&x| x < k) {
                continue;
            }
            let mut b = after;
            for x in b.iter_mut().take(N) {
                *x -= k;
            }
            // b[o] == 1 now; r more seeds went to pits o+1 .. o+r.
            for r in 0..N {
                if r > 0 {
                    let j = (o + r) % N;
                    if b[j] == 0 {
                        break;
                    }
                    b[j] -= 1;
                }
                let m = k as usize * N + r;
                if m == 0 || m + 1 > 127 {
                    continue;
                }
                let last = (o + ((m - 1) % N) + 1) % N;
                // Quiet: the pit after the last one does not hold 1, 3 or 5.
                if takes(after[(last + 1) % N] as u64) {
                    continue;
                }
                let mut parent = Position {
                    pits: b,
                    side,
                    opening: 0,
                };
                parent.pits[o] = (m + 1) as u8;
                f(parent);
            }
        }
    }
}
