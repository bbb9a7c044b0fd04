//! Table verification: every entry checked against its successors, and
//! every level compared with a fresh recomputation.
//!
//! Opening a level already checks the header, game, rule, size, payload
//! checksum and that every stored value is possible for the level.
//! Verification then makes two checks per level:
//!
//! 1. **Successor consistency**, in the manner of Syzygy's `rtbver`: for
//!    every position `p`, `max(E(p), −hi(c))` and `max(E(p), −lo(c))` over
//!    its quiet children `c` (same level) and its exits `E(p)` (captures
//!    into lower levels, game end) must equal the stored `lo(p)` and
//!    `hi(p)`. Independent of the builder, but it only proves that the
//!    stored bounds are *a* solution of docs/RULES.md §4 equations: on a
//!    level with quiet cycles other solutions exist (`lo = hi =
//!    clamp(0, lo, hi)` is one), and they pass it.
//! 2. **Recomputation**: the level is rebuilt in memory by the builder
//!    ([`crate::tables::retrograde::rebuild`]) from the lower levels in the
//!    directory (themselves verified first), and every entry must equal the
//!    file's. The builder computes `lo` as the least and `hi` as the
//!    greatest fixpoint, so this establishes that the file holds those.
//!
//! A sampled verification ([`verify_sample`]) makes only the first check,
//! on the samples: it does not prove the fixpoints.

use rayon::prelude::*;

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::error::TableError;
use super::format;
use super::retrograde::{self, LevelPlan};
use super::set::TableSet;
use super::table::Table;
use super::walk::level_positions;
use crate::game::{for_each_step, Game, GameId, Position, Step};
use crate::progress::{NoProgress, Progress};
use crate::value::{Bounds, Contribution, LoopRule, Range, NEG_INF, POS_INF};

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
    let size = covered(set, level)?.len() as u64;
    verify_ranges::<G>(set, level, whole_level(size), max_report)
}

/// Positions per block of a sampled verification (consecutive ranks, so
/// that their boards are walked, not unranked).
pub const SAMPLE_BLOCK: u64 = 1 << 10;

/// Verifies about `sample` entries of `level` against their successors
/// (all of them when the blocks would cover the level): blocks of [`SAMPLE_BLOCK`] consecutive ranks spread over
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
    let ranges = sample_ranges(size, sample, level);
    let checked = ranges.iter().map(|r| r.end - r.start).sum();
    let (m, c) = verify_ranges::<G>(set, level, ranges, max_report)?;
    Ok((m, c, checked))
}

/// The rank ranges of a sample of about `sample` entries of a level of
/// `size` entries: every rank when the blocks would cover the level,
/// otherwise blocks of [`SAMPLE_BLOCK`] at fixed pseudo-random places
/// (seeded by `level`), ascending.
fn sample_ranges(size: u64, sample: u64, level: u32) -> Vec<std::ops::Range<u64>> {
    let blocks = sample.div_ceil(SAMPLE_BLOCK);
    if blocks.saturating_mul(SAMPLE_BLOCK) >= size {
        return whole_level(size);
    }
    // size > SAMPLE_BLOCK here: a block fits at size − SAMPLE_BLOCK + 1 places.
    let places = size - SAMPLE_BLOCK + 1;
    let mut x = 0x9E37_79B9_7F4A_7C15u64 ^ level as u64;
    let mut starts: Vec<u64> = (0..blocks)
        .map(|_| {
            x = crate::game::mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
            x % places
        })
        .collect();
    starts.sort_unstable();
    starts.into_iter().map(|s| s..s + SAMPLE_BLOCK).collect()
}

/// Every rank of a level of `size` entries, in chunks.
fn whole_level(size: u64) -> Vec<std::ops::Range<u64>> {
    const CHUNK: u64 = 1 << 14;
    (0..size.div_ceil(CHUNK))
        .map(|ci| ci * CHUNK..((ci + 1) * CHUNK).min(size))
        .collect()
}

fn covered(set: &TableSet, level: u32) -> Result<&Table, TableError> {
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
                // A damaged entry (the level is then refused below)
                // reads as bounds no entry has.
                let stored = table.bounds(idx as usize).unwrap_or(Bounds {
                    lo: POS_INF,
                    hi: NEG_INF,
                });
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
    set.check_damage()?;
    let total = found.iter().map(|x| x.1).sum();
    let list = found
        .into_iter()
        .flat_map(|x| x.0)
        .take(max_report)
        .collect();
    Ok((list, total))
}

