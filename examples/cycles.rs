//! Counts positions on quiet-move cycles (same level, no capture) for small
//! levels of both games: a sanity check on the loop-sensitivity statistics.
use adji::game::*;
use adji::index::*;
use adji::{AdjiBoto, Adjito};

fn cyclic<G: Game>(n: usize) -> (u64, u64) {
    let size = level_size(n, G::PITS) as usize;
    // Node = (rank, side-parity) collapses to rank: values are side-free, and
    // a cycle of relative boards is a cycle of play (the side alternates).
    let succ: Vec<Vec<usize>> = boards(0..size as u64, n, G::PITS)
        .map(|(_, b)| {
            let pos = Position {
                pits: b,
                side: 0,
                opening: 0,
            };
            G::legal_moves(&pos)
                .iter()
                .filter_map(|m| {
                    let p = G::play_unchecked(&pos, m);
                    (p.captured == 0).then(|| rank(&p.pos.pits, G::PITS) as usize)
                })
                .collect()
        })
        .collect();
    // Peel off nodes with no successors left (Kahn); what remains lies on or leads into cycles.
    let mut out: Vec<usize> = succ.iter().map(|s| s.len()).collect();
    let mut pred: Vec<Vec<usize>> = vec![Vec::new(); size];
    for (i, s) in succ.iter().enumerate() {
        for &j in s {
            pred[j].push(i);
        }
    }
    let mut stack: Vec<usize> = (0..size).filter(|&i| out[i] == 0).collect();
    let mut removed = 0;
    while let Some(j) = stack.pop() {
        removed += 1;
        for &i in &pred[j] {
            out[i] -= 1;
            if out[i] == 0 {
                stack.push(i);
            }
        }
    }
    (size as u64, (size - removed) as u64)
}

fn main() {
    let top: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(8);
    for n in 1..=top {
        let (a, ac) = cyclic::<Adjito>(n);
        let (b, bc) = cyclic::<AdjiBoto>(n);
        println!("level {n}: adjito {ac}/{a} can reach a cycle; adjiboto {bc}/{b}");
    }
}
