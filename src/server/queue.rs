//! The solve queue: a bounded number of solves at once, a bounded number
//! waiting, one preallocated hash table per running solve (cleared when it
//! passes to another rule set), FIFO order, and cancellation.
//!
//! Memory is fixed when the server starts (`workers × hash`); a request that
//! would exceed `workers + waiting` is refused at once ([`Busy`], HTTP 503),
//! so no client can make the server queue without bound. Waiting is FIFO
//! (tokio's semaphore is fair), and every solve has a time cap, so no client
//! waits longer than its place in the queue times the cap.
//!
//! A [`Job`] is shared between the request and the blocking thread that runs
//! the search: the request side cancels it (when the client goes away or
//! asks to), the search side publishes its node count for progress reports.

use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use tokio::sync::{Notify, Semaphore};

use crate::oracle::Watch;
use crate::rules::RuleSet;
use crate::tt::{AtomicTable, TtError};

/// The queue is full: the request is refused, not queued.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Busy {
    /// Solves running.
    pub running: usize,
    /// Solves waiting.
    pub waiting: usize,
}

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the server is busy: {} solve(s) running and {} waiting, the most it takes; try again shortly",
            self.running, self.waiting
        )
    }
}

/// One solve, as seen by both the request and the search thread.
#[derive(Debug)]
pub struct Job {
    watch: Watch,
    notify: Notify,
    started: Mutex<Option<Instant>>,
}

impl Job {
    /// A new job, not yet started.
    pub fn new() -> Arc<Job> {
        Arc::new(Job {
            watch: Watch::new(),
            notify: Notify::new(),
            started: Mutex::new(None),
        })
    }

    /// Asks the job to stop (or never to start).
    pub fn cancel(&self) {
        self.watch.stop();
        self.notify.notify_waiters();
    }

    /// Whether [`Job::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.watch.is_stopped()
    }

    /// The watch [`Job::cancel`] stops and the search publishes its node
    /// count to.
    pub fn watch(&self) -> &Watch {
        &self.watch
    }

    /// Resolves once the job is cancelled.
    pub async fn cancelled(&self) {
        loop {
            let n = self.notify.notified();
            tokio::pin!(n);
            n.as_mut().enable();
            if self.is_cancelled() {
                return;
            }
            n.await;
        }
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.watch.nodes()
    }

    /// Milliseconds since the solve started running, `None` while it waits.
    pub fn running_ms(&self) -> Option<u64> {
        let started = *self.started.lock().unwrap_or_else(|e| e.into_inner());
        started.map(|t| t.elapsed().as_millis() as u64)
    }

    fn mark_started(&self) {
        *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Some(Instant::now());
    }
}

/// Cancels its job when dropped: held by whatever serves the client, so
/// that a client that goes away stops its solve.
#[derive(Debug)]
pub struct CancelOnDrop(pub Arc<Job>);

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        self.0.cancel();
    }
}

/// Why a queued solve gave no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum QueueError {
    /// The job was cancelled before it ran.
    Cancelled,
    /// The solve's thread failed (a panic); the message says how.
    Failed(String),
}

/// The bounded solve queue.
pub struct SolveQueue {
    slots: Arc<Semaphore>,
    tables: Mutex<Vec<Hash>>,
    admitted: AtomicUsize,
    workers: usize,
    waiting: usize,
    hash_bytes: usize,
}

/// A worker's hash table, with the rule set whose positions it holds (none
/// yet): entries of one rule set are wrong for another (the same position
/// has another value), so a table changing hands is cleared first.
struct Hash {
    tt: AtomicTable,
    rules: Option<RuleSet>,
}

/// A place in the queue: admitted, not yet running. Dropping it gives the
/// place back.
pub struct Ticket {
    queue: Arc<SolveQueue>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        self.queue.admitted.fetch_sub(1, SeqCst);
    }
}

