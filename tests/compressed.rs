//! Compressed levels (issue 39) through the library: compress and
//! decompress round trips on every level the tests build of every rule
//! set and loop rule, directories that mix raw, sharded and compressed
//! levels, and a search on compressed tables against raw ones.

use std::path::Path;

use adji::adjito::{AdjitoMustReach, AdjitoSlamForbidden};
use adji::game::{Game, Position};
use adji::index::unrank;
use adji::progress::NoProgress;
use adji::rules::RuleSet;
use adji::search::{Limits, Options, Searcher};
use adji::tables::compressed::{format as zformat, Codec, Transform};
use adji::tables::convert::compress::{plan, run, Direction};
use adji::tables::convert::split_level;
use adji::tables::locate::{levels_present, locate_level, LevelAt};
use adji::tables::retrograde::build_tables;
use adji::tables::verify::{verify_dir, VerifyOptions};
use adji::tables::{level_path, TableSet};
use adji::tt::AtomicTable;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

mod common;
use common::lcg;

/// Small blocks, so that even small levels have several.
const SMALL: Codec = Codec {
    block: 500,
    level: 3,
    transform: Transform::None,
};

fn convert(from: &Path, to: &Path, rules: RuleSet, rule: LoopRule, d: Direction) -> usize {
    let p = plan(from, to, rules, rule, None, d).unwrap();
    let todo = p.jobs.iter().filter(|j| !j.done).count();
    run(&p, rules, rule, &NoProgress, |_| {}).unwrap();
    todo
}

/// Builds `G`'s tables 0..=max, compresses them with `codec`, decompresses
/// them: the level files come back byte for byte, every probe of the
/// compressed set equals the raw set's, and a second run does nothing.
fn round_trip<G: Game>(rule: LoopRule, max: u32, codec: Codec) {
    let t = tempfile::tempdir().unwrap();
    let (raw, z, back) = (
        t.path().join("raw"),
        t.path().join("z"),
        t.path().join("back"),
    );
    let rules = G::RULES.tables();
    let set = build_tables::<G>(&raw, rule, max, &NoProgress, |_| {}).unwrap();
    assert_eq!(
        convert(&raw, &z, rules, rule, Direction::Compress(codec)),
        max as usize + 1
    );
    assert_eq!(
        convert(&raw, &z, rules, rule, Direction::Compress(codec)),
        0,
        "resumed"
    );
    assert_eq!(
        convert(&z, &back, rules, rule, Direction::Decompress),
        max as usize + 1
    );
    assert_eq!(
        convert(&z, &back, rules, rule, Direction::Decompress),
        0,
        "resumed"
    );
    let zset = TableSet::open::<G>(&z, rule, max).unwrap();
    for n in 0..=max {
        let name = level_path(&raw, rules, rule, n);
        let a = std::fs::read(&name).unwrap();
        assert_eq!(
            a,
            std::fs::read(level_path(&back, rules, rule, n)).unwrap(),
            "{rules:?} {rule:?} {n}"
        );
        assert!(!level_path(&z, rules, rule, n).exists());
        let (r, c) = (set.level(n).unwrap(), zset.level(n).unwrap());
        assert!(c.is_compressed() && c.codec() == Some(codec));
        for i in 0..r.len() {
            assert_eq!(
                c.bound_bytes(i),
                r.bound_bytes(i),
                "{rules:?} {rule:?} {n} rank {i}"
            );
        }
    }
}

#[test]
fn every_rule_set_and_loop_rule_round_trips_byte_identical() {
    for rule in [LoopRule::Start, LoopRule::Even] {
        round_trip::<Adjito>(rule, 10, SMALL);
        round_trip::<AdjitoMustReach>(rule, 10, SMALL);
        round_trip::<AdjitoSlamForbidden>(rule, 10, SMALL);
        round_trip::<AdjiBoto>(rule, 12, SMALL);
    }
    // Every rule set with tables of its own was covered.
    assert_eq!(RuleSet::families().count(), 4);
}

#[test]
fn the_chosen_codec_and_a_transform_round_trip() {
    round_trip::<Adjito>(LoopRule::Start, 11, Codec::chosen());
    round_trip::<AdjiBoto>(
        LoopRule::Start,
        12,
        Codec {
            transform: Transform::Delta,
            ..SMALL
        },
    );
}

