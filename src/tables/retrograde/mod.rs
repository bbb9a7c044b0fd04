//! The parallel retrograde builder.
//!
//! # Algorithm
//!
//! The value definition of docs/RULES.md §4 gives, per level, `lo` as the least and
//! `hi` as the greatest solution of `lo(p) = max(E(p), −hi(c))`,
//! `hi(p) = max(E(p), −lo(c))` over the quiet moves `p → c`, where `E(p)` is
//! the best exit (a capture, worth `captured − value(child)` from the lower
//! tables, or the game-end split). A level is built in four passes:
//!
//! 1. **Forward pass** (parallel over rank chunks, boards walked in rank
//!    order): `E` and the number of quiet moves (the *counter*) of every
//!    position. Whether a move captures is decided from the counts alone
//!    ([`quiet`]), so quiet moves are only counted, never sown; captures
//!    are played on the packed board and their children ranked from their
//!    prefix sums, and the lookups are batched over 32 positions and
//!    prefetched. A position without quiet moves is settled: `lo = hi = E`.
//! 2. **Acyclic pass** (Kahn's algorithm): a settled position raises its
//!    quiet predecessors' `E_lo` to `−hi` and `E_hi` to `−lo` and decrements
//!    their counters; a counter reaching 0 settles that predecessor with
//!    `lo = E_lo`, `hi = E_hi`. This settles, with one event each, every
//!    position that cannot reach a quiet cycle (most of Adji-Boto, whose
//!    quiet graph is acyclic through level 15 and has only small cycles
//!    above).
//! 3. **Threshold sweep** over what is left, `t = n … −n`. For a threshold
//!    `t`, `{lo ≥ t}` and `{hi ≤ −t}` are the two attractor sets of a
//!    reachability game: `p` enters **W** (`lo(p) ≥ t`) when `E_lo(p) ≥ t` or
//!    a quiet child is in L; `c` enters **L** (`hi(c) ≤ −t`) when
//!    `E_hi(c) ≤ −t` and every unsettled quiet child is in W. Both sets only
//!    grow as `t` falls, so a scan adds positions with `E_lo = t` to W and
//!    positions with `E_hi = −t` and counter 0 to L; then every new W
//!    position decrements its predecessors' counters (a counter reaching 0
//!    with `E_hi ≤ −t` puts that predecessor in L, `hi = −t`), and every new
//!    L position puts its predecessors in W (`lo = t`), until nothing moves.
//!    Per-chunk masks of the exit values present let each scan skip the
//!    chunks that cannot match (few at the top levels, where every chunk
//!    holds every value). A scan takes the level in slabs: it claims a
//!    slab's seeds with the cells held exclusively (a branch-free test,
//!    16 or 8 cells an instruction where the processor has AVX-512 or
//!    AVX2), then runs their events.
//! 4. **Finish**: positions never in W have `lo = −∞`, never in L `hi = +∞`.
//!
//! A position generates its predecessors (un-moves) once if the acyclic
//! pass settles it and at most twice otherwise. Events are handled by the
//! worker that creates them, depth-first from a local stack, in prefetched
//! batches ([`events`]). Boards travel packed into one word (64 bits where
//! every board of the level fits: Adjito to 31 seeds, Adji-Boto to 63;
//! else 128, [`packed::Word`], chosen once per level), so no event
//! unranks: predecessors are generated on the packed board and ranked from
//! all their prefix sums at once ([`preds`]). Only scan seeds and spilled
//! positions are unranked, each from the previous one's prefix sums
//! ([`frontier::Walker`]).
//!
//! # Memory and races
//!
//! One 2-byte cell per position, one atomic word, on transparent huge pages
//! where offered: one value byte `a` (the exit, later the first bound the
//! sweep finds) and the counter (low three bits) with the W and L flags,
//! two pending bits and `HP` ("`hi` is not `a`"). One value byte suffices
//! ([`cell`]): the acyclic pass settles positions with `lo = hi`, and in
//! the sweep `lo` may replace the exit of a position in W; only a
//! loop-sensitive position needs its exit and both bounds at once. A
//! level is built first in **fast mode** (2 bytes a position), which
//! counts the positions whose `hi` replaced their exit and checks after
//! each threshold that every one of them entered W at `hi`; where one did
//! not (a loop-sensitive position, in the default rule sets on Adjito
//! levels 2–6 only), the level is built again in **safe mode**, whose
//! plane of `hi` bytes keeps every exit (3 bytes a position; the parts of
//! the out-of-core and distributed builders always use it). Every update
//! is one atomic operation on the cell word (and a store to the plane
//! byte that only the position's L entry writes). Frontier lists (the
//! local stacks' overflow) hold at most `size / 64` packed boards each,
//! and at most [`FRONTIER_CAP`]; beyond that,
//! positions get a pending bit and their chunk a dirty mark, and the next
//! round collects them. In the acyclic pass the event taking a counter to
//! 0 (one compare-and-swap that also raises the bounds) is the only one to
//! settle that position; in the sweep the event that sets a flag (a
//! compare-and-swap that also writes the bound) or takes a counter to zero
//! is the only writer of that position's bound. Every value written depends only on the level and the
//! threshold, so the result is the same for any thread count and order.
//!
//! The lower levels are copied into anonymous memory on huge pages for
//! the forward pass's random lookups, and their files' cached pages are
//! dropped, so that the cells of the next level find the free memory to be
//! on huge pages too.
//!
//! # Beyond one process's memory
//!
//! Only the forward pass reads the lower levels. A level whose cells and
//! lower levels fit `--memory` one at a time but not together is
//! **staged** ([`staged`], [`LevelPlan::staged`]): its forward pass is
//! written to scratch disk ([`stage_forward`]), the lower levels are
//! released, and the rest is built in memory from the cells read back.
//! The plan ([`plan_within`]) sends a level that does not fit even so
//! (or has 2^40 positions or more) **out of core** ([`outofcore`]): split
//! into shards processed one after another, the lower levels mapped. The
//! distributed builder ([`dist`]) splits a level over ranks. Both run the
//! same steps on one part of a level ([`part`]) and write the level as
//! shards and a manifest ([`crate::tables::shard`]).

