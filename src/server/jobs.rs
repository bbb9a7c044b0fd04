//! Solves and analyses: the requests that search, run as jobs of the
//! bounded queue. Each is answered whole (`/api/solve`, `/api/analyse`) or
//! streamed as NDJSON (`…/stream`): a progress line every 200 ms, then the
//! report. Either way the job is cancelled when its client goes away.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::State as AxState;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::app::App;
use super::queue::{CancelOnDrop, Job, QueueError};
use super::request::{params, posed, to_json, ApiError, Params, Q};
use crate::notation::Stores;
use crate::oracle::{Eval, OracleError, Posed, SolveOptions};
use crate::search::Limits;
use crate::tt::AtomicTable;

/// How often a streamed job reports progress.
const PROGRESS: Duration = Duration::from_millis(200);

/// What a job computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The exact search (`solve`).
    Solve,
    /// The estimate engine (`analyse`).
    Analyse,
}

/// A job asked for: what, under which rule set, for which position, within
/// which limits.
struct JobRequest {
    kind: Kind,
    posed: Posed,
    limits: Limits,
}

/// A finished job: its report, and for a solve each move's
/// loop-sensitivity (which the report does not carry; the page marks it).
struct Done {
    report: Value,
    loop_sensitive: Option<Value>,
}

impl JobRequest {
    fn parse(kind: Kind, app: &App, p: &Params) -> Result<Self, ApiError> {
        let posed = posed(app, p, Stores::Required)?;
        let cap = app.config().time_cap;
        let time = match p.time.as_deref() {
            None => cap,
            Some(t) => parse_time(t)?.min(cap),
        };
        let nodes = p.nodes.as_deref().map(parse_nodes).transpose()?;
        let limits = Limits {
            nodes,
            time: Some(time),
        };
        Ok(JobRequest {
            kind,
            posed,
            limits,
        })
    }

    /// Runs on a worker's blocking thread with its hash table, on one
    /// thread, stopped as soon as the job is cancelled (a solve within
    /// about 1024 nodes; the report then holds the bounds proved so far).
    fn run(&self, app: &App, job: &Job, tt: &AtomicTable) -> Result<Done, ApiError> {
        let (oracle, watch) = (app.oracle(), Some(job.watch()));
        let internal = |e: OracleError| ApiError::internal(e.to_string());
        if self.kind == Kind::Analyse {
            let e = oracle.estimate(&self.posed, Eval::Shipped, self.limits, MAX_DEPTH, watch);
            return Ok(Done {
                report: to_json(&e.map_err(internal)?)?,
                loop_sensitive: None,
            });
        }
        let opts = SolveOptions {
            limits: self.limits,
            parallel: false,
            ..Default::default()
        };
        let s = oracle
            .solve(&self.posed, tt, opts, watch)
            .map_err(internal)?;
        Ok(Done {
            report: to_json(&s.report)?,
            loop_sensitive: Some(to_json(&s.loop_flags)?),
        })
    }
}

/// Deepest iteration of an analysis (as `analyse` without `--depth`).
const MAX_DEPTH: u32 = 200;

/// Parses `time` seconds, as `solve --time` does.
fn parse_time(s: &str) -> Result<Duration, ApiError> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| ApiError::bad(format!("time: expected seconds, found '{s}'")))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(ApiError::bad(format!(
            "time: expected a positive number of seconds, found '{s}'"
        )));
    }
    Ok(Duration::try_from_secs_f64(v).unwrap_or(Duration::MAX))
}

/// Parses `nodes`: a whole number from 1.
fn parse_nodes(s: &str) -> Result<u64, ApiError> {
    s.trim()
        .parse::<u64>()
        .ok()
        .filter(|&n| n >= 1)
        .ok_or_else(|| {
            ApiError::bad(format!(
                "nodes: expected a whole number from 1, found '{s}'"
            ))
        })
}

type Outcome = Result<Result<Done, ApiError>, QueueError>;

