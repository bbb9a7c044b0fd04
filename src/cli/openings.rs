//! `openings`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use clap::Args;
use indicatif::ProgressBar;

use adji::distributed::Comm;
use adji::game::State;
use adji::notation::Stores;
use adji::openings::{max_nodes_for, run_files, Budget, Config};
use adji::oracle::jobs::{self, Leaves};
use adji::oracle::Posed;
use adji::rules::RuleSet;
use adji::search::{Limits, Options};
use adji::tables::TableSet;

use crate::args::GameRulesArgs;
use crate::args::{self, ComputeArgs, RuleArg, SearchTablesArgs};
use crate::error::CliError;
use crate::out;
use crate::setup::{search_tables, set_threads, SearchPlan};
use crate::util::{bar, Bar};

/// The most plies `openings` enumerates.
const MAX_PLIES: i64 = 100;

/// How each position is analysed: exactly one is required.
#[derive(Args, Debug, Clone, Copy)]
#[group(required = true, multiple = false)]
pub struct BudgetArgs {
    /// Exact values, however long it takes.
    #[arg(long)]
    pub exact: bool,
    /// At most this many seconds per position (bounds where unresolved).
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = args::seconds)]
    pub time_per_position: Option<f64>,
    /// At most about this many nodes per position.
    #[arg(long, allow_negative_numbers = true, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes_per_position: Option<u64>,
    /// Plain minimax to D plies per position: proven bounds, exact where
    /// the horizon is never reached (no evaluation is ever used).
    #[arg(long, allow_negative_numbers = true, value_name = "D", value_parser = clap::value_parser!(u32).range(1..=MAX_PLIES))]
    pub depth: Option<u32>,
    /// This many seconds per position: half for the exact search; where the
    /// value stays open, half for the estimate engine, whose estimate is
    /// reported apart from the proven bounds.
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = args::seconds)]
    pub estimate_time: Option<f64>,
}

impl BudgetArgs {
    /// The library's budget.
    fn budget(self) -> Budget {
        match self {
            BudgetArgs { depth: Some(d), .. } => Budget::Depth(d),
            BudgetArgs {
                estimate_time: Some(s),
                ..
            } => Budget::Estimate(s),
            BudgetArgs {
                time_per_position: Some(s),
                ..
            } => Budget::Seconds(s),
            BudgetArgs {
                nodes_per_position: Some(n),
                ..
            } => Budget::Nodes(n),
            _ => Budget::Exact,
        }
    }
}

/// Options of `openings`.
#[derive(Args, Debug)]
pub struct OpeningsArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Plies to enumerate.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=MAX_PLIES))]
    pub plies: u32,
    /// Root of the tree.
    #[arg(long, default_value = "start")]
    pub position: String,
    #[command(flatten)]
    pub tables: SearchTablesArgs,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub budget: BudgetArgs,
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// Output directory [default: openings-<game>-<plies> in the current
    /// directory, openings-<game>-<rules>-<plies> for a rule set other than
    /// the game's default]. One holding another run's checkpoint or reports is
    /// refused unless --resume or --force is given.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Continue from the checkpoint in the output directory.
    #[arg(long)]
    pub resume: bool,
    /// Start afresh in an output directory that holds another run's
    /// checkpoint or reports, replacing them.
    #[arg(long, conflicts_with = "resume")]
    pub force: bool,
    /// Write 0 for wall-clock times, so that reruns give byte-identical files.
    #[arg(long)]
    pub no_timings: bool,
    /// Test hook: stop after this many new results, as if killed.
    #[arg(long, hide = true)]
    pub stop_after: Option<usize>,
}

/// `openings`.
pub fn openings(a: &OpeningsArgs) -> Result<(), CliError> {
    let threads = set_threads(a.compute.threads)?;
    #[cfg(feature = "mpi")]
    if let Some(comm) = crate::cluster::world()? {
        return crate::cluster::on_every_rank(&comm, |c| {
            run_openings(a, a.game.rule_set()?, threads, Some(c))
        });
    }
    run_openings(a, a.game.rule_set()?, threads, None)
}

/// The command line, for the summary (arguments with spaces quoted).
fn command_line() -> String {
    std::iter::once("adji".to_string())
        .chain(std::env::args().skip(1).map(|a| {
            if a.contains(' ') {
                format!("\"{a}\"")
            } else {
                a
            }
        }))
        .collect::<Vec<_>>()
        .join(" ")
}

/// The search limits of a budget.
fn limits(budget: Budget) -> Limits {
    match budget {
        Budget::Exact | Budget::Depth(_) => Limits::default(),
        Budget::Seconds(s) => Limits {
            time: Some(Duration::from_secs_f64(s)),
            nodes: None,
        },
        Budget::Estimate(s) => Limits {
            time: Some(Duration::from_secs_f64(s / 2.0)),
            nodes: None,
        },
        Budget::Nodes(n) => Limits {
            nodes: Some(n),
            time: None,
        },
    }
}

impl OpeningsArgs {
    /// The settings of the run, as the checkpoint and the summary record them.
    fn config(
        &self,
        root: State,
        budget: Budget,
        tables: Option<&TableSet>,
        max_nodes: usize,
    ) -> Config {
        let dir = self.tables.tables.as_deref().unwrap_or("tables".as_ref());
        Config {
            root,
            plies: self.plies,
            rule: self.rule.rule(),
            budget,
            command: command_line(),
            tables: match tables {
                Some(t) => format!("levels 0..={} from `{}`", t.covered() - 1, dir.display()),
                None => "none".to_string(),
            },
            timings: !self.no_timings,
            stop_after: self.stop_after,
            max_nodes,
        }
    }
}

