//! `adji tables merge | split` (issue 27) and every command reading a
//! sharded tables directory as it reads level files.

use std::path::{Path, PathBuf};

mod common;
use common::{adji, assert_quiet, build_adjito, fails_with, ok, s, solve_json, with_closed_stdout};

/// `--game G --rules R --loop L`.
fn set<'a>(game: &'a str, rules: &'a str, rule: &'a str) -> [&'a str; 6] {
    ["--game", game, "--rules", rules, "--loop", rule]
}

/// The table files (level files, shards, manifests) in `dir`, by name.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        // The build locks merge and split hold (`.adji-build*.lock`), and
        // the build times a build records (`.adji-build-times.json`).
        .filter(|n| !n.starts_with(".adji-build"))
        .collect();
    v.sort();
    v
}

/// Moves the shard files of `dir` round-robin into `k` new directories
/// `dir/rank-i`, a copy of every manifest in each; returns them.
fn spread(dir: &Path, k: usize) -> Vec<PathBuf> {
    let ranks: Vec<PathBuf> = (0..k).map(|i| dir.join(format!("rank-{i}"))).collect();
    for r in &ranks {
        std::fs::create_dir(r).unwrap();
    }
    for (i, name) in names(dir).iter().enumerate() {
        let p = dir.join(name);
        if name.ends_with(".adjs") {
            std::fs::rename(&p, ranks[i % k].join(name)).unwrap();
        } else if name.ends_with(".shards.json") {
            for r in &ranks {
                std::fs::copy(&p, r.join(name)).unwrap();
            }
            std::fs::remove_file(&p).unwrap();
        }
    }
    ranks
}

/// Builds, splits into 3 shards spread over 2 rank directories, merges,
/// and compares every merged file with the built one byte for byte.
fn merge_reproduces_the_build(game: &str, rules: &str, rule: &str, max: &str) {
    let t = tempfile::tempdir().unwrap();
    let (built, shards, out) = (
        t.path().join("built"),
        t.path().join("sh"),
        t.path().join("out"),
    );
    let set = set(game, rules, rule);
    let mut b = vec!["tables", "build", "--max-seeds", max, "--dir", s(&built)];
    b.extend(set);
    ok(&b);
    let mut sp = vec![
        "tables",
        "split",
        "--dir",
        s(&built),
        "--shards",
        "3",
        "--out",
        s(&shards),
    ];
    sp.extend(set);
    ok(&sp);
    let ranks = spread(&shards, 2);
    let mut m = vec!["tables", "merge", "--dir", s(&out)];
    m.extend(set);
    m.extend(ranks.iter().map(|r| s(r)));
    let said = ok(&m);
    let files = names(&built);
    assert_eq!(names(&out), files);
    assert_eq!(
        said.lines().filter(|l| l.starts_with("merged ")).count(),
        files.len()
    );
    for f in &files {
        let st = std::process::Command::new("cmp")
            .arg(built.join(f))
            .arg(out.join(f))
            .status()
            .unwrap();
        assert!(st.success(), "{game} {rules} {rule}: {f} differs");
    }
    // Again: every level is there and good, so kept.
    let again = ok(&m);
    assert_eq!(
        again.lines().filter(|l| l.starts_with("kept ")).count(),
        files.len()
    );
}

#[test]
fn merge_is_byte_identical_to_a_one_process_build() {
    merge_reproduces_the_build("adjito", "default", "start", "9");
    merge_reproduces_the_build("adjito", "default", "even", "9");
    merge_reproduces_the_build("adjito", "must-reach", "start", "9");
    merge_reproduces_the_build("adjiboto", "default", "start", "9");
    merge_reproduces_the_build("adjiboto", "default", "even", "9");
}

/// Builds Adjito levels 0..=9 in `t/single` and splits them into 4
/// shards each in `t/sharded` (no level file there).
fn single_and_sharded(t: &Path) -> (PathBuf, PathBuf) {
    let (single, sharded) = (t.join("single"), t.join("sharded"));
    build_adjito(&single, 9);
    ok(&[
        "tables",
        "split",
        "--dir",
        s(&single),
        "--shards",
        "4",
        "--out",
        s(&sharded),
    ]);
    assert!(names(&sharded).iter().all(|n| !n.ends_with(".adjt")));
    (single, sharded)
}

