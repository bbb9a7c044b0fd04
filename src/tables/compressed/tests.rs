//! Tests of compressed levels against damaged files: truncation, flipped
//! bits, an index pointing outside the file, headers of another game,
//! rule set, loop rule or level, and a fuzz of mutations (none may
//! panic; each is one clear error naming the file and, for a block, the
//! block).

use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::format::{level_path as zpath, write_compressed, Codec, INDEX_AT, INDEX_ENTRY};
use super::*;
use crate::games::adjiboto::AdjiBoto;
use crate::games::adjito::Adjito;
use crate::progress::NoProgress;
use crate::rules::RuleSet;
use crate::tables::format::level_path;
use crate::tables::retrograde::build_tables;
use crate::tables::{OpenCheck, Table, TableError};
use crate::value::LoopRule;

const R: RuleSet = RuleSet::AdjitoDefault;
const L: LoopRule = LoopRule::Start;
/// The level the damage tests use: 1,365 positions (C(14, 3)… of 12
/// pits: C(19, 11) = 75,582) in blocks of 4,096, several blocks.
const LEVEL: u32 = 8;
const SMALL: Codec = Codec {
    block: 4096,
    level: 3,
    transform: Transform::Delta,
};

/// Adjito tables 0..=8 and the compressed level 8 (and its raw table),
/// built once per test binary.
fn fixture() -> &'static (tempfile::TempDir, PathBuf, Vec<u8>) {
    static F: std::sync::OnceLock<(tempfile::TempDir, PathBuf, Vec<u8>)> =
        std::sync::OnceLock::new();
    F.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        build_tables::<Adjito>(dir.path(), L, LEVEL, &NoProgress, |_| {}).unwrap();
        let raw = level_path(dir.path(), R, L, LEVEL);
        let t = Table::open(&raw, R, L, LEVEL, 12).unwrap();
        let z = dir.path().join("good.adjz");
        write_compressed(&t, &z, SMALL, &|_| {}).unwrap();
        let bytes = std::fs::read(&z).unwrap();
        (dir, raw, bytes)
    })
}

/// Writes `bytes` as level `level`'s compressed file in a new directory
/// and opens it with `check`.
fn open_bytes(
    bytes: &[u8],
    rules: RuleSet,
    rule: LoopRule,
    level: u32,
    check: OpenCheck,
) -> (tempfile::TempDir, PathBuf, Result<Table, TableError>) {
    let dir = tempfile::tempdir().unwrap();
    let p = zpath(dir.path(), R, L, LEVEL);
    std::fs::write(&p, bytes).unwrap();
    let t = Table::open_compressed(&p, rules, rule, level, check);
    (dir, p, t)
}

fn open_good(
    bytes: &[u8],
    check: OpenCheck,
) -> (tempfile::TempDir, PathBuf, Result<Table, TableError>) {
    open_bytes(bytes, R, L, LEVEL, check)
}

/// The error's message names `path`.
fn names(e: &TableError, path: &Path) -> String {
    let m = e.to_string();
    assert!(m.contains(&path.display().to_string()), "{m}");
    m
}

#[test]
fn every_probe_equals_the_raw_table_and_the_file_decodes_byte_identical() {
    let (_d, raw, good) = fixture();
    let t = Table::open(raw, R, L, LEVEL, 12).unwrap();
    let (_z, p, z) = open_good(good, OpenCheck::Full);
    let z = z.unwrap();
    assert!(z.is_compressed() && z.codec() == Some(SMALL));
    assert!(z.len() > 4 * 4096, "several blocks");
    for i in (0..t.len()).rev() {
        assert_eq!(z.bound_bytes(i), t.bound_bytes(i), "rank {i}");
        assert_eq!(z.bounds(i), t.bounds(i), "rank {i}");
    }
    assert_eq!(z.planes().unwrap(), t.planes().unwrap());
    let mem = z.into_memory().unwrap();
    assert!(!mem.is_compressed());
    assert_eq!(mem.raw_header(), t.raw_header());
    let mut out = Vec::new();
    let c = Compressed::open(&p, R, L, LEVEL, OpenCheck::Header).unwrap();
    crate::tables::convert::compress::stream_raw(&c, &mut out, Path::new("out"), &NoProgress)
        .unwrap();
    assert_eq!(out, std::fs::read(raw).unwrap());
}

