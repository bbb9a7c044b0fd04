//! The server's state and configuration: [`Config`], the tables of both
//! games, the solve queue ([`App`]), and why a server cannot start
//! ([`ServerError`]). Everything else in `server/` reads it; it reads only
//! the queue and the connection limits.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::listen::ConnLimits;
use super::queue::SolveQueue;
use crate::game::{Game, GameId};
use crate::tables::{OpenCheck, TableError, TableSet};
use crate::tt::TtError;
use crate::value::LoopRule;
use crate::{AdjiBoto, Adjito};

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The game the page shows first.
    pub game: GameId,
    /// Endgame tables directory (none: every position is searched).
    pub tables: Option<PathBuf>,
    /// Loop rule of the values (and of the tables).
    pub rule: LoopRule,
    /// How much of each table file is checked when it is opened.
    pub check: OpenCheck,
    /// Solves running at once (one thread each).
    pub workers: usize,
    /// Solves that may wait for a worker; more are refused with 503.
    pub waiting: usize,
    /// Hash table per worker, in MiB.
    pub hash_mib: usize,
    /// The longest a solve may run.
    pub time_cap: Duration,
    /// Names the server answers to besides localhost and its addresses
    /// (`--allow-host`).
    pub allow_hosts: Vec<String>,
    /// The header timeout and the connection cap.
    pub conn: ConnLimits,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            game: GameId::Adjito,
            tables: None,
            rule: LoopRule::Start,
            check: OpenCheck::Full,
            workers: 2,
            waiting: 16,
            hash_mib: 64,
            time_cap: Duration::from_secs(30),
            allow_hosts: Vec::new(),
            conn: ConnLimits::default(),
        }
    }
}

/// A server that cannot start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The tables directory does not exist.
    #[error("{0}: no such directory")]
    NoTablesDir(PathBuf),
    /// A table file is present but bad.
    #[error("{0}")]
    Tables(#[from] TableError),
    /// A hash table cannot be had.
    #[error("{0}")]
    Hash(#[from] TtError),
    /// The runtime or the listener failed.
    #[error("server: {0}")]
    Runtime(std::io::Error),
    /// The address cannot be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: SocketAddr,
        /// Why.
        source: std::io::Error,
    },
}

/// The server's shared state: configuration, tables, solve queue.
pub struct App {
    config: Config,
    adjito: Option<TableSet>,
    adjiboto: Option<TableSet>,
    queue: Arc<SolveQueue>,
}

impl App {
    /// Opens the tables (both games, whatever levels are present) and
    /// allocates the workers' hash tables.
    ///
    /// # Errors
    /// A missing tables directory, a bad table file, or no memory for the hash.
    pub fn new(config: Config) -> Result<Self, ServerError> {
        let (adjito, adjiboto) = match &config.tables {
            None => (None, None),
            Some(dir) if !dir.is_dir() => return Err(ServerError::NoTablesDir(dir.clone())),
            Some(dir) => (
                open::<Adjito>(dir, config.rule, config.check)?,
                open::<AdjiBoto>(dir, config.rule, config.check)?,
            ),
        };
        let queue = Arc::new(SolveQueue::new(
            config.workers,
            config.waiting,
            config.hash_mib,
        )?);
        Ok(App {
            config,
            adjito,
            adjiboto,
            queue,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The solve queue.
    pub fn queue(&self) -> &Arc<SolveQueue> {
        &self.queue
    }

    /// The tables of `game`, when any level is present.
    pub fn tables(&self, game: GameId) -> Option<&TableSet> {
        match game {
            GameId::Adjito => self.adjito.as_ref(),
            GameId::AdjiBoto => self.adjiboto.as_ref(),
        }
    }

    /// Levels covered by the tables of `game` (0 when none).
    pub fn covered(&self, game: GameId) -> u32 {
        self.tables(game).map_or(0, TableSet::covered)
    }
}

fn open<G: Game>(
    dir: &std::path::Path,
    rule: LoopRule,
    check: OpenCheck,
) -> Result<Option<TableSet>, TableError> {
    let set = TableSet::open_available_checked::<G>(dir, rule, check)?;
    Ok((set.covered() > 0).then_some(set))
}