mod built;
mod cell;
pub mod dist;
mod driver;
mod events;
mod frontier;
mod level;
mod masks;
pub mod outofcore;
use crate::games::packed;
#[cfg(test)]
mod packed_props;
mod part;
mod plan;
mod preds;
pub mod rates;
mod remote;
mod resume;
mod seeds;
mod staged;

pub use built::BuildEvent;
pub use level::LevelReport;
pub use plan::*;
use resume::{existing, Existing};

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::error::TableError;
use super::format;
use super::lock::BuildLock;
use super::payload::OpenCheck;
use super::set::TableSet;
use super::table::Table;
use crate::game::Game;
use crate::progress::Progress;
use crate::value::LoopRule;

/// Builds level `n` from the lower levels in `lower`. Returns the lo and hi
/// planes and the measurements.
///
/// # Errors
/// [`TableError::TooLarge`] for a level beyond the builder (before any
/// allocation), [`TableError::Missing`] if `lower` does not cover every
/// level below `n`.
pub fn build_level<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
) -> Result<(Vec<u8>, Vec<u8>, LevelReport), TableError> {
    let size = check_size::<G>(n)? as usize;
    build_level_with::<G>(n, lower, bar, &BuildConfig::for_size(size))
}

impl BuildConfig {
    /// The configuration of a level of `size` positions.
    pub fn for_size(size: usize) -> Self {
        BuildConfig {
            cap: frontier_cap(size),
            acyclic_pass: true,
            wide: false,
            safe: false,
            safe_within: None,
            stage: None,
        }
    }
}

