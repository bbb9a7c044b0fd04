//! Sharded levels: a level stored as several shard files and a manifest,
//! each shard holding a stretch of the level's ranks; what a distributed or
//! out-of-core build writes. A [`crate::tables::Table`] reads a sharded
//! level (`open::Shards`) like a level file (a level file in the same
//! directory wins over a manifest); [`stream_level`] gives the bytes of
//! the level file the shards merge into, byte for byte what a one-process
//! build writes. Merging into that file and splitting a level into shards
//! stand above the table, in [`crate::tables::convert`].
//!
//! - [`name`]: the names of level files, shards and manifests;
//! - [`file`]: the shard file format, writing and checking a shard;
//! - [`manifest`]: the manifest format, writing and reading one;
//! - [`open`]: a sharded level's shards mapped and checked, read entry by
//!   entry;
//! - [`merge`]: shards found, checked and streamed as the level file.
//!
//! Each file imports only those listed before it; this module defines
//! nothing, and only hands their names on.

mod file;
mod manifest;
mod merge;
mod name;
mod open;

pub use file::*;
pub use manifest::*;
pub use merge::*;
pub use name::*;
pub(in crate::tables) use open::*;

#[cfg(test)]
mod tests;
