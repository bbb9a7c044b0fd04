//! # adji
//!
//! Solver and game-tree analysis for two mancala games: **Adjito** (Benin,
//! 2×6 pits, 48 seeds) and **Adji-Boto** (Saramaka, 2×5 pits, 100 seeds).
//!
//! One module per concern:
//! - [`game`]: the [`game::Game`] trait, packed positions, moves;
//! - [`adjito`], [`adjiboto`]: the two rule sets;
//! - [`notation`]: parsing and formatting positions and moves;
//! - [`display`]: board diagrams;
//! - [`perft`]: move-path counting;
//! - [`driver`]: playing games with every end rule applied literally;
//! - [`index`]: combinatorial ranking of the boards of one level.
#![deny(missing_docs)]
// Board code indexes several arrays by pit number; index loops read best.
#![allow(clippy::needless_range_loop)]

pub mod adjiboto;
pub mod adjito;
pub mod display;
pub mod driver;
pub mod game;
pub mod index;
pub mod notation;
pub mod perft;

pub use adjiboto::AdjiBoto;
pub use adjito::Adjito;
pub use game::{Game, GameId, Move, Position, State};
pub mod reference;
pub mod search;
pub mod tables;
pub mod tt;
pub mod value;
pub mod bench;
