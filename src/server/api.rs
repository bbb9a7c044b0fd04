//! The routes: the page and its assets, and the JSON API.
//!
//! | route | answers |
//! | --- | --- |
//! | `GET /api/info` | the server's game, loop rule, tables and limits |
//! | `GET /api/moves?game&position` | the `moves --json` report |
//! | `GET /api/replay?game&position&moves` | the `replay --json` report (every end rule, literally) |
//! | `GET /api/probe?game&position` | the `tables probe --json` report |
//! | `GET /api/solve?game&position[&time]` | the `solve --json` report, within the time cap |
//! | `GET /api/solve/stream?…` | the same solve as NDJSON: progress lines, then the report |
//!
//! Errors are JSON `{"error": TEXT}`: 400 for bad input (with the command
//! line's text), 404 for what the tables do not cover, 503 when the solve
//! queue is full, 500 if anything panicked (the server itself goes on).

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::body::Body;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as AxState};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use super::queue::{Busy, CancelOnDrop, Job, QueueError};
use super::{assets, engine, reports, App};
use crate::game::{Game, GameId, State};
use crate::notation::{parse_state, Stores};
use crate::report::{MovesReport, ProbeReport, SolveReport};
use crate::tt::AtomicTable;
use crate::{AdjiBoto, Adjito};

/// Longest move list `replay` takes.
pub const MAX_MOVES: usize = 10_000;

/// How often a streamed solve reports progress.
const PROGRESS: Duration = Duration::from_millis(200);

/// Runs a generic function for a game chosen at run time.
macro_rules! with_game {
    ($game:expr, $f:ident ( $($arg:expr),* )) => {
        match $game {
            GameId::Adjito => $f::<Adjito>($($arg),*),
            GameId::AdjiBoto => $f::<AdjiBoto>($($arg),*),
        }
    };
}

/// An error answer: a status and the message (JSON `{"error": …}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What is wrong, in the command line's words.
    pub message: String,
}

impl ApiError {
    fn bad(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    fn not_found(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::NOT_FOUND,
            message: message.into(),
        }
    }

    fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }

    fn json(&self) -> Value {
        json!({ "error": self.message })
    }
}

impl From<Busy> for ApiError {
    fn from(b: Busy) -> Self {
        ApiError {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: b.to_string(),
        }
    }
}

impl From<QueueError> for ApiError {
    fn from(e: QueueError) -> Self {
        match e {
            QueueError::Cancelled => ApiError::internal("the solve was cancelled"),
            QueueError::Failed(m) => ApiError::internal(m),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (self.status, Json(self.json())).into_response()
    }
}

/// The query parameters of the API (each route reads the ones it needs).
#[derive(Debug, Default, serde::Deserialize)]
pub struct Params {
    /// `adjito` or `adjiboto` (default: the server's game).
    pub game: Option<String>,
    /// A position in notation, or `start` (the default).
    pub position: Option<String>,
    /// `replay`: space-separated moves.
    pub moves: Option<String>,
    /// `solve`: seconds (at most the server's cap, which is the default).
    pub time: Option<String>,
}

type Q = Result<Query<Params>, QueryRejection>;

fn params(q: Q) -> Result<Params, ApiError> {
    q.map(|Query(p)| p)
        .map_err(|e| ApiError::bad(e.body_text()))
}

fn game(app: &App, p: &Params) -> Result<GameId, ApiError> {
    match p.game.as_deref() {
        None => Ok(app.config().game),
        Some("adjito") => Ok(GameId::Adjito),
        Some("adjiboto") => Ok(GameId::AdjiBoto),
        Some(other) => Err(ApiError::bad(format!(
            "--game: expected adjito or adjiboto, found '{}'",
            other.chars().take(40).collect::<String>()
        ))),
    }
}

fn state<G: Game>(p: &Params, stores: Stores) -> Result<State, ApiError> {
    let text = p.position.as_deref().unwrap_or("start");
    parse_state::<G>(text, stores).map_err(|e| ApiError::bad(format!("--position: {e}")))
}

/// The router of `app`.
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/board.js", get(assets::script))
        .route("/board.css", get(assets::style))
        .route("/api/info", get(info))
        .route("/api/moves", get(moves))
        .route("/api/replay", get(replay))
        .route("/api/probe", get(probe))
        .route("/api/solve", get(solve))
        .route("/api/solve/stream", get(solve_stream))
        .fallback(not_found)
        .layer(tower_http::catch_panic::CatchPanicLayer::custom(panicked))
        .with_state(app)
}

