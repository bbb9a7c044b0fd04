//! [`TableError`]: everything that can go wrong reading, writing, building
//! or verifying tables.

use std::path::{Path, PathBuf};

use crate::game::GameId;
use crate::value::LoopRule;

/// Everything that can go wrong reading, writing or building tables.
#[derive(Debug, thiserror::Error)]
pub enum TableError {
    /// An I/O error.
    #[error("{}: {source}", .path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Something other than a regular file (a directory, FIFO, device…)
    /// stands where a table file should be; it is never opened.
    #[error("{}: {what}; only a regular file can be a table", .path.display())]
    NotRegular {
        /// The path.
        path: PathBuf,
        /// What it is ("a FIFO", "a directory", …).
        what: String,
    },
    /// The file is shorter than its header says.
    #[error("{}: truncated table file: expected {expected} bytes, found {found}", .path.display())]
    Truncated {
        /// The file.
        path: PathBuf,
        /// Bytes expected.
        expected: u64,
        /// Bytes found.
        found: u64,
    },
    /// The file does not start with the table magic.
    #[error("{}: not an adji table file (bad magic)", .path.display())]
    NotATable {
        /// The file.
        path: PathBuf,
    },
    /// Unsupported format version.
    #[error("{}: unsupported table format version {found} (this tool reads version {reads}); rebuild the tables with `adji tables build`", .path.display())]
    Version {
        /// The file.
        path: PathBuf,
        /// Version found.
        found: u32,
        /// The version this tool reads
        /// ([`crate::tables::format::VERSION`]).
        reads: u32,
    },
    /// A checksum or field is wrong.
    #[error("{}: corrupted table: {what}", .path.display())]
    Corrupted {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// The file is for the other game.
    #[error("{}: table is for {found}, not {expected}", .path.display())]
    WrongGame {
        /// The file.
        path: PathBuf,
        /// Game wanted.
        expected: GameId,
        /// Game found.
        found: GameId,
    },
    /// The file was built under another rule set of the same game.
    #[error("{}: table was built with --rules {}, not --rules {}; tables of different rule sets cannot be mixed", .path.display(), .found.name(), .expected.name())]
    WrongRules {
        /// The file.
        path: PathBuf,
        /// Rule set wanted.
        expected: crate::rules::RuleSet,
        /// Rule set found.
        found: crate::rules::RuleSet,
    },
    /// The file was built under the other loop rule.
    #[error("{}: table was built with --loop {}, not --loop {}; tables of different loop rules cannot be mixed", .path.display(), .found.name(), .expected.name())]
    WrongRule {
        /// The file.
        path: PathBuf,
        /// Rule wanted.
        expected: LoopRule,
        /// Rule found.
        found: LoopRule,
    },
    /// The file holds another level than its name says.
    #[error("{}: file holds level {found}, expected level {expected}", .path.display())]
    WrongLevel {
        /// The file.
        path: PathBuf,
        /// Level wanted.
        expected: u32,
        /// Level found.
        found: u32,
    },
    /// A level the game cannot have (more seeds than the game holds).
    #[error("{}: level {level} is impossible for {game}, which has {total} seeds", .path.display())]
    LevelOutOfRange {
        /// The file.
        path: PathBuf,
        /// The game.
        game: GameId,
        /// The level asked for or found.
        level: u32,
        /// The game's seeds.
        total: u32,
    },
    /// A sharded level's manifest or one of its shards is wrong: missing,
    /// corrupt, of another place in the level, overlapping or leaving a
    /// gap ([`crate::tables::shard`]).
    #[error("{}: sharded level: {what}", .path.display())]
    Shards {
        /// The manifest or shard file.
        path: PathBuf,
        /// What is wrong.
        what: String,
    },
    /// A level is not built.
    #[error("level {level} is not built (no {})", .path.display())]
    Missing {
        /// The level.
        level: u32,
        /// Where it was looked for.
        path: PathBuf,
    },
    /// A level's build would need more memory than the budget allows;
    /// refused before anything is allocated.
    #[error("level {level} needs {} of memory but the budget is {}; lower the top level or raise the budget", fmt_gib(*.need), fmt_gib(*.budget))]
    OverBudget {
        /// The first level over the budget.
        level: u32,
        /// Bytes it needs at its peak.
        need: u64,
        /// The budget in bytes.
        budget: u64,
    },
    /// The builder cannot take a level this large
    /// ([`crate::tables::retrograde::max_build_level`]); refused before
    /// anything is allocated.
    #[error("level {level} ({positions} positions) is beyond the builder, which takes levels up to level {max}: {why}")]
    TooLarge {
        /// The level.
        level: u32,
        /// Its positions.
        positions: u64,
        /// The largest level the builder takes for this game.
        max: u32,
        /// Why the builder stops there
        /// ([`crate::tables::retrograde::LIMIT_REASON`]).
        why: &'static str,
    },
    /// Another build of the same files holds their lock in the directory
    /// ([`crate::tables::lock`]).
    #[error("{}: another command writing the same files ({what}, --loop {}: a `tables build`, `compress` or `decompress`) is running in this directory and holds this lock; wait for it to end or write into another directory", .lock.display(), .rule.name())]
    Locked {
        /// The lock file.
        lock: PathBuf,
        /// The game and rule set, as the command line names them.
        what: String,
        /// The loop rule.
        rule: LoopRule,
    },
    /// A value no position of the level can have: a value byte outside
    /// ±(seeds on the board), or an exception bound outside them (other
    /// than −∞ for `lo`, +∞ for `hi`) or with `lo > hi`.
    #[error("{}: impossible value at rank {rank}: {what}", .path.display())]
    ImpossibleValue {
        /// The file.
        path: PathBuf,
        /// The entry.
        rank: u64,
        /// What is wrong, with the value.
        what: String,
    },
    /// A probe reached damaged data in a level opened without the full
    /// check (a block that does not decode, a marked byte without its
    /// record): no value is read from it ([`crate::tables::damage`]).
    #[error("{what}; a probe reached this damaged data, so no value was read from it and the answer is refused (checking the tables in full, docs/TABLES.md, finds every damaged block)")]
    Damaged {
        /// What is damaged, with the file (and block) named.
        what: String,
    },
    /// A level compressed with don't-care entries
    /// ([`crate::tables::dontcare`]) read by a reader that does not hold
    /// the levels below it, without which its stored bytes are not values.
    #[error("{}: level {level} is compressed with don't-care entries, whose values are read through the levels below it; this command reads it only when those levels are beside it (probes, `tables checksum`, `tables decompress`): decompress it first with `adji tables decompress` (docs/TABLES.md)", .path.display())]
    DontCare {
        /// The compressed file.
        path: PathBuf,
        /// Its level.
        level: u32,
    },
}

impl TableError {
    /// [`TableError::Shards`] of `path`.
    pub(crate) fn shards(path: &Path, what: impl Into<String>) -> TableError {
        TableError::Shards {
            path: path.to_path_buf(),
            what: what.into(),
        }
    }

    /// [`TableError::Io`] of `path`, for `map_err`.
    pub(crate) fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> TableError + '_ {
        move |e| TableError::Io {
            path: path.to_path_buf(),
            source: e,
        }
    }

    /// The error for an I/O failure on `path`: a missing file becomes
    /// [`TableError::Missing`] of `level`; a path that is not a regular
    /// file becomes [`TableError::NotRegular`].
    pub fn from_open(path: &Path, level: u32, e: std::io::Error) -> TableError {
        let path = path.to_path_buf();
        match e.kind() {
            std::io::ErrorKind::NotFound => TableError::Missing { level, path },
            std::io::ErrorKind::InvalidInput => TableError::NotRegular {
                path,
                what: e.to_string(),
            },
            _ => TableError::Io { path, source: e },
        }
    }
}

/// Bytes as GiB with two decimals (for messages).
fn fmt_gib(b: u64) -> String {
    format!("{:.2} GiB", b as f64 / (1u64 << 30) as f64)
}
