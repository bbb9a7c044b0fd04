//! Quiet moves (same level, no capture) and quiet predecessors per position,
//! averaged over a random sample of each level: the sweep of the table
//! builder generates the predecessors of each position it settles twice,
//! the floor plays every move once.
//! `cargo run --release --example quiet_degree -- adjiboto 24,30,40 [SAMPLES]`.
use adji::game::{Game, Position};
use adji::index::{level_size, unrank};
use adji::{AdjiBoto, Adjito};
use std::io::Write;

/// (quiet predecessors, quiet moves, all moves) per position of level `n`,
/// over `k` positions drawn with a fixed xorshift generator.
fn degrees<G: Game>(n: usize, k: u64) -> (f64, f64, f64) {
    let size = level_size(n, G::PITS);
    let (mut preds, mut quiet, mut moves) = (0u64, 0u64, 0u64);
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..k {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        let pos = Position {
            pits: unrank(s % size, n, G::PITS),
            side: 0,
            opening: 0,
        };
        G::for_each_quiet_predecessor(&pos, |_| preds += 1);
        for mv in G::legal_moves(&pos).iter() {
            moves += 1;
            quiet += u64::from(G::play_unchecked(&pos, mv).captured == 0);
        }
    }
    let per = |x: u64| x as f64 / k as f64;
    (per(preds), per(quiet), per(moves))
}

/// The table, one row per level; a closed output ends it quietly.
fn run<G: Game>(levels: &[usize], k: u64) {
    let mut out = std::io::stdout().lock();
    let mut rows = || -> std::io::Result<()> {
        writeln!(
            out,
            "| level | positions | quiet predecessors | quiet moves | all moves |"
        )?;
        writeln!(out, "| ---: | ---: | ---: | ---: | ---: |")?;
        for &n in levels {
            let (p, q, m) = degrees::<G>(n, k);
            let size = level_size(n, G::PITS);
            writeln!(out, "| {n} | {size} | {p:.3} | {q:.3} | {m:.3} |")?;
            out.flush()?;
        }
        Ok(())
    };
    if let Err(e) = rows() {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("quiet_degree: cannot write the table: {e}");
            std::process::exit(1);
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: quiet_degree adjito|adjiboto LEVEL[,LEVEL…] [SAMPLES]";
    let (Some(game), Some(levels)) = (args.first(), args.get(1)) else {
        eprintln!("{usage}");
        std::process::exit(2);
    };
    let Ok(levels) = levels
        .split(',')
        .map(str::parse::<usize>)
        .collect::<Result<Vec<_>, _>>()
    else {
        eprintln!("quiet_degree: levels must be numbers separated by commas: {levels}");
        std::process::exit(2);
    };
    let k = match args.get(2).map(|s| s.parse::<u64>()) {
        None => 1_000_000,
        Some(Ok(k)) if k > 0 => k,
        Some(_) => {
            eprintln!("quiet_degree: SAMPLES must be a positive number");
            std::process::exit(2);
        }
    };
    match game.as_str() {
        "adjito" if levels.iter().all(|&n| n <= 48) => run::<Adjito>(&levels, k),
        "adjiboto" if levels.iter().all(|&n| n <= 100) => run::<AdjiBoto>(&levels, k),
        "adjito" | "adjiboto" => {
            eprintln!("quiet_degree: a level is above the game's seeds");
            std::process::exit(2);
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}