/// A directory of Adjito levels 0..=9 in every form: 0-3 raw, 4-6
/// compressed, 7 sharded, 8 raw beside a damaged compressed file (the
/// raw file wins), 9 compressed beside its shards (the compressed file
/// wins). Returns the raw directory's set and the mixed directory.
fn mixed(t: &Path) -> (TableSet, std::path::PathBuf) {
    let (raw, z, mix) = (t.join("raw"), t.join("z"), t.join("mix"));
    let (rules, rule) = (RuleSet::AdjitoDefault, LoopRule::Start);
    let set = build_tables::<Adjito>(&raw, rule, 9, &NoProgress, |_| {}).unwrap();
    convert(&raw, &z, rules, rule, Direction::Compress(SMALL));
    std::fs::create_dir(&mix).unwrap();
    let copy = |from: &Path, n: u32, compressed: bool| {
        let name = |d: &Path| {
            if compressed {
                zformat::level_path(d, rules, rule, n)
            } else {
                level_path(d, rules, rule, n)
            }
        };
        std::fs::copy(name(from), name(&mix)).unwrap();
    };
    for n in 0..=3 {
        copy(&raw, n, false);
    }
    for n in 4..=6 {
        copy(&z, n, true);
    }
    split_level(&raw, &mix, rules, rule, 7, 3).unwrap();
    copy(&raw, 8, false);
    let mut bad = std::fs::read(zformat::level_path(&z, rules, rule, 8)).unwrap();
    bad.truncate(bad.len() / 2);
    std::fs::write(zformat::level_path(&mix, rules, rule, 8), bad).unwrap();
    copy(&z, 9, true);
    split_level(&raw, &mix, rules, rule, 9, 2).unwrap();
    (set, mix)
}

#[test]
fn a_directory_mixing_raw_sharded_and_compressed_levels_reads_as_raw() {
    let t = tempfile::tempdir().unwrap();
    let (set, mix) = mixed(t.path());
    let (rules, rule) = (RuleSet::AdjitoDefault, LoopRule::Start);
    let present = levels_present(&mix, rules, rule).unwrap();
    assert_eq!(present.levels, (0..=9).collect::<Vec<_>>());
    let at = |n| locate_level(&mix, rules, rule, n);
    assert!(matches!(at(2), LevelAt::File(_)));
    assert!(matches!(at(5), LevelAt::Compressed(_)));
    assert!(matches!(at(7), LevelAt::Shards(_)));
    assert!(matches!(at(8), LevelAt::File(_)), "the raw file wins");
    assert!(
        matches!(at(9), LevelAt::Compressed(_)),
        "compressed wins over shards"
    );
    let m = TableSet::open_available::<Adjito>(&mix, rule).unwrap();
    assert_eq!(m.covered(), 10);
    for n in 0..=9 {
        let (a, b) = (set.level(n).unwrap(), m.level(n).unwrap());
        assert_eq!(b.is_compressed(), matches!(n, 4..=6 | 9), "level {n}");
        assert_eq!(b.is_sharded(), n == 7, "level {n}");
        assert_eq!(a.planes().unwrap(), b.planes().unwrap(), "level {n}");
    }
    let report = verify_dir::<Adjito>(&mix, rule, &VerifyOptions::default(), |_| {}).unwrap();
    assert_eq!(report.levels.len(), 10);
    // Every form of a level is checked (issue 49): the truncated `.adjz`
    // beside level 8's good level file is a bad file, named (it passed
    // before, and was read once the level file was gone).
    assert!(
        report.levels[..8].iter().all(|v| v.ok()),
        "{:?}",
        report.levels
    );
    match &report.levels[8].outcome {
        adji::tables::verify::LevelOutcome::BadFile(e) => {
            assert!(e.to_string().contains("adjito-start-008.adjz"), "{e}")
        }
        o => panic!("level 8: {o:?}"),
    }
    // Compressing the mixed directory reads every form (shards, and
    // compressed levels re-encoded); decompressed, it gives the raw files.
    let (z2, back) = (t.path().join("z2"), t.path().join("back"));
    let chosen = Direction::Compress(Codec::chosen());
    assert_eq!(convert(&mix, &z2, rules, rule, chosen), 10);
    assert_eq!(convert(&z2, &back, rules, rule, Direction::Decompress), 10);
    for n in 0..=9 {
        let name = |d: &Path| level_path(d, rules, rule, n);
        let raw = std::fs::read(name(&t.path().join("raw"))).unwrap();
        assert_eq!(raw, std::fs::read(name(&back)).unwrap(), "level {n}");
    }
    // The damaged compressed level 8 alone is refused, naming its file.
    let only = t.path().join("only8");
    std::fs::create_dir(&only).unwrap();
    for n in 0..=7 {
        let name = |d: &Path| level_path(d, rules, rule, n);
        std::fs::copy(name(&t.path().join("raw")), name(&only)).unwrap();
    }
    let z8 = |d: &Path| zformat::level_path(d, rules, rule, 8);
    std::fs::copy(z8(&mix), z8(&only)).unwrap();
    let e = TableSet::open_available::<Adjito>(&only, rule)
        .err()
        .expect("a damaged level is an error");
    assert!(e.to_string().contains("adjito-start-008.adjz"), "{e}");
}

