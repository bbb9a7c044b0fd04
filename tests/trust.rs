//! Issue 49, defect 1: a damaged compressed block is never a value. With
//! `--trust-tables` a level is opened without reading its blocks, so the
//! damage is met only when a probe decodes the block: the command (or the
//! server's answer) then fails naming the file and the block (it reported
//! the loop rule's score as an exact value before the fix).

use std::path::{Path, PathBuf};

mod common;
mod server_util;
use common::{adji, s};

/// Defects 2-9, 15 and 16: the files of a table directory.
#[path = "trust/files.rs"]
mod files;

/// Where the block index starts in a `.adjz` file, and its entry size.
const INDEX_AT: usize = 128 + 64;
const INDEX_ENTRY: usize = 12;

/// Flips one bit in the middle of every block of the `.adjz` file `p`
/// (the block checksums left as they were); returns the number of blocks.
pub fn damage_every_block(p: &Path) -> usize {
    let mut b = std::fs::read(p).unwrap();
    let blocks = u64::from_le_bytes(b[56..64].try_into().unwrap()) as usize;
    let at = |i: usize| {
        let o = INDEX_AT + i * INDEX_ENTRY;
        u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize
    };
    let mids: Vec<usize> = (0..blocks).map(|i| (at(i) + at(i + 1)) / 2).collect();
    for m in mids {
        b[m] ^= 0x10;
    }
    std::fs::write(p, b).unwrap();
    blocks
}

/// Adjito tables 0..=9 compressed in blocks of 700 into `t/z`, every
/// block of level 9 damaged.
fn damaged_level_9(t: &Path) -> PathBuf {
    let z = t.join("z");
    common::compressed_adjito(&t.join("raw"), 9, &z);
    let blocks = damage_every_block(&z.join("adjito-start-009.adjz"));
    assert!(blocks > 3, "{blocks} blocks");
    z
}

/// Nine-seed positions (level 9), each mover.
const NINE: [&str; 6] = [
    "1,0,2,0,0,1/0,1,0,3,1,0 A 20-19",
    "2,1,0,0,1,0/0,0,3,0,1,1 A 19-20",
    "0,0,1,1,1,1/1,1,1,1,1,0 B 24-15",
    "3,0,0,0,0,0/0,0,0,0,0,6 A 30-9",
    "0,2,0,2,0,1/1,0,1,0,2,0 B 9-30",
    "1,1,1,1,1,1/0,0,0,1,1,1 A 20-19",
];

/// Runs `args`: it must fail with no panic, naming the damaged file and a
/// block; returns its standard output.
fn refused(args: &[&str]) -> String {
    let out = adji().args(args).output().unwrap();
    let (so, se) = (
        String::from_utf8_lossy(&out.stdout).to_string(),
        String::from_utf8_lossy(&out.stderr).to_string(),
    );
    assert!(!out.status.success(), "{args:?} gave an answer: {so}{se}");
    assert!(!se.contains("panicked"), "{args:?}: {se}");
    assert!(
        se.contains("adjito-start-009.adjz") && se.contains("block "),
        "{args:?}: stderr {se}"
    );
    so
}

#[test]
fn solve_and_analyse_refuse_a_damaged_block_instead_of_a_value() {
    let t = tempfile::tempdir().unwrap();
    let z = damaged_level_9(t.path());
    for pos in NINE {
        for cmd in ["solve", "analyse"] {
            let so = refused(&[
                cmd,
                "--position",
                pos,
                "--tables",
                s(&z),
                "--trust-tables",
                "--threads",
                "1",
            ]);
            assert!(!so.contains("value"), "{cmd} {pos}: {so}");
        }
    }
    // Fully checked (the default), the level is refused when opened.
    let e = common::fails_with(
        &["solve", "--position", NINE[0], "--tables", s(&z)],
        "block 0",
    );
    assert!(e.contains("adjito-start-009.adjz"), "{e}");
}

#[test]
fn a_search_that_reaches_a_damaged_level_from_above_is_refused() {
    // An 11-seed position: level 9 is reached by captures, deep in the
    // search, not at the root.
    let t = tempfile::tempdir().unwrap();
    let z = damaged_level_9(t.path());
    refused(&[
        "solve",
        "--position",
        "2,0,1,0,0,2/0,1,0,3,1,1 A 20-17",
        "--tables",
        s(&z),
        "--trust-tables",
        "--threads",
        "2",
    ]);
}

/// The same for Adji-Boto under `--loop even` (the damage is the tables',
/// whatever the game and rule).
#[test]
fn an_adjiboto_even_search_refuses_a_damaged_block() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    let build = [
        "tables",
        "build",
        "--game",
        "adjiboto",
        "--loop",
        "even",
        "--max-seeds",
        "9",
    ];
    common::ok(&[&build[..], &["--dir", s(&raw)]].concat());
    common::compress(&raw, &z, &["--block", "700", "--loop", "even"]);
    assert!(damage_every_block(&z.join("adjiboto-even-009.adjz")) > 3);
    let out = adji()
        .args([
            "solve",
            "--game",
            "adjiboto",
            "--loop",
            "even",
            "--trust-tables",
        ])
        .args([
            "--position",
            "1,2,0,1,1/0,3,0,1,0 0 45-46 main",
            "--tables",
            s(&z),
        ])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("adjiboto-even-009.adjz") && err.contains("block "),
        "{err}"
    );
}

#[test]
fn openings_refuse_a_damaged_block() {
    let t = tempfile::tempdir().unwrap();
    let z = damaged_level_9(t.path());
    refused(&[
        "openings",
        "--position",
        "2,0,1,0,0,2/0,1,0,3,1,1 A 20-17",
        "--plies",
        "1",
        "--exact",
        "--tables",
        s(&z),
        "--trust-tables",
        "--threads",
        "1",
        "--out",
        s(&t.path().join("book")),
    ]);
    // Nothing of the refused run is reported (the checkpoint keeps only
    // the positions searched before the damage was met).
    assert!(!t.path().join("book").join("lines.csv").exists());
}

/// The web server refuses too: a probe and a solve that reach the damaged
/// block answer 500 naming it, never a value.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_refuses_a_damaged_block() {
    let t = tempfile::tempdir().unwrap();
    let z = damaged_level_9(t.path());
    let s = server_util::start(adji::server::Config {
        tables: Some(z),
        check: adji::tables::OpenCheck::Header,
        ..server_util::small(1, 4, 10)
    })
    .await;
    for route in ["probe", "solve"] {
        for pos in NINE {
            let (st, v) = s.api(route, &[("position", pos)]).await;
            assert_eq!(st, 500, "{route} {pos}: {v}");
            let e = v["error"].as_str().unwrap();
            assert!(
                e.contains("adjito-start-009.adjz") && e.contains("block "),
                "{e}"
            );
        }
    }
}