#[test]
fn probes_from_many_threads_agree_with_the_raw_table() {
    use rayon::prelude::*;
    let (_d, raw, good) = fixture();
    let t = Table::open(raw, R, L, LEVEL, 12).unwrap();
    let (_z, p, _) = open_good(good, OpenCheck::Header);
    // A level this small gets a slot a block; three slots for its 19
    // blocks make the threads evict each other's blocks all the time.
    let c = Compressed::open(&p, R, L, LEVEL, OpenCheck::Header)
        .unwrap()
        .with_cache(3);
    assert!(c.blocks() > 3);
    let n = t.len();
    let bad = (0..8 * n)
        .into_par_iter()
        .filter(|&k| {
            let i = (k * 7919) % n;
            let (lo, hi) = t.bound_bytes(i).unwrap();
            c.byte(i).ok() != Some(crate::tables::format::value_byte(lo, hi))
        })
        .count();
    assert_eq!(bad, 0);
    // The whole cache (a small level's at open): every thread's first
    // probe of a block races to fill its slot, and all read the same.
    let mut w = Compressed::open(&p, R, L, LEVEL, OpenCheck::Header).unwrap();
    assert!(w.has_whole_cache(), "a small level is cached whole");
    assert_eq!(
        w.cache_bytes(),
        n as u64 + w.blocks(),
        "a byte an entry and one a block"
    );
    let bad = (0..8 * n)
        .into_par_iter()
        .filter(|&k| {
            let i = (k * 7919) % n;
            let (lo, hi) = t.bound_bytes(i).unwrap();
            w.byte(i).ok() != Some(crate::tables::format::value_byte(lo, hi))
        })
        .count();
    assert_eq!(bad, 0);
    w.set_whole_cache(false);
    assert!(!w.has_whole_cache());
    let slots = reader::CACHE_SLOTS.min(w.blocks() as usize) as u64;
    assert_eq!(w.cache_bytes(), (slots * 4096).min(n as u64));
    assert!((0..n).all(|i| {
        let (lo, hi) = t.bound_bytes(i).unwrap();
        w.byte(i).ok() == Some(crate::tables::format::value_byte(lo, hi))
    }));
}

#[test]
fn truncated_files_are_refused_naming_the_file() {
    let (_d, _raw, good) = fixture();
    for len in [
        0,
        7,
        11,
        100,
        INDEX_AT - 1,
        INDEX_AT + 5,
        good.len() / 2,
        good.len() - 1,
    ] {
        let (_z, p, r) = open_good(&good[..len], OpenCheck::Header);
        let e = r.expect_err(&format!("length {len}"));
        let m = names(&e, &p);
        assert!(
            matches!(
                e,
                TableError::Truncated { .. }
                    | TableError::Corrupted { .. }
                    | TableError::NotATable { .. }
            ),
            "{len}: {m}"
        );
    }
}

#[test]
fn a_flipped_bit_in_a_block_names_the_block() {
    let (_d, _raw, good) = fixture();
    let c = {
        let (_z, p, _) = open_good(good, OpenCheck::Header);
        let c = Compressed::open(&p, R, L, LEVEL, OpenCheck::Header).unwrap();
        (c.blocks(), format::entry(&good[INDEX_AT..], 2).0)
    };
    let mut bad = good.clone();
    bad[c.1 as usize + 3] ^= 0x10;
    // A full open finds it.
    let (_z, p, r) = open_good(&bad, OpenCheck::Full);
    let m = names(&r.unwrap_err(), &p);
    assert!(m.contains("block 2: checksum mismatch"), "{m}");
    // A header-only open does not read blocks; the block's own check
    // refuses it when decoded, and a probe never panics nor gives a value
    // (issue 49: it gave the widest bounds, which a search read as a
    // loop-sensitive entry worth the loop rule's score).
    let (_z, p, r) = open_good(&bad, OpenCheck::Header);
    let t = r.unwrap();
    let c = Compressed::open(&p, R, L, LEVEL, OpenCheck::Header).unwrap();
    let m = names(&c.check_blocks().unwrap_err(), &p);
    assert!(m.contains("block 2: checksum mismatch"), "{m}");
    assert!(t.damage().is_none());
    assert_eq!(t.bounds(2 * 4096 + 1), None);
    assert_eq!(t.value(2 * 4096 + 1, 0), None);
    assert_eq!(t.bound_bytes(2 * 4096 + 1), None);
    let m = t.damage().expect("the damage is recorded").to_string();
    assert!(m.contains("block 2: checksum mismatch"), "{m}");
    assert!(m.contains(&*p.to_string_lossy()), "{m}");
    // The blocks around it still answer.
    assert!(t.bounds(4096).is_some() && t.bounds(3 * 4096).is_some());
    let mut v = vec![0u8; 10];
    let e = t.values_into(2 * 4096, &mut v).unwrap_err().to_string();
    assert!(e.contains("block 2"), "{e}");
}

