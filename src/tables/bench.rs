//! Probe speed: random lookups in built tables (what a search or a
//! `tables probe` does per position), timed on one thread.

use std::time::Instant;

use super::set::TableSet;
use crate::game::{mix64, Game, Position};
use crate::index::{level_size, unrank};

/// `count` main-phase positions of `level` drawn uniformly (a fixed
/// sequence for a given `seed`).
pub fn random_positions<G: Game>(level: u32, count: usize, seed: u64) -> Vec<Position> {
    let size = level_size(level as usize, G::PITS);
    let mut x = seed;
    (0..count)
        .map(|_| {
            x = mix64(x.wrapping_add(0x9E37_79B9_7F4A_7C15));
            Position {
                pits: unrank(x % size, level as usize, G::PITS),
                side: (x >> 63) as u8,
                opening: 0,
            }
        })
        .collect()
}

/// Looks every position up ([`TableSet::value`]: rank, then one byte) on
/// this thread. Returns the seconds taken and the sum of the values (so
/// that the work is not optimised away); `None` if a level is not covered.
pub fn time_probes<G: Game>(set: &TableSet, positions: &[Position]) -> Option<(f64, i64)> {
    let t = Instant::now();
    let mut sum = 0i64;
    for p in positions {
        sum += set.value::<G>(p)? as i64;
    }
    Some((t.elapsed().as_secs_f64(), sum))
}
