//! `analyse` (the estimate engine), `match` (self-play between two budgets)
//! and `eval train` (fitting the evaluation on table values).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::Args;

use adji::eval::train::{Sampling, TrainConfig};
use adji::eval::Model;
use adji::notation::Stores;
use adji::oracle::{jobs, Eval, Oracle, Posed};
use adji::rules::RuleSet;
use adji::search::Limits;
use adji::selfplay::MatchConfig;
use adji::tables::OpenCheck;

use crate::args::{
    self, GameRulesArgs, JsonArg, MemoryArg, PosArgs, RuleArg, SearchTablesArgs, TablesDirArg,
    ThreadsArg,
};
use crate::error::CliError;
use crate::out;
use crate::setup::{
    no_tables_found, search_tables, set_threads, tables_text, MemoryBudget, SearchPlan,
};
use crate::util::fmt_bytes;

/// Help of `analyse --threads`: the estimate search runs on one thread.
const ANALYSE_THREADS_HELP: &str = "Threads that read the endgame tables through when \
they are opened (their checksums) [default: all cores]; the estimate search itself runs on one thread";

/// Options of `analyse`.
#[derive(Args, Debug)]
#[command(mut_arg("threads", |a| a.help(ANALYSE_THREADS_HELP)))]
pub struct AnalyseArgs {
    #[command(flatten)]
    pub pos: PosArgs,
    #[command(flatten)]
    pub tables: SearchTablesArgs,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Stop after this many seconds [default: 5 when no limit is given].
    #[arg(long, allow_negative_numbers = true, value_name = "SECONDS", value_parser = args::seconds)]
    pub time: Option<f64>,
    /// Stop after about this many nodes.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u64).range(1..))]
    pub nodes: Option<u64>,
    /// Deepest iteration, in plies.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub depth: Option<u32>,
    #[command(flatten)]
    pub eval: EvalArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    #[command(flatten)]
    pub memory: MemoryArg,
    #[command(flatten)]
    pub out: JsonArg,
}

/// `--eval`.
#[derive(Args, Debug, Clone)]
pub struct EvalArg {
    /// Evaluation model file [default: the weights shipped in the binary];
    /// `baseline` for the split alone.
    #[arg(long, value_name = "FILE")]
    pub eval: Option<PathBuf>,
}

impl EvalArg {
    /// The model `--eval` names for `rules`'s game.
    fn model(&self, rules: RuleSet) -> Result<Model, CliError> {
        match &self.eval {
            None => Ok(jobs::shipped_model(rules)),
            Some(p) => load_model(rules, "--eval", p),
        }
    }
}

/// The largest `--exclude` file read: about a million positions, one a line.
const EXCLUDE_MAX_BYTES: u64 = 64 << 20;

/// The model named by option `opt`: `baseline`, or a model file read as
/// the library reads one ([`Model::load`]: regular files of bounded size
/// only); an unusable file is refused naming the option.
fn load_model(rules: RuleSet, opt: &str, p: &std::path::Path) -> Result<Model, CliError> {
    jobs::load_model(rules, p).map_err(|e| CliError::Input(format!("{opt} {}: {e}", p.display())))
}

/// `analyse`.
pub fn analyse(a: &AnalyseArgs) -> Result<(), CliError> {
    let threads = set_threads(a.threads)?;
    let rules = a.pos.game.rule_set()?;
    let posed = Posed::parse(rules, &a.pos.position, Stores::Required)?;
    let model = a.eval.model(rules)?;
    let hints = adji::engine::HINT_BYTES;
    let tables = search_tables(rules, &a.tables, a.rule.rule(), a.memory, hints)?;
    let plan = SearchPlan::engine(tables.as_ref(), a.memory)?;
    out::note(format_args!(
        "{}: threads {threads} (reading the tables; the search runs on one), tables {}; {plan}",
        adji::report::label(rules),
        tables_text(tables.as_ref())
    ));
    let default_time = (a.nodes.is_none() && a.depth.is_none()).then_some(5.0);
    let limits = Limits {
        time: a.time.or(default_time).map(Duration::from_secs_f64),
        nodes: a.nodes,
    };
    let oracle = match tables {
        Some(t) => Oracle::with_set(a.rule.rule(), Arc::new(t))?,
        None => Oracle::new(a.rule.rule()),
    };
    let eval = Eval::Model(&model);
    let report = oracle.estimate(&posed, eval, limits, a.depth.unwrap_or(200), None)?;
    out::report(&report, a.out.json)
}

