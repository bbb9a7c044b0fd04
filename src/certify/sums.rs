//! Checksum lists and the SHA-256 of table levels: what `adji certify
//! check` and `adji tables checksum` compare tables with. The checker
//! ([`super::check`], which re-exports these) trusts only the list its
//! user names.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use crate::rules::RuleSet;
use crate::tables::format::file_name;
use crate::tables::locate::{locate_level, LevelAt};
use crate::tables::shard::stream_level;
use crate::tables::TableError;
use crate::value::LoopRule;

/// Whether the tables are the recorded, fully verified files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TablesStatus {
    /// No table leaf: nothing rests on the tables.
    Unused,
    /// Every level read has the SHA-256 recorded for it.
    Verified,
    /// Some level is not recorded, or differs (the file names).
    NotVerified(Vec<String>),
}

/// A checksum list in `sha256sum`'s format, as
/// `results/tables-checksums.txt` is: file name → lower-case hexadecimal
/// SHA-256. Read with [`parse_checksum_list`], which both `adji tables
/// checksum --check` and `adji certify check` use.
pub type ChecksumList = HashMap<String, String>;

/// A line of a checksum list that [`parse_checksum_list`] refuses.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    /// Not `HEX  NAME` (64 hexadecimal digits, two spaces or a space and
    /// `*`, a file name).
    #[error(
        "line {line}: expected 64 hexadecimal digits, two spaces (or a space and *) \
         and a file name, found '{text}'"
    )]
    Malformed {
        /// The line's number, from 1.
        line: usize,
        /// The line.
        text: String,
    },
    /// A file listed twice with different sums: the list contradicts itself.
    #[error("line {line}: {name} is listed again with another SHA-256 (first on line {first})")]
    Contradicts {
        /// The second line's number, from 1.
        line: usize,
        /// The first line's number.
        first: usize,
        /// The file name.
        name: String,
    },
}

/// Parses a checksum list: `HEX  NAME` lines (`HEX *NAME` too, as
/// `sha256sum -b` writes); blank lines and lines starting with `#` are
/// skipped. Any other line is an error naming it, so a list that cannot
/// be read whole verifies nothing; so is a name listed twice with
/// different sums (listed twice with the same sum is accepted).
///
/// # Errors
/// The first line refused, as a [`ListError`].
pub fn parse_checksum_list(text: &str) -> Result<ChecksumList, ListError> {
    // name → (sum, the line that first listed it)
    let mut list: HashMap<String, (String, usize)> = HashMap::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim_end();
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let (sum, name) = split_list_line(line).ok_or_else(|| ListError::Malformed {
            line: i + 1,
            text: line.to_string(),
        })?;
        let (want, first) = list
            .entry(name.to_string())
            .or_insert_with(|| (sum.to_ascii_lowercase(), i + 1));
        if !want.eq_ignore_ascii_case(sum) {
            return Err(ListError::Contradicts {
                line: i + 1,
                first: *first,
                name: name.to_string(),
            });
        }
    }
    Ok(list
        .into_iter()
        .map(|(name, (sum, _))| (name, sum))
        .collect())
}

/// The largest checksum list read (a line a level file: a few KiB).
pub const MAX_LIST_BYTES: u64 = 1 << 20;

