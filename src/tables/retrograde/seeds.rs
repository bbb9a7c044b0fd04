//! The seeds of a threshold scan: which cells enter W or L at threshold
//! `t` by their exit values alone, tested without branches on the cell
//! words (16 or 8 cells an instruction with AVX-512 or AVX2) and claimed
//! by setting their flags. The sweep's scans ([`super::level`]) and the
//! distributed builder use them.

use super::cell::{Cell, CNT, IN_L, IN_W};
use super::events::{L, W};

/// The scan at threshold `t` of one cell: an unsettled position with
/// `E_lo = t` enters W, one with `E_hi = −t` and no quiet move left outside
/// W enters L. Returns whether it entered W and whether it entered L.
#[inline]
pub(super) fn scan_cell(cell: &Cell, t: i32) -> (bool, bool) {
    let s = SeedKeys::new(t).code(cell.word());
    if s == 0 {
        return (false, false);
    }
    (
        s >> W & 1 != 0 && cell.w_trans(t),
        s >> L & 1 != 0 && cell.l_trans(t),
    )
}

/// The seed tests of threshold `t` as masked comparisons of the cell word
/// (index [`W`] and [`L`]): a W seed has `E_lo = t` and no W flag, an L
/// seed `E_hi = −t`, no L flag and no quiet move left outside W. Without
/// branches, since most cells match neither.
#[derive(Clone, Copy)]
pub(super) struct SeedKeys {
    mask: [u32; 2],
    val: [u32; 2],
}

impl SeedKeys {
    #[inline(always)]
    pub(super) fn new(t: i32) -> Self {
        let byte = |v: i32| v as i8 as u8 as u32;
        let b = |bits: u8| (bits as u32) << 8;
        let mut k = SeedKeys {
            mask: [0; 2],
            val: [0; 2],
        };
        (k.mask[W], k.val[W]) = (0xFF | b(IN_W), byte(t));
        (k.mask[L], k.val[L]) = (0xFF_0000 | b(IN_L | CNT), byte(-t) << 16);
        k
    }

    /// Whether the cell word `w` is a seed: bit [`W`] for a W seed, bit
    /// [`L`] for an L seed.
    #[inline(always)]
    fn code(&self, w: u32) -> u8 {
        let hit = |k: usize| u8::from(w & self.mask[k] == self.val[k]) << k;
        hit(W) | hit(L)
    }
}

/// The seeds at threshold `t` among `words`, the cells of ranks `first..`
/// (held exclusively): positions with `E_lo = t` not in W enter W, those
/// with `E_hi = −t`, no quiet move left outside W and not in L enter L.
/// Returns their ranks (ascending) and codes (bit [`W`] for a W seed, bit
/// [`L`] for an L seed).
///
/// Every scan reads each unsettled cell, so the test ([`SeedKeys`]) runs
/// without branches into two bit masks per 64 cells, in AVX-512 or AVX2
/// where the processor has them (chosen at run time); most blocks hold no
/// seed and cost one comparison more.
pub(super) fn claim_seeds(words: &mut [u32], first: usize, t: i32) -> (Vec<u32>, Vec<u8>) {
    let k = SeedKeys::new(t);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the processor has the feature the function enables.
            return unsafe { simd::claim_avx512(words, first, k) };
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: as above.
            return unsafe { simd::claim_avx2(words, first, k) };
        }
    }
    claim_with(words, first, |b| seed_masks(b, k))
}

/// The seeds of `words` (ranks `first..`) whose bit masks per block of 64
/// cells `masks` gives (W, L), claimed.
#[inline(always)]
fn claim_with(
    words: &mut [u32],
    first: usize,
    masks: impl Fn(&[u32]) -> (u64, u64),
) -> (Vec<u32>, Vec<u8>) {
    let (mut ranks, mut codes) = (Vec::new(), Vec::new());
    for (blk, block) in words.chunks_mut(64).enumerate() {
        let (mw, ml) = masks(block);
        let mut m = mw | ml;
        if m == 0 {
            continue;
        }
        ranks.reserve(64);
        codes.reserve(64);
        while m != 0 {
            let i = m.trailing_zeros();
            m &= m - 1;
            let code = ((mw >> i & 1) << W | (ml >> i & 1) << L) as u8;
            block[i as usize] |= (FLAGS[code as usize] as u32) << 8;
            ranks.push((first + blk * 64) as u32 + i);
            codes.push(code);
        }
    }
    (ranks, codes)
}