async fn not_found(uri: axum::http::Uri) -> ApiError {
    ApiError::not_found(format!("no such page: {}", uri.path()))
}

fn panicked(_: Box<dyn std::any::Any + Send + 'static>) -> Response {
    ApiError::internal("internal error: the request failed (the server goes on)").into_response()
}

async fn info(AxState(app): AxState<Arc<App>>) -> Json<Value> {
    let c = app.config();
    let q = app.queue();
    Json(json!({
        "version": env!("CARGO_PKG_VERSION"),
        "game": c.game.name(),
        "rule": c.rule.name(),
        "tables": {
            "adjito": app.covered(GameId::Adjito),
            "adjiboto": app.covered(GameId::AdjiBoto),
        },
        "workers": q.workers(),
        "waiting": q.waiting(),
        "admitted": q.admitted(),
        "hash_bytes": q.hash_bytes(),
        "time_cap_ms": c.time_cap.as_millis() as u64,
        "max_moves": MAX_MOVES,
    }))
}

/// A report as a JSON value.
fn to_json(r: &impl serde::Serialize) -> Result<Value, ApiError> {
    serde_json::to_value(r).map_err(|e| ApiError::internal(e.to_string()))
}

async fn moves(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    fn run<G: Game>(p: &Params) -> Result<Value, ApiError> {
        to_json(&MovesReport::new::<G>(&state::<G>(p, Stores::Required)?))
    }
    with_game!(game(&app, &p)?, run(&p)).map(Json)
}

async fn replay(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    let names = p.moves.as_deref().unwrap_or("");
    let count = names.split_whitespace().count();
    if count > MAX_MOVES {
        return Err(ApiError::bad(format!(
            "--moves: at most {MAX_MOVES} moves, found {count}"
        )));
    }
    fn run<G: Game>(p: &Params, names: &str) -> Result<Value, ApiError> {
        to_json(
            &reports::replay::<G>(state::<G>(p, Stores::Required)?, names)
                .map_err(ApiError::bad)?,
        )
    }
    with_game!(game(&app, &p)?, run(&p, names)).map(Json)
}

async fn probe(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    fn run<G: Game>(app: &App, p: &Params) -> Result<Value, ApiError> {
        let st = state::<G>(p, Stores::Optional)?;
        let Some(set) = app.tables(G::ID) else {
            return Err(ApiError::not_found(match &app.config().tables {
                None => "the server was started without --tables".to_string(),
                Some(dir) => format!(
                    "no {} tables for --loop {} in {}",
                    G::ID,
                    app.config().rule.name(),
                    dir.display()
                ),
            }));
        };
        let r = ProbeReport::new::<G>(set, &st.pos)
            .map_err(|e| ApiError::not_found(format!("--position: {e}")))?;
        to_json(&r)
    }
    with_game!(game(&app, &p)?, run(&app, &p)).map(Json)
}

/// A solve asked for: the game, the position and the time it may take.
struct SolveRequest {
    game: GameId,
    state: State,
    time: Duration,
}