#[test]
fn a_search_on_compressed_tables_equals_one_on_raw_tables() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    let rule = LoopRule::Start;
    let set = build_tables::<Adjito>(&raw, rule, 9, &NoProgress, |_| {}).unwrap();
    convert(
        &raw,
        &z,
        RuleSet::AdjitoDefault,
        rule,
        Direction::Compress(Codec::chosen()),
    );
    let zset = TableSet::open::<Adjito>(&z, rule, 9).unwrap();
    assert!(zset.level(9).unwrap().is_compressed());
    let opts = Options {
        rule,
        parallel: false,
        limits: Limits::default(),
        pv_max: 4,
        ..Options::default()
    };
    let mut seed = 7;
    for k in 0..12 {
        let n = 11 + k % 2;
        let size = adji::index::level_size(n, Adjito::PITS);
        let pos = Position {
            pits: unrank(lcg(&mut seed) % size, n, Adjito::PITS),
            side: 0,
            opening: 0,
        };
        let (tt1, tt2) = (AtomicTable::new(4), AtomicTable::new(4));
        let a = Searcher::<Adjito, _>::new(Some(&set), &tt1, opts)
            .unwrap()
            .analyse(&pos);
        let b = Searcher::<Adjito, _>::new(Some(&zset), &tt2, opts)
            .unwrap()
            .analyse(&pos);
        assert!(a.value.exact());
        assert_eq!(
            (a.value.lower, a.value.upper),
            (b.value.lower, b.value.upper),
            "{pos:?}"
        );
        assert_eq!(a.stats.nodes, b.stats.nodes, "{pos:?}");
        let mv = |x: &adji::search::Analysis| {
            x.moves
                .iter()
                .map(|m| (m.mv.0, m.value.lower))
                .collect::<Vec<_>>()
        };
        assert_eq!(mv(&a), mv(&b), "{pos:?}");
    }
}

#[test]
fn a_build_keeps_compressed_lower_levels_and_builds_on_them() {
    let t = tempfile::tempdir().unwrap();
    let (raw, z) = (t.path().join("raw"), t.path().join("z"));
    let (rules, rule) = (RuleSet::AdjiBotoDefault, LoopRule::Start);
    build_tables::<AdjiBoto>(&raw, rule, 11, &NoProgress, |_| {}).unwrap();
    let p = plan(
        &raw,
        &z,
        rules,
        rule,
        Some((0, 10)),
        Direction::Compress(SMALL),
    )
    .unwrap();
    run(&p, rules, rule, &NoProgress, |_| {}).unwrap();
    build_tables::<AdjiBoto>(&z, rule, 11, &NoProgress, |_| {}).unwrap();
    for n in 0..=10 {
        assert!(
            !level_path(&z, rules, rule, n).exists(),
            "level {n} kept compressed"
        );
    }
    let name = |d: &Path| level_path(d, rules, rule, 11);
    assert_eq!(
        std::fs::read(name(&raw)).unwrap(),
        std::fs::read(name(&z)).unwrap()
    );
}