/// How a level is built. Tests vary these; the tables never change.
#[derive(Clone, Debug)]
pub struct BuildConfig {
    /// Frontier cap (entries per list; also bounds the workers' local
    /// stacks): a small cap forces the pending-bit path.
    pub cap: usize,
    /// Whether the acyclic pass runs before the sweep (without it the sweep
    /// alone settles every position, as in version 2 of the builder).
    pub acyclic_pass: bool,
    /// Whether the boards are packed into 128 bits even where 64 hold them
    /// (the 64-bit word is used wherever it can be unless this is set).
    pub wide: bool,
    /// Whether the level is built in safe mode at once (cells and a plane
    /// of `hi` bytes, 3 bytes a position), not first in fast mode (2 bytes
    /// a position, built again in safe mode where a loop-sensitive
    /// position needs it: [`cell`]).
    pub safe: bool,
    /// Working bytes a safe rebuild may take (`None`: no bound); beyond
    /// them it is refused ([`TableError::OverBudget`]).
    pub safe_within: Option<u64>,
    /// The scratch file where the forward pass's cells were written
    /// ([`stage_forward`]): the level's forward pass reads them there, and
    /// the lower levels need not be given.
    pub stage: Option<PathBuf>,
}

/// [`build_level`] under an explicit [`BuildConfig`].
///
/// # Errors
/// As [`build_level`].
pub fn build_level_with<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
    config: &BuildConfig,
) -> Result<(Vec<u8>, Vec<u8>, LevelReport), TableError> {
    let (bounds, report) = build_level_bounds::<G>(n, lower, bar, config)?;
    let (lo, hi) = bounds.into_planes();
    Ok((lo, hi, report))
}

/// A level built in memory ([`rebuild`]): the bounds of every position.
pub struct BuiltLevel(level::LevelBounds);

impl BuiltLevel {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// True for an empty level (never: level 0 has one position).
    pub fn is_empty(&self) -> bool {
        self.0.len() == 0
    }

    /// The bounds of the position of rank `i`.
    pub fn bounds(&self, i: usize) -> crate::value::Bounds {
        let (lo, hi) = self.0.bounds(i);
        crate::value::Bounds {
            lo: crate::value::decode_bound(lo as i8),
            hi: crate::value::decode_bound(hi as i8),
        }
    }
}

/// Builds level `n` from the lower levels in `lower` exactly as a table
/// build does, but keeps it in memory (`tables verify` compares it with a
/// file). Needs what the build of the level needs ([`plan`]).
///
/// # Errors
/// As [`build_level`].
pub fn rebuild<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
) -> Result<BuiltLevel, TableError> {
    let config = BuildConfig::for_size(check_size::<G>(n)? as usize);
    Ok(BuiltLevel(
        build_level_bounds::<G>(n, lower, bar, &config)?.0,
    ))
}

/// Builds level `n` (checked like [`build_level`]) into its bounds, the
/// boards packed into 64 bits where they fit unless `config.wide`, else
/// into 128.
fn build_level_bounds<G: Game>(
    n: u32,
    lower: &TableSet,
    bar: &dyn Progress,
    config: &BuildConfig,
) -> Result<(level::LevelBounds, LevelReport), TableError> {
    let size = check_size::<G>(n)? as usize;
    if lower.covered() < n && config.stage.is_none() {
        return Err(TableError::Missing {
            level: lower.covered(),
            path: PathBuf::from("(lower levels)"),
        });
    }
    if packed::packs::<G, u64>(n) && !config.wide {
        build_bounds::<G, u64>(n, size, lower, bar, config)
    } else {
        build_bounds::<G, u128>(n, size, lower, bar, config)
    }
}

/// The passes of [`build_level_bounds`] over level `n` of `size`
/// positions, boards packed into `W`.
fn build_bounds<G: Game, W: packed::Word>(
    n: u32,
    size: usize,
    lower: &TableSet,
    bar: &dyn Progress,
    config: &BuildConfig,
) -> Result<(level::LevelBounds, LevelReport), TableError> {
    let t0 = Instant::now();
    let mut safe = config.safe;
    loop {
        let mut lb = level::LevelBuild::<G, W>::new(n, size, lower, config.cap.max(1), safe)
            .map_err(|e| TableError::Io {
                path: PathBuf::from(format!("(memory for level {n})")),
                source: e,
            })?;
        lb.acyclic = config.acyclic_pass;
        lb.stage.clone_from(&config.stage);
        bar.start(&format!("level {n}"), size as u64);
        driver::run_level(&mut lb, bar)?;
        lower.check_damage()?;
        if lb.lost() {
            // A loop-sensitive position lost its exit in fast mode: the
            // level again, with the plane (never lost).
            drop(lb);
            let need = in_memory_bytes::<G>(n, size as u64, SAFE_CELL_BYTES);
            if let Some(within) = config.safe_within.filter(|&w| need > w) {
                return Err(TableError::OverBudget {
                    level: n,
                    need,
                    budget: within,
                });
            }
            safe = true;
            continue;
        }
        let (bounds, mut report) = lb.finish();
        report.total_secs = t0.elapsed().as_secs_f64();
        report.safe = safe;
        return Ok((bounds, report));
    }
}

