//! The routes: the page and its assets, and the JSON API.
//!
//! | route | answers |
//! | --- | --- |
//! | `GET /api/info` | the server's game and rule set, loop rule, each game's rule sets with their tables, and limits |
//! | `GET /api/moves?game&rules&position` | the `moves --json` report |
//! | `GET /api/replay?game&rules&position&moves` | the `replay --json` report (every end rule of the rule set, literally) |
//! | `GET /api/probe?game&rules&position` | the `tables probe --json` report |
//! | `GET /api/solve?game&rules&position[&time][&nodes]` | the `solve --json` report, within the time cap |
//! | `GET /api/analyse?game&rules&position[&time][&nodes]` | the `analyse --json` report: estimates kept apart from proven bounds |
//! | `GET /api/solve/stream?…`, `/api/analyse/stream?…` | the same as NDJSON: progress lines, then the report |
//!
//! `rules` names a rule set of the game (`adji rules`); without it, the
//! game's default reading.
//!
//! Only requests that name one of this server's names, unambiguously, are
//! answered, and API requests from other sites are refused (`guard`: 400,
//! 421, 403).
//!
//! Errors are JSON `{"error": TEXT}`: 400 for bad input (with the command
//! line's text), 404 for what the tables do not cover, 503 when the solve
//! queue is full, 500 if anything panicked (the server itself goes on).
//! Solves and analyses are jobs of the queue (`jobs`); the error
//! type and the query parameters are `request`'s.

use std::sync::Arc;

use axum::extract::State as AxState;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};

use super::app::App;
use super::guard::{self, Hosts};
use super::request::{params, posed, to_json, Q};
use super::{assets, jobs};
use crate::game::GameId;
use crate::notation::Stores;
use crate::oracle::OracleError;
use crate::rules::RuleSet;

pub use super::request::{ApiError, Params};

/// Longest move list `replay` takes.
pub const MAX_MOVES: usize = 10_000;

/// The router of `app`, answering only for `hosts`.
pub fn router(app: Arc<App>, hosts: Arc<Hosts>) -> Router {
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
        .layer(axum::middleware::from_fn_with_state(hosts, guard::check))
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
        "game": app.game().name(),
        "rules": c.rules.name(),
        "rule": c.rule.name(),
        "tables": per_game(|g| json!(app.covered(RuleSet::default_for(g)))),
        "rule_sets": per_game(|g| json!(rule_sets(&app, g))),
        "workers": q.workers(),
        "waiting": q.waiting(),
        "admitted": q.admitted(),
        "hash_bytes": q.hash_bytes(),
        "time_cap_ms": c.time_cap.as_millis() as u64,
        "max_moves": MAX_MOVES,
    }))
}

/// An object with `f(game)` under each game's name.
fn per_game(f: impl Fn(GameId) -> Value) -> Value {
    Value::Object(
        GameId::ALL
            .into_iter()
            .map(|g| (g.name().to_string(), f(g)))
            .collect(),
    )
}

/// The rule sets of `game`, its default first: each with its source, its
/// differences from the default, whose tables it reads, its early end (a
/// store above this many seeds ends the game; `null` when none) and the
/// levels its tables cover here.
fn rule_sets(app: &App, game: GameId) -> Value {
    let sets = RuleSet::of(game).map(|r| {
        json!({
            "name": r.name(),
            "default": r.is_default(),
            "source": r.source(),
            "differences": r.differences(),
            "tables": r.tables().name(),
            "early_end": r.early_end(),
            "levels": app.covered(r),
        })
    });
    Value::Array(sets.collect())
}

async fn moves(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    to_json(&posed(&app, &p, Stores::Required)?.moves_report()).map(Json)
}

async fn replay(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    let names = p.moves.as_deref().unwrap_or("");
    let count = names.split_whitespace().count();
    if count > MAX_MOVES {
        return Err(ApiError::bad(format!(
            "moves: at most {MAX_MOVES} moves, found {count}"
        )));
    }
    let start = posed(&app, &p, Stores::Required)?;
    let report = start
        .replay(names)
        .map_err(|fail| ApiError::bad(fail.error))?;
    to_json(&report).map(Json)
}

async fn probe(AxState(app): AxState<Arc<App>>, q: Q) -> Result<Json<Value>, ApiError> {
    let p = params(q)?;
    match app.oracle().probe(&posed(&app, &p, Stores::Optional)?) {
        Ok(r) => to_json(&r).map(Json),
        Err(OracleError::NoTables { family, rule }) => {
            Err(ApiError::not_found(match &app.config().tables {
                None => "the server was started without --tables".to_string(),
                Some(dir) => format!("no {family} tables for --loop {rule} in {}", dir.display()),
            }))
        }
        Err(e @ OracleError::Probe(crate::report::ProbeError::Damaged(_))) => {
            Err(ApiError::internal(e.to_string()))
        }
        Err(e) => Err(ApiError::not_found(format!("position: {e}"))),
    }
}
