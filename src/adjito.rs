//! Adjito rules (the README's rules §2): 2×6 pits, 48 seeds, sowing that skips the
//! origin, a single facing capture, no capturing everything, must-feed.
//!
//! Relative pits 0..5 are the mover's (`1B..6B` when B moves), 6..11 the
//! opponent's. Pit `i` faces pit `11 − i`.

use crate::game::{rotate_half, EndReason, Game, Move, MoveList, Played, Position, MAX_PITS};

/// The game Adjito.
#[derive(Clone, Copy, Debug, Default)]
pub struct Adjito;

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

/// The legal moves of the mover's pits `0..6` of `p`, bit `i` for pit
/// `i`: the pit is not empty and, when the opponent's row is empty, its
/// seeds reach it (the README's rules §2).
#[inline]
pub(crate) fn legal_mask(p: &[u8; MAX_PITS]) -> u32 {
    let opp_empty = p[H..N].iter().all(|&x| x == 0);
    (0..H).fold(0, |m, i| {
        let s = p[i] as usize;
        m | u32::from(s > 0 && (!opp_empty || s >= H - i)) << i
    })
}

impl Game for Adjito {
    const ID: crate::game::GameId = crate::game::GameId::Adjito;
    const PITS: usize = N;
    const TOTAL: u32 = 48;
    const START_SEEDS: u8 = 4;
    const HAS_PASS: bool = false;

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
        MoveList::from_mask(legal_mask(&pos.pits))
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
        let s = b[o];
        b[o] = 0;
        let mut captured = 0;
        if s > 0 {
            let last = sow(&mut b, o, s);
            if last < H {
                let f = N - 1 - last;
                let v = b[f];
                if v > 0 {
                    let opp: u32 = b[H..N].iter().map(|&x| x as u32).sum();
                    if opp > v as u32 {
                        captured = v;
                        b[f] = 0;
                    }
                }
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
            // its origin seeds, `opp` the seeds on the parent's opponent row.
            let mut b = after;
            let mut opp = opp_after;
            for s in 1..=level {
                let d = ((s as usize - 1) % 11) + 1;
                let j = (o + d) % N;
                if b[j] == 0 {
                    break;
                }
                b[j] -= 1;
                if j >= H {
                    opp -= 1;
                }
                // Must-feed: with the opponent's row empty, the sowing must reach it.
                if opp == 0 && (s as usize) < H - o {
                    continue;
                }
                // Quiet: the last seed did not capture.
                let last = j;
                if last < H {
                    let v = after[N - 1 - last] as u32;
                    if v > 0 && opp_after > v {
                        continue;
                    }
                }
                let mut parent = Position {
                    pits: b,
                    side: child.side ^ 1,
                    opening: 0,
                };
                parent.pits[o] = s as u8;
                f(parent);
            }
        }
    }
}
