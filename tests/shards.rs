//! Sharded levels (issue 27): shards written by the library read exactly
//! as the level file, merge back to it byte for byte, and every broken
//! shard set is one clear error.

use std::path::{Path, PathBuf};

use adji::game::Game;
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::tables::convert::{merge_level, split_level, Merged};
use adji::tables::format;
use adji::tables::retrograde::build_tables;
use adji::tables::shard::{
    self, check_shard, manifest_path, write_manifest, write_shard_with, Place,
};
use adji::tables::{OpenCheck, Table, TableError, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

/// Builds `G`'s levels `0..=max` in a new directory.
fn built<G: Game>(rule: LoopRule, max: u32) -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    build_tables::<G>(d.path(), rule, max, &NoProgress, |_| {}).unwrap();
    d
}

/// Splits every level `0..=max` of `dir` into `k` shards in `out`.
fn split_all<G: Game>(dir: &Path, out: &Path, rule: LoopRule, max: u32, k: u32) {
    for n in 0..=max {
        split_level(dir, out, G::RULES, rule, n, k).unwrap();
    }
}

/// Every entry of every level reads the same from both sets.
fn same_entries(a: &TableSet, b: &TableSet) {
    assert_eq!(a.covered(), b.covered());
    for n in 0..a.covered() {
        let (x, y) = (a.level(n).unwrap(), b.level(n).unwrap());
        assert!(!x.is_sharded() && y.is_sharded());
        assert_eq!(x.header, y.header, "level {n}");
        assert_eq!(x.len(), y.len());
        for i in 0..x.len() {
            assert_eq!(x.bounds(i), y.bounds(i), "level {n} rank {i}");
            assert_eq!(x.value(i, 3), y.value(i, 3), "level {n} rank {i}");
        }
        assert_eq!(x.planes().unwrap(), y.planes().unwrap(), "level {n}");
    }
}

#[test]
fn sharded_levels_read_and_merge_like_level_files() {
    let rule = LoopRule::Start;
    let d = built::<Adjito>(rule, 9);
    let s = tempfile::tempdir().unwrap();
    // 7 shards: level 0 (one entry) and level 1 get empty shards.
    split_all::<Adjito>(d.path(), s.path(), rule, 9, 7);
    let a = TableSet::open_available::<Adjito>(d.path(), rule).unwrap();
    let b = TableSet::open_available::<Adjito>(s.path(), rule).unwrap();
    same_entries(&a, &b);
    let b = b.into_memory().unwrap();
    same_entries(&a, &b);
    let found =
        adji::tables::locate::levels_present(s.path(), RuleSet::AdjitoDefault, rule).unwrap();
    assert_eq!(found.levels, (0..=9).collect::<Vec<_>>());
    let m = tempfile::tempdir().unwrap();
    for n in 0..=9 {
        let dirs = [s.path().to_path_buf()];
        let r = merge_level(&dirs, m.path(), RuleSet::AdjitoDefault, rule, n).unwrap();
        assert!(matches!(r, Merged::Written(_)));
        let name = format::file_name(RuleSet::AdjitoDefault, rule, n);
        let want = std::fs::read(d.path().join(&name)).unwrap();
        assert_eq!(std::fs::read(m.path().join(&name)).unwrap(), want, "{name}");
        let again = merge_level(&dirs, m.path(), RuleSet::AdjitoDefault, rule, n).unwrap();
        assert!(matches!(again, Merged::Kept(_)));
    }
}

#[test]
fn shards_spread_over_directories_merge_and_a_missing_one_is_named() {
    let rule = LoopRule::Even;
    let d = built::<AdjiBoto>(rule, 8);
    let s = tempfile::tempdir().unwrap();
    split_all::<AdjiBoto>(d.path(), s.path(), rule, 8, 3);
    // Shard i of every level to rank directory i; a manifest copy in each.
    let ranks: Vec<PathBuf> = (0..3).map(|i| s.path().join(format!("rank-{i}"))).collect();
    for r in &ranks {
        std::fs::create_dir(r).unwrap();
    }
    let rules = RuleSet::AdjiBotoDefault;
    for n in 0..=8 {
        for i in 0..3 {
            let name = shard::shard_name(rules, rule, n, i, 3);
            std::fs::rename(s.path().join(&name), ranks[i as usize].join(&name)).unwrap();
            let mp = manifest_path(s.path(), rules, rule, n);
            std::fs::copy(&mp, manifest_path(&ranks[i as usize], rules, rule, n)).unwrap();
        }
    }
    let out = tempfile::tempdir().unwrap();
    for n in 0..=8 {
        merge_level(&ranks, out.path(), rules, rule, n).unwrap();
        let name = format::file_name(rules, rule, n);
        assert_eq!(
            std::fs::read(out.path().join(&name)).unwrap(),
            std::fs::read(d.path().join(&name)).unwrap()
        );
    }
    // Opened from one rank's directory, the other shards are missing.
    let e = Table::open(
        &format::level_path(&ranks[0], rules, rule, 8),
        rules,
        rule,
        8,
        10,
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, TableError::Shards { .. })
            && msg.contains("shard-00001-of-00003")
            && msg.contains("missing"),
        "{msg}"
    );
    // A manifest copy that differs is refused, naming both.
    let bad_out = tempfile::tempdir().unwrap();
    let other = tempfile::tempdir().unwrap();
    split_level(d.path(), other.path(), rules, rule, 8, 2).unwrap();
    std::fs::copy(
        manifest_path(other.path(), rules, rule, 8),
        manifest_path(&ranks[2], rules, rule, 8),
    )
    .unwrap();
    let e = merge_level(&ranks, bad_out.path(), rules, rule, 8)
        .unwrap_err()
        .to_string();
    assert!(e.contains("differs from the manifest"), "{e}");
}

