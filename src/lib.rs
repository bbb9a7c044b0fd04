//! # adji
//!
//! Solver and game-tree analysis for two mancala games: **Adjito** (Benin,
//! 2×6 pits, 48 seeds) and **Adji-Boto** (Saramaka, 2×5 pits, 100 seeds).
//!
//! One module per concern:
//! - [`rules`]: the games and their readings (rule sets), at the bottom;
//! - [`game`]: the [`game::Game`] trait, packed positions, moves;
//! - [`adjito`], [`adjiboto`]: the two games, generic over their readings;
//! - [`dispatch`]: a run-time rule set to its game type ([`with_rules!`]),
//!   the one dispatch point of every front end;
//! - [`notation`]: parsing and formatting positions and moves;
//! - [`display`]: board diagrams;
//! - [`perft`]: move-path counting;
//! - [`driver`]: playing games with every end rule applied literally;
//! - [`index`]: combinatorial ranking of the boards of one level;
//! - [`value`]: the value definition and loop rules (docs/RULES.md §4);
//! - [`tables`]: endgame tables (format, builder, verify, stats);
//! - [`reference`]: a slow, obviously correct reference solver;
//! - [`literal`]: the literal loop rule by brute force, and its gap to `start`;
//! - [`tt`], [`search`]: the transposition table and the exact search;
//! - [`bench`]: the fixed bench suite;
//! - [`certify`]: certificates of a position's value and their independent checker;
//! - [`engine`]: the depth-limited engine for positions beyond exact reach;
//! - [`selfplay`]: matches between two engine budgets;
//! - [`eval`]: the evaluation learned from the tables (estimates, never values);
//! - [`openings`]: opening enumeration, batch analysis and reports;
//! - [`oracle`]: the front ends' one door to solves, estimates and probes
//!   (tables of every family under one loop rule, a position with its rule set);
//! - [`records`]: the small binary records of the openings checkpoint;
//! - [`fsutil`]: atomic writes, stale temporary files, regular-file opens;
//! - [`progress`]: the progress callback long jobs report to;
//! - [`distributed`]: the message-passing interface of distributed runs
//!   (MPI with the feature `mpi`);
//! - [`report`]: what each command answers (JSON and text), for the command
//!   line and the web server alike;
//! - `server` (feature `server`, on by default): the web analysis board
//!   behind `adji serve`.
//!
//! ```
//! use adji::{Adjito, Game};
//! use adji::notation::{format_state, parse_move};
//! use adji::game::State;
//!
//! // docs/RULES.md §2's first worked example: from the start, B plays 2B.
//! let start = Adjito::start();
//! let mv = parse_move::<Adjito>(&start, "2B").unwrap();
//! let played = Adjito::try_play(&start, mv).unwrap();
//! assert_eq!(played.captured, 4);
//! let after = State { pos: played.pos, stores: [4, 0] };
//! assert_eq!(format_state::<Adjito>(&after), "0,4,4,4,4,4/4,0,5,5,5,5 A 0-4");
//! assert_eq!(adji::perft::perft::<Adjito>(&start, 4), 875);
//! ```
//!
//! ```
//! use adji::search::{Options, Searcher};
//! use adji::tt::AtomicTable;
//! use adji::notation::{parse_state, Stores};
//! use adji::AdjiBoto;
//!
//! let st = parse_state::<AdjiBoto>("1,1,3,2,5/1,0,0,2,4 1 31-50 main", Stores::Required).unwrap();
//! let tt = AtomicTable::new(1);
//! let s = Searcher::<AdjiBoto, _>::new(None, &tt, Options::default()).unwrap();
//! let a = s.analyse(&st.pos);
//! assert_eq!((a.value.lower, a.value.upper), (-7, -7));
//! ```
#![deny(missing_docs)]
// Board code indexes several arrays by pit number; index loops read best.
#![allow(clippy::needless_range_loop)]

pub mod games;
pub use games::{adjiboto, adjito};
pub mod dispatch;
pub mod display;
pub mod distributed;
pub mod driver;
pub mod game;
pub mod index;
pub mod literal;
pub mod notation;
pub mod perft;
pub mod rules;

pub use adjiboto::AdjiBoto;
pub use adjito::Adjito;
pub use game::{Game, GameId, Move, Position, State};
pub mod bench;
pub mod certify;
pub mod engine;
pub mod eval;
pub mod fsutil;
pub mod progress;

pub mod openings;
pub mod oracle;
pub mod records;
pub mod reference;
pub mod report;
pub mod search;
pub mod selfplay;
#[cfg(feature = "server")]
pub mod server;
pub mod tables;
pub mod tt;
pub mod value;
