//! The seeds of a threshold scan: which cells enter W or L at threshold
//! `t` by their exit values alone, tested without branches on the cell
//! words (16 cells an instruction with AVX2) and claimed by setting their
//! flags. The sweep's scans ([`super::level`]) and the parts' scans
//! ([`super::part`]) use them.

use super::cell::{Slot, Tally, CNT, HP, IN_L, IN_W};
use super::events::{L, W};

/// The scan at threshold `t` of one position: an unsettled one whose exit
/// is `t` enters W, one whose `a` is `−t` with no quiet move left outside
/// W enters L (`fast`: the cells have no plane). Returns whether it
/// entered W and whether it entered L.
#[inline]
pub(super) fn scan_cell(slot: Slot, t: i32, fast: bool, tally: &mut Tally) -> (bool, bool) {
    let s = SeedKeys::new(t, fast).code(slot.cell.word());
    if s == 0 {
        return (false, false);
    }
    (
        s >> W & 1 != 0 && slot.w_trans(t, tally),
        s >> L & 1 != 0 && slot.l_trans(t, tally),
    )
}

/// The seed tests of threshold `t` as masked comparisons of the cell word
/// (index [`W`] and [`L`]): a W seed has `a = t` and no W flag (and, in
/// fast mode, no [`HP`]: its `a` is then `hi`), an L seed `a = −t`, no L
/// flag and no quiet move left outside W. Without branches, since most
/// cells match neither.
#[derive(Clone, Copy)]
pub(super) struct SeedKeys {
    mask: [u16; 2],
    val: [u16; 2],
}

impl SeedKeys {
    #[inline(always)]
    pub(super) fn new(t: i32, fast: bool) -> Self {
        let byte = |v: i32| v as i8 as u8 as u16;
        let b = |bits: u8| (bits as u16) << 8;
        let hp = if fast { HP } else { 0 };
        SeedKeys {
            mask: [0xFF | b(IN_W | hp), 0xFF | b(IN_L | CNT)],
            val: [byte(t), byte(-t)],
        }
    }

    /// Whether the cell word `w` is a seed: bit [`W`] for a W seed, bit
    /// [`L`] for an L seed.
    #[inline(always)]
    fn code(&self, w: u16) -> u8 {
        let hit = |k: usize| u8::from(w & self.mask[k] == self.val[k]) << k;
        hit(W) | hit(L)
    }
}

const _: () = assert!(
    W == 0 && L == 1,
    "SeedKeys and FLAGS are indexed by these kinds"
);

/// The seeds at threshold `t` among `words`, the cells of ranks `first..`
/// (held exclusively; `fast`: cells without a plane): see [`SeedKeys`].
/// Returns their ranks (ascending) and codes (bit [`W`] for a W seed, bit
/// [`L`] for an L seed).
///
/// Every scan reads each unsettled cell, so the test runs without
/// branches into two bit masks per 64 cells, in AVX2 where the processor
/// has it (chosen at run time); most blocks hold no seed and cost one
/// comparison more.
pub(super) fn claim_seeds(
    words: &mut [u16],
    first: usize,
    t: i32,
    fast: bool,
) -> (Vec<u32>, Vec<u8>) {
    let k = SeedKeys::new(t, fast);
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the processor has the feature the function enables.
            return unsafe { simd::claim_avx2(words, first, k) };
        }
    }
    claim_with(words, first, |b| seed_masks(b, k))
}

/// The seeds of `words` (ranks `first..`) whose bit masks per block of 64
/// cells `masks` gives (W, L), claimed.
#[inline(always)]
fn claim_with(
    words: &mut [u16],
    first: usize,
    masks: impl Fn(&[u16]) -> (u64, u64),
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
            block[i as usize] |= (FLAGS[code as usize] as u16) << 8;
            ranks.push((first + blk * 64) as u32 + i);
            codes.push(code);
        }
    }
    (ranks, codes)
}

/// The flags a seed of code `k` (bit [`W`]: W seed, bit [`L`]: L seed)
/// takes. The seed's value is already in `a` (`lo = a = t` for W, `hi = a
/// = −t` for L), so a claim writes flags only.
const FLAGS: [u8; 4] = [0, IN_W, IN_L, IN_W | IN_L];