/// Opens level `n` of the Adjito default tables in `dir`, checked in full.
fn open(dir: &Path, n: u32) -> Result<Table, TableError> {
    Table::open_checked(
        &format::level_path(dir, RuleSet::AdjitoDefault, LoopRule::Start, n),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        n,
        12,
        OpenCheck::Full,
    )
}

#[test]
fn broken_shards_are_one_clear_error_never_a_panic() {
    let rule = LoopRule::Start;
    let rules = RuleSet::AdjitoDefault;
    let d = built::<Adjito>(rule, 6);
    let fresh = || {
        let s = tempfile::tempdir().unwrap();
        split_level(d.path(), s.path(), rules, rule, 6, 3).unwrap();
        s
    };
    let shard1 = |s: &Path| shard::shard_path(s, rules, rule, 6, 1, 3);
    // A flipped value byte: the shard's checksum.
    let s = fresh();
    let mut b = std::fs::read(shard1(s.path())).unwrap();
    b[70] ^= 1;
    std::fs::write(shard1(s.path()), &b).unwrap();
    let e = open(s.path(), 6).unwrap_err().to_string();
    assert!(
        e.contains("shard-00001-of-00003") && e.contains("checksum"),
        "{e}"
    );
    let total = adji::index::level_size(6, 12);
    let (first, end) = (total / 3, 2 * total / 3);
    let place = Place::new(1, 3, first..end);
    let e = check_shard(s.path(), rules, rule, 6, place).unwrap_err();
    assert!(e.to_string().contains("shard checksum mismatch"), "{e}");
    let good = d.path().join("good");
    split_level(d.path(), &good, rules, rule, 6, 3).unwrap();
    assert!(check_shard(&good, rules, rule, 6, place).is_ok());
    // Truncated.
    let s = fresh();
    let b = std::fs::read(shard1(s.path())).unwrap();
    std::fs::write(shard1(s.path()), &b[..b.len() - 1]).unwrap();
    let e = open(s.path(), 6).unwrap_err();
    assert!(matches!(e, TableError::Truncated { .. }), "{e}");
    // A shard of another level in its place.
    let s = fresh();
    split_level(d.path(), s.path(), rules, rule, 5, 3).unwrap();
    std::fs::copy(
        shard::shard_path(s.path(), rules, rule, 5, 1, 3),
        shard1(s.path()),
    )
    .unwrap();
    let e = open(s.path(), 6).unwrap_err();
    assert!(matches!(e, TableError::WrongLevel { .. }), "{e}");
    // A shard of another rule set.
    let s = fresh();
    let other = tempfile::tempdir().unwrap();
    let info = write_shard_with(
        other.path(),
        RuleSet::AdjitoMustReach,
        rule,
        6,
        Place::new(1, 3, 0..1),
        &|_| (0, 0),
    )
    .unwrap();
    std::fs::copy(other.path().join(info.file), shard1(s.path())).unwrap();
    let e = open(s.path(), 6).unwrap_err();
    assert!(matches!(e, TableError::WrongRules { .. }), "{e}");
    // Garbage instead of the manifest.
    let s = fresh();
    std::fs::write(manifest_path(s.path(), rules, rule, 6), b"\xff\xfe garbage").unwrap();
    let e = open(s.path(), 6).unwrap_err().to_string();
    assert!(e.contains("shards.json") && e.contains("manifest"), "{e}");
    // Overlapping shards written by a builder are refused at the manifest.
    let s = fresh();
    let a = write_shard_with(s.path(), rules, rule, 6, Place::new(0, 2, 0..10), &|_| {
        (0, 0)
    });
    let b = write_shard_with(s.path(), rules, rule, 6, Place::new(1, 2, 9..109), &|_| {
        (0, 0)
    });
    let (a, b) = (a.unwrap(), b.unwrap());
    let e = write_manifest(s.path(), rules, rule, 6, &[a, b])
        .unwrap_err()
        .to_string();
    assert!(e.contains("overlap"), "{e}");
    // The level file wins over a manifest in the same directory.
    let s = fresh();
    std::fs::copy(
        format::level_path(d.path(), rules, rule, 6),
        format::level_path(s.path(), rules, rule, 6),
    )
    .unwrap();
    std::fs::write(manifest_path(s.path(), rules, rule, 6), b"garbage").unwrap();
    assert!(!open(s.path(), 6).unwrap().is_sharded());
}
