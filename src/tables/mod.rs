//! Endgame tables: one file per level (seeds on the board), every position
//! of the level stored, values exactly as docs/RULES.md §4 defines them.
//!
//! - [`TableError`]: everything that can go wrong with tables;
//! - `table`: one level's [`Table`], opened, checked and probed;
//! - `set`: a [`TableSet`], the levels of one family probed by position;
//! - [`format`]: the level file format, its names and atomic writes;
//! - [`locate`]: where a level's bytes are (a level file or a manifest),
//!   and which levels a directory holds;
//! - [`shard`]: a level stored as shard files and a manifest, merged and
//!   split (a [`Table`] reads either form);
//! - [`compressed`]: a level stored compressed (`.adjz`) in blocks, read
//!   in place through a cache of decoded blocks;
//! - [`lock`]: the build locks of a directory and its stale temporary files;
//! - [`retrograde`]: the parallel retrograde builder (named for its algorithm, not build output);
//! - `damage`: what a probe of a trusted level finds broken, never a value;
//! - `payload`: the checks of a level's bytes as it is opened;
//! - [`verify`]: header, checksum and successor checks;
//! - [`stats`]: per-level statistics;
//! - `moves`: the value of each legal move of a position, from the tables;
//! - [`bench`]: probe speed.
//!
//! Boards are indexed relative to the mover with one colex rank per level
//! ([`crate::index`]); Adji-Boto tables cover main-phase positions only.

pub mod bench;
pub mod compressed;
mod damage;
mod error;
pub mod format;
pub mod locate;
pub mod lock;
mod moves;
mod payload;
pub mod retrograde;
mod set;
pub mod shard;
pub mod stats;
mod table;
pub mod verify;

use crate::game::{Game, Position};

pub use format::{level_path, Header};

pub use error::TableError;
pub use moves::{move_values, MoveValue};
pub use set::TableSet;
pub(in crate::tables) use table::{Data, Segment, Storage};
pub use table::{OpenCheck, Table};

/// Bytes as GiB with two decimals (for messages).
pub(crate) fn fmt_gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}

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

#[cfg(test)]
mod tests;
