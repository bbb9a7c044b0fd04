//! `adji tables compress --transform dontcare` (issue 52): levels whose
//! free entries (a capture is best) store any byte at most the capture
//! bound, read through the levels below. The files check, hash as the raw
//! files, decompress byte for byte, and every probe and solve answers as
//! from the level files; a command that would read such a level without
//! the levels below refuses it by name.

use std::path::Path;

mod common;
use common::{build_adjito, compress, fails_with, ok, probe_json, s, solve_json};

/// Adjito tables 0..=10 built into `t/raw`, compressed with don't-care
/// entries into `t/z` (blocks of 700 entries).
fn built_and_filled(t: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let (raw, z) = (t.join("raw"), t.join("z"));
    build_adjito(&raw, 10);
    let out = compress(&raw, &z, &["--block", "700", "--transform", "dontcare"]);
    assert!(out.contains("transform dontcare"), "{out}");
    assert!(out.contains("11 written, 0 already done"), "{out}");
    (raw, z)
}

#[test]
fn dont_care_levels_hash_decompress_and_solve_as_the_level_files() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_filled(t.path());
    let sums = |d: &Path| ok(&["tables", "checksum", "--dir", s(d)]).replace(".adjz", ".adjt");
    assert_eq!(sums(&raw), sums(&z), "checksums of the raw bytes");
    // Smaller than the plain codec's files.
    let plain = t.path().join("plain");
    compress(&raw, &plain, &["--block", "700"]);
    let size = |d: &Path| -> u64 {
        common::names(d, ".adjz")
            .iter()
            .map(|n| std::fs::metadata(d.join(n)).unwrap().len())
            .sum()
    };
    assert!(
        size(&z) * 10 < size(&plain) * 9,
        "{} vs {}",
        size(&z),
        size(&plain)
    );
    let back = t.path().join("back");
    ok(&["tables", "decompress", "--dir", s(&z), "--out", s(&back)]);
    for name in common::names(&raw, ".adjt") {
        assert!(
            std::fs::read(raw.join(&name)).unwrap() == std::fs::read(back.join(&name)).unwrap(),
            "{name}"
        );
    }
    let a = solve_json(&raw);
    assert_eq!(a["exact"], true, "{a}");
    assert_eq!(a, solve_json(&z));
    let probe = |d: &Path| probe_json(d, "1,0,2,0,0,1/0,1,0,3,1,0 A");
    assert_eq!(probe(&raw), probe(&z));
}

#[test]
fn a_dont_care_level_without_its_levels_below_is_refused_by_name() {
    let t = tempfile::tempdir().unwrap();
    let (_raw, z) = built_and_filled(t.path());
    // Building above them would copy the levels without reading through.
    fails_with(
        &[
            "tables",
            "build",
            "--game",
            "adjito",
            "--max-seeds",
            "11",
            "--dir",
            s(&z),
        ],
        "don't-care entries",
    );
    // Statistics read each level alone: refused by name, not as damage.
    let err = fails_with(&["tables", "stats", "--dir", s(&z)], "don't-care entries");
    assert!(!err.contains("damaged"), "{err}");
    // A level whose levels below are gone is not hashed.
    std::fs::remove_file(z.join("adjito-start-004.adjz")).unwrap();
    let only = t.path().join("only");
    std::fs::create_dir(&only).unwrap();
    std::fs::rename(
        z.join("adjito-start-010.adjz"),
        only.join("adjito-start-010.adjz"),
    )
    .unwrap();
    fails_with(
        &["tables", "checksum", "--dir", s(&only)],
        "level 0 is not built",
    );
}

/// The rate a conversion's plan measured on its sample, in MB/s a core.
fn planned_rate(plan: &str) -> f64 {
    let at = plan.find(" MB/s a core").expect("a rate in the plan");
    let head = &plan[..at];
    head[head.rfind('(').unwrap() + 1..].parse().unwrap()
}

/// The plan of decompressing don't-care levels times the reading through
/// the levels below, not the blocks' decoding alone (which it did at
/// first: it projected seconds for what took most of an hour).
#[test]
fn decompressing_dont_care_levels_is_planned_with_their_reading() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = built_and_filled(t.path());
    let plain = t.path().join("plain");
    compress(&raw, &plain, &["--block", "700"]);
    let plan = |d: &Path| {
        let out = t.path().join("out");
        let text = ok(&["tables", "decompress", "--dir", s(d), "--out", s(&out)]);
        std::fs::remove_dir_all(&out).unwrap();
        planned_rate(&text)
    };
    let (dc, zstd) = (plan(&z), plan(&plain));
    assert!(dc * 3.0 < zstd, "don't care {dc} MB/s, plain {zstd} MB/s");
}
