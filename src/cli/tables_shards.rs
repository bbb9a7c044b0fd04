//! `tables merge | split`: sharded levels to level files and back
//! ([`adji::tables::shard`]).

use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};

use clap::Args;

use adji::rules::RuleSet;
use adji::tables::convert::{merge_level, split_level, Merged};
use adji::tables::format;
use adji::tables::locate::{levels_present, locate_level, LevelAt};
use adji::tables::lock::BuildLock;
use adji::tables::shard::{manifest_levels, MAX_SHARDS};
use adji::value::LoopRule;

use crate::args::{GameRulesArgs, RuleArg, TablesDirArg};
use crate::error::CliError;
use crate::out;

/// Options of `tables merge`.
#[derive(Args, Debug)]
pub struct MergeArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Directory the level files are written to (made when missing).
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Directories holding the shards and manifests (a level's shards may
    /// be spread over several, e.g. one per MPI rank; each may hold a copy
    /// of its manifest).
    #[arg(value_name = "SHARD_DIR", required = true)]
    pub shard_dirs: Vec<PathBuf>,
}

/// Options of `tables split`.
#[derive(Args, Debug)]
pub struct SplitArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Directory of the level files to split.
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Shards per level (nearly equal stretches of ranks), at most 512: a
    /// reader maps every shard, and a process may hold only so many mappings.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=MAX_SHARDS as i64))]
    pub shards: u32,
    /// Directory the shards and manifests are written to [default: --dir].
    /// Where a level file and a manifest lie side by side, readers use the
    /// level file.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Levels to split: `A-B` (A to B, both included; also `A..B`) or one
    /// level `N` [default: every level file or compressed level in --dir].
    #[arg(long, value_name = "A-B", value_parser = crate::args::parse_levels)]
    pub levels: Option<RangeInclusive<u32>>,
}

/// `tables merge`.
pub fn merge(a: &MergeArgs) -> Result<(), CliError> {
    merge_game(a, a.game.rule_set()?.tables())
}

/// `tables split`.
pub fn split(a: &SplitArgs) -> Result<(), CliError> {
    split_game(a, a.game.rule_set()?.tables())
}

/// Paths for messages, comma-separated.
fn list(dirs: &[PathBuf]) -> String {
    let v: Vec<String> = dirs.iter().map(|d| d.display().to_string()).collect();
    v.join(", ")
}

/// What other tables the shard directories hold manifests of, for the
/// error when they hold none of those asked for.
fn other_manifests(dirs: &[PathBuf], rules: RuleSet, rule: LoopRule) -> Result<String, CliError> {
    let mut found = Vec::new();
    for r in RuleSet::families() {
        for l in [LoopRule::Start, LoopRule::Even] {
            if (r, l) != (rules, rule) && !manifest_levels(dirs, r, l)?.is_empty() {
                found.push(format!(
                    "{} tables for --loop {}",
                    r.command_line(),
                    l.name()
                ));
            }
        }
    }
    Ok(if found.is_empty() {
        "no manifest of any tables".into()
    } else {
        found.join(", ")
    })
}

/// Merges every level of the table family `rules` that has a manifest in
/// the shard dirs.
fn merge_game(a: &MergeArgs, rules: RuleSet) -> Result<(), CliError> {
    let (rule, dirs) = (a.rule.rule(), &a.shard_dirs);
    adji::fsutil::dir_or_absent(&a.dir.dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    for d in dirs {
        adji::fsutil::require_dir(d).map_err(|e| CliError::Input(e.to_string()))?;
    }
    let levels = manifest_levels(dirs, rules, rule)?;
    if levels.is_empty() {
        return Err(CliError::Input(format!(
            "no manifest of {} tables for --loop {} in {}; they hold {}",
            rules.command_line(),
            rule.name(),
            list(dirs),
            other_manifests(dirs, rules, rule)?
        )));
    }
    let out_dir = &a.dir.dir;
    adji::fsutil::create_dir_all(out_dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let _lock = BuildLock::acquire(out_dir, rules, rule)?;
    // A closed standard output does not stop the merge halfway.
    let mut log = out::Log::default();
    for n in levels {
        match merge_level(dirs, out_dir, rules, rule, n)? {
            Merged::Written(p) => log.print(format_args!("merged {}\n", p.display()))?,
            Merged::Kept(p) => log.print(format_args!(
                "kept   {} (already there: the file the shards merge into)\n",
                p.display()
            ))?,
            Merged::Replaced(p, why) => log.print(format_args!(
                "merged {} (replaced the file there: {why})\n",
                p.display()
            ))?,
        }
    }
    Ok(())
}

/// The levels `split` takes: those asked for (each must have a level
/// file), or every level file in `dir`.
fn split_levels(a: &SplitArgs, rules: RuleSet, dir: &Path) -> Result<Vec<u32>, CliError> {
    let rule = a.rule.rule();
    // A level file, or a compressed level: what split reads.
    let has_file = |n: u32| match locate_level(dir, rules, rule, n) {
        LevelAt::File(p) => p.is_file(),
        LevelAt::Compressed(_) => true,
        LevelAt::Shards(_) => false,
    };
    let levels: Vec<u32> = match &a.levels {
        Some(r) => {
            let total = format::total_of(rules.game());
            if *r.end() > total {
                return Err(CliError::Input(format!(
                    "--levels {}..{}: {} has {total} seeds, no level above",
                    r.start(),
                    r.end(),
                    rules.game()
                )));
            }
            if let Some(n) = r.clone().find(|&n| !has_file(n)) {
                return Err(CliError::Input(format!(
                    "level {n} has no file {} (nor a compressed level) to split",
                    format::level_path(dir, rules, rule, n).display()
                )));
            }
            r.clone().collect()
        }
        None => levels_present(dir, rules, rule)?
            .levels
            .into_iter()
            .filter(|&n| has_file(n))
            .collect(),
    };
    if levels.is_empty() {
        return Err(CliError::Input(format!(
            "no {} level files or compressed levels for --loop {} in {} (split reads those; \
             a level held only as shards is split already)",
            rules.command_line(),
            rule.name(),
            dir.display()
        )));
    }
    Ok(levels)
}

/// Splits the level files of the table family `rules` into shards.
fn split_game(a: &SplitArgs, rules: RuleSet) -> Result<(), CliError> {
    let (rule, dir) = (a.rule.rule(), &a.dir.dir);
    adji::fsutil::require_dir(dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let out_dir = a.out.as_deref().unwrap_or(dir);
    adji::fsutil::dir_or_absent(out_dir).map_err(|e| CliError::Input(format!("--out: {e}")))?;
    let levels = split_levels(a, rules, dir)?;
    adji::fsutil::create_dir_all(out_dir).map_err(|e| CliError::Input(format!("--out: {e}")))?;
    let _lock = BuildLock::acquire(out_dir, rules, rule)?;
    // A closed standard output does not stop the split halfway.
    let mut log = out::Log::default();
    for n in levels {
        split_level(dir, out_dir, rules, rule, n, a.shards)?;
        log.print(format_args!(
            "split  {} into {} shards in {}\n",
            format::level_path(dir, rules, rule, n).display(),
            a.shards,
            out_dir.display()
        ))?;
    }
    Ok(())
}
