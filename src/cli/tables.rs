//! `tables build | probe | verify | stats` (and `merge | split`, in
//! `tables_shards`; `checksum`, in `tables_checksum`; `compress |
//! decompress`, in `tables_compress`).

use std::path::{Path, PathBuf};

use clap::{ArgGroup, Args, Subcommand};

use adji::notation::Stores;
use adji::oracle::tables::{level_stats, probe as probe_in, verify_dir, verify_peak};
use adji::oracle::Posed;
use adji::report::LevelCheck;
use adji::rules::RuleSet;
use adji::tables::locate::levels_present;
use adji::tables::stats::markdown;
use adji::tables::verify::{LevelOutcome, VerifyOptions};
use adji::tables::{OpenCheck, TableError, TableSet};
use adji::value::LoopRule;
use indicatif::ProgressBar;

use crate::args::{
    JsonArg, MemoryArg, TableGamesArgs, TableSetArgs, TablesDirArg, ThreadsArg, POSITIONS_FILE_HELP,
};
use crate::error::CliError;
use crate::setup::{no_tables_found, set_threads, MemoryBudget};
use crate::tables_build::{build, BuildArgs};
use crate::tables_checksum::{checksum, ChecksumArgs};
use crate::tables_compress::{compress, decompress, ConvertArgs};
use crate::tables_shards::{merge, split, MergeArgs, SplitArgs};
use crate::util::{bar, fmt_bytes};
use crate::{batch, out};

/// `tables` subcommands.
#[derive(Subcommand, Debug)]
pub enum TablesCommand {
    /// Build endgame tables level by level (resumable: levels whose file
    /// passes its header and checksum checks are kept).
    Build(BuildArgs),
    /// Look positions up: value, loop-sensitivity and the value of every move.
    Probe(ProbeArgs),
    /// Check every table file: header, checksums, value ranges, every entry
    /// against its successors, and every level against a fresh rebuild (which
    /// proves the least/greatest fixpoints); a missing level below a present
    /// one, or a file named for a level the game cannot have, is a failure.
    Verify(VerifyArgs),
    /// Per-level statistics: wins, draws, losses, loop-sensitive positions, value histogram.
    Stats(StatsArgs),
    /// Merge sharded levels (shard files and a manifest, possibly spread
    /// over several directories, such as one per MPI rank) into level
    /// files in --dir, byte for byte what a one-process build writes; level
    /// files already there that open and check are kept.
    Merge(MergeArgs),
    /// Split level files into shards and a manifest per level (the reverse
    /// of merge); every command reads a sharded level like a level file.
    Split(SplitArgs),
    /// The SHA-256 of every level in --dir, as `sha256sum` prints them (a
    /// sharded level hashed as the level file its shards merge into), or,
    /// with --check LIST, each compared with a published list.
    Checksum(ChecksumArgs),
    /// Compress levels into `.adjz` files that every command reads in
    /// place (a probe decodes one block of a few KiB); resumable: a level
    /// whose compressed file is there and checks is kept. A plan (levels,
    /// disk, time) is printed first and refused when the disk is short.
    Compress(ConvertArgs),
    /// Decompress `.adjz` levels into level files, byte for byte the raw
    /// files they were made from; resumable like compress.
    Decompress(ConvertArgs),
}

impl TableSetArgs {
    /// Opens the tables of the rule set `--game` and `--rules` name;
    /// refuses a bad `--rules`, or a directory that gives none.
    fn open(&self) -> Result<(RuleSet, TableSet), CliError> {
        let rules = self.game.rule_set()?;
        Ok((rules, open_tables(rules, &self.dir.dir, self.rule.rule())?))
    }
}

/// Options of `tables probe`.
#[derive(Args, Debug)]
#[command(group(ArgGroup::new("input").required(true).args(["position", "positions_file"])))]
pub struct ProbeArgs {
    #[command(flatten)]
    pub set: TableSetArgs,
    /// A position (the stores may be left out).
    #[arg(long)]
    pub position: Option<String>,
    #[arg(long, help = POSITIONS_FILE_HELP)]
    pub positions_file: Option<PathBuf>,
    #[command(flatten)]
    pub out: JsonArg,
}