#[test]
fn an_index_pointing_outside_the_file_is_refused() {
    let (_d, _raw, good) = fixture();
    let mut bad = good.clone();
    let e = INDEX_AT + 3 * INDEX_ENTRY;
    bad[e..e + 8].copy_from_slice(&(good.len() as u64 * 2).to_le_bytes());
    // Re-sign the index so that only the offset is wrong.
    let blocks = u64::from_le_bytes(bad[56..64].try_into().unwrap()) as usize;
    let crc = crc32fast::hash(&bad[INDEX_AT..INDEX_AT + INDEX_ENTRY * (blocks + 1)]);
    bad[68..72].copy_from_slice(&crc.to_le_bytes());
    let hc = crc32fast::hash(&bad[0..124]);
    bad[124..128].copy_from_slice(&hc.to_le_bytes());
    let (_z, p, r) = open_good(&bad, OpenCheck::Header);
    let m = names(&r.unwrap_err(), &p);
    assert!(m.contains("block") && m.contains("outside"), "{m}");
    // Unsigned, the index's checksum catches it first.
    let mut bad = good.clone();
    bad[e..e + 8].copy_from_slice(&u64::MAX.to_le_bytes());
    let (_z, p, r) = open_good(&bad, OpenCheck::Header);
    let m = names(&r.unwrap_err(), &p);
    assert!(m.contains("block index checksum"), "{m}");
}

#[test]
fn headers_of_another_game_rule_set_loop_rule_or_level_are_refused() {
    let (_d, _raw, good) = fixture();
    let (_z, _, r) = open_bytes(good, RuleSet::AdjiBotoDefault, L, LEVEL, OpenCheck::Header);
    assert!(matches!(r, Err(TableError::WrongGame { .. })), "{r:?}");
    let (_z, _, r) = open_bytes(good, RuleSet::AdjitoMustReach, L, LEVEL, OpenCheck::Header);
    assert!(matches!(r, Err(TableError::WrongRules { .. })), "{r:?}");
    let (_z, _, r) = open_bytes(good, R, LoopRule::Even, LEVEL, OpenCheck::Header);
    assert!(matches!(r, Err(TableError::WrongRule { .. })), "{r:?}");
    let (_z, _, r) = open_bytes(good, R, L, LEVEL + 1, OpenCheck::Header);
    assert!(matches!(r, Err(TableError::WrongLevel { .. })), "{r:?}");
    // A raw level file under the compressed name is not a compressed file.
    let (_z, p, r) = open_good(&std::fs::read(&fixture().1).unwrap(), OpenCheck::Header);
    assert!(matches!(r, Err(TableError::NotATable { .. })), "{r:?}");
    let _ = p;
}

#[test]
fn adjiboto_levels_with_board_transforms_round_trip() {
    let dir = tempfile::tempdir().unwrap();
    build_tables::<AdjiBoto>(dir.path(), L, 9, &NoProgress, |_| {}).unwrap();
    let rules = RuleSet::AdjiBotoDefault;
    let raw = level_path(dir.path(), rules, L, 9);
    let t = Table::open(&raw, rules, L, 9, 10).unwrap();
    for transform in Transform::ALL {
        let codec = Codec {
            block: 1000,
            level: 1,
            transform,
        };
        let z = dir.path().join(format!("{}.adjz", transform.name()));
        write_compressed(&t, &z, codec, &|_| {}).unwrap();
        let c = Table::open_compressed(&z, rules, L, 9, OpenCheck::Full).unwrap();
        for i in 0..t.len() {
            assert_eq!(c.bound_bytes(i), t.bound_bytes(i), "{transform:?} rank {i}");
        }
    }
}

/// How many mutated files the fuzz opens and probes.
const FUZZ_CASES: u32 = 3000;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(FUZZ_CASES))]

    /// Any truncation and up to four byte changes of a valid file: open
    /// (both depths) and, when it opens, probe every block; never a
    /// panic, and a full open of a changed file either refuses it or
    /// gives the raw table's values.
    #[test]
    fn mutated_files_never_panic(
        cut in prop::option::of(0usize..1_000_000),
        edits in prop::collection::vec((0usize..1_000_000, any::<u8>()), 0..4),
    ) {
        let (_d, raw, good) = fixture();
        let mut b = good.clone();
        for (at, x) in edits {
            let at = if at % 2 == 0 { at % INDEX_AT.max(1) } else { at % b.len() };
            b[at] = x;
        }
        if let Some(c) = cut {
            b.truncate(c % (good.len() + 1));
        }
        let t = Table::open(raw, R, L, LEVEL, 12).unwrap();
        for check in [OpenCheck::Header, OpenCheck::Full] {
            let (_z, _p, r) = open_good(&b, check);
            if let Ok(z) = r {
                for i in (0..z.len()).step_by(997) {
                    let got = z.bounds(i);
                    if check == OpenCheck::Full {
                        prop_assert_eq!(got, t.bounds(i));
                    }
                }
            }
        }
    }
}
