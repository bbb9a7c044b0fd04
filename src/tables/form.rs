//! The one interface of a storage form: how a [`crate::tables::Table`]
//! reads a level's bytes, whichever files hold them.
//!
//! Three forms implement [`Form`], each in its own module: one level file
//! (`level_file.rs`), the shards of a level (`shard/`), and a compressed
//! level file (`compressed/`). `Table` holds one of them in its `Storage`
//! enum and reaches it through one macro, `each_form!` (`table.rs`); a
//! fourth form implements this trait in its own module and adds one
//! variant to `Storage` and one arm to `each_form!`, and, if it is to be
//! copied into memory, one arm to `Table::into_memory`.
//!
//! The method names differ from the forms' own (`byte`, `records`, …) so
//! that a form's inherent methods never shadow these.

use std::path::Path;

use super::error::TableError;
use super::format::{Header, HEADER_LEN};
use super::payload::Segment;

/// A storage form of one level's bytes: its value bytes, its exception
/// records, and what it maps and allocates.
pub(super) trait Form {
    /// The value byte of entry `idx` (one the table holds).
    ///
    /// # Errors
    /// A form that decodes its bytes (a compressed block) names the file
    /// and block that no longer decode; the others never fail.
    fn value_byte(&self, idx: usize) -> Result<u8, TableError>;

    /// The byte of entry `idx` where it lies in memory, for a prefetch;
    /// `None` where the form has no such byte (a compressed block).
    fn entry_ref(&self, _idx: usize) -> Option<&u8> {
        None
    }

    /// Hints the processor to fetch entry `idx` (no effect on results):
    /// its byte where [`Form::entry_ref`] gives one; a form that keeps
    /// its entries elsewhere (a compressed level's cache) says where.
    #[inline(always)]
    fn prefetch_entry(&self, idx: usize) {
        if let Some(b) = self.entry_ref(idx) {
            super::walk::prefetch(b);
        }
    }

    /// The sorted exception records among which entry `idx`'s would be.
    fn records_near(&self, idx: usize) -> &[u8];

    /// The form's stretches of raw entries, in rank order (checked when
    /// opened, copied whole); none for a form checked otherwise.
    fn segments_at<'a>(&'a self, _path: &'a Path) -> Vec<Segment<'a>> {
        Vec::new()
    }

    /// Whether entry `idx` of a level of `count` entries is in the form's
    /// files (a sharded table may hold only some shards).
    fn holds_entry(&self, idx: u64, count: usize) -> bool {
        idx < count as u64
    }

    /// Bytes of files mapped read-only (page cache, not allocations).
    fn mapped(&self) -> u64;

    /// Bytes allocated: a copy in memory, or a cache of decoded blocks.
    fn allocated(&self) -> u64;

    /// The 64-byte header of the raw level file the form is or stands for;
    /// `header` is the level's, decoded.
    fn header_bytes(&self, header: &Header) -> [u8; HEADER_LEN];

    /// Every exception record of the level, in rank order.
    fn all_records(&self) -> Vec<u8> {
        self.segments_at(Path::new(""))
            .iter()
            .flat_map(|s| s.records.iter().copied())
            .collect()
    }

    /// Copies the value bytes of entries `first .. first + out.len()`.
    ///
    /// # Errors
    /// As [`Form::value_byte`].
    fn copy_values(&self, first: usize, out: &mut [u8]) -> Result<(), TableError>;
}