/// Why a checksum list file cannot be read whole.
#[derive(Debug, thiserror::Error)]
pub enum ListFileError {
    /// Not a regular file, too large, or unreadable.
    #[error("{}: {source}", path.display())]
    Io {
        /// The list.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// Not UTF-8 text.
    #[error("{}: not UTF-8 text", path.display())]
    NotUtf8 {
        /// The list.
        path: PathBuf,
    },
    /// A line [`parse_checksum_list`] refuses.
    #[error("{} {source}", path.display())]
    Line {
        /// The list.
        path: PathBuf,
        /// The line and what is wrong with it.
        source: ListError,
    },
}

/// Reads the checksum list at `path` ([`parse_checksum_list`]): a regular
/// file of at most [`MAX_LIST_BYTES`] (a FIFO or device is refused before
/// it is opened, so nothing blocks).
///
/// # Errors
/// A [`ListFileError`] naming the file.
pub fn read_checksum_list(path: &Path) -> Result<ChecksumList, ListFileError> {
    let path_buf = || path.to_path_buf();
    let text = crate::fsutil::read_regular_to_string(path, MAX_LIST_BYTES).map_err(|e| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            ListFileError::NotUtf8 { path: path_buf() }
        } else {
            ListFileError::Io {
                path: path_buf(),
                source: e,
            }
        }
    })?;
    parse_checksum_list(&text).map_err(|source| ListFileError::Line {
        path: path_buf(),
        source,
    })
}

/// `(sum, name)` of a well-formed list line, or `None`.
fn split_list_line(line: &str) -> Option<(&str, &str)> {
    let (sum, name) = line.split_once(' ')?;
    let name = name.strip_prefix([' ', '*'])?;
    let hex = sum.len() == 64 && sum.bytes().all(|b| b.is_ascii_hexdigit());
    (hex && !name.is_empty()).then_some((sum, name))
}

/// How a file's SHA-256 stands against a [`ChecksumList`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Listed<'a> {
    /// Listed with this sum.
    Same,
    /// Listed with another sum (the listed one).
    Differs(&'a str),
    /// Not in the list.
    Unlisted,
}

/// Where `name`, whose SHA-256 is `sum` (hexadecimal), stands in `list`.
pub fn listed<'a>(list: &'a ChecksumList, name: &str, sum: &str) -> Listed<'a> {
    match list.get(name) {
        None => Listed::Unlisted,
        Some(want) if want.eq_ignore_ascii_case(sum) => Listed::Same,
        Some(want) => Listed::Differs(want),
    }
}

/// Compares the SHA-256 of each level file of `levels` in `dir` with the
/// list `recorded` (the list the user named, read with
/// [`parse_checksum_list`]). A sharded level (a manifest and shards, no
/// level file) is hashed as the level file its shards merge into
/// ([`level_sha256`]), so the same recorded line verifies it.
///
/// # Errors
/// A [`TableError`] reading a level file or a sharded level's shards.
pub fn tables_status(
    rules: RuleSet,
    rule: LoopRule,
    dir: &Path,
    levels: &[u32],
    recorded: &ChecksumList,
) -> Result<TablesStatus, TableError> {
    if levels.is_empty() {
        return Ok(TablesStatus::Unused);
    }
    let mut off = Vec::new();
    for &level in levels {
        let name = file_name(rules.tables(), rule, level);
        let sum = hex(&level_sha256(dir, rules, rule, level)?);
        match listed(recorded, &name, &sum) {
            Listed::Same => {}
            Listed::Differs(_) => off.push(format!("{name} (differs from the recorded SHA-256)")),
            Listed::Unlisted => off.push(format!("{name} (not recorded)")),
        }
    }
    Ok(if off.is_empty() {
        TablesStatus::Verified
    } else {
        TablesStatus::NotVerified(off)
    })
}

/// Lower-case hexadecimal of `b` (as `sha256sum` prints a digest).
pub fn hex(b: &[u8]) -> String {
    let mut s = String::with_capacity(2 * b.len());
    for x in b {
        let _ = write!(s, "{x:02x}");
    }
    s
}

