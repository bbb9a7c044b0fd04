//! Perft counts kept as data files (`tests/data/*.perft`), shakmaty-style.
//!
//! Rows marked `rules` are the numbers of docs/RULES.md §6; the others were
//! computed by this crate and are kept as regression data. Regenerate the
//! middle-game block with
//! `cargo test --release --test perft -- --ignored --nocapture generate`.

mod common;

use adji::game::Game;
use adji::notation::{format_state, parse_state, Stores};
use adji::perft::{parallel_perft, perft};
use adji::{AdjiBoto, Adjito};

fn check_file<G: Game>(text: &str) -> usize {
    let mut pos = None;
    let mut checked = 0;
    for (ln, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let (key, rest) = line.split_once(' ').unwrap_or((line, ""));
        match key {
            "id" => {}
            "epd" => pos = Some(parse_state::<G>(rest, Stores::Required).unwrap().pos),
            "perft" => {
                let mut it = rest.split_whitespace();
                let d: u32 = it.next().unwrap().parse().unwrap();
                let n: u64 = it.next().unwrap().parse().unwrap();
                let p = pos.expect("perft before epd");
                let got = if n > 100_000 {
                    parallel_perft::<G>(&p, d)
                } else {
                    perft::<G>(&p, d)
                };
                assert_eq!(got, n, "line {}: perft {d}", ln + 1);
                checked += 1;
            }
            _ => panic!("line {}: unknown key {key}", ln + 1),
        }
    }
    checked
}

#[test]
fn adjito_perft_file() {
    let n = check_file::<Adjito>(include_str!("data/adjito.perft"));
    assert!(n >= 30, "only {n} rows");
}

#[test]
fn adjiboto_perft_file() {
    let n = check_file::<AdjiBoto>(include_str!("data/adjiboto.perft"));
    assert!(n >= 30, "only {n} rows");
}

fn generate_for<G: Game>(depth: u32, min_plies: u64, span: u64, min_level: u32, seed: u64) {
    let mut rng = seed;
    let mut made = 0;
    while made < 20 {
        let len = min_plies + common::lcg(&mut rng) % span;
        let choices: Vec<u8> = (0..len).map(|_| common::lcg(&mut rng) as u8).collect();
        let st = common::playout::<G>(&choices);
        if G::legal_moves(&st.pos).is_empty() || st.pos.level() < min_level {
            continue;
        }
        println!("id mid{made:02}\nepd {}", format_state::<G>(&st));
        for d in 1..=depth {
            println!("perft {d} {}", parallel_perft::<G>(&st.pos, d));
        }
        made += 1;
    }
}

#[test]
#[ignore]
fn generate() {
    println!("# adjito");
    generate_for::<Adjito>(6, 4, 24, 24, 7);
    println!("# adjiboto");
    generate_for::<AdjiBoto>(6, 11, 40, 40, 11);
}
