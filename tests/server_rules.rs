//! The web server under every rule set: each route takes `rules` and
//! answers as the command line does with `--rules`, the readings really
//! differ through the API, an unknown rule set is a 400 naming the game's
//! choices, `/api/info` lists the rule sets, a request reads only its own
//! rule set's tables, and `adji serve --game G --rules R` sets the board's
//! first game and rule set.
#![cfg(feature = "server")]

mod server_util;

use adji::adjito::AdjitoMustReach;
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::retrograde::build_tables;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};
use serde_json::Value;
use server_util::*;

/// Adjito, B to move: 1B stays in B's row, 6B reaches A's. Legal by default
/// and under slam-forbidden; must-reach allows only 6B.
const REACH: &str = "0,0,1,0,0,1/1,0,0,0,0,1 B 22-22";
/// Adjito, B to move: 1B lands in 2B facing 5A, which holds all of A's
/// seeds (a capture of everything); 6B is the other move. Slam-forbidden
/// refuses 1B.
const SLAM: &str = "0,0,0,0,3,0/1,0,0,0,0,1 B 21-22";
/// As [`SLAM`] without 6B: the slam is B's only move, so slam-forbidden
/// plays it with the capture (3 seeds), the default without (0).
const FORCED_SLAM: &str = "0,0,0,0,3,0/1,0,0,0,0,0 B 22-22";
/// Adji-Boto's first three moves: the third captures under valdez (captures
/// barred only on each player's first move), not by default (no capture in
/// the ten-move opening).
const THIRD_MOVE: &str = "5 0 8";
/// Adji-Boto, player 1 to move: move 0 captures 8, so its store holds 52.
/// Valdez's game ends there (more than 50); the default's goes on.
const PAST_FIFTY: &str = "3,1,1,1,1/1,1,1,1,1 1 44-44 main";

/// Every rule set: game and name.
const ALL: [(&str, &str); 5] = [
    ("adjito", "default"),
    ("adjito", "must-reach"),
    ("adjito", "slam-forbidden"),
    ("adjiboto", "default"),
    ("adjiboto", "valdez"),
];

fn names(moves: &Value) -> Vec<String> {
    moves["moves"]
        .as_array()
        .expect("a moves report")
        .iter()
        .map(|m| m["move"].as_str().unwrap().to_string())
        .collect()
}