/// Options of `tables verify`.
#[derive(Args, Debug)]
pub struct VerifyArgs {
    #[command(flatten)]
    pub game: TableGamesArgs,
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub threads: ThreadsArg,
    /// Check only about N entries per level against their successors
    /// (blocks at fixed places) and rebuild no level: the fixpoints are then
    /// not proven. Headers, checksums and value ranges are still checked in
    /// full.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub sample: Option<u64>,
    #[command(flatten)]
    pub memory: MemoryArg,
}

/// Options of `tables stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub set: TableSetArgs,
    /// Write Markdown to this file instead of standard output.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Runs a `tables` subcommand.
pub fn tables(t: &TablesCommand) -> Result<(), CliError> {
    match t {
        TablesCommand::Build(a) => {
            set_threads(a.threads)?;
            #[cfg(feature = "mpi")]
            if let Some(comm) = crate::cluster::world()? {
                use crate::cluster::build_tables as build_distributed;
                return crate::cluster::on_every_rank(&comm, |c| {
                    build_distributed(a, a.game.rule_set()?, c)
                });
            }
            build(a, a.game.rule_set()?)
        }
        TablesCommand::Probe(a) => probe(a),
        TablesCommand::Verify(a) => verify(a),
        TablesCommand::Stats(a) => stats(a),
        TablesCommand::Merge(a) => merge(a),
        TablesCommand::Split(a) => split(a),
        TablesCommand::Checksum(a) => checksum(a),
        TablesCommand::Compress(a) => compress(a),
        TablesCommand::Decompress(a) => decompress(a),
    }
}

/// Opens the tables of a probe or stats; refuses a directory that gives none.
fn open_tables(rules: RuleSet, dir: &Path, rule: LoopRule) -> Result<TableSet, CliError> {
    let set = adji::oracle::tables::open(rules, dir, rule, OpenCheck::Full)?;
    if set.covered() == 0 {
        let mut msg = no_tables_found(dir, rules, rule);
        if TableSet::rules_present(dir, rules).is_empty() {
            msg += &format!(
                "; build them with `adji tables build --game {} --rules {} --max-seeds N --dir {}`",
                rules.game(),
                rules.name(),
                dir.display()
            );
        }
        return Err(CliError::Input(msg));
    }
    Ok(set)
}

/// `tables probe`.
fn probe(a: &ProbeArgs) -> Result<(), CliError> {
    let (rules, set) = a.set.open()?;
    let Some(file) = &a.positions_file else {
        let p = a.position.as_deref().unwrap_or("start");
        let p = Posed::parse(rules, p, Stores::Optional)?;
        return out::report(&probe_in(&set, &p)?, a.out.json);
    };
    let lines = batch::lines(file)?;
    batch::answer(
        file,
        lines,
        a.out.json,
        &ProgressBar::hidden(),
        "probed",
        |line| {
            let p = Posed::parse(rules, line, Stores::Optional).map_err(|e| e.to_string())?;
            probe_in(&set, &p).map_err(|e| e.to_string())
        },
    )
}

/// What `tables verify` found so far. Once standard output is closed (as
/// by `| head`), verification goes on without printing, so that the exit
/// status still says whether every level checks.
#[derive(Default)]
struct Tally {
    files: usize,
    problems: u64,
    bad_files: usize,
    first: Option<String>,
    log: out::Log,
}

impl Tally {
    /// Prints `text` unless standard output was closed.
    fn print(&mut self, text: impl std::fmt::Display) -> Result<(), CliError> {
        self.log.print(text)
    }

    /// Prints a level's check and counts its problems.
    fn add(&mut self, c: &LevelCheck) -> Result<(), CliError> {
        self.print(c)?;
        self.problems += c.problems();
        self.bad_files += (c.problems() > 0) as usize;
        if self.first.is_none() {
            self.first = c.problem();
        }
        Ok(())
    }

