//! How many positions a game's start reaches by quiet moves (no capture) at
//! its own level, breadth first, and how many capture children leave that
//! set: the size of the one stretch a search from the start must settle
//! before any table can help.
//!
//! `cargo run --release --example reach -- adjito must-reach [CAP]`
//!
//! One row per breadth-first depth: new positions, the total so far and the
//! distinct capture children found (their levels summarised at the end).
//! Positions are boards seen by the mover (the values' key), so a board and
//! its mirror with the other side to move count once. The walk stops when
//! the set is exhausted or holds CAP positions (default 50 M; about 10 bytes
//! a position).
use adji::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
use adji::game::{Game, Position};
use adji::index::rank;
use adji::{AdjiBoto, Adjito};
use ahash::AHashSet;
use std::collections::BTreeMap;
use std::io::Write;

/// The walk's result: per-depth new counts, capture children per level, and
/// whether the cap stopped it.
struct Walk {
    depths: Vec<u64>,
    captures: BTreeMap<u32, u64>,
    capped: bool,
}

/// Breadth-first over the quiet moves from `start`, stopping at `cap`.
fn walk<G: Game>(start: Position, cap: usize) -> Walk {
    let level = start.level();
    let key = |p: &Position| rank(&p.pits, G::PITS);
    let mut seen: AHashSet<u64> = AHashSet::default();
    let mut exits: AHashSet<(u32, u64)> = AHashSet::default();
    seen.insert(key(&start));
    let mut frontier = vec![start];
    let mut w = Walk {
        depths: vec![1],
        captures: BTreeMap::new(),
        capped: false,
    };
    while !frontier.is_empty() && !w.capped {
        let mut next = Vec::new();
        for pos in &frontier {
            if G::end_reason(pos).is_some() {
                continue;
            }
            for mv in G::legal_moves(pos).iter() {
                let child = G::play_unchecked(pos, mv).pos;
                if child.level() < level {
                    exits.insert((child.level(), key(&child)));
                } else if seen.insert(key(&child)) {
                    next.push(child);
                }
            }
            if seen.len() >= cap {
                w.capped = true;
                break;
            }
        }
        w.depths.push(next.len() as u64);
        frontier = next;
    }
    for (l, _) in exits {
        *w.captures.entry(l).or_default() += 1;
    }
    w
}

/// Prints the walk as Markdown; a closed output ends it quietly.
fn report(w: &Walk) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(out, "| depth | new positions | total |")?;
    writeln!(out, "| ---: | ---: | ---: |")?;
    let mut total = 0u64;
    for (d, n) in w.depths.iter().enumerate() {
        total += n;
        writeln!(out, "| {d} | {n} | {total} |")?;
    }
    let stop = if w.capped {
        "stopped at the cap"
    } else {
        "exhausted"
    };
    writeln!(
        out,
        "\n{total} positions ({stop}); distinct capture children by level:"
    )?;
    for (l, n) in &w.captures {
        writeln!(out, "- level {l}: {n}")?;
    }
    Ok(())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: reach adjito|adjiboto default|must-reach|slam-forbidden [CAP]";
    let cap = match args.get(2).map(|s| s.parse::<usize>()) {
        None => 50_000_000,
        Some(Ok(c)) if c > 0 => c,
        Some(_) => {
            eprintln!("reach: CAP must be a positive number");
            std::process::exit(2);
        }
    };
    let w = match (
        args.first().map(String::as_str),
        args.get(1).map(String::as_str),
    ) {
        (Some("adjito"), Some("default")) => walk::<Adjito>(Adjito::start(), cap),
        (Some("adjito"), Some("must-reach")) => {
            walk::<AdjitoMustReach>(AdjitoMustReach::start(), cap)
        }
        (Some("adjito"), Some("slam-forbidden")) => {
            walk::<AdjitoSlamForbidden>(AdjitoSlamForbidden::start(), cap)
        }
        (Some("adjiboto"), Some("default")) => {
            let mut p = AdjiBoto::start();
            p.opening = 0;
            walk::<AdjiBoto>(p, cap)
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    };
    if let Err(e) = report(&w) {
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            eprintln!("reach: cannot write the table: {e}");
            std::process::exit(1);
        }
    }
}
