//! The web analysis board behind `adji serve`: an axum router that serves
//! one page (SVG board, embedded in the binary, no network at run time) and
//! a JSON API whose objects are the command line's reports.
//!
//! - [`api`]: the routes and their handlers;
//! - `jobs`: solves and analyses as jobs of the queue, answered whole or
//!   streamed with progress;
//! - [`queue`]: the bounded solve queue (workers, waiting places, one hash
//!   table per worker, cancellation);
//! - `engine`: a solve or an analysis with a time cap, progress and
//!   cancellation;
//! - `reports`: the reports the API serves, built from library results;
//! - `assets`: the page, its script and style sheet, compiled in.
//!
//! Everything a request can make the server do is bounded: cheap requests
//! (`moves`, `replay`, `probe`) take microseconds; solves go through the
//! queue, each with a time cap and a fixed hash table, and stop when their
//! client goes away. No input panics the server: bad input is answered
//! with HTTP 400 and the command line's error text.

/// Runs a generic function for a game chosen at run time.
macro_rules! with_game {
    ($game:expr, $f:ident ( $($arg:expr),* )) => {
        match $game {
            $crate::game::GameId::Adjito => $f::<$crate::Adjito>($($arg),*),
            $crate::game::GameId::AdjiBoto => $f::<$crate::AdjiBoto>($($arg),*),
        }
    };
}

pub mod api;
mod assets;
mod engine;
mod jobs;
pub mod queue;

use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::game::{Game, GameId};
use crate::tables::{OpenCheck, TableError, TableSet};
use crate::tt::TtError;
use crate::value::LoopRule;
use crate::{AdjiBoto, Adjito};

pub use queue::SolveQueue;

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

    /// The router: the page, its assets and the API.
    pub fn router(self: Arc<Self>) -> axum::Router {
        api::router(self)
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

/// Binds `addr` (port 0 picks a free port).
///
/// # Errors
/// [`ServerError::Bind`] when the address cannot be had.
pub async fn bind(addr: SocketAddr) -> Result<tokio::net::TcpListener, ServerError> {
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| ServerError::Bind { addr, source })
}

/// The URL a browser opens for a listener on `addr` (this machine's
/// loopback address when `addr` is every address, `0.0.0.0` or `::`).
pub fn url(addr: SocketAddr) -> String {
    let mut a = addr;
    if a.ip().is_unspecified() {
        a.set_ip(match a {
            SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
            SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
        });
    }
    format!("http://{a}/")
}

/// Serves `app` on `addr` until the process stops, on a runtime of its own;
/// `ready` is called with the bound address (port 0 picks one) before the
/// first request is taken.
///
/// # Errors
/// The address cannot be bound, or the runtime cannot start.
pub fn run(
    app: Arc<App>,
    addr: SocketAddr,
    ready: impl FnOnce(SocketAddr),
) -> Result<(), ServerError> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(ServerError::Runtime)?;
    rt.block_on(async {
        let listener = bind(addr).await?;
        ready(listener.local_addr().map_err(ServerError::Runtime)?);
        serve(listener, app, std::future::pending())
            .await
            .map_err(ServerError::Runtime)
    })
}

/// Serves `app` on `listener` until `shutdown` resolves.
///
/// # Errors
/// An I/O error of the listener.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, app.router())
        .with_graceful_shutdown(shutdown)
        .await
}
