//! The `adji` binary: main flows and bad input (one clear error, non-zero exit, no panic).

use assert_cmd::Command;

fn adji() -> Command {
    Command::cargo_bin("adji").unwrap()
}

/// `adji tables build --game GAME --max-seeds SEEDS --dir D`, which must succeed.
fn build_tables(game: &str, seeds: u32, d: &str) {
    let seeds = seeds.to_string();
    let args = [
        "tables",
        "build",
        "--game",
        game,
        "--max-seeds",
        &seeds,
        "--dir",
        d,
    ];
    adji().args(args).assert().success();
}

fn fails_with(args: &[&str], needle: &str) {
    let out = adji().args(args).output().unwrap();
    assert!(!out.status.success(), "{args:?} should fail");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(needle), "{args:?}: stderr was {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
}

#[test]
fn perft_reproduces_rules_numbers() {
    for (game, d, n) in [("adjito", "5", "4430"), ("adjiboto", "12", "356066")] {
        let out = adji()
            .args(["perft", "--game", game, "--depth", d, "--json"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["nodes"].to_string(), n);
    }
    let out = adji()
        .args(["perft", "--depth", "2", "--divide", "--json"])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["divide"]["2B"], 5); // 1A is empty after 2B
    assert_eq!(v["nodes"], 34);
}

#[test]
fn show_moves_replay_work() {
    adji()
        .args(["show", "--game", "adjiboto"])
        .assert()
        .success();
    let out = adji().args(["moves", "--json"]).output().unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["moves"][1]["move"], "2B");
    assert_eq!(v["moves"][1]["position"], "0,4,4,4,4,4/4,0,5,5,5,5 A 0-4");
    let out = adji()
        .args([
            "replay",
            "--game",
            "adjiboto",
            "--position",
            "3,0,0,0,0/1,1,0,0,0 0 48-47 main",
            "--moves",
            "pass 0",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["result"]["reason"], "NoMoves");
    assert_eq!(v["result"]["winner"], "1");
}

