//! The server's state and configuration: [`Config`], the oracle over the
//! tables of every table family ([`open_tables`]: each rule set whose own
//! tables it reads, see [`RuleSet::tables`]), the solve queue ([`App`]),
//! and why a server cannot start ([`ServerError`]). Everything else in `server/` reads it; it reads
//! only the queue and the connection limits.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use super::listen::ConnLimits;
use super::queue::SolveQueue;
use crate::game::GameId;
use crate::oracle::Oracle;
use crate::rules::RuleSet;
use crate::tables::{OpenCheck, TableError, TableSet};
use crate::tt::TtError;
use crate::value::LoopRule;

/// How the server runs.
#[derive(Clone, Debug)]
pub struct Config {
    /// The game and rule set the page shows first (requests without
    /// `rules` get their game's default reading, whatever this is).
    pub rules: RuleSet,
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
            rules: RuleSet::default_for(GameId::ALL[0]),
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

/// Opens, for every table family, whatever consecutive levels from 0
/// `config.tables` holds under `config.rule` (none without a directory),
/// as the oracle every request asks.
///
/// # Errors
/// A missing tables directory, or a table file that is present but bad.
pub fn open_tables(config: &Config) -> Result<Oracle, ServerError> {
    let Some(dir) = &config.tables else {
        return Ok(Oracle::new(config.rule));
    };
    if !dir.is_dir() {
        return Err(ServerError::NoTablesDir(dir.clone()));
    }
    Ok(Oracle::open(dir, config.rule, config.check)?)
}

/// The server's shared state: configuration, tables, solve queue.
pub struct App {
    config: Config,
    oracle: Oracle,
    queue: Arc<SolveQueue>,
}

impl App {
    /// Opens the tables (every table family, whatever levels are present)
    /// and allocates the workers' hash tables.
    ///
    /// # Errors
    /// A missing tables directory, a bad table file, or no memory for the hash.
    pub fn new(config: Config) -> Result<Self, ServerError> {
        let oracle = open_tables(&config)?;
        App::with_tables(config, oracle)
    }

    /// An app with tables already opened (by [`open_tables`] on the same
    /// configuration): allocates the workers' hash tables.
    ///
    /// # Errors
    /// No memory for the hash.
    pub fn with_tables(config: Config, oracle: Oracle) -> Result<Self, ServerError> {
        let queue = Arc::new(SolveQueue::new(
            config.workers,
            config.waiting,
            config.hash_mib,
        )?);
        Ok(App {
            config,
            oracle,
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

    /// The tables a request under `rules` reads (those of
    /// [`RuleSet::tables`]), when any level is present.
    pub fn tables(&self, rules: RuleSet) -> Option<&TableSet> {
        self.oracle.tables(rules)
    }

    /// The oracle every solve, estimate and probe asks.
    pub fn oracle(&self) -> &Oracle {
        &self.oracle
    }

    /// Levels covered by the tables that `rules` reads (0 when none).
    pub fn covered(&self, rules: RuleSet) -> u32 {
        self.tables(rules).map_or(0, TableSet::covered)
    }

    /// Bytes of every table file mapped.
    pub fn mapped_bytes(&self) -> u64 {
        self.oracle.mapped_bytes()
    }

    /// The game the page shows first.
    pub fn game(&self) -> GameId {
        self.config.rules.game()
    }
}
