//! `loop-gap`: per level, how many positions have a literal-rule value
//! (docs/RULES.md, §4) different from the `start` and `even`
//! rules' values. The work is the library's (`adji::literal`).

use clap::Args;

use adji::game::Game;
use adji::literal::{loop_gap as gap, LoopGapReport};

use crate::args::{game_required, GameArg, GameRulesArgs, JsonArg};
use crate::dispatch;
use crate::error::CliError;
use crate::out;

/// The most seeds accepted, per game: the reference solver keeps every
/// board of every level in memory (Adjito's levels 0..=12 hold 2.7 million,
/// Adji-Boto's 0..=18 13 million), and on Adjito the literal search is far
/// beyond any budget there.
fn max_level(game: GameArg) -> u32 {
    match game {
        GameArg::Adjito => 12,
        GameArg::Adjiboto => 18,
    }
}

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

/// Runs `loop-gap`.
pub fn loop_gap(a: &LoopGapArgs) -> Result<(), CliError> {
    let most = max_level(a.game.game);
    if a.max_seeds > most {
        return Err(CliError::Input(format!(
            "--max-seeds {}: at most {most} for this game (the reference solver holds every board in memory)",
            a.max_seeds
        )));
    }
    dispatch!(a.game, run(a))
}

fn run<G: Game>(a: &LoopGapArgs) -> Result<(), CliError> {
    let levels = gap::<G>(a.max_seeds, a.limit).map_err(|e| CliError::Input(e.to_string()))?;
    out::report(&LoopGapReport::new::<G>(levels), a.out.json)
}
