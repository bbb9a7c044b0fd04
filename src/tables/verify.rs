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

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::{format, level_positions, Table, TableError, TableSet};
use crate::game::{for_each_step, Game, GameId, Position, Step};
use crate::value::{Bounds, Contribution, LoopRule, Range, NEG_INF};

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

/// Verifies every entry of `level`, which `set` must cover (with every
/// level below). Returns at most `max_report` mismatches, in rank order,
/// and the total count.
///
/// # Errors
/// [`TableError::Missing`] when `set` does not cover `level`.
pub fn verify_level<G: Game>(
    set: &TableSet,
    level: u32,
    max_report: usize,
) -> Result<(Vec<Mismatch>, u64), TableError> {
    const CHUNK: u64 = 1 << 14;
    let size = covered(set, level)?.len() as u64;
    let ranges = (0..size.div_ceil(CHUNK)).map(|ci| ci * CHUNK..((ci + 1) * CHUNK).min(size));
    verify_ranges::<G>(set, level, ranges.collect(), max_report)
}

/// Positions per block of a sampled verification (consecutive ranks, so
/// that their boards are walked, not unranked).
pub const SAMPLE_BLOCK: u64 = 1 << 10;

/// Verifies about `sample` entries of `level` (all of them when the level
/// is not larger): blocks of [`SAMPLE_BLOCK`] consecutive ranks spread over
/// the level at fixed pseudo-random places (the same on every run).
/// Returns the mismatches found (at most `max_report`), their count, and
/// the number of entries checked.
///
/// # Errors
/// [`TableError::Missing`] when `set` does not cover `level`.
pub fn verify_sample<G: Game>(
    set: &TableSet,
    level: u32,
    sample: u64,
    max_report: usize,
) -> Result<(Vec<Mismatch>, u64, u64), TableError> {
    let size = covered(set, level)?.len() as u64;
    if sample >= size {
        let (m, c) = verify_level::<G>(set, level, max_report)?;
        return Ok((m, c, size));
    }
    let blocks = sample.div_ceil(SAMPLE_BLOCK);
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ level as u64;
    let mut starts: Vec<u64> = (0..blocks)
        .map(|_| {
            x = crate::game::mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
            x % (size - SAMPLE_BLOCK.min(size))
        })
        .collect();
    starts.sort_unstable();
    let ranges: Vec<_> = starts
        .into_iter()
        .map(|s| s..(s + SAMPLE_BLOCK).min(size))
        .collect();
    let checked = ranges.iter().map(|r| r.end - r.start).sum();
    let (m, c) = verify_ranges::<G>(set, level, ranges, max_report)?;
    Ok((m, c, checked))
}

fn covered(set: &TableSet, level: u32) -> Result<&super::Table, TableError> {
    set.level(level).ok_or_else(|| TableError::Missing {
        level,
        path: PathBuf::from("(tables given to verify)"),
    })
}

/// Verifies the entries of `level` whose ranks are in `ranges` (ascending),
/// in parallel over the ranges.
fn verify_ranges<G: Game>(
    set: &TableSet,
    level: u32,
    ranges: Vec<std::ops::Range<u64>>,
    max_report: usize,
) -> Result<(Vec<Mismatch>, u64), TableError> {
    let table = covered(set, level)?;
    let found: Vec<(Vec<Mismatch>, u64)> = ranges
        .into_par_iter()
        .map(|range| {
            let mut bad = Vec::new();
            let mut count = 0;
            for (idx, pos) in level_positions::<G>(level, range) {
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
    Ok((list, total))
}

/// Options of [`verify_dir`].
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Mismatches kept per level (all are counted).
    pub max_report: usize,
    /// Recompute only about this many entries per level (see
    /// [`verify_sample`]); `None` recomputes every entry. Headers and
    /// checksums are always checked in full.
    pub sample: Option<u64>,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            max_report: 5,
            sample: None,
        }
    }
}

