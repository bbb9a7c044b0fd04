//! `show`, `moves`, `perft`, `replay`, `rules`.

use clap::Args;

use adji::notation::Stores;
use adji::oracle::Posed;
use adji::report::RulesReport;

use crate::args::{JsonArg, PosArgs};
use crate::error::CliError;
use crate::out;

/// Parses `--position` under the rule set `--game` and `--rules` name.
///
/// # Errors
/// A bad `--rules` (first), or a position that does not parse.
pub fn parse_pos(a: &PosArgs) -> Result<Posed, CliError> {
    let rules = a.game.rule_set()?;
    Ok(Posed::parse(rules, &a.position, Stores::Required)?)
}

/// Options of `show`.
#[derive(Args, Debug)]
pub struct ShowArgs {
    #[command(flatten)]
    pub pos: PosArgs,
}

/// Options of `moves`.
#[derive(Args, Debug)]
pub struct MovesArgs {
    #[command(flatten)]
    pub pos: PosArgs,
    #[command(flatten)]
    pub out: JsonArg,
}

/// The longest `perft --depth` accepted.
const MAX_PERFT_DEPTH: i64 = 100;

/// Options of `perft`.
#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub pos: PosArgs,
    /// Number of moves.
    #[arg(long, allow_negative_numbers = true, value_parser = clap::value_parser!(u32).range(0..=MAX_PERFT_DEPTH))]
    pub depth: u32,
    /// Also give the count after each first move.
    #[arg(long)]
    pub divide: bool,
    #[command(flatten)]
    pub out: JsonArg,
}

/// Options of `replay`.
#[derive(Args, Debug)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub pos: PosArgs,
    /// Space-separated moves, e.g. "2B 3A".
    #[arg(long)]
    pub moves: String,
    #[command(flatten)]
    pub out: JsonArg,
}

/// `show`.
pub fn show(a: &ShowArgs) -> Result<(), CliError> {
    let p = parse_pos(&a.pos)?;
    if !p.rules().is_default() {
        out::print(format_args!("{}\n", adji::report::label(p.rules())))?;
    }
    out::print(p.diagram())?;
    out::print(format_args!("  {}\n", p.notation()))
}

/// `moves`.
pub fn moves(a: &MovesArgs) -> Result<(), CliError> {
    out::report(&parse_pos(&a.pos)?.moves_report(), a.out.json)
}

/// `perft`.
pub fn perft(a: &PerftArgs) -> Result<(), CliError> {
    let p = parse_pos(&a.pos)?;
    let t = std::time::Instant::now();
    let r = p.perft_report(a.depth, a.divide);
    let secs = t.elapsed().as_secs_f64();
    out::report(&r, a.out.json)?;
    // A rate over a few milliseconds, or over the one node of depth
    // 0, measures the clock (and the machine's load), not perft.
    if !a.out.json && a.depth > 0 && secs >= 1e-2 {
        let nps = r.nodes as f64 / secs;
        out::note(format_args!("time {secs:.3}s, {nps:.0} nodes/s"));
    }
    Ok(())
}

/// `replay`.
pub fn replay_moves(a: &ReplayArgs) -> Result<(), CliError> {
    match parse_pos(&a.pos)?.replay(&a.moves) {
        Ok(rep) => out::report(&rep, a.out.json),
        // JSON prints no partial game: its one answer is the error.
        Err(fail) if a.out.json => Err(CliError::Input(fail.error)),
        Err(fail) => {
            out::print(&fail)?;
            Err(CliError::Input(fail.error))
        }
    }
}

/// Options of `rules`.
#[derive(Args, Debug)]
pub struct RulesArgs {
    #[command(flatten)]
    pub out: JsonArg,
}

/// `rules`: every rule set of both games.
pub fn rules(a: &RulesArgs) -> Result<(), CliError> {
    out::report(&RulesReport::new(), a.out.json)
}