/// The forward pass of level `n` from `lower`, its cells written slab by
/// slab to the scratch file at `path` ([`staged`]; `settle` as
/// [`BuildConfig::acyclic_pass`]): the first phase of a staged level, whose
/// build then reads them back with the lower levels released
/// ([`BuildConfig::stage`]). In groups of lower levels
/// ([`LevelPlan::lower_groups`]), pass `pass.0` of `pass.1` counts the
/// captures into `levels` only, and raises the exits the passes before it
/// wrote (a position's exit is the best of its captures'); the last pass
/// settles. Returns the seconds it took.
///
/// # Errors
/// As [`build_level`], and I/O errors naming the file.
pub fn stage_forward<G: Game>(
    n: u32,
    (lower, levels): (&TableSet, &std::ops::RangeInclusive<u32>),
    pass: (usize, usize),
    settle: bool,
    path: &Path,
    bar: &dyn Progress,
) -> Result<f64, TableError> {
    let size = check_size::<G>(n)? as usize;
    if lower.covered() < n.min(levels.end().saturating_add(1)) {
        return Err(TableError::Missing {
            level: lower.covered(),
            path: PathBuf::from("(lower levels)"),
        });
    }
    let t = Instant::now();
    bar.start(&format!("level {n}: forward pass to disk"), size as u64);
    let stage = staged::Stage::open(path, pass.0 == 0)?;
    let how = (levels, pass.0 > 0, settle && pass.0 + 1 == pass.1);
    if packed::packs::<G, u64>(n) {
        stage_slabs::<G, u64>(n, size, lower, how, &stage, bar)?;
    } else {
        stage_slabs::<G, u128>(n, size, lower, how, &stage, bar)?;
    }
    lower.check_damage()?;
    Ok(t.elapsed().as_secs_f64())
}

/// [`stage_forward`] with the boards packed into `W`: the captures into
/// `levels`, merged with the cells written before when `merge`, settled
/// when `settle`.
fn stage_slabs<G: Game, W: packed::Word>(
    n: u32,
    size: usize,
    lower: &TableSet,
    (levels, merge, settle): (&std::ops::RangeInclusive<u32>, bool, bool),
    stage: &staged::Stage,
    bar: &dyn Progress,
) -> Result<(), TableError> {
    let slab = staged::STAGE_SLAB.min(size);
    let (mut buf, mut before) = (vec![0u16; slab], vec![0u16; if merge { slab } else { 0 }]);
    // The dirty marks are taken again from the cells when they are loaded.
    let dirty: Vec<std::sync::atomic::AtomicBool> = (0..slab.div_ceil(frontier::DIRTY_CHUNK))
        .map(|_| Default::default())
        .collect();
    for start in (0..size).step_by(staged::STAGE_SLAB) {
        let len = staged::STAGE_SLAB.min(size - start);
        let words = &mut buf[..len];
        let one = settle && !merge;
        level::forward_cells_within::<G, W>(
            words,
            start as u64,
            n,
            (lower, levels),
            one,
            &dirty,
            bar,
        );
        if merge {
            stage.read(start, &mut before[..len])?;
            cell::merge_exits(words, &before[..len], settle);
        }
        stage.write(start, words)?;
    }
    Ok(())
}