/// `tables verify` output with the directory and the seconds taken out.
fn verify_text(dir: &Path) -> String {
    let out = ok(&["tables", "verify", "--game", "adjito", "--dir", s(dir)]);
    out.replace(s(dir), "DIR")
        .replace(".shards.json", ".adjt")
        .lines()
        .map(|l| l.split("; ").next().unwrap_or(l).to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn probe_stats_verify_and_solve_read_sharded_levels_alike() {
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = single_and_sharded(t.path());
    // Stats: the same report.
    let stats = |d: &Path| ok(&["tables", "stats", "--dir", s(d)]);
    assert_eq!(stats(&single), stats(&sharded));
    // Verify: the same verdicts (the level's name and timing aside).
    let v = verify_text(&sharded);
    assert_eq!(verify_text(&single), v);
    assert_eq!(
        v.lines().filter(|l| l.starts_with("ok ")).count(),
        10,
        "{v}"
    );
    // Probe: the same answers for positions of every level.
    let positions = t.path().join("positions.txt");
    let mut lines = String::new();
    for l in 0..=9u32 {
        for k in 0..12u32 {
            let mut pits = [0u32; 12];
            for i in 0..l {
                pits[((i * 7 + k * 5 + l) % 12) as usize] += 1;
            }
            let row = |r: &[u32]| {
                r.iter()
                    .map(|x| x.to_string())
                    .collect::<Vec<_>>()
                    .join(",")
            };
            lines += &format!(
                "{}/{} {}\n",
                row(&pits[..6]),
                row(&pits[6..]),
                ["A", "B"][k as usize % 2]
            );
        }
    }
    std::fs::write(&positions, lines).unwrap();
    let probe = |d: &Path| {
        ok(&[
            "tables",
            "probe",
            "--dir",
            s(d),
            "--positions-file",
            s(&positions),
            "--json",
        ])
    };
    let p = probe(&single);
    assert_eq!(p.lines().count(), 120);
    assert_eq!(p, probe(&sharded));
    // Solve: the same JSON (timing aside) for a position above the tables.
    let solve = solve_json;
    let a = solve(&single);
    assert_eq!(a["exact"], true, "{a}");
    assert!(a["nodes"].as_u64().unwrap() > 0, "{a}");
    assert_eq!(a, solve(&sharded));
}

#[test]
fn build_and_verify_are_not_confused_by_shards_in_the_directory() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("t");
    build_adjito(&d, 7);
    // Shards and manifests beside the level files, and an orphan shard.
    ok(&["tables", "split", "--dir", s(&d), "--shards", "2"]);
    std::fs::write(
        d.join("adjito-start-011.shard-00000-of-00002.adjs"),
        b"junk",
    )
    .unwrap();
    let v = ok(&["tables", "verify", "--game", "adjito", "--dir", s(&d)]);
    assert_eq!(v.lines().filter(|l| l.starts_with("ok ")).count(), 8, "{v}");
    build_adjito(&d, 8);
    let v = ok(&["tables", "verify", "--game", "adjito", "--dir", s(&d)]);
    assert_eq!(v.lines().filter(|l| l.starts_with("ok ")).count(), 9, "{v}");
}

#[test]
fn merge_and_split_give_clear_errors() {
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = single_and_sharded(t.path());
    let out = t.path().join("out");
    let o = s(&out);
    // Another rule set: nothing of it, and what is there instead.
    fails_with(
        &[
            "tables",
            "merge",
            "--dir",
            o,
            "--rules",
            "must-reach",
            s(&sharded),
        ],
        "no manifest of adjito --rules must-reach tables for --loop start",
    );
    fails_with(
        &[
            "tables",
            "merge",
            "--dir",
            o,
            "--rules",
            "must-reach",
            s(&sharded),
        ],
        "they hold adjito tables for --loop start",
    );
    fails_with(
        &["tables", "merge", "--dir", o, s(&out.join("nope"))],
        "no such directory",
    );
    fails_with(&["tables", "merge", "--dir", o], "SHARD_DIR");
    // A shard of another level in the place of one.
    let shard =
        |l: u32, i: u32| sharded.join(format!("adjito-start-{l:03}.shard-{i:05}-of-00004.adjs"));
    std::fs::copy(shard(8, 2), shard(9, 2)).unwrap();
    fails_with(
        &["tables", "merge", "--dir", o, s(&sharded)],
        "expected level 9",
    );
    // A missing shard, named.
    std::fs::remove_file(shard(9, 2)).unwrap();
    fails_with(
        &["tables", "merge", "--dir", o, s(&sharded)],
        "adjito-start-009.shard-00002-of-00004.adjs: sharded level: shard file missing",
    );
    // Levels merged before the failure are there and good; none is half-written.
    assert!(names(&out).iter().all(|n| n.ends_with(".adjt")));
    // Split: bad options and missing levels.
    let d = s(&single);
    fails_with(
        &["tables", "split", "--dir", d, "--shards", "0"],
        "--shards",
    );
    fails_with(
        &[
            "tables", "split", "--dir", d, "--shards", "2", "--levels", "5..3",
        ],
        "empty",
    );
    fails_with(
        &[
            "tables", "split", "--dir", d, "--shards", "2", "--levels", "8..12",
        ],
        "level 10 has no file",
    );
    fails_with(
        &[
            "tables", "split", "--dir", d, "--shards", "2", "--levels", "40..49",
        ],
        "no level above",
    );
    fails_with(
        &[
            "tables", "split", "--dir", d, "--shards", "2", "--game", "adjiboto",
        ],
        "no adjiboto level files or compressed levels",
    );
    let said = ok(&[
        "tables", "split", "--dir", d, "--shards", "2", "--levels", "3", "--out", o,
    ]);
    assert_eq!(said.lines().count(), 1, "{said}");
}

/// `tables merge | head` and `tables split | head`: a closed standard
/// output exits quietly with 0, and every level is still merged or split
/// (they used to stop after the first level, exiting 0 on half the work).
#[test]
fn merge_and_split_with_their_output_closed_finish_quietly() {
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = single_and_sharded(t.path());
    let (out, resplit) = (t.path().join("out"), t.path().join("resplit"));
    let m = ["tables", "merge", "--dir", s(&out), s(&sharded)];
    assert_quiet(&m, with_closed_stdout(&m, false));
    let files = names(&single);
    assert_eq!(names(&out), files);
    for f in &files {
        let same = std::fs::read(single.join(f)).unwrap() == std::fs::read(out.join(f)).unwrap();
        assert!(same, "merged {f} differs from the built one");
    }
    let sp = [
        "tables",
        "split",
        "--dir",
        s(&out),
        "--shards",
        "4",
        "--out",
        s(&resplit),
    ];
    assert_quiet(&sp, with_closed_stdout(&sp, false));
    assert_eq!(names(&resplit), names(&sharded));
}

/// `tables build | head`: a closed standard output (before the plan is
/// even read) exits quietly with 0 and every level is still built (the
/// build used to stop before building anything).
#[test]
fn a_build_with_its_output_closed_builds_every_level_quietly() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("b");
    let a = [
        "tables",
        "build",
        "--game",
        "adjito",
        "--max-seeds",
        "6",
        "--dir",
        s(&d),
    ];
    assert_quiet(&a, with_closed_stdout(&a, false));
    let want: Vec<String> = (0..=6)
        .map(|n| format!("adjito-start-{n:03}.adjt"))
        .collect();
    assert_eq!(names(&d), want);
}

