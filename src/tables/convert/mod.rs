//! Conversions between a level's storage forms, each reading the level
//! as a [`crate::tables::Table`] and checking what it writes by opening
//! it again: so they stand above the table, and the forms below it
//! (`shard`, `compressed`) never name it.
//!
//! - [`shards`]: shards merged into the level file, and a level split
//!   into shards;
//! - [`compress`]: directories of levels compressed and decompressed,
//!   planned and resumable.

pub mod compress;
pub mod shards;

pub use shards::{merge_level, split_level, Merged};
