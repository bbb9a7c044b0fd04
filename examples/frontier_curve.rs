//! Adji-Boto after the opening: how far from the end of the opening (100
//! seeds on the board) the exact frontier is, as a curve of seeds on the
//! board against solve time.
//!
//! For each of three ten-move opening orders a player would use — every
//! pit left to right, right to left, and the estimate engine's choice — the
//! game goes on with the estimate engine playing both sides (a fixed node
//! budget per move, so the line is reproducible) until it ends. Then, from
//! the end of the line backwards, the last position of every seed count
//! is solved exactly (2 threads by default) with a time cap; the walk
//! stops after two seed counts in a row stay unsolved.
//!
//! `cargo run --release --example frontier_curve -- TABLES_DIR [CAP_S] [ENGINE_NODES] [--rules NAME] [--threads N]`
//! (defaults 60 s, 200000 nodes, the default rule set, 2 threads); prints
//! Markdown. Under `--rules valdez` the games are played by Valdez's rules
//! (captures from move 3, the early end when a store holds more than 50),
//! and the tables read are the default's, which `valdez` shares.

use std::time::Duration;

use adji::driver::Driver;
use adji::engine::{Engine, EngineOptions};
use adji::eval::Model;
use adji::game::GameId;
use adji::game::{Game, Move, State};
use adji::notation::format_state;
use adji::rules::RuleSet;
use adji::search::{Limits, Options, Searcher};
use adji::tables::TableSet;
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::with_rules;

/// The three opening orders.
const ORDERS: [&str; 3] = ["left to right", "right to left", "engine"];

/// The engine's choice of move in `st` under a node budget.
fn engine_move<G: Game>(tables: &TableSet, model: &Model, st: &State, nodes: u64) -> Option<Move> {
    let opts = EngineOptions {
        rule: LoopRule::Start,
        limits: Limits {
            time: None,
            nodes: Some(nodes),
        },
        max_depth: 200,
    };
    Engine::<G>::new(Some(tables), model, opts)
        .analyse(&st.pos)
        .best()
}

/// Every state of one game: the opening in `order`, then the engine.
fn line<G: Game>(tables: &TableSet, model: &Model, order: &str, nodes: u64) -> Vec<State> {
    let start = State {
        pos: G::start(),
        stores: [0, 0],
    };
    let mut d = Driver::<G>::new(start);
    let mut states = vec![*d.state()];
    while d.result().is_none() {
        let st = *d.state();
        let ml = G::legal_moves(&st.pos);
        let mv = match (st.pos.in_opening(), order) {
            (true, "left to right") => Some(ml.get(0)),
            (true, "right to left") => Some(ml.get(ml.len() - 1)),
            _ => engine_move::<G>(tables, model, &st, nodes),
        };
        let Some(mv) = mv else { break };
        if d.play(mv).is_err() {
            break;
        }
        states.push(*d.state());
    }
    states
}

/// Solves `st` exactly within `cap`: (result, seconds until the value was
/// exact or the cap, nodes of the whole analysis, exact).
fn solve<G: Game>(
    tables: &TableSet,
    pool: &rayon::ThreadPool,
    st: &State,
    cap: u64,
) -> (String, f64, u64, bool) {
    let tt = AtomicTable::new(1024);
    let opts = Options {
        limits: Limits {
            time: Some(Duration::from_secs(cap)),
            nodes: None,
        },
        pv_max: 0,
        ..Options::default()
    };
    let s = Searcher::<G, _>::new(Some(tables), &tt, opts).expect("search options");
    let a = pool.install(|| s.analyse(&st.pos));
    let res = if a.value.exact() {
        format!("exact {:+}", a.value.lower)
    } else {
        format!("bounds [{:+}, {:+}]", a.value.lower, a.value.upper)
    };
    // The analysis goes on to the moves' values after the position's; the
    // curve is about the position's.
    let ms = if a.value.exact() {
        a.value_ms
    } else {
        a.stats.time_ms
    };
    let secs = ms as f64 / 1000.0;
    (res, secs, a.stats.nodes, a.value.exact())
}

/// What the command line asks for.
struct Args {
    dir: String,
    cap: u64,
    nodes: u64,
    threads: usize,
}

const USAGE: &str =
    "usage: frontier_curve TABLES_DIR [CAP_S] [ENGINE_NODES] [--rules NAME] [--threads N]";

fn main() {
    let mut pos = Vec::new();
    let (mut rules, mut threads) = (RuleSet::AdjiBotoDefault, 2);
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        match a.as_str() {
            "--rules" => {
                let name = it.next().expect(USAGE);
                rules = RuleSet::parse(GameId::AdjiBoto, &name).unwrap_or_else(|e| {
                    eprintln!("frontier_curve: {e}");
                    std::process::exit(2)
                });
            }
            "--threads" => threads = it.next().and_then(|t| t.parse().ok()).expect(USAGE),
            _ => pos.push(a),
        }
    }
    let args = Args {
        dir: pos.first().expect(USAGE).clone(),
        cap: pos.get(1).and_then(|a| a.parse().ok()).unwrap_or(60),
        nodes: pos.get(2).and_then(|a| a.parse().ok()).unwrap_or(200_000),
        threads,
    };
    with_rules!(rules, run(&args));
}

/// Prints the curve for the rule set of `G`.
fn run<G: Game>(a: &Args) {
    let (dir, cap, nodes) = (&a.dir, a.cap, a.nodes);
    let tables =
        TableSet::open_available::<G>(std::path::Path::new(dir), LoopRule::Start).expect("tables");
    let model = Model::default_for::<G>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(a.threads)
        .build()
        .unwrap();
    println!(
        "Rules: {}. Tables: Adji-Boto levels 0..={}; cap {cap} s per solve ({} threads, 1 GiB hash); engine {nodes} nodes per move.\n",
        G::RULES.command_line(),
        tables.covered() as i64 - 1,
        a.threads
    );
    println!(
        "| opening order | plies | seeds on the board | position | result | seconds to the value | nodes (whole analysis) |"
    );
    println!("|---|---:|---:|---|---|---:|---:|");
    for order in ORDERS {
        let states = line::<G>(&tables, &model, order, nodes);
        let (mut last_level, mut misses) = (u32::MAX, 0);
        for (ply, st) in states.iter().enumerate().rev() {
            let level = st.pos.level();
            let playable = !st.pos.in_opening() && !G::legal_moves(&st.pos).is_empty();
            if !playable || level == last_level || level < tables.covered() {
                continue;
            }
            last_level = level;
            let (res, secs, n, exact) = solve::<G>(&tables, &pool, st, cap);
            println!(
                "| {order} | {ply} | {level} | `{}` | {res} | {secs:.1} | {n} |",
                format_state::<G>(st)
            );
            misses = if exact { 0 } else { misses + 1 };
            if misses == 2 {
                break;
            }
        }
    }
}
