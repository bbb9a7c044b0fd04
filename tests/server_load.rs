//! A bounded load test of `adji serve` on loopback: the release binary on a
//! free port of 127.0.0.1, a fixed number of requests from a fixed number
//! of concurrent clients, and a time limit. It reports requests per second
//! and the worst latency, and fails if any request is dropped (no answer)
//! or answered with anything but the expected status.
//!
//! Phase 1 (within capacity): cheap requests and small solves; every one
//! must be answered 200. Phase 2 (overload): more clients ask for long
//! solves than the queue holds; each must be answered 200 or refused with
//! 503, none dropped.
//!
//! `ADJI_LOAD_REQUESTS=N` sets phase 1's size (default 2000);
//! `ADJI_LOAD_REPORT=FILE` writes the figures as Markdown.
#![cfg(feature = "server")]

mod server_util;

use std::time::{Duration, Instant};

use server_util::*;

/// Starts `adji serve` on a free loopback port; returns it and its URL.
fn serve(args: &[&str]) -> (Serve, String) {
    let mut all = vec!["--no-tables"];
    all.extend(args);
    let (served, addr) = serve_bin(&all);
    // Loopback by default.
    assert!(addr.ip().is_loopback(), "printed {addr}");
    (served, format!("http://{addr}"))
}

const SMALL: [&str; 4] = [
    "0,1,0,2,0,1/1,0,2,0,1,0 B 20-20",
    "1,2,0,3,1,0/2,1,1,0,2,1 B 17-17",
    "0,0,0,0,0,1/0,0,0,1,1,1 B 23-21",
    "1,0,1,1,0,2/0,2,1,0,1,0 A 19-20",
];

/// The `i`-th request of phase 1: 40 % moves, 30 % replays, 30 % small solves.
fn request(base: &str, i: usize) -> String {
    let pos = enc(SMALL[i % SMALL.len()]);
    match i % 10 {
        0..=3 => format!("{base}/api/moves?position={pos}"),
        4..=6 => format!("{base}/api/replay?moves={}", enc("2B 3A 1B 6A")),
        _ => format!("{base}/api/solve?position={pos}&time=2"),
    }
}

/// What a phase measured.
#[derive(Debug, Default)]
struct Figures {
    requests: usize,
    ok: usize,
    refused: usize,
    dropped: usize,
    other: Vec<u16>,
    seconds: f64,
    worst_ms: f64,
    median_ms: f64,
}

impl Figures {
    fn rate(&self) -> f64 {
        self.requests as f64 / self.seconds.max(1e-9)
    }
}

/// Runs `total` requests from `clients` concurrent clients within `limit`.
async fn run(
    clients: usize,
    total: usize,
    limit: Duration,
    url: impl Fn(usize) -> String,
) -> Figures {
    let client = client();
    let t0 = Instant::now();
    let next = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let urls: std::sync::Arc<Vec<String>> = std::sync::Arc::new((0..total).map(url).collect());
    let mut tasks = Vec::new();
    for _ in 0..clients {
        let (client, next, urls) = (client.clone(), next.clone(), urls.clone());
        tasks.push(tokio::spawn(async move {
            let mut seen = Vec::new();
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                if i >= total || t0.elapsed() > limit {
                    return seen;
                }
                let t = Instant::now();
                let r = client.get(urls[i].parse().unwrap()).await;
                let status = match r {
                    Ok(r) => {
                        let status = r.status().as_u16();
                        use http_body_util::BodyExt;
                        match r.into_body().collect().await {
                            Ok(_) => Some(status),
                            Err(_) => None,
                        }
                    }
                    Err(_) => None,
                };
                seen.push((status, t.elapsed()));
            }
        }));
    }
    let mut all = Vec::new();
    for t in tasks {
        all.extend(t.await.unwrap());
    }
    let seconds = t0.elapsed().as_secs_f64();
    let mut lat: Vec<f64> = all.iter().map(|a| a.1.as_secs_f64() * 1000.0).collect();
    lat.sort_by(f64::total_cmp);
    Figures {
        requests: all.len(),
        ok: all.iter().filter(|a| a.0 == Some(200)).count(),
        refused: all.iter().filter(|a| a.0 == Some(503)).count(),
        dropped: all.iter().filter(|a| a.0.is_none()).count(),
        other: all
            .iter()
            .filter_map(|a| a.0.filter(|s| *s != 200 && *s != 503))
            .collect(),
        seconds,
        worst_ms: lat.last().copied().unwrap_or(0.0),
        median_ms: lat.get(lat.len() / 2).copied().unwrap_or(0.0),
    }
}

fn line(name: &str, clients: usize, f: &Figures) -> String {
    format!(
        "| {name} | {clients} | {} | {} | {} | {} | {:.2} | {:.0} | {:.1} | {:.1} |",
        f.requests,
        f.ok,
        f.refused,
        f.dropped,
        f.seconds,
        f.rate(),
        f.median_ms,
        f.worst_ms
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bounded_load_on_loopback_drops_nothing() {
    let total: usize = std::env::var("ADJI_LOAD_REQUESTS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(2000);
    let (_server, base) = serve(&[
        "--workers",
        "2",
        "--queue",
        "16",
        "--hash",
        "16",
        "--time-cap",
        "5",
    ]);

    // Phase 1: 8 clients, within the queue's capacity (2 running + 16 waiting).
    let one = run(8, total, Duration::from_secs(120), |i| request(&base, i)).await;
    assert_eq!(one.requests, total, "the time limit cut phase 1: {one:?}");
    assert_eq!(one.dropped, 0, "{one:?}");
    assert_eq!(one.ok, total, "{one:?}");

    // Phase 2: 40 clients ask for half-second solves of the start position:
    // more than the queue holds, so some are refused, none dropped.
    let long = format!("{base}/api/solve?position=start&time=0.5");
    let two = run(40, 80, Duration::from_secs(120), |_| long.clone()).await;
    assert_eq!(two.requests, 80, "{two:?}");
    assert_eq!(two.dropped, 0, "{two:?}");
    assert!(two.other.is_empty(), "{two:?}");
    assert!(two.refused > 0 && two.ok >= 18, "{two:?}");
    // A refused or served request never waits longer than the queue ahead
    // of it (9 solves per worker at most) plus its own.
    assert!(two.worst_ms < 10.0 * 5_000.0 + 5_000.0, "{two:?}");

    let table = [
        "| phase | clients | requests | 200 | 503 | dropped | seconds | requests/s | median ms | worst ms |".to_string(),
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |".to_string(),
        line("within capacity (moves, replay, small solves)", 8, &one),
        line("overload (0.5 s solves of the start)", 40, &two),
    ]
    .join("\n");
    let _ = std::io::Write::write_all(&mut std::io::stderr(), format!("\n{table}\n").as_bytes());
    if let Ok(path) = std::env::var("ADJI_LOAD_REPORT") {
        std::fs::write(path, format!("{table}\n")).unwrap();
    }
}
