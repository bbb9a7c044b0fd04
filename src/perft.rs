//! Move-path counting (docs/RULES.md §6): `perft(p, d)` counts the move sequences
//! of exactly `d` moves from `p`. No loop rule and no early end are applied;
//! a finished game has no moves; Adji-Boto passes count as moves.

use rayon::prelude::*;

use crate::game::{Game, Move, Position};

/// Counts move sequences of exactly `depth` moves, on one thread.
pub fn perft<G: Game>(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = G::legal_moves(pos);
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| perft::<G>(&G::play_unchecked(pos, m).pos, depth - 1))
        .sum()
}

/// Counts per first move, the subtrees in parallel with rayon. Returns the
/// moves in generation order with their counts.
pub fn divide<G: Game>(pos: &Position, depth: u32) -> Vec<(Move, u64)> {
    if depth == 0 {
        return Vec::new();
    }
    let moves: Vec<Move> = G::legal_moves(pos).iter().collect();
    moves
        .par_iter()
        .map(|&m| {
            let child = G::play_unchecked(pos, m).pos;
            let n = if depth <= 3 {
                perft::<G>(&child, depth - 1)
            } else {
                split_perft::<G>(&child, depth - 1)
            };
            (m, n)
        })
        .collect()
}

/// Parallel perft: splits the two top plies into rayon tasks.
pub fn parallel_perft<G: Game>(pos: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    divide::<G>(pos, depth).iter().map(|x| x.1).sum()
}

fn split_perft<G: Game>(pos: &Position, depth: u32) -> u64 {
    let moves: Vec<Move> = G::legal_moves(pos).iter().collect();
    moves
        .par_iter()
        .map(|&m| perft::<G>(&G::play_unchecked(pos, m).pos, depth - 1))
        .sum()
}
