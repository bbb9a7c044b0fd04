//! The forward pass through disk: a level built in memory whose cells and
//! lower levels do not fit in memory together.
//!
//! Only the forward pass reads the lower levels (the captures' values); the
//! acyclic pass and the sweep touch the level's own cells alone. A *staged*
//! level ([`super::plan::LevelPlan::staged`]) is therefore built in two phases:
//!
//! 1. with the lower levels in memory, the forward pass runs over slabs of
//!    [`STAGE_SLAB`] positions into one buffer, and each slab's cells are
//!    written to a scratch file ([`Stage`]), their cached pages dropped
//!    once on disk;
//! 2. the lower levels are released, the cells allocated and read back
//!    ([`load`]), and the build goes on as in memory; the scratch file is
//!    removed when the level is written.
//!
//! The peak is then the larger of the two phases, not their sum: at
//! Adji-Boto 43, 14.7 GiB of lower levels or 6.9 GiB of cells, where the
//! one-phase build needs 21.7 GiB. The cells written are those the
//! one-phase forward pass leaves, so the level's file is the same byte for
//! byte. The scratch file is written once and read once (2 bytes a
//! position each way); a killed build removes it as a stale temporary file
//! ([`crate::tables::lock`]) and builds the level again.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use super::frontier::DIRTY_CHUNK;
use crate::fsutil::{TMP_PREFIX, TMP_SUFFIX};
use crate::tables::error::TableError;

/// Positions of one slab of the staged forward pass: its buffer holds 2
/// bytes each (128 MiB). A multiple of the chunks of the dirty marks.
pub const STAGE_SLAB: usize = 1 << 26;

/// Memory the staged forward pass takes besides the lower levels: one
/// slab's cells, and its dirty marks; in groups of lower levels, a second
/// slab, the cells of the groups before (see [`super::plan::LevelPlan::lower_groups`]).
pub fn stage_buffer_bytes(positions: u64, groups: bool) -> u64 {
    let slab = positions.min(STAGE_SLAB as u64);
    (2 + 2 * groups as u64) * slab + slab.div_ceil(DIRTY_CHUNK as u64)
}

/// The scratch file of level `n`'s staged forward pass in `dir`.
pub(super) fn stage_path(dir: &Path, n: u32) -> PathBuf {
    dir.join(format!("{TMP_PREFIX}staged-{n:03}-forward{TMP_SUFFIX}"))
}

/// The scratch file of a staged forward pass, open for reading and writing.
pub(super) struct Stage {
    file: File,
    path: PathBuf,
}

impl Stage {
    /// Opens the scratch file at `path` for reading and writing, created
    /// (or truncated) when `fresh`.
    ///
    /// # Errors
    /// [`TableError::Io`] naming `path`.
    pub(super) fn open(path: &Path, fresh: bool) -> Result<Stage, TableError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(fresh)
            .truncate(fresh)
            .open(path)
            .map_err(TableError::io_at(path))?;
        Ok(Stage {
            file,
            path: path.to_path_buf(),
        })
    }

    /// Writes the cells `words` of ranks `start..` to disk and drops their
    /// cached pages.
    ///
    /// # Errors
    /// [`TableError::Io`] naming the file.
    pub(super) fn write(&self, start: usize, words: &[u16]) -> Result<(), TableError> {
        let at = 2 * start as u64;
        let f = &self.file;
        f.write_all_at(as_bytes(words), at)
            .and_then(|()| f.sync_data())
            .map_err(TableError::io_at(&self.path))?;
        drop_pages(f, at, 2 * words.len() as u64);
        Ok(())
    }

    /// Reads the cells of ranks `start..start + words.len()` written
    /// before into `words`, and drops their cached pages.
    ///
    /// # Errors
    /// [`TableError::Io`] naming the file.
    pub(super) fn read(&self, start: usize, words: &mut [u16]) -> Result<(), TableError> {
        let at = 2 * start as u64;
        self.file
            .read_exact_at(as_bytes_mut(words), at)
            .map_err(TableError::io_at(&self.path))?;
        drop_pages(&self.file, at, 2 * words.len() as u64);
        Ok(())
    }
}

/// Reads the cells a [`Stage`] wrote to `path` into `words`, slab
/// by slab, dropping the file's cached pages as it goes.
///
/// # Errors
/// I/O errors, and a file shorter than the cells.
pub(super) fn load(words: &mut [u16], path: &Path) -> Result<(), TableError> {
    let stage = Stage::open(path, false)?;
    for (k, slab) in words.chunks_mut(STAGE_SLAB).enumerate() {
        stage.read(k * STAGE_SLAB, slab)?;
    }
    Ok(())
}

/// The bytes of `words`, in the machine's order (the file is scratch, read
/// back by the process that wrote it).
fn as_bytes(words: &[u16]) -> &[u8] {
    // SAFETY: u16 has no padding, and u8's alignment is 1.
    unsafe { std::slice::from_raw_parts(words.as_ptr() as *const u8, 2 * words.len()) }
}

/// [`as_bytes`], for writing.
fn as_bytes_mut(words: &mut [u16]) -> &mut [u8] {
    // SAFETY: as `as_bytes`; every byte pattern is a valid u16.
    unsafe { std::slice::from_raw_parts_mut(words.as_mut_ptr() as *mut u8, 2 * words.len()) }
}

/// Asks the kernel to drop the cached pages of `len` bytes of `f` at `at`
/// (to the end when `len` is 0; written back already): a scratch file's,
/// or a lower level's that the builder holds a copy of, so that they do
/// not take the memory the next phase needs. A hint: failures are ignored.
pub(super) fn drop_pages(f: &File, at: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: posix_fadvise takes an open descriptor and reads no memory
        // of ours.
        unsafe {
            libc::posix_fadvise(
                f.as_raw_fd(),
                at as libc::off_t,
                len as libc::off_t,
                libc::POSIX_FADV_DONTNEED,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (f, at, len);
}