impl OpeningsArgs {
    /// Refuses an output directory holding another run's files, unless
    /// `--resume` or `--force` says what to do with them.
    /// With `--resume`, reports without a checkpoint are refused too: there
    /// is nothing to resume, and they would be overwritten.
    fn check_out(&self, out: &Path) -> Result<(), CliError> {
        adji::fsutil::dir_or_absent(out).map_err(|e| CliError::Input(format!("--out: {e}")))?;
        if self.force {
            return Ok(());
        }
        let found = run_files(out)?;
        let names: Vec<String> = found
            .iter()
            .filter_map(|p| Some(p.file_name()?.to_string_lossy().into_owned()))
            .collect();
        let checkpoint = names.iter().any(|n| n.starts_with("checkpoint"));
        if found.is_empty() || (self.resume && checkpoint) {
            return Ok(());
        }
        if self.resume {
            return Err(CliError::Input(format!(
                "--out {}: holds another run's reports ({}) but no checkpoint to resume; \
                 give --force to replace them, or another --out",
                out.display(),
                names.join(", ")
            )));
        }
        // An interrupted run leaves its checkpoint: say so, and how to go on.
        if checkpoint {
            return Err(CliError::Input(format!(
                "--out {}: holds an unfinished run (its checkpoint: {}); give --resume to \
                 continue it (with the same options), --force to start again, or another --out",
                out.display(),
                names.join(", ")
            )));
        }
        Err(CliError::Input(format!(
            "--out {}: holds another run's reports ({}); give --force to replace them, or \
             another --out",
            out.display(),
            names.join(", ")
        )))
    }
}

/// The output directory when `--out` is not given:
/// `openings-GAME-PLIES`, or `openings-GAME-RULES-PLIES` for a rule set
/// other than the game's default.
fn default_out(rules: RuleSet, plies: u32) -> PathBuf {
    let tag = rules.tag();
    PathBuf::from(format!("openings-{}-{tag}{}", rules.game().name(), plies))
}

/// `openings`, over the ranks of `comm` when given (rank 0 prints).
fn run_openings(
    a: &OpeningsArgs,
    rules: RuleSet,
    threads: usize,
    comm: Option<&dyn Comm>,
) -> Result<(), CliError> {
    let root_rank = comm.is_none_or(|c| c.rank() == 0);
    let root = *Posed::parse(rules, &a.position, Stores::Required)?.state();
    let rule = a.rule.rule();
    // The caches get half of what the hash tables leave; the opening tree
    // may use the other half.
    let hashes = crate::setup::hash_bytes(a.compute.hash).saturating_mul(threads as u64);
    let left = crate::setup::MemoryBudget::of(a.compute.memory)
        .bytes
        .saturating_sub(hashes);
    let tables = search_tables(rules, &a.tables, rule, a.compute.memory, hashes + left / 2)?;
    let plan = SearchPlan::new(threads, a.compute.hash, tables.as_ref(), a.compute.memory)?;
    let out_dir = a.out.clone().unwrap_or_else(|| default_out(rules, a.plies));
    a.check_out(&out_dir)?;
    let budget = a.budget.budget();
    if root_rank {
        out::note(format_args!(
            "{}: {} plies, budget {}, {threads} positions at a time, {plan}; output in {}",
            adji::report::label(rules),
            a.plies,
            budget.describe(),
            out_dir.display()
        ));
    }
    // Fail here, not in a worker, if one table cannot be had.
    drop(plan.table()?);
    // The opening tree may use what the plan leaves of the budget.
    let tree_bytes = plan.budget.bytes.saturating_sub(plan.total());
    let cfg = a.config(root, budget, tables.as_ref(), max_nodes_for(tree_bytes));
    let opts = Options {
        rule,
        limits: limits(budget),
        parallel: false,
        pv_max: 0,
        ..Options::default()
    };
    let leaves = Leaves {
        tables: tables.as_ref(),
        opts,
        budget,
        hash_mib: plan.hash_mib,
    };
    // A projected end only where each position's time is capped.
    let capped = matches!(budget, Budget::Seconds(_) | Budget::Estimate(_));
    let pb = Bar(if !root_rank {
        ProgressBar::hidden()
    } else if capped {
        bar(0, "positions")
    } else {
        crate::util::bar_without_eta(0, "positions")
    });
    let r = jobs::openings(rules, comm, &cfg, &out_dir, a.resume, leaves, &pb);
    pb.0.finish_and_clear();
    // A damaged table entry was never read as a value (the searches went
    // on without it, and stopped); the run is refused all the same.
    if let Some(t) = &tables {
        t.check_damage()?;
    }
    let Some(r) = r? else {
        return Ok(());
    };
    if r.dropped_bytes > 0 {
        let at = r
            .dropped_from
            .map_or(String::new(), |o| format!(" from byte {o} on"));
        out::warn(format_args!("dropped a bad checkpoint tail of {} bytes{at} (a half-written or corrupt frame, and all after it, ignored); those positions were analysed again", r.dropped_bytes));
    }
    summary(&r)
}

/// The closing lines: counts, the root's value, the files written.
fn summary(r: &adji::openings::Report) -> Result<(), CliError> {
    let root = &r.tree.nodes[0];
    let value = if root.value.exact() {
        format!("{:+}", root.value.lower)
    } else {
        format!("between {:+} and {:+}", root.value.lower, root.value.upper)
    };
    out::print(format_args!(
        "{} lines, {} unique positions ({} analysed now); root value {value}\n",
        r.tree.leaves.len(),
        r.tree.unique.len(),
        r.analysed_now,
    ))?;
    for f in &r.files {
        out::print(format_args!("wrote {}\n", f.display()))?;
    }
    Ok(())
}
