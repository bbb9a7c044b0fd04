//! The server answers only for the names it is bound to (no DNS
//! rebinding) and refuses cross-site requests to its API: a `Host` that is
//! not a loopback name, the bound address or an `--allow-host` name gets
//! 421; an API request with a foreign `Origin` or `Sec-Fetch-Site:
//! cross-site` gets 403. Same-origin pages, curl and scripts (no `Origin`,
//! no `Sec-Fetch-Site`) are served as before.
#![cfg(feature = "server")]

mod server_util;

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

use server_util::*;

/// Sends `GET path` with `headers` on a fresh connection: the status and
/// the body.
fn raw(addr: SocketAddr, path: &str, headers: &[(&str, &str)]) -> (u16, String) {
    let mut c = TcpStream::connect(addr).expect("connects");
    c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req = format!("GET {path} HTTP/1.1\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    req.push_str("\r\n");
    c.write_all(req.as_bytes()).unwrap();
    let mut text = String::new();
    let _ = c.read_to_string(&mut text);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let body = text.split("\r\n\r\n").nth(1).unwrap_or("").to_string();
    (status, body)
}

const SOLVE: &str = "/api/solve?position=0,1,0,2,0,1/1,0,2,0,1,0+B+20-20";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_foreign_host_is_refused_with_421() {
    let s = start(small(1, 4, 10)).await;
    for host in [
        "evil.example",
        "evil.example:8080",
        "127.0.0.1.evil.example",
    ] {
        for path in ["/", "/board.js", "/api/info", SOLVE] {
            let (st, body) = raw(s.addr, path, &[("Host", host)]);
            assert_eq!(st, 421, "Host {host} {path}: {body}");
            assert!(body.contains("not a name this server answers"), "{body}");
        }
    }
    // The curl of the issue: a rebinding page's request.
    let (st, body) = raw(
        s.addr,
        "/api/solve?position=start",
        &[
            ("Host", "evil.example"),
            ("Origin", "http://evil.example"),
            ("Sec-Fetch-Site", "cross-site"),
        ],
    );
    assert_eq!(st, 421, "{body}");
    // No Host at all (HTTP/1.0): refused as well.
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.write_all(b"GET /api/info HTTP/1.0\r\n\r\n").unwrap();
    let mut text = String::new();
    let _ = c.read_to_string(&mut text);
    assert!(
        text.starts_with("HTTP/1.0 421") || text.starts_with("HTTP/1.1 421"),
        "{text}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn loopback_names_and_the_bound_address_are_served() {
    let s = start(small(1, 4, 10)).await;
    let port = s.addr.port();
    let hosts = [
        format!("127.0.0.1:{port}"),
        "127.0.0.1".to_string(),
        format!("localhost:{port}"),
        "localhost".to_string(),
        "LocalHost".to_string(),
        format!("[::1]:{port}"),
        "[::1]".to_string(),
    ];
    for host in &hosts {
        for path in ["/", "/api/info", SOLVE] {
            let (st, body) = raw(s.addr, path, &[("Host", host)]);
            assert_eq!(st, 200, "Host {host} {path}: {body}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cross_site_api_requests_are_refused_with_403() {
    let s = start(small(1, 4, 10)).await;
    let host = format!("127.0.0.1:{}", s.addr.port());
    let refused: [&[(&str, &str)]; 5] = [
        &[("Origin", "http://evil.example")],
        &[
            ("Origin", "http://evil.example"),
            ("Sec-Fetch-Site", "cross-site"),
        ],
        &[("Origin", "null")],
        &[("Sec-Fetch-Site", "cross-site")],
        &[("Origin", "http://127.0.0.1.evil.example")],
    ];
    for extra in refused {
        let mut h = vec![("Host", host.as_str())];
        h.extend_from_slice(extra);
        for path in ["/api/info", SOLVE, "/api/analyse/stream?nodes=100"] {
            let (st, body) = raw(s.addr, path, &h);
            assert_eq!(st, 403, "{extra:?} {path}: {body}");
            assert!(body.contains("cross-site"), "{body}");
        }
    }
    let origin = format!("http://{host}");
    let allowed: [&[(&str, &str)]; 6] = [
        &[],
        &[("Origin", &origin), ("Sec-Fetch-Site", "same-origin")],
        &[
            ("Origin", "http://localhost:1234"),
            ("Sec-Fetch-Site", "same-site"),
        ],
        &[("Sec-Fetch-Site", "none")],
        &[("Sec-Fetch-Site", "same-origin")],
        &[("Origin", "http://[::1]")],
    ];
    for extra in allowed {
        let mut h = vec![("Host", host.as_str())];
        h.extend_from_slice(extra);
        let (st, body) = raw(s.addr, SOLVE, &h);
        assert_eq!(st, 200, "{extra:?}: {body}");
    }
    // A link from another site to the page itself still opens it.
    let (st, _) = raw(
        s.addr,
        "/",
        &[("Host", host.as_str()), ("Sec-Fetch-Site", "cross-site")],
    );
    assert_eq!(st, 200);
}

#[test]
fn allow_host_adds_a_name() {
    let (child, addr) = serve_bin(&[
        "--no-tables",
        "--workers",
        "1",
        "--hash",
        "1",
        "--allow-host",
        "board.example",
        "--allow-host",
        "Other.Example",
    ]);
    let cases = [
        ("board.example", None, 200),
        ("board.example:80", Some("http://board.example"), 200),
        ("other.example", Some("https://OTHER.example:8443"), 200),
        ("localhost", None, 200),
        ("evil.example", None, 421),
        ("board.example", Some("http://evil.example"), 403),
    ];
    let mut seen = Vec::new();
    for (host, origin, want) in cases {
        let mut h = vec![("Host", host)];
        h.extend(origin.map(|o| ("Origin", o)));
        let (st, body) = raw(addr, "/api/info", &h);
        seen.push((host, origin, st, want, body));
    }
    drop(child);
    for (host, origin, st, want, body) in seen {
        assert_eq!(st, want, "Host {host} Origin {origin:?}: {body}");
    }
    let (ok, out, _) = cli(&["serve", "--help"]);
    assert!(ok && out.contains("--allow-host"), "{out}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_ambiguous_or_malformed_host_is_refused_with_400() {
    let s = start(small(1, 4, 10)).await;
    let port = s.addr.port();
    let good = format!("127.0.0.1:{port}");
    let bad_hosts: [&[(&str, &str)]; 9] = [
        // Two Host headers, allowed or not, equal or not.
        &[("Host", "localhost"), ("Host", "localhost")],
        &[("Host", "localhost"), ("Host", "evil.example")],
        &[("Host", "evil.example"), ("Host", "localhost")],
        // A port that is not a port.
        &[("Host", "localhost:abc")],
        &[("Host", "127.0.0.1:80x")],
        &[("Host", "localhost:65536")],
        &[("Host", "localhost:0000080")],
        // User information.
        &[("Host", "evil@localhost")],
        &[("Host", "")],
    ];
    for h in bad_hosts {
        for path in ["/", "/api/info", SOLVE] {
            let (st, body) = raw(s.addr, path, h);
            assert_eq!(st, 400, "{h:?} {path}: {body}");
            assert!(body.contains("Host"), "{h:?}: {body}");
        }
    }
    // Absolute-form targets: the target's host follows the same policy.
    /// A request target, its headers and the status it gets.
    type Case<'a> = (String, Vec<(&'a str, &'a str)>, u16);
    let absolute: [Case; 7] = [
        ("http://evil.example/api/info".into(), vec![], 421),
        ("http://evil.example/".into(), vec![], 421),
        (
            "http://evil.example/api/info".into(),
            vec![("Host", "evil.example")],
            421,
        ),
        // A target that disagrees with its Host header.
        (
            format!("http://{good}/api/info"),
            vec![("Host", "evil.example")],
            400,
        ),
        (
            "http://evil.example/api/info".into(),
            vec![("Host", "localhost")],
            400,
        ),
        ("http://localhost:abc/api/info".into(), vec![], 400),
        (
            format!("http://{good}/api/info"),
            vec![("Host", good.as_str())],
            200,
        ),
    ];
    for (target, h, want) in &absolute {
        let (st, body) = raw(s.addr, target, h);
        assert_eq!(st, *want, "GET {target} {h:?}: {body}");
    }
    // Well-formed hosts are still served.
    for h in ["localhost", "localhost:", "LOCALHOST:8080", "[::1]:65535"] {
        let (st, body) = raw(s.addr, "/api/info", &[("Host", h)]);
        assert_eq!(st, 200, "Host {h}: {body}");
    }
    let (st, body) = raw(s.addr, &format!("http://{good}/api/info"), &[]);
    assert_eq!(st, 200, "{body}");
}
