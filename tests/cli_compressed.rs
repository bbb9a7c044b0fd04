//! `adji tables compress | decompress` (issue 39): byte-identical round
//! trips, resumption, the plan and its refusal, clear errors, and every
//! reading command (probe, stats, verify, checksum, solve, certify,
//! openings) answering the same from compressed levels as from level
//! files. The server's reading is in `tests/server.rs`, Python's and
//! OpenSpiel's in `python/tests`.

use std::path::Path;

mod common;
use common::{build_adjito, compress, fails_with, ok, s, solve_json};

/// `tables build --compress` (issue 52).
#[path = "compressed_build/build.rs"]
mod build;

/// Adjito tables 0..=9 built into `t/raw`, compressed into `t/z` with
/// blocks of 700 entries.
fn built_and_compressed(t: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (raw, z) = (t.join("raw"), t.join("z"));
    build_adjito(&raw, 9);
    let out = compress(&raw, &z, &["--block", "700"]);
    assert!(out.starts_with("plan: compress (zstd"), "{out}");
    assert!(out.contains("10 of 10 levels to do"), "{out}");
    assert!(out.contains("10 written, 0 already done"), "{out}");
    (raw, z)
}

#[test]
fn compress_then_decompress_gives_the_level_files_back_and_resumes() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_compressed(t.path());
    assert_eq!(common::names(&z, ".adjz").len(), 10);
    assert!(common::names(&z, ".adjt").is_empty());
    let again = ok(&["tables", "compress", "--dir", s(&raw), "--out", s(&z)]);
    assert!(again.contains("0 written, 10 already done"), "{again}");
    let back = t.path().join("back");
    let out = ok(&["tables", "decompress", "--dir", s(&z), "--out", s(&back)]);
    assert!(out.contains("10 written"), "{out}");
    for name in common::names(&raw, ".adjt") {
        assert_eq!(
            std::fs::read(raw.join(&name)).unwrap(),
            std::fs::read(back.join(&name)).unwrap(),
            "{name}"
        );
    }
    let again = ok(&["tables", "decompress", "--dir", s(&z), "--out", s(&back)]);
    assert!(again.contains("0 written, 10 already done"), "{again}");
    // A damaged output is not taken as done: it is written again.
    let name = back.join("adjito-start-005.adjt");
    let mut b = std::fs::read(&name).unwrap();
    let k = b.len() - 3;
    b[k] ^= 1;
    std::fs::write(&name, b).unwrap();
    let again = ok(&[
        "tables",
        "decompress",
        "--dir",
        s(&z),
        "--out",
        s(&back),
        "--levels",
        "3-6",
    ]);
    assert!(again.contains("1 written, 3 already done"), "{again}");
    assert_eq!(
        std::fs::read(&name).unwrap(),
        std::fs::read(raw.join("adjito-start-005.adjt")).unwrap()
    );
}

#[test]
fn every_reading_command_answers_alike_from_compressed_levels() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_compressed(t.path());
    let stats = |d: &Path| ok(&["tables", "stats", "--dir", s(d)]);
    assert_eq!(stats(&raw), stats(&z));
    let sums = |d: &Path| ok(&["tables", "checksum", "--dir", s(d)]);
    assert_eq!(sums(&raw), sums(&z), "checksums of the raw bytes");
    let list = t.path().join("list.txt");
    std::fs::write(&list, sums(&raw)).unwrap();
    ok(&["tables", "checksum", "--dir", s(&z), "--check", s(&list)]);
    let verify = |d: &Path| {
        ok(&["tables", "verify", "--game", "adjito", "--dir", s(d)])
            .replace(s(d), "DIR")
            .replace(".adjz", ".adjt")
            .lines()
            .map(|l| l.split("; ").next().unwrap_or(l).to_string())
            .collect::<Vec<_>>()
    };
    let v = verify(&z);
    assert_eq!(
        v.iter().filter(|l| l.starts_with("ok ")).count(),
        10,
        "{v:?}"
    );
    assert_eq!(verify(&raw), v);
    let probe = |d: &Path| common::probe_json(d, "1,0,2,0,0,1/0,1,0,3,1,0 A");
    assert_eq!(probe(&raw), probe(&z));
    let solve = solve_json;
    let a = solve(&raw);
    assert_eq!(a["exact"], true, "{a}");
    assert_eq!(a, solve(&z));
}

/// A position of 12 seeds, above the tables' levels 0..=9.
const ABOVE: &str = "2,0,1,3,0,1/1,2,0,1,0,1 A 20-16";

