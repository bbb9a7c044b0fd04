//! The `adji` binary against hostile inputs and surprising defaults (issue
//! 23): each test here failed (or hung, stopped by its timeout) before its
//! fix. Bad input gets one clear error naming what is wrong and a non-zero
//! exit; nothing panics, hangs or reads without bound.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use assert_cmd::Command;

fn adji() -> Command {
    Command::cargo_bin("adji").unwrap()
}

mod common;

/// Runs `args` with a deadline, so that a hang fails the test.
fn run(args: &[&str], secs: u64) -> Output {
    adji()
        .args(args)
        .timeout(Duration::from_secs(secs))
        .output()
        .unwrap()
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).to_string()
}

/// Runs `args` (deadline 60 s) and expects exit 1 with `needles` on stderr.
fn fails_with(args: &[&str], needles: &[&str]) -> Output {
    let out = run(args, 60);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{args:?}: {out:?}");
    for n in needles {
        assert!(err.contains(n), "{args:?}: no {n:?} in stderr {err}");
    }
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    out
}

/// Builds Adjito tables up to `max` seeds into `dir`.
fn build(dir: &Path, max: u32) {
    common::build_adjito(dir, max);
}

/// `eval train` of Adjito on the tables in `dir`, writing `dir/m.json`.
fn train_args(dir: &Path) -> Vec<String> {
    let (d, m) = (dir.to_str().unwrap(), dir.join("m.json"));
    let args = ["eval", "train", "--game", "adjito", "--dir", d, "--out"];
    let mut v: Vec<String> = args.iter().map(|s| s.to_string()).collect();
    v.push(m.to_str().unwrap().to_string());
    v
}

/// Joins `base` and `extra` into one argument list.
fn with<'a>(base: &'a [String], extra: &[&'a str]) -> Vec<&'a str> {
    base.iter()
        .map(String::as_str)
        .chain(extra.iter().copied())
        .collect()
}

/// A FIFO at `dir/name`.
fn fifo(dir: &Path, name: &str) -> PathBuf {
    let p = dir.join(name);
    let st = std::process::Command::new("mkfifo")
        .arg(&p)
        .status()
        .unwrap();
    assert!(st.success());
    p
}

// ---- item 4: a crafted checkpoint ----

/// A checkpoint whose first frame has a valid CRC and claims a string of
/// `len` bytes (bincode's varint: 253 then a u64).
fn crafted_checkpoint(dir: &Path, len: u64) {
    let mut payload = vec![253u8];
    payload.extend_from_slice(&len.to_le_bytes());
    let mut b = (payload.len() as u32).to_le_bytes().to_vec();
    b.extend_from_slice(&crc32fast::hash(&payload).to_le_bytes());
    b.extend_from_slice(&payload);
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("checkpoint.bin"), b).unwrap();
}

#[test]
fn i4_a_crafted_checkpoint_string_length_is_an_error_not_a_panic() {
    for len in [u64::MAX, 1 << 40] {
        let d = tempfile::tempdir().unwrap();
        let o = d.path().join("o");
        crafted_checkpoint(&o, len);
        let args = ["openings", "--plies", "1", "--depth", "1", "--no-tables"];
        let o = o.to_str().unwrap();
        fails_with(
            &[&args[..], &["--out", o, "--resume"]].concat(),
            &["checkpoint.bin", "frame 0"],
        );
    }
}

// ---- item 5: playouts that never end ----

#[test]
fn i5_playouts_at_an_unreachable_level_end_with_an_error() {
    let d = tempfile::tempdir().unwrap();
    build(d.path(), 6);
    let m = d.path().join("m.json");
    let base = train_args(d.path());
    let limits = ["--min-level", "1", "--max-level", "1"];
    let args = with(&base, &[&["--sample", "playouts"][..], &limits].concat());
    let out = run(&args, 120);
    let err = text(&out.stderr);
    assert!(out.status.code().is_some(), "killed by the deadline: {err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("level 1"), "{err}");
    assert!(!m.exists());
}

// ---- item 9: eval train's memory plan ----

#[test]
fn i9_eval_train_prints_its_plan_and_refuses_one_over_memory() {
    let d = tempfile::tempdir().unwrap();
    build(d.path(), 8);
    let m = d.path().join("m.json");
    let base = train_args(d.path());
    let big = [
        "--per-level",
        "30000000",
        "--sample",
        "playouts",
        "--memory",
        "1G",
    ];
    let big = with(&base, &big);
    let out = fails_with(&big, &["the plan needs", "--memory allows 1.0 GiB"]);
    assert!(text(&out.stderr).contains("positions"), "{out:?}");
    assert!(!m.exists());
    let small = with(&base, &["--per-level", "50", "--memory", "1G"]);
    let out = run(&small, 60);
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stderr).contains("memory"), "{out:?}");
}

// ---- item 10: devices and FIFOs where a file is expected ----