/// The first entry of a level that differs from the level rebuilt in
/// memory, and how many differ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebuildMismatch {
    /// Entries that differ.
    pub count: u64,
    /// The first (lowest rank): stored bounds and the rebuilt ones
    /// (the least and greatest fixpoints) in `recomputed`.
    pub first: Mismatch,
}

/// Rebuilds `level` in memory from the levels below it in `set` (which
/// must cover it) and compares every entry with the table's.
///
/// # Errors
/// [`TableError::Missing`] when `set` does not cover `level`;
/// [`TableError::TooLarge`] for a level beyond the builder; an I/O error
/// when the memory cannot be had.
pub fn compare_with_rebuild<G: Game>(
    set: &TableSet,
    level: u32,
    bar: &dyn Progress,
) -> Result<Option<RebuildMismatch>, TableError> {
    let table = covered(set, level)?;
    let built = retrograde::rebuild::<G>(level, set, bar)?;
    let per_chunk: Vec<(u64, Option<usize>)> = whole_level(table.len() as u64)
        .into_par_iter()
        .map(|r| {
            let differs = |&i: &usize| table.bounds(i) != Some(built.bounds(i));
            let mut idx = (r.start as usize..r.end as usize).filter(differs);
            let first = idx.next();
            (first.map_or(0, |_| 1 + idx.count() as u64), first)
        })
        .collect();
    set.check_damage()?;
    let count = per_chunk.iter().map(|c| c.0).sum();
    let Some(i) = per_chunk.iter().find_map(|c| c.1) else {
        return Ok(None);
    };
    let pits = crate::index::unrank(i as u64, level as usize, G::PITS);
    Ok(Some(RebuildMismatch {
        count,
        first: Mismatch {
            level,
            index: i as u64,
            position: Position {
                pits,
                side: 0,
                opening: 0,
            },
            stored: table.bounds(i).unwrap_or(Bounds {
                lo: POS_INF,
                hi: NEG_INF,
            }),
            recomputed: built.bounds(i),
        },
    }))
}

/// Peak memory of verifying level `l` of a plan in full: its rebuild
/// (what its build needs, [`LevelPlan::peak_bytes`], with the cells of
/// safe mode, which a level with loop-sensitive positions is built again
/// in: [`LevelPlan::safe_work_bytes`]) plus its own file mapped.
pub fn rebuild_peak(l: &LevelPlan) -> u64 {
    l.peak_bytes - l.work_bytes + l.work_bytes.max(l.safe_work_bytes) + l.file_bytes
}

/// The level of `levels` (ascending) whose full verification needs the
/// most memory, and that memory ([`rebuild_peak`]). Levels beyond the
/// builder are passed over: they cannot be rebuilt, and their verdict
/// says so.
///
/// # Errors
/// Those of [`retrograde::plan`].
pub fn verify_peak<G: Game>(levels: &[u32]) -> Result<Option<(u32, u64)>, TableError> {
    let max = retrograde::max_build_level::<G>();
    let buildable = || levels.iter().copied().filter(|&n| n <= max);
    let Some(top) = buildable().next_back() else {
        return Ok(None);
    };
    let plan = retrograde::plan::<G>(top)?;
    Ok(buildable()
        .map(|n| (n, rebuild_peak(&plan[n as usize])))
        .max_by_key(|x| x.1))
}

/// Options of [`verify_dir`].
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Mismatches kept per level (all are counted).
    pub max_report: usize,
    /// Recompute only about this many entries per level (see
    /// [`verify_sample`]) against their successors, and do not rebuild
    /// the levels; `None` checks every entry and rebuilds every level.
    /// Headers, checksums and value ranges are always checked in full.
    pub sample: Option<u64>,
    /// Memory budget in bytes of the full verification (the rebuild of
    /// the largest level): refused before anything is allocated when over.
    pub memory: u64,
}

impl Default for VerifyOptions {
    fn default() -> Self {
        VerifyOptions {
            max_report: 5,
            sample: None,
            memory: u64::MAX,
        }
    }
}

