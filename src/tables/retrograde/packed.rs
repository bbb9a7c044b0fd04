//! Boards packed into 64 bits (one field of [`pit_bits`] bits a pit),
//! the two rows swapped on the packed form, and the rank terms of the
//! prefix sums: what every pass of the builder shares. Uses no other
//! module of the builder.

use crate::game::{Game, MAX_PITS};

/// Bits per pit of a packed board: 5 for Adjito's 12 pits, 6 for
/// Adji-Boto's 10.
pub(super) const fn pit_bits<G: Game>() -> u32 {
    64 / G::PITS as u32
}

/// Whether every board of level `n` packs (no pit can exceed the field).
pub(super) const fn packs<G: Game>(n: u32) -> bool {
    n < (1 << pit_bits::<G>())
}

/// A board of a level that [`packs`], in 64 bits.
#[inline]
pub(super) fn pack<G: Game>(b: &[u8; MAX_PITS]) -> u64 {
    let bits = pit_bits::<G>();
    let mut x = 0u64;
    for i in (0..G::PITS).rev() {
        x = (x << bits) | b[i] as u64;
    }
    x
}

/// Inverse of [`pack`].
#[inline]
pub(super) fn unpack<G: Game>(mut x: u64) -> [u8; MAX_PITS] {
    let bits = pit_bits::<G>();
    let mask = (1u64 << bits) - 1;
    let mut b = [0u8; MAX_PITS];
    for v in b.iter_mut().take(G::PITS) {
        *v = (x & mask) as u8;
        x >>= bits;
    }
    b
}

/// The packed board of the other player's view (the two rows swapped).
///
/// Frontier lists hold this form: sorted, it orders events by the rank of
/// their rotated boards, around which their quiet predecessors' ranks
/// cluster (a predecessor differs from the rotated board in the pits the
/// move sowed), so that a sorted round sweeps through the cells instead
/// of jumping.
#[inline]
pub(super) fn rot<G: Game>(x: u64) -> u64 {
    let half = pit_bits::<G>() * (G::PITS / 2) as u32;
    let mask = (1u64 << half) - 1;
    (x >> half) | ((x & mask) << half)
}

/// Largest prefix sum of a packed board plus one (pit fields are at most 6
/// bits wide, and a level that packs keeps every prefix sum below that).
pub(super) const SUMS: usize = 64;

/// `TERMS[j][c] = C(c + j, j + 1)`: the rank term of pit `j` when pits
/// `0..=j` hold `c` seeds.
pub(super) static TERMS: [[u64; SUMS]; MAX_PITS] = terms();

const fn terms() -> [[u64; SUMS]; MAX_PITS] {
    let mut t = [[0u64; SUMS]; MAX_PITS];
    let mut j = 0;
    while j < MAX_PITS {
        let mut c = 0;
        while c < SUMS {
            // C(c + j, j + 1) as the product of (c − 1 + i) / i for
            // i = 1 ..= j + 1 (exact at every step; 0 when c = 0).
            let mut x: u128 = 1;
            let mut i = 1;
            while i <= j + 1 {
                x = x * (c + i - 1) as u128 / i as u128;
                i += 1;
            }
            t[j][c] = x as u64;
            c += 1;
        }
        j += 1;
    }
    t
}
