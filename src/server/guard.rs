//! Who may talk to the server. A request is answered only when its `Host`
//! is a name the server is bound to (no DNS rebinding: a hostile page whose
//! name resolves to this machine gets 421), and an API request only when
//! it does not come from another site (a foreign `Origin`, or
//! `Sec-Fetch-Site: cross-site`, gets 403). Requests without `Origin` and
//! `Sec-Fetch-Site` (curl, scripts) are served.
//!
//! Allowed names: `localhost` and the loopback addresses, the bound
//! address (any IP address when bound to every address), and the names of
//! `--allow-host`; each with any port, compared without case.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{header, StatusCode, Uri};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};

use super::request::ApiError;

/// The names the server answers to.
#[derive(Clone, Debug)]
pub struct Hosts {
    bound: IpAddr,
    names: Vec<String>,
}

impl Hosts {
    /// The names of a server bound to `bound`, with `extra` names.
    pub fn new(bound: SocketAddr, extra: &[String]) -> Self {
        let mut names = vec!["localhost".to_string()];
        names.extend(extra.iter().map(|n| normal(n)));
        Hosts {
            bound: bound.ip(),
            names,
        }
    }

    /// Whether `host` (a name or an address, without its port) is allowed.
    fn allows(&self, host: &str) -> bool {
        let host = normal(host);
        match host.trim_matches(['[', ']']).parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback() || ip == self.bound || self.bound.is_unspecified(),
            Err(_) => self.names.contains(&host),
        }
    }

    /// Whether an authority (`host[:port]`) names this server.
    fn allows_authority(&self, authority: &str) -> bool {
        authority
            .parse::<axum::http::uri::Authority>()
            .is_ok_and(|a| self.allows(a.host()))
    }

    /// Whether an `Origin` value is one of this server's.
    fn allows_origin(&self, origin: &str) -> bool {
        origin
            .parse::<Uri>()
            .ok()
            .and_then(|u| u.authority().map(|a| self.allows(a.host())))
            .unwrap_or(false)
    }
}

/// A name without a trailing dot, in lower case.
fn normal(name: &str) -> String {
    name.trim().trim_end_matches('.').to_ascii_lowercase()
}

/// The request's host: the URI's authority, or the `Host` header.
fn host_of(req: &Request) -> Option<String> {
    if let Some(a) = req.uri().authority() {
        return Some(a.to_string());
    }
    let h = req.headers().get(header::HOST)?.to_str().ok()?;
    Some(h.to_string())
}

fn refuse(status: StatusCode, message: String) -> Response {
    ApiError { status, message }.into_response()
}

/// Why a request is refused, if it is.
fn verdict(hosts: &Hosts, req: &Request) -> Option<Response> {
    let host = host_of(req).unwrap_or_default();
    if !hosts.allows_authority(&host) {
        let shown: String = host.chars().take(80).collect();
        return Some(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "Host '{shown}' is not a name this server answers to (localhost, its loopback \
                 and bound addresses, and the names of --allow-host)"
            ),
        ));
    }
    if !req.uri().path().starts_with("/api/") {
        return None;
    }
    let headers = req.headers();
    let cross_site = headers
        .get("sec-fetch-site")
        .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"cross-site"));
    let foreign = headers
        .get(header::ORIGIN)
        .is_some_and(|o| !o.to_str().is_ok_and(|o| hosts.allows_origin(o)));
    (cross_site || foreign).then(|| {
        refuse(
            StatusCode::FORBIDDEN,
            "cross-site requests to the API are refused: open the board from this server"
                .to_string(),
        )
    })
}

/// The middleware: refuses what [`verdict`] refuses, passes the rest on.
pub async fn check(State(hosts): State<Arc<Hosts>>, req: Request, next: Next) -> Response {
    match verdict(&hosts, &req) {
        Some(r) => r,
        None => next.run(req).await,
    }
}
