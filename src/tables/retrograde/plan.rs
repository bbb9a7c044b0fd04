//! The plan of a build: what each level needs (positions, memory, disk,
//! shards), the sizes each builder takes, and the projected time from
//! the floor pass measured on the spot.

use rayon::prelude::*;

use std::time::Instant;

use crate::game::Game;
use crate::index::level_size;
use crate::tables::error::TableError;
use crate::tables::format;
use crate::tables::walk::level_positions;

use crate::games::packed;

use super::staged;

/// Positions a task of the floor pass walks.
const CHUNK: usize = 1 << 14;

/// What one level needs.
#[derive(Clone, Debug, serde::Serialize)]
pub struct LevelPlan {
    /// Seeds on the board.
    pub level: u32,
    /// Positions (entries).
    pub positions: u64,
    /// Size of the level's file (one byte per position; the few
    /// loop-sensitive exceptions add 8 bytes each).
    pub file_bytes: u64,
    /// Working memory of the build: in memory, the cells ([`CELL_BYTES`]
    /// a position) and the capped frontiers ([`frontier_bytes`]); out of
    /// core, one shard's cells with their plane ([`SAFE_CELL_BYTES`]) and
    /// frontiers ([`FRONTIER_BYTES`] a position), and the inboxes.
    pub work_bytes: u64,
    /// Lower levels mapped while building this one (their file sizes).
    pub lower_bytes: u64,
    /// Peak memory of the level's build: working memory, lower levels
    /// mapped, and [`OVERHEAD_BYTES`].
    pub peak_bytes: u64,
    /// Projected build time in seconds, an estimate (see [`project`] and
    /// [`super::rates`]); `None` until projected.
    pub projected_secs: Option<f64>,
    /// The level measured in the tables' directory that the projection
    /// scales ([`super::rates::project_measured`]); `None` when it comes
    /// from the floor ([`project`]).
    pub projected_from: Option<u32>,
    /// Shards the level is built in: 1 in memory, more out of core
    /// ([`outofcore`]), one after another.
    pub shards: u32,
    /// Disk the build of the level uses besides its file: the cells of
    /// the shards out of core (update records beyond [`inbox_bytes`]
    /// spill to disk too, and are not counted).
    pub scratch_bytes: u64,
    /// Working memory of the level built in memory in safe mode, which a
    /// level with loop-sensitive positions needs after its fast build
    /// ([`super::cell`]): [`SAFE_CELL_BYTES`] a position and the frontiers.
    pub safe_work_bytes: u64,
    /// The memory the plan was made within (`u64::MAX`: none); a safe
    /// rebuild beyond it is refused.
    pub budget: u64,
    /// Whether the level is built in memory in two phases (the builder's
    /// `staged` module): the
    /// forward pass with the lower levels, its cells written to scratch
    /// disk, then the rest with the lower levels released. Its peak is the
    /// larger phase, not their sum.
    pub staged: bool,
    /// The groups of lower levels (first and last level of each) whose
    /// captures a staged level's forward pass counts one group at a time,
    /// each group alone in memory; empty for a pass with every lower
    /// level at once.
    pub lower_groups: Vec<(u32, u32)>,
}

impl LevelPlan {
    /// Memory the level's build takes beside its working memory at the
    /// time a safe rebuild would run: the lower levels and
    /// [`OVERHEAD_BYTES`] in memory, the overhead alone when staged (the
    /// lower levels are released by then).
    pub fn beside_work(&self) -> u64 {
        match self.staged {
            true => OVERHEAD_BYTES,
            false => self.peak_bytes.saturating_sub(self.work_bytes),
        }
    }
}

/// Bytes per position of a level's cells built in memory (fast mode,
/// [`super::cell`]).
pub const CELL_BYTES: f64 = 2.0;
/// Bytes per position of the cells with their plane of `hi` bytes (safe
/// mode): out of core, distributed, and a level built again in memory.
pub const SAFE_CELL_BYTES: f64 = 3.0;
/// Bytes per position the frontiers of a part may take at most: two
/// kinds, input and output, each of `positions / 64` entries of 8 bytes.
pub const FRONTIER_BYTES: f64 = 0.5;
/// Most entries of one frontier list in memory (its overflow goes to the
/// cells' pending bits): 32 MiB of 8-byte boards.
pub const FRONTIER_CAP: usize = 1 << 22;
/// Working bytes per position of level `n` built in parts (out of core or
/// distributed): its cell and plane ([`SAFE_CELL_BYTES`]) and its share of
/// the frontiers ([`FRONTIER_BYTES`] for entries of 8 bytes, twice that
/// where the level's boards need the 128-bit word).
pub fn work_per_position<G: Game>(n: u32) -> f64 {
    SAFE_CELL_BYTES + FRONTIER_BYTES * words::<G>(n)
}

