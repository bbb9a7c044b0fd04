//! The `adji` binary against hostile input (issue 8): each test here failed
//! before its fix. Bad input gets one clear error naming what is wrong and a
//! non-zero exit; nothing panics; a closed stdout pipe exits quietly.

use std::io::Read;
use std::path::Path;
use std::process::{Command as StdCommand, Stdio};

use assert_cmd::Command;

fn adji() -> Command {
    Command::cargo_bin("adji").unwrap()
}

/// Runs `args`, expects a failure whose stderr contains `needle` and no panic.
fn fails_with(args: &[&str], needle: &str) -> String {
    let out = adji().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} should fail; stderr: {err}");
    assert!(err.contains(needle), "{args:?}: stderr was {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    err
}

/// `openings` of one ply without tables into a fresh directory, plus `extra`:
/// expects a failure naming `needle`, and no checkpoint written.
fn openings_fails(extra: &[&str], needle: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let o = dir.path().join("o");
    let base = [
        "openings",
        "--plies",
        "1",
        "--no-tables",
        "--out",
        o.to_str().unwrap(),
    ];
    let err = fails_with(&[&base[..], extra].concat(), needle);
    assert!(!o.join("checkpoint.bin").exists());
    err
}

/// Builds `game` tables up to `max` seeds under `rule` into `dir`.
fn build(dir: &Path, game: &str, max: u32, rule: &str) -> String {
    let out = adji()
        .args(["tables", "build", "--game", game, "--loop", rule])
        .args(["--max-seeds", &max.to_string(), "--dir"])
        .arg(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    String::from_utf8_lossy(&out.stdout).to_string()
}

#[test]
fn d3_number_options_are_refused_naming_the_option() {
    for t in ["1e20", "nan", "NaN", "inf", "-1", "0", "1e10", "soon", ""] {
        fails_with(&["solve", "--no-tables", "--time", t], "--time");
    }
    for t in ["1e20", "nan", "-2", "0"] {
        openings_fails(&["--time-per-position", t], "--time-per-position");
    }
    for h in ["18446744073709551615", "17592186044416", "0", "-1", "x"] {
        fails_with(&["solve", "--no-tables", "--hash", h], "--hash");
        fails_with(&["bench", "--hash", h], "--hash");
    }
    for t in ["0", "100000", "-1"] {
        fails_with(&["solve", "--no-tables", "--threads", t], "--threads");
    }
    fails_with(&["perft", "--depth", "4294967295"], "--depth");
}

#[test]
fn openings_budget_error_names_every_budget() {
    let err = openings_fails(&[], "--exact");
    for opt in ["--time-per-position", "--nodes-per-position", "--depth"] {
        assert!(err.contains(opt), "{err}");
    }
    // Two budgets at once are refused too.
    openings_fails(&["--exact", "--depth", "2"], "--depth");
}

/// Spawns `adji args`, closes its standard output at once (or after the first
/// line with `read_first`), and returns the exit code and standard error.
fn with_closed_stdout(args: &[&str], read_first: bool) -> (Option<i32>, String) {
    let mut child = StdCommand::new(assert_cmd::cargo::cargo_bin("adji"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().unwrap();
    if read_first {
        let mut b = [0u8; 1];
        while stdout.read(&mut b).unwrap() == 1 && b[0] != b'\n' {}
    }
    drop(stdout);
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

#[test]
fn d9_a_closed_pipe_exits_quietly() {
    let dir = tempfile::tempdir().unwrap();
    build(dir.path(), "adjito", 6, "start");
    let d = dir.path().to_str().unwrap();
    let f = dir.path().join("many.txt");
    let line = "0,0,0,0,0,1/0,1,0,1,0,0 B 22-23\n";
    std::fs::write(&f, line.repeat(400)).unwrap();
    let f = f.to_str().unwrap();
    let runs: Vec<(Vec<&str>, bool)> = vec![
        (
            vec!["solve", "--no-tables", "--positions-file", f, "--json"],
            true,
        ),
        (vec!["solve", "--no-tables", "--positions-file", f], false),
        (vec!["solve", "--no-tables", "--nodes", "20000"], false),
        (
            vec!["tables", "probe", "--dir", d, "--positions-file", f],
            false,
        ),
        (
            vec![
                "tables",
                "probe",
                "--dir",
                d,
                "--positions-file",
                f,
                "--json",
            ],
            true,
        ),
        (vec!["tables", "verify", "--dir", d], false),
        (vec!["perft", "--depth", "9", "--divide"], false),
        (vec!["moves", "--json"], false),
        (vec!["show"], false),
    ];
    for (args, read_first) in runs {
        let (code, err) = with_closed_stdout(&args, read_first);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert!(
            !err.to_lowercase().contains("broken pipe"),
            "{args:?}: {err}"
        );
        assert!(!err.contains("error"), "{args:?}: {err}");
        assert_eq!(code, Some(0), "{args:?}: {err}");
    }
}