/// What verification found for one level.
#[derive(Debug)]
pub enum LevelOutcome {
    /// Header and checksum are right and every entry recomputed (all of
    /// them, or a sample) equals its recomputation.
    Ok {
        /// Entries of the level.
        entries: u64,
        /// Entries recomputed (`entries` unless sampled).
        checked: u64,
    },
    /// Entries differ from their successors: the table is wrong.
    Mismatches {
        /// How many entries differ.
        count: u64,
        /// The first few, in rank order.
        first: Vec<Mismatch>,
    },
    /// No file for this level although a higher level has one: a hole.
    Missing,
    /// The file is there but cannot be used (I/O, not a regular file,
    /// truncated, corrupted, wrong game, rule or level, old version).
    BadFile(TableError),
    /// Header and checksum are right, but the entries were not recomputed
    /// because level `below` (lower) is missing, bad or wrong.
    NotRecomputed {
        /// The lowest level that failed.
        below: u32,
    },
}

/// The verdict on one level's file.
#[derive(Debug)]
pub struct LevelVerdict {
    /// Level.
    pub level: u32,
    /// Its file.
    pub path: PathBuf,
    /// What was found.
    pub outcome: LevelOutcome,
    /// Seconds spent on it.
    pub secs: f64,
}

impl LevelVerdict {
    /// True only for [`LevelOutcome::Ok`].
    pub fn ok(&self) -> bool {
        matches!(self.outcome, LevelOutcome::Ok { .. })
    }
}

/// The verdicts on every level of one game and loop rule in a directory.
#[derive(Debug)]
pub struct DirReport {
    /// Game.
    pub game: GameId,
    /// Loop rule.
    pub rule: LoopRule,
    /// One verdict per level from 0 to the highest file present (empty
    /// when the directory holds no file of this game and rule).
    pub levels: Vec<LevelVerdict>,
}

impl DirReport {
    /// True when every level present verified: no mismatch, no hole, no
    /// bad file. (Vacuously true for an empty report; a caller that needs
    /// tables checks [`DirReport::levels`] too.)
    pub fn passed(&self) -> bool {
        self.levels.iter().all(LevelVerdict::ok)
    }

    /// Levels that did not verify (holes and not-recomputed levels included).
    pub fn failures(&self) -> usize {
        self.levels.iter().filter(|l| !l.ok()).count()
    }
}

/// Verifies every level of game `G` under `rule` in `dir`, from 0 to the
/// highest level whose file is present: each file is opened and checked
/// (header, checksum), and its entries are recomputed from their
/// successors when every lower level verified. A level with no file below
/// the highest present one is [`LevelOutcome::Missing`]. `on_level` is told
/// each verdict as soon as it is known (verification of a big level takes
/// long); all of them are returned too.
///
/// # Errors
/// [`TableError::Io`] only when `dir` cannot be listed; every problem with
/// a level's file is a verdict, not an error.
pub fn verify_dir<G: Game>(
    dir: &Path,
    rule: LoopRule,
    opts: &VerifyOptions,
    mut on_level: impl FnMut(&LevelVerdict),
) -> Result<DirReport, TableError> {
    let present = format::levels_present(dir, G::ID, rule)?;
    let mut report = DirReport {
        game: G::ID,
        rule,
        levels: Vec::new(),
    };
    let Some(&top) = present.last() else {
        return Ok(report);
    };
    let mut set = TableSet::empty(G::ID, rule);
    let mut first_bad: Option<u32> = None;
    for n in 0..=top {
        let t0 = Instant::now();
        let path = format::level_path(dir, G::ID, rule, n);
        let outcome = match (Table::open(&path, G::ID, rule, n, G::PITS), first_bad) {
            (Err(TableError::Missing { .. }), _) => LevelOutcome::Missing,
            (Err(e), _) => LevelOutcome::BadFile(e),
            (Ok(_), Some(below)) => LevelOutcome::NotRecomputed { below },
            (Ok(t), None) => {
                let entries = t.len() as u64;
                set.push(t);
                let (first, count, checked) = match opts.sample {
                    Some(k) => verify_sample::<G>(&set, n, k, opts.max_report)?,
                    None => {
                        let (m, c) = verify_level::<G>(&set, n, opts.max_report)?;
                        (m, c, entries)
                    }
                };
                if count == 0 {
                    LevelOutcome::Ok { entries, checked }
                } else {
                    LevelOutcome::Mismatches { count, first }
                }
            }
        };
        let v = LevelVerdict {
            level: n,
            path,
            outcome,
            secs: t0.elapsed().as_secs_f64(),
        };
        if !v.ok() && first_bad.is_none() {
            first_bad = Some(n);
        }
        on_level(&v);
        report.levels.push(v);
    }
    Ok(report)
}