/// 64-bit words a board of level `n` takes packed: 1, or 2 where 64 bits
/// do not hold every board.
fn words<G: Game>(n: u32) -> f64 {
    if packed::packs::<G, u64>(n) {
        1.0
    } else {
        2.0
    }
}

/// Bytes the frontiers of a level of `positions` built in memory may take
/// at most: two kinds, input and output, each of [`frontier_cap`] entries
/// of 8 bytes a word.
pub fn frontier_bytes<G: Game>(n: u32, positions: u64) -> u64 {
    (4.0 * 8.0 * words::<G>(n)) as u64 * frontier_cap(positions as usize) as u64
}

/// Frontier cap (entries a list) of a level of `size` positions built in
/// memory: `size / 64`, from 2^16 to [`FRONTIER_CAP`].
pub fn frontier_cap(size: usize) -> usize {
    (size / 64).clamp(1 << 16, FRONTIER_CAP)
}

/// Working bytes of level `n` of `positions` built in memory, with cells
/// of `cell` bytes a position ([`CELL_BYTES`] or [`SAFE_CELL_BYTES`]).
pub fn in_memory_bytes<G: Game>(n: u32, positions: u64, cell: f64) -> u64 {
    (cell * positions as f64) as u64 + frontier_bytes::<G>(n, positions)
}

/// Fixed memory on top: program, thread stacks, write buffers.
pub const OVERHEAD_BYTES: u64 = 96 << 20;

/// The plan for levels `0..=max`.
///
/// # Errors
/// [`TableError::TooLarge`] for the first level the builder cannot take,
/// before anything is allocated.
pub fn plan<G: Game>(max: u32) -> Result<Vec<LevelPlan>, TableError> {
    plan_sized::<G>(max, check_size::<G>)
}

/// [`plan`] with the sizes (or refusals) of `size`.
fn plan_sized<G: Game>(
    max: u32,
    size: impl Fn(u32) -> Result<u64, TableError>,
) -> Result<Vec<LevelPlan>, TableError> {
    let mut lower = 0;
    (0..=max)
        .map(|n| {
            let positions = size(n)?;
            let file_bytes = format::HEADER_LEN as u64 + positions;
            let work_bytes = in_memory_bytes::<G>(n, positions, CELL_BYTES);
            let p = LevelPlan {
                level: n,
                positions,
                file_bytes,
                work_bytes,
                lower_bytes: lower,
                peak_bytes: work_bytes + lower + OVERHEAD_BYTES,
                projected_secs: None,
                projected_from: None,
                shards: 1,
                scratch_bytes: 0,
                safe_work_bytes: in_memory_bytes::<G>(n, positions, SAFE_CELL_BYTES),
                budget: u64::MAX,
                staged: false,
                lower_groups: Vec::new(),
            };
            lower += file_bytes;
            Ok(p)
        })
        .collect()
}

/// Fewest positions of a shard out of core: a smaller one would spend
/// its time on the files.
pub const MIN_SHARD: u64 = 1 << 16;

/// Bytes of update records the out-of-core builder holds in memory under
/// a budget of `memory` bytes before spilling them to files: an eighth of
/// what [`OVERHEAD_BYTES`] leaves, from 64 KiB to 1 GiB.
pub fn inbox_bytes(memory: u64) -> u64 {
    (memory.saturating_sub(OVERHEAD_BYTES) / 8).clamp(1 << 16, 1 << 30)
}

