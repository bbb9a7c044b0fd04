//! Don't-care levels against the raw tables: every position of the small
//! levels of every rule set, under both loop rules, probed through the
//! levels below equals the raw table; the whole level read back (as
//! `tables checksum` and `decompress` read it) is the raw file byte for
//! byte; read alone, without the levels below, it is refused.

use std::path::Path;

use super::*;
use crate::progress::NoProgress;
use crate::tables::compressed::format::{level_path as zpath, write_compressed_with, Codec};
use crate::tables::convert::compress::stream_raw;
use crate::tables::format::level_path;
use crate::tables::retrograde::build_tables;
use crate::tables::{Table, TableError};

/// Small blocks, so that a level has many and the fill meets their ends.
const CODEC: Codec = Codec {
    block: 500,
    level: 3,
    transform: Transform::DontCare,
};

/// Builds levels `0..=max` raw in `raw`, and writes each don't-care
/// compressed into `z` (the levels below read from `raw`). Returns how
/// many stored bytes differ from the values: the filled entries.
fn build_both<G: Game>(raw: &Path, z: &Path, rule: LoopRule, max: u32) -> u64 {
    build_tables::<G>(raw, rule, max, &NoProgress, |_| {}).unwrap();
    let rules = G::RULES.tables();
    let below = lower(raw, rules, rule, 1 << 24).unwrap();
    let mut filled = 0;
    for n in 0..=max {
        let t = Table::open(&level_path(raw, rules, rule, n), rules, rule, n, G::PITS).unwrap();
        let out = zpath(z, rules, rule, n);
        write_compressed_with(&t, &out, CODEC, Some(below.as_ref()), &|_| {}).unwrap();
        let c = Table::open_compressed(&out, rules, rule, n, OpenCheck::Full).unwrap();
        assert!(c.dont_care());
        let (mut s, mut v) = (vec![0u8; t.len()], vec![0u8; t.len()]);
        c.stored_into(0, &mut s).unwrap();
        t.values_into(0, &mut v).unwrap();
        filled += s.iter().zip(&v).filter(|(a, b)| a != b).count() as u64;
    }
    filled
}