/// `tables build --game adjito --max-seeds MAX --threads 1 --dir DIR EXTRA…`.
fn build_args(dir: &Path, max: usize, extra: &[&str]) -> Vec<String> {
    let max = max.to_string();
    let mut a = vec!["tables", "build", "--game", "adjito", "--max-seeds", &max];
    a.extend(["--threads", "1", "--dir", s(dir)]);
    a.extend(extra);
    a.iter().map(|x| x.to_string()).collect()
}

/// The strings of `a`, borrowed.
fn strs(a: &[String]) -> Vec<&str> {
    a.iter().map(String::as_str).collect()
}

/// The hidden `tables build --shards S --cells-on-disk file|mmap|kept`: bad
/// values are one error naming the option; builds with them, merged, are
/// byte-identical to a plain build, whatever the shard count (more shards
/// than a level has positions too).
#[test]
fn hidden_build_shards_and_cells_on_disk_match_a_plain_build() {
    let t = tempfile::tempdir().unwrap();
    let bad = t.path().join("bad");
    for (extra, opt) in [
        (&["--shards", "0"][..], "--shards"),
        (&["--shards", "two"], "--shards"),
        (&["--shards", "-1"], "--shards"),
        (&["--cells-on-disk", "disk"], "--cells-on-disk"),
        (&["--cells-on-disk", ""], "--cells-on-disk"),
    ] {
        let a = build_args(&bad, 8, extra);
        fails_with(&strs(&a), opt);
        let err = String::from_utf8(adji().args(&a).output().unwrap().stderr).unwrap();
        assert_eq!(err.matches("error:").count(), 1, "{a:?}: {err}");
        assert!(!bad.exists(), "{a:?} wrote {}", bad.display());
    }
    let plain = t.path().join("plain");
    ok(&strs(&build_args(&plain, 8, &[])));
    let files = names(&plain);
    assert_eq!(files.len(), 9);
    // (Out of core in many shards costs much per shard: level 2, 78
    // positions, in 20 shards; level 1, 12 positions, in 12.)
    for (name, max, extra, shards) in [
        (
            "file3",
            8,
            &["--shards", "3", "--cells-on-disk", "file"][..],
            3,
        ),
        ("mmap2", 8, &["--shards", "2", "--cells-on-disk", "mmap"], 2),
        ("kept3", 8, &["--shards", "3", "--cells-on-disk", "kept"], 3),
        ("many", 2, &["--shards", "20"], 20),
    ] {
        let d = t.path().join(name);
        let said = ok(&strs(&build_args(&d, max, extra)));
        // The build's row of the top level (after the plan's).
        let row = format!("| {max} | ");
        let top = said
            .lines()
            .rfind(|l| l.starts_with(&row))
            .unwrap_or_default();
        assert!(
            top.contains(&format!("built out of core: {shards} shards")),
            "{name}: {said}"
        );
        let m = t.path().join(format!("{name}-merged"));
        ok(&["tables", "merge", "--dir", s(&m), s(&d)]);
        for f in &files[..=max] {
            let got = [d.join(f), m.join(f)].into_iter().find(|p| p.is_file());
            let got = std::fs::read(got.unwrap_or_else(|| panic!("{name}: no {f}"))).unwrap();
            let want = std::fs::read(plain.join(f)).unwrap();
            assert!(got == want, "{name}: {f} differs");
        }
    }
}

