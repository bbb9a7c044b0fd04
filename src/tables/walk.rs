//! The walk over a level that every pass shares: its positions in rank
//! order ([`level_positions`]), and the cache hint a walk gives for what
//! it reads next ([`prefetch`]).

use crate::game::{Game, Position};

/// Hints the processor to fetch the cache line of `x` (no effect on
/// results; a no-op off x86-64).
#[inline(always)]
pub(crate) fn prefetch<T>(x: &T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: prefetching is a hint; the address is a valid reference.
    unsafe {
        std::arch::x86_64::_mm_prefetch(x as *const T as *const i8, std::arch::x86_64::_MM_HINT_T0);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = x;
}

/// The positions (mover to move, main phase) of ranks `ranks` of `level`,
/// with their ranks, in rank order: the walk every per-level pass makes.
pub fn level_positions<G: Game>(
    level: u32,
    ranks: std::ops::Range<u64>,
) -> impl Iterator<Item = (u64, Position)> {
    crate::index::boards(ranks, level as usize, G::PITS).map(|(r, pits)| {
        (
            r,
            Position {
                pits,
                side: 0,
                opening: 0,
            },
        )
    })
}