/// What verification found for one level.
#[derive(Debug)]
pub enum LevelOutcome {
    /// Header, checksum and value ranges are right, every entry checked
    /// (all of them, or a sample) agrees with its successors, and, unless
    /// sampled, the level equals its rebuild.
    Ok {
        /// Entries of the level.
        entries: u64,
        /// Entries checked against their successors (`entries` unless
        /// sampled).
        checked: u64,
        /// Whether the level was rebuilt and found equal: the stored `lo`
        /// and `hi` are then the least and greatest fixpoints.
        fixpoints: bool,
    },
    /// Entries differ from their successors: the table is wrong.
    Mismatches {
        /// How many entries differ.
        count: u64,
        /// The first few, in rank order.
        first: Vec<Mismatch>,
    },
    /// Every entry agrees with its successors, but the level differs from
    /// its rebuild: the file holds another solution of the equations, not
    /// the least `lo` and the greatest `hi`.
    NotFixpoints(RebuildMismatch),
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
    /// Files named for a level above the game's seeds: never opened nor
    /// walked to, each a failure.
    pub strays: Vec<TableError>,
}

impl DirReport {
    /// True when every level present verified: no mismatch, no hole, no
    /// bad or stray file. (Vacuously true for an empty report; a caller
    /// that needs tables checks [`DirReport::levels`] too.)
    pub fn passed(&self) -> bool {
        self.strays.is_empty() && self.levels.iter().all(LevelVerdict::ok)
    }

    /// Levels that did not verify (holes and not-recomputed levels
    /// included), and stray files.
    pub fn failures(&self) -> usize {
        self.strays.len() + self.levels.iter().filter(|l| !l.ok()).count()
    }
}

