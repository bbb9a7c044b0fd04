//! Adjito rules (docs/RULES.md §2): 2×6 pits, 48 seeds, sowing that skips the
//! origin, a single facing capture, no capturing everything, must-feed; and
//! the other readings of its rule set ([`crate::rules`]).
//!
//! Each rule has one home here, which play, the builder's packed fast paths,
//! the un-moves, the search and the evaluation all use:
//! - sowing: [`sow`] (the board) and its closed form [`landing`] (where the
//!   last seed lands and what the facing pit then holds, from the counts);
//! - the capture and the capture of everything: [`capture_taken`];
//! - feeding and must-reach: [`reaches`] and [`legal_mask`];
//! - the end of the game: [`Game::end_reason`] below.
//!
//! Relative pits 0..5 are the mover's (`1B..6B` when B moves), 6..11 the
//! opponent's. Pit `i` faces pit `11 − i`.

use crate::game::{rotate_half, EndReason, Game, Move, MoveList, Played, Position, MAX_PITS};
use crate::rules::{Reach, RuleSet, Slam};

pub(crate) mod packed;

/// The game Adjito under the reading whose [`RuleSet::code`] is `R`.
#[derive(Clone, Copy, Debug, Default)]
pub struct AdjitoOf<const R: u8>;

/// Adjito, the default reading (docs/RULES.md §2).
pub type Adjito = AdjitoOf<0>;
/// Adjito, must-reach read as a general rule ([`RuleSet::AdjitoMustReach`]).
pub type AdjitoMustReach = AdjitoOf<1>;
/// Adjito, a capture of everything forbidden unless forced
/// ([`RuleSet::AdjitoSlamForbidden`]).
pub type AdjitoSlamForbidden = AdjitoOf<2>;

const N: usize = 12;
const H: usize = 6;

/// Sows `s` seeds from `o` skipping the origin; returns the last pit.
#[inline]
fn sow(b: &mut [u8; MAX_PITS], o: usize, s: u8) -> usize {
    let laps = s / 11;
    let r = (s % 11) as usize;
    if laps > 0 {
        for (j, x) in b.iter_mut().enumerate().take(N) {
            if j != o {
                *x += laps;
            }
        }
    }
    for d in 1..=r {
        b[(o + d) % N] += 1;
    }
    let d_last = ((s as usize - 1) % 11) + 1;
    (o + d_last) % N
}

/// Where a sowing of pit `o` ends, from the counts alone ([`sow`]'s closed
/// form; tests check both agree on every move of small levels and on laps).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landing {
    /// Seeds sown.
    pub s: usize,
    /// Full laps (11 pits each, the origin skipped) and the remainder.
    pub laps: usize,
    /// The remainder: one more seed in each of the `r` pits after `o`.
    pub r: usize,
    /// The pit of the last seed.
    pub last: usize,
    /// When the last seed lands on the mover's row: the facing pit and
    /// the seeds it then holds.
    pub facing: Option<(usize, u32)>,
    /// Seeds on the opponent's row after the sowing.
    pub opp_after: u32,
}

/// The sowing of the non-empty pit `o` of `pits`, from the counts.
#[inline]
pub fn landing(pits: &[u8; MAX_PITS], o: usize) -> Landing {
    let s = pits[o] as usize;
    let (laps, r) = (s / 11, s % 11);
    // The last seed's distance from the origin (1..=11; the origin skipped).
    let d = if r == 0 { 11 } else { r };
    let last = (o + d) % N;
    let opp: usize = pits[H..N].iter().map(|&x| x as usize).sum();
    // Remainder seeds on the opponent's row: pits 6 ..= min(o + r, 11).
    let opp_after = (opp + H * laps + (o + r).saturating_sub(H - 1).min(H)) as u32;
    // The facing pit is on the opponent's row, after the origin: it got a
    // remainder seed when it is within `o + 1 ..= o + r`.
    let facing = (last < H).then(|| {
        let f = N - 1 - last;
        (
            f,
            (pits[f] as usize + laps + usize::from(f <= o + r)) as u32,
        )
    });
    Landing {
        s,
        laps,
        r,
        last,
        facing,
        opp_after,
    }
}

/// Whether `s` seeds sown from the mover's pit `o` reach the opponent's
/// row: `s ≥ 6 − o` (the origin is skipped, and `6 − o − 1` of the mover's
/// pits follow it).
#[inline]
pub const fn reaches(o: usize, s: u8) -> bool {
    s as usize >= H - o
}

/// The capture rule: the seeds a move takes when its last seed lands on
/// the mover's row and the facing pit then holds `v` seeds, with `opp`
/// seeds on the opponent's row after the sowing; 0 for no capture.
///
/// A capture of everything (`v == opp`) is made only under
/// [`Slam::ForbiddenUnlessForced`], where such a move is legal only when
/// forced ([`legal_mask`]); by default the move is played without it.
#[inline]
pub const fn capture_taken(rules: RuleSet, v: u32, opp: u32) -> u32 {
    if v == 0 || (v >= opp && matches!(rules.slam(), Slam::PlayedWithoutCapture)) {
        0
    } else {
        v
    }
}

/// Whether the sowing `l` would take every seed of the opponent's row.
#[inline]
const fn is_slam(l: &Landing) -> bool {
    match l.facing {
        Some((_, v)) => v > 0 && v >= l.opp_after,
        None => false,
    }
}

