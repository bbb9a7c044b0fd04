//! Manifests: their format, writing one and reading one back with its
//! checks.
//!
//! # Manifest (version 1)
//!
//! `GAME-[RULES-]LOOP-LLL.shards.json` ([`manifest_path`]), in the
//! directory of the shards, is a JSON object ([`Manifest`]):
//!
//! ```text
//! format        "adji-shards"
//! version       1
//! game, rules, loop   names as on the command line ("adjito", "default", "start")
//! level         seeds on the board
//! count         the level's entries N
//! exceptions    the level's exception records, all shards
//! record_len    bytes per exception record (format::record_len(N))
//! tool          the build tool's version, as the level file's header gets it
//! payload_crc   CRC-32 of the level file's payload (value bytes of every
//!               shard, then every shard's records), which is the header's
//!               payload CRC; from the shards' CRCs by crc32fast's
//!               `Hasher::combine` (lengths count and X·record_len)
//! shards        one object per shard, by index: index, of, first, count,
//!               exceptions, values_crc, exceptions_crc, file (a name, no
//!               directory); together exactly 0..N without gap or overlap
//! checksum      CRC-32 of the compact JSON of this object with checksum 0,
//!               fields in the order above
//! ```
//!
//! Opening checks the manifest's checksum and consistency, every shard's
//! header against the manifest, sizes, and (with
//! [`super::OpenCheck::Full`]) every shard's checksums: a missing,
//! corrupt, overlapping or gapped shard is one [`TableError`] naming the
//! file and what is wrong.

use std::path::{Path, PathBuf};

use crate::fsutil::open_regular;
use crate::game::GameId;
use crate::index::level_size;
use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format::{self, Header};
use crate::value::LoopRule;

use super::file::{payload_crc, ShardInfo};
use super::name::{manifest_path, shard_name};

/// Manifest format name.
pub const MANIFEST_FORMAT: &str = "adji-shards";
/// Manifest format version.
pub const MANIFEST_VERSION: u32 = 1;
/// The largest manifest read (far above a million shards' worth).
const MANIFEST_MAX: u64 = 256 << 20;
/// The most shards a level may have. A reader maps every shard of every
/// level it opens, and Linux allows a process 65,530 mappings by default
/// (`vm.max_map_count`): a level split into 66,030 shards could not be
/// read at all ("Cannot allocate memory"). 512 shards for each of
/// Adji-Boto's 101 levels stay under that limit with room to spare.
pub const MAX_SHARDS: u32 = 512;

/// A level's manifest (see the module documentation).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    /// [`MANIFEST_FORMAT`].
    pub format: String,
    /// [`MANIFEST_VERSION`].
    pub version: u32,
    /// The game's name.
    pub game: String,
    /// The rule set's name (of its tables).
    pub rules: String,
    /// The loop rule's name.
    #[serde(rename = "loop")]
    pub rule: String,
    /// Seeds on the board.
    pub level: u32,
    /// The level's entries.
    pub count: u64,
    /// The level's exception records.
    pub exceptions: u64,
    /// Bytes per exception record.
    pub record_len: u32,
    /// Build-tool version, for the level file's header.
    pub tool: String,
    /// CRC-32 of the level file's payload.
    pub payload_crc: u32,
    /// The shards, by index.
    pub shards: Vec<ShardInfo>,
    /// CRC-32 of the compact JSON of the manifest with this field 0.
    pub checksum: u32,
}

