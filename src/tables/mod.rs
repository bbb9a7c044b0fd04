//! Endgame tables: one file per level (seeds on the board), every position
//! of the level stored, values exactly as docs/RULES.md §4 defines them.
//!
//! From the ground up, each module importing only those listed before it:
//!
//! - [`TableError`]: everything that can go wrong with tables;
//! - [`format`]: the level file format, its names and atomic writes;
//! - `walk`: a level's positions in rank order ([`level_positions`]) and
//!   the cache hint of a walk;
//! - `payload`: a level's bytes (mapped or in memory), the stretches of
//!   entries they hold, and their checks as a level is opened
//!   ([`OpenCheck`]);
//! - `damage`: what a probe of a trusted level finds broken, never a value;
//! - [`lock`]: the build locks of a directory and its stale temporary files;
//! - the three storage forms of a level, each owning its bytes and their
//!   access: `level_file` (one level file), [`shard`] (shard files and a
//!   manifest) and [`compressed`] (`.adjz`, blocks read in place through a
//!   cache of decoded blocks);
//! - [`locate`]: which form a level is read from, and which levels a
//!   directory holds;
//! - `table`: one level's [`Table`] in any form, opened, checked and probed;
//! - [`convert`]: conversions between the forms (shards merged and split,
//!   levels compressed and decompressed), each through a [`Table`];
//! - `set`: a [`TableSet`], the levels of one family probed by position;
//! - `moves`: the value of each legal move of a position, from the tables;
//! - [`stats`]: per-level statistics; [`bench`]: probe speed;
//! - [`retrograde`]: the parallel retrograde builder (named for its algorithm, not build output);
//! - [`verify`]: header, checksum and successor checks.
//!
//! This module defines nothing: it hands the names above on to the rest
//! of the crate, and no module under it imports through it.
//!
//! Boards are indexed relative to the mover with one colex rank per level
//! ([`crate::index`]); Adji-Boto tables cover main-phase positions only.

pub mod bench;
pub mod compressed;
pub mod convert;
mod damage;
pub mod dontcare;
mod error;
mod exits;
mod form;
pub mod format;
mod level_file;
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
mod walk;

pub use error::TableError;
pub use format::{level_path, Header};
pub use moves::{move_values, MoveValue};
pub use payload::OpenCheck;
pub use set::TableSet;
pub use table::Table;
pub use walk::level_positions;

#[cfg(test)]
mod tests;
