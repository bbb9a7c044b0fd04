//! Draws reachable positions at given levels by random playouts from the
//! start (uniform legal moves), for test and benchmark data sets.
//!
//! `cargo run --release --example sample_positions -- GAME SEED PER_LEVEL LEVEL...`
//! prints one position per line in the project's notation.

use adji::eval::train::{random_playout, PLAYOUT_TRIES};
use adji::game::{mix64, Game};
use adji::notation::format_state;
use adji::{AdjiBoto, Adjito};
use std::io::Write;

fn sample<G: Game>(seed: u64, per_level: usize, levels: &[u32]) {
    let mut s = seed;
    let mut next = || {
        s = mix64(s.wrapping_add(0x9E37_79B9_7F4A_7C15));
        s
    };
    let mut out = std::io::stdout().lock();
    for &level in levels {
        let (mut found, mut tries) = (0, 0u64);
        let most = (per_level as u64)
            .saturating_mul(PLAYOUT_TRIES)
            .max(PLAYOUT_TRIES);
        while found < per_level {
            tries += 1;
            if tries > most {
                eprintln!("level {level}: {found} positions in {most} playouts; giving up");
                break;
            }
            let st = random_playout::<G>(level, &mut next);
            if st.pos.level() == level && !G::legal_moves(&st.pos).is_empty() {
                if writeln!(out, "{}", format_state::<G>(&st)).is_err() {
                    return; // a closed pipe: stop quietly
                }
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