/// `sha256sum`'s lines for the files `names` in `dir`.
fn sha256sum(dir: &Path, names: &[String]) -> String {
    let out = std::process::Command::new("sha256sum")
        .current_dir(dir)
        .args(names)
        .output()
        .unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

/// `tables checksum` prints what `sha256sum` prints for the level files,
/// and the same for the levels split into shards (hashed as the files
/// they merge into); `--check` passes a right list and fails a wrong one,
/// naming the level; a malformed or self-contradicting list or an empty
/// match is one error.
#[test]
fn checksum_lists_levels_and_sharded_levels_alike_and_checks_lists() {
    let d = tempfile::tempdir().unwrap();
    let (t, sh) = (d.path().join("t"), d.path().join("s"));
    for g in ["adjito", "adjiboto"] {
        ok(&[
            "tables",
            "build",
            "--game",
            g,
            "--max-seeds",
            "6",
            "--dir",
            s(&t),
        ]);
    }
    let files: Vec<String> = names(&t)
        .into_iter()
        .filter(|n| n.starts_with("adjito-") && n.ends_with(".adjt"))
        .collect();
    assert_eq!(files.len(), 7);
    let want = sha256sum(&t, &files);
    let adjito = ["tables", "checksum", "--game", "adjito", "--dir"];
    assert_eq!(ok(&[&adjito[..], &[s(&t)]].concat()), want);
    let split = ["tables", "split", "--dir", s(&t), "--shards", "3", "--out"];
    ok(&[&split[..], &[s(&sh)]].concat());
    assert!(!names(&sh).iter().any(|n| n.ends_with(".adjt")));
    assert_eq!(ok(&["tables", "checksum", "--dir", s(&sh)]), want);
    // --check: a right list (Adji-Boto's lines included, unused).
    let boto = ok(&["tables", "checksum", "--game", "adjiboto", "--dir", s(&t)]);
    let list = d.path().join("list.txt");
    std::fs::write(&list, format!("# sums\n{want}\n{boto}")).unwrap();
    let checked = ok(&["tables", "checksum", "--dir", s(&sh), "--check", s(&list)]);
    assert_eq!(checked.lines().filter(|l| l.starts_with("ok ")).count(), 7);
    // A wrong line fails, naming the level.
    let wrong = want.replacen(&want[..64], &"0".repeat(64), 1);
    std::fs::write(&list, &wrong).unwrap();
    let check = ["tables", "checksum", "--dir", s(&sh), "--check", s(&list)];
    let e = fails_with(&check, "1 of 7 levels differ");
    assert!(e.contains("adjito-start-000.adjt"), "{e}");
    // A list with none of the levels, a malformed line, no directory.
    std::fs::write(&list, &boto).unwrap();
    fails_with(&check, "is listed in");
    std::fs::write(&list, "abc  adjito-start-000.adjt\n").unwrap();
    fails_with(&check, "line 1: expected 64 hexadecimal digits");
    // A level listed twice, wrong then right: the list contradicts itself
    // (it had passed: the last line won).
    std::fs::write(&list, format!("{wrong}{want}")).unwrap();
    fails_with(&check, "line 8: adjito-start-000.adjt is listed again");
    std::fs::write(&list, [0xffu8, 0xfe]).unwrap();
    fails_with(&check, "not UTF-8");
    // A FIFO as the list is refused before it is opened (it had blocked,
    // waiting for a writer).
    let fifo = d.path().join("fifo");
    assert!(std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    let out = adji()
        .args(["tables", "checksum", "--dir", s(&sh), "--check", s(&fifo)])
        .timeout(std::time::Duration::from_secs(60))
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    assert!(err.contains("a FIFO"), "{err}");
    let missing = d.path().join("none");
    fails_with(
        &["tables", "checksum", "--dir", s(&missing)],
        "no such directory",
    );
    fails_with(
        &["tables", "checksum", "--dir", s(d.path())],
        "no tables for --loop start",
    );
    fails_with(
        &[
            "tables",
            "checksum",
            "--game",
            "adjito",
            "--dir",
            s(d.path()),
        ],
        "no adjito tables",
    );
    let args = ["tables", "checksum", "--dir", s(&sh)];
    assert_quiet(&args, with_closed_stdout(&args, true));
}

/// Issue 37, item 8: a regular file given where a directory is expected
/// is named as such by every command that takes one ("File exists (os
/// error 17)" and "no such directory" before).
#[test]
fn a_file_given_for_a_directory_is_named_as_such() {
    let t = tempfile::tempdir().unwrap();
    let file = t.path().join("FILE");
    std::fs::write(&file, b"x").unwrap();
    let f = s(&file);
    let want = format!("{f} is a file, not a directory");
    let tables = t.path().join("tables");
    build_adjito(&tables, 3);
    let d = s(&tables);
    for args in [
        vec![
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "3",
            "--dir",
            f,
        ],
        vec!["tables", "split", "--dir", d, "--shards", "2", "--out", f],
        vec!["tables", "split", "--dir", f, "--shards", "2"],
        vec!["tables", "checksum", "--dir", f],
        vec!["tables", "verify", "--dir", f],
        vec!["tables", "merge", "--dir", f, d],
        vec!["tables", "merge", "--dir", d, f],
        vec![
            "openings", "--game", "adjito", "--plies", "1", "--depth", "1", "--tables", d, "--out",
            f,
        ],
    ] {
        fails_with(&args, &want);
    }
    // The file is untouched, and a missing directory is still said so.
    assert_eq!(std::fs::read(&file).unwrap(), b"x");
    fails_with(
        &["tables", "checksum", "--dir", s(&t.path().join("none"))],
        "no such directory",
    );
}

/// Issue 37, item 5: `tables merge` keeps a level file already in OUT only
/// when it is what the shards merge into. A file with another payload (its
/// checksums recomputed, so that it opens and checks) was kept, exit 0;
/// it is now replaced, atomically, and the output says so.
#[test]
fn merge_replaces_a_level_file_that_is_not_what_the_shards_merge_into() {
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = single_and_sharded(t.path());
    let out = t.path().join("out");
    let merge = ["tables", "merge", "--dir", s(&out), s(&sharded)];
    ok(&merge);
    let name = "adjito-start-009.adjt";
    let good = std::fs::read(single.join(name)).unwrap();
    // A plain value byte (0..=5) changed to another, checksums recomputed.
    let i = (64..good.len()).find(|&i| good[i] <= 5).unwrap() - 64;
    common::forge(&out.join(name), &[(i, good[64 + i] ^ 1)]);
    assert_ne!(std::fs::read(out.join(name)).unwrap(), good);
    let said = ok(&merge);
    let line = said.lines().find(|l| l.contains(name)).unwrap();
    assert!(
        line.starts_with("merged ") && line.contains("replaced"),
        "{said}"
    );
    assert_eq!(std::fs::read(out.join(name)).unwrap(), good);
    // The others are what the shards merge into: kept, and said so.
    assert_eq!(
        said.lines().filter(|l| l.starts_with("kept ")).count(),
        9,
        "{said}"
    );
    let said = ok(&merge);
    assert_eq!(
        said.lines().filter(|l| l.starts_with("kept ")).count(),
        10,
        "{said}"
    );
}

/// Issue 37, item 6: `tables split --shards N` writes only what readers
/// can read: at the bound (512) the level splits and reads back as its
/// file; above it the split is refused naming the bound (66,030 shards had
/// been written, and every reader then failed with "Cannot allocate
/// memory").
#[test]
fn split_is_bounded_to_shard_counts_readers_can_read() {
    let t = tempfile::tempdir().unwrap();
    let single = t.path().join("single");
    let build = ["tables", "build", "--game", "adjito", "--max-seeds", "6"];
    ok(&[&build[..], &["--dir", s(&single)]].concat());
    let out = t.path().join("out");
    let split = |n: &str| {
        [
            "tables",
            "split",
            "--dir",
            s(&single),
            "--levels",
            "6",
            "--shards",
            n,
            "--out",
            s(&out),
        ]
        .map(String::from)
    };
    let e = fails_with(&strs(&split("513")), "513");
    assert!(e.contains("512"), "{e}");
    assert!(!out.exists() || names(&out).is_empty());
    ok(&strs(&split("512")));
    assert_eq!(
        names(&out).iter().filter(|n| n.ends_with(".adjs")).count(),
        512
    );
    let want = ok(&["tables", "checksum", "--dir", s(&single)]);
    let level6 = want
        .lines()
        .find(|l| l.ends_with("adjito-start-006.adjt"))
        .unwrap();
    let got = ok(&["tables", "checksum", "--dir", s(&out)]);
    assert_eq!(got.trim_end(), level6);
    // The library refuses it too, naming the bound.
    let e = adji::tables::convert::split_level(
        &single,
        &t.path().join("lib"),
        adji::rules::RuleSet::AdjitoDefault,
        adji::value::LoopRule::Start,
        6,
        513,
    )
    .unwrap_err();
    assert!(e.to_string().contains("at most 512"), "{e}");
}

/// Issue 37, item 7: a dangling symbolic link in place of a level file,
/// beside the level's manifest and shards: every command reads the level
/// from its shards, `tables checksum` and `certify check`'s hashing too
/// (they said the level was not built).
#[test]
#[cfg(unix)]
fn a_dangling_link_for_a_level_file_reads_the_shards_in_every_command() {
    let t = tempfile::tempdir().unwrap();
    let (single, sharded) = single_and_sharded(t.path());
    for n in 0..=9 {
        let name = format!("adjito-start-{n:03}.adjt");
        std::os::unix::fs::symlink(t.path().join("nowhere"), sharded.join(name)).unwrap();
    }
    let want = ok(&["tables", "checksum", "--dir", s(&single)]);
    assert_eq!(ok(&["tables", "checksum", "--dir", s(&sharded)]), want);
    let list = t.path().join("sums.txt");
    std::fs::write(&list, &want).unwrap();
    let pos = "0,1,0,2,1,0/1,0,2,1,0,2 B";
    let cert = t.path().join("p.cert");
    ok(&[
        "certify",
        "--game",
        "adjito",
        "--position",
        pos,
        "--tables",
        s(&sharded),
        "--out",
        s(&cert),
    ]);
    let said = ok(&[
        "certify",
        "check",
        s(&cert),
        "--tables",
        s(&sharded),
        "--checksums",
        s(&list),
    ]);
    assert!(said.contains("tables: verified"), "{said}");
    assert!(said.contains("levels read"), "{said}");
}
