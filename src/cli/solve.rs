//! `solve` and `bench`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use adji::notation::Stores;
use adji::oracle::{Oracle, Posed, SolveOptions};
use adji::report::SolveReport;
use adji::rules::RuleSet;
use adji::search::Limits;
use adji::tt::AtomicTable;

use crate::args::{
    self, ComputeArgs, GameRulesArgs, JsonArg, MemoryArg, RuleArg, SearchTablesArgs,
    POSITIONS_FILE_HELP,
};
use crate::error::CliError;
use crate::setup::{search_tables, set_threads, tables_text, SearchPlan};
use crate::util::{bar, fmt_bytes};
use crate::{batch, out};

/// Options of `solve`.
#[derive(Args, Debug)]
pub struct SolveArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// The position [default: start].
    #[arg(long, conflicts_with = "positions_file")]
    pub position: Option<String>,
    #[arg(long, help = POSITIONS_FILE_HELP)]
    pub positions_file: Option<PathBuf>,
    #[command(flatten)]
    pub tables: SearchTablesArgs,
    #[command(flatten)]
    pub rule: RuleArg,
    #[command(flatten)]
    pub compute: ComputeArgs,
    /// Stop after this many seconds and report bounds.
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", conflicts_with = "nodes", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Stop after about this many nodes and report bounds.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Also count where the nodes go, per ply from the root of each solve
    /// (nodes, hash probes and cuts, table lookups, first-move cutoffs).
    #[arg(long)]
    pub profile: bool,
    #[command(flatten)]
    pub out: JsonArg,
}

/// `solve`.
pub fn solve(a: &SolveArgs) -> Result<(), CliError> {
    let threads = set_threads(a.compute.threads)?;
    run(a, a.game.rule_set()?, threads)
}

/// What every position of a `solve` shares.
struct Solver<'a> {
    oracle: Oracle,
    tt: &'a AtomicTable,
    opts: SolveOptions,
}

impl Solver<'_> {
    fn analyse(&self, p: &Posed) -> Result<SolveReport, CliError> {
        Ok(self.oracle.solve(p, self.tt, self.opts, None)?.report)
    }
}

fn run(a: &SolveArgs, rules: RuleSet, threads: usize) -> Result<(), CliError> {
    let hash = crate::setup::hash_bytes(a.compute.hash);
    let tables = search_tables(rules, &a.tables, a.rule.rule(), a.compute.memory, hash)?;
    let plan = SearchPlan::new(1, a.compute.hash, tables.as_ref(), a.compute.memory)?;
    out::note(format_args!(
        "{}: hash {} ({} entries), threads {threads}, tables {}; {plan}",
        adji::report::label(rules),
        fmt_bytes(plan.hash_bytes),
        plan.hash_bytes as usize / adji::tt::SLOT_BYTES,
        tables_text(tables.as_ref())
    ));
    let tt = plan.table()?;
    let s = Solver {
        oracle: match tables {
            Some(t) => Oracle::with_set(a.rule.rule(), Arc::new(t))?,
            None => Oracle::new(a.rule.rule()),
        },
        tt: &tt,
        opts: SolveOptions {
            limits: Limits {
                nodes: a.nodes,
                time: a.time.map(Duration::from_secs_f64),
            },
            parallel: threads > 1,
            profile: a.profile,
        },
    };
    let Some(file) = &a.positions_file else {
        let p = a.position.as_deref().unwrap_or("start");
        let p = Posed::parse(rules, p, Stores::Required)?;
        return out::report(&s.analyse(&p)?, a.out.json);
    };
    let lines: Vec<_> = batch::lines(file)?.collect();
    let pb = bar(lines.len() as u64, "positions");
    batch::answer(file, lines, a.out.json, &pb, "solved", |line| {
        let p = Posed::parse(rules, line, Stores::Required).map_err(|e| e.to_string())?;
        s.analyse(&p).map_err(|e| e.to_string())
    })
}

/// Options of `bench`.
#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Transposition table size in MiB per position.
    #[arg(long, allow_negative_numbers = true, value_name = "MIB", default_value_t = 16, value_parser = args::hash_mib())]
    pub hash: usize,
    #[command(flatten)]
    pub out: JsonArg,
}

/// `bench`: one table at a time, within the available memory.
pub fn bench(a: &BenchArgs) -> Result<(), CliError> {
    SearchPlan::new(1, a.hash, None, MemoryArg { memory: None })?;
    out::report(&adji::bench::run(a.hash), a.out.json)
}
