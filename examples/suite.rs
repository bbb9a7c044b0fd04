//! The search's development suite for `results/search.md`: seven Adjito
//! positions (34–44 seeds) and five Adji-Boto positions (35–50 seeds) of
//! the deepest benchmark, each solved exactly with endgame tables, a fresh
//! generation of one shared transposition table per position, and a node
//! cap per position. Run:
//! `cargo run --release --example suite -- [--tables DIR] [--threads N]
//! [--hash MIB] [--cap NODES] [--off etc,tables,exit,tt,ordering,abdada,root-first]
//! [--game adjito|adjiboto] [--pick I,J,..]` (`--pick`: positions by index,
//! Adjito's 0–6 then Adji-Boto's 7–11).
use adji::game::Game;
use adji::notation::{parse_state, Stores};
use adji::search::{Limits, Options, RootPhase, Searcher};
use adji::tables::TableSet;
use adji::tt::{AtomicTable, TransTable};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

const ADJITO: &[&str] = &[
    "1,9,0,2,2,0/2,5,1,1,0,11 B 11-3",
    "0,0,5,0,3,5/0,0,2,10,1,8 B 2-12",
    "1,1,7,0,0,7/0,3,2,7,3,7 A 4-6",
    "0,7,1,9,1,0/0,0,10,9,0,1 B 5-5",
    "2,0,9,2,7,3/2,7,0,0,7,3 B 1-5",
    "0,9,7,5,5,5/0,4,0,0,0,7 B 6-0",
    "5,0,5,5,5,5/0,4,0,5,5,5 B 4-0",
];
const ADJIBOTO: &[&str] = &[
    "4,3,3,4,0/0,7,4,5,5 1 40-25 main",
    "17,1,1,12,1/1,3,0,4,0 1 48-12 main",
    "10,6,2,3,1/1,8,0,11,3 1 32-23 main",
    "1,4,1,3,4/3,0,11,16,2 0 27-28 main",
    "15,1,5,10,2/0,0,0,15,2 1 17-33 main",
];

struct Config {
    /// Positions to run, by index into the Adjito list then the Adji-Boto
    /// one (all when `None`).
    pick: Option<Vec<usize>>,
    tables: String,
    threads: usize,
    hash: usize,
    opts: Options,
}

/// Solves `list`; prints one line per position (the analysis solves the
/// value first, then every move); returns (nodes, seconds, exact).
fn run<G: Game>(list: &[&str], first: usize, c: &Config) -> (u64, f64, usize) {
    let t = TableSet::open_available::<G>(std::path::Path::new(&c.tables), LoopRule::Start)
        .expect("tables");
    let tt = AtomicTable::new(c.hash);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(c.threads)
        .build()
        .unwrap();
    let (mut nodes, mut secs, mut exact) = (0, 0.0, 0);
    for (i, p) in list.iter().enumerate() {
        if c.pick.as_ref().is_some_and(|v| !v.contains(&(first + i))) {
            continue;
        }
        tt.new_generation();
        let st = parse_state::<G>(p, Stores::Required).unwrap();
        let s = Searcher::<G, _>::new(Some(&t), &tt, c.opts).unwrap();
        let a = pool.install(|| s.analyse(&st.pos));
        println!(
            "| {} | `{p}` | [{:+}, {:+}] | {} | {:.2} | {:.2} |",
            G::ID,
            a.value.lower,
            a.value.upper,
            a.stats.nodes,
            a.value_ms as f64 / 1000.0,
            a.stats.time_ms as f64 / 1000.0
        );
        nodes += a.stats.nodes;
        secs += a.stats.time_ms as f64 / 1000.0;
        exact += a.value.exact() as usize;
    }
    (nodes, secs, exact)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .and_then(|i| args.get(i + 1).cloned())
    };
    let mut opts = Options {
        pv_max: 0,
        limits: Limits {
            nodes: Some(arg("--cap").map_or(40_000_000, |v| v.parse().unwrap())),
            time: None,
        },
        ..Options::default()
    };
    for f in arg("--off").unwrap_or_default().split(',') {
        match f {
            "etc" => opts.etc = false,
            "tables" => opts.use_tables = false,
            "exit" => opts.exit_prune = false,
            "tt" => opts.use_tt = false,
            "ordering" => opts.ordering = false,
            "abdada" => opts.abdada = false,
            "root-first" => opts.root_phase = RootPhase::FromMoves,
            "" => {}
            _ => panic!("unknown technique {f}"),
        }
    }
    let threads = arg("--threads").map_or(1, |v| v.parse().unwrap());
    opts.parallel = threads > 1;
    let c = Config {
        pick: arg("--pick").map(|v| v.split(',').map(|i| i.parse().unwrap()).collect()),
        tables: arg("--tables").unwrap_or("tables".into()),
        threads,
        hash: arg("--hash").map_or(256, |v| v.parse().unwrap()),
        opts,
    };
    println!(
        "| game | position | value | nodes | seconds to the value | seconds |\n|---|---|---|---:|---:|---:|"
    );
    let game = arg("--game");
    let mut total = (0, 0.0, 0);
    for (name, r) in [("adjito", ADJITO), ("adjiboto", ADJIBOTO)] {
        if game.as_deref().is_some_and(|g| g != name) {
            continue;
        }
        let (n, s, e) = if name == "adjito" {
            run::<Adjito>(r, 0, &c)
        } else {
            run::<AdjiBoto>(r, ADJITO.len(), &c)
        };
        total = (total.0 + n, total.1 + s, total.2 + e);
    }
    println!(
        "| total | | {} exact | {} | | {:.2} |",
        total.2, total.0, total.1
    );
}
