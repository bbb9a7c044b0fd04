//! Slow and silent clients on loopback (slowloris): connections that send
//! half a request head, or nothing, or go quiet after a request, are
//! closed after `--header-timeout`; connections that send requests and
//! never read the answers are closed after `--write-timeout`; at most `--max-connections` are open at
//! once (at the cap a new one closes the oldest idle one), and `/api/info`
//! still answers a legitimate client, even while attackers reopen silent
//! connections as fast as they are closed. Each test starts the release binary
//! on a free port of 127.0.0.1 with short limits, opens a bounded number
//! of connections, and waits a bounded time.
//!
//! `ADJI_SLOW_CONNECTIONS=N` sets how many slow connections the first test
//! opens (default 400: half of them half a head, half silent);
//! `ADJI_SLOW_REPORT=FILE` writes its figures as Markdown.
#![cfg(all(feature = "server", target_os = "linux"))]

mod server_util;

use std::io::{ErrorKind, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::{Duration, Instant};

use server_util::{serve_bin, Serve};

/// Starts `adji serve` with `args` on a free loopback port.
fn serve(args: &[&str]) -> (Serve, SocketAddr) {
    let mut all = vec!["--no-tables", "--workers", "1", "--hash", "1"];
    all.extend(args);
    serve_bin(&all)
}

/// The server's resident memory in KiB (`VmRSS` of /proc/PID/status).
fn rss_kib(s: &Serve) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{}/status", s.0.id())).unwrap();
    let line = status.lines().find(|l| l.starts_with("VmRSS:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// What a slow client sends before going quiet.
#[derive(Clone, Copy, Debug)]
enum Slow {
    /// Half a request head.
    HalfHead,
    /// Nothing at all.
    Silent,
    /// One whole request (answered), then nothing: an idle keep-alive.
    Idle,
}

/// Opens `n` connections that behave as `kind`.
fn open(addr: SocketAddr, n: usize, kind: Slow) -> Vec<TcpStream> {
    (0..n)
        .map(|_| {
            let mut c = TcpStream::connect(addr).expect("connects");
            match kind {
                Slow::HalfHead => c
                    .write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")
                    .unwrap(),
                Slow::Silent => {}
                Slow::Idle => {
                    c.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                        .unwrap();
                    c.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
                    let mut buf = [0u8; 4096];
                    let n = c.read(&mut buf).unwrap();
                    assert!(buf[..n].starts_with(b"HTTP/1.1 200"));
                }
            }
            c.set_nonblocking(true).unwrap();
            c
        })
        .collect()
}

/// Whether the server closed `c` (end of file or reset; pending data of an
/// answered request is read past).
fn closed(c: &mut TcpStream) -> bool {
    let mut buf = [0u8; 4096];
    loop {
        match c.read(&mut buf) {
            Ok(0) => return true,
            Ok(_) => continue,
            Err(e) if e.kind() == ErrorKind::WouldBlock => return false,
            Err(_) => return true,
        }
    }
}

fn count_closed(cs: &mut [TcpStream]) -> usize {
    cs.iter_mut().map(|c| closed(c) as usize).sum()
}

/// One `GET /api/info` on a fresh connection: its latency when answered
/// 200 within 5 s, `None` when the connection was refused or closed.
fn info(addr: SocketAddr) -> Option<Duration> {
    let t = Instant::now();
    let mut c = TcpStream::connect(addr).ok()?;
    c.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    c.write_all(b"GET /api/info HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    c.read_to_string(&mut text).ok()?;
    text.starts_with("HTTP/1.1 200").then(|| t.elapsed())
}

/// Tries `info` every 100 ms until it answers or `limit` has passed.
fn info_within(addr: SocketAddr, limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if info(addr).is_some() {
            return Some(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    None
}

/// Polls every 50 ms until every connection is closed or `limit` has
/// passed: how long it waited, or `None`.
fn all_closed_within(cs: &mut [TcpStream], limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if count_closed(cs) == cs.len() {
            return Some(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

#[test]
fn slow_clients_are_closed_after_the_header_timeout_and_info_answers() {
    let n: usize = std::env::var("ADJI_SLOW_CONNECTIONS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(400);
    let cap = (n + 100).to_string();
    // Long enough to open them all first: loopback connects sometimes wait
    // 1 s for a retried SYN on a loaded machine.
    let timeout = Duration::from_secs(4 + n as u64 / 250);
    let secs = timeout.as_secs().to_string();
    let (s, addr) = serve(&["--header-timeout", &secs, "--max-connections", &cap]);
    assert!(info(addr).is_some());
    let rss0 = rss_kib(&s);
    let t0 = Instant::now();
    let mut slow = open(addr, n / 2, Slow::HalfHead);
    slow.extend(open(addr, n - n / 2, Slow::Silent));
    slow.extend(open(addr, 10, Slow::Idle));
    let opened = t0.elapsed();
    std::thread::sleep(Duration::from_millis(300));
    let held = slow.len() - count_closed(&mut slow);
    let rss1 = rss_kib(&s);
    let latency = info(addr).expect("/api/info answers while the slow clients hold on");
    assert!(latency < Duration::from_secs(1), "{latency:?}");
    assert!(
        t0.elapsed() + Duration::from_millis(500) < timeout,
        "the test was too slow to open: {:?}",
        t0.elapsed()
    );
    assert_eq!(
        held,
        slow.len(),
        "the slow clients are held until the timeout"
    );
    all_closed_within(&mut slow, timeout + Duration::from_secs(6))
        .expect("every slow client is closed after the timeout");
    let gone = t0.elapsed();
    assert!(
        gone >= Duration::from_millis(1500),
        "closed too soon: {gone:?}"
    );
    let rss2 = rss_kib(&s);
    assert!(info(addr).is_some());
    let report = format!(
        "| slow connections | header timeout | opened in | held after 0.3 s | /api/info meanwhile | all closed after | VmRSS before | with them held | after |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {} ({} half head, {} silent, 10 idle keep-alive) | {} s | {:.2} s | {held} | {:.1} ms | {:.2} s | {:.1} MiB | {:.1} MiB | {:.1} MiB |\n",
        slow.len(),
        n / 2,
        n - n / 2,
        timeout.as_secs(),
        opened.as_secs_f64(),
        latency.as_secs_f64() * 1000.0,
        gone.as_secs_f64(),
        rss0 as f64 / 1024.0,
        rss1 as f64 / 1024.0,
        rss2 as f64 / 1024.0,
    );
    let _ = std::io::stderr().write_all(format!("\n{report}").as_bytes());
    if let Ok(path) = std::env::var("ADJI_SLOW_REPORT") {
        std::fs::write(path, report).unwrap();
    }
}

#[test]
fn the_connection_cap_holds_and_info_answers_once_slots_free() {
    let (_s, addr) = serve(&["--header-timeout", "3", "--max-connections", "100"]);
    let t0 = Instant::now();
    let mut slow = open(addr, 150, Slow::Silent);
    std::thread::sleep(Duration::from_millis(500));
    // 100 are held; each of the 50 beyond the cap closed an older idle one.
    let closed_now = count_closed(&mut slow);
    assert_eq!(closed_now, 50, "connections beyond the cap of 100");
    assert_eq!(
        count_closed(&mut slow[..50]),
        50,
        "the oldest are the ones closed"
    );
    // A legitimate client is answered (its newcomer closes an idle one).
    let waited = info_within(addr, Duration::from_secs(8)).expect("/api/info answers");
    assert!(
        t0.elapsed() < Duration::from_secs(3) + Duration::from_secs(3),
        "{waited:?}"
    );
    assert!(all_closed_within(&mut slow, Duration::from_secs(6)).is_some());
    // Below the cap, the answer is immediate.
    let _few = open(addr, 20, Slow::HalfHead);
    let t = info(addr).expect("answers below the cap");
    assert!(t < Duration::from_secs(1), "{t:?}");
}

#[test]
fn bad_limits_are_usage_errors() {
    for args in [
        ["--header-timeout", "0"],
        ["--header-timeout", "100000"],
        ["--max-connections", "0"],
        ["--max-connections", "10000000"],
        ["--write-timeout", "0"],
        ["--write-timeout", "100000"],
    ] {
        let mut all = vec!["serve", "--port", "0"];
        all.extend(args);
        let (ok, _, err) = server_util::cli(&all);
        assert!(!ok, "{args:?} accepted");
        assert!(err.contains(args[0]), "{args:?}: {err}");
    }
    let text = server_util::cli_error(&["serve", "--allow-host", "http://board.example"]);
    assert!(text.contains("--allow-host"), "{text}");
    // Sound values pass the parser: this plan then fails on memory only.
    let text = server_util::cli_error(&[
        "serve",
        "--port",
        "0",
        "--header-timeout",
        "5",
        "--max-connections",
        "64",
        "--workers",
        "4",
        "--hash",
        "1048576",
    ]);
    assert!(text.contains("--memory"), "{text}");
}

/// `adji serve ARGS` under `ulimit -n 300`, standard output and error piped.
fn under_300_descriptors(args: &str) -> std::process::Child {
    let bin = assert_cmd::cargo::cargo_bin("adji");
    let script = format!(
        "ulimit -n 300 && exec '{}' serve --port 0 --no-tables --hash 1 {args}",
        bin.display()
    );
    std::process::Command::new("sh")
        .args(["-c", &script])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("sh runs")
}

#[test]
fn a_cap_over_the_descriptor_limit_is_refused() {
    let out = under_300_descriptors("--max-connections 512")
        .wait_with_output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("--max-connections: needs 640 file descriptors") && err.contains("300"),
        "{err}"
    );
    // A cap that fits starts: it prints its URL (and is stopped here).
    let mut child = Serve(under_300_descriptors("--max-connections 100"));
    let mut line = String::new();
    let out = child.0.stdout.take().unwrap();
    std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).unwrap();
    assert!(line.starts_with("http://127.0.0.1:"), "printed {line:?}");
}

/// Holds a silent connection to `addr` until the server closes it, then
/// opens another, until `until` (at most 100,000 connections): the
/// attacker of the eviction test. Returns how many it opened.
fn churn(addr: SocketAddr, until: Instant) -> usize {
    let mut opened = 0;
    while Instant::now() < until && opened < 100_000 {
        let Ok(mut c) = TcpStream::connect_timeout(&addr, Duration::from_secs(1)) else {
            std::thread::sleep(Duration::from_millis(10));
            continue;
        };
        opened += 1;
        let _ = c.set_read_timeout(Some(Duration::from_millis(200)));
        let mut buf = [0u8; 256];
        while Instant::now() < until {
            match c.read(&mut buf) {
                Ok(0) => break,
                Ok(_) => continue,
                Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {}
                Err(_) => break,
            }
        }
    }
    opened
}

#[test]
fn idle_connections_are_evicted_so_a_client_is_served_under_churn() {
    const ATTACKERS: usize = 25;
    let (_s, addr) = serve(&["--header-timeout", "3", "--max-connections", "20"]);
    let until = Instant::now() + Duration::from_secs(9);
    let attackers: Vec<_> = (0..ATTACKERS)
        .map(|_| std::thread::spawn(move || churn(addr, until)))
        .collect();
    std::thread::sleep(Duration::from_millis(500));
    // The legitimate client: one request every 100 ms for 8 s.
    let t0 = Instant::now();
    let mut latencies = Vec::new();
    let mut tries = 0;
    while t0.elapsed() < Duration::from_secs(8) && Instant::now() < until && tries < 200 {
        tries += 1;
        if let Some(t) = info(addr) {
            latencies.push(t);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let opened: usize = attackers.into_iter().map(|a| a.join().unwrap()).sum();
    let ok = latencies.len();
    latencies.sort();
    let median = latencies.get(ok / 2).copied().unwrap_or_default();
    let worst = latencies.last().copied().unwrap_or_default();
    let report = format!(
        "| attackers | attacker connections | /api/info tried | answered 200 | median ms | worst ms |\n\
         | ---: | ---: | ---: | ---: | ---: | ---: |\n\
         | {ATTACKERS} | {opened} | {tries} | {ok} | {:.1} | {:.1} |\n",
        median.as_secs_f64() * 1000.0,
        worst.as_secs_f64() * 1000.0,
    );
    let _ = std::io::stderr().write_all(format!("\n{report}").as_bytes());
    if let Ok(path) = std::env::var("ADJI_EVICT_REPORT") {
        std::fs::write(path, report).unwrap();
    }
    assert!(tries >= 20, "only {tries} requests in the time");
    assert!(
        ok * 10 >= tries * 8,
        "{ok} of {tries} legitimate requests answered under churn"
    );
    assert!(
        opened > ATTACKERS,
        "the attackers were never closed: {opened}"
    );
}

#[test]
fn a_newcomer_is_refused_only_when_every_connection_is_busy() {
    let (_s, addr) = serve(&["--header-timeout", "3", "--max-connections", "2"]);
    // Two connections busy with 1 s solves (the second waits for the worker).
    let mut busy: Vec<TcpStream> = (0..2)
        .map(|_| {
            let mut c = TcpStream::connect(addr).unwrap();
            c.write_all(
                b"GET /api/solve?position=start&time=1 HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
            )
            .unwrap();
            c.set_read_timeout(Some(Duration::from_secs(8))).unwrap();
            c
        })
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        info(addr).is_none(),
        "a newcomer is refused while all are busy"
    );
    for c in &mut busy {
        let mut text = String::new();
        c.read_to_string(&mut text).unwrap();
        assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    }
    // Their places are free again.
    assert!(info_within(addr, Duration::from_secs(2)).is_some());
}

/// Whether the kernel still holds the connection whose local port is
/// `port` as established (state `01` in /proc/net/tcp). Unlike `closed`,
/// it reads nothing from the socket: draining a client that never reads
/// would make it one that does, and restart the server's write clock.
fn established(port: u16) -> bool {
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let local = format!(":{port:04X}");
    table.lines().skip(1).any(|l| {
        let f: Vec<&str> = l.split_whitespace().collect();
        f.len() > 3 && f[1].ends_with(&local) && f[3] == "01"
    })
}

/// Polls every 50 ms, reading nothing, until no connection of `ports` is
/// established or `limit` has passed: how long it waited, or `None`.
fn all_released_within(ports: &[u16], limit: Duration) -> Option<Duration> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if !ports.iter().any(|&p| established(p)) {
            return Some(t.elapsed());
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    None
}

/// A connection that asks for the page's script (28 KiB) `n` times in a
/// row and never reads an answer: the server's writes fill the socket's
/// buffers and wait.
fn unread(addr: SocketAddr, n: usize) -> TcpStream {
    let mut c = TcpStream::connect(addr).expect("connects");
    c.set_write_timeout(Some(Duration::from_secs(2))).unwrap();
    let requests = b"GET /board.js HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".repeat(n);
    // The server may stop reading before it has them all: that is the point.
    let _ = c.write_all(&requests);
    c.set_nonblocking(true).unwrap();
    c
}

#[test]
fn clients_that_never_read_are_closed_after_the_write_timeout() {
    let write_timeout = Duration::from_secs(2);
    let (_s, addr) = serve(&[
        "--header-timeout",
        "30",
        "--write-timeout",
        "2",
        "--max-connections",
        "2",
    ]);
    let t0 = Instant::now();
    // 3,000 answers of 28 KiB (84 MiB): far more than loopback buffers hold.
    // The second starts 300 ms later, so its write clock runs out after the
    // first's: the third client may be served while it still holds on, and
    // the check below must not read it (reading would restart its clock).
    let first = unread(addr, 3000);
    std::thread::sleep(Duration::from_millis(300));
    let hogs = [first, unread(addr, 3000)];
    let ports: Vec<u16> = hogs
        .iter()
        .map(|c| c.local_addr().unwrap().port())
        .collect();
    std::thread::sleep(Duration::from_millis(300));
    // Both places are held by connections busy with a request.
    assert!(
        info(addr).is_none() || t0.elapsed() >= write_timeout,
        "a newcomer is refused while both connections are busy"
    );
    // A third client is served once the write timeout closes them.
    let waited = info_within(addr, Duration::from_secs(10));
    let elapsed = t0.elapsed();
    assert!(
        waited.is_some(),
        "no answer in {elapsed:?}: clients that never read hold the connections"
    );
    assert!(
        elapsed < write_timeout + Duration::from_secs(3),
        "served only after {elapsed:?}"
    );
    assert!(
        all_released_within(&ports, Duration::from_secs(5)).is_some(),
        "the clients that never read are closed"
    );
    let _ = std::io::stderr().write_all(
        format!(
            "\nwrite timeout 2 s, 2 of 2 connections held by clients that never read: \
             a third client answered {:.2} s after they connected\n",
            elapsed.as_secs_f64()
        )
        .as_bytes(),
    );
}