/// The plan for levels `0..=max` within `memory` bytes: each level is
/// built in memory when its peak ([`plan`]) fits and its ranks fit 32 bits
/// (a level of the one-process builder, [`max_build_level`]), else out of
/// core in as few shards as fit (`shards`, when given, forces that many
/// for every level above 0). Out of core, the lower levels are mapped, not
/// copied, and the peak is one shard's cells and frontiers, the inboxes'
/// [`inbox_bytes`] and [`OVERHEAD_BYTES`].
///
/// # Errors
/// [`TableError::TooLarge`] for a level beyond even the sharded builder;
/// [`TableError::OverBudget`] for the first level whose smallest shard
/// ([`MIN_SHARD`] positions, or the whole level if smaller) does not fit.
pub fn plan_within<G: Game>(
    max: u32,
    memory: u64,
    shards: Option<u32>,
) -> Result<Vec<LevelPlan>, TableError> {
    let mut lower = 0;
    let mut files = Vec::new();
    (0..=max)
        .map(|n| {
            let positions = check_size_sharded::<G>(n)?;
            let mut l = LevelPlan {
                level: n,
                positions,
                file_bytes: format::HEADER_LEN as u64 + positions,
                work_bytes: in_memory_bytes::<G>(n, positions, CELL_BYTES),
                lower_bytes: lower,
                peak_bytes: 0,
                projected_secs: None,
                projected_from: None,
                shards: 1,
                scratch_bytes: 0,
                safe_work_bytes: in_memory_bytes::<G>(n, positions, SAFE_CELL_BYTES),
                budget: memory,
                staged: false,
                lower_groups: Vec::new(),
            };
            l.peak_bytes = l.work_bytes + lower + OVERHEAD_BYTES;
            lower += l.file_bytes;
            let below = files.clone();
            files.push(l.file_bytes);
            let one = n <= max_build_level::<G>() && shards.is_none();
            if (one && l.peak_bytes <= memory) || n == 0 {
                return Ok(l);
            }
            let s = staged(l.clone(), memory, &below);
            if one && s.peak_bytes <= memory {
                return Ok(s);
            }
            out_of_core(l, memory, shards, work_per_position::<G>(n))
        })
        .collect()
}

/// The in-memory plan `l` staged ([`LevelPlan::staged`]) within `memory`,
/// the files of the levels below being `below`: its peak is the larger of
/// the forward pass (the lower levels and one slab's buffer,
/// [`staged::stage_buffer_bytes`]; where they do not fit, the largest of
/// the [`lower_groups`] that do, and two slabs) and the rest (the working
/// memory), and its scratch disk the forward pass's cells ([`CELL_BYTES`]
/// a position).
fn staged(mut l: LevelPlan, memory: u64, below: &[u64]) -> LevelPlan {
    let mut forward = l.lower_bytes + staged::stage_buffer_bytes(l.positions, false);
    if forward + OVERHEAD_BYTES > memory {
        let buffer = staged::stage_buffer_bytes(l.positions, true);
        let groups = lower_groups(below, memory.saturating_sub(OVERHEAD_BYTES + buffer));
        let sum = |&(a, b): &(u32, u32)| below[a as usize..=b as usize].iter().sum::<u64>();
        forward = groups.iter().map(sum).max().unwrap_or(0) + buffer;
        l.lower_groups = groups;
    }
    l.peak_bytes = forward.max(l.work_bytes) + OVERHEAD_BYTES;
    l.scratch_bytes = (CELL_BYTES * l.positions as f64) as u64;
    l.staged = true;
    l
}

/// The levels whose files are `files` (level 0 first) in groups of
/// consecutive levels, from level 0 up, each of at most `room` bytes
/// where it can be (a level larger than `room` is a group alone).
pub fn lower_groups(files: &[u64], room: u64) -> Vec<(u32, u32)> {
    let mut groups: Vec<(u32, u32)> = Vec::new();
    let mut held = 0;
    for (k, &f) in files.iter().enumerate() {
        match groups.last_mut() {
            Some(g) if held + f <= room => {
                g.1 = k as u32;
                held += f;
            }
            _ => {
                groups.push((k as u32, k as u32));
                held = f;
            }
        }
    }
    groups
}