/// The quiet predecessors the builder generates (on packed boards, and
/// ranked) for `boards`: their number and the sum of their ranks. For the
/// benchmark of the sweep's inner loop (`benches/preds.rs`). The boards
/// must be of a level the builder takes ([`check_size`]); others give
/// meaningless counts.
pub fn count_predecessors<G: Game>(boards: &[[u8; crate::game::MAX_PITS]]) -> (u64, u64) {
    let (mut count, mut sum) = (0u64, 0u64);
    for b in boards {
        debug_assert!(check_size::<G>(b.iter().map(|&x| x as u32).sum()).is_ok());
        preds::for_each_pred::<G, u64>(packed::pack::<G, u64>(b), |r, _| {
            count += 1;
            sum = sum.wrapping_add(r);
        });
    }
    (count, sum)
}

/// The boards of ascending `ranks` of level `n` (of a level the builder
/// takes), each found from the one before as the sweep finds its seeds'
/// boards: the wrapping sum of their packed forms. For the benchmark of
/// the sweep's seeds (`benches/preds.rs`).
pub fn walk_ranks<G: Game>(n: u32, ranks: &[u32]) -> u64 {
    let mut sum = 0u64;
    frontier::for_each_board::<G, u64>(0, ranks, n, |_, b: u64| sum = sum.wrapping_add(b));
    sum
}

/// Claims the seeds of threshold `t` among the builder's cell words
/// `words` (bytes `a` and counter and flags, [`cell`]), as the fast
/// sweep's scan does, chunk by chunk; returns how many positions were
/// seeds. For the benchmark of the scans (`benches/preds.rs`).
pub fn claim_cells(words: &mut [u16], t: i32) -> usize {
    words
        .chunks_mut(frontier::DIRTY_CHUNK)
        .map(|ws| seeds::claim_seeds(ws, 0, t, true).0.len())
        .sum()
}

/// A lower level for the builder: copied into anonymous memory on huge
/// pages ([`Table::into_memory`]), where the forward pass's random
/// lookups miss the TLB less than through the file's pages. The file's
/// cached pages are then dropped ([`drop_cached`]).
fn in_memory(t: Table, path: &Path) -> Result<Table, TableError> {
    let t = t.into_memory().map_err(|e| TableError::Io {
        path: path.to_path_buf(),
        source: e,
    })?;
    drop_cached(path);
    Ok(t)
}

/// The lower levels of a level whose forward pass reads them all at once
/// (built in memory, or staged in one group), copied into memory where
/// the run keeps them mapped because a later level reads them in groups
/// (`copy` in [`build_tables_compressed`]). A compressed level read
/// mapped answers through its direct-mapped cache of a few blocks
/// ([`crate::tables::compressed::reader`]), so that the forward pass's
/// random lookups would decode a block each: Adji-Boto 43, staged from
/// the compressed levels 0–42 in a run to 48, had written 3 of its 55
/// slabs after several minutes, and last session 78 % of them in 1.5
/// hours. The plan counts these levels in memory already (its column
/// "lower levels"). Levels already in memory stay as they are.
///
/// # Errors
/// [`TableError::Io`] naming `dir` when the memory cannot be had.
fn lower_in_memory(set: TableSet, dir: &Path) -> Result<TableSet, TableError> {
    set.into_memory().map_err(|e| TableError::Io {
        path: dir.to_path_buf(),
        source: e,
    })
}

/// Asks the kernel to drop the cached pages of the file at `path`, a lower
/// level the builder holds a copy of. Left cached, the lower levels hold
/// their size twice, and the cells of a large level, allocated when little
/// memory is free, fall back to small pages for part of their range: at
/// Adji-Boto level 40 (24 GiB machine), 2.9 GB of the 9.7 GB mapping that
/// holds the cells, where every random access of the sweep then misses the
/// TLB (results/tables.md §2). A hint: failures are ignored.
fn drop_cached(path: &Path) {
    if let Ok(f) = std::fs::File::open(path) {
        staged::drop_pages(&f, 0, 0);
    }
}

/// Builds (or resumes) levels `0..=max` in `dir`, with no memory budget;
/// see [`build_tables_within`].
///
/// # Errors
/// As [`build_tables_within`].
pub fn build_tables<G: Game>(
    dir: &Path,
    rule: LoopRule,
    max: u32,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    build_tables_within::<G>(dir, rule, max, u64::MAX, bar, on_level)
}

