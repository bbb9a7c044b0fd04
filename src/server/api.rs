//! The routes: the page and its assets, and the JSON API.
//!
//! | route | answers |
//! | --- | --- |
//! | `GET /api/info` | the server's game, loop rule, tables and limits |
//! | `GET /api/moves?game&position` | the `moves --json` report |
//! | `GET /api/replay?game&position&moves` | the `replay --json` report (every end rule, literally) |
//! | `GET /api/probe?game&position` | the `tables probe --json` report |
//! | `GET /api/solve?game&position[&time][&nodes]` | the `solve --json` report, within the time cap |
//! | `GET /api/analyse?game&position[&time][&nodes]` | the `analyse --json` report: estimates kept apart from proven bounds |
//! | `GET /api/solve/stream?…`, `/api/analyse/stream?…` | the same as NDJSON: progress lines, then the report |
//!
//! Errors are JSON `{"error": TEXT}`: 400 for bad input (with the command
//! line's text), 404 for what the tables do not cover, 503 when the solve
//! queue is full, 500 if anything panicked (the server itself goes on).
//! Solves and analyses are jobs of the queue ([`super::jobs`]).

use std::sync::Arc;

use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State as AxState};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::jobs;
use super::queue::{Busy, QueueError};
use super::{assets, App};
use crate::game::{Game, GameId, State};
use crate::notation::{parse_state, Stores};
use crate::report::{MovesReport, ProbeReport, ReplayReport};

/// Longest move list `replay` takes.
pub const MAX_MOVES: usize = 10_000;

/// An error answer: a status and the message (JSON `{"error": …}`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// What is wrong, in the command line's words.
    pub message: String,
}

impl ApiError {
    pub(super) fn bad(message: impl Into<String>) -> Self {
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

    pub(super) fn internal(message: impl Into<String>) -> Self {
        ApiError {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }

    pub(super) fn json(&self) -> Value {
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
    /// `solve`, `analyse`: seconds (at most the server's cap, which is the default).
    pub time: Option<String>,
    /// `solve`, `analyse`: stop after about this many nodes.
    pub nodes: Option<String>,
}

/// The query of a request, or why it cannot be read.
pub(super) type Q = Result<Query<Params>, QueryRejection>;

pub(super) fn params(q: Q) -> Result<Params, ApiError> {
    q.map(|Query(p)| p)
        .map_err(|e| ApiError::bad(e.body_text()))
}

pub(super) fn game(app: &App, p: &Params) -> Result<GameId, ApiError> {
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

pub(super) fn state<G: Game>(p: &Params, stores: Stores) -> Result<State, ApiError> {
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
        .route("/api/solve", get(jobs::solve))
        .route("/api/solve/stream", get(jobs::solve_stream))
        .route("/api/analyse", get(jobs::analyse))
        .route("/api/analyse/stream", get(jobs::analyse_stream))
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
pub(super) fn to_json(r: &impl serde::Serialize) -> Result<Value, ApiError> {
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
            &ReplayReport::play::<G>(state::<G>(p, Stores::Required)?, names)
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
