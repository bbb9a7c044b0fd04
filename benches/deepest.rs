//! Deepest positions solved exactly within 60 s (2 threads, tables from
//! `tables/`). Positions come from fixed-seed random playouts from the start,
//! stopped at the first position with the wanted number of seeds on the
//! board (main phase for Adji-Boto). The analysis solves the position's
//! value first, then its moves' values: a row gives the time until the
//! value was exact, how many moves were exact when the search stopped, and
//! the whole analysis's time. Run:
//! `cargo bench --bench deepest` (writes Markdown to stdout).

use std::time::Duration;

use adji::game::{Game, State};
use adji::notation::format_state;
use adji::search::{Limits, Options, Searcher};
use adji::tables::TableSet;
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

/// The first position of a playout with exactly `level` seeds on the board.
fn position_at<G: Game>(level: u32, seed: u64) -> Option<State> {
    let mut rng = seed;
    for _ in 0..2000 {
        let mut st = State {
            pos: G::start(),
            stores: [0, 0],
        };
        for _ in 0..600 {
            if st.pos.level() == level
                && !st.pos.in_opening()
                && !G::legal_moves(&st.pos).is_empty()
            {
                return Some(st);
            }
            if st.pos.level() < level {
                break;
            }
            let ml = G::legal_moves(&st.pos);
            if ml.is_empty() {
                break;
            }
            st = st.play::<G>(ml.get(lcg(&mut rng) as usize % ml.len())).0;
        }
    }
    None
}

fn run<G: Game>(levels: &[u32], per_level: u64) {
    let tables =
        TableSet::open_available::<G>(std::path::Path::new("tables"), LoopRule::Start).unwrap();
    println!(
        "\n### {} (tables: levels 0..={})\n",
        G::ID.name(),
        tables.covered() as i64 - 1
    );
    println!(
        "| level | position | result | seconds to the value | moves exact | seconds in all | nodes |\n|---:|---|---|---:|---:|---:|---:|"
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap();
    for &level in levels {
        let mut solved_any = false;
        for k in 0..per_level {
            let Some(st) = position_at::<G>(level, 1000 + level as u64 * 10 + k) else {
                continue;
            };
            let tt = AtomicTable::new(1024);
            let opts = Options {
                limits: Limits {
                    time: Some(Duration::from_secs(60)),
                    nodes: None,
                },
                pv_max: 0,
                ..Options::default()
            };
            let s = Searcher::<G, _>::new(Some(&tables), &tt, opts).unwrap();
            let a = pool.install(|| s.analyse(&st.pos));
            let res = if a.value.exact() {
                solved_any = true;
                format!("exact {:+}", a.value.lower)
            } else {
                format!("bounds [{:+}, {:+}]", a.value.lower, a.value.upper)
            };
            let exact_moves = a.moves.iter().filter(|m| m.value.exact()).count();
            println!(
                "| {level} | `{}` | {res} | {:.1} | {exact_moves}/{} | {:.1} | {} |",
                format_state::<G>(&st),
                a.value_ms as f64 / 1000.0,
                a.moves.len(),
                a.stats.time_ms as f64 / 1000.0,
                a.stats.nodes
            );
        }
        if !solved_any {
            break;
        }
    }
}

/// `cargo bench --bench deepest [-- GAME LEVEL…]`: by default both games at
/// their default level lists.
fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let levels: Vec<u32> = args.iter().skip(1).filter_map(|a| a.parse().ok()).collect();
    println!("## Deepest positions solved within 60 s (2 threads, 1 GiB hash)");
    match args.first().map(|s| s.as_str()) {
        Some("adjito") => run::<Adjito>(&levels, 2),
        Some("adjiboto") => run::<AdjiBoto>(&levels, 2),
        _ => {
            run::<Adjito>(&[24, 26, 28, 30, 32, 34, 36, 38, 40, 42, 44, 46], 2);
            run::<AdjiBoto>(&[30, 35, 40, 45, 50, 55, 60], 2);
        }
    }
}
