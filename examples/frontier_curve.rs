//! Adji-Boto after the opening: how far from the end of the opening (100
//! seeds on the board) the exact frontier is, as a curve of seeds on the
//! board against solve time.
//!
//! For each of three ten-move opening orders a player would use — every
//! pit left to right, right to left, and the estimate engine's choice — the
//! game goes on with the estimate engine playing both sides (a fixed node
//! budget per move, so the line is reproducible) until it ends. Then, from
//! the end of the line backwards, the last position of every seed count
//! is solved exactly on 2 threads with a time cap; the walk stops after
//! two seed counts in a row stay unsolved.
//!
//! `cargo run --release --example frontier_curve -- TABLES_DIR [CAP_S] [ENGINE_NODES]`
//! (defaults 60 s and 200000 nodes); prints Markdown.

use std::time::Duration;

use adji::driver::Driver;
use adji::engine::{Engine, EngineOptions};
use adji::eval::Model;
use adji::game::{Game, Move, State};
use adji::notation::format_state;
use adji::search::{Limits, Options, Searcher};
use adji::tables::TableSet;
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::AdjiBoto;

type G = AdjiBoto;

/// The three opening orders.
const ORDERS: [&str; 3] = ["left to right", "right to left", "engine"];

/// The engine's choice of move in `st` under a node budget.
fn engine_move(tables: &TableSet, model: &Model, st: &State, nodes: u64) -> Option<Move> {
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
fn line(tables: &TableSet, model: &Model, order: &str, nodes: u64) -> Vec<State> {
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
            _ => engine_move(tables, model, &st, nodes),
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
fn solve(
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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .expect("usage: frontier_curve TABLES_DIR [CAP_S] [ENGINE_NODES]");
    let cap: u64 = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(60);
    let nodes: u64 = args.get(2).and_then(|a| a.parse().ok()).unwrap_or(200_000);
    let tables =
        TableSet::open_available::<G>(std::path::Path::new(dir), LoopRule::Start).expect("tables");
    let model = Model::default_for::<G>();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    println!(
        "Tables: Adji-Boto levels 0..={}; cap {cap} s per solve (2 threads, 1 GiB hash); engine {nodes} nodes per move.\n",
        tables.covered() as i64 - 1
    );
    println!(
        "| opening order | plies | seeds on the board | position | result | seconds to the value | nodes (whole analysis) |"
    );
    println!("|---|---:|---:|---|---|---:|---:|");
    for order in ORDERS {
        let states = line(&tables, &model, order, nodes);
        let (mut last_level, mut misses) = (u32::MAX, 0);
        for (ply, st) in states.iter().enumerate().rev() {
            let level = st.pos.level();
            let playable = !st.pos.in_opening() && !G::legal_moves(&st.pos).is_empty();
            if !playable || level == last_level || level < tables.covered() {
                continue;
            }
            last_level = level;
            let (res, secs, n, exact) = solve(&tables, &pool, st, cap);
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