/// Checks that `shards` (by index) are shards `0..of` of one level of
/// `total` entries, named as [`shard_name`] names them, covering it
/// exactly in rank order.
pub(super) fn check_cover(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    total: u64,
    shards: &[ShardInfo],
) -> Result<(), TableError> {
    let err = |what: String| Err(TableError::shards(path, what));
    if shards.is_empty() {
        return err("no shards listed".into());
    }
    let of = shards[0].of;
    let mut next = 0u64;
    for (i, s) in shards.iter().enumerate() {
        if s.of != of {
            return err(format!(
                "shards disagree on the level's number of shards: {of} and {}",
                s.of
            ));
        }
        if s.index as usize != i || s.index >= of {
            let what = if (s.index as usize) < i {
                "listed twice"
            } else {
                "not listed"
            };
            let missing = if what == "listed twice" {
                s.index
            } else {
                i as u32
            };
            return err(format!("shard {missing} of {of} is {what}"));
        }
        let name = shard_name(rules, rule, level, s.index, s.of);
        if s.file != name {
            return err(format!(
                "shard {i} is named {:?}, expected {name:?}",
                s.file
            ));
        }
        if s.first > next {
            return err(format!(
                "gap: entries {next}..{} are in no shard (shard {i} starts at {})",
                s.first, s.first
            ));
        }
        if s.first < next {
            return err(format!(
                "overlap: shard {i} starts at {} but the shards before it end at {next}",
                s.first
            ));
        }
        if s.exceptions > s.count {
            return err(format!(
                "shard {i}: {} exceptions for {} entries",
                s.exceptions, s.count
            ));
        }
        next = s.first.saturating_add(s.count);
    }
    if shards.len() < of as usize {
        return err(format!("shard {} of {of} is not listed", shards.len()));
    }
    if next != total {
        return err(format!(
            "the shards cover entries 0..{next} but level {level} has {total}"
        ));
    }
    Ok(())
}

impl Manifest {
    /// The manifest of a level from its shards (by index), its checksum
    /// set.
    pub(super) fn new(
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
        total: u64,
        shards: Vec<ShardInfo>,
    ) -> Self {
        let width = format::record_len(total);
        let mut m = Manifest {
            format: MANIFEST_FORMAT.into(),
            version: MANIFEST_VERSION,
            game: rules.game().name().into(),
            rules: rules.name().into(),
            rule: rule.name().into(),
            level,
            count: total,
            exceptions: shards.iter().map(|s| s.exceptions).sum(),
            record_len: width as u32,
            tool: format::tool_version(),
            payload_crc: payload_crc(&shards, width),
            shards,
            checksum: 0,
        };
        m.checksum = m.computed_checksum();
        m
    }

    /// The CRC-32 of the compact JSON of the manifest with checksum 0.
    pub fn computed_checksum(&self) -> u32 {
        let body = Manifest {
            checksum: 0,
            ..self.clone()
        };
        crc32fast::hash(&serde_json::to_vec(&body).unwrap_or_default())
    }

    /// The header of the level file the shards merge into.
    pub fn level_header(&self, rules: RuleSet, rule: LoopRule) -> Header {
        Header {
            game: rules.game(),
            rules: rules.tables(),
            rule,
            level: self.level as u16,
            count: self.count,
            exceptions: self.exceptions,
            tool: self.tool.clone(),
            payload_crc: self.payload_crc,
        }
    }

