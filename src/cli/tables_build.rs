//! `tables build` on one process: its options, the plan it prints and
//! checks against `--memory` before allocating, and the build with its
//! table of levels. The distributed build (`cluster`, feature `mpi`) uses
//! the same options and plan; `tables` dispatches to either.

use std::path::Path;
use std::time::Instant;

use clap::Args;

use adji::oracle::tables::{
    build_planned, floor_pass, max_level, plan_within, project, project_measured,
};
use adji::rules::RuleSet;
use adji::tables::compressed::Codec;
use adji::tables::retrograde::outofcore::{CellStore, OocConfig, OocReport};
use adji::tables::retrograde::rates::RATES_FILE;
use adji::tables::retrograde::{disk_need, inbox_bytes, plan_peak, LevelPlan, BUILD_PER_FLOOR};
use adji::tables::TableError;

use crate::args::{game_required, GameRulesArgs, MemoryArg, RuleArg, TablesDirArg, ThreadsArg};
use crate::error::CliError;
use crate::out;
use crate::setup::MemoryBudget;
use crate::util::{bar, fmt_bytes, peak_rss, writeback, Bar, Writeback};

/// Options of `tables build`.
#[derive(Args, Debug)]
#[command(mut_args(game_required))]
pub struct BuildArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Build every level from 0 to this many seeds on the board.
    #[arg(long)]
    pub max_seeds: u32,
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub memory: MemoryArg,
    /// After each level, also time a plain pass over all its moves and print the ratio.
    #[arg(long)]
    pub compare_floor: bool,
    /// Compress each level as soon as it is built and checked (its `.adjz`
    /// written as `tables compress` writes it, and checked in full), then
    /// remove its level file or shards: the directory holds one level's
    /// raw form at a time. The next levels read the lower ones compressed;
    /// a rerun keeps the compressed levels and finishes an interrupted one.
    #[arg(long)]
    pub compress: bool,
    /// Take the free disk as this many bytes instead of asking the file
    /// system (for tests of the refusal).
    #[arg(long, hide = true, value_parser = crate::util::parse_size)]
    pub free_disk: Option<u64>,
    /// Build every level above 0 out of core in this many shards (for
    /// tests and measurements; by default only levels over --memory are).
    #[arg(long, value_name = "S", hide = true, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..))]
    pub shards: Option<u32>,
    /// Where out-of-core builds keep the cells of idle shards: `kept`
    /// (mapped files, mapped once and kept mapped to the end of the
    /// level; at Adji-Boto 30 and 34 in 2 shards 0.71–0.86× the wall time of
    /// `mmap`), `mmap` (mapped for each turn, unmapped after it; 2.0× the
    /// in-memory CPU time at Adji-Boto 26 in 2 shards, against 2.8× for
    /// `file`) or `file` (read and written whole).
    #[arg(long, value_name = "HOW", hide = true, default_value = "kept", value_parser = ["file", "mmap", "kept"])]
    pub cells_on_disk: String,
}

impl BuildArgs {
    /// The out-of-core configuration of these options under `budget`
    /// bytes (the plan gives each level's shards).
    pub fn ooc(&self, budget: u64) -> OocConfig {
        OocConfig {
            shards: 1,
            inbox_bytes: inbox_bytes(budget) as usize,
            store: self.store(),
            wide: false,
        }
    }

    /// Where out-of-core levels keep their idle shards' cells.
    pub fn store(&self) -> CellStore {
        match self.cells_on_disk.as_str() {
            "file" => CellStore::File,
            "mmap" => CellStore::Mmap,
            _ => CellStore::Kept,
        }
    }
}

/// The plan of a build within `--memory`: levels over it out of core. A
/// level whose smallest shard does not fit is refused, naming it.
pub fn plan_of(a: &BuildArgs, rules: RuleSet) -> Result<Vec<LevelPlan>, CliError> {
    let budget = MemoryBudget::of(a.memory);
    match plan_within(rules, a.max_seeds, budget.bytes, a.shards) {
        Err(TableError::OverBudget { level, need, .. }) => {
            budget.check(
                need,
                format!("the smallest out-of-core shard of level {level} with its buffers"),
                "raise --memory",
            )?;
            unreachable!("a need over the budget is refused")
        }
        r => Ok(r?),
    }
}