#[test]
fn moves_on_finished_game_gives_reason_and_split() {
    let out = adji()
        .args([
            "moves",
            "--position",
            "1,0,0,0,0,0/0,0,0,0,0,0 B 24-23",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["game_over"]["reason"], "MoverEmpty");
    assert_eq!(v["game_over"]["split"]["A"], 25); // store 24 + 1 on its side
}

#[test]
fn bad_input_gives_one_clear_error() {
    fails_with(
        &["show", "--position", "4,4,4/4,4,4,4,4,4 B 0-0"],
        "top row: expected 6",
    );
    fails_with(
        &["show", "--position", "4,4,4,4,4,4/4,4,4,4,4,4 X 0-0"],
        "mover",
    );
    fails_with(
        &["show", "--position", "4,4,4,4,4,4/4,4,4,4,4,4 B 1-1"],
        "stores",
    );
    fails_with(
        &[
            "show",
            "--game",
            "adjiboto",
            "--position",
            "10,10,10,10,10/10,10,10,10,10 0 0-0 opening:5",
        ],
        "phase",
    );
    fails_with(&["replay", "--moves", "2B 1A"], "move 2 (1A) is illegal");
    fails_with(
        &["replay", "--moves", "2B 1A"],
        "legal moves: 2A 3A 4A 5A 6A",
    );
    fails_with(&["replay", "--moves", "7B"], "move 1 (7B)");
    fails_with(
        &[
            "replay",
            "--game",
            "adjiboto",
            "--position",
            "3,0,0,0,0/1,1,0,0,0 0 48-47 main",
            "--moves",
            "pass 0 5",
        ],
        "after the end",
    );
    fails_with(
        &["solve", "--no-tables", "--position", "garbage"],
        "--position",
    );
    fails_with(&["solve", "--hash", "0"], "--hash");
    fails_with(&["solve", "--time=-3"], "--time");
    fails_with(&["solve", "--time", "soon"], "--time");
    fails_with(
        &[
            "tables",
            "probe",
            "--dir",
            "/nonexistent-dir",
            "--position",
            "start",
        ],
        "no adjito tables",
    );
    fails_with(
        &["tables", "verify", "--dir", "/nonexistent-dir"],
        "no such directory",
    );
    fails_with(
        &[
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "30",
            "--memory",
            "1M",
            "--dir",
            "/tmp/x",
        ],
        "--memory allows",
    );
    fails_with(
        &[
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "3",
            "--memory",
            "lots",
        ],
        "--memory",
    );
}

#[test]
fn tables_build_probe_verify_stats_end_to_end() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build_tables("adjito", 8, d);
    build_tables("adjiboto", 8, d);
    // Resume: nothing to do.
    let out = adji()
        .args([
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "8",
            "--dir",
            d,
        ])
        .output()
        .unwrap();
    assert!(
        String::from_utf8_lossy(&out.stdout)
            .matches("kept (checksum OK)")
            .count()
            == 9
    );
    adji()
        .args(["tables", "verify", "--dir", d])
        .assert()
        .success();
    let out = adji()
        .args([
            "tables",
            "probe",
            "--dir",
            d,
            "--position",
            "0,0,0,0,0,1/0,1,0,1,0,0 B",
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["value"].is_i64());
    assert!(v["moves"].as_array().unwrap().len() == 2);
    // The same position through `solve` with the tables gives the same value.
    let out = adji()
        .args([
            "solve",
            "--tables",
            d,
            "--position",
            "0,0,0,0,0,1/0,1,0,1,0,0 B 22-23",
            "--json",
        ])
        .output()
        .unwrap();
    let s: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(s["value"], v["value"]);
    // A positions file with a bad line: an error object for it, the others answered, non-zero exit.
    let f = dir.path().join("pos.txt");
    std::fs::write(
        &f,
        "0,0,0,0,0,1/0,1,0,1,0,0 B\nnot a position\n4,4,4,4,4,4/4,4,4,4,4,4 B\n",
    )
    .unwrap();
    let out = adji()
        .args([
            "tables",
            "probe",
            "--dir",
            d,
            "--positions-file",
            f.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines[0]["value"].is_i64());
    assert!(lines[1]["error"].as_str().unwrap().contains("board"));
    assert!(lines[2]["error"].as_str().unwrap().contains("level 48"));
    let md = dir.path().join("stats.md");
    adji()
        .args(["tables", "stats", "--dir", d, "--out", md.to_str().unwrap()])
        .assert()
        .success();
    assert!(std::fs::read_to_string(&md)
        .unwrap()
        .contains("| 8 | 75582 |"));
    // Corrupt a file: verify fails with a clear message and probe refuses it.
    let p = dir.path().join("adjito-start-005.adjt");
    let mut b = std::fs::read(&p).unwrap();
    let n = b.len();
    b[n - 3] ^= 0x10;
    std::fs::write(&p, &b).unwrap();
    fails_with(
        &["tables", "verify", "--dir", d],
        "payload checksum mismatch",
    );
    fails_with(
        &[
            "tables",
            "probe",
            "--dir",
            d,
            "--position",
            "0,0,0,0,0,1/0,1,0,1,0,0 B",
        ],
        "corrupted",
    );
    // Truncated file.
    std::fs::write(&p, &b[..100]).unwrap();
    fails_with(&["tables", "verify", "--dir", d], "truncated");
    // Wrong game: an Adji-Boto file under an Adjito name.
    std::fs::copy(dir.path().join("adjiboto-start-005.adjt"), &p).unwrap();
    fails_with(
        &["tables", "verify", "--dir", d, "--game", "adjito"],
        "is for adjiboto",
    );
}

#[test]
fn solve_reports_bounds_under_a_node_limit() {
    let out = adji()
        .args(["solve", "--no-tables", "--nodes", "5000", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["exact"], false);
    assert!(v["value"].is_null());
    assert!(v["lower"].as_i64().unwrap() < v["upper"].as_i64().unwrap());
    let text = adji()
        .args(["solve", "--no-tables", "--nodes", "5000"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("unresolved"));
}

#[test]
fn solve_batch_mode_keeps_going_after_a_bad_line() {
    let dir = tempfile::tempdir().unwrap();
    let f = dir.path().join("p.txt");
    std::fs::write(&f, "0,0,0,0,0,1/0,1,0,1,0,0 B 22-23\nbad\n").unwrap();
    let out = adji()
        .args([
            "solve",
            "--no-tables",
            "--positions-file",
            f.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let lines: Vec<&str> = std::str::from_utf8(&out.stdout).unwrap().lines().collect();
    assert_eq!(lines.len(), 2);
    assert!(lines[1].contains("\"error\""));
}

#[test]
fn solve_on_finished_game() {
    let out = adji()
        .args([
            "solve",
            "--no-tables",
            "--position",
            "1,0,0,0,0,0/0,0,0,0,0,0 B 24-23",
            "--json",
        ])
        .output()
        .unwrap();
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(v["value"], -1);
    assert_eq!(v["final_score"]["A"], 25);
    assert!(v["game_over"].as_str().unwrap().contains("no seeds"));
}

#[test]
fn bench_fingerprint_is_stable() {
    let run = || {
        let out = adji().args(["bench", "--json"]).output().unwrap();
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        v["nodes"].as_u64().unwrap()
    };
    let a = run();
    assert_eq!(a, run());
    let expected: u64 = include_str!("data/bench.txt").trim().parse().unwrap();
    assert_eq!(
        a, expected,
        "search changed: update tests/data/bench.txt if intended"
    );
}

#[test]
fn openings_command_works_and_rejects_bad_budgets() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("o");
    let o = out.to_str().unwrap();
    let pos = "0,2,1,1,2,0/1,0,2,0,1,2 B 18-18";
    fails_with(
        &[
            "openings",
            "--plies",
            "2",
            "--position",
            pos,
            "--no-tables",
            "--out",
            o,
        ],
        "<--exact|--time-per-position <SECONDS>|--nodes-per-position <N>|--depth <D>|--estimate-time <SECONDS>>",
    );
    let od = dir.path().join("d");
    adji()
        .args([
            "openings",
            "--plies",
            "1",
            "--position",
            pos,
            "--depth",
            "3",
            "--no-tables",
            "--out",
            od.to_str().unwrap(),
        ])
        .assert()
        .success();
    assert!(std::fs::read_to_string(od.join("summary.md"))
        .unwrap()
        .contains("depth 3 per position"));
    fails_with(
        &[
            "openings",
            "--plies",
            "2",
            "--position",
            "nonsense",
            "--exact",
            "--out",
            o,
        ],
        "--position",
    );
    adji()
        .args([
            "openings",
            "--plies",
            "2",
            "--position",
            pos,
            "--exact",
            "--no-tables",
            "--out",
            o,
            "--no-timings",
        ])
        .assert()
        .success();
    for f in [
        "lines.csv",
        "tree.json",
        "tree.svg",
        "summary.md",
        "checkpoint.bin",
    ] {
        assert!(out.join(f).exists(), "{f}");
    }
    let summary = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(summary.contains("Value of the root for B"));
    // Resuming with other settings is refused clearly.
    fails_with(
        &[
            "openings",
            "--plies",
            "3",
            "--position",
            pos,
            "--exact",
            "--no-tables",
            "--out",
            o,
            "--resume",
        ],
        "other settings",
    );
    // Interrupted by the test hook, then resumed.
    let out2 = dir.path().join("p");
    let o2 = out2.to_str().unwrap();
    let args = [
        "openings",
        "--plies",
        "2",
        "--position",
        pos,
        "--exact",
        "--no-tables",
        "--out",
        o2,
        "--no-timings",
    ];
    fails_with(
        &[&args[..], &["--stop-after", "3"]].concat(),
        "stopped after 3",
    );
    adji()
        .args([&args[..], &["--resume"]].concat())
        .assert()
        .success();
    assert_eq!(
        std::fs::read(out2.join("lines.csv")).unwrap(),
        std::fs::read(out.join("lines.csv")).unwrap()
    );
}

/// `analyse` keeps the estimate apart: far from the end the JSON has an
/// `estimate` and a null `value`, the proven bounds are not exact, and the
/// text says "an estimate, not a value"; where the search proves the value,
/// `value` is set and equals `solve`'s.
#[test]
fn analyse_never_reports_an_estimate_as_a_value() {
    let out = adji()
        .args(["analyse", "--no-tables", "--depth", "3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(v["estimate"].is_number());
    assert!(v["value"].is_null() && v["exact"] == false, "{v}");
    assert!(v["lower"].as_i64() < v["upper"].as_i64());
    for m in v["moves"].as_array().unwrap() {
        assert!(m["value"].is_null() && m["estimate"].is_number(), "{m}");
    }
    let text = adji()
        .args(["analyse", "--no-tables", "--depth", "3"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&text.stdout).contains("an estimate, not a value"));
    let pos = "1,1,3,2,5/1,0,0,2,4 1 31-50 main";
    let json = |command: &str| -> serde_json::Value {
        let args = [command, "--game", "adjiboto", "--no-tables", "--json"];
        let out = adji()
            .args(args)
            .args(["--position", pos])
            .output()
            .unwrap();
        serde_json::from_slice(&out.stdout).unwrap()
    };
    let (a, s) = (json("analyse"), json("solve"));
    assert_eq!(a["value"], s["value"], "{a}");
}

/// `--trust-tables` skips the payload checksum at open (for big tables
/// already verified): a table with a changed value byte is refused by
/// default and accepted with the flag.
#[test]
fn trust_tables_skips_the_payload_checksum() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_str().unwrap();
    build_tables("adjito", 8, d);
    let p = dir.path().join("adjito-start-008.adjt");
    let mut b = std::fs::read(&p).unwrap();
    b[64 + 1000] ^= 0x02;
    std::fs::write(&p, &b).unwrap();
    let solve = [
        "solve",
        "--game",
        "adjito",
        "--position",
        "0,0,0,0,0,1/0,1,0,1,0,0 B 22-23",
        "--tables",
        d,
    ];
    fails_with(&solve, "payload checksum mismatch");
    let out = adji().args(solve).arg("--trust-tables").output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("value:"));
}
