//! Boards packed into one machine word (one field of [`pit_bits`] bits a
//! pit): the [`Word`] (64 bits where every board of a level fits, else
//! 128), the two rows swapped on the packed form, the sowing constants of
//! the packed moves, and the rank terms of the prefix sums: the form of
//! the games' fast paths (`adjito/packed.rs`, `adjiboto/packed.rs`) and of
//! every pass of the table builder. Imports only [`crate::game`].

use std::fmt::Debug;
use std::ops::{Add, BitAnd, BitOr, BitOrAssign, Mul, Not, Shl, Shr, Sub};

use crate::game::{Game, MAX_PITS};

mod sealed {
    /// Only `u64` and `u128` are words.
    pub trait Sealed {}
    impl Sealed for u64 {}
    impl Sealed for u128 {}
}

/// The word a packed board is held in: `u64` (5 bits a pit for Adjito's
/// 12 pits, 6 for Adji-Boto's 10: Adjito to level 31, Adji-Boto to 63) or
/// `u128` (6 and 7 bits: every level of both games). The builder's passes
/// are generic over it and monomorphised; a driver picks `u64` for every
/// level that packs into it ([`packs`]), so those run the 64-bit code.
pub(crate) trait Word:
    sealed::Sealed
    + Copy
    + Default
    + Eq
    + Ord
    + Debug
    + Send
    + Sync
    + 'static
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitOrAssign
    + Not<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// Bits of the word.
    const BITS: u32;
    /// Bits per pit of Adjito (12 pits).
    const ADJITO_BITS: u32;
    /// Bits per pit of Adji-Boto (10 pits).
    const ADJIBOTO_BITS: u32;
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// `x` as a word.
    fn of(x: u64) -> Self;
    /// The low 64 bits.
    fn low(self) -> u64;
    /// Wrapping addition.
    fn wrapping_add(self, o: Self) -> Self;
    /// Wrapping subtraction.
    fn wrapping_sub(self, o: Self) -> Self;
    /// Wrapping multiplication.
    fn wrapping_mul(self, o: Self) -> Self;
    /// Trailing zero bits.
    fn trailing_zeros(self) -> u32;
    /// [`runs`] of Adjito in this word's fields.
    fn adjito_runs() -> &'static Runs<Self>;
    /// [`runs`] of Adji-Boto in this word's fields.
    fn adjiboto_runs() -> &'static Runs<Self>;
    /// [`unsow`] of Adjito in this word's fields (origins 0–5, steps 0–11).
    fn adjito_unsow() -> &'static [[Self; 12]; 6];
    /// Adji-Boto's un-sowings by the bit `B·r + o` of the merged mask of
    /// the predecessors (`B` bits a pit; 0 for `o ≥ 5`): origin `o` gets
    /// back `r` seeds and pits `o + 1 ..= o + r` lose one each.
    fn adjiboto_unsow() -> &'static [Self];
}

/// A table of [`runs`] in the low bits of `$t` (every field of the
/// word's layout is within them).
macro_rules! narrow {
    ($t:ty, $r:expr) => {{
        let r = $r;
        let mut t = [[0 as $t; 13]; 7];
        let mut o = 0;
        while o < 7 {
            let mut i = 0;
            while i < 13 {
                t[o][i] = r[o][i] as $t;
                i += 1;
            }
            o += 1;
        }
        t
    }};
}

/// The [`Word`] impl of `$t`, with `$adjito` and `$boto` bits a pit, and
/// its tables.
macro_rules! word {
    ($t:ty, $adjito:expr, $boto:expr, $runs12:ident, $runs10:ident, $unsow12:ident, $unsow10:ident) => {
        static $runs12: Runs<$t> = narrow!($t, runs::<12, 6, $adjito>());
        static $runs10: Runs<$t> = narrow!($t, runs::<10, 5, $boto>());
        static $unsow12: [[$t; 12]; 6] = {
            let u = unsow::<12, 6, $adjito>();
            let mut t = [[0; 12]; 6];
            let mut o = 0;
            while o < 6 {
                let mut i = 0;
                while i < 12 {
                    t[o][i] = u[o][i] as $t;
                    i += 1;
                }
                o += 1;
            }
            t
        };
        static $unsow10: [$t; 10 * $boto] = {
            let u = unsow::<10, 5, $boto>();
            let mut t = [0; 10 * $boto];
            let mut i = 0;
            while i < 10 * $boto {
                if i % $boto < 5 {
                    t[i] = u[i % $boto][i / $boto] as $t;
                }
                i += 1;
            }
            t
        };
        impl Word for $t {
            const BITS: u32 = <$t>::BITS;
            const ADJITO_BITS: u32 = $adjito;
            const ADJIBOTO_BITS: u32 = $boto;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline]
            fn of(x: u64) -> Self {
                x as $t
            }
            #[inline]
            fn low(self) -> u64 {
                self as u64
            }
            #[inline]
            fn wrapping_add(self, o: Self) -> Self {
                <$t>::wrapping_add(self, o)
            }
            #[inline]
            fn wrapping_sub(self, o: Self) -> Self {
                <$t>::wrapping_sub(self, o)
            }
            #[inline]
            fn wrapping_mul(self, o: Self) -> Self {
                <$t>::wrapping_mul(self, o)
            }
            #[inline]
            fn trailing_zeros(self) -> u32 {
                <$t>::trailing_zeros(self)
            }
            #[inline]
            fn adjito_runs() -> &'static Runs<Self> {
                &$runs12
            }
            #[inline]
            fn adjiboto_runs() -> &'static Runs<Self> {
                &$runs10
            }
            #[inline]
            fn adjito_unsow() -> &'static [[Self; 12]; 6] {
                &$unsow12
            }
            #[inline]
            fn adjiboto_unsow() -> &'static [Self] {
                &$unsow10
            }
        }
    };
}

