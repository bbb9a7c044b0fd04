//! Draws reachable positions at given levels by random playouts from the
//! start (uniform legal moves), for test and benchmark data sets.
//!
//! `cargo run --release --example sample_positions -- GAME SEED PER_LEVEL LEVEL...`
//! prints one position per line in the project's notation.

use adji::game::{mix64, Game, State};
use adji::notation::format_state;
use adji::{AdjiBoto, Adjito};

fn sample<G: Game>(seed: u64, per_level: usize, levels: &[u32]) {
    let mut s = seed;
    let mut next = || {
        s = mix64(s.wrapping_add(0x9E37_79B9_7F4A_7C15));
        s
    };
    for &level in levels {
        let mut found = 0;
        while found < per_level {
            let mut st = State {
                pos: G::start(),
                stores: [0, 0],
            };
            while st.pos.level() > level || st.pos.in_opening() {
                let ml = G::legal_moves(&st.pos);
                if ml.is_empty() {
                    break;
                }
                st = st.play::<G>(ml.get((next() % ml.len() as u64) as usize)).0;
            }
            if st.pos.level() == level && !G::legal_moves(&st.pos).is_empty() {
                println!("{}", format_state::<G>(&st));
                found += 1;
            }
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: sample_positions GAME SEED PER_LEVEL LEVEL...";
    let num = |s: &String| {
        s.parse::<u64>()
            .unwrap_or_else(|_| panic!("{usage}: bad number {s}"))
    };
    assert!(args.len() >= 4, "{usage}");
    let (seed, per) = (num(&args[1]), num(&args[2]) as usize);
    let levels: Vec<u32> = args[3..].iter().map(|a| num(a) as u32).collect();
    match args[0].as_str() {
        "adjito" => sample::<Adjito>(seed, per, &levels),
        "adjiboto" => sample::<AdjiBoto>(seed, per, &levels),
        g => panic!("{usage}: unknown game {g}"),
    }
}
