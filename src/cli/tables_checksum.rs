//! `tables checksum`: the SHA-256 of every level in a directory, in
//! `sha256sum`'s format, and `--check LIST` against a published list
//! (such as `results/tables-checksums.txt`). A sharded level is hashed as
//! the level file its shards merge into, streamed without writing it, so
//! a cluster's shards compare with a one-process build's list. Without
//! `--game`, every table family the directory holds is hashed.

use std::path::{Path, PathBuf};

use clap::Args;

use adji::certify::check::{hex, level_sha256, listed, read_checksum_list, ChecksumList, Listed};
use adji::rules::RuleSet;
use adji::tables::format::file_name;
use adji::tables::locate::levels_present;
use adji::value::LoopRule;

use crate::args::{RuleArg, TableGamesArgs, TablesDirArg};
use crate::error::CliError;
use crate::out;

/// Options of `tables checksum`.
#[derive(Args, Debug)]
pub struct ChecksumArgs {
    #[command(flatten)]
    pub game: TableGamesArgs,
    #[command(flatten)]
    pub dir: TablesDirArg,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Compare with a list in `sha256sum`'s format (`HEX  NAME` lines; blank
    /// lines and lines starting with # are skipped): each level present is
    /// checked against its line, and the exit code is 1 when one differs
    /// or when no level present is in the list
    #[arg(long, value_name = "LIST")]
    pub check: Option<PathBuf>,
}

/// What a `--check` found so far.
#[derive(Default)]
struct Tally {
    compared: usize,
    differ: Vec<String>,
}

/// `tables checksum`: every table family asked for (every one the
/// directory holds, without `--game`), each level ascending.
pub fn checksum(a: &ChecksumArgs) -> Result<(), CliError> {
    let (rule, dir) = (a.rule.rule(), &a.dir.dir);
    adji::fsutil::require_dir(dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let list = a
        .check
        .as_deref()
        .map(read_checksum_list)
        .transpose()
        .map_err(|e| CliError::Input(e.to_string()))?;
    let mut log = out::Log::default();
    let mut tally = Tally::default();
    for rules in a.game.families(dir, rule)? {
        checksum_family(dir, rules, rule, list.as_ref(), &mut log, &mut tally)?;
    }
    let Some(path) = &a.check else {
        return Ok(());
    };
    if !tally.differ.is_empty() {
        return Err(CliError::Failed(format!(
            "{} of {} levels differ from {}: {}",
            tally.differ.len(),
            tally.compared,
            path.display(),
            tally.differ.join(", ")
        )));
    }
    if tally.compared == 0 {
        return Err(CliError::Failed(format!(
            "no level in {} is listed in {}",
            dir.display(),
            path.display()
        )));
    }
    Ok(())
}

/// Hashes every level of the tables of `rules` under `rule` in `dir`,
/// ascending, and prints each sum or checks it against `list`.
fn checksum_family(
    dir: &Path,
    rules: RuleSet,
    rule: LoopRule,
    list: Option<&ChecksumList>,
    log: &mut out::Log,
    tally: &mut Tally,
) -> Result<(), CliError> {
    let levels = levels_present(dir, rules, rule)?.levels;
    if levels.is_empty() {
        return Err(CliError::Input(format!(
            "no {} tables for --loop {} in {}",
            rules.command_line(),
            rule.name(),
            dir.display()
        )));
    }
    for n in levels {
        let name = file_name(rules, rule, n);
        let sum = hex(&level_sha256(dir, rules, rule, n)?);
        let Some(list) = list else {
            log.print(format_args!("{sum}  {name}\n"))?;
            continue;
        };
        match listed(list, &name, &sum) {
            Listed::Unlisted => log.print(format_args!("unlisted {name} ({sum})\n"))?,
            Listed::Same => {
                tally.compared += 1;
                log.print(format_args!("ok       {name}\n"))?;
            }
            Listed::Differs(want) => {
                tally.compared += 1;
                log.print(format_args!("FAILED   {name} (listed {want}, got {sum})\n"))?;
                tally.differ.push(name);
            }
        }
    }
    Ok(())
}