/// Admits a job and starts it; it is cancelled when the returned guard drops.
fn start(
    kind: Kind,
    app: &Arc<App>,
    p: &Params,
) -> Result<(Arc<Job>, CancelOnDrop, JoinHandle<Outcome>), ApiError> {
    let req = JobRequest::parse(kind, app, p)?;
    let ticket = app.queue().admit()?;
    let job = Job::new();
    let guard = CancelOnDrop(Arc::clone(&job));
    let (app2, job2) = (Arc::clone(app), Arc::clone(&job));
    let rules = req.posed.rules();
    let work = move |tt: &AtomicTable| req.run(&app2, &job2, tt);
    let handle = tokio::spawn(ticket.run(Arc::clone(&job), rules, work));
    Ok((job, guard, handle))
}

fn outcome(r: Result<Outcome, tokio::task::JoinError>) -> Result<Done, ApiError> {
    r.map_err(|e| ApiError::internal(e.to_string()))??
}

async fn plain(kind: Kind, app: Arc<App>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    let (_job, _guard, handle) = start(kind, &app, &p)?;
    outcome(handle.await).map(|d| Json(d.report))
}

/// `GET /api/solve`: the `solve --json` report.
pub async fn solve(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    plain(Kind::Solve, app, q).await
}

/// `GET /api/analyse`: the `analyse --json` report.
pub async fn analyse(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    plain(Kind::Analyse, app, q).await
}

/// What a streamed job carries between its lines.
struct Streaming {
    app: Arc<App>,
    job: Arc<Job>,
    _guard: CancelOnDrop,
    handle: JoinHandle<Outcome>,
    first: bool,
}

impl Streaming {
    fn progress(&self) -> Value {
        let running = self.job.running_ms();
        let q = self.app.queue();
        json!({
            "event": "progress",
            "state": if running.is_some() { "running" } else { "queued" },
            "waiting": q.admitted().saturating_sub(q.workers()),
            "nodes": self.job.nodes(),
            "time_ms": running.unwrap_or(0),
            "cap_ms": self.app.config().time_cap.as_millis() as u64,
        })
    }
}

fn line(v: &Value) -> Result<String, Infallible> {
    Ok(format!("{v}\n"))
}

async fn next_line(
    s: Option<Streaming>,
) -> Option<(Result<String, Infallible>, Option<Streaming>)> {
    let mut s = s?;
    if std::mem::take(&mut s.first) {
        return Some((line(&s.progress()), Some(s)));
    }
    tokio::select! {
        r = &mut s.handle => {
            let v = match outcome(r) {
                Ok(d) => json!({"event": "result", "report": d.report, "loop_sensitive": d.loop_sensitive}),
                Err(e) => json!({"event": "error", "status": e.status.as_u16(), "error": e.message}),
            };
            Some((line(&v), None))
        }
        _ = tokio::time::sleep(PROGRESS) => Some((line(&s.progress()), Some(s))),
    }
}

/// The job as NDJSON lines: `{"event":"progress",…}` every 200 ms, then
/// `{"event":"result","report":…}` (or `"error"`). Closing the connection
/// cancels the job.
async fn streamed(kind: Kind, app: Arc<App>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let (job, guard, handle) = start(kind, &app, &p)?;
    let s = Streaming {
        app,
        job,
        _guard: guard,
        handle,
        first: true,
    };
    let body = Body::from_stream(futures_util::stream::unfold(Some(s), next_line));
    Ok((
        [
            (header::CONTENT_TYPE, "application/x-ndjson"),
            (header::CACHE_CONTROL, "no-store"),
        ],
        body,
    )
        .into_response())
}

/// `GET /api/solve/stream`: the solve with progress.
pub async fn solve_stream(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Response, ApiError> {
    streamed(Kind::Solve, app, q).await
}

/// `GET /api/analyse/stream`: the analysis with progress.
pub async fn analyse_stream(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Response, ApiError> {
    streamed(Kind::Analyse, app, q).await
}