/// Turns the in-memory plan `l` into an out-of-core one (see
/// [`plan_within`]), `per` working bytes a position.
fn out_of_core(
    mut l: LevelPlan,
    memory: u64,
    shards: Option<u32>,
    per: f64,
) -> Result<LevelPlan, TableError> {
    let fixed = OVERHEAD_BYTES + inbox_bytes(memory);
    let least = l.positions.min(MIN_SHARD);
    let need = fixed + (per * least as f64) as u64;
    if need > memory {
        return Err(TableError::OverBudget {
            level: l.level,
            need,
            budget: memory,
        });
    }
    let most = (((memory - fixed) as f64 / per) as u64).clamp(least, MAX_SHARD - 1);
    let s = match shards {
        Some(s) => (s as u64).clamp(1, l.positions),
        None => l.positions.div_ceil(most).max(2).min(l.positions),
    };
    let shard = l.positions.div_ceil(s);
    l.shards = s as u32;
    l.work_bytes = (per * shard as f64) as u64 + inbox_bytes(memory);
    l.peak_bytes = l.work_bytes + OVERHEAD_BYTES;
    l.scratch_bytes = (SAFE_CELL_BYTES * l.positions as f64) as u64;
    l.safe_work_bytes = l.work_bytes;
    Ok(l)
}

/// [`plan`] for the sharded builders: levels up to [`max_sharded_level`].
///
/// # Errors
/// [`TableError::TooLarge`] for a level beyond them.
pub fn plan_sharded<G: Game>(max: u32) -> Result<Vec<LevelPlan>, TableError> {
    plan_sized::<G>(max, check_size_sharded::<G>)
}

/// The largest peak of a plan.
pub fn plan_peak(plan: &[LevelPlan]) -> u64 {
    plan.iter().map(|l| l.peak_bytes).max().unwrap_or(0)
}

/// Refuses a plan, before anything is allocated, when a level's peak
/// memory exceeds `budget` bytes.
///
/// # Errors
/// [`TableError::OverBudget`] naming the first such level.
pub fn check_memory(plan: &[LevelPlan], budget: u64) -> Result<(), TableError> {
    match plan.iter().find(|l| l.peak_bytes > budget) {
        Some(l) => Err(TableError::OverBudget {
            level: l.level,
            need: l.peak_bytes,
            budget,
        }),
        None => Ok(()),
    }
}

/// Build time ÷ floor time assumed by [`project`]: the highest ratio
/// measured on this builder's levels ≥ 16, rounded up (results/tables.md
/// §2: 3.99 at Adji-Boto 40 in the third round; 2.3–3.4 on Adjito and
/// 1.7–3.7 on Adji-Boto in the fourth, up to 3.8 in the fifth), so that the
/// projection errs on the long side.
pub const BUILD_PER_FLOOR: f64 = 4.0;

/// Fills in [`LevelPlan::projected_secs`]: the floor's time per position
/// is measured now, on a sample of up to 2^20 positions of the plan's top
/// level with the current thread pool, and multiplied by each level's
/// positions and [`BUILD_PER_FLOOR`]. Returns the measured seconds per
/// position. An estimate: larger levels are slower per position (random
/// accesses miss the caches more).
pub fn project<G: Game>(plan: &mut [LevelPlan]) -> f64 {
    let Some(top) = plan.last() else { return 0.0 };
    let (n, size) = (top.level, top.positions);
    let sample = size.min(1 << 20);
    let start = (size - sample) / 2;
    let t = Instant::now();
    std::hint::black_box(floor_range::<G>(n, start..start + sample));
    let per = t.elapsed().as_secs_f64() / sample.max(1) as f64;
    for l in plan.iter_mut() {
        l.projected_secs = Some(per * l.positions as f64 * BUILD_PER_FLOOR);
    }
    per
}

/// Disk a build of `plan` needs beyond what the directory holds already:
/// the files of the levels not in `present`, and the largest scratch of
/// one level (the cells of its shards out of core; spilled update records
/// are not counted, see [`LevelPlan::scratch_bytes`]). With `compressed`,
/// the ratio at which each level is compressed as it is built
/// (`tables build --compress`): the levels' compressed files, and the
/// largest level's raw form, held until its compressed file checks.
pub fn disk_need(plan: &[LevelPlan], present: &[u32], compressed: Option<f64>) -> u64 {
    let todo = || plan.iter().filter(|l| !present.contains(&l.level));
    let files: u64 = match compressed {
        None => todo().map(|l| l.file_bytes).sum(),
        Some(ratio) => {
            let z: f64 = todo().map(|l| l.file_bytes as f64 / ratio.max(1.0)).sum();
            z as u64 + todo().map(|l| l.file_bytes).max().unwrap_or(0)
        }
    };
    files + todo().map(|l| l.scratch_bytes).max().unwrap_or(0)
}

