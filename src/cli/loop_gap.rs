//! `loop-gap`: per level, how many positions have a literal-rule value
//! (docs/RULES.md, §4) different from the `start` and `even`
//! rules' values. The work is the library's (`adji::literal`).

use clap::Args;

use adji::oracle::jobs;

use crate::args::{game_required, GameRulesArgs, JsonArg};
use crate::error::CliError;
use crate::out;

/// Options of `loop-gap`.
#[derive(Args, Debug)]
#[command(mut_args(game_required))]
pub struct LoopGapArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    /// Compare every level from 0 to this many seeds.
    /// At most 12 for Adjito, 18 for Adji-Boto.
    #[arg(long)]
    pub max_seeds: u32,
    /// Node budget of the literal rule's search, all levels together; the
    /// search is exponential in the seeds, so a level that does not fit is
    /// refused with an error naming it.
    #[arg(long, default_value_t = 1_000_000_000, value_parser = clap::value_parser!(u64).range(1..))]
    pub limit: u64,
    #[command(flatten)]
    pub out: JsonArg,
}

/// Runs `loop-gap`. The most seeds a game takes is the library's
/// ([`adji::game::GameId::loop_gap_reach`]: the reference solver keeps every board
/// of every level in memory).
pub fn loop_gap(a: &LoopGapArgs) -> Result<(), CliError> {
    let most = a.game.game.loop_gap_reach();
    if a.max_seeds > most {
        return Err(CliError::Input(format!(
            "--max-seeds {}: at most {most} for this game (the reference solver holds every board in memory)",
            a.max_seeds
        )));
    }
    let report = jobs::loop_gap(a.game.rule_set()?, a.max_seeds, a.limit)
        .map_err(|e| CliError::Input(e.to_string()))?;
    out::report(&report, a.out.json)
}
