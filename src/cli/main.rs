//! The `adji` command-line tool. All game logic lives in the library; this
//! binary parses arguments, dispatches on the game and prints reports.

use std::process::ExitCode;

use std::path::PathBuf;

use clap::{Parser, Subcommand, ValueEnum};

mod basic;
mod openings;
mod solve;
mod tables;
mod util;

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

/// Loop rule choice on the command line.
#[derive(Clone, Copy, Debug, ValueEnum, PartialEq, Eq)]
pub enum LoopArg {
    /// Endless play scores the split of the position where the stretch began (default).
    Start,
    /// Endless play scores 0: the remaining seeds are shared evenly.
    Even,
}

impl LoopArg {
    fn rule(self) -> adji::value::LoopRule {
        match self {
            LoopArg::Start => adji::value::LoopRule::Start,
            LoopArg::Even => adji::value::LoopRule::Even,
        }
    }
}

#[derive(Subcommand, Debug)]
enum TablesCommand {
    /// Build endgame tables level by level (resumable; verified levels are kept).
    Build {
        /// The game.
        #[arg(long, value_enum)]
        game: GameArg,
        /// Build every level from 0 to this many seeds on the board.
        #[arg(long)]
        max_seeds: u32,
        /// Directory of the table files.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Loop rule.
        #[arg(long = "loop", value_enum, default_value = "start")]
        rule: LoopArg,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Memory budget, e.g. 8G; the build refuses to start if its plan needs more.
        #[arg(long, default_value = "16G")]
        memory: String,
        /// After each level, also time a plain pass over all its moves and print the ratio.
        #[arg(long)]
        compare_floor: bool,
    },
    /// Look positions up: value, loop-sensitivity and the value of every move.
    Probe {
        /// The game.
        #[arg(long, value_enum, default_value = "adjito")]
        game: GameArg,
        /// Directory of the table files.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Loop rule the tables were built with.
        #[arg(long = "loop", value_enum, default_value = "start")]
        rule: LoopArg,
        /// A position (the stores may be left out).
        #[arg(long, conflicts_with = "positions_file")]
        position: Option<String>,
        /// A file with one position per line; a bad line gives an error for that line only.
        #[arg(long)]
        positions_file: Option<PathBuf>,
        /// Print JSON (one object per line with --positions-file).
        #[arg(long)]
        json: bool,
    },
    /// Check every table file: header, checksum, and every entry against its successors.
    Verify {
        /// The game (default: both).
        #[arg(long, value_enum)]
        game: Option<GameArg>,
        /// Directory of the table files.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Recompute only about N entries per level (blocks at fixed places);
        /// headers and checksums are still checked in full.
        #[arg(long, value_name = "N")]
        sample: Option<u64>,
    },
    /// Per-level statistics: wins, draws, losses, loop-sensitive positions, value histogram.
    Stats {
        /// The game.
        #[arg(long, value_enum, default_value = "adjito")]
        game: GameArg,
        /// Directory of the table files.
        #[arg(long, default_value = "tables")]
        dir: PathBuf,
        /// Loop rule the tables were built with.
        #[arg(long = "loop", value_enum, default_value = "start")]
        rule: LoopArg,
        /// Write Markdown to this file instead of standard output.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Exact value of a position and of every legal move, with the principal variation.
    Solve {
        /// The game.
        #[arg(long, value_enum, default_value = "adjito")]
        game: GameArg,
        /// The position (`start` for the starting position).
        #[arg(long, conflicts_with = "positions_file")]
        position: Option<String>,
        /// Batch mode: one position per line; a bad line gives an error for that line only.
        #[arg(long)]
        positions_file: Option<PathBuf>,
        /// Endgame tables directory (used when present).
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
        /// Do not use endgame tables.
        #[arg(long)]
        no_tables: bool,
        /// Loop rule.
        #[arg(long = "loop", value_enum, default_value = "start")]
        rule: LoopArg,
        /// Worker threads (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Transposition table size in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Stop after this many seconds and report bounds.
        #[arg(long, conflicts_with = "nodes")]
        time: Option<String>,
        /// Stop after about this many nodes and report bounds.
        #[arg(long)]
        nodes: Option<u64>,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Analyse every line of K plies from the start (or --position), in parallel, resumable.
    Openings {
        /// The game.
        #[arg(long, value_enum, default_value = "adjito")]
        game: GameArg,
        /// Plies to enumerate.
        #[arg(long)]
        plies: u32,
        /// Root of the tree.
        #[arg(long, default_value = "start")]
        position: String,
        /// Endgame tables directory (used when present).
        #[arg(long, default_value = "tables")]
        tables: PathBuf,
        /// Do not use endgame tables.
        #[arg(long)]
        no_tables: bool,
        /// Loop rule.
        #[arg(long = "loop", value_enum, default_value = "start")]
        rule: LoopArg,
        /// Exact values, however long it takes.
        #[arg(long, group = "budget")]
        exact: bool,
        /// At most this many seconds per position (bounds where unresolved).
        #[arg(long, group = "budget")]
        time_per_position: Option<f64>,
        /// At most about this many nodes per position.
        #[arg(long, group = "budget")]
        nodes_per_position: Option<u64>,
        /// Plain minimax to D plies per position: proven bounds, exact where
        /// the horizon is never reached (no evaluation is ever used).
        #[arg(long, group = "budget")]
        depth: Option<u32>,
        /// Worker threads: positions analysed at a time (default: all cores).
        #[arg(long)]
        threads: Option<usize>,
        /// Transposition table per position, in MiB.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Output directory (default results/openings-<game>-<plies>).
        #[arg(long)]
        out: Option<PathBuf>,
        /// Continue from the checkpoint in the output directory.
        #[arg(long)]
        resume: bool,
        /// Write 0 for wall-clock times, so that reruns give byte-identical files.
        #[arg(long)]
        no_timings: bool,
        /// Test hook: stop after this many new results, as if killed.
        #[arg(long, hide = true)]
        stop_after: Option<usize>,
    },
    /// Solve a fixed suite on one thread: a deterministic node count (fingerprint) and nodes/s.
    Bench {
        /// Transposition table size in MiB per position.
        #[arg(long, default_value_t = 16)]
        hash: usize,
        /// Print JSON.
        #[arg(long)]
        json: bool,
    },
    /// Endgame tables: build, probe, verify, stats.
    #[command(subcommand)]
    Tables(TablesCommand),
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
        Command::Tables(t) => run_tables(t),
        Command::Solve {
            game,
            position,
            positions_file,
            tables,
            no_tables,
            rule,
            threads,
            hash,
            time,
            nodes,
            json,
        } => (|| {
            set_threads(threads)?;
            if hash == 0 {
                return Err("--hash must be at least 1 (MiB)".to_string());
            }
            let time = time.as_deref().map(solve::parse_time).transpose()?;
            let a = solve::SolveArgs {
                position: if position.is_none() && positions_file.is_none() {
                    Some("start".into())
                } else {
                    position
                },
                positions_file,
                tables: if no_tables { None } else { Some(tables) },
                rule: rule.rule(),
                hash_mib: hash,
                limits: adji::search::Limits { nodes, time },
                json,
                threads: rayon::current_num_threads(),
            };
            dispatch!(game, cmd_solve(&a))
        })(),
        Command::Bench { hash, json } => solve::cmd_bench(hash, json),
        Command::Openings {
            game,
            plies,
            position,
            tables,
            no_tables,
            rule,
            exact,
            time_per_position,
            nodes_per_position,
            depth,
            threads,
            hash,
            out,
            resume,
            no_timings,
            stop_after,
        } => (|| {
            set_threads(threads)?;
            if hash == 0 {
                return Err("--hash must be at least 1 (MiB)".into());
            }
            let budget = match (exact, time_per_position, nodes_per_position) {
                _ if depth.is_some() => adji::openings::Budget::Depth(depth.unwrap_or(0)),
                (true, _, _) => adji::openings::Budget::Exact,
                (_, Some(s), _) if s > 0.0 && s.is_finite() => adji::openings::Budget::Seconds(s),
                (_, Some(s), _) => {
                    return Err(format!(
                        "--time-per-position: expected a positive number, found {s}"
                    ))
                }
                (_, _, Some(n)) => adji::openings::Budget::Nodes(n),
                _ => {
                    return Err(
                        "give a budget: --exact, --time-per-position S or --nodes-per-position N"
                            .into(),
                    )
                }
            };
            let a = openings::OpeningsArgs {
                plies,
                position,
                tables: if no_tables { None } else { Some(tables) },
                rule: rule.rule(),
                budget,
                hash_mib: hash,
                out,
                resume,
                timings: !no_timings,
                stop_after,
                command: std::iter::once("adji".to_string())
                    .chain(std::env::args().skip(1).map(|a| {
                        if a.contains(' ') {
                            format!("\"{a}\"")
                        } else {
                            a
                        }
                    }))
                    .collect::<Vec<_>>()
                    .join(" "),
            };
            dispatch!(game, cmd_openings(&a))
        })(),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

use basic::{cmd_moves, cmd_perft, cmd_replay, cmd_show};
use openings::cmd_openings;
use solve::cmd_solve;

/// Sets the size of rayon's global pool.
pub fn set_threads(threads: Option<usize>) -> CmdResult {
    if let Some(t) = threads {
        if t == 0 {
            return Err("--threads must be at least 1".into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(t)
            .build_global()
            .map_err(|e| e.to_string())?;
    }
    Ok(())
}

fn run_tables(t: TablesCommand) -> CmdResult {
    use tables::*;
    match t {
        TablesCommand::Build {
            game,
            max_seeds,
            dir,
            rule,
            threads,
            memory,
            compare_floor,
        } => {
            set_threads(threads)?;
            let memory = util::parse_size(&memory).map_err(|e| format!("--memory: {e}"))?;
            let a = BuildArgs {
                dir,
                max: max_seeds,
                rule: rule.rule(),
                memory,
                compare_floor,
            };
            dispatch!(game, cmd_build(&a))
        }
        TablesCommand::Probe {
            game,
            dir,
            rule,
            position,
            positions_file,
            json,
        } => {
            dispatch!(
                game,
                cmd_probe(
                    &dir,
                    rule.rule(),
                    position.as_deref(),
                    positions_file.as_deref(),
                    json
                )
            )
        }
        TablesCommand::Verify {
            game,
            dir,
            threads,
            sample,
        } => {
            set_threads(threads)?;
            if !dir.is_dir() {
                return Err(format!("{}: no such directory", dir.display()));
            }
            let games = match game {
                Some(g) => vec![g],
                None => vec![GameArg::Adjito, GameArg::Adjiboto],
            };
            let mut problems = 0;
            let mut first = None;
            let mut files = 0;
            for g in games {
                let (p, f, n) = dispatch!(g, cmd_verify(&dir, sample))?;
                problems += p;
                first = first.or(f);
                files += n;
            }
            if files == 0 {
                return Err(format!("no table files in {}", dir.display()));
            }
            match first {
                Some(f) if problems > 0 => Err(format!(
                    "verification found {problems} problem(s); first: {f}"
                )),
                _ => Ok(()),
            }
        }
        TablesCommand::Stats {
            game,
            dir,
            rule,
            out,
        } => dispatch!(game, cmd_stats(&dir, rule.rule(), out.as_deref())),
    }
}