/// Options of `match`.
#[derive(Args, Debug)]
pub struct MatchArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    #[command(flatten)]
    pub tables: SearchTablesArgs,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Engine A: seconds per move.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds, required_unless_present = "a_nodes", conflicts_with = "a_nodes")]
    pub a_time: Option<f64>,
    /// Engine A: nodes per move (deterministic).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub a_nodes: Option<u64>,
    /// Engine B: seconds per move.
    #[arg(long, value_name = "SECONDS", value_parser = args::seconds, required_unless_present = "b_nodes", conflicts_with = "b_nodes")]
    pub b_time: Option<f64>,
    /// Engine B: nodes per move (deterministic).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub b_nodes: Option<u64>,
    /// Openings, each played twice with colours swapped.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub openings: u64,
    /// Random plies from the start before the engines play.
    #[arg(long, default_value_t = 4, value_parser = clap::value_parser!(u32).range(0..=40))]
    pub random_plies: u32,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    #[command(flatten)]
    pub eval: EvalArg,
    /// Engine A's evaluation model file, or `baseline` [default: --eval's].
    #[arg(long, value_name = "FILE")]
    pub a_eval: Option<PathBuf>,
    /// Engine B's evaluation model file, or `baseline` [default: --eval's].
    #[arg(long, value_name = "FILE")]
    pub b_eval: Option<PathBuf>,
    #[command(flatten)]
    pub out: JsonArg,
}

fn budget(time: Option<f64>, nodes: Option<u64>) -> Limits {
    Limits {
        time: time.map(Duration::from_secs_f64),
        nodes,
    }
}

/// `match`.
pub fn matches(a: &MatchArgs) -> Result<(), CliError> {
    let rules = a.game.rule_set()?;
    let of = |opt, e: &Option<PathBuf>| match e {
        Some(p) => load_model(rules, opt, p),
        None => a.eval.model(rules),
    };
    let models = [of("--a-eval", &a.a_eval)?, of("--b-eval", &a.b_eval)?];
    let (memory, hints) = (MemoryArg { memory: None }, 2 * adji::engine::HINT_BYTES);
    let tables = search_tables(rules, &a.tables, a.rule.rule(), memory, hints)?;
    let cfg = MatchConfig {
        budgets: [budget(a.a_time, a.a_nodes), budget(a.b_time, a.b_nodes)],
        openings: a.openings as usize,
        random_plies: a.random_plies,
        seed: a.seed,
        rule: a.rule.rule(),
    };
    let played = jobs::play_match(rules, tables.as_ref(), [&models[0], &models[1]], &cfg);
    // A damaged table entry was never read as a value (the engines
    // searched on, and stopped); the match is refused all the same.
    if let Some(t) = &tables {
        t.check_damage()?;
    }
    out::report(&played, a.out.json)
}

/// Options of `eval train`.
#[derive(Args, Debug)]
#[command(mut_args(args::game_required))]
pub struct TrainArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Endgame tables whose exact values are fitted.
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Lowest level to sample.
    #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=127))]
    pub min_level: u32,
    /// Highest level to sample [default: the highest the tables cover].
    #[arg(long, value_parser = clap::value_parser!(u32).range(0..=127))]
    pub max_level: Option<u32>,
    /// Positions drawn per level.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(10..=100_000_000))]
    pub per_level: u64,
    /// Seed of the draw (training is deterministic for a fixed seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Which positions of a level are drawn: `uniform` (every position
    /// equally likely) or `playouts` (where random games from the start
    /// reach the level, as a search meets them).
    #[arg(long, value_enum, default_value_t = SampleArg::Uniform)]
    pub sample: SampleArg,
    /// Positions never to train or validate on, one per line (text after a
    /// tab is ignored, so a quality-set file can be given as it is). Repeatable.
    #[arg(long, value_name = "FILE")]
    pub exclude: Vec<PathBuf>,
    /// Output model file (JSON).
    #[arg(long)]
    pub out: PathBuf,
    #[command(flatten)]
    pub memory: MemoryArg,
}