fn captured(moves: &Value, name: &str) -> u64 {
    moves["moves"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["move"] == name)
        .unwrap_or_else(|| panic!("{name} is not legal: {moves}"))["captured"]
        .as_u64()
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_replay_and_solve_are_the_command_lines_under_each_rule_set() {
    let s = start(small(1, 4, 10)).await;
    for (game, rules) in ALL {
        let cases: &[(&str, &str)] = if game == "adjito" {
            &[(REACH, "6B"), (SLAM, "6B"), (FORCED_SLAM, "1B")]
        } else {
            &[("start", THIRD_MOVE), (PAST_FIFTY, "0")]
        };
        for &(pos, moves) in cases {
            let q = [("game", game), ("rules", rules), ("position", pos)];
            let (st, api) = s.api("moves", &q).await;
            assert_eq!(st, 200, "{api}");
            let cli = cli_json(&[
                "moves",
                "--game",
                game,
                "--rules",
                rules,
                "--position",
                pos,
                "--json",
            ]);
            assert_eq!(api, cli, "moves, {game} {rules} {pos}");
            let (st, api) = s
                .api(
                    "replay",
                    &[
                        ("game", game),
                        ("rules", rules),
                        ("position", pos),
                        ("moves", moves),
                    ],
                )
                .await;
            assert_eq!(st, 200, "{api}");
            let cli = cli_json(&[
                "replay",
                "--game",
                game,
                "--rules",
                rules,
                "--position",
                pos,
                "--moves",
                moves,
                "--json",
            ]);
            assert_eq!(api, cli, "replay, {game} {rules} {pos} {moves}");
        }
        // One worker: its hash table serves every rule set in turn, and the
        // entries of one must not answer another (SLAM is +3 by default, +1
        // under must-reach).
        if game == "adjito" {
            let (st, api) = s
                .api(
                    "solve",
                    &[("game", game), ("rules", rules), ("position", SLAM)],
                )
                .await;
            assert_eq!(st, 200, "{api}");
            let cli = cli_json(&[
                "solve",
                "--game",
                game,
                "--rules",
                rules,
                "--position",
                SLAM,
                "--json",
                "--no-tables",
                "--threads",
                "1",
            ]);
            assert_eq!(api["moves"], cli["moves"], "solve, {rules}");
            assert_eq!(api["lower"], cli["lower"], "solve, {rules}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn adjito_readings_differ_through_the_api() {
    let s = start(small(1, 4, 10)).await;
    let moves = |rules: &'static str, pos: &'static str| {
        let s = &s;
        async move {
            let (st, v) = s.api("moves", &[("rules", rules), ("position", pos)]).await;
            assert_eq!(st, 200, "{v}");
            v
        }
    };
    // Must-reach: the short move 1B is legal by default, not under must-reach.
    assert_eq!(names(&moves("default", REACH).await), ["1B", "6B"]);
    assert_eq!(names(&moves("slam-forbidden", REACH).await), ["1B", "6B"]);
    assert_eq!(names(&moves("must-reach", REACH).await), ["6B"]);
    // Without `rules`: the default reading.
    let (_, v) = s.api("moves", &[("position", REACH)]).await;
    assert_eq!(names(&v), ["1B", "6B"]);
    // Slam-forbidden refuses the capture of everything while another move exists…
    assert_eq!(names(&moves("default", SLAM).await), ["1B", "6B"]);
    assert_eq!(names(&moves("slam-forbidden", SLAM).await), ["6B"]);
    let (st, v) = s
        .api(
            "replay",
            &[
                ("rules", "slam-forbidden"),
                ("position", SLAM),
                ("moves", "1B"),
            ],
        )
        .await;
    assert_eq!(st, 400, "{v}");
    let text = api_error(&[
        "replay",
        "--rules",
        "slam-forbidden",
        "--position",
        SLAM,
        "--moves",
        "1B",
    ]);
    assert_eq!(v["error"].as_str().unwrap(), text);
    let (st, _) = s
        .api("replay", &[("position", SLAM), ("moves", "1B")])
        .await;
    assert_eq!(st, 200, "1B is legal by default");
    // … and, forced, plays it with the capture.
    assert_eq!(captured(&moves("default", FORCED_SLAM).await, "1B"), 0);
    assert_eq!(
        captured(&moves("slam-forbidden", FORCED_SLAM).await, "1B"),
        3
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn valdez_captures_from_the_third_move_and_ends_past_fifty() {
    // The server shows valdez first: requests without `rules` still get the default.
    let s = start(adji::server::Config {
        rules: RuleSet::AdjiBotoValdez,
        ..small(1, 4, 10)
    })
    .await;
    let replay = |rules: Option<&'static str>, pos: &'static str, moves: &'static str| {
        let s = &s;
        async move {
            let mut q = vec![("game", "adjiboto"), ("position", pos), ("moves", moves)];
            q.extend(rules.map(|r| ("rules", r)));
            let (st, v) = s.api("replay", &q).await;
            assert_eq!(st, 200, "{v}");
            v
        }
    };
    let last = |v: &Value| v["steps"].as_array().unwrap().last().unwrap().clone();
    let v = replay(Some("valdez"), "start", THIRD_MOVE).await;
    assert_eq!(last(&v)["captured"], 3, "{v}");
    for rules in [Some("default"), None] {
        let v = replay(rules, "start", THIRD_MOVE).await;
        assert_eq!(last(&v)["captured"], 0, "{rules:?}: {v}");
    }
    // Valdez's early end: a store above 50 ends the game.
    let v = replay(Some("valdez"), PAST_FIFTY, "0").await;
    assert_eq!(v["result"]["reason"], "MoreThanHalf", "{v}");
    let v = replay(Some("default"), PAST_FIFTY, "0").await;
    assert!(v["result"].is_null(), "the default's game goes on: {v}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_rule_set_is_a_400_naming_the_games_choices() {
    let s = start(small(1, 4, 10)).await;
    let cases = [
        ("adjiboto", "must-reach", "default, valdez"),
        ("adjito", "valdez", "default, must-reach, slam-forbidden"),
        ("adjito", "", "default, must-reach, slam-forbidden"),
        ("adjito", "DEFAULT", "default, must-reach, slam-forbidden"),
    ];
    for (game, rules, choices) in cases {
        let text = api_error(&["moves", "--game", game, "--rules", rules]);
        assert!(text.contains(choices), "{text}");
        for route in [
            "moves",
            "replay",
            "probe",
            "solve",
            "analyse",
            "solve/stream",
            "analyse/stream",
        ] {
            let (st, v) = s.api(route, &[("game", game), ("rules", rules)]).await;
            assert_eq!(st, 400, "{route} {game} {rules}: {v}");
            assert_eq!(v["error"].as_str().unwrap(), text, "{route} {game} {rules}");
        }
    }
    assert_eq!(s.app.queue().admitted(), 0);
}

/// The rule sets `/api/info` lists for `game`, by name.
fn listed<'a>(info: &'a Value, game: &str) -> Vec<&'a Value> {
    info["rule_sets"][game]
        .as_array()
        .expect("a list")
        .iter()
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_reads_only_its_own_rule_sets_tables() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build_tables::<Adjito>(dir.path(), LoopRule::Start, 8, &NoProgress, |_| {}).unwrap();
    build_tables::<AdjiBoto>(dir.path(), LoopRule::Start, 4, &NoProgress, |_| {}).unwrap();
    let config = || adji::server::Config {
        tables: Some(dir.path().into()),
        ..small(1, 4, 10)
    };
    let level8 = "0,1,0,2,0,1/1,0,2,0,1,0 B 20-20";
    let boto4 = "1,0,0,2,0/0,1,0,0,0 1 48-48 main";
    {
        let s = start(config()).await;
        let (_, info) = s.api("info", &[]).await;
        let levels: Vec<_> = ["adjito", "adjiboto"]
            .iter()
            .flat_map(|g| listed(&info, g))
            .map(|r| (r["name"].as_str().unwrap(), r["levels"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            levels,
            [
                ("default", 9),
                ("must-reach", 0),
                ("slam-forbidden", 0),
                ("default", 5),
                ("valdez", 5)
            ]
        );
        // Default tables answer the default; must-reach is searched.
        let solve = |rules: &'static str, game: &'static str, pos: &'static str| {
            let s = &s;
            async move {
                let q = [("game", game), ("rules", rules), ("position", pos)];
                let (st, v) = s.api("solve", &q).await;
                assert_eq!(st, 200, "{v}");
                v
            }
        };
        assert_eq!(
            solve("default", "adjito", level8).await["from_tables"],
            true
        );
        assert_eq!(
            solve("must-reach", "adjito", level8).await["from_tables"],
            false
        );
        assert_eq!(
            solve("slam-forbidden", "adjito", level8).await["from_tables"],
            false
        );
        // Valdez reads the default's tables (its main phase is the default's).
        assert_eq!(
            solve("valdez", "adjiboto", boto4).await["from_tables"],
            true
        );
        let (st, v) = s
            .api("probe", &[("rules", "must-reach"), ("position", level8)])
            .await;
        assert_eq!(st, 404, "{v}");
        assert!(
            v["error"]
                .as_str()
                .unwrap()
                .starts_with("no adjito --rules must-reach tables for --loop start in "),
            "{v}"
        );
        let (st, _) = s
            .api(
                "probe",
                &[
                    ("game", "adjiboto"),
                    ("rules", "valdez"),
                    ("position", boto4),
                ],
            )
            .await;
        assert_eq!(st, 200);
    }
    // With must-reach's own tables, must-reach reads them, and its values are
    // the command line's with the same tables.
    build_tables::<AdjitoMustReach>(dir.path(), LoopRule::Start, 8, &NoProgress, |_| {}).unwrap();
    let s = start(config()).await;
    let (_, info) = s.api("info", &[]).await;
    assert_eq!(listed(&info, "adjito")[1]["levels"], 9);
    assert_eq!(listed(&info, "adjito")[2]["levels"], 0);
    for rules in ["default", "must-reach"] {
        let q = [("rules", rules), ("position", REACH)];
        let (st, api) = s.api("probe", &q).await;
        assert_eq!(st, 200, "{api}");
        let cli = cli_json(&[
            "tables",
            "probe",
            "--rules",
            rules,
            "--dir",
            d,
            "--position",
            REACH,
            "--json",
        ]);
        assert_eq!(api, cli, "probe, {rules}");
        let moves: Vec<_> = api["moves"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["move"].as_str().unwrap().to_string())
            .collect();
        let expect: &[&str] = if rules == "default" {
            &["1B", "6B"]
        } else {
            &["6B"]
        };
        assert_eq!(moves, expect, "{rules}: its own tables");
        let (st, api) = s
            .api("solve", &[("rules", rules), ("position", level8)])
            .await;
        assert_eq!(st, 200, "{api}");
        assert_eq!(api["from_tables"], true);
        let cli = cli_json(&[
            "solve",
            "--rules",
            rules,
            "--position",
            level8,
            "--json",
            "--tables",
            d,
            "--threads",
            "1",
        ]);
        assert_eq!(api["moves"], cli["moves"], "solve, {rules}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn info_lists_each_games_rule_sets() {
    let s = start(small(1, 4, 10)).await;
    let (st, info) = s.api("info", &[]).await;
    assert_eq!(st, 200);
    assert_eq!(info["rules"], "default");
    for game in [adji::GameId::Adjito, adji::GameId::AdjiBoto] {
        let listed = listed(&info, &game.to_string());
        let expected: Vec<RuleSet> = RuleSet::of(game).collect();
        assert_eq!(listed.len(), expected.len(), "{game}");
        for (r, e) in listed.iter().zip(&expected) {
            assert_eq!(r["name"], e.name());
            assert_eq!(r["source"], e.source());
            assert_eq!(r["differences"], serde_json::json!(e.differences()));
            assert_eq!(r["default"], e.is_default());
            assert_eq!(r["levels"], 0, "no tables");
        }
    }
    let find = |g: &str, n: &str| {
        listed(&info, g)
            .into_iter()
            .find(|r| r["name"] == n)
            .unwrap()
            .clone()
    };
    let valdez = find("adjiboto", "valdez");
    assert_eq!(valdez["tables"], "default");
    assert_eq!(valdez["early_end"], 50);
    assert_eq!(valdez["differences"].as_array().unwrap().len(), 2);
    assert_eq!(find("adjiboto", "default")["early_end"], Value::Null);
    assert_eq!(find("adjito", "must-reach")["tables"], "must-reach");
    assert_eq!(find("adjito", "slam-forbidden")["early_end"], 24);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn serve_game_and_rules_set_the_boards_first_choice() {
    let (_child, addr) = serve_bin(&[
        "--no-tables",
        "--workers",
        "1",
        "--hash",
        "1",
        "--game",
        "adjiboto",
        "--rules",
        "valdez",
    ]);
    let (st, info) = get_json(&format!("http://{addr}/api/info")).await;
    assert_eq!(st, 200);
    assert_eq!(
        (&info["game"], &info["rules"]),
        (&"adjiboto".into(), &"valdez".into())
    );
}

#[test]
fn serve_refuses_an_unknown_rule_set_with_one_error_line() {
    use std::io::Read;
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("adji"))
        .args(["serve", "--port", "0", "--no-tables", "--hash", "1"])
        .args(["--game", "adjiboto", "--rules", "must-reach"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("adji runs");
    let t = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if t.elapsed() > std::time::Duration::from_secs(20) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("adji serve --rules must-reach started instead of refusing");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    assert!(!status.success());
    assert_eq!(
        err,
        "error: --rules: unknown rule set 'must-reach' for adjiboto: expected one of default, valdez\n"
    );
}

/// Starts `adji serve ARGS` and returns what it wrote on standard error
/// before printing its URL (or before exiting, when it refuses to start).
fn serve_stderr(args: &[&str]) -> (bool, String) {
    use std::io::{BufRead, Read};
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("adji"))
        .args(["serve", "--port", "0", "--workers", "1", "--hash", "1"])
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("adji runs");
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    let _ = child.kill();
    let status = child.wait().unwrap();
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    (!url.is_empty() || status.success(), err)
}

#[test]
fn serve_names_each_rule_sets_tables_and_counts_them_in_its_plan() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    // An empty tables directory is most likely a mistake: one warning.
    let (served, err) = serve_stderr(&["--tables", d]);
    assert!(served, "{err}");
    let warnings: Vec<&str> = err.lines().filter(|l| l.starts_with("warning: ")).collect();
    assert_eq!(
        warnings,
        [format!(
            "warning: {d} holds no tables for --loop start; every position is searched"
        )],
        "{err}"
    );
    // With some tables, the families without them are named in the setup
    // line, and no warning is given for each (issue 49: one on every
    // start for rule sets nobody built tables of).
    build_tables::<Adjito>(dir.path(), LoopRule::Start, 4, &NoProgress, |_| {}).unwrap();
    let (served, err) = serve_stderr(&["--tables", d]);
    assert!(served, "{err}");
    assert!(!err.contains("warning: "), "{err}");
    assert!(err.contains("adjiboto: none (search only)"), "{err}");
    assert!(err.contains("adjito: levels 0..=4"), "{err}");
    // The files mapped read-only are said apart, as page cache.
    assert!(err.contains("mapped read-only, page cache"), "{err}");
    // The plan counts what the tables allocate: raw level files nothing
    // (their mapping is page cache, not counted).
    let (served, err) = serve_stderr(&["--tables", d, "--memory", "1M"]);
    assert!(!served, "{err}");
    assert!(err.contains("+ 0 B of table caches"), "{err}");
}