/// The flags a seed of code `k` (bit [`W`]: W seed, bit [`L`]: L seed)
/// takes.
const FLAGS: [u8; 4] = [0, IN_W, IN_L, IN_W | IN_L];
const _: () = assert!(W == 0 && L == 1, "FLAGS is indexed by codes of these bits");

/// The W and L seeds among up to 64 cells, as bit masks (bit `i` for
/// cell `i`).
#[inline(always)]
fn seed_masks(block: &[u32], k: SeedKeys) -> (u64, u64) {
    let (mut mw, mut ml) = (0u64, 0u64);
    for (i, &w) in block.iter().enumerate() {
        let code = k.code(w) as u64;
        mw |= (code >> W & 1) << i;
        ml |= (code >> L & 1) << i;
    }
    (mw, ml)
}

/// [`claim_with`] in vector instructions.
#[cfg(target_arch = "x86_64")]
mod simd {
    use super::{claim_with, seed_masks, SeedKeys, L, W};
    use std::arch::x86_64::*;

    /// The W and L masks of a block of 64 cells from `group`, which gives
    /// them for `N` cells at a time (a shorter block at a chunk's end goes
    /// to the portable loop).
    #[inline(always)]
    fn masks_by<const N: usize>(
        block: &[u32],
        k: SeedKeys,
        group: impl Fn(&[u32; N]) -> (u64, u64),
    ) -> (u64, u64) {
        let Ok(b) = <&[u32; 64]>::try_from(block) else {
            return seed_masks(block, k);
        };
        let (mut w, mut l) = (0u64, 0u64);
        for (j, x) in b.chunks_exact(N).enumerate() {
            let (gw, gl) = group(x.try_into().expect("N cells"));
            w |= gw << (N * j);
            l |= gl << (N * j);
        }
        (w, l)
    }

    /// [`super::claim_seeds`] with 16 cells a comparison.
    #[target_feature(enable = "avx512f")]
    pub(super) fn claim_avx512(
        words: &mut [u32],
        first: usize,
        k: SeedKeys,
    ) -> (Vec<u32>, Vec<u8>) {
        let v = |x: u32| _mm512_set1_epi32(x as i32);
        let (mask, val) = ([v(k.mask[W]), v(k.mask[L])], [v(k.val[W]), v(k.val[L])]);
        claim_with(words, first, |b| {
            masks_by(b, k, |x: &[u32; 16]| {
                // SAFETY: `x` is 16 readable u32s (64 bytes); the load
                // takes any alignment.
                let x = unsafe { _mm512_loadu_si512(x.as_ptr() as *const _) };
                let hit = |i: usize| _mm512_cmpeq_epi32_mask(_mm512_and_si512(x, mask[i]), val[i]);
                (hit(W) as u64, hit(L) as u64)
            })
        })
    }

