//! The `adji` command-line tool. All game logic lives in the library; this
//! binary parses arguments, dispatches on the game and prints reports.

use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};

mod cmd_basic;

/// Solver and analysis tool for the mancala games Adjito and Adji-Boto.
#[derive(Parser, Debug)]
#[command(name = "adji", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

/// Which game.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum GameArg {
    /// Adjito (Benin), 2×6 pits, 48 seeds.
    Adjito,
    /// Adji-Boto (Saramaka), 2×5 pits, 100 seeds.
    Adjiboto,
}

/// Options every position command takes.
#[derive(clap::Args, Debug, Clone)]
pub struct PosArgs {
    /// The game.
    #[arg(long, value_enum, default_value = "adjito")]
    pub game: GameArg,
    /// The position, in the notation `TOP/BOTTOM MOVER TOPSTORE-BOTTOMSTORE [PHASE]`, or `start`.
    #[arg(long, default_value = "start")]
    pub position: String,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Show a board diagram with pit names, stores and the side to move.
    Show {
        #[command(flatten)]
        pos: PosArgs,
    },
    /// List each legal move with the resulting position and seeds captured.
    Moves {
        #[command(flatten)]
        pos: PosArgs,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Count move sequences of exactly DEPTH moves (RULES.md §6).
    Perft {
        #[command(flatten)]
        pos: PosArgs,
        /// Number of moves.
        #[arg(long)]
        depth: u32,
        /// Also give the count after each first move.
        #[arg(long)]
        divide: bool,
        /// Print JSON: {"nodes": N, "divide": {...}}.
        #[arg(long)]
        json: bool,
    },
    /// Play a list of moves, applying every end rule, and print each position and the result.
    Replay {
        #[command(flatten)]
        pos: PosArgs,
        /// Space-separated moves, e.g. "2B 3A".
        #[arg(long)]
        moves: String,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
}

/// Runs a generic function for the game chosen on the command line.
#[macro_export]
macro_rules! dispatch {
    ($game:expr, $f:ident ( $($arg:expr),* )) => {
        match $game {
            $crate::GameArg::Adjito => $f::<adji::Adjito>($($arg),*),
            $crate::GameArg::Adjiboto => $f::<adji::AdjiBoto>($($arg),*),
        }
    };
}

/// A command failure: the message is printed once, and the exit code is 1.
pub type CmdResult = Result<(), String>;

fn main() -> ExitCode {
    let cli = Cli::parse();
    let r = match cli.command {
        Command::Show { pos } => dispatch!(pos.game, cmd_show(&pos)),
        Command::Moves { pos, json } => dispatch!(pos.game, cmd_moves(&pos, json)),
        Command::Perft {
            pos,
            depth,
            divide,
            json,
        } => dispatch!(pos.game, cmd_perft(&pos, depth, divide, json)),
        Command::Replay { pos, moves, json } => dispatch!(pos.game, cmd_replay(&pos, &moves, json)),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

use cmd_basic::{cmd_moves, cmd_perft, cmd_replay, cmd_show};