impl SolveRequest {
    fn parse(app: &App, p: &Params) -> Result<Self, ApiError> {
        let game = game(app, p)?;
        fn st<G: Game>(p: &Params) -> Result<State, ApiError> {
            state::<G>(p, Stores::Required)
        }
        let state = with_game!(game, st(p))?;
        let cap = app.config().time_cap;
        let time = match p.time.as_deref() {
            None => cap,
            Some(t) => parse_time(t)?.min(cap),
        };
        Ok(SolveRequest { game, state, time })
    }

    /// Runs on a worker's blocking thread with its hash table.
    fn run(&self, app: &App, job: &Job, tt: &AtomicTable) -> Result<Solved, ApiError> {
        fn go<G: Game>(
            r: &SolveRequest,
            app: &App,
            job: &Job,
            tt: &AtomicTable,
        ) -> Result<Solved, ApiError> {
            let rule = app.config().rule;
            let a = engine::analyse::<G>(job, &r.state.pos, app.tables(G::ID), tt, rule, r.time)
                .map_err(|e| ApiError::internal(e.to_string()))?;
            Ok(Solved {
                report: to_json(&SolveReport::new::<G>(&r.state, &a))?,
                loop_sensitive: engine::move_loop_flags::<G>(&r.state.pos, &a),
            })
        }
        with_game!(self.game, go(self, app, job, tt))
    }
}

/// Parses `time` seconds, as `solve --time` does.
fn parse_time(s: &str) -> Result<Duration, ApiError> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| ApiError::bad(format!("--time: expected seconds, found '{s}'")))?;
    if !(v > 0.0 && v.is_finite()) {
        return Err(ApiError::bad(format!(
            "--time: expected a positive number of seconds, found '{s}'"
        )));
    }
    Ok(Duration::try_from_secs_f64(v).unwrap_or(Duration::MAX))
}

/// A finished solve: the `solve` report, and each move's loop-sensitivity
/// (which the report does not carry; the page marks it on the moves).
struct Solved {
    report: Value,
    loop_sensitive: Value,
}

type SolveOutcome = Result<Result<Solved, ApiError>, QueueError>;

/// Admits a solve and starts it; the job is cancelled when the returned
/// guard drops.
fn start_solve(
    app: &Arc<App>,
    p: &Params,
) -> Result<(Arc<Job>, CancelOnDrop, JoinHandle<SolveOutcome>), ApiError> {
    let req = SolveRequest::parse(app, p)?;
    let ticket = app.queue().admit()?;
    let job = Job::new();
    let guard = CancelOnDrop(Arc::clone(&job));
    let (app2, job2) = (Arc::clone(app), Arc::clone(&job));
    let work = move |tt: &AtomicTable| req.run(&app2, &job2, tt);
    let handle = tokio::spawn(ticket.run(Arc::clone(&job), work));
    Ok((job, guard, handle))
}

fn outcome(r: Result<SolveOutcome, tokio::task::JoinError>) -> Result<Solved, ApiError> {
    r.map_err(|e| ApiError::internal(e.to_string()))??
}

async fn solve(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    let (_job, _guard, handle) = start_solve(&app, &p)?;
    outcome(handle.await).map(|s| Json(s.report))
}

/// What a streamed solve carries between its lines.
struct Streaming {
    app: Arc<App>,
    job: Arc<Job>,
    _guard: CancelOnDrop,
    handle: JoinHandle<SolveOutcome>,
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
                Ok(s) => json!({"event": "result", "report": s.report, "loop_sensitive": s.loop_sensitive}),
                Err(e) => json!({"event": "error", "status": e.status.as_u16(), "error": e.message}),
            };
            Some((line(&v), None))
        }
        _ = tokio::time::sleep(PROGRESS) => Some((line(&s.progress()), Some(s))),
    }
}

/// The solve as NDJSON lines: `{"event":"progress",…}` every 200 ms, then
/// `{"event":"result","report":…}` (or `"error"`). Closing the connection
/// cancels the solve.
async fn solve_stream(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Response, ApiError> {
    let p = params(q)?;
    let (job, guard, handle) = start_solve(&app, &p)?;
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
