//! The accept loop: every connection is HTTP/1 (hyper) with a time limit on
//! each request head, and at most a fixed number are open at once.
//!
//! A client that sends half a head, or nothing, or goes quiet between two
//! requests of a kept-alive connection, is closed once the header timeout
//! passes (hyper's `header_read_timeout`, which runs whenever a head is
//! awaited, the first one included). A connection beyond the cap is closed
//! as soon as it is accepted, so slow clients can hold at most the cap's
//! worth of descriptors and memory, never all of them; as they time out,
//! their places go to new clients. Shutdown stops accepting and lets open
//! connections finish their requests.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::Semaphore;

/// Limits on the connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// The longest a request head may take, from the moment it is awaited.
    pub header_timeout: Duration,
    /// Connections open at once; more are closed when accepted.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            max_connections: 512,
        }
    }
}

/// Serves `router` on `listener` within `limits` until `shutdown` resolves,
/// then waits for the open connections' requests to end.
///
/// # Errors
/// None today: accept errors (such as running out of descriptors) are
/// waited out, not returned.
pub async fn run(
    listener: TcpListener,
    router: axum::Router,
    limits: ConnLimits,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let slots = Arc::new(Semaphore::new(limits.max_connections.max(1)));
    let graceful = GracefulShutdown::new();
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => break,
            s = accept(&listener) => s,
        };
        let Ok(permit) = Arc::clone(&slots).try_acquire_owned() else {
            // Over the cap: closed at once (dropping it closes it).
            continue;
        };
        let svc = TowerToHyperService::new(router.clone());
        let conn = graceful.watch(http.serve_connection(TokioIo::new(stream), svc));
        tokio::spawn(async move {
            let _ = conn.await;
            drop(permit);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    Ok(())
}

/// The next connection; an accept error (no descriptor left, a connection
/// reset before it was taken) is waited out briefly, never fatal.
async fn accept(listener: &TcpListener) -> TcpStream {
    loop {
        match listener.accept().await {
            Ok((s, _)) => return s,
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}
