//! The `adji` command-line tool. All game logic lives in the library; this
//! binary parses arguments, asks the library's run-time facade
//! (`adji::oracle`: a position with its rule set, never a game type) and
//! prints the library's reports (`adji::report`).
//!
//! - `args`: option groups shared by several commands, value parsers;
//! - `analyse`: `analyse`, `match`, `eval train` (estimates beyond exact reach);
//! - `basic`: `show`, `moves`, `perft`, `replay`, `rules`;
//! - `solve`: `solve`, `bench`;
//! - `openings`: `openings`;
//! - `loop_gap`: `loop-gap`;
//! - `tables`: `tables build | probe | verify | stats`;
//! - `batch`: `--positions-file`, answered line by line;
//! - `cluster` (feature `mpi`): `tables build` and `openings` under mpirun;
//! - `setup`: threads, endgame tables for a search, the memory plan;
//! - `out`: standard output (a closed pipe stops quietly) and standard error;
//! - `error`: the one error type and the exit code;
//! - `util`: progress bars, byte sizes, memory figures.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod analyse;
mod args;
mod basic;
mod batch;
mod certify;
#[cfg(feature = "mpi")]
mod cluster;
mod error;
mod loop_gap;
mod openings;
mod out;
mod serve;
mod setup;
mod solve;
mod tables;
mod tables_build;
mod tables_checksum;
mod tables_compress;
mod tables_shards;
mod util;

/// Solver and analysis tool for the mancala games Adjito and Adji-Boto.
#[derive(Parser, Debug)]
#[command(name = "adji", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Exact value of a position and of every legal move, with the principal variation.
    Solve(solve::SolveArgs),
    /// Analyse every line of K plies from the start (or --position), in parallel, resumable.
    Openings(openings::OpeningsArgs),
    /// Solve a fixed suite on one thread: a deterministic node count (fingerprint) and nodes/s.
    Bench(solve::BenchArgs),
    /// Endgame tables: build, probe, verify, stats, merge, split.
    #[command(subcommand)]
    Tables(tables::TablesCommand),
    /// Show a board diagram with pit names, stores and the side to move.
    Show(basic::ShowArgs),
    /// List each legal move with the resulting position and seeds captured.
    Moves(basic::MovesArgs),
    /// Count move sequences of exactly DEPTH moves (docs/RULES.md).
    Perft(basic::PerftArgs),
    /// Play a list of moves, applying every end rule, and print each position and the result.
    Replay(basic::ReplayArgs),
    /// Estimate a position beyond exact reach: iterative deepening with the learned
    /// evaluation, tables where they reach, and proven bounds from the same search.
    Analyse(analyse::AnalyseArgs),
    /// Self-play between two engine budgets (each opening twice, colours swapped).
    Match(analyse::MatchArgs),
    /// The learned evaluation.
    #[command(subcommand)]
    Eval(analyse::EvalCommand),
    /// The web analysis board: a local page showing every move's value.
    Serve(serve::ServeArgs),
    /// Every rule set (reading) of both games: source, differences, tables, early end.
    Rules(basic::RulesArgs),
    /// Write a checkable proof of a position's value; `certify check FILE` verifies one.
    Certify(certify::CertifyArgs),
    /// Per level, how many positions' values under the literal loop rule
    /// (docs/RULES.md, §4) differ from `start`'s and `even`'s.
    LoopGap(loop_gap::LoopGapArgs),
}

fn main() -> ExitCode {
    let r = match &Cli::parse().command {
        Command::Solve(a) => solve::solve(a),
        Command::Openings(a) => openings::openings(a),
        Command::Bench(a) => solve::bench(a),
        Command::Tables(t) => tables::tables(t),
        Command::Show(a) => basic::show(a),
        Command::Moves(a) => basic::moves(a),
        Command::Perft(a) => basic::perft(a),
        Command::Replay(a) => basic::replay_moves(a),
        Command::Analyse(a) => analyse::analyse(a),
        Command::Match(a) => analyse::matches(a),
        Command::Eval(c) => analyse::eval(c),
        Command::Serve(a) => serve::serve(a),
        Command::Rules(a) => basic::rules(a),
        Command::Certify(a) => certify::certify(a),
        Command::LoopGap(a) => loop_gap::loop_gap(a),
    };
    error::exit(r)
}