#[test]
fn certify_and_openings_answer_alike_from_compressed_levels() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_compressed(t.path());
    let sums = t.path().join("sums.txt");
    std::fs::write(&sums, ok(&["tables", "checksum", "--dir", s(&raw)])).unwrap();
    // A path in `t` named after the tables' directory `d`.
    let named = |pre: &str, d: &Path, post: &str| {
        let name = d.file_name().unwrap().to_string_lossy();
        t.path().join(format!("{pre}{name}{post}"))
    };
    let cert = |d: &Path| {
        let f = named("", d, ".cert");
        ok(&[
            "certify",
            "--position",
            ABOVE,
            "--tables",
            s(d),
            "--out",
            s(&f),
        ]);
        f
    };
    let (from_raw, from_z) = (cert(&raw), cert(&z));
    assert_eq!(
        std::fs::read(&from_raw).unwrap(),
        std::fs::read(&from_z).unwrap(),
        "the same certificate from either form"
    );
    // The checker reads the compressed levels and hashes them as the raw
    // files they stand for: proved (exit 0) against the raw files' list.
    let out = ok(&[
        "certify",
        "check",
        s(&from_z),
        "--tables",
        s(&z),
        "--checksums",
        s(&sums),
    ]);
    assert!(out.starts_with("proved: "), "{out}");
    assert!(out.contains("tables: verified"), "{out}");
    let lines = |d: &Path| {
        let o = named("o-", d, "");
        ok(&[
            "openings",
            "--plies",
            "1",
            "--position",
            ABOVE,
            "--exact",
            "--tables",
            s(d),
            "--out",
            s(&o),
            "--threads",
            "1",
        ]);
        // Every column but the last (ms, a timing).
        std::fs::read_to_string(o.join("lines.csv"))
            .unwrap()
            .lines()
            .map(|l| l.rsplit_once(',').unwrap().0.to_string())
            .collect::<Vec<_>>()
    };
    let a = lines(&raw);
    assert_eq!(a.len(), 5, "a header and four first moves: {a:?}");
    assert!(
        a[1..].iter().all(|l| l.contains(",yes,")),
        "all exact: {a:?}"
    );
    assert_eq!(a, lines(&z));
}

/// A level read from its shards is reported at its raw size (it said
/// `0 B -> … (0.00x)`: the size was read from a level file that a
/// sharded level does not have), and its plan names the manifest (it
/// named that missing level file).
#[test]
fn compressing_a_sharded_level_reports_its_raw_size() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    build_adjito(&raw, 9);
    ok(&[
        "tables",
        "split",
        "--dir",
        s(&raw),
        "--shards",
        "3",
        "--levels",
        "9",
    ]);
    std::fs::remove_file(raw.join("adjito-start-009.adjt")).unwrap();
    let out = compress(&raw, &z, &["--levels", "9"]);
    // The plan names what is read: the shards' manifest.
    assert!(out.contains("adjito-start-009.shards.json -> "), "{out}");
    // Level 9: 167,960 entries and the 64-byte header.
    assert!(out.contains("level   9: 164.1 KiB -> "), "{out}");
    assert!(!out.contains("(0.00x)"), "{out}");
}

#[test]
fn compress_and_decompress_give_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_compressed(t.path());
    let out = t.path().join("out");
    // `adji tables CMD --dir DIR --out OUT EXTRA…` fails saying `needle`.
    let fails = |cmd: &str, dir: &Path, extra: &[&str], needle: &str| {
        let mut a = vec!["tables", cmd, "--dir", s(dir), "--out", s(&out)];
        a.extend_from_slice(extra);
        fails_with(&a, needle)
    };
    // The plan is refused when the disk is short, before anything is written.
    let err = fails("compress", &raw, &["--free-disk", "100"], "of disk");
    assert!(err.contains("only 100 B is free"), "{err}");
    assert!(common::names(&out, ".adjz").is_empty());
    fails("compress", &t.path().join("nope"), &[], "--dir");
    fails("compress", &raw, &["--levels", "9-3"], "empty");
    fails("compress", &raw, &["--levels", "x"], "not a level");
    fails("decompress", &raw, &[], "no compressed levels");
    fails(
        "compress",
        &raw,
        &["--transform", "magic"],
        "--transform magic",
    );
    // A damaged block: decompress names the file and block, writes nothing.
    let name = z.join("adjito-start-009.adjz");
    let mut b = std::fs::read(&name).unwrap();
    let k = b.len() / 2;
    b[k] ^= 0x40;
    std::fs::write(&name, b).unwrap();
    let err = fails(
        "decompress",
        &z,
        &["--levels", "9"],
        "adjito-start-009.adjz",
    );
    assert!(err.contains("block "), "{err}");
    assert!(common::names(&out, ".adjt").is_empty());
    // So does any reader.
    let err = fails_with(
        &[
            "tables",
            "probe",
            "--dir",
            s(&z),
            "--position",
            "1,0,2,0,0,1/0,1,0,3,1,0 A",
        ],
        "adjito-start-009.adjz",
    );
    assert!(err.contains("block "), "{err}");
}

