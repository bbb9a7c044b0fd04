//! `tables checksum`: the SHA-256 of every level in a directory, in
//! `sha256sum`'s format, and `--check LIST` against a published list
//! (such as `results/tables-checksums.txt`). A sharded level is hashed as
//! the level file its shards merge into, streamed without writing it, so
//! a cluster's shards compare with a one-process build's list.

use std::path::PathBuf;

use clap::Args;

use adji::certify::check::{hex, level_sha256, listed, read_checksum_list, Listed};
use adji::game::Game;
use adji::tables::format::file_name;
use adji::tables::locate::levels_present;

use crate::args::TableSetArgs;
use crate::error::CliError;
use crate::{dispatch, out};

/// Options of `tables checksum`.
#[derive(Args, Debug)]
pub struct ChecksumArgs {
    #[command(flatten)]
    pub set: TableSetArgs,
    /// Compare with a list in `sha256sum`'s format (`HEX  NAME` lines; blank
    /// lines and lines starting with # are skipped): each level present is
    /// checked against its line, and the exit code is 1 when one differs
    /// or when no level present is in the list
    #[arg(long, value_name = "LIST")]
    pub check: Option<PathBuf>,
}

/// `tables checksum`.
pub fn checksum(a: &ChecksumArgs) -> Result<(), CliError> {
    dispatch!(a.set.game, checksum_game(a))
}

/// Hashes every level of `G` in `--dir`, ascending, and prints or checks.
fn checksum_game<G: Game>(a: &ChecksumArgs) -> Result<(), CliError> {
    let (rules, rule, dir) = (G::RULES.tables(), a.set.rule.rule(), &a.set.dir.dir);
    adji::fsutil::require_dir(dir).map_err(|e| CliError::Input(format!("--dir: {e}")))?;
    let list = a
        .check
        .as_deref()
        .map(read_checksum_list)
        .transpose()
        .map_err(|e| CliError::Input(e.to_string()))?;
    let mut levels = levels_present(dir, rules, rule)?.levels;
    levels.sort_unstable();
    levels.dedup();
    if levels.is_empty() {
        return Err(CliError::Input(format!(
            "no {} tables for --loop {} in {}",
            rules.command_line(),
            rule.name(),
            dir.display()
        )));
    }
    let mut log = out::Log::default();
    let (mut compared, mut differ) = (0, Vec::new());
    for n in levels {
        let name = file_name(rules, rule, n);
        let sum = hex(&level_sha256(dir, rules, rule, n)?);
        let Some(list) = &list else {
            log.print(format_args!("{sum}  {name}\n"))?;
            continue;
        };
        match listed(list, &name, &sum) {
            Listed::Unlisted => log.print(format_args!("unlisted {name} ({sum})\n"))?,
            Listed::Same => {
                compared += 1;
                log.print(format_args!("ok       {name}\n"))?;
            }
            Listed::Differs(want) => {
                compared += 1;
                log.print(format_args!("FAILED   {name} (listed {want}, got {sum})\n"))?;
                differ.push(name);
            }
        }
    }
    let Some(path) = &a.check else {
        return Ok(());
    };
    if !differ.is_empty() {
        return Err(CliError::Failed(format!(
            "{} of {compared} levels differ from {}: {}",
            differ.len(),
            path.display(),
            differ.join(", ")
        )));
    }
    if compared == 0 {
        return Err(CliError::Failed(format!(
            "no level in {} is listed in {}",
            dir.display(),
            path.display()
        )));
    }
    Ok(())
}