#[test]
fn i10_devices_and_fifos_are_refused_for_every_input_file() {
    let d = tempfile::tempdir().unwrap();
    build(d.path(), 6);
    let t = d.path().to_str().unwrap();
    let f = fifo(d.path(), "fifo");
    let train = train_args(d.path());
    for (file, kind) in [("/dev/zero", "device"), (f.to_str().unwrap(), "FIFO")] {
        let cases: Vec<Vec<&str>> = vec![
            vec!["solve", "--no-tables", "--positions-file", file],
            vec!["tables", "probe", "--dir", t, "--positions-file", file],
            vec!["analyse", "--no-tables", "--depth", "1", "--eval", file],
            vec![
                "match",
                "--no-tables",
                "--a-nodes",
                "10",
                "--b-nodes",
                "10",
                "--openings",
                "1",
                "--a-eval",
                file,
            ],
            with(&train, &["--exclude", file]),
        ];
        for args in cases {
            fails_with(&args, &[file, kind]);
        }
    }
}

// ---- item 11: long batch lines ----

/// A quick `solve --json` of each line of `file`.
fn solve_batch(file: &Path) -> Vec<&str> {
    let quick = ["solve", "--no-tables", "--nodes", "1000", "--hash", "1"];
    let batch = ["--json", "--positions-file", file.to_str().unwrap()];
    [&quick[..], &batch].concat()
}

/// Runs `args` and returns its output and its peak resident memory in KiB.
// The child is reaped by `wait4`, which also gives its resource usage.
#[allow(clippy::zombie_processes)]
fn with_peak_rss(args: &[&str]) -> (String, i64) {
    let bin = assert_cmd::cargo::cargo_bin("adji");
    let child = std::process::Command::new(bin)
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id() as libc::pid_t;
    let mut stdout = child.stdout.unwrap();
    let mut s = String::new();
    std::io::Read::read_to_string(&mut stdout, &mut s).unwrap();
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: waits for our own child, with valid pointers.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut ru) };
    assert_eq!(r, pid);
    (s, ru.ru_maxrss)
}

#[test]
fn i11_a_huge_batch_line_is_read_with_a_bound_and_quoted_short() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("in.txt");
    {
        use std::io::Write;
        let mut w = std::io::BufWriter::new(std::fs::File::create(&p).unwrap());
        w.write_all(b"start\n").unwrap();
        let chunk = vec![b'x'; 1 << 20];
        for _ in 0..200 {
            w.write_all(&chunk).unwrap();
        }
    }
    let args = solve_batch(&p);
    let (out, rss_kib) = with_peak_rss(&args);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 2, "{}", &out[..out.len().min(2000)]);
    assert!(
        lines[1].len() < 1000,
        "error line of {} bytes",
        lines[1].len()
    );
    assert!(lines[1].contains("too long"), "{}", lines[1]);
    assert!(lines[1].contains("209715200 bytes"), "{}", lines[1]);
    assert!(rss_kib < 120 * 1024, "peak RSS {rss_kib} KiB");
}

#[test]
fn i11_a_long_malformed_line_is_quoted_by_a_prefix() {
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("in.txt");
    std::fs::write(&p, format!("start\n{}\n", "é".repeat(1500))).unwrap();
    let args = solve_batch(&p);
    let out = run(&args, 60);
    assert_eq!(out.status.code(), Some(1));
    let out = text(&out.stdout);
    let bad: serde_json::Value = serde_json::from_str(out.lines().nth(1).unwrap()).unwrap();
    let input = bad["input"].as_str().unwrap();
    assert!(input.chars().count() < 300, "{input}");
    assert!(input.starts_with("éé"), "{input}");
    assert!(input.ends_with("… (3000 bytes)"), "{input}");
}

// ---- item 13: openings never overwrites another run's outputs ----

/// Runs `args` in the directory `dir` (deadline 60 s).
fn run_in(dir: &Path, args: &[&str]) -> Output {
    adji()
        .args(args)
        .current_dir(dir)
        .timeout(Duration::from_secs(60))
        .output()
        .unwrap()
}

#[test]
fn i13_openings_writes_outside_results_and_refuses_to_overwrite() {
    let d = tempfile::tempdir().unwrap();
    let args = ["openings", "--plies", "1", "--depth", "1", "--no-tables"];
    let out = run_in(d.path(), &args);
    assert!(out.status.success(), "{out:?}");
    let o = d.path().join("openings-adjito-1");
    assert!(o.join("summary.md").exists(), "{out:?}");
    assert!(!d.path().join("results").exists());
    let before = std::fs::read(o.join("lines.csv")).unwrap();
    let again = run_in(d.path(), &args);
    let err = text(&again.stderr);
    assert_eq!(again.status.code(), Some(1), "{again:?}");
    for n in ["openings-adjito-1", "--resume", "--force"] {
        assert!(err.contains(n), "{err}");
    }
    assert_eq!(std::fs::read(o.join("lines.csv")).unwrap(), before);
    let forced = run_in(d.path(), &[&args[..], &["--force"]].concat());
    assert!(forced.status.success(), "{forced:?}");
}

