//! The accept loop: every connection is HTTP/1 (hyper) with a time limit on
//! each request head and on each stalled write, and at most a fixed number
//! are open at once.
//!
//! A client that sends half a head, or nothing, or goes quiet between two
//! requests of a kept-alive connection, is closed once the header timeout
//! passes (hyper's `header_read_timeout`, which runs whenever a head is
//! awaited, the first one included). When the cap is reached, a new
//! connection makes room by closing the oldest idle one: idle is awaiting
//! (or part way through) a request head, with no request being answered and
//! no answer left to send. Only when every open connection is busy with a
//! request is the newcomer closed as soon as it is accepted. Slow clients
//! therefore hold at most the cap's worth of descriptors and memory, and
//! however fast they reconnect, the connections they hold are the oldest
//! idle ones and go first, so a client that sends its request at once is
//! served. Shutdown stops accepting, closes idle connections and lets the
//! others finish their requests.
//!
//! A client that sends requests and does not read the answers fills the
//! socket's buffers, and the connection stays busy (never idle, never
//! evicted). So a write that cannot hand the socket a single byte for the
//! write timeout fails and the connection is closed (`Watched`). Only a
//! full socket counts: an answer that is slow to compute (a solve, a stream
//! of progress) writes nothing meanwhile and is not cut, and every byte
//! the socket takes starts the time again.

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::future::Future;
use std::io::IoSlice;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::response::Response;
use hyper::body::{Bytes, Frame, Incoming, SizeHint};
use hyper::server::conn::http1;
use hyper::Request;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{watch, Notify};

/// Limits on the connections.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ConnLimits {
    /// The longest a request head may take, from the moment it is awaited.
    pub header_timeout: Duration,
    /// The longest a write may wait for room in the socket (the client not
    /// reading); then the connection is closed.
    pub write_timeout: Duration,
    /// Connections open at once; at the cap a new one closes the oldest idle
    /// one, or is closed itself when every open one is busy.
    pub max_connections: usize,
}

impl Default for ConnLimits {
    fn default() -> Self {
        ConnLimits {
            header_timeout: Duration::from_secs(10),
            write_timeout: Duration::from_secs(10),
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
    let open = Arc::new(Registry::default());
    let cap = limits.max_connections.max(1);
    let (stop, _) = watch::channel(());
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_timeout);
    tokio::pin!(shutdown);
    loop {
        let stream = tokio::select! {
            _ = &mut shutdown => break,
            s = accept(&listener) => s,
        };
        let Some(place) = open.admit(cap) else {
            // Every open connection is busy: closed at once (dropping it
            // closes it).
            continue;
        };
        let svc = Counted {
            inner: TowerToHyperService::new(router.clone()),
            activity: Arc::clone(&place.activity),
        };
        let io = TokioIo::new(Watched {
            io: stream,
            activity: Arc::clone(&place.activity),
            write_timeout: limits.write_timeout,
            stalled: None,
        });
        let conn = http.serve_connection(io, svc);
        tokio::spawn(drive(conn, place, stop.subscribe()));
    }
    drop(listener);
    // Every connection holds a receiver until it ends.
    let _ = stop.send(());
    stop.closed().await;
    Ok(())
}

/// Runs one connection until it ends, or until it is evicted or the server
/// stops: then an idle connection is closed at once, a busy one after the
/// request it is answering.
async fn drive<C>(conn: C, place: Place, mut stop: watch::Receiver<()>)
where
    C: Future + GracefulClose,
{
    tokio::pin!(conn);
    tokio::select! {
        _ = conn.as_mut() => return,
        _ = place.evict.notified() => {}
        _ = stop.changed() => {}
    }
    if place.activity.idle() {
        return;
    }
    conn.as_mut().close_after_request();
    let _ = conn.await;
}

/// A hyper connection that can be told to close once its request is done.
trait GracefulClose {
    /// Stops keeping the connection alive after the current request.
    fn close_after_request(self: Pin<&mut Self>);
}

impl<I, S> GracefulClose for http1::Connection<I, S>
where
    S: hyper::service::HttpService<Incoming>,
    S::ResBody: hyper::body::Body + 'static,
    <S::ResBody as hyper::body::Body>::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
    I: hyper::rt::Read + hyper::rt::Write + Unpin,
{
    fn close_after_request(self: Pin<&mut Self>) {
        self.graceful_shutdown();
    }
}

/// What the accept loop knows of one connection's traffic.
#[derive(Debug, Default)]
struct Activity {
    /// Requests being answered (their response not yet fully handed to
    /// hyper).
    requests: AtomicUsize,
    /// Whether bytes written to the socket may still wait in a buffer: set
    /// by a write, cleared when a flush completes.
    unflushed: AtomicBool,
}

impl Activity {
    /// No request in progress and nothing left to send: the connection
    /// awaits, or is reading, a request head.
    fn idle(&self) -> bool {
        self.requests.load(Ordering::Acquire) == 0 && !self.unflushed.load(Ordering::Acquire)
    }
}

/// The open connections, oldest first.
#[derive(Default)]
struct Registry {
    /// By accept order: the next id and each open connection's entry.
    conns: Mutex<(u64, BTreeMap<u64, Entry>)>,
}

/// One open connection, as the registry holds it.
struct Entry {
    /// Its traffic.
    activity: Arc<Activity>,
    /// Notified to close it.
    evict: Arc<Notify>,
}

/// A new connection's place in the registry; leaving it (the connection
/// task's end) removes the entry if eviction has not already.
struct Place {
    registry: Arc<Registry>,
    id: u64,
    activity: Arc<Activity>,
    evict: Arc<Notify>,
}

impl Registry {
    /// Makes room for a new connection under `cap` (closing the oldest idle
    /// one if the cap is reached) and registers it; `None` when every open
    /// connection is busy.
    fn admit(self: &Arc<Self>, cap: usize) -> Option<Place> {
        let mut guard = self.conns.lock().unwrap_or_else(|e| e.into_inner());
        let (next, conns) = &mut *guard;
        if conns.len() >= cap {
            let oldest = conns
                .iter()
                .find(|(_, e)| e.activity.idle())
                .map(|(&id, _)| id)?;
            if let Some(e) = conns.remove(&oldest) {
                // Stored if the task is not waiting yet: never lost.
                e.evict.notify_one();
            }
        }
        let id = *next;
        *next += 1;
        let activity = Arc::new(Activity::default());
        let evict = Arc::new(Notify::new());
        conns.insert(
            id,
            Entry {
                activity: Arc::clone(&activity),
                evict: Arc::clone(&evict),
            },
        );
        Some(Place {
            registry: Arc::clone(self),
            id,
            activity,
            evict,
        })
    }
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut guard = self
            .registry
            .conns
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        guard.1.remove(&self.id);
    }
}