impl SolveQueue {
    /// A queue of `workers` solves at once with a `hash_mib` MiB table each,
    /// and at most `waiting` more waiting. The tables are allocated now.
    ///
    /// # Errors
    /// When a hash table cannot be had.
    pub fn new(workers: usize, waiting: usize, hash_mib: usize) -> Result<Self, TtError> {
        let workers = workers.max(1);
        let tables = (0..workers)
            .map(|_| AtomicTable::try_new(hash_mib).map(|tt| Hash { tt, rules: None }))
            .collect::<Result<Vec<_>, _>>()?;
        let hash_bytes = tables.first().map_or(0, |h| h.tt.bytes());
        Ok(SolveQueue {
            slots: Arc::new(Semaphore::new(workers)),
            tables: Mutex::new(tables),
            admitted: AtomicUsize::new(0),
            workers,
            waiting,
            hash_bytes,
        })
    }

    /// Solves that may run at once.
    pub fn workers(&self) -> usize {
        self.workers
    }

    /// Solves that may wait.
    pub fn waiting(&self) -> usize {
        self.waiting
    }

    /// Bytes of one solve's hash table.
    pub fn hash_bytes(&self) -> usize {
        self.hash_bytes
    }

    /// Solves admitted now (running and waiting).
    pub fn admitted(&self) -> usize {
        self.admitted.load(SeqCst)
    }

    /// Takes a place in the queue, or refuses when it is full.
    ///
    /// # Errors
    /// [`Busy`] when `workers + waiting` solves are already admitted.
    pub fn admit(self: &Arc<Self>) -> Result<Ticket, Busy> {
        let limit = self.workers + self.waiting;
        let taken = self
            .admitted
            .fetch_update(SeqCst, SeqCst, |n| (n < limit).then_some(n + 1));
        match taken {
            Ok(_) => Ok(Ticket {
                queue: Arc::clone(self),
            }),
            Err(n) => Err(Busy {
                running: n.min(self.workers),
                waiting: n.saturating_sub(self.workers),
            }),
        }
    }
}

impl Ticket {
    /// Waits for a free worker (FIFO), then runs `work` on a blocking thread
    /// with a hash table of its own, holding entries of `rules` only (it is
    /// cleared first when it last served another rule set). The worker and the table stay taken
    /// until `work` returns, even if this future is dropped: `work` must
    /// watch `job` and stop soon after it is cancelled.
    ///
    /// # Errors
    /// [`QueueError::Cancelled`] if the job is cancelled while waiting;
    /// [`QueueError::Failed`] if `work` panics.
    pub async fn run<R, F>(self, job: Arc<Job>, rules: RuleSet, work: F) -> Result<R, QueueError>
    where
        R: Send + 'static,
        F: FnOnce(&AtomicTable) -> R + Send + 'static,
    {
        let slots = Arc::clone(&self.queue.slots);
        let permit = tokio::select! {
            biased;
            _ = job.cancelled() => return Err(QueueError::Cancelled),
            p = slots.acquire_owned() => p.map_err(|e| QueueError::Failed(e.to_string()))?,
        };
        job.mark_started();
        let handle = tokio::task::spawn_blocking(move || {
            let (_ticket, _permit) = (&self, permit);
            let mut h = self
                .queue
                .take_table()
                .ok_or_else(|| "no hash table free".to_string())?;
            if h.rules != Some(rules) {
                h.tt.clear();
                h.rules = Some(rules);
            }
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| work(&h.tt)));
            self.queue.put_table(h);
            out.map_err(|p| panic_text(p.as_ref()))
        });
        match handle.await {
            Ok(Ok(r)) => Ok(r),
            Ok(Err(msg)) => Err(QueueError::Failed(msg)),
            Err(e) => Err(QueueError::Failed(e.to_string())),
        }
    }
}

impl SolveQueue {
    fn take_table(&self) -> Option<Hash> {
        self.tables.lock().unwrap_or_else(|e| e.into_inner()).pop()
    }

    fn put_table(&self, h: Hash) {
        self.tables
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(h);
    }
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    let msg = p
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    format!("the solve failed: {msg}")
}
