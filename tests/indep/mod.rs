//! The rules, written again from docs/RULES.md §2 and §3 and the
//! differences of each reading, seed by seed and with no closed forms.
//! Only the library's data types (`Position`, `Move`) are shared.

use super::*;

/// One legal move and what it does: the position after it (the other
/// player to move, board seen from them) and the seeds it captured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    pub mv: Move,
    pub pos: Position,
    pub captured: u8,
}

/// Adjito readings, as the three knobs they differ by.
#[derive(Clone, Copy, Debug)]
pub struct AdjitoRules {
    /// A move must reach the opponent's row whenever one can.
    pub must_reach: bool,
    /// A capture of everything is illegal unless forced (then made).
    pub slam_forbidden: bool,
}

pub fn adjito_rules(r: RuleSet) -> AdjitoRules {
    match r {
        RuleSet::AdjitoDefault => AdjitoRules {
            must_reach: false,
            slam_forbidden: false,
        },
        RuleSet::AdjitoMustReach => AdjitoRules {
            must_reach: true,
            slam_forbidden: false,
        },
        RuleSet::AdjitoSlamForbidden => AdjitoRules {
            must_reach: false,
            slam_forbidden: true,
        },
        _ => panic!("not an Adjito reading"),
    }
}

/// Adjito sowing from the mover's pit `o` (relative board, mover's
/// pits 0..5): one seed per pit in sowing order, never into the
/// origin. Returns the board, the last pit and whether any seed went
/// into the opponent's row (6..11).
fn adjito_sow(pits: &[u8; MAX_PITS], o: usize) -> ([u8; MAX_PITS], usize, bool) {
    let mut b = *pits;
    let mut seeds = b[o];
    b[o] = 0;
    let mut at = o;
    let mut reached = false;
    while seeds > 0 {
        at = (at + 1) % 12;
        if at == o {
            continue;
        }
        b[at] += 1;
        seeds -= 1;
        reached |= at >= 6;
    }
    (b, at, reached)
}

/// The seeds the last seed's pit faces when it lies on the mover's row
/// (pit `i` faces `11 − i`), and the opponent's seeds after sowing.
fn facing(b: &[u8; MAX_PITS], last: usize) -> (Option<usize>, u32) {
    let opp: u32 = b[6..12].iter().map(|&x| x as u32).sum();
    ((last < 6 && b[11 - last] > 0).then_some(11 - last), opp)
}

fn rotate(b: &[u8; MAX_PITS], half: usize) -> [u8; MAX_PITS] {
    let mut r = [0u8; MAX_PITS];
    for i in 0..2 * half {
        r[i] = b[(i + half) % (2 * half)];
    }
    r
}

/// Every legal Adjito move of `p` under `r`, with its outcome.
pub fn adjito(r: AdjitoRules, p: &Position) -> Vec<Outcome> {
    let own: u32 = p.pits[..6].iter().map(|&x| x as u32).sum();
    let opp: u32 = p.pits[6..12].iter().map(|&x| x as u32).sum();
    if own == 0 {
        return Vec::new();
    }
    // (pit, board after sowing, last pit, reaches the opponent's row)
    let sown: Vec<_> = (0..6)
        .filter(|&o| p.pits[o] > 0)
        .map(|o| {
            let (b, last, reached) = adjito_sow(&p.pits, o);
            (o, b, last, reached)
        })
        .collect();
    let any_reaches = sown.iter().any(|s| s.3);
    let mut legal: Vec<_> = sown
        .into_iter()
        .filter(|s| {
            // Must feed (default): an empty opponent row must be reached.
            // Must-reach: a move must reach whenever one can.
            if opp == 0 || (r.must_reach && any_reaches) {
                s.3
            } else {
                true
            }
        })
        .collect();
    let is_slam = |s: &(usize, [u8; MAX_PITS], usize, bool)| {
        let (f, opp_after) = facing(&s.1, s.2);
        f.is_some_and(|f| s.1[f] as u32 == opp_after)
    };
    if r.slam_forbidden && !legal.iter().all(is_slam) {
        legal.retain(|s| !is_slam(s));
    }
    legal
        .into_iter()
        .map(|(o, mut b, last, _)| {
            let (f, opp_after) = facing(&b, last);
            let mut captured = 0;
            if let Some(f) = f {
                let everything = b[f] as u32 == opp_after;
                // By default a capture of everything is not made; under
                // slam-forbidden such a move is played only when forced,
                // and then captures.
                if !everything || r.slam_forbidden {
                    captured = b[f];
                    b[f] = 0;
                }
            }
            Outcome {
                mv: Move(o as u8),
                pos: Position {
                    pits: rotate(&b, 6),
                    side: p.side ^ 1,
                    opening: 0,
                },
                captured,
            }
        })
        .collect()
}

