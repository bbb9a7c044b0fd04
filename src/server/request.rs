//! What every route shares, below both [`super::api`] and `jobs`: the
//! error answer ([`ApiError`], JSON `{"error": …}`), the query parameters
//! ([`Params`]) and their parsing into a rule set (which names the game)
//! and a position read under it ([`Posed`]).

use axum::extract::rejection::QueryRejection;
use axum::extract::Query;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::{json, Value};

use super::app::App;
use super::queue::{Busy, QueueError};
use crate::game::GameId;
use crate::notation::Stores;
use crate::oracle::Posed;
use crate::rules::RuleSet;

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

    pub(super) fn not_found(message: impl Into<String>) -> Self {
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

    /// The answer's body, `{"error": …}`.
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
    /// The rule set of the game, by name (default: the game's default reading).
    pub rules: Option<String>,
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

fn game(app: &App, p: &Params) -> Result<GameId, ApiError> {
    match p.game.as_deref() {
        None => Ok(app.game()),
        Some(name) => name
            .parse::<GameId>()
            .map_err(|e| ApiError::bad(format!("game: {e}"))),
    }
}

/// The rule set a request asks for: `rules` of its game, or the game's
/// default reading. An unknown name gets the command line's `--rules` error,
/// which lists the game's rule sets.
fn rules(app: &App, p: &Params) -> Result<RuleSet, ApiError> {
    let game = game(app, p)?;
    match p.rules.as_deref() {
        None => Ok(RuleSet::default_for(game)),
        Some(name) => RuleSet::parse(game, name).map_err(|e| ApiError::bad(format!("rules: {e}"))),
    }
}

/// The position a request asks about (`start` when absent), read under
/// its rule set ([`rules`]).
pub(super) fn posed(app: &App, p: &Params, stores: Stores) -> Result<Posed, ApiError> {
    let rules = rules(app, p)?;
    let text = p.position.as_deref().unwrap_or("start");
    Posed::parse(rules, text, stores).map_err(|e| ApiError::bad(format!("position: {e}")))
}

/// A report as a JSON value.
pub(super) fn to_json(r: &impl serde::Serialize) -> Result<Value, ApiError> {
    serde_json::to_value(r).map_err(|e| ApiError::internal(e.to_string()))
}
