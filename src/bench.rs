//! The `bench` suite: fixed positions of both games solved exactly on one
//! thread, without endgame tables, with a fresh 16 MiB transposition table
//! each. The total node count is deterministic and serves as a fingerprint
//! of the search (as Stockfish's `bench`): any change to move generation,
//! ordering or the table policy changes it.

use std::time::Instant;

use crate::game::Game;
use crate::notation::{parse_state, Stores};
use crate::search::{Limits, Options, Searcher};
use crate::tt::AtomicTable;
use crate::{AdjiBoto, Adjito};

/// Adjito bench positions (levels 14 to 20).
pub const ADJITO: &[&str] = &[
    "1,0,0,0,0,1/0,1,0,2,7,8 B 5-23",
    "6,0,1,0,5,0/1,0,0,0,6,0 A 18-11",
    "0,0,3,2,1,3/3,0,0,1,1,0 A 14-20",
    "2,0,0,0,1,2/0,0,1,1,8,0 B 11-22",
];

/// Adji-Boto bench positions (main phase, levels 19 to 24).
pub const ADJIBOTO: &[&str] = &[
    "1,1,1,2,0/0,2,7,5,1 0 48-32 main",
    "4,7,4,4,0/0,0,0,0,2 1 34-45 main",
    "2,2,6,3,5/4,0,0,0,2 0 39-37 main",
    "0,2,4,3,2/2,5,2,0,0 1 38-42 main",
    "2,1,2,3,2/5,1,2,0,2 0 42-38 main",
    "1,1,3,2,5/1,0,0,2,4 1 31-50 main",
];

/// One solved bench position.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchPosition {
    /// Game name.
    pub game: &'static str,
    /// The position.
    pub position: &'static str,
    /// Its exact value.
    pub value: i32,
    /// Nodes searched.
    pub nodes: u64,
    /// Milliseconds.
    pub time_ms: u64,
}

/// The whole bench.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    /// Each position.
    pub positions: Vec<BenchPosition>,
    /// Total nodes: the fingerprint.
    pub nodes: u64,
    /// Total milliseconds.
    pub time_ms: u64,
    /// Nodes per second.
    pub nps: u64,
}

fn solve<G: Game>(pos: &'static str, hash_mib: usize) -> BenchPosition {
    let st = parse_state::<G>(pos, Stores::Required).expect("bench positions are valid");
    let tt = AtomicTable::new(hash_mib);
    let opts = Options {
        parallel: false,
        pv_max: 0,
        limits: Limits::default(),
        ..Options::default()
    };
    let s = Searcher::<G, _>::new(None, &tt, opts).expect("no tables");
    let t = Instant::now();
    let a = s.analyse(&st.pos);
    BenchPosition {
        game: G::ID.name(),
        position: pos,
        value: a.value.lower,
        nodes: a.stats.nodes,
        time_ms: t.elapsed().as_millis() as u64,
    }
}

/// Runs the suite on the calling thread.
pub fn run(hash_mib: usize) -> BenchReport {
    let t = Instant::now();
    let mut positions: Vec<BenchPosition> = ADJITO
        .iter()
        .map(|p| solve::<Adjito>(p, hash_mib))
        .collect();
    positions.extend(ADJIBOTO.iter().map(|p| solve::<AdjiBoto>(p, hash_mib)));
    let nodes = positions.iter().map(|p| p.nodes).sum();
    let time_ms = t.elapsed().as_millis() as u64;
    BenchReport {
        positions,
        nodes,
        time_ms,
        nps: nodes * 1000 / time_ms.max(1),
    }
}
