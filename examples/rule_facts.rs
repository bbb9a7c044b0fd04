//! The quiet-cycle and loop-sensitivity facts of one rule set, per level
//! (issue 24): whether the quiet-move graph (same level, no capture) has a
//! cycle and the length of one, how many positions are loop-sensitive
//! (`lo < hi`) under `--loop start`, and how many positions' `even` value is
//! off the level's parity (a value of the other parity than the seeds on
//! the board). Builds tables of both loop rules in a temporary directory.
//!
//! `cargo run --release --example rule_facts -- GAME RULES TOP`
//! (GAME `adjito` or `adjiboto`, RULES a name of `adji rules`).

use adji::game::{Game, GameId, Position};
use adji::index::{level_size, rank, unrank};
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::retrograde::build_tables;
use adji::value::LoopRule;

/// The quiet successors (ranks) of board `b` of level `n`.
fn quiet<G: Game>(b: &[u8; adji::game::MAX_PITS]) -> Vec<u64> {
    let pos = Position {
        pits: *b,
        side: 0,
        opening: 0,
    };
    G::legal_moves(&pos)
        .iter()
        .filter_map(|m| {
            let p = G::play_unchecked(&pos, m);
            (p.captured == 0).then(|| rank(&p.pos.pits, G::PITS))
        })
        .collect()
}

/// The length of one cycle of level `n`'s quiet-move graph, if it has one
/// (depth-first search, successors recomputed; a back edge closes a cycle).
fn one_cycle<G: Game>(n: usize) -> Option<usize> {
    let size = level_size(n, G::PITS) as usize;
    // 0 unseen, 1 on the path, 2 done.
    let mut colour = vec![0u8; size];
    for root in 0..size {
        if colour[root] != 0 {
            continue;
        }
        let mut path: Vec<(u64, Vec<u64>, usize)> = Vec::new();
        let succ = quiet::<G>(&unrank(root as u64, n, G::PITS));
        colour[root] = 1;
        path.push((root as u64, succ, 0));
        while let Some((_, succ, next)) = path.last_mut() {
            if *next < succ.len() {
                let w = succ[*next];
                *next += 1;
                match colour[w as usize] {
                    0 => {
                        colour[w as usize] = 1;
                        let s = quiet::<G>(&unrank(w, n, G::PITS));
                        path.push((w, s, 0));
                    }
                    1 => {
                        let at = path.iter().position(|e| e.0 == w).unwrap();
                        return Some(path.len() - at);
                    }
                    _ => {}
                }
            } else {
                colour[path.pop().unwrap().0 as usize] = 2;
            }
        }
    }
    None
}

fn facts<G: Game>(top: u32) {
    let start_dir = tempfile::tempdir().unwrap();
    let even_dir = tempfile::tempdir().unwrap();
    let start = build_tables::<G>(start_dir.path(), LoopRule::Start, top, &NoProgress, |_| {})
        .expect("build start");
    let even = build_tables::<G>(even_dir.path(), LoopRule::Even, top, &NoProgress, |_| {})
        .expect("build even");
    println!(
        "| game | rules | level | positions | quiet cycle (one length) | loop-sensitive (start) | even value off parity |"
    );
    println!("|---|---|---:|---:|---|---:|---:|");
    let (mut sens_total, mut off_total) = (0u64, 0u64);
    for n in 0..=top {
        let size = level_size(n as usize, G::PITS);
        let (mut sens, mut off) = (0u64, 0u64);
        for idx in 0..size {
            let pos = Position {
                pits: unrank(idx, n as usize, G::PITS),
                side: 0,
                opening: 0,
            };
            sens += u64::from(start.bounds::<G>(&pos).unwrap().loop_sensitive());
            let v = even.value::<G>(&pos).unwrap();
            off += u64::from((v + n as i32).rem_euclid(2) != 0);
        }
        let cycle = match one_cycle::<G>(n as usize) {
            Some(k) => format!("yes ({k})"),
            None => "no".to_string(),
        };
        println!(
            "| {} | {} | {n} | {size} | {cycle} | {sens} | {off} |",
            G::ID,
            G::RULES.name()
        );
        sens_total += sens;
        off_total += off;
    }
    println!(
        "| {} | {} | 0..={top} | | | {sens_total} | {off_total} |",
        G::ID,
        G::RULES.name()
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: rule_facts GAME RULES TOP";
    let game = match args.first().map(String::as_str) {
        Some("adjito") => GameId::Adjito,
        Some("adjiboto") => GameId::AdjiBoto,
        _ => {
            eprintln!("{usage}: GAME is adjito or adjiboto");
            std::process::exit(2)
        }
    };
    let rules = match RuleSet::parse(game, args.get(1).map_or("", String::as_str)) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{usage}: {e}");
            std::process::exit(2)
        }
    };
    let Some(top) = args.get(2).and_then(|t| t.parse::<u32>().ok()) else {
        eprintln!("{usage}: TOP is the highest level, a number");
        std::process::exit(2)
    };
    adji::with_rules!(rules, facts(top));
}