/// The W and L seeds among up to 64 cells, as bit masks (bit `i` for
/// cell `i`).
#[inline(always)]
fn seed_masks(block: &[u16], k: SeedKeys) -> (u64, u64) {
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

    /// The even bits of `m` (one a 16-bit lane of a byte mask), packed.
    #[inline(always)]
    fn even_bits(m: u32) -> u64 {
        let mut x = m & 0x5555_5555;
        x = (x | x >> 1) & 0x3333_3333;
        x = (x | x >> 2) & 0x0F0F_0F0F;
        x = (x | x >> 4) & 0x00FF_00FF;
        x = (x | x >> 8) & 0x0000_FFFF;
        x as u64
    }

    /// [`super::claim_seeds`] with 16 cells a comparison.
    #[target_feature(enable = "avx2")]
    pub(super) fn claim_avx2(words: &mut [u16], first: usize, k: SeedKeys) -> (Vec<u32>, Vec<u8>) {
        let v = |x: u16| _mm256_set1_epi16(x as i16);
        let (mask, val) = ([v(k.mask[W]), v(k.mask[L])], [v(k.val[W]), v(k.val[L])]);
        claim_with(words, first, |block| {
            let Ok(b) = <&[u16; 64]>::try_from(block) else {
                return seed_masks(block, k);
            };
            let (mut w, mut l) = (0u64, 0u64);
            for (j, x) in b.chunks_exact(16).enumerate() {
                // SAFETY: `x` is 16 readable u16s (32 bytes); the load takes
                // any alignment.
                let x = unsafe { _mm256_loadu_si256(x.as_ptr() as *const __m256i) };
                let hit = |i: usize| {
                    let eq = _mm256_cmpeq_epi16(_mm256_and_si256(x, mask[i]), val[i]);
                    even_bits(_mm256_movemask_epi8(eq) as u32)
                };
                w |= hit(W) << (16 * j);
                l |= hit(L) << (16 * j);
            }
            (w, l)
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
    fn seed_code(w: u16, t: i32, fast: bool) -> u8 {
        let (a, b) = cell_fields(w);
        let is_w = a as i32 == t && b & IN_W == 0 && !(fast && b & HP != 0);
        let is_l = a as i32 == -t && b & (IN_L | CNT) == 0;
        u8::from(is_w) << W | u8::from(is_l) << L
    }

    #[test]
    fn the_seed_keys_are_the_seed_test_on_every_cell_word() {
        for fast in [false, true] {
            for t in [-40, -7, -1, 0, 1, 6, 40] {
                let k = SeedKeys::new(t, fast);
                for w in 0..=u16::MAX {
                    assert_eq!(k.code(w), seed_code(w, t, fast), "word {w:#06x} at {t}");
                }
            }
        }
    }

    /// Cell words with every combination of flags and counter bits, and
    /// exit values around the thresholds tested.
    fn sample_words() -> Vec<u16> {
        let mut s = 0x2545_F491_4F6C_DD1Du64;
        (0..100_003)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                let v = |x: u64| (x % 9) as i8 - 4;
                cell_word(v(s), (s >> 8) as u8)
            })
            .collect()
    }

    /// One cell at a time from the fields ([`seed_code`]): the reference,
    /// for the cells of ranks `first..`.
    fn claim_reference(words: &mut [u16], first: usize, t: i32, fast: bool) -> (Vec<u32>, Vec<u8>) {
        let (mut ranks, mut codes) = (Vec::new(), Vec::new());
        for (i, w) in words.iter_mut().enumerate() {
            let s = seed_code(*w, t, fast);
            if s != 0 {
                *w |= (FLAGS[s as usize] as u16) << 8;
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
        type Claim = Box<dyn Fn(&mut [u16], i32, bool) -> (Vec<u32>, Vec<u8>)>;
        let mut versions: Vec<(&str, Claim)> = vec![
            (
                "portable",
                Box::new(move |w, t, fast| {
                    let k = SeedKeys::new(t, fast);
                    claim_with(w, first, |b| seed_masks(b, k))
                }),
            ),
            (
                "dispatched",
                Box::new(move |w, t, fast| claim_seeds(w, first, t, fast)),
            ),
        ];
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx2") {
                versions.push((
                    "avx2",
                    // SAFETY: the processor has AVX2.
                    Box::new(move |w, t, fast| unsafe {
                        simd::claim_avx2(w, first, SeedKeys::new(t, fast))
                    }),
                ));
            }
        }
        let names: Vec<&str> = versions.iter().map(|v| v.0).collect();
        eprintln!("claim versions tested: {names:?}");
        for fast in [false, true] {
            for t in -4..=4 {
                let mut want_words = words.clone();
                let want = claim_reference(&mut want_words, first, t, fast);
                assert!(want.0.len() > 1000, "threshold {t}: few seeds");
                // One value byte: a cell is both a W and an L seed at 0 only.
                assert_eq!(want.1.contains(&3), t == 0, "threshold {t}");
                for (name, claim) in &versions {
                    let mut got_words = words.clone();
                    let got = claim(&mut got_words, t, fast);
                    assert!(got == want, "{name} at threshold {t}, fast {fast}");
                    assert!(got_words == want_words, "{name} at {t}: flags");
                }
            }
        }
    }
}
