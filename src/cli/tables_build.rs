//! `tables build` on one process: its options, the plan it prints and
//! checks against `--memory` before allocating, and the build with its
//! table of levels. The distributed build (`cluster`, feature `mpi`) uses
//! the same options and plan; `tables` dispatches to either.

use std::time::Instant;

use clap::Args;

use adji::game::Game;
use adji::tables::retrograde::{
    build_tables_within, floor_pass, max_build_level, plan, plan_peak, project, LevelPlan,
    BUILD_PER_FLOOR, LIMIT_REASON,
};

use crate::args::{GameArg, MemoryArg, RuleArg, TablesDirArg, ThreadsArg};
use crate::error::CliError;
use crate::out;
use crate::setup::MemoryBudget;
use crate::util::{bar, fmt_bytes, peak_rss, Bar};

/// Options of `tables build`.
#[derive(Args, Debug)]
pub struct BuildArgs {
    /// The game.
    #[arg(long, value_enum)]
    pub game: GameArg,
    /// The rule set: which reading of the game's rules (`adji rules` lists
    /// them; the README's rules section describes each).
    #[arg(long, value_name = "NAME", default_value = "default")]
    pub rules: String,
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
}

/// Prints the plan of a build and refuses it when over the memory budget.
pub fn print_plan<G: Game>(a: &BuildArgs, p: &[LevelPlan], per: f64) -> Result<(), CliError> {
    let mut t = format!(
        "Plan: {} tables, levels 0..={}, loop rule `{}`, in {}\n",
        adji::report::tables_label(G::RULES),
        a.max_seeds,
        a.rule.rule().name(),
        a.dir.dir.display()
    );
    t += "| level | positions | file | working memory | lower levels mapped | peak | projected |\n|---:|---:|---:|---:|---:|---:|---:|\n";
    for l in p {
        t += &format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} s |\n",
            l.level,
            l.positions,
            fmt_bytes(l.file_bytes),
            fmt_bytes(l.work_bytes),
            fmt_bytes(l.lower_bytes),
            fmt_bytes(l.peak_bytes),
            l.projected_secs.unwrap_or(0.0)
        );
    }
    let disk: u64 = p.iter().map(|l| l.file_bytes).sum();
    let projected: f64 = p.iter().filter_map(|l| l.projected_secs).sum();
    t += &format!(
        "Disk: {}. Peak memory: {} (cells and frontiers of the level being built, plus the lower \
         levels mapped). Projected time if nothing is kept: {projected:.0} s (an estimate: the floor \
         measured now, {:.1} ns/position, times the build/floor ratio {BUILD_PER_FLOOR}).\n",
        fmt_bytes(disk),
        fmt_bytes(plan_peak(p)),
        per * 1e9
    );
    out::print(t)?;
    check_plan(a, p)
}

/// Refuses a plan whose peak is over `--memory`, before anything is allocated.
pub fn check_plan(a: &BuildArgs, p: &[LevelPlan]) -> Result<(), CliError> {
    MemoryBudget::of(a.memory).check(
        plan_peak(p),
        "the largest level with its frontiers and the lower levels mapped".into(),
        "lower --max-seeds or raise --memory",
    )
}

/// Refuses a `--max-seeds` above the largest level the builder takes
/// (the library's [`max_build_level`], which says why).
pub fn check_max_seeds<G: Game>(a: &BuildArgs) -> Result<(), CliError> {
    let max = max_build_level::<G>();
    if a.max_seeds > max {
        return Err(CliError::Input(format!(
            "--max-seeds {} is beyond the builder, which takes {} levels up to level {max}: {LIMIT_REASON}",
            a.max_seeds,
            G::ID
        )));
    }
    Ok(())
}

/// `tables build`.
pub fn build<G: Game>(a: &BuildArgs) -> Result<(), CliError> {
    check_max_seeds::<G>(a)?;
    let mut p = plan::<G>(a.max_seeds)?;
    let per = project::<G>(&mut p);
    print_plan::<G>(a, &p, per)?;
    let budget = MemoryBudget::of(a.memory).bytes;
    out::print("\n| level | positions | status | forward s | acyclic s (settled) | sweep s | total s | floor s | build/floor | max frontier | peak RSS |\n|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")?;
    let pb = Bar(bar(0, "positions"));
    let t0 = Instant::now();
    // The first failure to write a row; the build itself goes on.
    let mut printed = Ok(());
    let res = build_tables_within::<G>(&a.dir.dir, a.rule.rule(), a.max_seeds, budget, &pb, |ev| {
        let n = ev.level;
        let row = match &ev.report {
            // Opening a kept file checks its header and payload checksum only.
            None => format!(
                "| {n} | {} | kept (checksum OK) | | | | | | | | |\n",
                p[n as usize].positions
            ),
            Some(r) => {
                let (floor, ratio) = if a.compare_floor {
                    let t = Instant::now();
                    std::hint::black_box(floor_pass::<G>(n));
                    let f = t.elapsed().as_secs_f64();
                    (
                        format!("{f:.3}"),
                        format!("{:.2}", r.total_secs / f.max(1e-9)),
                    )
                } else {
                    (String::new(), String::new())
                };
                format!(
                    "| {n} | {} | built | {:.3} | {:.3} ({:.0}%) | {:.3} | {:.3} | {floor} | {ratio} | {} | {} |\n",
                    r.positions,
                    r.forward_secs,
                    r.kahn_secs,
                    100.0 * r.kahn_settled as f64 / r.positions.max(1) as f64,
                    r.sweep_secs,
                    r.total_secs,
                    fmt_bytes(8 * r.max_frontier),
                    fmt_bytes(peak_rss())
                )
            }
        };
        if printed.is_ok() {
            printed = pb.0.suspend(|| out::print(row));
        }
    });
    pb.0.finish_and_clear();
    res?;
    printed?;
    out::print(format_args!(
        "\nDone in {:.1}s.\n",
        t0.elapsed().as_secs_f64()
    ))
}