/// Largest level size the one-process builder takes: its events hold a
/// rank in 40 bits (a 32-bit word and a byte), its seed and pending lists
/// offsets from a chunk's first rank.
pub const MAX_POSITIONS: u64 = 1 << 40;

/// Largest shard of the out-of-core builder, in positions.
pub const MAX_SHARD: u64 = u32::MAX as u64;

/// Why a level is beyond the one-process builder, for messages.
pub const LIMIT_REASON: &str = "its events hold ranks in 40 bits (a level must have fewer \
     than 2^40 positions); the sharded builders (out of core, distributed) take every level of \
     both games";

/// Whether the one-process builder can take level `n`: its ranks fit 40
/// bits (and its boards pack into a [`packed::Word`], as every level's do).
fn fits<G: Game>(n: u32) -> bool {
    let positions = crate::index::try_level_size(n as usize, G::PITS).unwrap_or(u64::MAX);
    positions < MAX_POSITIONS && packed::packs::<G, u128>(n)
}

/// The largest level the builder can take for `G` (every level, 48, for
/// Adjito; 85 for Adji-Boto; see [`LIMIT_REASON`]). Both conditions only fail more as
/// levels grow, so every level up to this one fits. A different limit from
/// the game's seed count ([`format::total_of`]), which bounds the levels a
/// table file can name.
pub fn max_build_level<G: Game>() -> u32 {
    (0..=G::TOTAL)
        .take_while(|&n| fits::<G>(n))
        .last()
        .unwrap_or(0)
}

/// The positions of level `n`, or a refusal when the builder cannot take
/// it (above [`max_build_level`]).
///
/// # Errors
/// [`TableError::TooLarge`].
pub fn check_size<G: Game>(n: u32) -> Result<u64, TableError> {
    let positions = crate::index::try_level_size(n as usize, G::PITS).unwrap_or(u64::MAX);
    if n > max_build_level::<G>() {
        return Err(TableError::TooLarge {
            level: n,
            positions,
            max: max_build_level::<G>(),
            why: LIMIT_REASON,
        });
    }
    Ok(positions)
}

/// The largest level the sharded builders (distributed, out of core) can
/// take for `G`: every level of the game (48 for Adjito, 100 for
/// Adji-Boto). Their ranks and counts are 64-bit, and their boards are
/// packed into 64 bits where every board of the level fits (Adjito to 31,
/// Adji-Boto to 63), else into 128 ([`packed::Word`]).
pub fn max_sharded_level<G: Game>() -> u32 {
    (0..=G::TOTAL)
        .take_while(|&n| packed::packs::<G, u128>(n))
        .last()
        .unwrap_or(0)
}

/// The positions of level `n`, or a refusal when even the sharded
/// builders cannot take it (above [`max_sharded_level`]).
///
/// # Errors
/// [`TableError::TooLarge`].
pub fn check_size_sharded<G: Game>(n: u32) -> Result<u64, TableError> {
    let max = max_sharded_level::<G>();
    let positions = crate::index::try_level_size(n as usize, G::PITS).unwrap_or(u64::MAX);
    if n > max {
        return Err(TableError::TooLarge {
            level: n,
            positions,
            max,
            why: LIMIT_REASON,
        });
    }
    Ok(positions)
}

/// The "floor": one parallel pass that generates and plays every move of
/// every position of level `n`. Returns the number of moves played.
pub fn floor_pass<G: Game>(n: u32) -> u64 {
    floor_range::<G>(n, 0..level_size(n as usize, G::PITS))
}

/// The floor over the positions of ranks `ranks` of level `n`.
fn floor_range<G: Game>(n: u32, ranks: std::ops::Range<u64>) -> u64 {
    let c = CHUNK as u64;
    (ranks.start / c..ranks.end.div_ceil(c))
        .into_par_iter()
        .map(|ci| {
            let mut moves = 0u64;
            let mut sink = 0u64;
            let r = (ci * c).max(ranks.start)..((ci + 1) * c).min(ranks.end);
            for (_, pos) in level_positions::<G>(n, r) {
                for mv in G::legal_moves(&pos).iter() {
                    let p = G::play_unchecked(&pos, mv);
                    sink = sink.wrapping_add(p.pos.pits[0] as u64 + p.captured as u64);
                    moves += 1;
                }
            }
            std::hint::black_box(sink);
            moves
        })
        .sum()
}