/// SHA-256 of level `level`'s file in `dir`; when the level is stored
/// compressed there, of the raw level file it stands for (decoded, its
/// checksum checked); or, when the level is
/// sharded there (a manifest, no level file; as every reader takes it),
/// of the level file its shards merge into, streamed from the shards
/// (their checksums checked on the way) without writing it.
///
/// # Errors
/// A [`TableError`] naming the file and what is wrong.
pub fn level_sha256(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<[u8; 32], TableError> {
    use sha2::Digest;
    let rules = rules.tables();
    let mut h = sha2::Sha256::new();
    match locate_level(dir, rules, rule, level) {
        LevelAt::File(file) => {
            return file_sha256(&file).map_err(|e| TableError::from_open(&file, level, e));
        }
        LevelAt::Compressed(z) => {
            let c = crate::tables::compressed::Compressed::open(
                &z,
                rules,
                rule,
                level,
                crate::tables::OpenCheck::Header,
            )?;
            crate::tables::convert::compress::stream_raw(
                &c,
                &mut h,
                Path::new("(SHA-256)"),
                &crate::progress::NoProgress,
            )?;
            return Ok(h.finalize().into());
        }
        LevelAt::Shards(_) => {}
    }
    stream_level(&[dir.to_path_buf()], rules, rule, level, &mut h)?;
    Ok(h.finalize().into())
}

/// SHA-256 of the file at `path`, read in pieces (a level file may be
/// bigger than the memory at hand).
///
/// # Errors
/// An I/O error reading it.
pub fn file_sha256(path: &Path) -> std::io::Result<[u8; 32]> {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    std::io::copy(&mut std::fs::File::open(path)?, &mut h)?;
    Ok(h.finalize().into())
}

/// SHA-256 of `data` (the `sha2` crate), as `results/tables-checksums.txt`
/// records table files.
pub fn sha256(data: &[u8]) -> [u8; 32] {
    use sha2::Digest;
    sha2::Sha256::digest(data).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sha256_matches_the_standard_vectors() {
        assert_eq!(
            hex(&sha256(b"abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            hex(&sha256(b"")),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        let long = b"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
        assert_eq!(
            hex(&sha256(long)),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        );
    }

    #[test]
    fn a_file_hashed_in_pieces_matches_its_bytes_hashed_whole() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        // A million bytes, more than one read's buffer.
        let data: Vec<u8> = (0..1_000_000u32).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        assert_eq!(file_sha256(&path).unwrap(), sha256(&data));
        std::fs::write(&path, b"abc").unwrap();
        assert_eq!(
            hex(&file_sha256(&path).unwrap()),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    /// The one parser of checksum lists: `sha256sum`'s two forms, comments
    /// and blank lines; every other line refused, naming it; a file listed
    /// twice with different sums refused (the lenient parser `certify
    /// check` had kept the last line, so a wrong first line followed by a
    /// right one verified).
    #[test]
    fn checksum_lists_are_read_whole_or_refused_naming_the_line() {
        let (a, b) = ("ab".repeat(32), "CD".repeat(32));
        let text = format!("# sums\n\n{a}  x.adjt\n{b} *y.adjt  \n{a}  x.adjt\n");
        let list = parse_checksum_list(&text).unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(listed(&list, "x.adjt", &a), Listed::Same);
        assert_eq!(listed(&list, "y.adjt", &b.to_lowercase()), Listed::Same);
        assert_eq!(
            listed(&list, "y.adjt", &a),
            Listed::Differs(&"cd".repeat(32))
        );
        assert_eq!(listed(&list, "z.adjt", &a), Listed::Unlisted);
        for bad in [
            "abc  x.adjt".to_string(),
            format!("{a}x.adjt"),
            format!("{a}  "),
            format!("{a}\tx.adjt"),
            format!("{}  x.adjt", "g".repeat(64)),
            "x.adjt".to_string(),
        ] {
            let e = parse_checksum_list(&format!("# c\n{bad}\n")).unwrap_err();
            assert!(
                matches!(e, ListError::Malformed { line: 2, .. }),
                "{bad}: {e}"
            );
            assert!(e.to_string().starts_with("line 2: expected 64"), "{e}");
        }
        let e = parse_checksum_list(&format!("{b}  x.adjt\n\n{a}  x.adjt\n")).unwrap_err();
        let want = "line 3: x.adjt is listed again with another SHA-256 (first on line 1)";
        assert_eq!(e.to_string(), want);
    }
}