/// Adji-Boto readings: how many moves at the start make no capture.
pub fn adjiboto_free_moves(r: RuleSet) -> u32 {
    match r {
        RuleSet::AdjiBotoDefault => 10,
        RuleSet::AdjiBotoValdez => 2,
        _ => panic!("not an Adji-Boto reading"),
    }
}

/// Pits played in the opening (relative bits 0..9), or `None` after it.
fn played(p: &Position) -> Option<[bool; 10]> {
    (p.opening & OPENING_ACTIVE != 0).then(|| std::array::from_fn(|i| p.opening >> i & 1 != 0))
}

fn opening_word(pl: Option<[bool; 10]>) -> u16 {
    match pl {
        None => 0,
        Some(pl) if pl.iter().all(|&x| x) => 0,
        Some(pl) => pl
            .iter()
            .enumerate()
            .fold(OPENING_ACTIVE, |w, (i, &x)| w | u16::from(x) << i),
    }
}

/// Whether the player whose row starts at `row` may sow pit `row + i`.
fn may_sow(p: &Position, pl: Option<[bool; 10]>, row: usize, i: usize) -> bool {
    p.pits[row + i] >= 2 && !pl.is_some_and(|pl| pl[row + i])
}

/// Every legal Adji-Boto move of `p` under a reading whose first
/// `free` moves make no capture, with its outcome.
pub fn adjiboto(free: u32, p: &Position) -> Vec<Outcome> {
    let pl = played(p);
    let rot_played = pl.map(|x| std::array::from_fn(|i| x[(i + 5) % 10]));
    let mine: Vec<usize> = (0..5).filter(|&i| may_sow(p, pl, 0, i)).collect();
    if mine.is_empty() {
        if (0..5).any(|i| may_sow(p, pl, 5, i)) {
            return vec![Outcome {
                mv: Move::PASS,
                pos: Position {
                    pits: rotate(&p.pits, 5),
                    side: p.side ^ 1,
                    opening: opening_word(rot_played),
                },
                captured: 0,
            }];
        }
        return Vec::new();
    }
    // Moves made so far: in the opening, the pits played.
    let moves_made = pl.map_or(u32::MAX, |x| x.iter().filter(|&&y| y).count() as u32);
    mine.into_iter()
        .map(|o| {
            let mut b = p.pits;
            let mut seeds = b[o] - 1;
            b[o] = 1;
            let mut at = o;
            while seeds > 0 {
                at = (at + 1) % 10;
                b[at] += 1;
                seeds -= 1;
            }
            let mut captured = 0u8;
            if moves_made >= free {
                let mut j = (at + 1) % 10;
                while j != at && matches!(b[j], 1 | 3 | 5) {
                    captured += b[j];
                    b[j] = 0;
                    j = (j + 1) % 10;
                }
            }
            let after = pl.map(|mut x| {
                x[o] = true;
                x
            });
            let rot = after.map(|x| std::array::from_fn(|i| x[(i + 5) % 10]));
            Outcome {
                mv: Move(o as u8),
                pos: Position {
                    pits: rotate(&b, 5),
                    side: p.side ^ 1,
                    opening: opening_word(rot),
                },
                captured,
            }
        })
        .collect()
}

/// The independent generator for the reading `r`.
pub fn moves(r: RuleSet, p: &Position) -> Vec<Outcome> {
    match r.game() {
        adji::game::GameId::Adjito => adjito(adjito_rules(r), p),
        adji::game::GameId::AdjiBoto => adjiboto(adjiboto_free_moves(r), p),
    }
}

/// Move paths of exactly `d` moves (docs/RULES.md §6).
pub fn perft(r: RuleSet, p: &Position, d: u32) -> u64 {
    if d == 0 {
        return 1;
    }
    let ms = moves(r, p);
    if d == 1 {
        return ms.len() as u64;
    }
    ms.iter().map(|o| perft(r, &o.pos, d - 1)).sum()
}
