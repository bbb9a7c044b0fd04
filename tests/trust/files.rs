//! Issue 49, defects 2–9, 15 and 16: the files of a table directory in
//! their several forms (level files, compressed levels, shards), as a
//! careless or hostile user leaves them. Each test failed before its fix.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use adji::progress::{NoProgress, Progress};
use adji::rules::RuleSet;
use adji::tables::compressed::{Codec, Compressed};
use adji::tables::convert::compress::{plan, run, stream_raw, Direction};
use adji::tables::lock::BuildLock;
use adji::tables::{OpenCheck, TableError};
use adji::value::LoopRule;

use crate::common::{self, build_adjito, fails_with, ok, s};

const R: RuleSet = RuleSet::AdjitoDefault;
const L: LoopRule = LoopRule::Start;

/// Adjito tables 0..=`max` in `t/raw`, compressed in blocks of 700 into
/// `out` (which may be `t/raw` itself).
fn raw_and_compressed(t: &Path, max: u32, out: &Path) -> PathBuf {
    let raw = t.join("raw");
    common::compressed_adjito(&raw, max, out);
    raw
}

/// Adjito tables 0..=`max` in a new directory `t/t`.
fn adjito_tables(max: u32) -> (tempfile::TempDir, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("t");
    build_adjito(&d, max);
    (t, d)
}

/// Defect 2: a compress writing into a directory holds its build lock, so
/// that a build there cannot take its temporary file for a stale one.
#[test]
fn compress_and_decompress_hold_the_directorys_build_lock() {
    struct TryLock<'a> {
        dir: &'a Path,
        refused: Mutex<Vec<bool>>,
    }
    impl Progress for TryLock<'_> {
        fn start(&self, _: &str, _: u64) {
            let r = BuildLock::acquire(self.dir, R, L);
            let locked = matches!(r, Err(TableError::Locked { .. }));
            self.refused.lock().unwrap().push(locked);
        }
        fn inc(&self, _: u64) {}
        fn finish(&self, _: &str) {}
    }
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("raw");
    build_adjito(&d, 6);
    for direction in [
        Direction::Compress(Codec {
            block: 700,
            ..Codec::chosen()
        }),
        Direction::Decompress,
    ] {
        let out = match direction {
            Direction::Compress(_) => d.clone(),
            Direction::Decompress => t.path().join("back"),
        };
        let p = plan(&d, &out, R, L, None, direction).unwrap();
        let probe = TryLock {
            dir: &out,
            refused: Mutex::new(Vec::new()),
        };
        run(&p, R, L, &probe, |_| {}).unwrap();
        let seen = probe.refused.into_inner().unwrap();
        assert_eq!(seen.len(), 7, "{direction:?}");
        assert!(seen.iter().all(|&x| x), "{direction:?}: {seen:?}");
        // Released at the end: a build may run again.
        BuildLock::acquire(&out, R, L).unwrap();
    }
    // And a build running there refuses a compress, naming the lock.
    let held = BuildLock::acquire(&d, R, L).unwrap();
    std::fs::remove_file(d.join("adjito-start-006.adjz")).unwrap();
    let e = fails_with(
        &["tables", "compress", "--dir", s(&d), "--out", s(&d)],
        ".adji-build-adjito-start.lock",
    );
    assert!(e.contains("another command writing the same files"), "{e}");
    drop(held);
}

