//! `analyse` (the estimate engine) and `eval train` (fitting the evaluation).

use std::path::PathBuf;

use adji::engine::{Engine, EngineOptions, Estimate};
use adji::eval::train::{train, TrainConfig};
use adji::eval::Model;
use adji::game::{Game, State};
use adji::notation::{format_move, format_state, parse_state, Stores};
use adji::search::Limits;
use adji::tables::TableSet;
use adji::value::Range;
use serde_json::json;

use crate::{CmdResult, GameArg, LoopArg};

/// Options of `analyse`.
#[derive(clap::Args, Debug)]
pub struct AnalyseArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "adjito")]
    pub game: GameArg,
    /// The position (`start` for the starting position).
    #[arg(long, default_value = "start")]
    pub position: String,
    /// Endgame tables directory (used when present).
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Do not use endgame tables.
    #[arg(long)]
    pub no_tables: bool,
    /// Loop rule.
    #[arg(long = "loop", value_enum, default_value = "start")]
    pub rule: LoopArg,
    /// Stop after this many seconds (default 5 when no limit is given).
    #[arg(long)]
    pub time: Option<String>,
    /// Stop after about this many nodes.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Deepest iteration, in plies.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=200))]
    pub depth: Option<u32>,
    /// Evaluation model file (default: the weights shipped in the binary);
    /// `baseline` for the split alone.
    #[arg(long)]
    pub eval: Option<PathBuf>,
    /// Print JSON (the estimate is the field `estimate`, never `value`).
    #[arg(long)]
    pub json: bool,
}

/// Options of `eval train`.
#[derive(clap::Args, Debug)]
pub struct TrainArgs {
    /// The game.
    #[arg(long, value_enum)]
    pub game: GameArg,
    /// Endgame tables directory: the exact values to fit.
    #[arg(long)]
    pub tables: PathBuf,
    /// Loop rule the tables were built with.
    #[arg(long = "loop", value_enum, default_value = "start")]
    pub rule: LoopArg,
    /// Lowest level to sample.
    #[arg(long, default_value_t = 6)]
    pub min_level: u32,
    /// Highest level to sample (default: the highest the tables cover).
    #[arg(long)]
    pub max_level: Option<u32>,
    /// Positions drawn per level.
    #[arg(long, default_value_t = 200_000, value_parser = clap::value_parser!(u64).range(10..=100_000_000))]
    pub per_level: u64,
    /// Seed of the draw (training is deterministic for a fixed seed).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output model file (JSON).
    #[arg(long)]
    pub out: PathBuf,
}

fn load_model<G: Game>(path: Option<&PathBuf>) -> Result<Model, String> {
    match path {
        None => Ok(Model::default_for::<G>()),
        Some(p) if p.as_os_str() == "baseline" => Ok(Model::baseline::<G>()),
        Some(p) => {
            let text = std::fs::read_to_string(p).map_err(|e| format!("{}: {e}", p.display()))?;
            Model::from_json::<G>(&text).map_err(|e| format!("{}: {e}", p.display()))
        }
    }
}

fn open_tables<G: Game>(a: &AnalyseArgs) -> Result<Option<TableSet>, String> {
    if a.no_tables || !a.tables.is_dir() {
        return Ok(None);
    }
    let set = TableSet::open_available::<G>(&a.tables, a.rule.rule()).map_err(|e| e.to_string())?;
    Ok((set.covered() > 0).then_some(set))
}

/// `adji analyse`.
pub fn cmd_analyse<G: Game>(a: &AnalyseArgs) -> CmdResult {
    let st =
        parse_state::<G>(&a.position, Stores::Required).map_err(|e| format!("--position: {e}"))?;
    let model = load_model::<G>(a.eval.as_ref())?;
    let tables = open_tables::<G>(a)?;
    let time = a
        .time
        .as_deref()
        .map(crate::solve::parse_time)
        .transpose()?;
    let limits = Limits {
        time:
            time.or(
                (a.nodes.is_none() && a.depth.is_none()).then(|| std::time::Duration::from_secs(5))
            ),
        nodes: a.nodes,
    };
    let opts = EngineOptions {
        rule: a.rule.rule(),
        limits,
        max_depth: a.depth.unwrap_or(200),
    };
    let mut engine = Engine::<G>::new(tables.as_ref(), &model, opts);
    let est = engine.analyse(&st.pos);
    if a.json {
        println!("{}", report_json::<G>(&st, &est));
    } else {
        print_text::<G>(&st, &est);
    }
    Ok(())
}

fn range_json(r: Range) -> serde_json::Value {
    json!({"lower": r.lower, "upper": r.upper, "exact": r.exact()})
}

/// The JSON report: `estimate` is its own field; `value` appears only when
/// the proven bounds meet.
pub fn report_json<G: Game>(st: &State, e: &Estimate) -> serde_json::Value {
    let mv = |m| format_move::<G>(&st.pos, m);
    json!({
        "game": G::ID.name(),
        "position": format_state::<G>(st),
        "estimate": e.estimate,
        "proven": range_json(e.proven),
        "value": e.exact(),
        "depth": e.depth,
        "best": e.best().map(mv),
        "moves": e.moves.iter().map(|m| json!({
            "move": mv(m.mv),
            "captured": m.captured,
            "estimate": m.estimate,
            "proven": range_json(m.proven),
        })).collect::<Vec<_>>(),
        "iterations": e.infos.iter().map(|i| json!({
            "depth": i.depth,
            "estimate": i.estimate,
            "proven": range_json(i.proven),
            "nodes": i.nodes,
            "time_ms": i.time_ms,
            "pv": line::<G>(st, &i.pv),
        })).collect::<Vec<_>>(),
        "nodes": e.nodes,
        "time_ms": e.time_ms,
    })
}

