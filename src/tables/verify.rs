//! Table verification, in the manner of Syzygy's `rtbver`: every entry is
//! recomputed from its successors.
//!
//! Opening a level already checks the header, game, rule, size and payload
//! checksum. Verification then recomputes, for every position `p`,
//! `max(E(p), −hi(c))` and `max(E(p), −lo(c))` over its quiet children `c`
//! (same level) and its exits `E(p)` (captures into lower levels, game end),
//! and compares them with the stored `lo(p)` and `hi(p)`.
//!
//! This local check proves that the stored planes are *a* solution of the
//! §4 equations; that they are the least/greatest one is established by the
//! builder and by the tests against the reference solver.

use rayon::prelude::*;

use super::{level_positions, TableSet};
use crate::game::{for_each_step, Game, Position, Step};
use crate::index::level_size;
use crate::value::{Bounds, Contribution, Range, NEG_INF};

/// One entry that does not match its successors.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mismatch {
    /// Level.
    pub level: u32,
    /// Rank in the level.
    pub index: u64,
    /// The board (relative to the mover).
    pub position: Position,
    /// Stored bounds.
    pub stored: Bounds,
    /// Bounds recomputed from the successors.
    pub recomputed: Bounds,
}

/// Recomputes the bounds of `pos` from the tables (its level and below).
pub fn recompute<G: Game>(set: &TableSet, pos: &Position) -> Option<Bounds> {
    let mut acc = Contribution::NONE;
    let mut ok = true;
    let any = for_each_step::<G>(pos, |s| {
        let part = match s {
            Step::Capture {
                pos: c, captured, ..
            } => set
                .value::<G>(&c)
                .map(|v| Contribution::capture(captured, Range::point(v))),
            // The quiet move's value needs the stretch's w; lo and hi do not.
            Step::Quiet { pos: c, .. } => set.bounds::<G>(&c).map(|b| b.quiet_child(0)),
        };
        match part {
            Some(p) => acc = acc.join(p),
            None => ok = false,
        }
    });
    if !any {
        acc = Contribution::end(G::split(pos));
    }
    ok.then_some(Bounds {
        lo: acc.lo.lower,
        hi: acc.hi.lower,
    })
}

/// Verifies every entry of `level` (which `set` must cover, with all lower
/// levels). Returns at most `max_report` mismatches and the total count.
pub fn verify_level<G: Game>(
    set: &TableSet,
    level: u32,
    max_report: usize,
) -> (Vec<Mismatch>, u64) {
    const CHUNK: u64 = 1 << 14;
    let size = level_size(level as usize, G::PITS);
    let table = set.level(level).expect("level covered");
    let found: Vec<(Vec<Mismatch>, u64)> = (0..size.div_ceil(CHUNK))
        .into_par_iter()
        .map(|ci| {
            let mut bad = Vec::new();
            let mut count = 0;
            for (idx, pos) in level_positions::<G>(level, ci * CHUNK..((ci + 1) * CHUNK).min(size))
            {
                let stored = table.bounds(idx as usize);
                let again = recompute::<G>(set, &pos);
                if again != Some(stored) || stored.lo > stored.hi {
                    count += 1;
                    if bad.len() < max_report {
                        let recomputed = again.unwrap_or(Bounds {
                            lo: NEG_INF,
                            hi: NEG_INF,
                        });
                        bad.push(Mismatch {
                            level,
                            index: idx,
                            position: pos,
                            stored,
                            recomputed,
                        });
                    }
                }
            }
            (bad, count)
        })
        .collect();
    let total = found.iter().map(|x| x.1).sum();
    let list = found
        .into_iter()
        .flat_map(|x| x.0)
        .take(max_report)
        .collect();
    (list, total)
}