/// Every position of levels `0..=max` probed through the don't-care
/// levels equals the raw tables, and each level read whole is its raw
/// file.
fn same_tables<G: Game>(rule: LoopRule, max: u32) {
    let (raw, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let filled = build_both::<G>(raw.path(), z.path(), rule, max);
    assert!(filled > 0, "{:?}: no entry was filled", G::RULES);
    let a = TableSet::open_available::<G>(raw.path(), rule).unwrap();
    let b = TableSet::open_available::<G>(z.path(), rule).unwrap();
    assert_eq!(b.covered(), max + 1);
    let rules = G::RULES.tables();
    for n in 0..=max {
        let count = a.level(n).unwrap().len() as u64;
        for (_, pos) in level_positions::<G>(n, 0..count) {
            assert_eq!(b.bounds::<G>(&pos), a.bounds::<G>(&pos), "{pos:?}");
            assert_eq!(b.value::<G>(&pos), a.value::<G>(&pos), "{pos:?}");
        }
        let c = crate::tables::compressed::Compressed::open(
            &zpath(z.path(), rules, rule, n),
            rules,
            rule,
            n,
            OpenCheck::Full,
        )
        .unwrap();
        let mut whole = Vec::new();
        stream_raw(&c, &mut whole, Path::new("out"), &NoProgress).unwrap();
        let file = std::fs::read(level_path(raw.path(), rules, rule, n)).unwrap();
        assert!(whole == file, "{:?} level {n} read whole", G::RULES);
    }
    assert!(!b.damaged());
}

/// Every rule set under both loop rules, with the largest small level
/// the tests build for its game.
fn every_rule_set() -> impl Iterator<Item = (RuleSet, LoopRule, u32)> {
    RuleSet::ALL.into_iter().flat_map(|rules| {
        let max = match rules.game() {
            crate::game::GameId::Adjito => 8,
            crate::game::GameId::AdjiBoto => 10,
        };
        [LoopRule::Start, LoopRule::Even].map(|rule| (rules, rule, max))
    })
}

#[test]
fn probes_through_dont_care_levels_equal_the_raw_tables_in_every_rule_set() {
    for (rules, rule, max) in every_rule_set() {
        crate::with_rules!(rules, G => same_tables::<G>(rule, max));
    }
}

/// The writer's free entries, found a batch at a time on packed boards
/// in either word ([`Below::free_packed`]), are exactly the entries whose
/// value is their capture bound as [`capture_bound`] finds it one
/// position at a time, with the levels below raw or themselves don't
/// care (read with cuts); a block may start at any rank.
fn free_is_the_capture_bound<G: Game>(rule: LoopRule, max: u32) {
    let (raw, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    build_both::<G>(raw.path(), z.path(), rule, max);
    let rules = G::RULES.tables();
    let mut free_seen = 0;
    for dir in [raw.path(), z.path()] {
        let set = TableSet::open_available::<G>(dir, rule).unwrap();
        let below = Below::<G> {
            set: TableSet::open_available::<G>(dir, rule).unwrap(),
            dir: dir.to_path_buf(),
            game: PhantomData,
        };
        for n in 0..=max {
            let t = Table::open(
                &level_path(raw.path(), rules, rule, n),
                rules,
                rule,
                n,
                G::PITS,
            )
            .unwrap();
            let len = t.len();
            let mut v = vec![0u8; len];
            t.values_into(0, &mut v).unwrap();
            let want: Vec<Option<i8>> = level_positions::<G>(n, 0..len as u64)
                .zip(&v)
                .map(|((_, pos), &b)| {
                    let e = capture_bound::<G>(&set, &pos).unwrap();
                    (b as i8 != EXCEPTION && e == Some(b as i8 as i32)).then_some(b as i8)
                })
                .collect();
            free_seen += want.iter().filter(|f| f.is_some()).count();
            let mut wide = vec![None; len];
            below.free_packed::<u128>(n, 0, &v, &mut wide).unwrap();
            assert_eq!(wide, want, "{:?} level {n}, 128 bits", G::RULES);
            let (a, b) = (len / 3, len - len / 5);
            let got = below.free(n, a as u64, &v[a..b]).unwrap();
            assert_eq!(got, want[a..b], "{:?} level {n}, ranks {a}..{b}", G::RULES);
        }
    }
    assert!(free_seen > 0, "{:?}: no entry is free", G::RULES);
}

#[test]
fn free_entries_are_those_whose_value_is_the_capture_bound_in_every_rule_set() {
    for (rules, rule, max) in every_rule_set() {
        crate::with_rules!(rules, G => free_is_the_capture_bound::<G>(rule, max));
    }
}

#[test]
fn a_dont_care_level_alone_is_refused_never_read_as_values() {
    use crate::Adjito;
    let (raw, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let (rules, rule, n) = (Adjito::RULES, LoopRule::Start, 7);
    build_both::<Adjito>(raw.path(), z.path(), rule, n);
    let path = zpath(z.path(), rules, rule, n);
    let t = Table::open_compressed(&path, rules, rule, n, OpenCheck::Full).unwrap();
    let mut v = vec![0u8; 10];
    assert!(matches!(
        t.values_into(0, &mut v),
        Err(TableError::DontCare { .. })
    ));
    assert_eq!(t.bounds(0), None);
    assert!(t.damage().unwrap().to_string().contains("don't-care"));
    let t = Table::open_compressed(&path, rules, rule, n, OpenCheck::Full).unwrap();
    assert!(t.into_memory().is_err());
    // Without a level below in its directory, it is not read whole.
    std::fs::remove_file(zpath(z.path(), rules, rule, 3)).unwrap();
    let c = crate::tables::compressed::Compressed::open(&path, rules, rule, n, OpenCheck::Full)
        .unwrap();
    let r = stream_raw(&c, &mut Vec::new(), Path::new("out"), &NoProgress);
    assert!(r.is_err(), "{r:?}");
}

#[test]
fn fillings_keep_every_value_and_allow_only_bytes_at_most_the_bound() {
    let values = [5u8, 3, 7, (-2i8) as u8, 4, 4];
    let free = [None, Some(3), None, Some(-2), Some(4), None];
    for how in Fill::ALL {
        let f = fill(&values, &free, 9, how);
        assert!(keeps(&values, &free, &f), "{how:?}");
        for i in 0..values.len() {
            match free[i] {
                None => assert_eq!(f[i], values[i]),
                Some(v) => assert!((-9..=v).contains(&(f[i] as i8))),
            }
        }
    }
    // The fewest runs: 5 | 3 | 7 | -2 -2 (the free 4 joins the -2) | 4.
    assert_eq!(fill(&values, &free, 9, Fill::Runs), [5, 3, 7, 254, 254, 4]);
    assert_eq!(
        fill(&values, &free, 9, Fill::Lowest),
        [5, 247, 7, 247, 247, 4]
    );
    // A byte above a free entry's value, or a changed fixed one, is caught.
    assert!(!keeps(&values, &free, &[5, 4, 7, 254, 254, 4]));
    assert!(!keeps(&values, &free, &[6, 3, 7, 254, 254, 4]));
}

#[test]
fn kept_values_have_codes_no_stored_byte_uses() {
    for v in -63..=63 {
        assert_eq!(classify(kept_code(v)), DcByte::Value(v), "{v}");
    }
    for s in (-63i8..=63).chain([EXCEPTION]) {
        assert_eq!(classify(s as u8), DcByte::Stored(s as u8), "{s}");
    }
}

/// How many damaged don't-care files the fuzz opens and probes.
const FUZZ_CASES: u32 = 400;

/// Adjito tables 0..=8 raw, and the same levels don't-care compressed,
/// built once per test binary.
fn fuzz_fixture() -> &'static (tempfile::TempDir, tempfile::TempDir) {
    static F: std::sync::OnceLock<(tempfile::TempDir, tempfile::TempDir)> =
        std::sync::OnceLock::new();
    F.get_or_init(|| {
        let (raw, z) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        build_both::<crate::Adjito>(raw.path(), z.path(), LoopRule::Start, 8);
        (raw, z)
    })
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(FUZZ_CASES))]

    /// Any truncation and up to four byte changes of a don't-care level
    /// (level 8, its levels below intact): opened with either depth of
    /// check, it is refused, or every probe through it gives the raw
    /// table's bounds or none (damage recorded), never another value;
    /// opened in full, a file that opens gives the raw bounds.
    #[test]
    fn damaged_dont_care_levels_are_refused_never_read_as_values(
        cut in proptest::option::of(0usize..1_000_000),
        edits in proptest::collection::vec((0usize..1_000_000, proptest::prelude::any::<u8>()), 0..4),
    ) {
        use crate::Adjito;
        let (raw, z) = fuzz_fixture();
        let (rules, rule) = (Adjito::RULES, LoopRule::Start);
        let dir = tempfile::tempdir().unwrap();
        for n in 0..8 {
            let name = zpath(z.path(), rules, rule, n);
            std::fs::copy(&name, zpath(dir.path(), rules, rule, n)).unwrap();
        }
        let mut b = std::fs::read(zpath(z.path(), rules, rule, 8)).unwrap();
        let len = b.len();
        for (at, x) in edits {
            let at = if at % 2 == 0 { at % 256 } else { at % len };
            b[at] = x;
        }
        if let Some(c) = cut {
            b.truncate(c % (len + 1));
        }
        std::fs::write(zpath(dir.path(), rules, rule, 8), &b).unwrap();
        let want = TableSet::open_available::<Adjito>(raw.path(), rule).unwrap();
        for check in [OpenCheck::Header, OpenCheck::Full] {
            let Ok(set) = TableSet::open_available_checked::<Adjito>(dir.path(), rule, check) else {
                continue;
            };
            if set.covered() < 9 {
                continue;
            }
            let count = set.level(8).unwrap().len() as u64;
            for (_, pos) in level_positions::<Adjito>(8, 0..count).step_by(37) {
                let got = set.bounds::<Adjito>(&pos);
                if check == OpenCheck::Full {
                    proptest::prop_assert_eq!(got, want.bounds::<Adjito>(&pos));
                } else if got.is_some() {
                    proptest::prop_assert_eq!(got, want.bounds::<Adjito>(&pos));
                } else {
                    proptest::prop_assert!(set.damaged());
                }
            }
        }
    }
}