/// Verifies every level of game `G` under `rule` in `dir`, from 0 to the
/// highest level whose file (or shard manifest, [`super::shard`]) is
/// present: each file is opened and checked
/// (header, checksum, value ranges); when every lower level verified, its
/// entries are checked against their successors and, unless sampled, the
/// level is rebuilt in memory and compared entry by entry
/// ([`compare_with_rebuild`]). A level with no file below the highest
/// present one is [`LevelOutcome::Missing`]; a file named for a level above
/// the game's seeds is a stray ([`DirReport::strays`]). `on_level` is told
/// each verdict as soon as it is known (verification of a big level takes
/// long); all of them are returned too.
///
/// # Errors
/// [`TableError::Io`] when `dir` cannot be listed; in full mode,
/// [`TableError::OverBudget`] before anything is allocated when the rebuild
/// of a level present needs more than [`VerifyOptions::memory`]. Every
/// problem with a level's file is a verdict, not an error.
pub fn verify_dir<G: Game>(
    dir: &Path,
    rule: LoopRule,
    opts: &VerifyOptions,
    mut on_level: impl FnMut(&LevelVerdict),
) -> Result<DirReport, TableError> {
    let files = super::locate::levels_present(dir, G::RULES.tables(), rule)?;
    if opts.sample.is_none() {
        check_verify_memory::<G>(&files.levels, opts.memory)?;
    }
    let mut report = DirReport {
        game: G::ID,
        rule,
        levels: Vec::new(),
        strays: files.strays,
    };
    let Some(&top) = files.levels.last() else {
        return Ok(report);
    };
    let mut set = TableSet::empty(G::RULES.tables(), rule);
    let mut first_bad: Option<u32> = None;
    for n in 0..=top {
        let t0 = Instant::now();
        let file = format::level_path(dir, G::RULES.tables(), rule, n);
        // A sharded level's verdict names its manifest.
        let path = super::locate::level_source(dir, G::RULES, rule, n);
        let outcome = match (
            Table::open(&file, G::RULES.tables(), rule, n, G::PITS),
            first_bad,
        ) {
            (Err(TableError::Missing { .. }), _) => LevelOutcome::Missing,
            (Err(e), _) => LevelOutcome::BadFile(e),
            (Ok(t), below) => match (other_forms(dir, G::RULES.tables(), rule, n, &t), below) {
                (Err(e), _) => LevelOutcome::BadFile(e),
                (Ok(()), Some(below)) => LevelOutcome::NotRecomputed { below },
                (Ok(()), None) => {
                    set.push(t);
                    verify_pushed::<G>(&set, n, opts)?
                }
            },
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

/// Opens in full every form of level `n` in `dir` other than the one read
/// (`t`, [`super::locate::locate_level`]'s choice), and checks that each
/// stands for the same level file: a compressed file kept beside its
/// level file is read once the level file is gone, so its damage is a
/// verdict now, not a surprise then.
///
/// # Errors
/// The first other form that does not open in full, or that stands for
/// another level file than `t`, naming it.
fn other_forms(
    dir: &Path,
    rules: crate::rules::RuleSet,
    rule: LoopRule,
    n: u32,
    t: &Table,
) -> Result<(), TableError> {
    use super::locate::LevelAt;
    let forms = super::locate::level_forms(dir, rules, rule, n);
    let Some(read) = forms.first() else {
        return Ok(());
    };
    for f in &forms[1..] {
        let other = match f {
            LevelAt::File(p) => Table::open(p, rules, rule, n, format::pits_of(rules.game()))?,
            LevelAt::Compressed(p) => {
                Table::open_compressed(p, rules, rule, n, super::payload::OpenCheck::Full)?
            }
            LevelAt::Shards(m) => {
                let full = super::payload::OpenCheck::Full;
                Table::of_shards(
                    m,
                    super::shard::open_sharded(m, rules, rule, n, full)?,
                    full,
                )
            }
        };
        if other.raw_header() != t.raw_header() {
            return Err(super::payload::corrupted(
                f.path(),
                format!(
                    "a form of level {n} that disagrees with {}, the form read: they stand for different level files",
                    read.path().display()
                ),
            ));
        }
    }
    Ok(())
}

/// Refuses a full verification of `levels` whose largest rebuild needs
/// more than `budget` bytes (levels beyond the builder are left to their
/// verdicts).
fn check_verify_memory<G: Game>(levels: &[u32], budget: u64) -> Result<(), TableError> {
    match verify_peak::<G>(levels)? {
        Some((level, need)) if need > budget => Err(TableError::OverBudget {
            level,
            need,
            budget,
        }),
        _ => Ok(()),
    }
}

/// Verifies level `n`, the top of `set` (every level below verified):
/// successor consistency (of a sample or of every entry) and, in full, the
/// comparison with its rebuild.
///
/// # Errors
/// None in practice (`set` covers `n`); problems are verdicts.
fn verify_pushed<G: Game>(
    set: &TableSet,
    n: u32,
    opts: &VerifyOptions,
) -> Result<LevelOutcome, TableError> {
    let entries = covered(set, n)?.len() as u64;
    let (first, count, checked) = match opts.sample {
        Some(k) => verify_sample::<G>(set, n, k, opts.max_report)?,
        None => {
            let (m, c) = verify_level::<G>(set, n, opts.max_report)?;
            (m, c, entries)
        }
    };
    if count > 0 {
        return Ok(LevelOutcome::Mismatches { count, first });
    }
    if opts.sample.is_some() {
        return Ok(LevelOutcome::Ok {
            entries,
            checked,
            fixpoints: false,
        });
    }
    Ok(match compare_with_rebuild::<G>(set, n, &NoProgress) {
        Ok(None) => LevelOutcome::Ok {
            entries,
            checked,
            fixpoints: true,
        },
        Ok(Some(m)) => LevelOutcome::NotFixpoints(m),
        Err(e) => LevelOutcome::BadFile(e),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every sample lies within the level, in blocks of [`SAMPLE_BLOCK`],
    /// ascending; the whole level when the blocks would cover it (item 1
    /// of issue 23: a level smaller than a block divided by zero).
    #[test]
    fn sample_ranges_stay_within_every_level() {
        for size in [1u64, 2, 364, 1023, 1024, 1025, 2047, 2048, 5000, 100_000] {
            for sample in [1u64, 100, 1023, 1024, 1025, 3000, 99_999, 200_000] {
                let r = sample_ranges(size, sample, 7);
                let checked: u64 = r.iter().map(|x| x.end - x.start).sum();
                assert!(r.iter().all(|x| x.start < x.end && x.end <= size));
                assert!(r.windows(2).all(|w| w[0].start <= w[1].start));
                if sample.div_ceil(SAMPLE_BLOCK) * SAMPLE_BLOCK >= size {
                    assert_eq!(checked, size, "size {size} sample {sample}");
                } else {
                    assert_eq!(checked, sample.div_ceil(SAMPLE_BLOCK) * SAMPLE_BLOCK);
                }
            }
        }
    }
}
