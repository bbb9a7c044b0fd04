//! Compressed levels (`.adjz`), read in place: a level's value bytes in
//! independent zstd blocks of a few KiB, probed through a bounded cache
//! of decoded blocks, and given back byte for byte as the raw level file
//! they stand for.
//!
//! - [`format`]: the file format, documented byte by byte, and its writer
//!   (of any level that reads as raw, [`format::RawLevel`]);
//! - [`codec`]: one block's transform and zstd frame, both ways;
//! - [`reader`]: opening and checking a file, the block cache and probes
//!   (a [`crate::tables::Table`] reads a compressed level through it).
//!
//! Compressing and decompressing directories of levels, planned and
//! resumable, stands above the table, in [`crate::tables::convert`].
//!
//! Where a directory holds a level in more than one form, readers take
//! its raw level file first, then its compressed file, then its shards
//! ([`super::locate::locate_level`]).

mod atomic_bytes;
pub mod codec;
pub mod format;
pub mod reader;

pub use codec::Transform;
pub use format::{Codec, SUFFIX};
pub use reader::Compressed;

#[cfg(test)]
mod tests;