/// Prints the plan of a build and refuses it when over the memory budget.
///
/// A closed standard output does not stop the build: the plan is still
/// checked against `--memory`, and `log` prints nothing more.
pub fn print_plan(
    a: &BuildArgs,
    rules: RuleSet,
    p: &[LevelPlan],
    per: f64,
    log: &mut out::Log,
) -> Result<(), CliError> {
    let mut t = format!(
        "Plan: {} tables, levels 0..={}, loop rule `{}`, in {}\n",
        adji::report::tables_label(rules),
        a.max_seeds,
        a.rule.rule().name(),
        a.dir.dir.display()
    );
    t += "| level | positions | file | shards | working memory | lower levels mapped | peak | scratch disk | projected |\n|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
    for l in p {
        t += &format!(
            "| {} | {} | {} | {} | {} | {} | {} | {} | {:.1} s ({}) |\n",
            l.level,
            l.positions,
            fmt_bytes(l.file_bytes),
            if l.shards > 1 {
                format!("{} out of core", l.shards)
            } else if l.staged && !l.lower_groups.is_empty() {
                format!("in memory, staged, {} groups", l.lower_groups.len())
            } else if l.staged {
                "in memory, staged".into()
            } else {
                "in memory".into()
            },
            fmt_bytes(l.work_bytes),
            fmt_bytes(l.lower_bytes),
            fmt_bytes(l.peak_bytes),
            fmt_bytes(l.scratch_bytes),
            l.projected_secs.unwrap_or(0.0),
            match l.projected_from {
                Some(m) => format!("level {m} here"),
                None => "floor".into(),
            }
        );
    }
    let disk: u64 = p.iter().map(|l| l.file_bytes).sum();
    let scratch = p.iter().map(|l| l.scratch_bytes).max().unwrap_or(0);
    let projected: f64 = p.iter().filter_map(|l| l.projected_secs).sum();
    t += &format!(
        "Disk: {} (and up to {} of scratch cells while a level is built, out of core or in a \
         staged level's forward pass, plus the update records beyond the inboxes' memory). Peak memory: {} (in memory: cells, 2 bytes a position, and \
         frontiers of the level being built, plus the lower levels; staged: the lower levels \
         during the forward pass, whose cells go to scratch disk, then the cells alone; a level with loop-sensitive \
         positions is built again in safe mode, 3 bytes a position, refused beyond --memory; out of core: one shard's cells and \
         frontiers and the inboxes, the lower levels mapped). Projected time if nothing is kept: \
         {projected:.0} s (an estimate: a level marked `level M here` scales the seconds a \
         position that level M took in this directory ({RATES_FILE}, written as levels are built; \
         the nearest of the same form and threads, below first); one marked `floor`, the floor \
         measured now, {:.1} ns/position, times the build/floor ratio {BUILD_PER_FLOOR}, and \
         out-of-core levels take longer by their files' I/O).\n",
        fmt_bytes(disk),
        fmt_bytes(scratch),
        fmt_bytes(plan_peak(p)),
        per * 1e9
    );
    if a.compress {
        let biggest = p.iter().map(|l| l.file_bytes).max().unwrap_or(0);
        t += &format!(
            "Compressed as built (--compress): each level's raw form is removed once its `.adjz` \
             checks, so the disk holds the compressed levels and one level's raw form (at most {}) \
             at a time; the compressed levels are smaller by the codec's ratio (1.8-3.3x on the \
             shipped tables, results/compression.md).\n",
            fmt_bytes(biggest)
        );
    }
    log.print(t)?;
    check_plan(a, p)
}

