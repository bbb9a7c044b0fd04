//! `tables build --compress` (issue 52, deliverable 2): each level
//! compressed as soon as it is built and checked, its raw form removed
//! only after the compressed file checks; the files stand for a plain
//! build's byte for byte, in memory and out of core, and a rerun resumes.

use std::path::Path;

use crate::common::{self, build_adjito, ok, s};

/// `adji tables build --game adjito --max-seeds MAX --dir DIR EXTRA…`,
/// run: its output, whatever the exit.
fn build_adjito_with(dir: &Path, max: u32, extra: &[&str]) -> std::process::Output {
    let m = max.to_string();
    let args = [
        "tables",
        "build",
        "--game",
        "adjito",
        "--max-seeds",
        &m,
        "--dir",
        s(dir),
    ];
    common::adji()
        .args([&args[..], extra].concat())
        .output()
        .unwrap()
}

/// The same with `--compress`, which must succeed: its standard output.
fn build_compressed(dir: &Path, max: u32, extra: &[&str]) -> String {
    let out = build_adjito_with(dir, max, &[&["--compress"][..], extra].concat());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_compressed_build_stands_for_the_plain_one_and_resumes() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    build_adjito(&raw, 10);
    let out = build_compressed(&z, 10, &[]);
    assert!(out.contains("Compressed as built"), "{out}");
    assert_eq!(out.matches("built, then compressed: ").count(), 11, "{out}");
    assert_eq!(common::names(&z, ".adjz").len(), 11);
    assert!(common::names(&z, ".adjt").is_empty(), "raw files left");
    let sums = |d: &Path| ok(&["tables", "checksum", "--game", "adjito", "--dir", s(d)]);
    assert_eq!(sums(&z), sums(&raw), "the raw files they stand for");
    assert_eq!(common::solve_json(&z), common::solve_json(&raw));
    // A rerun keeps every level.
    let again = build_compressed(&z, 10, &[]);
    assert_eq!(
        again.matches("| kept (checksum OK) |").count(),
        11,
        "{again}"
    );
    // An interruption between writing a level's `.adjz` and removing its
    // level file: the rerun keeps the level and removes the raw file.
    let name = "adjito-start-006.adjt";
    std::fs::copy(raw.join(name), z.join(name)).unwrap();
    let again = build_compressed(&z, 10, &[]);
    assert!(
        again.contains("| 6 | 12376 | kept (checksum OK), then compressed: "),
        "{again}"
    );
    assert!(!z.join(name).exists());
    // Higher levels build on the compressed ones.
    build_compressed(&z, 12, &[]);
    build_adjito(&raw, 12);
    assert_eq!(sums(&z), sums(&raw));
    ok(&["tables", "verify", "--game", "adjito", "--dir", s(&z)]);
}

#[test]
fn an_out_of_core_level_is_compressed_from_its_shards() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    build_adjito(&raw, 8);
    build_compressed(&z, 8, &["--shards", "2"]);
    assert_eq!(common::names(&z, ".adjz").len(), 9);
    assert!(common::names(&z, ".adjs").is_empty() && common::names(&z, ".shards.json").is_empty());
    assert!(common::names(&z, ".adjt").is_empty());
    let sums = |d: &Path| ok(&["tables", "checksum", "--game", "adjito", "--dir", s(d)]);
    assert_eq!(sums(&z), sums(&raw));
}

/// Issue 50, deliverable 7 (in part): the plan says the disk the run
/// needs and refuses one the disk cannot hold, before building; with
/// `--compress`, at the ratio of the compressed levels already there.
#[test]
fn a_build_the_disk_cannot_hold_is_refused_before_it_starts() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("t");
    let build = |max: u32, extra: &[&str]| build_adjito_with(&d, max, extra);
    let out = build(10, &["--free-disk", "100K"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("the build needs 632.2 KiB of disk"), "{err}");
    assert!(err.contains("only 100.0 KiB is free"), "{err}");
    assert!(
        !d.join("adjito-start-000.adjt").exists(),
        "built before refusing"
    );
    // Levels there already are not counted again.
    assert!(build(8, &[]).status.success());
    let said = String::from_utf8(build(10, &["--free-disk", "300K"]).stdout).unwrap();
    assert!(said.contains("(9 level(s) there already"), "{said}");
    // Compressed as built: at the measured ratio of the levels there.
    let z = t.path().join("z");
    build_compressed(&z, 8, &[]);
    let said = build_compressed(&z, 9, &[]);
    assert!(said.contains("the levels compressed at "), "{said}");
}

/// Every table family and both loop rules: the compressed build stands
/// for the plain one's files.
#[test]
fn every_rule_set_and_loop_rule_builds_compressed() {
    let t = tempfile::tempdir().unwrap();
    for (game, rules, max) in [
        ("adjito", "default", "7"),
        ("adjito", "must-reach", "7"),
        ("adjito", "slam-forbidden", "7"),
        ("adjiboto", "default", "9"),
    ] {
        for rule in ["start", "even"] {
            let (raw, z) = (t.path().join("raw"), t.path().join("z"));
            let args = [
                "tables",
                "build",
                "--game",
                game,
                "--rules",
                rules,
                "--loop",
                rule,
                "--max-seeds",
                max,
                "--dir",
            ];
            ok(&[&args[..], &[s(&raw)]].concat());
            ok(&[&args[..], &[s(&z), "--compress"]].concat());
            assert!(
                common::names(&z, ".adjt").is_empty(),
                "{game} {rules} {rule}"
            );
            let sums = |d: &Path| {
                let a = ["tables", "checksum", "--game", game, "--rules", rules];
                ok(&[&a[..], &["--loop", rule, "--dir", s(d)]].concat())
            };
            assert_eq!(sums(&z), sums(&raw), "{game} {rules} {rule}");
            std::fs::remove_dir_all(&raw).unwrap();
            std::fs::remove_dir_all(&z).unwrap();
        }
    }
}
