//! The value masks: which exit values occur among a
//! level's unsettled positions, chunk by chunk, and from them which
//! thresholds of the sweep need a scan at all. Every backend computes them
//! over its cells; the level loop ([`super::driver`]) reads them.

use rayon::prelude::*;

use super::cell::{cell_fields, IN_L, IN_W, NONE};
use super::frontier::DIRTY_CHUNK;

/// Which exit values occur among the unsettled positions of a chunk, as
/// bit sets indexed by `value + n` (the same for the W and the L seeds,
/// since one byte holds the exit: [`super::cell`]).
pub(super) type ValueMask = [u64; 4];

/// Whether value `v` of a level of `n` seeds is in the mask `m`.
pub(super) fn mask_has(m: &ValueMask, v: i32, n: i32) -> bool {
    let k = v + n;
    (0..256).contains(&k) && m[k as usize / 64] >> (k % 64) & 1 != 0
}

/// The value masks of every chunk of `words` (cells of level `n`) and the
/// number of settled positions.
pub(super) fn value_masks(words: &[u16], n: u32) -> (Vec<ValueMask>, Vec<ValueMask>, u64) {
    let n = n as i32;
    let per_chunk: Vec<(ValueMask, ValueMask, u64)> = words
        .par_chunks(DIRTY_CHUNK)
        .map(|words| {
            let (mut ml, mut mh, mut settled) = ([0u64; 4], [0u64; 4], 0);
            for &w in words {
                let (a, b) = cell_fields(w);
                if b & (IN_W | IN_L) == IN_W | IN_L {
                    settled += 1;
                    continue;
                }
                if a != NONE {
                    let i = (a as i32 + n) as usize;
                    ml[i / 64] |= 1 << (i % 64);
                    mh[i / 64] |= 1 << (i % 64);
                }
            }
            (ml, mh, settled)
        })
        .collect();
    let settled = per_chunk.iter().map(|x| x.2).sum();
    let (ml, mh) = per_chunk.into_iter().map(|(l, h, _)| (l, h)).unzip();
    (ml, mh, settled)
}

/// The OR of the chunk masks `m`: the values some chunk holds.
pub(super) fn or_masks(m: &[ValueMask]) -> ValueMask {
    m.iter()
        .fold([0u64; 4], |x, y| std::array::from_fn(|i| x[i] | y[i]))
}

/// Whether a threshold `t` needs a scan somewhere, given the OR (over all
/// parts) of the `E_lo` and `E_hi` masks of level `n`.
pub(super) fn needs_scan(lo: &ValueMask, hi: &ValueMask, t: i32, n: u32) -> bool {
    mask_has(lo, t, n as i32) || mask_has(hi, -t, n as i32)
}