/// Defect 5: a killed compress's temporary file is removed by the next
/// compress (or decompress) into that directory.
#[test]
fn a_killed_conversions_temporary_file_is_removed_by_the_next() {
    let t = tempfile::tempdir().unwrap();
    let z = t.path().join("z");
    let raw = raw_and_compressed(t.path(), 5, &z);
    let stale = z.join(".adji-adjito-start-005.adjz.AbC123.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    std::fs::remove_file(z.join("adjito-start-005.adjz")).unwrap();
    ok(&["tables", "compress", "--dir", s(&raw), "--out", s(&z)]);
    assert!(!stale.exists(), "compress left its stale temporary file");
    let back = t.path().join("back");
    std::fs::create_dir(&back).unwrap();
    let stale = back.join(".adji-adjito-start-003.adjt.XyZ789.tmp");
    std::fs::write(&stale, b"half a file").unwrap();
    ok(&["tables", "decompress", "--dir", s(&z), "--out", s(&back)]);
    assert!(!stale.exists(), "decompress left a stale temporary file");
}

/// Defect 3: a damaged compressed file beside its good level file fails
/// `verify`, which names it; so does one that stands for another level
/// file.
#[test]
fn verify_checks_every_form_of_a_level() {
    let t = tempfile::tempdir().unwrap();
    let d = t.path().join("raw");
    raw_and_compressed(t.path(), 7, &d);
    let verify = |d: &Path| adji_cmd(&["tables", "verify", "--game", "adjito", "--dir", s(d)]);
    let (code, so, se) = verify(&d);
    assert_eq!(code, 0, "{so}{se}");
    let z = d.join("adjito-start-006.adjz");
    let good = std::fs::read(&z).unwrap();
    let mut bad = good.clone();
    let mid = bad.len() / 2;
    bad[mid] ^= 4;
    std::fs::write(&z, &bad).unwrap();
    let (code, so, se) = verify(&d);
    assert_ne!(code, 0, "a damaged .adjz beside its .adjt passed: {so}");
    assert!(
        format!("{so}{se}").contains("adjito-start-006.adjz"),
        "{so}{se}"
    );
    // Another level's compressed file under this level's name.
    std::fs::write(&z, &good).unwrap();
    let other = t.path().join("other");
    build_adjito(&other, 7);
    // The `even` rule's level 6 differs from `start`'s: build it, compress
    // it, and give it the `start` name (its header still says `even`).
    ok(&[
        "tables",
        "build",
        "--game",
        "adjito",
        "--loop",
        "even",
        "--max-seeds",
        "6",
        "--dir",
        s(&other),
    ]);
    ok(&[
        "tables",
        "compress",
        "--dir",
        s(&other),
        "--out",
        s(&other),
        "--loop",
        "even",
        "--levels",
        "6",
    ]);
    std::fs::copy(other.join("adjito-even-006.adjz"), &z).unwrap();
    let (code, so, se) = verify(&d);
    assert_ne!(code, 0, "{so}");
    assert!(
        format!("{so}{se}").contains("adjito-start-006.adjz"),
        "{so}{se}"
    );
}

/// Runs `adji ARGS`: exit code, standard output and error.
fn adji_cmd(args: &[&str]) -> (i32, String, String) {
    let out = common::adji().args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into(),
        String::from_utf8_lossy(&out.stderr).into(),
    )
}

/// Defect 4: a write that fails (a full disk) names the file being
/// written, not the compressed file read.
#[test]
fn a_failed_write_names_the_file_written() {
    struct Full;
    impl std::io::Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::from_raw_os_error(28))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let t = tempfile::tempdir().unwrap();
    let z = t.path().join("z");
    raw_and_compressed(t.path(), 5, &z);
    let c = Compressed::open(&z.join("adjito-start-005.adjz"), R, L, 5, OpenCheck::Full).unwrap();
    let to = t.path().join("out/adjito-start-005.adjt");
    let e = stream_raw(&c, &mut Full, &to, &NoProgress)
        .unwrap_err()
        .to_string();
    assert!(e.contains("out/adjito-start-005.adjt"), "{e}");
    assert!(!e.contains(".adjz"), "{e}");
}

/// Defect 6: a crafted file with huge blocks is refused at open (the
/// format uses at most 65,536 entries a block; a round of decoding holds
/// at most `format::ROUND_BYTES` of them), so that 85 KB of file cannot
/// make `tables checksum` hold a GiB.
#[test]
fn block_sizes_beyond_the_format_are_refused() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    build_adjito(&raw, 5);
    // Level 5 (4,368 entries) in one block of the largest size the format
    // takes; then the same file claiming blocks of 2^20 entries, every
    // field consistent (still one block) and the header checksum redone:
    // a file the reader took before, whose decoding held 2^20 bytes a
    // block, 1,024 blocks at a time.
    common::compress(&raw, &z, &["--block", "65536"]);
    let p = z.join("adjito-start-005.adjz");
    Compressed::open(&p, R, L, 5, OpenCheck::Full).unwrap();
    let mut b = std::fs::read(&p).unwrap();
    assert_eq!(u64::from_le_bytes(b[56..64].try_into().unwrap()), 1);
    b[52..56].copy_from_slice(&(1u32 << 20).to_le_bytes());
    let crc = crc32fast::hash(&b[0..124]);
    b[124..128].copy_from_slice(&crc.to_le_bytes());
    std::fs::write(&p, &b).unwrap();
    let e = Compressed::open(&p, R, L, 5, OpenCheck::Header)
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("block size 1048576"), "{e}");
    fails_with(
        &["tables", "checksum", "--dir", s(&z)],
        "block size 1048576",
    );
}

/// Defect 7: a symbolic link to nothing at a level's `.adjz` name does not
/// hide its shards (as at its `.adjt` name).
#[test]
fn a_dangling_compressed_name_falls_through_to_the_shards() {
    let (t, d) = adjito_tables(6);
    ok(&[
        "tables",
        "split",
        "--dir",
        s(&d),
        "--shards",
        "2",
        "--levels",
        "5",
    ]);
    std::fs::remove_file(d.join("adjito-start-005.adjt")).unwrap();
    let pos = "1,0,2,0,0,1/0,1,0,0,0,0 A 20-23";
    let want = ok(&["tables", "probe", "--dir", s(&d), "--position", pos]);
    std::os::unix::fs::symlink(t.path().join("nowhere"), d.join("adjito-start-005.adjz")).unwrap();
    assert_eq!(
        ok(&["tables", "probe", "--dir", s(&d), "--position", pos]),
        want
    );
}