    /// [`super::claim_seeds`] with 8 cells a comparison.
    #[target_feature(enable = "avx2")]
    pub(super) fn claim_avx2(words: &mut [u32], first: usize, k: SeedKeys) -> (Vec<u32>, Vec<u8>) {
        let v = |x: u32| _mm256_set1_epi32(x as i32);
        let (mask, val) = ([v(k.mask[W]), v(k.mask[L])], [v(k.val[W]), v(k.val[L])]);
        claim_with(words, first, |b| {
            masks_by(b, k, |x: &[u32; 8]| {
                // SAFETY: `x` is 8 readable u32s (32 bytes); the load takes
                // any alignment.
                let x = unsafe { _mm256_loadu_si256(x.as_ptr() as *const __m256i) };
                let hit = |i: usize| {
                    let eq = _mm256_cmpeq_epi32(_mm256_and_si256(x, mask[i]), val[i]);
                    _mm256_movemask_ps(_mm256_castsi256_ps(eq)) as u8 as u64
                };
                (hit(W), hit(L))
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tables::retrograde::cell::{cell_fields, cell_word};
    use crate::tables::retrograde::frontier::DIRTY_CHUNK;

    /// The seed test from the cell's fields, as the module comment of
    /// [`super::super`] states it: bit [`W`] for a W seed, [`L`] for an L
    /// seed.
    fn seed_code(w: u32, t: i32) -> u8 {
        let (a, b, c) = cell_fields(w);
        let is_w = a as i32 == t && b & IN_W == 0;
        let is_l = c as i32 == -t && b & (IN_L | CNT) == 0;
        u8::from(is_w) << W | u8::from(is_l) << L
    }

    #[test]
    fn the_seed_keys_are_the_seed_test_on_every_cell_word() {
        for t in [-40, -7, -1, 0, 1, 6, 40] {
            let k = SeedKeys::new(t);
            for w in 0..1u32 << 24 {
                // Byte 3 is always 0 in a cell, but the test ignores it.
                let w = w | (w & 0xFF) << 24;
                assert_eq!(k.code(w), seed_code(w, t), "word {w:#010x} at {t}");
            }
        }
    }

    /// Cell words with every combination of flags and counter bits, and
    /// exit values around the thresholds tested.
    fn sample_words() -> Vec<u32> {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        (0..100_003)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let v = |x: u64| (x % 9) as i8 - 4;
                cell_word(v(s), (s >> 8) as u8, v(s >> 16))
            })
            .collect()
    }

    /// One cell at a time from the fields ([`seed_code`]): the reference,
    /// for the cells of ranks `first..`.
    fn claim_reference(words: &mut [u32], first: usize, t: i32) -> (Vec<u32>, Vec<u8>) {
        let (mut ranks, mut codes) = (Vec::new(), Vec::new());
        for (i, w) in words.iter_mut().enumerate() {
            let s = seed_code(*w, t);
            if s != 0 {
                *w |= (FLAGS[s as usize] as u32) << 8;
                ranks.push((first + i) as u32);
                codes.push(s);
            }
        }
        (ranks, codes)
    }

    /// The portable and the dispatched versions everywhere; the AVX2 and
    /// AVX-512 ones where the processor has them (this test cannot reach
    /// a version the machine running it lacks; it prints those it ran).
    #[test]
    fn every_claim_version_finds_the_seeds_one_cell_at_a_time_finds() {
        let words = sample_words();
        let first = 3 * DIRTY_CHUNK;
        type Claim = Box<dyn Fn(&mut [u32], i32) -> (Vec<u32>, Vec<u8>)>;
        let mut versions: Vec<(&str, Claim)> = vec![
            (
                "portable",
                Box::new(move |w, t| {
                    let k = SeedKeys::new(t);
                    claim_with(w, first, |b| seed_masks(b, k))
                }),
            ),
            ("dispatched", Box::new(move |w, t| claim_seeds(w, first, t))),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                versions.push((
                    "avx2",
                    // SAFETY: the processor has AVX2.
                    Box::new(move |w, t| unsafe { simd::claim_avx2(w, first, SeedKeys::new(t)) }),
                ));
            }
            if std::arch::is_x86_feature_detected!("avx512f") {
                versions.push((
                    "avx512",
                    // SAFETY: the processor has AVX-512F.
                    Box::new(move |w, t| unsafe { simd::claim_avx512(w, first, SeedKeys::new(t)) }),
                ));
            }
        }
        let names: Vec<&str> = versions.iter().map(|v| v.0).collect();
        eprintln!("claim versions tested: {names:?}");
        for t in -4..=4 {
            let mut want_words = words.clone();
            let want = claim_reference(&mut want_words, first, t);
            assert!(want.0.len() > 1000, "threshold {t}: few seeds");
            assert!(
                want.1.contains(&3),
                "threshold {t}: no cell both a W and an L seed"
            );
            for (name, claim) in &versions {
                let mut got_words = words.clone();
                assert!(claim(&mut got_words, t) == want, "{name} at threshold {t}");
                assert!(got_words == want_words, "{name} at threshold {t}: flags");
            }
        }
    }
}
