//! Helpers of the web server's tests: an in-process server on a free
//! loopback port, a small HTTP client, and the command line for comparison.
#![allow(dead_code)]

use std::sync::Arc;
use std::time::Duration;

use adji::server::{App, Config};
use bytes::Bytes;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

/// A server running in the test's runtime.
pub struct TestServer {
    /// `http://127.0.0.1:PORT`, without a trailing slash.
    pub base: String,
    /// The address.
    pub addr: std::net::SocketAddr,
    /// The app (for its queue counters).
    pub app: Arc<App>,
}

/// Starts a server with `config` on a free loopback port.
pub async fn start(config: Config) -> TestServer {
    let app = Arc::new(App::new(config).expect("server starts"));
    let listener = adji::server::bind("127.0.0.1:0".parse().unwrap())
        .await
        .expect("bind");
    let addr = listener.local_addr().unwrap();
    let a = Arc::clone(&app);
    tokio::spawn(async move {
        let _ = adji::server::serve(listener, a, std::future::pending()).await;
    });
    TestServer {
        base: format!("http://{addr}"),
        addr,
        app,
    }
}

impl TestServer {
    /// GETs `/api/{route}` with the query `params` (encoded here): the
    /// status and the JSON body.
    pub async fn api(&self, route: &str, params: &[(&str, &str)]) -> (u16, serde_json::Value) {
        let query: Vec<String> = params
            .iter()
            .map(|(k, v)| format!("{k}={}", enc(v)))
            .collect();
        get_json(&format!("{}/api/{route}?{}", self.base, query.join("&"))).await
    }
}

/// A small configuration: one worker, a 4 MiB hash.
pub fn small(workers: usize, waiting: usize, cap_secs: u64) -> Config {
    Config {
        workers,
        waiting,
        hash_mib: 4,
        time_cap: Duration::from_secs(cap_secs),
        ..Config::default()
    }
}

/// Percent-encodes a query value.
pub fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~,/:".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// An HTTP/1 client.
pub fn client() -> Client<HttpConnector, Empty<Bytes>> {
    Client::builder(TokioExecutor::new()).build_http()
}

/// GETs `url`: the status and the body.
pub async fn get(url: &str) -> (u16, String) {
    let r = client()
        .get(url.parse().expect("a valid URL"))
        .await
        .expect("the server answers");
    let status = r.status().as_u16();
    let body = r.into_body().collect().await.expect("a body").to_bytes();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// GETs `url` and parses the body as JSON.
pub async fn get_json(url: &str) -> (u16, serde_json::Value) {
    let (status, body) = get(url).await;
    let v = serde_json::from_str(&body).unwrap_or_else(|e| panic!("{url}: not JSON ({e}): {body}"));
    (status, v)
}

/// Runs the command line; returns (success, stdout, stderr).
pub fn cli(args: &[&str]) -> (bool, String, String) {
    let out = assert_cmd::Command::cargo_bin("adji")
        .expect("the adji binary")
        .args(args)
        .output()
        .expect("adji runs");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The command line's JSON answer.
pub fn cli_json(args: &[&str]) -> serde_json::Value {
    let (ok, out, err) = cli(args);
    assert!(ok, "adji {args:?} failed: {err}");
    serde_json::from_str(out.trim())
        .unwrap_or_else(|e| panic!("adji {args:?}: not JSON ({e}): {out}"))
}

/// The command line's error text (stderr without `error: ` and the newline).
pub fn cli_error(args: &[&str]) -> String {
    let (ok, _, err) = cli(args);
    assert!(!ok, "adji {args:?} should fail");
    let line = err
        .lines()
        .rfind(|l| l.starts_with("error: "))
        .unwrap_or_else(|| panic!("no error line in: {err}"));
    line.trim_start_matches("error: ").to_string()
}

/// The error the web API gives for what `adji ARGS` refuses: the command
/// line's text, naming the query parameter (`position: …`) where the
/// command line names its option (`--position: …`).
pub fn api_error(args: &[&str]) -> String {
    let text = cli_error(args);
    text.strip_prefix("--").map_or(text.clone(), str::to_string)
}

/// Polls `f` every 20 ms until it is true or `limit` has passed.
pub async fn eventually(limit: Duration, mut f: impl FnMut() -> bool) -> bool {
    let t = std::time::Instant::now();
    while t.elapsed() < limit {
        if f() {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    f()
}

/// `adji serve` as a child process, killed on drop.
pub struct Serve(pub std::process::Child);

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the release binary's `adji serve --port 0 ARGS` (standard error
/// dropped) and reads the URL it prints: the child and its address.
pub fn serve_bin(args: &[&str]) -> (Serve, std::net::SocketAddr) {
    use std::io::BufRead;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("adji"))
        .args(["serve", "--port", "0"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("adji serve starts");
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let served = Serve(child);
    let addr = line
        .trim()
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .parse()
        .unwrap_or_else(|_| panic!("printed {line:?}"));
    (served, addr)
}
