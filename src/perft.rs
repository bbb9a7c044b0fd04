//! Move-path counting (docs/RULES.md §6): `perft(p, d)` counts the move sequences
//! of exactly `d` moves from `p`. No loop rule and no early end are applied;
//! a finished game has no moves; Adji-Boto passes count as moves.

use std::sync::atomic::{AtomicBool, Ordering};

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

/// A count interrupted by its stop flag.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("interrupted")]
pub struct Stopped;

/// Subtrees of at most this many moves are counted without a stop check
/// (a few thousand nodes).
pub const STOP_LEAF: u32 = 5;

/// [`perft`] that a raised `stop` interrupts, checked at every node more
/// than [`STOP_LEAF`] moves from the horizon.
///
/// # Errors
/// [`Stopped`] once `stop` is raised.
pub fn perft_stoppable<G: Game>(
    pos: &Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<u64, Stopped> {
    if depth <= STOP_LEAF {
        return Ok(perft::<G>(pos, depth));
    }
    if stop.load(Ordering::Relaxed) {
        return Err(Stopped);
    }
    G::legal_moves(pos)
        .iter()
        .map(|m| perft_stoppable::<G>(&G::play_unchecked(pos, m).pos, depth - 1, stop))
        .sum()
}

/// [`divide`] that a raised `stop` interrupts, checked between
/// second-ply subtrees (those in parallel with rayon).
///
/// # Errors
/// [`Stopped`] once `stop` is raised.
pub fn divide_stoppable<G: Game>(
    pos: &Position,
    depth: u32,
    stop: &AtomicBool,
) -> Result<Vec<(Move, u64)>, Stopped> {
    if depth == 0 {
        return Ok(Vec::new());
    }
    let moves: Vec<Move> = G::legal_moves(pos).iter().collect();
    moves
        .par_iter()
        .map(|&m| {
            let child = G::play_unchecked(pos, m).pos;
            if depth == 1 {
                return Ok((m, 1));
            }
            let grand: Vec<Move> = G::legal_moves(&child).iter().collect();
            let n = grand
                .par_iter()
                .map(|&g| {
                    if stop.load(Ordering::Relaxed) {
                        return Err(Stopped);
                    }
                    perft_stoppable::<G>(&G::play_unchecked(&child, g).pos, depth - 2, stop)
                })
                .sum::<Result<u64, Stopped>>()?;
            Ok((m, n))
        })
        .collect()
}
