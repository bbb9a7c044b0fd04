//! The endgame tables at run time: a front end names a rule set, not a
//! game type, to open, probe, build, verify or count a table family.
//! Each function here is the generic one of [`crate::tables`] for the
//! rule set's game type ([`crate::with_rules!`]), with the same errors.

use std::path::Path;

use crate::game::{Game, Position};
use crate::progress::Progress;
use crate::report::{LevelCheck, ProbeError, ProbeReport};
use crate::rules::RuleSet;
use crate::tables::retrograde::{self, outofcore::OocConfig, BuildEvent, LevelPlan};
use crate::tables::stats::LevelStats;
use crate::tables::verify::{DirReport, VerifyOptions};
use crate::tables::{compressed::Codec, OpenCheck, TableError, TableSet};
use crate::value::LoopRule;

use super::posed::Posed;

/// The consecutive levels from 0 that `dir` holds for `rules`'s table
/// family under `rule` ([`TableSet::open_available_checked`]).
///
/// # Errors
/// A table file that is present but bad.
pub fn open(
    rules: RuleSet,
    dir: &Path,
    rule: LoopRule,
    check: OpenCheck,
) -> Result<TableSet, TableError> {
    crate::with_rules!(rules, G => TableSet::open_available_checked::<G>(dir, rule, check))
}

/// `adji tables probe` of `p` in `set` (the tables of `p`'s family).
///
/// # Errors
/// A position the tables do not hold, or damaged table data.
pub fn probe(set: &TableSet, p: &Posed) -> Result<ProbeReport, ProbeError> {
    crate::with_rules!(p.rules, G => ProbeReport::new::<G>(set, &p.state.pos))
}

/// Values, `lo` and `hi` of a batch of positions.
pub type Planes = (Vec<i32>, Vec<i32>, Vec<i32>);

/// Value, `lo` and `hi` of each relative board of `boards` (rows of the
/// game's pit count, the mover's row first), in parallel for big batches.
///
/// # Errors
/// A board the tables do not hold (or damaged data), named by its row.
pub fn probe_boards(rules: RuleSet, set: &TableSet, boards: &[u8]) -> Result<Planes, String> {
    crate::with_rules!(rules, G => probe_boards_of::<G>(set, boards))
}

fn probe_boards_of<G: Game>(set: &TableSet, boards: &[u8]) -> Result<Planes, String> {
    use rayon::prelude::*;
    let n = boards.len() / G::PITS;
    let one = |i: usize| -> Result<(i32, i32, i32), String> {
        let mut pos = Position::default();
        pos.pits[..G::PITS].copy_from_slice(&boards[i * G::PITS..(i + 1) * G::PITS]);
        let b = set.bounds::<G>(&pos).ok_or_else(|| {
            if let Err(e) = set.check_damage() {
                return format!("board {i}: {e}");
            }
            format!(
                "board {i}: level {} is not built; tables cover levels 0..={}",
                pos.level(),
                set.covered() as i64 - 1
            )
        })?;
        Ok((b.value(set.rule.w::<G>(&pos)), b.lo, b.hi))
    };
    let r: Vec<(i32, i32, i32)> = if n >= 4096 {
        (0..n).into_par_iter().map(one).collect::<Result<_, _>>()?
    } else {
        (0..n).map(one).collect::<Result<_, _>>()?
    };
    Ok((
        r.iter().map(|x| x.0).collect(),
        r.iter().map(|x| x.1).collect(),
        r.iter().map(|x| x.2).collect(),
    ))
}

/// `adji tables stats` of one level of `set`.
///
/// # Errors
/// As [`crate::tables::stats::level_stats`].
pub fn level_stats(rules: RuleSet, set: &TableSet, level: u32) -> Result<LevelStats, TableError> {
    crate::with_rules!(rules, G => crate::tables::stats::level_stats::<G>(set, level))
}

/// The build's plan of levels `0..=max` within `memory` bytes
/// ([`retrograde::plan_within`]).
///
/// # Errors
/// As [`retrograde::plan_within`].
pub fn plan_within(
    rules: RuleSet,
    max: u32,
    memory: u64,
    shards: Option<u32>,
) -> Result<Vec<LevelPlan>, TableError> {
    crate::with_rules!(rules, G => retrograde::plan_within::<G>(max, memory, shards))
}