    /// Prints a stray file (a level the game cannot have) and counts it.
    fn stray(&mut self, e: &TableError) -> Result<(), CliError> {
        self.print(format_args!("FAIL {e}\n"))?;
        self.files += 1;
        self.bad_files += 1;
        self.problems += 1;
        self.first.get_or_insert_with(|| e.to_string());
        Ok(())
    }
}

/// Prints what a full verification of the levels of `rules`'s tables in
/// `dir` needs (each level is rebuilt in memory) and refuses it over
/// `--memory`.
fn verify_plan(
    a: &VerifyArgs,
    rules: RuleSet,
    rule: LoopRule,
    tally: &mut Tally,
) -> Result<(), CliError> {
    let files = levels_present(&a.dir.dir, rules, rule)?;
    let Some((level, need)) = verify_peak(rules, &files.levels)? else {
        return Ok(());
    };
    tally.print(format_args!(
        "Plan: {} `{}`: every level rebuilt in memory and compared; peak {} (level {level}).\n",
        adji::report::tables_label(rules),
        rule.name(),
        fmt_bytes(need)
    ))?;
    MemoryBudget::of(a.memory).check(
        need,
        format!("the rebuild of level {level} with the lower levels mapped"),
        "raise --memory, or check a sample with --sample (which does not prove the fixpoints)",
    )
}

/// Verifies every table file of `rules`'s tables in `dir`, both loop
/// rules; every level from 0 to the highest present must be there.
fn verify_game(a: &VerifyArgs, rules: RuleSet, tally: &mut Tally) -> Result<(), CliError> {
    for rule in [LoopRule::Start, LoopRule::Even] {
        if a.sample.is_none() {
            verify_plan(a, rules, rule, tally)?;
        }
        let opts = VerifyOptions {
            max_report: 5,
            sample: a.sample,
            // Checked, and its plan printed, by `verify_plan` first.
            memory: MemoryBudget::of(a.memory).bytes,
        };
        let mut printed = Ok(());
        let rep = verify_dir(rules, &a.dir.dir, rule, &opts, |c: LevelCheck| {
            if printed.is_ok() {
                printed = tally.add(&c);
            }
        })?;
        printed?;
        tally.files += rep
            .levels
            .iter()
            .filter(|l| !matches!(l.outcome, LevelOutcome::Missing))
            .count();
        for e in &rep.strays {
            tally.stray(e)?;
        }
    }
    Ok(())
}

/// `tables verify`: fails on any missing level, bad file or wrong entry.
fn verify(a: &VerifyArgs) -> Result<(), CliError> {
    set_threads(a.threads)?;
    let dir = &a.dir.dir;
    adji::fsutil::require_dir(dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    // Every rule set with tables of its own, or the one asked for.
    let sets: Vec<RuleSet> = match a.game.game {
        Some(g) => vec![crate::args::rule_set(g, &a.game.rules)?.tables()],
        None => RuleSet::families().collect(),
    };
    let mut tally = Tally::default();
    for rules in sets {
        verify_game(a, rules, &mut tally)?;
    }
    if tally.files == 0 {
        return Err(CliError::Input(format!(
            "no table files in {}",
            dir.display()
        )));
    }
    match tally.first {
        Some(f) if tally.problems > 0 => Err(CliError::Failed(format!(
            "verification failed for {} file(s), {} problem(s) in all (each wrong entry counts \
             one); first: {f}",
            tally.bad_files, tally.problems
        ))),
        _ => Ok(()),
    }
}

/// `tables stats`.
fn stats(a: &StatsArgs) -> Result<(), CliError> {
    let (rules, set) = a.set.open()?;
    let pb = bar(set.covered() as u64, "levels");
    let stats: Vec<_> = (0..set.covered())
        .map(|n| {
            let s = level_stats(rules, &set, n);
            pb.inc(1);
            s
        })
        .collect::<Result<_, _>>()?;
    pb.finish_and_clear();
    let md = markdown(&adji::report::tables_label(rules), set.rule.name(), &stats);
    match &a.out {
        Some(p) => adji::fsutil::write_atomic(p, md.as_bytes()).map_err(CliError::file(p)),
        None => out::print(md),
    }
}