word!(u64, 5, 6, RUNS12_64, RUNS10_64, UNSOW12_64, UNSOW10_64);
word!(u128, 6, 7, RUNS12_128, RUNS10_128, UNSOW12_128, UNSOW10_128);

/// Bits per pit of a board packed into `W`: 5 for Adjito's 12 pits, 6
/// for Adji-Boto's 10 in 64 bits; 6 and 7 in 128 (the fewest that hold
/// the game's every seed: 48 and 100).
#[inline]
pub(crate) const fn pit_bits<G: Game, W: Word>() -> u32 {
    match G::ID {
        crate::rules::GameId::Adjito => W::ADJITO_BITS,
        crate::rules::GameId::AdjiBoto => W::ADJIBOTO_BITS,
    }
}

/// Whether every board of level `n` packs into `W` (no pit, nor any prefix
/// sum of pits, can exceed a field).
pub(crate) const fn packs<G: Game, W: Word>(n: u32) -> bool {
    n < (1 << pit_bits::<G, W>())
}

/// A board of a level that [`packs`], in `W`.
#[inline]
pub(crate) fn pack<G: Game, W: Word>(b: &[u8; MAX_PITS]) -> W {
    let bits = pit_bits::<G, W>();
    let mut x = W::ZERO;
    for i in (0..G::PITS).rev() {
        x = (x << bits) | W::of(b[i] as u64);
    }
    x
}

/// Inverse of [`pack`].
#[inline]
pub(crate) fn unpack<G: Game, W: Word>(mut x: W) -> [u8; MAX_PITS] {
    let bits = pit_bits::<G, W>();
    let mask = (W::ONE << bits) - W::ONE;
    let mut b = [0u8; MAX_PITS];
    for v in b.iter_mut().take(G::PITS) {
        *v = (x & mask).low() as u8;
        x = x >> bits;
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
pub(crate) fn rot<G: Game, W: Word>(x: W) -> W {
    let half = pit_bits::<G, W>() * (G::PITS / 2) as u32;
    let mask = (W::ONE << half) - W::ONE;
    (x >> half) | ((x & mask) << half)
}

/// Largest prefix sum of a packed board plus one (a level that packs
/// keeps every prefix sum below its field: at most 100, Adji-Boto's
/// seeds).
pub(crate) const SUMS: usize = 128;

/// `TERMS[j][c] = C(c + j, j + 1)`: the rank term of pit `j` when pits
/// `0..=j` hold `c` seeds.
pub(crate) static TERMS: [[u64; SUMS]; MAX_PITS] = terms();

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

/// The rank ([`crate::index::rank`]) of a packed board of a level that
/// packs.
#[inline]
pub(crate) fn rank_packed<G: Game, W: Word>(x: W) -> u64 {
    let bits = pit_bits::<G, W>();
    let mask = (W::ONE << bits) - W::ONE;
    // Every field of x · (1 + 2^bits + 2^2·bits + …) holds the prefix sum
    // of the pits up to it: no field overflows, since no sum exceeds the
    // level.
    let ones = (0..G::PITS).fold(W::ZERO, |m, i| m | W::ONE << (bits * i as u32));
    let sums = x.wrapping_mul(ones);
    let mut r = 0;
    for (j, t) in TERMS.iter().enumerate().take(G::PITS - 1) {
        r += t[((sums >> (bits * j as u32)) & mask).low() as usize & (SUMS - 1)];
    }
    r
}

/// One seed in each of the `r` pits after origin `o` ([`runs`]), in a
/// word's fields; `[H][N]` is one seed in every pit.
pub(crate) type Runs<W> = [[W; 13]; 7];

/// `RUN[o][r]`: one seed in each of the `r` pits after `o` on a ring of
/// `N` pits of `BITS` bits each (packed), for origins of the mover's row;
/// `RUN[H][N]` is one seed in every pit. In 128 bits; each word takes
/// its low bits.
pub(crate) const fn runs<const N: usize, const H: usize, const BITS: u32>() -> Runs<u128> {
    let mut t = [[0u128; 13]; 7];
    let mut o = 0;
    while o < H {
        let mut r = 1;
        while r < N {
            t[o][r] = t[o][r - 1] | 1 << (BITS * ((o + r) % N) as u32);
            r += 1;
        }
        o += 1;
    }
    let mut i = 0;
    while i < N {
        t[H][N] |= 1 << (BITS * i as u32);
        i += 1;
    }
    t
}

/// `t[o][r]` for a ring of `P` pits of `BITS` bits, origins `0..H`: the
/// origin `o` gains `r` seeds and the `r` pits after it lose one each
/// (`r < P`, so the origin is never among them), i.e. the origin's `r`
/// less the sowing's run ([`runs`]). In 128 bits (wrapping: a word takes
/// the low bits, the same difference modulo its size).
pub(crate) const fn unsow<const P: usize, const H: usize, const BITS: u32>() -> [[u128; P]; H] {
    let run = runs::<P, H, BITS>();
    let mut t = [[0u128; P]; H];
    let mut o = 0;
    while o < H {
        let mut r = 0;
        while r < P {
            t[o][r] = ((r as u128) << (BITS * o as u32)).wrapping_sub(run[o][r]);
            r += 1;
        }
        o += 1;
    }
    t
}

#[cfg(test)]
pub(crate) mod tests;