/// The memory plan of `solve` and `analyse` (issue 39, deliverable 4):
/// the table files mapped read-only are page cache, said apart and not
/// counted; what the tables allocate (a compressed level's cache of
/// decoded blocks) is counted, and a plan over `--memory` is refused
/// before anything is allocated.
#[test]
fn the_memory_plan_counts_table_caches_and_says_the_mapped_files_apart() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_compressed(t.path());
    let pos = "1,0,0,0,0,0/0,0,2,0,0,0 A 20-25";
    let plan_of = |dir: &Path, cmd: &str| {
        let out = common::adji()
            .args([
                cmd,
                "--game",
                "adjito",
                "--position",
                pos,
                "--tables",
                s(dir),
            ])
            .args(["--memory", "20G"])
            .output()
            .unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        err.lines().next().unwrap().to_string()
    };
    for cmd in ["solve", "analyse"] {
        let r = plan_of(&raw, cmd);
        assert!(r.contains("+ 0 B of table caches"), "{r}");
        assert!(r.contains("tables mapped read-only"), "{r}");
        assert!(r.contains("(page cache, not counted)"), "{r}");
        let c = plan_of(&z, cmd);
        assert!(!c.contains("+ 0 B of table caches"), "{c}");
        assert!(c.contains("tables mapped read-only"), "{c}");
    }
    assert!(plan_of(&raw, "analyse").contains("of move hints"));
    let refused = |cmd: &str, needle: &str| {
        let d = s(&z);
        let args = [cmd, "--game", "adjito", "--position", pos, "--tables", d];
        fails_with(&[&args[..], &["--memory", "1M"]].concat(), needle)
    };
    let e = refused("analyse", "of move hints + ");
    assert!(
        e.contains("but --memory allows 1.0 MiB; lower --table-cache, or raise --memory"),
        "{e}"
    );
    refused("solve", "of table caches");
}

/// `--table-cache` shapes the caches: with 30K (just above the 21.8 KiB
/// minimum) every compressed level but the smallest keeps the
/// direct-mapped cache (256 blocks of 16 entries each, under 50 KiB for
/// levels 0..=9), with 1G every level is kept whole (its value bytes,
/// over 250 KiB); the plan counts what was chosen, and the answers are
/// the same in both shapes and on the raw files (timings left out: issue
/// 49, a loaded machine printed `time 1 ms` against `time 0 ms`).
#[test]
fn the_table_cache_budget_shapes_the_caches_and_changes_no_answer() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z16"));
    build_adjito(&raw, 9);
    let args = ["tables", "compress", "--dir", s(&raw), "--out", s(&z)];
    ok(&[&args[..], &["--block", "16"]].concat());
    let pos = "4,1,0,0,0,0/0,0,2,0,1,0 A 20-20";
    let run = |dir: &Path, cache: &str| {
        let mut cmd = common::adji();
        cmd.args(["solve", "--game", "adjito", "--position", pos])
            .args(["--tables", s(dir), "--memory", "20G"]);
        if cache != "default" {
            cmd.args(["--table-cache", cache]);
        }
        let out = cmd.output().unwrap();
        assert!(out.status.success());
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        let plan = err.lines().next().unwrap().to_string();
        (
            common::untimed(&String::from_utf8(out.stdout).unwrap()),
            plan,
        )
    };
    let kib = |plan: &str| -> f64 {
        let before = plan.split(" of table caches").next().unwrap();
        let size = before.rsplit("+ ").next().unwrap();
        let (n, unit) = size.split_once(' ').unwrap();
        let scale = match unit {
            "B" => 1.0 / 1024.0,
            "KiB" => 1.0,
            "MiB" => 1024.0,
            _ => panic!("{plan}"),
        };
        n.parse::<f64>().unwrap() * scale
    };
    let (small, small_plan) = run(&z, "30K");
    let (whole, whole_plan) = run(&z, "1G");
    let (plain, _) = run(&raw, "1G");
    assert!(kib(&small_plan) < 50.0, "{small_plan}");
    assert!(kib(&whole_plan) > 250.0, "{whole_plan}");
    assert_eq!(small, whole);
    assert_eq!(small, plain);
    assert!(small.contains("value"), "{small}");
    // The default is what --memory leaves after the hash (issue 52; a
    // quarter of it before): every level is kept whole here too.
    let (default, default_plan) = run(&z, "default");
    assert_eq!(kib(&default_plan), kib(&whole_plan), "{default_plan}");
    assert_eq!(default, whole);
    // Levels 0..=12 take 2.6 MiB whole: a quarter of 6M did not hold them,
    // what 6M leaves after a 1 MiB hash does.
    build_adjito(&raw, 12);
    ok(&[&args[..], &["--block", "16"]].concat());
    let plan = |cache: &[&str]| {
        let out = common::adji()
            .args(["solve", "--position", pos, "--tables", s(&z), "--hash", "1"])
            .args(["--memory", "6M"])
            .args(cache)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr).to_string();
        assert!(out.status.success(), "{err}");
        err.lines().next().unwrap().to_string()
    };
    let (default, whole) = (plan(&[]), plan(&["--table-cache", "5M"]));
    assert!(kib(&whole) > 2600.0, "{whole}");
    assert_eq!(kib(&default), kib(&whole), "{default}");
}
