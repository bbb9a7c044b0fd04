//! Quiet-move graph structure per level (same level, no capture): positions
//! that can reach a cycle, and the strongly connected components
//! (Tarjan): how many positions lie in a non-trivial one and the largest.
//! `cargo run --release --example cycles -- TOP [adjito|adjiboto]`.
use adji::game::*;
use adji::index::*;
use adji::{AdjiBoto, Adjito};

fn succ_of<G: Game>(n: usize) -> Vec<Vec<u32>> {
    let size = level_size(n, G::PITS);
    boards(0..size, n, G::PITS)
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
                    (p.captured == 0).then(|| rank(&p.pos.pits, G::PITS) as u32)
                })
                .collect()
        })
        .collect()
}

/// (positions that can reach a cycle, positions in non-trivial SCCs, largest SCC, non-trivial SCCs)
fn stats(succ: &[Vec<u32>]) -> (u64, u64, u64, u64) {
    let size = succ.len();
    // Kahn on successors: what remains lies on or leads into cycles.
    let mut out: Vec<usize> = succ.iter().map(|s| s.len()).collect();
    let mut pred: Vec<Vec<u32>> = vec![Vec::new(); size];
    for (i, s) in succ.iter().enumerate() {
        for &j in s {
            pred[j as usize].push(i as u32);
        }
    }
    let mut stack: Vec<usize> = (0..size).filter(|&i| out[i] == 0).collect();
    let mut removed = 0;
    while let Some(j) = stack.pop() {
        removed += 1;
        for &i in &pred[j] {
            out[i as usize] -= 1;
            if out[i as usize] == 0 {
                stack.push(i as usize);
            }
        }
    }
    // Iterative Tarjan.
    const UNSEEN: u32 = u32::MAX;
    let mut index = vec![UNSEEN; size];
    let mut low = vec![0u32; size];
    let mut on = vec![false; size];
    let mut st: Vec<u32> = Vec::new();
    let mut next = 0u32;
    let (mut in_nt, mut largest, mut count) = (0u64, 0u64, 0u64);
    for root in 0..size {
        if index[root] != UNSEEN {
            continue;
        }
        let mut call: Vec<(usize, usize)> = vec![(root, 0)];
        index[root] = next;
        low[root] = next;
        next += 1;
        st.push(root as u32);
        on[root] = true;
        while let Some(&mut (v, ref mut e)) = call.last_mut() {
            if *e < succ[v].len() {
                let w = succ[v][*e] as usize;
                *e += 1;
                if index[w] == UNSEEN {
                    index[w] = next;
                    low[w] = next;
                    next += 1;
                    st.push(w as u32);
                    on[w] = true;
                    call.push((w, 0));
                } else if on[w] {
                    low[v] = low[v].min(index[w]);
                }
            } else {
                call.pop();
                if let Some(&(u, _)) = call.last() {
                    low[u] = low[u].min(low[v]);
                }
                if low[v] == index[v] {
                    let mut k = 0u64;
                    loop {
                        let w = st.pop().unwrap() as usize;
                        on[w] = false;
                        k += 1;
                        if w == v {
                            break;
                        }
                    }
                    if k > 1 {
                        in_nt += k;
                        count += 1;
                        largest = largest.max(k);
                    }
                }
            }
        }
    }
    ((size - removed) as u64, in_nt, largest, count)
}

fn report<G: Game>(n: usize) {
    let succ = succ_of::<G>(n);
    let (reach, in_nt, largest, count) = stats(&succ);
    println!(
        "| {} | {n} | {} | {reach} | {in_nt} | {count} | {largest} |",
        G::ID,
        succ.len()
    );
}

fn main() {
    let top: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(8);
    let game = std::env::args().nth(2);
    println!("| game | level | positions | can reach a cycle | in non-trivial SCCs | non-trivial SCCs | largest SCC |");
    println!("|---|---:|---:|---:|---:|---:|---:|");
    for n in 1..=top {
        if game.as_deref() != Some("adjiboto") {
            report::<Adjito>(n);
        }
        if game.as_deref() != Some("adjito") {
            report::<AdjiBoto>(n);
        }
    }
}
