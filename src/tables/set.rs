//! The tables of one game, rule set and loop rule, [`TableSet`]: levels
//! `0..=max` opened together and probed by position.

use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use super::compressed;
use super::dontcare::{self, DcByte};
use super::error::TableError;
use super::format::{self, level_path};
use super::payload::OpenCheck;
use super::shard;
use super::table::Table;
use crate::game::{Game, GameId, Position};
use crate::index::rank;
use crate::rules::RuleSet;
use crate::value::{Bounds, LoopRule};

/// The tables of one game, rule set and loop rule, levels `0..=max_level`.
pub struct TableSet {
    /// Game.
    pub game: GameId,
    /// The rule set whose tables these are ([`RuleSet::tables`]).
    pub rules: RuleSet,
    /// Loop rule.
    pub rule: LoopRule,
    levels: Vec<Table>,
    /// Raised by any level's first damage ([`super::damage`]).
    alarm: Arc<AtomicBool>,
}

impl TableSet {
    /// An empty set (no level covered).
    pub fn empty(rules: RuleSet, rule: LoopRule) -> Self {
        TableSet {
            game: rules.game(),
            rules: rules.tables(),
            rule,
            levels: Vec::new(),
            alarm: Arc::default(),
        }
    }

    /// Opens levels `0..=max` from `dir`.
    ///
    /// # Errors
    /// The first level that is missing or bad.
    pub fn open<G: Game>(dir: &Path, rule: LoopRule, max: u32) -> Result<Self, TableError> {
        let mut s = TableSet::empty(G::RULES.tables(), rule);
        for n in 0..=max {
            s.push(Table::open(
                &level_path(dir, G::RULES.tables(), rule, n),
                G::RULES,
                rule,
                n,
                G::PITS,
            )?);
        }
        Ok(s)
    }

    /// Opens every consecutive level from 0 that is present in `dir`.
    ///
    /// # Errors
    /// A level file that is present but bad.
    pub fn open_available<G: Game>(dir: &Path, rule: LoopRule) -> Result<Self, TableError> {
        TableSet::open_available_checked::<G>(dir, rule, OpenCheck::Full)
    }

    /// [`TableSet::open_available`] with the given depth of checking.
    ///
    /// # Errors
    /// A level file that is present but bad.
    pub fn open_available_checked<G: Game>(
        dir: &Path,
        rule: LoopRule,
        check: OpenCheck,
    ) -> Result<Self, TableError> {
        let mut s = TableSet::empty(G::RULES.tables(), rule);
        for n in 0..=format::total_of(G::ID) {
            let path = level_path(dir, G::RULES.tables(), rule, n);
            match Table::open_checked(&path, G::RULES.tables(), rule, n, G::PITS, check) {
                Ok(t) => s.push(t),
                Err(TableError::Missing { .. }) => break,
                Err(e) => return Err(e),
            }
        }
        Ok(s)
    }

    /// Which loop rules have at least level 0 in `dir` for `rules` (a file
    /// or a shard manifest).
    pub fn rules_present(dir: &Path, rules: RuleSet) -> Vec<LoopRule> {
        [LoopRule::Start, LoopRule::Even]
            .into_iter()
            .filter(|&r| {
                level_path(dir, rules.tables(), r, 0).exists()
                    || compressed::format::level_path(dir, rules, r, 0).exists()
                    || shard::manifest_path(dir, rules, r, 0).exists()
            })
            .collect()
    }

    /// The same tables copied into anonymous memory ([`Table::into_memory`]).
    ///
    /// # Errors
    /// When the memory cannot be had.
    pub fn into_memory(self) -> std::io::Result<TableSet> {
        Ok(TableSet {
            game: self.game,
            rules: self.rules,
            rule: self.rule,
            levels: self
                .levels
                .into_iter()
                .map(Table::into_memory)
                .collect::<std::io::Result<_>>()?,
            alarm: self.alarm,
        })
    }

    /// Appends the next level.
    pub fn push(&mut self, mut t: Table) {
        debug_assert_eq!(t.header.level as usize, self.levels.len());
        t.damage.share(&self.alarm);
        self.levels.push(t);
    }

    /// Whether a probe of any level met damage ([`super::damage`]): one
    /// atomic load, for a search to watch.
    #[inline]
    pub fn damaged(&self) -> bool {
        self.alarm.load(Ordering::Acquire)
    }