/// Builds (or resumes) levels `0..=max` in `dir` within `memory` bytes:
/// [`build_tables_planned`] on [`plan_within`]`(max, memory, None)`, with
/// the cells of idle shards in mapped files, kept mapped across turns
/// ([`outofcore::CellStore::Kept`]).
///
/// # Errors
/// As [`plan_within`] (before anything is built) and
/// [`build_tables_planned`].
pub fn build_tables_within<G: Game>(
    dir: &Path,
    rule: LoopRule,
    max: u32,
    memory: u64,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    let plan = plan_within::<G>(max, memory, None)?;
    let ooc = outofcore::OocConfig {
        shards: 1,
        inbox_bytes: inbox_bytes(memory) as usize,
        store: outofcore::CellStore::Kept,
        wide: false,
    };
    build_tables_planned::<G>(dir, rule, &plan, &ooc, bar, on_level)
}

/// Builds (or resumes) the levels of `plan` in `dir`, each in memory or
/// out of core as planned (`ooc` for the latter; its shard count is the
/// plan's). First takes the directory's build locks, held to the end, and
/// removes the temporary files a killed build left there ([`super::lock`]).
/// Levels whose file opens and checks (header, game, rule, size, checksum)
/// are kept; missing, truncated or corrupt ones are built and written
/// atomically. When some level is out of core, the lower levels are
/// mapped, not copied into memory. `on_level` is told after each level.
///
/// # Errors
/// [`TableError::Locked`] when another build of the same files runs in
/// `dir`; I/O errors; a lower level built under another loop rule or for the
/// other game; something other than a regular file (a FIFO, a directory)
/// in place of a level file.
pub fn build_tables_planned<G: Game>(
    dir: &Path,
    rule: LoopRule,
    plan: &[LevelPlan],
    ooc: &outofcore::OocConfig,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    build_tables_compressed::<G>(dir, rule, plan, ooc, None, bar, on_level)
}