/// Builds (or resumes) levels `0..=max` in `dir` within `memory` bytes
/// ([`retrograde::build_tables_within`]).
///
/// # Errors
/// As [`retrograde::build_tables_within`].
pub fn build_within(
    rules: RuleSet,
    dir: &Path,
    rule: LoopRule,
    max: u32,
    memory: u64,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    crate::with_rules!(rules, G => retrograde::build_tables_within::<G>(dir, rule, max, memory, bar, on_level))
}

/// Builds (or resumes) the levels of `plan` in `dir`, each compressed
/// with `compress` once built ([`retrograde::build_tables_compressed`]).
///
/// # Errors
/// As [`retrograde::build_tables_compressed`].
#[allow(clippy::too_many_arguments)]
pub fn build_planned(
    rules: RuleSet,
    dir: &Path,
    rule: LoopRule,
    plan: &[LevelPlan],
    ooc: &OocConfig,
    compress: Option<Codec>,
    bar: &dyn Progress,
    on_level: impl FnMut(&BuildEvent),
) -> Result<TableSet, TableError> {
    crate::with_rules!(rules, G => retrograde::build_tables_compressed::<G>(dir, rule, plan, ooc, compress, bar, on_level))
}

/// The level of `levels` whose full verification needs the most memory,
/// and that memory ([`crate::tables::verify::verify_peak`]).
///
/// # Errors
/// As [`crate::tables::verify::verify_peak`].
pub fn verify_peak(rules: RuleSet, levels: &[u32]) -> Result<Option<(u32, u64)>, TableError> {
    crate::with_rules!(rules, G => crate::tables::verify::verify_peak::<G>(levels))
}

/// Verifies every level file of `rules`'s family in `dir` under `rule`
/// ([`crate::tables::verify::verify_dir`]), telling `on_level` each
/// level's check as `adji tables verify` prints it.
///
/// # Errors
/// As [`crate::tables::verify::verify_dir`].
pub fn verify_dir(
    rules: RuleSet,
    dir: &Path,
    rule: LoopRule,
    opts: &VerifyOptions,
    mut on_level: impl FnMut(LevelCheck),
) -> Result<DirReport, TableError> {
    fn go<G: Game>(
        dir: &Path,
        rule: LoopRule,
        opts: &VerifyOptions,
        on_level: &mut dyn FnMut(LevelCheck),
    ) -> Result<DirReport, TableError> {
        crate::tables::verify::verify_dir::<G>(dir, rule, opts, |v| {
            on_level(LevelCheck::of::<G>(v))
        })
    }
    crate::with_rules!(rules, go(dir, rule, opts, &mut on_level))
}

/// Levels `0..=max` of `rules`'s table family in `dir` under `rule`, each
/// required ([`TableSet::open`]).
///
/// # Errors
/// A level file that is missing or bad.
pub fn open_levels(
    rules: RuleSet,
    dir: &Path,
    rule: LoopRule,
    max: u32,
) -> Result<TableSet, TableError> {
    crate::with_rules!(rules, G => TableSet::open::<G>(dir, rule, max))
}

/// The highest level the builders take for `rules`
/// ([`retrograde::max_sharded_level`]: the game's every seed).
pub fn max_level(rules: RuleSet) -> u32 {
    crate::with_rules!(rules, G => retrograde::max_sharded_level::<G>())
}

/// Projects each level's build time into `plan` from a floor pass over a
/// sample of its top level; returns the floor's seconds a position
/// ([`retrograde::project`]).
pub fn project(rules: RuleSet, plan: &mut [LevelPlan]) -> f64 {
    crate::with_rules!(rules, G => retrograde::project::<G>(plan))
}

/// Projects the levels of `plan` from the build times measured in `dir`
/// for the tables of `rules` under `rule`
/// ([`retrograde::rates::project_dir`]), over the floor's projection.
/// Returns how many levels it projected.
pub fn project_measured(
    rules: RuleSet,
    rule: LoopRule,
    dir: &Path,
    plan: &mut [LevelPlan],
) -> usize {
    let set = crate::tables::format::set_name(rules.tables(), rule);
    retrograde::rates::project_dir(plan, dir, &set)
}

/// A plain pass over every move of level `n` (the floor a build is
/// compared with, [`retrograde::floor_pass`]).
pub fn floor_pass(rules: RuleSet, n: u32) -> u64 {
    crate::with_rules!(rules, G => retrograde::floor_pass::<G>(n))
}