    /// The alarm that any level's first damage raises, for a search to
    /// stop on.
    pub fn alarm(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.alarm)
    }

    /// Fails when a probe of any level met damage: what a command that
    /// read these tables checks before it reports.
    ///
    /// # Errors
    /// [`TableError::Damaged`], naming the first damaged file (and block)
    /// of the lowest damaged level.
    pub fn check_damage(&self) -> Result<(), TableError> {
        if !self.damaged() {
            return Ok(());
        }
        match self.levels.iter().find_map(Table::damage) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Number of levels covered (`max_level + 1`), 0 when empty.
    pub fn covered(&self) -> u32 {
        self.levels.len() as u32
    }

    /// Whether `level` is covered.
    #[inline]
    pub fn covers(&self, level: u32) -> bool {
        (level as usize) < self.levels.len()
    }

    /// Bytes of all mapped table files (what a search may touch).
    pub fn mapped_bytes(&self) -> u64 {
        self.levels.iter().map(Table::mapped_bytes).sum()
    }

    /// Bytes the tables allocate, at most ([`Table::allocated_bytes`]).
    pub fn allocated_bytes(&self) -> u64 {
        self.levels.iter().map(Table::allocated_bytes).sum()
    }

    /// The least bytes the caches of the compressed levels hold: each
    /// level's direct-mapped cache ([`compressed::Compressed::direct_cache_bytes`]).
    /// A budget below it cannot be kept ([`TableSet::fit_caches`]).
    pub fn min_cache_bytes(&self) -> u64 {
        self.compressed().map(|c| c.direct_cache_bytes()).sum()
    }

    /// The compressed levels.
    fn compressed(&self) -> impl Iterator<Item = &compressed::Compressed> {
        self.levels.iter().filter_map(Table::compressed)
    }

    /// Shapes the caches of the compressed levels for a budget of
    /// `bytes` of decoded blocks: every level has at least the
    /// direct-mapped cache of [`compressed::reader::CACHE_SLOTS`] blocks
    /// ([`TableSet::min_cache_bytes`] in all); with what the budget leaves
    /// beyond that, the levels, smallest first, get the whole cache (room
    /// for every block, kept once decoded, so that a warm probe costs what
    /// a raw one does) while it fits. Returns the bytes the caches may
    /// then hold ([`TableSet::allocated_bytes`] of the compressed levels):
    /// at most `bytes` when `bytes` is at least the minimum, the minimum
    /// otherwise.
    pub fn fit_caches(&mut self, bytes: u64) -> u64 {
        let mut left = bytes.saturating_sub(self.min_cache_bytes());
        let mut total = 0;
        for t in &mut self.levels {
            if let Some(c) = t.compressed_mut() {
                let more = c.whole_cache_bytes() - c.direct_cache_bytes();
                let whole = more <= left;
                if whole {
                    left -= more;
                }
                c.set_whole_cache(whole);
                total += c.cache_bytes();
            }
        }
        total
    }

    /// The table of `level`.
    pub fn level(&self, level: u32) -> Option<&Table> {
        self.levels.get(level as usize)
    }

    /// Bounds of a main-phase position whose level is covered; `None`
    /// also for a damaged entry, which is never a value (the damage is
    /// recorded: [`TableSet::check_damage`]). A level with don't-care
    /// entries is read through the levels below ([`dontcare`]).
    #[inline]
    pub fn bounds<G: Game>(&self, pos: &Position) -> Option<Bounds> {
        if pos.in_opening() {
            return None;
        }
        let t = self.levels.get(pos.level() as usize)?;
        let idx = rank(&pos.pits, G::PITS) as usize;
        if !t.dont_care() {
            return t.bounds(idx);
        }
        match self.dont_care_entry::<G>(t, idx, pos, i32::MAX)? {
            Ok(v) => Some(Bounds { lo: v, hi: v }),
            Err(loop_sensitive) => Some(loop_sensitive),
        }
    }

    /// Value of a main-phase position whose level is covered; `None` as
    /// for [`TableSet::bounds`].
    #[inline]
    pub fn value<G: Game>(&self, pos: &Position) -> Option<i32> {
        self.value_below::<G>(pos, i32::MAX)
    }

    /// [`TableSet::value`] with a cut at `below`: the value when it is
    /// below `below`, else some `r` with `below ≤ r ≤ value` (a
    /// don't-care entry's reading stops there, [`dontcare::resolve`]).
    #[inline]
    pub(super) fn value_below<G: Game>(&self, pos: &Position, below: i32) -> Option<i32> {
        if pos.in_opening() {
            return None;
        }
        let idx = rank(&pos.pits, G::PITS) as usize;
        self.value_below_at::<G>(pos.level(), idx, || *pos, below)
    }

    /// [`TableSet::value_below`] of entry `idx` of `level`, the
    /// main-phase position `pos()`: made only where the entry needs it
    /// (a loop-sensitive entry's `w`, a don't-care entry's captures).
    #[inline]
    pub(super) fn value_below_at<G: Game>(
        &self,
        level: u32,
        idx: usize,
        pos: impl Fn() -> Position,
        below: i32,
    ) -> Option<i32> {
        let t = self.levels.get(level as usize)?;
        if !t.dont_care() {
            return t.value_with(idx, || self.rule.w::<G>(&pos()));
        }
        let pos = pos();
        match self.dont_care_entry::<G>(t, idx, &pos, below)? {
            Ok(r) => Some(r),
            Err(loop_sensitive) => Some(loop_sensitive.value(self.rule.w::<G>(&pos))),
        }
    }

    /// Entry `idx` (the position `pos`) of the don't-care level `t`, read
    /// through the levels below with a cut at `below` ([`dontcare::resolve`]):
    /// `Ok(r)` as [`TableSet::value_below`] says, an exact value kept in the
    /// level's cache for the next probe; `Err(bounds)` for a loop-sensitive
    /// entry, whose record is never filled. `None` for damage.
    fn dont_care_entry<G: Game>(
        &self,
        t: &Table,
        idx: usize,
        pos: &Position,
        below: i32,
    ) -> Option<Result<i32, Bounds>> {
        let s = match t.dc_byte(idx)? {
            DcByte::Value(v) => return Some(Ok(v)),
            DcByte::Stored(s) if s as i8 == format::EXCEPTION => {
                return t.stored_bounds(idx).map(Err);
            }
            DcByte::Stored(s) => s as i8,
        };
        let r = dontcare::resolve::<G>(self, pos, s as i32, below)?;
        if r < below {
            t.remember(idx, r);
        }
        Some(Ok(r))
    }
}