fn line<G: Game>(st: &State, pv: &[adji::Move]) -> Vec<String> {
    let mut pos = st.pos;
    pv.iter()
        .map(|&m| {
            let s = format_move::<G>(&pos, m);
            pos = G::play_unchecked(&pos, m).pos;
            s
        })
        .collect()
}

fn proven_text(r: Range) -> String {
    if r.exact() {
        format!("exact {:+}", r.lower)
    } else {
        format!("proven [{:+}, {:+}]", r.lower, r.upper)
    }
}

fn print_text<G: Game>(st: &State, e: &Estimate) {
    println!("position: {}", format_state::<G>(st));
    for i in &e.infos {
        println!(
            "info depth {} estimate {:+.2} {} nodes {} time {} ms pv {}",
            i.depth,
            i.estimate,
            proven_text(i.proven),
            i.nodes,
            i.time_ms,
            line::<G>(st, &i.pv).join(" ")
        );
    }
    match e.exact() {
        Some(v) => println!("value: {v:+} (proven exact by the search)"),
        None => println!(
            "estimate: {:+.2} (an estimate, not a value; depth {}); {}",
            e.estimate,
            e.depth,
            proven_text(e.proven)
        ),
    }
    println!("moves (best estimate first):");
    for m in &e.moves {
        let cap = if m.captured > 0 {
            format!("  (captures {})", m.captured)
        } else {
            String::new()
        };
        println!(
            "  {:>4}  estimate {:+7.2}  {}{cap}",
            format_move::<G>(&st.pos, m.mv),
            m.estimate,
            proven_text(m.proven)
        );
    }
    println!("nodes {}, {} ms", e.nodes, e.time_ms);
}

/// `adji eval train`.
pub fn cmd_train<G: Game>(a: &TrainArgs) -> CmdResult {
    let set = TableSet::open_available::<G>(&a.tables, a.rule.rule()).map_err(|e| e.to_string())?;
    if set.covered() == 0 {
        return Err(format!(
            "{}: no {} tables for --loop {}",
            a.tables.display(),
            G::ID,
            a.rule.rule().name()
        ));
    }
    let cfg = TrainConfig {
        min_level: a.min_level,
        max_level: a.max_level.unwrap_or(set.covered() - 1),
        per_level: a.per_level,
        seed: a.seed,
        ..TrainConfig::default()
    };
    eprintln!(
        "{}: training on levels {}..={}, {} positions per level, seed {}",
        G::ID,
        cfg.min_level,
        cfg.max_level,
        cfg.per_level,
        cfg.seed
    );
    let model = train::<G>(&set, &cfg).map_err(|e| e.to_string())?;
    let t = &model.trained;
    println!(
        "trained on {} positions, validated on {}: mean |error| {:.3} (baseline split {:.3}), RMSE {:.3} (baseline {:.3})",
        t.train_positions, t.validation_positions, t.validation_mae, t.baseline_mae, t.validation_rmse, t.baseline_rmse
    );
    let text = serde_json::to_string_pretty(&model).map_err(|e| e.to_string())?;
    adji::fsutil::write_atomic(&a.out, format!("{text}\n").as_bytes())
        .map_err(|e| format!("{}: {e}", a.out.display()))?;
    println!("wrote {}", a.out.display());
    Ok(())
}

/// Options of `match`.
#[derive(clap::Args, Debug)]
pub struct MatchArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "adjito")]
    pub game: GameArg,
    /// Endgame tables directory (used when present).
    #[arg(long, default_value = "tables")]
    pub tables: PathBuf,
    /// Do not use endgame tables.
    #[arg(long)]
    pub no_tables: bool,
    /// Loop rule.
    #[arg(long = "loop", value_enum, default_value = "start")]
    pub rule: LoopArg,
    /// Engine A: seconds per move.
    #[arg(long, conflicts_with = "a_nodes", required_unless_present = "a_nodes")]
    pub a_time: Option<String>,
    /// Engine A: nodes per move (deterministic).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..))]
    pub a_nodes: Option<u64>,
    /// Engine B: seconds per move.
    #[arg(long, conflicts_with = "b_nodes", required_unless_present = "b_nodes")]
    pub b_time: Option<String>,
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
    /// Print JSON.
    #[arg(long)]
    pub json: bool,
}

fn budget(time: Option<&str>, nodes: Option<u64>) -> Result<Limits, String> {
    Ok(Limits {
        time: time.map(crate::solve::parse_time).transpose()?,
        nodes,
    })
}

/// `adji match`.
pub fn cmd_match<G: Game>(a: &MatchArgs) -> CmdResult {
    let model = Model::default_for::<G>();
    let tables = if a.no_tables || !a.tables.is_dir() {
        None
    } else {
        let set =
            TableSet::open_available::<G>(&a.tables, a.rule.rule()).map_err(|e| e.to_string())?;
        (set.covered() > 0).then_some(set)
    };
    let cfg = adji::selfplay::MatchConfig {
        budgets: [
            budget(a.a_time.as_deref(), a.a_nodes)?,
            budget(a.b_time.as_deref(), a.b_nodes)?,
        ],
        openings: a.openings as usize,
        random_plies: a.random_plies,
        seed: a.seed,
        rule: a.rule.rule(),
    };
    let r = adji::selfplay::play_match::<G>(tables.as_ref(), &model, &cfg);
    if a.json {
        println!("{}", serde_json::to_string(&r).map_err(|e| e.to_string())?);
        return Ok(());
    }
    println!(
        "{} games: engine B won {}, drew {}, lost {}; B scored {:.1} of {} points, mean margin {:+.2} seeds",
        r.games.len(),
        r.b_wins,
        r.draws,
        r.b_losses,
        r.b_points,
        r.games.len(),
        r.b_mean_margin
    );
    Ok(())
}