/// The legal moves of the mover's pits `0..6` of `pits`, bit `i` for pit
/// `i` (docs/RULES.md §2): a non-empty pit whose seeds reach the
/// opponent's row ([`reaches`]) when that row is empty, or under
/// [`Reach::Always`] whenever some pit's do. Under
/// [`Slam::ForbiddenUnlessForced`], the moves that would capture everything
/// are then dropped unless every legal move is one.
#[inline]
pub fn legal_mask(rules: RuleSet, p: &[u8; MAX_PITS]) -> u32 {
    let opp_empty = p[H..N].iter().all(|&x| x == 0);
    let (sows, reach) = (0..H).fold((0, 0), |(m, r), i| {
        let s = p[i];
        (
            m | u32::from(s > 0) << i,
            r | u32::from(s > 0 && reaches(i, s)) << i,
        )
    });
    let legal = match rules.reach() {
        Reach::WhenEmpty if opp_empty => reach,
        Reach::WhenEmpty => sows,
        Reach::Always if reach != 0 || opp_empty => reach,
        Reach::Always => sows,
    };
    match rules.slam() {
        Slam::PlayedWithoutCapture => legal,
        Slam::ForbiddenUnlessForced => {
            let slams = (0..H).fold(0, |m, i| {
                m | u32::from(legal >> i & 1 != 0 && is_slam(&landing(p, i))) << i
            });
            if slams == legal {
                legal
            } else {
                legal & !slams
            }
        }
    }
}

impl<const R: u8> Game for AdjitoOf<R> {
    const ID: crate::game::GameId = crate::game::GameId::Adjito;
    const RULES: RuleSet = match R {
        0 => RuleSet::AdjitoDefault,
        1 => RuleSet::AdjitoMustReach,
        2 => RuleSet::AdjitoSlamForbidden,
        _ => panic!("no such Adjito rule set"),
    };
    const PITS: usize = N;
    const TOTAL: u32 = 48;
    const START_SEEDS: u8 = 4;
    const HAS_PASS: bool = false;
    const HAS_OPENING: bool = false;
    const REACHING_ORDER: i32 = -1;
    // Each pit's seeds.
    const EVAL_PIT: (&'static str, crate::game::PitFeature) = ("pit", |b, i| b[i] as f64);
    const EVAL_WEIGHTS: &'static str = include_str!("weights.json");
    // B sows left to right along the bottom, then right to left along the top.
    const DIAGRAM: (&'static [usize], &'static [usize]) =
        (&[11, 10, 9, 8, 7, 6], &[0, 1, 2, 3, 4, 5]);

    fn row_start(side: u8) -> usize {
        if side == 0 {
            0
        } else {
            6
        }
    }

    fn pit_name(abs: usize) -> String {
        if abs < 6 {
            format!("{}B", abs + 1)
        } else {
            format!("{}A", abs - 5)
        }
    }

    fn parse_pit(s: &str) -> Option<usize> {
        let b = s.as_bytes();
        if b.len() != 2 || !(b'1'..=b'6').contains(&b[0]) {
            return None;
        }
        let i = (b[0] - b'1') as usize;
        match b[1] {
            b'B' | b'b' => Some(i),
            b'A' | b'a' => Some(i + 6),
            _ => None,
        }
    }

    fn side_name(side: u8) -> char {
        if side == 0 {
            'B'
        } else {
            'A'
        }
    }

    fn start() -> Position {
        let mut pits = [0u8; MAX_PITS];
        pits[..N].fill(4);
        Position {
            pits,
            side: 0,
            opening: 0,
        }
    }

    #[inline]
    fn legal_moves(pos: &Position) -> MoveList {
        MoveList::from_mask(legal_mask(Self::RULES, &pos.pits))
    }

    fn end_reason(pos: &Position) -> Option<EndReason> {
        let (own, opp) = Self::rows(pos);
        if own == 0 {
            Some(EndReason::MoverEmpty)
        } else if opp == 0 && Self::legal_moves(pos).is_empty() {
            Some(EndReason::CannotFeed)
        } else {
            None
        }
    }

    #[inline]
    fn play_unchecked(pos: &Position, mv: Move) -> Played {
        let o = mv.pit() % H;
        let mut b = pos.pits;
        let mut captured = 0;
        if b[o] > 0 {
            let l = landing(&b, o);
            let s = b[o];
            b[o] = 0;
            sow(&mut b, o, s);
            if let Some((f, v)) = l.facing {
                captured = capture_taken(Self::RULES, v, l.opp_after) as u8;
                b[f] -= captured;
            }
        }
        Played {
            pos: Position {
                pits: rotate_half::<N>(&b),
                side: pos.side ^ 1,
                opening: 0,
            },
            captured,
        }
    }

    fn for_each_quiet_predecessor(child: &Position, mut f: impl FnMut(Position)) {
        // The board as the previous mover left it, in that mover's terms.
        let after = rotate_half::<N>(&child.pits);
        let level: u32 = after.iter().map(|&x| x as u32).sum();
        let opp_after: u32 = after[H..N].iter().map(|&x| x as u32).sum();
        for o in 0..H {
            if after[o] != 0 {
                continue;
            }
            // Undo the sowing one seed at a time: `b` is the parent without
            // its origin seeds.
            let mut b = after;
            for s in 1..=level {
                let d = ((s as usize - 1) % 11) + 1;
                let last = (o + d) % N;
                if b[last] == 0 {
                    break;
                }
                b[last] -= 1;
                // Quiet: the last seed captured nothing.
                if last < H && capture_taken(Self::RULES, after[N - 1 - last] as u32, opp_after) > 0
                {
                    continue;
                }
                let mut parent = Position {
                    pits: b,
                    side: child.side ^ 1,
                    opening: 0,
                };
                parent.pits[o] = s as u8;
                // Legal in the parent: feeding, must-reach, captures of everything.
                if legal_mask(Self::RULES, &parent.pits) >> o & 1 != 0 {
                    f(parent);
                }
            }
        }
    }
}
