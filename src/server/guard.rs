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
//!
//! A request that names its host ambiguously gets 400 before the names are
//! compared: more than one `Host` header, a `Host` that is not
//! `host[:port]` (a port of digits up to 65535, no user information), or
//! an absolute-form target (`GET http://host/ HTTP/1.1`) whose authority
//! is malformed or differs from its `Host` header. The host checked is the
//! target's authority when the target has one, else the `Host` header:
//! both must name this server, so the two forms follow one policy.

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

/// At most 80 characters of `s`, for an error message.
fn shown(s: &str) -> String {
    s.chars().take(80).collect()
}

/// Whether `a` is a well-formed `host[:port]`: a non-empty host, no user
/// information, and a port (if any) of digits, at most 65535 (an empty
/// port, `host:`, is well formed, as RFC 3986 has it).
fn well_formed(a: &str) -> bool {
    let Ok(parsed) = a.parse::<axum::http::uri::Authority>() else {
        return false;
    };
    if a.contains('@') || parsed.host().is_empty() {
        return false;
    }
    // Without user information the text is the host, then `:` and the
    // port or nothing.
    let rest = a.get(parsed.host().len()..).unwrap_or(":");
    match rest.strip_prefix(':') {
        None => rest.is_empty(),
        Some(port) => {
            port.len() <= 5
                && port.bytes().all(|b| b.is_ascii_digit())
                && port.parse::<u32>().map_or(port.is_empty(), |p| p <= 65_535)
        }
    }
}

/// The host a request names (its target's authority, else its `Host`
/// header; `None` when it names none), or why it names one ambiguously (the
/// message of a 400; see the module's documentation).
fn host_of(req: &Request) -> Result<Option<String>, String> {
    let mut hosts = req.headers().get_all(header::HOST).iter();
    let header = hosts.next();
    if hosts.next().is_some() {
        return Err("more than one Host header: a request names one host".to_string());
    }
    let header = match header.map(|h| h.to_str()) {
        None => None,
        Some(Ok(h)) if well_formed(h) => Some(h.to_string()),
        Some(h) => {
            return Err(format!(
                "Host '{}' is not a host name or address with an optional port (digits, at \
                 most 65535)",
                shown(h.unwrap_or("(not text)"))
            ))
        }
    };
    let Some(target) = req.uri().authority().map(|a| a.as_str()) else {
        return Ok(header);
    };
    if !well_formed(target) {
        return Err(format!(
            "the request target's host '{}' is not a host name or address with an optional \
             port (digits, at most 65535)",
            shown(target)
        ));
    }
    match header {
        Some(h) if !h.eq_ignore_ascii_case(target) => Err(format!(
            "the request target names host '{}' but the Host header '{}'",
            shown(target),
            shown(&h)
        )),
        _ => Ok(Some(target.to_string())),
    }
}

fn refuse(status: StatusCode, message: String) -> Response {
    ApiError { status, message }.into_response()
}

/// Why a request is refused, if it is.
fn verdict(hosts: &Hosts, req: &Request) -> Option<Response> {
    let host = match host_of(req) {
        Ok(h) => h.unwrap_or_default(),
        Err(m) => return Some(refuse(StatusCode::BAD_REQUEST, m)),
    };
    if !hosts.allows_authority(&host) {
        return Some(refuse(
            StatusCode::MISDIRECTED_REQUEST,
            format!(
                "Host '{}' is not a name this server answers to (localhost, its loopback \
                 and bound addresses, and the names of --allow-host)",
                shown(&host)
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