/// Defect 8: split reads compressed levels (and says what it reads when
/// there is nothing to split).
#[test]
fn split_reads_compressed_levels() {
    let t = tempfile::tempdir().unwrap();
    let z = t.path().join("z");
    let raw = raw_and_compressed(t.path(), 6, &z);
    let shards = t.path().join("shards");
    ok(&[
        "tables",
        "split",
        "--dir",
        s(&z),
        "--out",
        s(&shards),
        "--shards",
        "3",
        "--levels",
        "4-6",
    ]);
    let merged = t.path().join("merged");
    ok(&["tables", "merge", "--dir", s(&merged), s(&shards)]);
    for n in 4..=6 {
        let name = format!("adjito-start-{n:03}.adjt");
        assert_eq!(
            std::fs::read(merged.join(&name)).unwrap(),
            std::fs::read(raw.join(&name)).unwrap(),
            "{name}"
        );
    }
    let e = fails_with(
        &["tables", "split", "--dir", s(&shards), "--shards", "2"],
        "split reads those",
    );
    assert!(e.contains("level files or compressed levels"), "{e}");
}

/// Defect 15: `checksum` and `compress` without `--game` take every game
/// the directory holds.
#[test]
fn table_commands_without_a_game_take_every_game_there() {
    let (t, d) = adjito_tables(4);
    ok(&[
        "tables",
        "build",
        "--game",
        "adjiboto",
        "--max-seeds",
        "5",
        "--dir",
        s(&d),
    ]);
    let sums = ok(&["tables", "checksum", "--dir", s(&d)]);
    assert_eq!(sums.lines().count(), 5 + 6, "{sums}");
    assert!(sums.contains("adjiboto-start-005.adjt"), "{sums}");
    let list = t.path().join("list.txt");
    // A list of the Adjito files only: the Adji-Boto ones are unlisted.
    std::fs::write(
        &list,
        sums.lines()
            .filter(|l| l.contains("adjito-"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
    .unwrap();
    let checked = ok(&["tables", "checksum", "--dir", s(&d), "--check", s(&list)]);
    assert!(
        checked.contains("unlisted adjiboto-start-005.adjt"),
        "{checked}"
    );
    let z = t.path().join("z");
    let out = ok(&["tables", "compress", "--dir", s(&d), "--out", s(&z)]);
    assert!(out.contains("adjiboto"), "{out}");
    assert_eq!(
        ok(&["tables", "checksum", "--dir", s(&z)]),
        sums,
        "the compressed levels stand for both games' files"
    );
    fails_with(
        &["tables", "checksum", "--dir", s(&d), "--loop", "even"],
        "no tables for --loop even",
    );
}

/// Defect 16 and a message of 18: `--levels` takes `A-B` and `A..B`
/// everywhere, and compress names the levels asked for that are not there.
#[test]
fn levels_take_both_forms_and_absent_ones_are_named() {
    let (t, d) = adjito_tables(6);
    let compress = |z: &Path, levels: &str| {
        let args = ["tables", "compress", "--dir", s(&d), "--out", s(z)];
        ok(&[&args[..], &["--levels", levels]].concat())
    };
    for levels in ["2-3", "2..3"] {
        let out = t.path().join(format!("s{}", levels.len()));
        ok(&[
            "tables",
            "split",
            "--dir",
            s(&d),
            "--out",
            s(&out),
            "--shards",
            "2",
            "--levels",
            levels,
        ]);
        let c = compress(&t.path().join(format!("z{}", levels.len())), levels);
        assert!(c.contains("2 written"), "{c}");
    }
    let c = compress(&t.path().join("z9"), "5-9");
    assert!(c.contains("not there, so not converted: levels 7-9"), "{c}");
}

/// Defect 9: `--table-cache` is a bound; a budget below what the
/// compressed levels hold at least is refused, naming that minimum.
#[test]
fn a_table_cache_below_the_minimum_is_refused() {
    let t = tempfile::tempdir().unwrap();
    let z = t.path().join("z");
    raw_and_compressed(t.path(), 12, &z);
    let solve = |cache: &str| {
        adji_cmd(&[
            "solve",
            "--position",
            "1,0,2,0,0,1/0,1,0,3,1,0 A 20-19",
            "--tables",
            s(&z),
            "--table-cache",
            cache,
            "--threads",
            "1",
        ])
    };
    for cache in ["1", "1K"] {
        let (code, _, se) = solve(cache);
        assert_ne!(code, 0, "--table-cache {cache}: {se}");
        assert!(se.contains("need at least"), "{se}");
    }
    let (code, so, se) = solve("64M");
    assert_eq!(code, 0, "{se}");
    assert!(so.contains("value"), "{so}");
}
