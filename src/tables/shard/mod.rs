//! Sharded levels: a level stored as several shard files and a manifest,
//! each shard holding a stretch of the level's ranks; what a distributed or
//! out-of-core build writes. A [`crate::tables::Table`] reads a sharded
//! level ([`Shards`]) like a level file (a level file in the same
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

use std::io::Write;
use std::path::{Path, PathBuf};

use memmap2::Mmap;

use super::error::TableError;
use super::format::{self, Bounds, Header, HEADER_LEN};
use super::payload::{check_segments, Data, OpenCheck, Segment};
use crate::fsutil::{open_regular, write_atomic_with};
use crate::game::GameId;
use crate::index::level_size;
use crate::rules::RuleSet;
use crate::value::LoopRule;

/// Shard file magic (the version byte follows).
pub const SHARD_MAGIC: &[u8; 7] = b"ADJISHD";
/// Shard file format version.
pub const SHARD_VERSION: u8 = 1;
/// Manifest format name.
pub const MANIFEST_FORMAT: &str = "adji-shards";
/// Manifest format version.
pub const MANIFEST_VERSION: u32 = 1;
/// Suffix of manifest file names, after the level.
pub const MANIFEST_SUFFIX: &str = ".shards.json";
/// Suffix of shard file names.
pub const SHARD_SUFFIX: &str = ".adjs";
/// The largest manifest read (far above a million shards' worth).
const MANIFEST_MAX: u64 = 256 << 20;
/// The most shards a level may have. A reader maps every shard of every
/// level it opens, and Linux allows a process 65,530 mappings by default
/// (`vm.max_map_count`): a level split into 66,030 shards could not be
/// read at all ("Cannot allocate memory"). 512 shards for each of
/// Adji-Boto's 101 levels stay under that limit with room to spare.
pub const MAX_SHARDS: u32 = 512;

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

/// [`TableError::Shards`] of `path`.
pub(in crate::tables) fn shards_error(path: &Path, what: impl Into<String>) -> TableError {
    TableError::Shards {
        path: path.to_path_buf(),
        what: what.into(),
    }
}

/// [`TableError::Io`] of `path`.
pub(in crate::tables) fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
    move |e| TableError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

#[cfg(test)]
mod tests;