#[test]
fn i13_a_killed_runs_checkpoint_is_not_overwritten_without_resume() {
    let d = tempfile::tempdir().unwrap();
    let o = d.path().join("o");
    let args = [
        "openings",
        "--plies",
        "2",
        "--depth",
        "1",
        "--no-tables",
        "--threads",
        "1",
        "--out",
        o.to_str().unwrap(),
    ];
    fails_with(&[&args[..], &["--stop-after", "2"]].concat(), &["stopped"]);
    let ck = std::fs::read(o.join("checkpoint.bin")).unwrap();
    fails_with(&args, &["--resume", "--force", o.to_str().unwrap()]);
    assert_eq!(std::fs::read(o.join("checkpoint.bin")).unwrap(), ck);
    let out = run(&[&args[..], &["--resume"]].concat(), 60);
    assert!(out.status.success(), "{out:?}");
}

// ---- item 14: replay errors show the game so far and the legal moves ----

/// Replays `moves` of `game` (text and JSON): exit 1, the positions played
/// so far on stdout in text mode (`shown`), nothing on stdout in JSON mode,
/// and the error with `legal` on stderr.
fn replay_fails(game: &str, position: &str, moves: &str, shown: &[&str], legal: &str) {
    let args = [
        "replay",
        "--game",
        game,
        "--position",
        position,
        "--moves",
        moves,
    ];
    let out = fails_with(&args, &[&format!("legal moves: {legal}")]);
    let stdout = text(&out.stdout);
    for s in shown {
        assert!(stdout.contains(s), "{moves}: no {s:?} in {stdout}");
    }
    assert!(!stdout.contains("game continues"), "{stdout}");
    let json = fails_with(&[&args[..], &["--json"]].concat(), &["legal moves: "]);
    assert!(json.stdout.is_empty(), "{json:?}");
    assert_eq!(text(&json.stderr), text(&out.stderr));
}

#[test]
fn i14_replay_errors_list_the_legal_moves_after_the_game_so_far() {
    let s = "start";
    // Adjito: a pit of the other side, an empty pit.
    let after_2b = "0,4,4,4,4,4/4,0,5,5,5,5 A 0-4";
    replay_fails(
        "adjito",
        s,
        "2B 2B",
        &[after_2b, "  1.   2B"],
        "2A 3A 4A 5A 6A",
    );
    let after_2a = "0,0,5,5,5,5/0,0,5,5,5,5 B 4-4";
    replay_fails(
        "adjito",
        s,
        "2B 2A 2B",
        &[after_2a, "  2.   2A"],
        "3B 4B 5B 6B",
    );
    // Adji-Boto: a pit of the other row, one played in the opening, one
    // with fewer than two seeds.
    let after_5 = "11,11,11,11,11/1,11,11,11,11 1 0-0 opening:5";
    replay_fails("adjiboto", s, "5 5", &[after_5, "  1.    5"], "0 1 2 3 4");
    let after_0 = "2,12,12,12,12/2,12,12,12,12 0 0-0 opening:0,5";
    replay_fails("adjiboto", s, "5 0 5", &[after_0, "  2.    0"], "6 7 8 9");
    let main = "1,1,3,2,5/1,0,0,2,4 1 31-50 main";
    replay_fails("adjiboto", main, "0", &[main], "2 3 4");
}

// ---- item 17: solve's and analyse's text ----

#[test]
fn i17a_solve_prints_projected_scores_as_text() {
    let pos = "1,0,0,0,0,1/0,1,0,2,7,8 B 5-23";
    let args = ["solve", "--no-tables", "--position", pos, "--hash", "1"];
    let out = run(&args, 120);
    assert!(out.status.success(), "{out:?}");
    let t = text(&out.stdout);
    assert!(t.contains("projected final score: B: "), "{t}");
    let out = run(&[&args[..], &["--nodes", "50"]].concat(), 60);
    let t = text(&out.stdout);
    assert!(t.contains("projected final score between B: "), "{t}");
    assert!(!t.contains("{\""), "{t}");
    let json = run(&[&args[..], &["--json"]].concat(), 120);
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert!(v["final_score"]["A"].is_number(), "{v}");
}

#[test]
fn i17bc_analyse_names_its_tables_and_takes_threads() {
    let d = tempfile::tempdir().unwrap();
    build(d.path(), 6);
    let t = d.path().to_str().unwrap();
    let args = ["analyse", "--depth", "2", "--threads", "1"];
    let out = run(&[&args[..], &["--tables", t]].concat(), 60);
    assert!(out.status.success(), "{out:?}");
    let err = text(&out.stderr);
    assert!(err.contains("tables levels 0..=6"), "{err}");
    assert!(err.contains("threads 1"), "{err}");
    let out = run(&[&args[..], &["--no-tables"]].concat(), 60);
    assert!(text(&out.stderr).contains("tables none"), "{out:?}");
    let out = run(&["analyse", "--no-tables", "--threads", "0"], 60);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("--threads"), "{out:?}");
    let help = text(&run(&["analyse", "--help"], 60).stdout);
    assert!(help.contains("--threads"), "{help}");
}
