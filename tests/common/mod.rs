//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::io::Read;
use std::process::Stdio;

use adji::game::{Game, State};

#[cfg(target_os = "linux")]
pub mod memory;
pub mod tables;

/// The `adji` binary of this build.
pub fn adji() -> assert_cmd::Command {
    assert_cmd::Command::cargo_bin("adji").unwrap()
}

/// Runs `adji ARGS`, which must succeed; returns standard output.
pub fn ok(args: &[&str]) -> String {
    let out = adji().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?} failed: {err}");
    String::from_utf8(out.stdout).unwrap()
}

/// `adji tables build --game adjito --max-seeds MAX --dir DIR`, which
/// must succeed.
pub fn build_adjito(dir: &std::path::Path, max: u32) {
    ok(&[
        "tables",
        "build",
        "--game",
        "adjito",
        "--max-seeds",
        &max.to_string(),
        "--dir",
        s(dir),
    ]);
}

/// `adji tables compress --dir raw --out out` with `extra` arguments,
/// which must succeed: its standard output.
pub fn compress(raw: &std::path::Path, out: &std::path::Path, extra: &[&str]) -> String {
    ok(&[
        &["tables", "compress", "--dir", s(raw), "--out", s(out)],
        extra,
    ]
    .concat())
}

/// Adjito tables 0..=`max` built into `raw`, then compressed in blocks
/// of 700 entries into `out` (which may be `raw`).
pub fn compressed_adjito(raw: &std::path::Path, max: u32, out: &std::path::Path) {
    build_adjito(raw, max);
    compress(raw, out, &["--block", "700"]);
}

/// The names in `dir` ending with `suffix`, sorted.
pub fn names(dir: &std::path::Path, suffix: &str) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(suffix))
        .collect();
    v.sort();
    v
}

/// A path as a command-line argument.
pub fn s(p: &std::path::Path) -> &str {
    p.to_str().unwrap()
}

/// `adji solve --json` of an Adjito position with the tables in `dir`
/// on one thread, its timing fields left out (what two table forms must
/// answer alike).
pub fn solve_json(dir: &std::path::Path) -> serde_json::Value {
    let out = ok(&[
        "solve",
        "--position",
        "2,0,1,3,0,1/1,2,0,1,0,1 A 20-16",
        "--tables",
        s(dir),
        "--threads",
        "1",
        "--json",
    ]);
    let mut v: serde_json::Value = serde_json::from_str(&out).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("time_ms");
    o.remove("nps");
    v
}

/// A `solve` or `analyse` text report without its timings: the lines
/// that give the time and the rate (`nodes N, time N ms, N nodes/s, …`)
/// keep their node counts, and lose what a loaded machine changes.
pub fn untimed(report: &str) -> String {
    report
        .lines()
        .map(|l| {
            l.split(", ")
                .filter(|part| !part.starts_with("time ") && !part.ends_with(" nodes/s"))
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `tables probe --json` of `position` with the tables in `dir`.
pub fn probe_json(dir: &std::path::Path, position: &str) -> String {
    ok(&[
        "tables",
        "probe",
        "--dir",
        s(dir),
        "--position",
        position,
        "--json",
    ])
}

/// Runs `args`, expects a failure whose stderr contains `needle` and no
/// panic; returns the stderr.
pub fn fails_with(args: &[&str], needle: &str) -> String {
    let out = adji().args(args).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(!out.status.success(), "{args:?} should fail; stderr: {err}");
    assert!(err.contains(needle), "{args:?}: stderr was {err}");
    assert!(!err.contains("panicked"), "{args:?} panicked: {err}");
    err
}

/// Spawns `adji args`, closes its standard output at once (or after the
/// first line with `read_first`), and returns the exit code and standard
/// error.
pub fn with_closed_stdout(args: &[&str], read_first: bool) -> (Option<i32>, String) {
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("adji"))
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

/// Asserts what [`with_closed_stdout`] gave is a quiet exit 0: no
/// error, no panic, no broken-pipe message.
pub fn assert_quiet(args: &[&str], (code, err): (Option<i32>, String)) {
    assert!(!err.contains("panicked"), "{args:?}: {err}");
    assert!(
        !err.to_lowercase().contains("broken pipe"),
        "{args:?}: {err}"
    );
    assert!(!err.contains("error"), "{args:?}: {err}");
    assert_eq!(code, Some(0), "{args:?}: {err}");
}

/// A deterministic LCG.
pub fn lcg(s: &mut u64) -> u64 {
    *s = s
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *s >> 33
}

/// Plays `choices` (each taken modulo the number of legal moves) from the
/// start, stopping early when the game is over; captures go to the stores.
pub fn playout<G: Game>(choices: &[u8]) -> State {
    let mut st = State {
        pos: G::start(),
        stores: [0, 0],
    };
    for &c in choices {
        let ml = G::legal_moves(&st.pos);
        if ml.is_empty() {
            break;
        }
        st = st.play::<G>(ml.get(c as usize % ml.len())).0;
    }
    st
}

/// Overwrites payload bytes of a table file (`(offset from the payload's
/// start, byte)` pairs) and recomputes both checksums (format 3: payload
/// CRC at bytes 48..52, header CRC of 0..60 at 60..64), so that only the
/// checks of the values themselves can find the damage.
pub fn forge(path: &std::path::Path, edits: &[(usize, u8)]) {
    let mut b = std::fs::read(path).unwrap();
    for &(i, v) in edits {
        b[64 + i] = v;
    }
    let payload = crc32fast::hash(&b[64..]);
    b[48..52].copy_from_slice(&payload.to_le_bytes());
    let header = crc32fast::hash(&b[0..60]);
    b[60..64].copy_from_slice(&header.to_le_bytes());
    std::fs::write(path, b).unwrap();
}
