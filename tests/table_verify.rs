//! `tables verify` on what the tests build: full and sampled checks pass on
//! good tables and find a changed entry, a wrong block, holes, bad files and
//! another fixpoint that the successor check alone would accept.

use std::path::Path;

use adji::game::GameId;
use adji::rules::RuleSet;
use adji::tables::verify::{verify_dir, verify_level, LevelOutcome, VerifyOptions};
use adji::tables::{level_path, TableError, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

mod common;
use common::tables::{build, open, verify_adjito};

#[test]
fn verify_passes_on_built_tables() {
    let dir = tempfile::tempdir().unwrap();
    for rule in [LoopRule::Start, LoopRule::Even] {
        let a = build::<Adjito>(dir.path(), rule, 9);
        for n in 0..=9 {
            assert_eq!(verify_level::<Adjito>(&a, n, 3).unwrap().1, 0);
        }
        let b = build::<AdjiBoto>(dir.path(), rule, 9);
        for n in 0..=9 {
            assert_eq!(verify_level::<AdjiBoto>(&b, n, 3).unwrap().1, 0);
        }
    }
}

#[test]
fn verify_detects_a_changed_entry() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 6);
    // Rewrite level 6 with one entry changed and a correct checksum.
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 6).unwrap();
    let (mut lo, mut hi) = t.planes().unwrap();
    drop(t);
    assert_eq!(lo[100], hi[100]);
    lo[100] = lo[100].wrapping_add(2);
    hi[100] = lo[100];
    adji::tables::format::write_level(
        dir.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        6,
        &lo,
        &hi,
    )
    .unwrap();
    let set = TableSet::open::<Adjito>(dir.path(), LoopRule::Start, 6).unwrap();
    let (bad, count) = verify_level::<Adjito>(&set, 6, 5).unwrap();
    assert!(count >= 1);
    assert_eq!(bad[0].index, 100);
}

#[test]
fn verify_dir_reports_mismatches_holes_and_bad_files() {
    // Issue 8, D1/D2: every failure is visible in the report, so the
    // command line can exit non-zero.
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 7);
    let opts = VerifyOptions::default();
    let rep = verify_dir::<Adjito>(dir.path(), LoopRule::Start, &opts, |_| {}).unwrap();
    assert!(rep.passed(), "{rep:?}");
    assert_eq!(rep.levels.len(), 8);
    assert!(rep
        .levels
        .iter()
        .all(|l| matches!(l.outcome, LevelOutcome::Ok { .. })));

    // Two entries of level 5 set to 7 with both checksums recomputed.
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 5).unwrap();
    let (mut lo, mut hi) = t.planes().unwrap();
    drop(t);
    for i in [10, 20] {
        // A possible value (within ±5), but not theirs.
        let v = if lo[i] as i8 == 5 { 3 } else { 5 };
        lo[i] = v;
        hi[i] = v;
    }
    adji::tables::format::write_level(
        dir.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        5,
        &lo,
        &hi,
    )
    .unwrap();
    let mut seen = Vec::new();
    let all = VerifyOptions {
        max_report: 100_000,
        ..VerifyOptions::default()
    };
    let rep =
        verify_dir::<Adjito>(dir.path(), LoopRule::Start, &all, |l| seen.push(l.level)).unwrap();
    assert!(!rep.passed());
    assert_eq!(seen, (0..=7).collect::<Vec<_>>());
    match &rep.levels[5].outcome {
        LevelOutcome::Mismatches { count, first } => {
            assert!(*count >= 2);
            assert_eq!(first.len() as u64, *count);
            assert!(first.iter().any(|m| m.index == 10) && first.iter().any(|m| m.index == 20));
        }
        o => panic!("level 5: {o:?}"),
    }
    // The levels above are not recomputed on a bad level: they say so.
    assert!(matches!(
        rep.levels[6].outcome,
        LevelOutcome::NotRecomputed { .. }
    ));

    // A hole: level 5 deleted. Level 5 is missing; 6 and 7 are not recomputed.
    std::fs::remove_file(level_path(
        dir.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        5,
    ))
    .unwrap();
    let rep = verify_dir::<Adjito>(dir.path(), LoopRule::Start, &opts, |_| {}).unwrap();
    assert!(!rep.passed());
    assert_eq!(rep.levels.len(), 8);
    assert!(matches!(rep.levels[5].outcome, LevelOutcome::Missing));
    assert!(matches!(
        rep.levels[7].outcome,
        LevelOutcome::NotRecomputed { .. }
    ));
    assert!(rep.failures() >= 1);

    // An empty directory has nothing to verify.
    let empty = tempfile::tempdir().unwrap();
    let rep = verify_dir::<Adjito>(empty.path(), LoopRule::Start, &opts, |_| {}).unwrap();
    assert!(rep.levels.is_empty());
}

