//! The web server's API: its reports equal the command line's, bad input
//! gets 400 with the command line's text, no input makes it fail, and the
//! solve queue is bounded, fair, capped in time and cancelled when the
//! client goes away. Each test runs an in-process server on a free
//! loopback port.
#![cfg(feature = "server")]

mod server_util;

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use adji::notation::{parse_state, Stores};
use adji::search::{Options, Searcher};
use adji::tt::AtomicTable;
use adji::{Adjito, Game};
use serde_json::Value;
use server_util::*;

const ADJITO_SMALL: &str = "0,1,0,2,0,1/1,0,2,0,1,0 B 20-20";
const BOTO_SMALL: &str = "1,1,3,2,5/1,0,0,2,4 1 31-50 main";

/// Fields of a solve report that measure the run, not the position.
const RUN_FIELDS: [&str; 5] = ["nodes", "nps", "time_ms", "tt_hit_rate", "table_hits"];

fn without_run_fields(mut v: Value) -> Value {
    for k in RUN_FIELDS {
        v.as_object_mut().expect("an object").remove(k);
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_and_replay_are_the_command_lines_reports() {
    let s = start(small(1, 4, 10)).await;
    let cases = [
        ("adjito", "start", "2B 3A 1B"),
        ("adjito", ADJITO_SMALL, "3B 4A"),
        ("adjiboto", "start", "5 0 7 3"),
        ("adjiboto", BOTO_SMALL, "4 8"),
    ];
    for (game, pos, moves) in cases {
        let (st, api) = s.api("moves", &[("game", game), ("position", pos)]).await;
        assert_eq!(st, 200);
        let cli = cli_json(&["moves", "--game", game, "--position", pos, "--json"]);
        assert_eq!(api, cli, "moves of {game} {pos}");
        let (st, api) = s
            .api(
                "replay",
                &[("game", game), ("position", pos), ("moves", moves)],
            )
            .await;
        assert_eq!(st, 200);
        let cli = cli_json(&[
            "replay",
            "--game",
            game,
            "--position",
            pos,
            "--moves",
            moves,
            "--json",
        ]);
        assert_eq!(api, cli, "replay of {game} {pos} {moves}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_game_over_is_reported_with_its_reason_and_split() {
    let s = start(small(1, 4, 10)).await;
    // B has no seeds: the game is over at once.
    let pos = "1,0,0,0,0,0/0,0,0,0,0,0 B 23-24";
    let (st, v) = s.api("moves", &[("position", pos)]).await;
    assert_eq!(st, 200);
    assert_eq!(v["game_over"]["reason"], "MoverEmpty");
    assert_eq!(v["game_over"]["split"]["A"], 24);
    assert_eq!(v["game_over"]["split"]["B"], 24);
    assert_eq!(v, cli_json(&["moves", "--position", pos, "--json"]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn solve_is_the_command_lines_report() {
    let s = start(small(1, 4, 10)).await;
    for (game, pos) in [("adjito", ADJITO_SMALL), ("adjiboto", BOTO_SMALL)] {
        let (st, api) = s.api("solve", &[("game", game), ("position", pos)]).await;
        assert_eq!(st, 200, "{api}");
        assert_eq!(api["exact"], true);
        let cli = cli_json(&[
            "solve",
            "--game",
            game,
            "--position",
            pos,
            "--json",
            "--no-tables",
            "--threads",
            "1",
        ]);
        let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<Vec<_>>();
        assert_eq!(keys(&api), keys(&cli), "the same fields");
        assert_eq!(
            without_run_fields(api),
            without_run_fields(cli),
            "solve of {game} {pos}"
        );
    }
}

/// An `analyse` report without its timings.
fn without_times(mut v: Value) -> Value {
    let o = v.as_object_mut().expect("an object");
    o.remove("time_ms");
    for i in o["iterations"].as_array_mut().expect("iterations") {
        i.as_object_mut().unwrap().remove("time_ms");
    }
    v
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn analyse_is_the_command_lines_report() {
    let s = start(small(1, 4, 10)).await;
    let deep = "3,2,4,1,5/2,3,1,2,3 0 40-34 main";
    for (game, pos) in [
        ("adjiboto", deep),
        ("adjito", "start"),
        ("adjito", ADJITO_SMALL),
    ] {
        let (st, api) = s
            .api(
                "analyse",
                &[("game", game), ("position", pos), ("nodes", "20000")],
            )
            .await;
        assert_eq!(st, 200, "{api}");
        let cli = cli_json(&[
            "analyse",
            "--game",
            game,
            "--position",
            pos,
            "--nodes",
            "20000",
            "--json",
            "--no-tables",
        ]);
        assert_eq!(
            without_times(api.clone()),
            without_times(cli),
            "{game} {pos}"
        );
        // An estimate is never a value: `value` only when the bounds meet.
        assert!(api["estimate"].is_number());
        assert_eq!(
            api["value"].is_null(),
            api["lower"] != api["upper"],
            "{api}"
        );
    }
    let (st, v) = s.api("analyse", &[("nodes", "0")]).await;
    assert_eq!(st, 400, "{v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn probe_and_solve_with_tables_are_the_command_lines_reports() {
    let dir = tempfile::tempdir().unwrap();
    adji::tables::retrograde::build_tables::<Adjito>(
        dir.path(),
        adji::value::LoopRule::Start,
        8,
        &adji::progress::NoProgress,
        |_| {},
    )
    .unwrap();
    let d = dir.path().to_str().unwrap();
    let s = start(adji::server::Config {
        tables: Some(dir.path().into()),
        ..small(1, 4, 10)
    })
    .await;
    let (st, api) = s.api("probe", &[]).await;
    assert_eq!(st, 404, "{api}");
    let (st, api) = s.api("probe", &[("position", ADJITO_SMALL)]).await;
    assert_eq!(st, 200, "{api}");
    let cli = cli_json(&[
        "tables",
        "probe",
        "--dir",
        d,
        "--position",
        ADJITO_SMALL,
        "--json",
    ]);
    assert_eq!(api, cli);
    let (st, api) = s.api("solve", &[("position", ADJITO_SMALL)]).await;
    assert_eq!(st, 200);
    assert_eq!(api["from_tables"], true);
    let cli = cli_json(&[
        "solve",
        "--position",
        ADJITO_SMALL,
        "--json",
        "--tables",
        d,
        "--threads",
        "1",
    ]);
    assert_eq!(without_run_fields(api), without_run_fields(cli));
    // A level the tables do not cover: 404 with the command line's text.
    let deep = "1,1,1,1,1,1/1,1,1,1,1,1 B 18-18";
    let (st, api) = s.api("probe", &[("position", deep)]).await;
    assert_eq!(st, 404);
    let text = api_error(&["tables", "probe", "--dir", d, "--position", deep]);
    assert_eq!(api["error"].as_str().unwrap(), text);
    // Adji-Boto has no tables here.
    let (st, _) = s.api("probe", &[("game", "adjiboto")]).await;
    assert_eq!(st, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_400_with_the_command_lines_text() {
    let s = start(small(1, 4, 10)).await;
    let bad_positions = [
        ("adjito", "1,2,3"),
        ("adjito", "4,4,4,4,4,4/4,4,4,4,4,4 C 0-0"),
        ("adjito", "4,4,4,4,4,4/4,4,4,4,4,5 B 0-0"),
        ("adjito", "4,4,4,4,4,x/4,4,4,4,4,4 B 0-0"),
        ("adjiboto", "10,10,10,10,10/10,10,10,10,10 0 0-0 opening:11"),
        ("adjiboto", ""),
    ];
    for (game, pos) in bad_positions {
        for route in ["moves", "solve", "replay"] {
            let (st, api) = s.api(route, &[("game", game), ("position", pos)]).await;
            assert_eq!(st, 400, "{route} {pos}: {api}");
            let text = api_error(&["moves", "--game", game, "--position", pos]);
            assert_eq!(api["error"].as_str().unwrap(), text, "{route} {pos}");
        }
    }
    for (game, moves) in [
        ("adjito", "2B 2B"),
        ("adjito", "2B 3A 1B 7C"),
        (
            "adjito",
            "3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B 3A 3B",
        ),
        ("adjiboto", "5 5"),
        ("adjiboto", "5 pass"),
    ] {
        let (st, api) = s.api("replay", &[("game", game), ("moves", moves)]).await;
        let (ok, cli_out, _) = cli(&["replay", "--game", game, "--moves", moves, "--json"]);
        if ok {
            assert_eq!(st, 200);
            assert_eq!(api, serde_json::from_str::<Value>(cli_out.trim()).unwrap());
        } else {
            assert_eq!(st, 400, "{moves}: {api}");
            let text = api_error(&["replay", "--game", game, "--moves", moves]);
            assert_eq!(api["error"].as_str().unwrap(), text, "{moves}");
        }
    }
    let (st, api) = s.api("moves", &[("game", "chess")]).await;
    assert_eq!(st, 400);
    assert!(api["error"]
        .as_str()
        .unwrap()
        .contains("adjito or adjiboto"));
    for t in ["0", "-1", "abc", "NaN", "inf"] {
        let (st, api) = s.api("solve", &[("time", t)]).await;
        assert_eq!(st, 400, "time={t}: {api}");
        assert!(api["error"].as_str().unwrap().starts_with("time: "));
    }
}

/// A deterministic mix of hostile query values.
fn hostile(seed: &mut u64) -> String {
    const PIECES: [&str; 24] = [
        "4",
        ",",
        "/",
        " ",
        "B",
        "A",
        "0",
        "1",
        "-",
        "main",
        "opening:",
        "pass",
        "%FF",
        "%00",
        "%",
        "+",
        "start",
        "99999999999999999999",
        "-5",
        "\u{ff14}",
        "&",
        "=",
        "#",
        "2B",
    ];
    let n = 1 + next(seed) % 24;
    (0..n)
        .map(|_| PIECES[(next(seed) % PIECES.len() as u64) as usize])
        .collect()
}

fn next(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_input_makes_the_server_fail() {
    let s = start(small(2, 64, 2)).await;
    let mut seed = 12345;
    let mut answered = [0usize; 5];
    for i in 0..400 {
        let route = ["moves", "replay", "probe", "solve", "analyse"][i % 5];
        let game = ["adjito", "adjiboto", "x"][(next(&mut seed) % 3) as usize];
        // Values are sent raw (percent signs and all), as a hostile client would.
        let url = format!(
            "{}/api/{route}?game={game}&position={}&moves={}&time=0.05",
            s.base,
            hostile(&mut seed).replace([' ', '#'], "+"),
            hostile(&mut seed).replace([' ', '#'], "+"),
        );
        let Ok(uri) = url.parse::<axum::http::Uri>() else {
            continue;
        };
        let (st, body) = get(&uri.to_string()).await;
        assert!([200, 400, 404].contains(&st), "{url}: status {st}: {body}");
        let v: Value = serde_json::from_str(&body).expect("JSON");
        if st != 200 {
            assert!(v["error"].is_string(), "{url}: {body}");
        }
        answered[i % 5] += 1;
    }
    assert!(answered.iter().all(|&n| n > 40), "{answered:?}");
    // Oversized input.
    let long = "4,".repeat(20_000);
    let (st, _) = get(&format!("{}/api/moves?position={long}", s.base)).await;
    assert!(st == 400 || st == 414 || st == 431, "status {st}");
    let many = vec!["3B"; adji::server::api::MAX_MOVES + 1].join("+");
    let (st, v) = get_json(&format!("{}/api/replay?moves={many}", s.base)).await;
    assert_eq!(st, 400);
    assert!(v["error"].as_str().unwrap().contains("at most"));
    // Garbage that is not HTTP.
    let mut raw = std::net::TcpStream::connect(s.addr).unwrap();
    raw.write_all(b"\x00\xffGARBAGE\r\n\r\n").unwrap();
    let mut buf = Vec::new();
    let _ = raw.read_to_end(&mut buf);
    // Unknown pages and methods.
    let (st, _) = get(&format!("{}/nothing/here", s.base)).await;
    assert_eq!(st, 404);
    // The server still answers.
    let (st, v) = s.api("info", &[]).await;
    assert_eq!(st, 200);
    assert_eq!(v["admitted"], 0);
}

/// Opens a solve on a raw connection (so that the test can drop it) and
/// waits until it runs.
async fn open_solve(s: &TestServer, path: &str) -> std::net::TcpStream {
    let mut c = std::net::TcpStream::connect(s.addr).unwrap();
    write!(c, "GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").unwrap();
    c
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_solve_stops_when_its_client_goes_away() {
    let s = start(small(1, 0, 60)).await;
    let q = std::sync::Arc::clone(s.app.queue());
    for path in [
        "/api/solve?position=start",
        "/api/solve/stream?position=start",
        "/api/analyse?position=start",
        "/api/analyse/stream?position=start",
    ] {
        let c = open_solve(&s, path).await;
        assert!(eventually(Duration::from_secs(5), || q.admitted() == 1).await);
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert_eq!(
            q.admitted(),
            1,
            "{path}: still running (the start takes minutes)"
        );
        let t = Instant::now();
        drop(c);
        assert!(
            eventually(Duration::from_secs(3), || q.admitted() == 0).await,
            "{path}: the solve was not cancelled"
        );
        eprintln!(
            "{path}: stopped {} ms after the client left",
            t.elapsed().as_millis()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_queue_refuses_with_503_and_serves_in_order() {
    let s = start(small(1, 1, 60)).await;
    let q = std::sync::Arc::clone(s.app.queue());
    let running = open_solve(&s, "/api/solve/stream?position=start").await;
    assert!(eventually(Duration::from_secs(5), || q.admitted() == 1).await);
    let waiting = open_solve(&s, "/api/solve?position=start").await;
    assert!(eventually(Duration::from_secs(5), || q.admitted() == 2).await);
    let (st, v) = s.api("solve", &[("position", ADJITO_SMALL)]).await;
    assert_eq!(st, 503, "{v}");
    assert!(v["error"].as_str().unwrap().contains("busy"));
    // Cheap requests are not queued.
    let (st, _) = s.api("moves", &[]).await;
    assert_eq!(st, 200);
    drop(waiting);
    assert!(eventually(Duration::from_secs(3), || q.admitted() == 1).await);
    drop(running);
    assert!(eventually(Duration::from_secs(3), || q.admitted() == 0).await);

    // FIFO: solves submitted one after another (each admitted before the
    // next is sent) finish in that order.
    let s = start(small(1, 4, 60)).await;
    let q = std::sync::Arc::clone(s.app.queue());
    let mut tasks = Vec::new();
    for i in 0..4 {
        let url = format!("{}/api/solve?position=start&time=0.3", s.base);
        tasks.push(tokio::spawn(async move {
            let (st, _) = get_json(&url).await;
            (i, st, Instant::now())
        }));
        assert!(eventually(Duration::from_secs(5), || q.admitted() > i).await);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut done = Vec::new();
    for t in tasks {
        done.push(t.await.unwrap());
    }
    assert!(done.iter().all(|d| d.1 == 200));
    done.sort_by_key(|d| d.2);
    assert_eq!(done.iter().map(|d| d.0).collect::<Vec<_>>(), [0, 1, 2, 3]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_time_cap_bounds_every_solve() {
    let s = start(small(1, 4, 1)).await;
    let t = Instant::now();
    // Asks for more than the cap.
    let (st, v) = s.api("solve", &[("time", "100")]).await;
    let took = t.elapsed();
    assert_eq!(st, 200);
    assert!(took < Duration::from_secs(4), "took {took:?}");
    assert_eq!(v["exact"], false);
    assert!(v["value"].is_null());
    // The start is worth +2 (README): the bounds hold it.
    let (lo, hi) = (v["lower"].as_i64().unwrap(), v["upper"].as_i64().unwrap());
    assert!(lo <= 2 && 2 <= hi && lo < hi, "[{lo}, {hi}]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_streamed_solve_shows_progress_then_the_report() {
    let s = start(small(1, 4, 10)).await;
    let (st, body) = get(&format!(
        "{}/api/solve/stream?position=start&time=0.7",
        s.base
    ))
    .await;
    assert_eq!(st, 200);
    let lines: Vec<Value> = body
        .lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect();
    let (last, progress) = lines.split_last().unwrap();
    assert_eq!(last["event"], "result");
    assert!(progress.len() >= 3, "{body}");
    assert!(progress.iter().all(|p| p["event"] == "progress"));
    let running: Vec<&Value> = progress
        .iter()
        .filter(|p| p["state"] == "running")
        .collect();
    assert!(running.len() >= 2);
    let nodes: Vec<u64> = running
        .iter()
        .map(|p| p["nodes"].as_u64().unwrap())
        .collect();
    assert!(
        nodes.windows(2).all(|w| w[0] <= w[1]) && nodes[nodes.len() - 1] > 0,
        "{nodes:?}"
    );
    let report = &last["report"];
    assert_eq!(report["position"], "4,4,4,4,4,4/4,4,4,4,4,4 B 0-0");
    assert_eq!(report["exact"], false);
    // A bad position is refused before any streaming.
    let (st, v) = s.api("solve/stream", &[("position", "x")]).await;
    assert_eq!(st, 400, "{v}");
}

/// The lines of a streamed solve, parsed.
async fn stream_lines(url: &str) -> Vec<Value> {
    let (st, body) = get(url).await;
    assert_eq!(st, 200, "{body}");
    body.lines()
        .map(|l| serde_json::from_str(l).expect("JSON lines"))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_moves_loop_flag_is_its_childs_from_the_tables() {
    let dir = tempfile::tempdir().unwrap();
    let set = adji::tables::retrograde::build_tables::<Adjito>(
        dir.path(),
        adji::value::LoopRule::Start,
        8,
        &adji::progress::NoProgress,
        |_| {},
    )
    .unwrap();
    // Searched, not looked up: the server has no tables.
    let s = start(small(1, 4, 10)).await;
    let mut sensitive_moves = 0;
    for pos in [
        "0,0,0,0,0,1/0,0,0,1,1,1 B 23-21",
        "0,0,0,0,0,1/0,1,0,1,0,1 B 23-21",
        "0,0,0,0,1,0/0,1,0,1,0,1 B 23-21",
        ADJITO_SMALL,
    ] {
        let url = format!("{}/api/solve/stream?position={}", s.base, enc(pos));
        let last = stream_lines(&url).await.pop().unwrap();
        assert_eq!(last["event"], "result");
        let flags = last["loop_sensitive"].as_object().unwrap();
        let moves = cli_json(&["moves", "--position", pos, "--json"]);
        let st = parse_state::<Adjito>(pos, Stores::Required).unwrap();
        let table = adji::report::ProbeReport::new::<Adjito>(&set, &st.pos).ok();
        assert_eq!(
            last["report"]["loop_sensitive"].as_bool(),
            table.map(|t| t.loop_sensitive),
            "{pos}"
        );
        for m in moves["moves"].as_array().unwrap() {
            let name = m["move"].as_str().unwrap();
            let child =
                parse_state::<Adjito>(m["position"].as_str().unwrap(), Stores::Required).unwrap();
            let expected = m["captured"] == 0
                && set
                    .bounds::<Adjito>(&child.pos)
                    .is_some_and(|b| b.loop_sensitive());
            assert_eq!(flags[name], expected, "{pos} {name}");
            sensitive_moves += expected as usize;
        }
    }
    assert!(sensitive_moves > 0);
}

#[test]
fn serve_refuses_a_plan_over_the_memory_budget_before_allocating() {
    let text = cli_error(&[
        "serve",
        "--port",
        "0",
        "--workers",
        "4",
        "--hash",
        "1048576",
    ]);
    assert!(text.contains("--memory"), "{text}");
    assert!(text.contains("4 worker(s)"), "{text}");
    let text = cli_error(&["serve", "--port", "0", "--tables", "/nonexistent/tables"]);
    assert_eq!(text, "/nonexistent/tables: no such directory");
}

#[test]
fn searcher_stop_ends_a_running_search_with_bounds() {
    let st = parse_state::<Adjito>("start", Stores::Required).unwrap();
    let tt = AtomicTable::new(4);
    let opts = Options {
        parallel: false,
        ..Options::default()
    };
    let s = Searcher::<Adjito, _>::new(None, &tt, opts).unwrap();
    let t = Instant::now();
    let a = std::thread::scope(|sc| {
        sc.spawn(|| {
            std::thread::sleep(Duration::from_millis(300));
            s.stop();
        });
        s.analyse(&st.pos)
    });
    assert!(t.elapsed() < Duration::from_secs(5), "{:?}", t.elapsed());
    assert!(!a.value.exact());
    assert!(a.value.lower <= 2 && 2 <= a.value.upper);
    assert!(s.nodes() > 0);
    assert_eq!(Adjito::legal_moves(&st.pos).len(), a.moves.len());
}

/// Runs `adji serve ARGS` and returns its error text; fails if it is
/// still running (serving) after 20 s.
fn serve_refusal(args: &[&str]) -> String {
    let bin = assert_cmd::cargo::cargo_bin("adji");
    let mut child = std::process::Command::new(bin)
        .arg("serve")
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("adji runs");
    let t = Instant::now();
    while t.elapsed() < Duration::from_secs(20) {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_string(&mut err)
                .unwrap();
            assert!(!status.success(), "{err}");
            return err;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let _ = child.kill();
    let _ = child.wait();
    panic!("adji serve {args:?} started instead of refusing its memory plan");
}

#[test]
fn serve_counts_each_workers_move_hints_in_its_memory_plan() {
    // 2 × 16 MiB of hash fit in 100 MB; with each worker's move hints they do not.
    let err = serve_refusal(&[
        "--port",
        "0",
        "--no-tables",
        "--workers",
        "2",
        "--hash",
        "16",
        "--memory",
        "100M",
    ]);
    assert!(err.contains("2 worker(s) × (16.0 MiB of hash + "), "{err}");
    assert!(err.contains("of move hints)"), "{err}");
    assert!(err.contains("--memory"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn shutdown_stops_accepting_and_lets_a_running_request_finish() {
    let app = std::sync::Arc::new(adji::server::App::new(small(1, 4, 10)).unwrap());
    let q = std::sync::Arc::clone(app.queue());
    let listener = adji::server::bind("127.0.0.1:0".parse().unwrap())
        .await
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(adji::server::serve(listener, app, async {
        let _ = stopped.await;
    }));
    let url = format!("http://{addr}/api/solve?position=start&time=1");
    let request = tokio::spawn(async move { get_json(&url).await });
    assert!(eventually(Duration::from_secs(5), || q.admitted() == 1).await);
    stop.send(()).unwrap();
    let (st, v) = request.await.unwrap();
    assert_eq!(st, 200, "{v}");
    let done = tokio::time::timeout(Duration::from_secs(5), server).await;
    assert!(matches!(done, Ok(Ok(Ok(())))), "{done:?}");
    assert!(
        std::net::TcpStream::connect(addr).is_err(),
        "still accepting"
    );
}

/// Adjito tables 0..=8 built into a new directory.
fn adjito_tables_to_8() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    adji::tables::retrograde::build_tables::<Adjito>(
        dir.path(),
        adji::value::LoopRule::Start,
        8,
        &adji::progress::NoProgress,
        |_| {},
    )
    .unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sharded_tables_directory_serves_as_level_files_do() {
    let (rules, rule) = (
        adji::rules::RuleSet::AdjitoDefault,
        adji::value::LoopRule::Start,
    );
    let single = adjito_tables_to_8();
    let sharded = tempfile::tempdir().unwrap();
    for n in 0..=8 {
        adji::tables::convert::split_level(single.path(), sharded.path(), rules, rule, n, 3)
            .unwrap();
    }
    serves_as_level_files_do(sharded.path(), single.path()).await;
}

/// Issue 39: the server reads compressed levels (`.adjz`) in place.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_compressed_tables_directory_serves_as_level_files_do() {
    let single = adjito_tables_to_8();
    let z = tempfile::tempdir().unwrap();
    let (d, zd) = (single.path().to_str().unwrap(), z.path().to_str().unwrap());
    let (ok, out, err) = cli(&[
        "tables", "compress", "--dir", d, "--out", zd, "--block", "700",
    ]);
    assert!(ok, "{out}{err}");
    serves_as_level_files_do(z.path(), single.path()).await;
}

/// A server on the tables in `other` answers probe and solve as the
/// command line does on the level files in `single`.
async fn serves_as_level_files_do(other: &std::path::Path, single: &std::path::Path) {
    let s = start(adji::server::Config {
        tables: Some(other.into()),
        ..small(1, 4, 10)
    })
    .await;
    let d = single.to_str().unwrap();
    let (st, api) = s.api("probe", &[("position", ADJITO_SMALL)]).await;
    assert_eq!(st, 200, "{api}");
    let cli = cli_json(&[
        "tables",
        "probe",
        "--dir",
        d,
        "--position",
        ADJITO_SMALL,
        "--json",
    ]);
    assert_eq!(api, cli);
    let deeper = "1,0,2,1,0,1/0,1,0,2,1,1 B 20-18";
    let (st, api) = s.api("solve", &[("position", deeper)]).await;
    assert_eq!(st, 200, "{api}");
    let cli = cli_json(&[
        "solve",
        "--position",
        deeper,
        "--json",
        "--tables",
        d,
        "--threads",
        "1",
    ]);
    assert_eq!(api["exact"], true, "{api}");
    assert_eq!(without_run_fields(api), without_run_fields(cli));
}
