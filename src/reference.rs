//! A small, obviously correct reference solver, kept apart from the fast
//! code: a direct transcription of docs/RULES.md §4.
//!
//! Boards are enumerated by plain recursion and kept in hash maps; `lo` and
//! `hi` start at −∞ and +∞ and every position of a level is updated with
//! `lo(p) = max(exits, −hi(c))`, `hi(p) = max(exits, −lo(c))` until nothing
//! changes. It shares only the move rules with the fast builder (no ranks,
//! no predecessors, no atomics). Use it for small levels only.

use ahash::AHashMap;

use crate::game::{for_each_step, Game, Position, Step, MAX_PITS};
use crate::value::{Bounds, LoopRule, NEG_INF, POS_INF};

/// Exact bounds of every position of levels `0..=max`.
pub struct Reference {
    rule: LoopRule,
    levels: Vec<AHashMap<[u8; MAX_PITS], Bounds>>,
}

fn boards(n: u32, k: usize) -> Vec<[u8; MAX_PITS]> {
    fn rec(i: usize, left: u32, k: usize, b: &mut [u8; MAX_PITS], out: &mut Vec<[u8; MAX_PITS]>) {
        if i == k - 1 {
            b[i] = left as u8;
            out.push(*b);
            return;
        }
        for x in 0..=left {
            b[i] = x as u8;
            rec(i + 1, left - x, k, b, out);
        }
    }
    let mut out = Vec::new();
    rec(0, n, k, &mut [0; MAX_PITS], &mut out);
    out
}

impl Reference {
    /// Solves levels `0..=max` of game `G` under `rule`.
    pub fn build<G: Game>(max: u32, rule: LoopRule) -> Self {
        let mut r = Reference {
            rule,
            levels: Vec::new(),
        };
        for n in 0..=max {
            let all = boards(n, G::PITS);
            let mut exits = Vec::with_capacity(all.len());
            let mut quiet: Vec<Vec<[u8; MAX_PITS]>> = Vec::with_capacity(all.len());
            for b in &all {
                let pos = Position {
                    pits: *b,
                    side: 0,
                    opening: 0,
                };
                let mut e = NEG_INF;
                let mut q = Vec::new();
                let any = for_each_step::<G>(&pos, |s| match s {
                    Step::Capture {
                        pos: c, captured, ..
                    } => {
                        e = e.max(captured as i32 - r.value::<G>(&c));
                    }
                    Step::Quiet { pos: c, .. } => q.push(c.pits),
                });
                if !any {
                    e = G::split(&pos);
                }
                exits.push(e);
                quiet.push(q);
            }
            let mut map: AHashMap<[u8; MAX_PITS], Bounds> = all
                .iter()
                .map(|b| {
                    (
                        *b,
                        Bounds {
                            lo: NEG_INF,
                            hi: POS_INF,
                        },
                    )
                })
                .collect();
            loop {
                let mut changed = false;
                for (i, b) in all.iter().enumerate() {
                    let mut lo = exits[i];
                    let mut hi = exits[i];
                    for c in &quiet[i] {
                        let cb = map[c];
                        lo = lo.max(-cb.hi);
                        hi = hi.max(-cb.lo);
                    }
                    let cur = map.get_mut(b).unwrap();
                    if cur.lo != lo || cur.hi != hi {
                        *cur = Bounds { lo, hi };
                        changed = true;
                    }
                }
                if !changed {
                    break;
                }
            }
            r.levels.push(map);
        }
        r
    }

    /// Bounds of a main-phase position of a solved level.
    pub fn bounds(&self, pos: &Position) -> Bounds {
        self.levels[pos.level() as usize][&pos.pits]
    }

    /// Value of a main-phase position of a solved level.
    pub fn value<G: Game>(&self, pos: &Position) -> i32 {
        self.bounds(pos).value(self.rule.w::<G>(pos))
    }
}
