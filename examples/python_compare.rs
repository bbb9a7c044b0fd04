//! The Rust side of `results/python.md`: probes and solves per second
//! through the library directly, on the same positions `examples/python_bench.py`
//! times through the Python package.
//!
//! `python_compare GAME TABLES_DIR PROBE_FILE SOLVE_FILE` (one position per
//! line in each file; one thread). Prints one line per measurement.
use std::time::Instant;

use adji::game::Game;
use adji::notation::{parse_state, Stores};
use adji::report::{ProbeReport, SolveReport};
use adji::search::{Options, Searcher};
use adji::tables::TableSet;
use adji::tt::{AtomicTable, TransTable};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito, Position, State};

fn read<G: Game>(file: &str) -> Vec<State> {
    std::fs::read_to_string(file)
        .expect("positions file")
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| parse_state::<G>(l, Stores::Required).expect("position"))
        .collect()
}

fn rate(what: &str, n: usize, t: Instant) {
    let s = t.elapsed().as_secs_f64();
    println!(
        "{what}: {n} in {s:.6} s = {:.0}/s ({:.3} µs each)",
        n as f64 / s,
        s * 1e6 / n as f64
    );
}

fn run<G: Game>(dir: &str, probe_file: &str, solve_file: &str) {
    let set = TableSet::open_available::<G>(dir.as_ref(), LoopRule::Start).expect("tables");
    let probes = read::<G>(probe_file);
    let positions: Vec<Position> = probes.iter().map(|s| s.pos).collect();
    // warm the pages
    let mut sum = 0i64;
    for p in &positions {
        sum += set.value::<G>(p).expect("covered") as i64;
    }
    let t = Instant::now();
    for p in &positions {
        let b = set.bounds::<G>(p).expect("covered");
        sum += (b.value(set.rule.w::<G>(p)) + b.lo + b.hi) as i64;
    }
    rate(
        &format!("{} value+lo+hi (TableSet::bounds)", G::ID),
        positions.len(),
        t,
    );
    let t = Instant::now();
    for p in &positions {
        sum += ProbeReport::new::<G>(&set, p).expect("covered").value as i64;
    }
    rate(
        &format!("{} probe report (ProbeReport::new)", G::ID),
        positions.len(),
        t,
    );
    let solves = read::<G>(solve_file);
    let tt = AtomicTable::new(16);
    let opts = Options {
        parallel: false,
        ..Options::default()
    };
    let t = Instant::now();
    for st in &solves {
        tt.new_generation();
        let s = Searcher::<G, _>::new(Some(&set), &tt, opts).expect("searcher");
        sum += SolveReport::new::<G>(st, &s.analyse(&st.pos)).lower as i64;
    }
    rate(
        &format!("{} solve report, one 16 MiB table reused", G::ID),
        solves.len(),
        t,
    );
    let t = Instant::now();
    for st in &solves {
        let tt = AtomicTable::new(16);
        let s = Searcher::<G, _>::new(Some(&set), &tt, opts).expect("searcher");
        sum += SolveReport::new::<G>(st, &s.analyse(&st.pos)).lower as i64;
    }
    rate(
        &format!("{} solve report, a new 16 MiB table per solve", G::ID),
        solves.len(),
        t,
    );
    println!("checksum {sum}");
}

fn main() {
    let a: Vec<String> = std::env::args().collect();
    match a[1].as_str() {
        "adjito" => run::<Adjito>(&a[2], &a[3], &a[4]),
        _ => run::<AdjiBoto>(&a[2], &a[3], &a[4]),
    }
}