/// Counts one request in progress until dropped.
struct Busy(Arc<Activity>);

impl Busy {
    fn new(activity: &Arc<Activity>) -> Busy {
        activity.requests.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(activity))
    }
}

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.requests.fetch_sub(1, Ordering::AcqRel);
    }
}

/// The router as a hyper service that marks its connection busy from the
/// moment a request head is read until the response body is done (or the
/// request is dropped, as when the client goes away).
#[derive(Clone)]
struct Counted {
    inner: TowerToHyperService<axum::Router>,
    activity: Arc<Activity>,
}

impl hyper::service::Service<Request<Incoming>> for Counted {
    type Response = Response;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response, Infallible>> + Send>>;

    fn call(&self, req: Request<Incoming>) -> Self::Future {
        let busy = Busy::new(&self.activity);
        let answer = self.inner.call(req);
        Box::pin(async move {
            let res = answer.await?;
            Ok(res.map(|body| Body::new(BusyBody { body, _busy: busy })))
        })
    }
}

/// A response body that keeps its connection busy until it is dropped.
struct BusyBody {
    body: Body,
    _busy: Busy,
}

impl hyper::body::Body for BusyBody {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The socket, noting whether written bytes may still wait to be sent
/// (hyper writes its buffer, then flushes, in every turn), and failing a
/// write that finds the socket full for longer than the write timeout.
struct Watched {
    io: TcpStream,
    activity: Arc<Activity>,
    write_timeout: Duration,
    /// Armed when a write finds the socket full, cleared when one gets
    /// through: the moment the stalled write fails.
    stalled: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Watched {
    /// Times a write's outcome: a write that waits starts (or keeps) the
    /// clock and fails with `TimedOut` once it runs out; a write that is
    /// done (bytes taken, or an error) stops it.
    fn timed<T>(
        &mut self,
        cx: &mut Context<'_>,
        r: Poll<std::io::Result<T>>,
    ) -> Poll<std::io::Result<T>> {
        if r.is_ready() {
            self.stalled = None;
            return r;
        }
        let timeout = self.write_timeout;
        let clock = self
            .stalled
            .get_or_insert_with(|| Box::pin(tokio::time::sleep(timeout)));
        match clock.as_mut().poll(cx) {
            Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the client took no data for the write timeout",
            ))),
            Poll::Pending => Poll::Pending,
        }
    }

    /// Notes a write's outcome: bytes taken or a full socket leave data
    /// to flush.
    fn wrote<T>(&self, r: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        if !matches!(r, Poll::Ready(Err(_))) {
            self.activity.unflushed.store(true, Ordering::Release);
        }
        r
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write(cx, buf);
        let r = self.timed(cx, r);
        self.wrote(r)
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        let r = Pin::new(&mut self.io).poll_write_vectored(cx, bufs);
        let r = self.timed(cx, r);
        self.wrote(r)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        // A socket's flush never waits (the bytes are the kernel's once
        // written), so it neither starts nor stops the write clock.
        let r = Pin::new(&mut self.io).poll_flush(cx);
        if matches!(r, Poll::Ready(Ok(()))) {
            self.activity.unflushed.store(false, Ordering::Release);
        }
        r
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.io).poll_shutdown(cx)
    }
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