/// [`build_tables_planned`], and with `compress`, each level compressed
/// with that codec as soon as it is built (or kept) and checked: its
/// `.adjz` is written and checked in full against the raw form, which is
/// then removed ([`crate::tables::convert::compress::compress_in_place`]),
/// so that the directory holds at most one level's raw files at a time.
/// The next levels read the lower ones in whichever form is there; a
/// resumed build keeps the compressed levels and finishes a level whose
/// raw form an interruption left beside its `.adjz`.
///
/// # Errors
/// As [`build_tables_planned`], and those of compressing a level.
pub fn build_tables_compressed<G: Game>(
    dir: &Path,
    rule: LoopRule,
    plan: &[LevelPlan],
    ooc: &outofcore::OocConfig,
    compress: Option<crate::tables::compressed::Codec>,
    bar: &dyn Progress,
    mut on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    let _lock = BuildLock::acquire(dir, G::RULES, rule)?;
    let compressed = |n: u32| -> Result<Option<(u64, u64)>, TableError> {
        let Some(codec) = compress else {
            return Ok(None);
        };
        let c = crate::tables::convert::compress::compress_in_place(
            dir,
            G::RULES,
            rule,
            n,
            codec,
            &crate::progress::NoProgress,
        )?;
        Ok(c.map(|c| (c.from_bytes, c.to_bytes)))
    };
    // Lower levels copied into memory when every level is built in memory
    // with every lower level at once.
    let copy = plan
        .iter()
        .all(|l| l.shards == 1 && l.lower_groups.is_empty());
    let keep = |t: Table, path: &Path| if copy { in_memory(t, path) } else { Ok(t) };
    let mut set = TableSet::empty(G::RULES.tables(), rule);
    for l in plan {
        let n = l.level;
        let path = format::level_path(dir, G::RULES.tables(), rule, n);
        let mut ev = BuildEvent {
            level: n,
            skipped: false,
            replaced: None,
            report: None,
            ooc: None,
            compressed: None,
        };
        match existing::<G>(&path, rule, n)? {
            Existing::Kept(t) => {
                set.push(keep(t, &path)?);
                ev.skipped = true;
                ev.compressed = compressed(n)?;
                on_level(&ev);
                continue;
            }
            Existing::Build(replaced) => ev.replaced = replaced,
        }
        let started = Instant::now();
        if l.shards <= 1 && l.lower_groups.is_empty() && !copy {
            set = lower_in_memory(set, dir)?;
        }
        let lower_mapped = set.mapped_bytes();
        if l.shards <= 1 {
            let mut config = BuildConfig {
                safe_within: Some(l.budget.saturating_sub(l.beside_work())),
                ..BuildConfig::for_size(check_size::<G>(n)? as usize)
            };
            let mut staged_secs = 0.0;
            if l.staged {
                // The first phase with the lower levels, the rest without.
                let path = staged::stage_path(dir, n);
                let settle = config.acyclic_pass;
                if l.lower_groups.is_empty() {
                    let every = 0..=u32::MAX;
                    staged_secs =
                        stage_forward::<G>(n, (&set, &every), (0, 1), settle, &path, bar)?;
                }
                set = TableSet::empty(G::RULES.tables(), rule);
                for (i, &(a, b)) in l.lower_groups.iter().enumerate() {
                    // The group's levels in memory, those below it mapped
                    // and never read.
                    let mut group = TableSet::empty(G::RULES.tables(), rule);
                    for m in 0..=b {
                        let p = format::level_path(dir, G::RULES.tables(), rule, m);
                        let check = [OpenCheck::Header, OpenCheck::Full][(m >= a) as usize];
                        let t =
                            Table::open_checked(&p, G::RULES.tables(), rule, m, G::PITS, check)?;
                        group.push(if m >= a { in_memory(t, &p)? } else { t });
                    }
                    let pass = (i, l.lower_groups.len());
                    staged_secs +=
                        stage_forward::<G>(n, (&group, &(a..=b)), pass, settle, &path, bar)?;
                }
                config.stage = Some(path);
            }
            let built = build_level_bounds::<G>(n, &set, bar, &config);
            if let Some(path) = &config.stage {
                let _ = std::fs::remove_file(path);
            }
            let (bounds, mut report) = built?;
            report.lower_mapped_bytes = lower_mapped * l.lower_groups.is_empty() as u64;
            report.forward_secs += staged_secs;
            report.total_secs += staged_secs;
            format::write_level_with(dir, G::RULES.tables(), rule, n, bounds.len(), &|i| {
                bounds.bounds(i)
            })?;
            ev.report = Some(report);
            if l.staged {
                drop(bounds);
                // The lower levels again, for the next level; after the
                // last one, only mapped for the caller (checked in full
                // already in this run).
                let last = plan.last().is_some_and(|p| p.level == n) || !copy;
                let check = [OpenCheck::Full, OpenCheck::Header][last as usize];
                for m in 0..n {
                    let p = format::level_path(dir, G::RULES.tables(), rule, m);
                    let t = Table::open_checked(&p, G::RULES.tables(), rule, m, G::PITS, check)?;
                    set.push(if last { t } else { keep(t, &p)? });
                }
            }
        } else {
            if ev.replaced.is_some() && std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_file())
            {
                // A bad single file would hide the shards about to be written.
                std::fs::remove_file(&path).map_err(|e| TableError::Io {
                    path: path.clone(),
                    source: e,
                })?;
            }
            let config = outofcore::OocConfig {
                shards: l.shards as usize,
                ..ooc.clone()
            };
            ev.ooc = Some(outofcore::build_level_out_of_core::<G>(
                dir, rule, n, &set, bar, &config,
            )?);
        }
        let t = Table::open(&path, G::RULES.tables(), rule, n, G::PITS)?;
        set.push(keep(t, &path)?);
        // A measurement for the next plans; a build never stops for it.
        let _ = rates::Rates::record(
            dir,
            &format::set_name(G::RULES.tables(), rule),
            n,
            rates::Measured {
                positions: l.positions,
                secs: started.elapsed().as_secs_f64(),
                threads: rayon::current_num_threads(),
                form: rates::Form::of(l).name().into(),
            },
        );
        ev.compressed = compressed(n)?;
        on_level(&ev);
    }
    Ok(set)
}

#[cfg(test)]
mod wide_tests;
