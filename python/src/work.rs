//! Interruptible work: a long call runs on a worker thread with the GIL
//! released while the calling thread polls for Ctrl-C.

use std::panic::AssertUnwindSafe;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

use pyo3::exceptions::{PyKeyboardInterrupt, PyRuntimeError};
use pyo3::prelude::*;

/// The payload a stopped table build unwinds with.
pub(crate) struct Interrupted;

/// Runs `work` on a worker thread with the GIL released; the calling
/// thread polls for signals every 50 ms and calls `stop` on the first
/// error (Ctrl-C), then waits for the worker and raises that error.
pub(crate) fn interruptible<T: Send>(
    py: Python<'_>,
    stop: &(dyn Fn() + Sync),
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|s| {
        let done = &done;
        let h = s.spawn(move || {
            let r = std::panic::catch_unwind(AssertUnwindSafe(work));
            *done.0.lock().unwrap_or_else(|e| e.into_inner()) = true;
            done.1.notify_all();
            r
        });
        let mut raised: Option<PyErr> = None;
        loop {
            let finished = py.allow_threads(|| {
                let g = done.0.lock().unwrap_or_else(|e| e.into_inner());
                let (g, _) = done
                    .1
                    .wait_timeout_while(g, Duration::from_millis(50), |d| !*d)
                    .unwrap_or_else(|e| e.into_inner());
                *g
            });
            if finished {
                break;
            }
            if raised.is_none() {
                if let Err(e) = py.check_signals() {
                    stop();
                    raised = Some(e);
                }
            }
        }
        let r = py.allow_threads(|| h.join());
        if let Some(e) = raised {
            return Err(e);
        }
        match r {
            Ok(Ok(v)) => Ok(v),
            Ok(Err(p)) | Err(p) => Err(if p.is::<Interrupted>() {
                PyKeyboardInterrupt::new_err("interrupted")
            } else if let Some(s) = p.downcast_ref::<String>() {
                PyRuntimeError::new_err(s.clone())
            } else if let Some(s) = p.downcast_ref::<&str>() {
                PyRuntimeError::new_err(s.to_string())
            } else {
                PyRuntimeError::new_err("the worker thread panicked")
            }),
        }
    })
}
