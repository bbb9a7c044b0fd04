//! The web analysis board behind `adji serve`: an axum router that serves
//! one page (SVG board, embedded in the binary, no network at run time) and
//! a JSON API whose objects are the command line's reports.
//!
//! - `app`: the configuration and the shared state (tables, queue);
//! - [`api`]: the routes and their handlers;
//! - `jobs`: solves and analyses as jobs of the queue, answered whole or
//!   streamed with progress;
//! - [`queue`]: the bounded solve queue (workers, waiting places, one hash
//!   table per worker, cancellation);
//! - `engine`: a solve or an analysis with a time cap, progress and
//!   cancellation;
//! - `request`: what the routes share (the error answer, the query
//!   parameters and their parsing), below `api` and `jobs`;
//! - `assets`: the page, its script and style sheet, compiled in;
//! - `guard`: the names the server answers to (one unambiguous host a
//!   request), and no cross-site API calls;
//! - `listen`: the accept loop (header timeout, write timeout, connection
//!   cap).
//!
//! Every route that takes a `game` also takes `rules`, the rule set (the
//! game's default reading when absent); a handler reads the position under
//! that rule set as a [`Posed`](crate::oracle::Posed) and asks it, or the
//! [`Oracle`](crate::oracle::Oracle) (which reads the tables of
//! [`RuleSet::tables`](crate::rules::RuleSet::tables)), for the answer:
//! the run-time facade of [`crate::oracle`], never a game type.
//!
//! Everything a request can make the server do is bounded: cheap requests
//! (`moves`, `replay`, `probe`) take microseconds; solves go through the
//! queue, each with a time cap and a fixed hash table, and stop when their
//! client goes away. No input panics the server: bad input is answered
//! with HTTP 400 and the command line's error text.

pub mod api;
mod app;
mod assets;
mod guard;
mod jobs;
mod listen;
pub mod queue;
mod request;

use std::net::SocketAddr;
use std::sync::Arc;

pub use app::{open_tables, App, Config, ServerError};
pub use guard::Hosts;
pub use listen::ConnLimits;
pub use queue::SolveQueue;

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
    let hosts = guard::Hosts::new(listener.local_addr()?, &app.config().allow_hosts);
    let limits = app.config().conn;
    listen::run(
        listener,
        api::router(app, Arc::new(hosts)),
        limits,
        shutdown,
    )
    .await
}