    /// Checks everything a manifest states against itself and against the
    /// level wanted.
    pub(super) fn check(
        &self,
        path: &Path,
        rules: RuleSet,
        rule: LoopRule,
        level: u32,
    ) -> Result<(), TableError> {
        let bad = |what: String| Err(TableError::shards(path, what));
        if self.format != MANIFEST_FORMAT || self.version != MANIFEST_VERSION {
            return bad(format!(
                "manifest format {:?} version {}, this tool reads {MANIFEST_FORMAT:?} version \
                 {MANIFEST_VERSION}",
                self.format, self.version
            ));
        }
        if self.checksum != self.computed_checksum() {
            return bad("manifest checksum mismatch".into());
        }
        let game = GameId::ALL
            .into_iter()
            .find(|g| g.name() == self.game)
            .ok_or_else(|| TableError::shards(path, format!("unknown game {:?}", self.game)))?;
        let found_rules = RuleSet::parse(game, &self.rules)
            .map_err(|e| TableError::shards(path, e.to_string()))?;
        let found_rule = [LoopRule::Start, LoopRule::Even]
            .into_iter()
            .find(|r| r.name() == self.rule)
            .ok_or_else(|| {
                TableError::shards(path, format!("unknown loop rule {:?}", self.rule))
            })?;
        format::check_level(path, game, self.level)?;
        let found = Header {
            game,
            rules: found_rules,
            rule: found_rule,
            level: self.level as u16,
            count: 0,
            exceptions: 0,
            tool: String::new(),
            payload_crc: 0,
        };
        found.expect(path, rules.tables(), rule, level)?;
        let total = level_size(level as usize, format::pits_of(game));
        if self.count != total {
            return bad(format!(
                "entry count {} but level {level} has {total} positions",
                self.count
            ));
        }
        let width = format::record_len(total);
        if self.record_len as usize != width {
            return bad(format!(
                "record length {} but level {level} has {width}-byte records",
                self.record_len
            ));
        }
        if self.shards.len() > MAX_SHARDS as usize {
            return bad(format!(
                "{} shards, more than the {MAX_SHARDS} a level may have",
                self.shards.len()
            ));
        }
        check_cover(path, rules, rule, level, total, &self.shards)?;
        let exc: u64 = self.shards.iter().map(|s| s.exceptions).sum();
        if exc != self.exceptions {
            return bad(format!(
                "{} exceptions, but its shards list {exc}",
                self.exceptions
            ));
        }
        if payload_crc(&self.shards, width) != self.payload_crc {
            return bad("payload checksum does not match the shards' checksums".into());
        }
        Ok(())
    }
}

/// Writes the manifest of a level into `dir` from all its shards' infos
/// (any order; they must cover the level exactly, else an error).
/// Atomic. Holds, besides the shards, the CRC-32 of the level file's
/// payload, so that [`crate::tables::convert::merge_level`] reproduces the
/// one-process file byte for byte.
///
/// # Errors
/// [`TableError::Shards`] when the shards do not make the level;
/// [`TableError::Io`].
pub fn write_manifest(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    shards: &[ShardInfo],
) -> Result<PathBuf, TableError> {
    let rules = rules.tables();
    let path = manifest_path(dir, rules, rule, level);
    format::check_level(&path, rules.game(), level)?;
    let total = level_size(level as usize, format::pits_of(rules.game()));
    let mut shards = shards.to_vec();
    shards.sort_by_key(|s| (s.index, s.first));
    check_cover(&path, rules, rule, level, total, &shards)?;
    let m = Manifest::new(rules, rule, level, total, shards);
    let mut text =
        serde_json::to_string_pretty(&m).map_err(|e| TableError::shards(&path, e.to_string()))?;
    text.push('\n');
    crate::fsutil::create_dir_all(dir).map_err(TableError::io_at(dir))?;
    crate::fsutil::write_atomic(&path, text.as_bytes()).map_err(TableError::io_at(&path))?;
    Ok(path)
}

/// Reads and checks the manifest at `path` of the level wanted.
///
/// # Errors
/// [`TableError::Missing`] when there is none; [`TableError::Shards`] or
/// a `Wrong…` error naming what is wrong.
pub fn read_manifest(
    path: &Path,
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
) -> Result<Manifest, TableError> {
    use std::io::Read;
    let file = open_regular(path).map_err(|e| TableError::from_open(path, level, e))?;
    let mut text = String::new();
    file.take(MANIFEST_MAX + 1)
        .read_to_string(&mut text)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::InvalidData => {
                TableError::shards(path, "manifest is not UTF-8 text")
            }
            _ => TableError::Io {
                path: path.to_path_buf(),
                source: e,
            },
        })?;
    if text.len() as u64 > MANIFEST_MAX {
        return Err(TableError::shards(path, "manifest larger than 256 MiB"));
    }
    let m: Manifest = serde_json::from_str(&text)
        .map_err(|e| TableError::shards(path, format!("manifest is not valid: {e}")))?;
    m.check(path, rules, rule, level)?;
    Ok(m)
}
