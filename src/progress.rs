//! Progress reporting for long jobs, without a terminal dependency: the
//! library calls a [`Progress`]; the command line draws bars with it (and
//! the web server or a test may count or ignore the calls).

/// Receives progress of a long job. Implementations must be cheap and
/// thread-safe: workers call [`Progress::inc`] per chunk of work.
pub trait Progress: Sync {
    /// A new phase begins, of `total` units (`what` names it, e.g. "level 20").
    fn start(&self, what: &str, total: u64);
    /// `n` more units are done.
    fn inc(&self, n: u64);
    /// A short status for the current phase (e.g. "threshold +3").
    fn message(&self, _message: &str) {}
    /// The phase is over; `message` says how it ended.
    fn finish(&self, message: &str);
}

/// Ignores every call.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoProgress;

impl Progress for NoProgress {
    fn start(&self, _: &str, _: u64) {}
    fn inc(&self, _: u64) {}
    fn finish(&self, _: &str) {}
}