/// `eval train --sample`.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum SampleArg {
    /// Every position of a level equally likely.
    Uniform,
    /// Positions random games from the start reach.
    Playouts,
}

impl SampleArg {
    fn sampling(self) -> Sampling {
        match self {
            SampleArg::Uniform => Sampling::Uniform,
            SampleArg::Playouts => Sampling::Playouts,
        }
    }
}

/// The keys of the positions of `rules`'s game in the `--exclude` files.
fn exclusions(rules: RuleSet, files: &[PathBuf]) -> Result<HashSet<u64>, CliError> {
    let mut keys = HashSet::new();
    for p in files {
        let text = adji::fsutil::read_regular_to_string(p, EXCLUDE_MAX_BYTES)
            .map_err(|e| CliError::Input(format!("--exclude {}: {e}", p.display())))?;
        keys.extend(
            jobs::exclusion_keys(rules, &text)
                .map_err(|e| CliError::Input(format!("--exclude {}: {e}", p.display())))?,
        );
    }
    Ok(keys)
}

/// `eval` subcommands.
#[derive(clap::Subcommand, Debug)]
pub enum EvalCommand {
    /// Fit the evaluation on exact table values and write the model (JSON).
    Train(TrainArgs),
}

/// `eval`.
pub fn eval(c: &EvalCommand) -> Result<(), CliError> {
    match c {
        EvalCommand::Train(a) => train(a, a.game.rule_set()?),
    }
}

/// Prints the memory plan of training `cfg` and refuses one over `--memory`.
fn check_plan(rules: RuleSet, cfg: &TrainConfig, memory: MemoryArg) -> Result<(), CliError> {
    let plan = jobs::train_plan(rules, cfg);
    let budget = MemoryBudget::of(memory);
    let parts = format!(
        "{} positions × {} + {} for the fit",
        plan.positions,
        fmt_bytes(plan.bytes_per_position),
        fmt_bytes(plan.fit_bytes)
    );
    out::note(format_args!(
        "{}: levels {}..={}, at most {} positions per level; memory {parts} = {} of {}{}",
        adji::report::label(rules),
        cfg.min_level,
        cfg.max_level,
        cfg.per_level,
        fmt_bytes(plan.bytes()),
        fmt_bytes(budget.bytes),
        budget.origin
    ));
    budget.check(
        plan.bytes(),
        parts,
        "lower --per-level or the levels, or raise --memory",
    )
}

fn train(a: &TrainArgs, rules: RuleSet) -> Result<(), CliError> {
    let dir = &a.dir.dir;
    let set = adji::oracle::tables::open(rules, dir, a.rule.rule(), OpenCheck::Full)?;
    if set.covered() == 0 {
        return Err(CliError::Input(no_tables_found(dir, rules, a.rule.rule())));
    }
    let cfg = TrainConfig {
        min_level: a.min_level,
        max_level: a.max_level.unwrap_or(set.covered() - 1),
        per_level: a.per_level,
        seed: a.seed,
        sampling: a.sample.sampling(),
        exclude: exclusions(rules, &a.exclude)?,
        ..TrainConfig::default()
    };
    check_plan(rules, &cfg, a.memory)?;
    let model = jobs::train(rules, &set, &cfg).map_err(|e| CliError::Input(e.to_string()))?;
    let text = serde_json::to_string_pretty(&model)?;
    adji::fsutil::write_atomic(&a.out, format!("{text}\n").as_bytes())
        .map_err(CliError::file(&a.out))?;
    out::print(format_args!("{model}wrote {}\n", a.out.display()))
}