#[test]
fn verify_level_refuses_an_uncovered_level() {
    let dir = tempfile::tempdir().unwrap();
    let set = build::<Adjito>(dir.path(), LoopRule::Start, 3);
    assert!(verify_level::<Adjito>(&set, 3, 1).is_ok());
    assert!(matches!(
        verify_level::<Adjito>(&set, 4, 1),
        Err(TableError::Missing { level: 4, .. })
    ));
}

#[test]
fn a_sampled_verify_checks_part_of_a_level_and_finds_a_wrong_block() {
    use adji::tables::verify::{verify_sample, SAMPLE_BLOCK};
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 9);
    let set = TableSet::open::<Adjito>(dir.path(), LoopRule::Start, 9).unwrap();
    let (m, c, checked) = verify_sample::<Adjito>(&set, 9, 5000, 5).unwrap();
    assert_eq!((m.len(), c), (0, 0));
    assert!((5000..5000 + SAMPLE_BLOCK).contains(&checked), "{checked}");
    // A level smaller than the sample is verified whole.
    assert_eq!(verify_sample::<Adjito>(&set, 4, 5000, 5).unwrap().2, 1365);
    // Every entry changed: any sample finds mismatches.
    let (mut lo, mut hi) = set.level(9).unwrap().planes().unwrap();
    drop(set);
    for i in 0..lo.len() {
        // Each a possible value (within ±9), but not its own.
        let v = lo[i] as i8;
        if lo[i] == hi[i] && (-9..=6).contains(&v) {
            (lo[i], hi[i]) = ((v + 3) as u8, (v + 3) as u8);
        }
    }
    adji::tables::format::write_level(
        dir.path(),
        RuleSet::AdjitoDefault,
        LoopRule::Start,
        9,
        &lo,
        &hi,
    )
    .unwrap();
    let opts = VerifyOptions {
        sample: Some(3000),
        ..VerifyOptions::default()
    };
    let rep = verify_dir::<Adjito>(dir.path(), LoopRule::Start, &opts, |_| {}).unwrap();
    assert!(matches!(
        rep.levels[9].outcome,
        LevelOutcome::Mismatches { .. }
    ));
    assert!(matches!(
        rep.levels[8].outcome,
        LevelOutcome::Ok { checked: 3072, .. }
    ));
}

/// Item 1: a level with fewer entries than a sample block (Adjito level 3:
/// 364 entries) asked for a smaller sample made the block placement divide
/// by zero.
#[test]
fn a_sample_of_a_level_smaller_than_a_block_checks_the_level_whole() {
    let dir = tempfile::tempdir().unwrap();
    let set = build::<Adjito>(dir.path(), LoopRule::Start, 5);
    for n in 0..=5 {
        let size = set.level(n).unwrap().len() as u64;
        for sample in [1, 100, size.saturating_sub(1).max(1), size] {
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                adji::tables::verify::verify_sample::<Adjito>(&set, n, sample, 5)
            }));
            let (m, c, checked) = r.expect("no panic").unwrap();
            assert_eq!((m.len(), c), (0, 0), "level {n} sample {sample}");
            assert!(checked >= sample.min(size), "level {n} sample {sample}");
        }
    }
}