/// Refuses, before anything is built, a build whose new level files and
/// largest scratch do not fit the free disk of `--dir`
/// ([`disk_need`]); with `--compress`, the compressed files at the ratio
/// of the compressed levels already there (the raw size when there are
/// none). Says the need in the plan.
fn check_disk(
    a: &BuildArgs,
    rules: RuleSet,
    p: &[LevelPlan],
    log: &mut out::Log,
) -> Result<(), CliError> {
    use adji::tables::convert::compress::measured_ratio;
    let (dir, rules, rule) = (&a.dir.dir, rules.tables(), a.rule.rule());
    let present = adji::tables::locate::levels_present(dir, rules, rule)?.levels;
    let ratio = match a.compress {
        true => Some(measured_ratio(dir, rules, rule)?.unwrap_or(1.0)),
        false => None,
    };
    let need = disk_need(p, &present, ratio);
    // The nearest directory that exists tells the file system's free space.
    let mut at = dir.as_path();
    while !at.is_dir() {
        at = at
            .parent()
            .filter(|q| !q.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
    }
    let free = match a.free_disk {
        Some(f) => f,
        None => adji::fsutil::free_bytes(at).map_err(CliError::file(at))?,
    };
    let how = match ratio {
        Some(r) => format!(", the levels compressed at {r:.2}x as they are built"),
        None => String::new(),
    };
    log.print(format_args!(
        "Disk: this run needs {} more in {} ({} level(s) there already{how}; spilled update \
         records not counted), {} free.\n",
        fmt_bytes(need),
        dir.display(),
        present.len(),
        fmt_bytes(free)
    ))?;
    if need > free {
        return Err(CliError::Input(format!(
            "the build needs {} of disk in {} but only {} is free; free some space, build \
             fewer levels (--max-seeds), or compress them as they are built (--compress)",
            fmt_bytes(need),
            dir.display(),
            fmt_bytes(free)
        )));
    }
    Ok(())
}

/// The out-of-core level with the largest shard, and that shard's cells
/// in bytes.
fn biggest_shard(p: &[LevelPlan]) -> Option<(u32, u64)> {
    p.iter()
        .filter(|l| l.shards > 1)
        .map(|l| (l.level, l.scratch_bytes.div_ceil(l.shards.into())))
        .max_by_key(|&(_, bytes)| bytes)
}

/// Dirty-page ages below this let the kernel write mapped scratch cells
/// back during a level's build.
const QUIET_EXPIRE_SECS: f64 = 3600.0;

/// A note for the plan when the kernel will write the mapped scratch cells
/// of the shard `(level, bytes)` back while the build still dirties them:
/// they are more than the background threshold, or dirty pages expire
/// within [`QUIET_EXPIRE_SECS`]. `None` when neither holds.
fn writeback_note(((level, bytes), w): ((u32, u64), Writeback)) -> Option<String> {
    if bytes <= w.background && w.expire_secs >= QUIET_EXPIRE_SECS {
        return None;
    }
    Some(format!(
        "Note: out of core, a shard's cells live in a mapped scratch file ({} a shard at level \
         {level}). The kernel writes dirty pages back past {} ({}) or after {:.0} s, and again \
         each time the build dirties them: measured at Adji-Boto 42, about 1 GB/s of writes and \
         half the CPU in the kernel. As root, `sysctl -w vm.dirty_background_ratio=60 \
         vm.dirty_ratio=85 vm.dirty_expire_centisecs=720000` keeps them in memory (docs/TABLES.md, \
         \"Out of core, one machine\").\n",
        fmt_bytes(bytes),
        fmt_bytes(w.background),
        w.source,
        w.expire_secs
    ))
}

/// Refuses a plan whose peak is over `--memory`, before anything is allocated.
pub fn check_plan(a: &BuildArgs, p: &[LevelPlan]) -> Result<(), CliError> {
    MemoryBudget::of(a.memory).check(
        plan_peak(p),
        "the largest level (or shard) with its frontiers and the lower levels mapped".into(),
        "lower --max-seeds or raise --memory",
    )
}

/// Refuses a `--max-seeds` above the largest level the builder takes
/// (the library's [`max_level`]: the game's every seed).
pub fn check_max_seeds(a: &BuildArgs, rules: RuleSet) -> Result<(), CliError> {
    let max = max_level(rules);
    if a.max_seeds > max {
        return Err(CliError::Input(format!(
            "--max-seeds {} is beyond the builder, which takes {} levels up to level {max}, \
             the game's every seed",
            a.max_seeds,
            rules.game(),
        )));
    }
    Ok(())
}

/// `tables build`.
pub fn build(a: &BuildArgs, rules: RuleSet) -> Result<(), CliError> {
    check_max_seeds(a, rules)?;
    adji::fsutil::dir_or_absent(&a.dir.dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let mut p = plan_of(a, rules)?;
    let per = project(rules, &mut p);
    project_measured(rules, a.rule.rule(), &a.dir.dir, &mut p);
    // The tables are the work, not the text: `| head` never stops a build.
    let mut log = out::Log::default();
    print_plan(a, rules, &p, per, &mut log)?;
    check_disk(a, rules, &p, &mut log)?;
    // One process only: its idle shards' cells are mapped scratch files
    // (by default, kept mapped; or mapped for each turn).
    if a.store() != CellStore::File {
        if let Some(note) = biggest_shard(&p).zip(writeback()).and_then(writeback_note) {
            log.print(note)?;
        }
    }
    let budget = MemoryBudget::of(a.memory).bytes;
    log.print("\n| level | positions | status | forward s | acyclic s (settled) | sweep s | total s | floor s | build/floor | max frontier | peak RSS |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")?;
    let pb = Bar(bar(0, "positions"));
    let t0 = Instant::now();
    // The first failure to write a row (not a closed pipe); the build
    // itself goes on.
    let mut printed = Ok(());
    let ooc = a.ooc(budget);
    let codec = a.compress.then(Codec::chosen);
    let (dir, rule) = (&a.dir.dir, a.rule.rule());
    let res = build_planned(rules, dir, rule, &p, &ooc, codec, &pb, |ev| {
        let n = ev.level;
        let then = ev.compressed.map_or(String::new(), |(raw, z)| {
            format!(
                ", then compressed: {} -> {} ({:.2}x)",
                fmt_bytes(raw),
                fmt_bytes(z),
                raw as f64 / z.max(1) as f64
            )
        });
        let floor = |total: f64| {
            if !a.compare_floor {
                return (String::new(), String::new());
            }
            let t = Instant::now();
            std::hint::black_box(floor_pass(rules, n));
            let f = t.elapsed().as_secs_f64();
            (format!("{f:.3}"), format!("{:.2}", total / f.max(1e-9)))
        };
        let row = match (&ev.report, &ev.ooc) {
            (Some(r), _) => {
                let (floor, ratio) = floor(r.total_secs);
                format!(
                    "| {n} | {} | built{then}{} | {:.3} | {:.3} ({:.0}%) | {:.3} | {:.3} | {floor} | {ratio} | {} | {} |\n",
                    r.positions,
                    if r.safe { " (again in safe mode)" } else { "" },
                    r.forward_secs,
                    r.kahn_secs,
                    100.0 * r.kahn_settled as f64 / r.positions.max(1) as f64,
                    r.sweep_secs,
                    r.total_secs,
                    fmt_bytes(8 * r.max_frontier),
                    fmt_bytes(peak_rss())
                )
            }
            (None, Some(r)) => {
                let (floor, ratio) = floor(r.total_secs);
                ooc_row(r, &floor, &ratio, &then)
            }
            // Opening a kept file checks its header and payload checksum only.
            (None, None) => format!(
                "| {n} | {} | kept (checksum OK){then} | | | | | | | | |\n",
                p[n as usize].positions
            ),
        };
        if printed.is_ok() {
            printed = pb.0.suspend(|| log.print(row));
        }
    });
    pb.0.finish_and_clear();
    res?;
    printed?;
    log.print(format_args!(
        "\nDone in {:.1}s.\n",
        t0.elapsed().as_secs_f64()
    ))
}

/// The row of a level built out of core.
fn ooc_row(r: &OocReport, floor: &str, ratio: &str, then: &str) -> String {
    format!(
        "| {} | {} | built out of core: {} shards, {} rounds, {} turns ({} skipped), {} of updates \
         ({} spilled), {} of cells read and written, CPU {:.2} s{then} | {:.3} | {:.3} | {:.3} | {:.3} | {floor} | {ratio} | | {} |\n",
        r.level,
        r.positions,
        r.shards,
        r.rounds,
        r.turns,
        r.turns_skipped,
        fmt_bytes(r.update_bytes),
        fmt_bytes(r.spilled_bytes),
        fmt_bytes(r.cell_bytes),
        r.cpu_secs,
        r.forward_secs,
        r.kahn_secs,
        r.sweep_secs,
        r.total_secs,
        fmt_bytes(peak_rss())
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(level: u32, positions: u64, shards: u32) -> LevelPlan {
        LevelPlan {
            level,
            positions,
            // the cells of every shard out of core, as the planner counts them
            scratch_bytes: if shards > 1 { 3 * positions } else { 0 },
            file_bytes: 0,
            work_bytes: 0,
            lower_bytes: 0,
            peak_bytes: 0,
            projected_secs: None,
            projected_from: None,
            shards,
            safe_work_bytes: 0,
            budget: u64::MAX,
            staged: false,
            lower_groups: Vec::new(),
        }
    }

    /// The plan warns of writeback only for out-of-core shards past the
    /// kernel's background threshold, or with dirty pages expiring within
    /// the hour, naming the level, the shard's cells and the setting.
    #[test]
    fn the_writeback_note_names_the_shard_and_the_setting() {
        let p = [
            plan(41, 2_505_433_700, 1),
            plan(42, 3_042_312_350, 2),
            plan(43, 100, 2),
        ];
        assert_eq!(biggest_shard(&p), Some((42, 4_563_468_525)));
        assert_eq!(biggest_shard(&p[..1]), None);
        let w = |background: u64, expire_secs: f64| Writeback {
            background,
            source: "vm.dirty_background_ratio = 10".into(),
            expire_secs,
        };
        let note = writeback_note(((42, 4_563_468_525), w(2 << 30, 30.0))).unwrap();
        for part in ["level 42", "4.3 GiB", "2.0 GiB", "ratio = 10", "after 30 s"] {
            assert!(note.contains(part), "{part}: {note}");
        }
        assert!(writeback_note(((42, 6 << 30), w(8 << 30, 30.0))).is_some());
        assert!(writeback_note(((42, 6 << 30), w(4 << 30, 7200.0))).is_some());
        assert_eq!(writeback_note(((42, 6 << 30), w(8 << 30, 7200.0))), None);
    }
}
