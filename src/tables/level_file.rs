//! A level stored as one level file ([`super::format`]), mapped and
//! checked when opened, and its bytes read entry by entry: the level-file
//! form of a [`crate::tables::Table`].

use std::path::Path;

use super::error::TableError;
use super::form::Form;
use super::format::{self, Header, HEADER_LEN};
use super::payload::{check_len, check_segments, map_file, Data, OpenCheck, Segment};
use crate::rules::RuleSet;
use crate::value::LoopRule;

/// A level file's bytes: header, value bytes, exception records.
pub(super) struct LevelFile {
    data: Data,
    /// Entries.
    count: usize,
}

impl LevelFile {
    /// Maps the level file `file` (at `path`) and checks it: its header
    /// against `rules`, `rule` and `level`, its size, and per `check` its
    /// payload ([`check_segments`]). Returns it with its header.
    ///
    /// # Errors
    /// A [`TableError`] naming the problem; never panics on a bad file.
    pub(super) fn open(
        path: &Path,
        file: &std::fs::File,
        (rules, rule, level): (RuleSet, LoopRule, u32),
        check: OpenCheck,
    ) -> Result<(LevelFile, Header), TableError> {
        let map = map_file(path, file)?;
        let header = Header::decode(path, &map)?;
        header.expect(path, rules, rule, level)?;
        check_len(path, map.len() as u64, header.file_len())?;
        let f = LevelFile {
            data: Data::Mapped(map),
            count: header.count as usize,
        };
        let width = format::record_len(header.count);
        check_segments(&[f.segment(path)], &header, width, check)?;
        Ok((f, header))
    }

    /// The bytes wrapped as a level file of `count` entries (a
    /// compressed level decoded whole into the file it stands for).
    pub(super) fn loaded(m: memmap2::MmapMut, count: usize) -> LevelFile {
        LevelFile {
            data: Data::Loaded(m),
            count,
        }
    }

    /// The exception records.
    fn records(&self) -> &[u8] {
        &self.data[HEADER_LEN + self.count..]
    }

    /// The whole level as one segment (its file at `path`).
    pub(super) fn segment<'a>(&'a self, path: &'a Path) -> Segment<'a> {
        Segment {
            first: 0,
            values: &self.data[HEADER_LEN..HEADER_LEN + self.count],
            records: self.records(),
            path,
            crcs: None,
        }
    }

    /// The file copied into anonymous memory ([`Data::into_memory`]).
    pub(super) fn into_memory(self) -> std::io::Result<LevelFile> {
        Ok(LevelFile {
            data: self.data.into_memory()?,
            ..self
        })
    }
}

/// A level file as a storage form: every entry in the one file, its
/// value bytes after the header, its exception records after them.
impl Form for LevelFile {
    #[inline(always)]
    fn value_byte(&self, idx: usize) -> Result<u8, TableError> {
        Ok(self.data[HEADER_LEN..HEADER_LEN + self.count][idx])
    }

    #[inline(always)]
    fn entry_ref(&self, idx: usize) -> Option<&u8> {
        self.data.get(HEADER_LEN + idx)
    }

    fn records_near(&self, _idx: usize) -> &[u8] {
        self.records()
    }

    fn segments_at<'a>(&'a self, path: &'a Path) -> Vec<Segment<'a>> {
        vec![self.segment(path)]
    }

    fn mapped(&self) -> u64 {
        self.data.mapped_len()
    }

    fn allocated(&self) -> u64 {
        self.data.len() as u64 - self.data.mapped_len()
    }

    fn header_bytes(&self, _header: &Header) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h.copy_from_slice(&self.data[..HEADER_LEN]);
        h
    }

    fn copy_values(&self, first: usize, out: &mut [u8]) -> Result<(), TableError> {
        out.copy_from_slice(&self.data[HEADER_LEN + first..HEADER_LEN + first + out.len()]);
        Ok(())
    }
}