/// Rewrites Adjito level 3 of `dir` (built to 5) with another solution of
/// the same successor equations: every loop-sensitive entry `(lo, hi)`
/// becomes `(v, v)` with `v = clamp(0, lo, hi)`, its value when endless
/// play scores 0 for everyone. By docs/RULES.md §4 a quiet move is then
/// worth `clamp(0, −hi(c), −lo(c)) = −v(c)`, so `v(p) = max(E(p), −v(c))`
/// holds everywhere: each entry still equals its recomputation from its
/// successors, but `lo` is no longer the least fixpoint nor `hi` the
/// greatest. Returns the ranks rewritten.
fn rewrite_with_another_fixpoint(dir: &Path) -> Vec<usize> {
    let t = open(dir, GameId::Adjito, LoopRule::Start, 3).unwrap();
    let (mut lo, mut hi) = t.planes().unwrap();
    let mut changed = Vec::new();
    for i in 0..t.len() {
        let b = t.bounds(i).unwrap();
        if b.loop_sensitive() {
            let v = b.value(0) as i8 as u8;
            (lo[i], hi[i]) = (v, v);
            changed.push(i);
        }
    }
    drop(t);
    adji::tables::format::write_level(dir, RuleSet::AdjitoDefault, LoopRule::Start, 3, &lo, &hi)
        .unwrap();
    changed
}

/// Item 2: a level rewritten with another solution of the same successor
/// equations (the exception `(lo, hi) = (−3, 1)` of the position
/// becomes `(0, 0)`) passes
/// the successor check, and `solve` then reports a wrong exact value; only
/// a recomputation of the fixpoints catches it.
#[test]
fn verify_refuses_another_fixpoint_that_the_successor_check_accepts() {
    let dir = tempfile::tempdir().unwrap();
    // Level 3 on top: the levels above capture into it and would see its
    // values change (under `start`, a loop-sensitive value depends on w).
    let set = build::<Adjito>(dir.path(), LoopRule::Start, 3);
    let st = adji::notation::parse_state::<Adjito>(
        "0,0,0,1,0,1/0,0,0,0,1,0 B 22-23",
        adji::notation::Stores::Required,
    )
    .unwrap();
    let b = set.bounds::<Adjito>(&st.pos).unwrap();
    assert_eq!((b.lo, b.hi), (-3, 1));
    let t = set.level(3).unwrap();
    let before: Vec<_> = (0..t.len()).map(|i| t.bounds(i)).collect();
    drop(set);
    let changed = rewrite_with_another_fixpoint(dir.path());
    assert!(!changed.is_empty());
    let set = TableSet::open::<Adjito>(dir.path(), LoopRule::Start, 3).unwrap();
    // The position of the issue: (−3, 1) in the built file, (0, 0) now.
    let r = adji::index::rank(&st.pos.pits, 12) as usize;
    assert!(changed.contains(&r), "{changed:?}");
    let b = set.bounds::<Adjito>(&st.pos).unwrap();
    assert_eq!((b.lo, b.hi), (0, 0));
    // The successor check (all the old verify did) passes on every level.
    for n in 0..=3 {
        assert_eq!(
            verify_level::<Adjito>(&set, n, 5).unwrap().1,
            0,
            "level {n}"
        );
    }
    drop(set);
    let rep = verify_adjito(dir.path());
    assert!(!rep.passed(), "{rep:?}");
    assert!(rep.levels[..3].iter().all(|l| l.ok()), "{rep:?}");
    match &rep.levels[3].outcome {
        LevelOutcome::NotFixpoints(m) => {
            assert_eq!(m.count, changed.len() as u64);
            assert_eq!(m.first.index, changed[0] as u64);
            assert_eq!(Some(m.first.recomputed), before[changed[0]]);
        }
        o => panic!("level 3: {o:?}"),
    }
    // The rebuild needs what a build of the level needs: refused over budget.
    let tight = VerifyOptions {
        memory: 1 << 20,
        ..VerifyOptions::default()
    };
    let r = verify_dir::<Adjito>(dir.path(), LoopRule::Start, &tight, |_| {});
    assert!(
        matches!(r, Err(TableError::OverBudget { level: 3, .. })),
        "{r:?}"
    );
    // The command line says which entry and fails.
    let out = assert_cmd::Command::cargo_bin("adji")
        .unwrap()
        .args(["tables", "verify", "--game", "adjito", "--dir"])
        .arg(dir.path())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    let text = format!("{}{err}", String::from_utf8_lossy(&out.stdout));
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(err.contains("adjito-start-003.adjt"), "{err}");
    assert!(text.contains(&format!("rank {}", changed[0])), "{text}");
}
