//! Endgame tables: fast builder == reference solver, index round trips,
//! thread-count independence (the literal loop rule comparison is
//! `adji::literal`'s tests).

use adji::game::{Game, Position, MAX_PITS};
use adji::index::{level_size, next_board, rank, unrank};
use adji::progress::NoProgress;
use adji::reference::Reference;
use adji::tables::retrograde::build_tables;
use adji::tables::TableSet;
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};

fn build<G: Game>(dir: &std::path::Path, rule: LoopRule, max: u32) -> TableSet {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap()
}

fn tables_match_reference<G: Game>(rule: LoopRule, max: u32) {
    let dir = tempfile::tempdir().unwrap();
    let set = build::<G>(dir.path(), rule, max);
    let r = Reference::build::<G>(max, rule);
    let mut checked = 0;
    for n in 0..=max {
        let size = level_size(n as usize, G::PITS);
        let mut board = unrank(0, n as usize, G::PITS);
        for idx in 0..size {
            let pos = Position {
                pits: board,
                side: 0,
                opening: 0,
            };
            assert_eq!(rank(&board, G::PITS), idx);
            let got = set.bounds::<G>(&pos).unwrap();
            let want = r.bounds(&pos);
            assert_eq!(
                got,
                want,
                "{:?} level {n} board {:?}",
                G::ID,
                &board[..G::PITS]
            );
            checked += 1;
            next_board(&mut board, G::PITS);
        }
    }
    assert!(checked > 1000);
}

#[test]
fn adjito_tables_equal_reference_start() {
    tables_match_reference::<Adjito>(LoopRule::Start, 6);
}
#[test]
fn adjito_tables_equal_reference_even() {
    tables_match_reference::<Adjito>(LoopRule::Even, 6);
}
#[test]
fn adjiboto_tables_equal_reference_start() {
    tables_match_reference::<AdjiBoto>(LoopRule::Start, 6);
}
#[test]
fn adjiboto_tables_equal_reference_even() {
    tables_match_reference::<AdjiBoto>(LoopRule::Even, 6);
}

fn round_trip_levels(k: usize, max: usize) {
    for n in 0..=max {
        let size = level_size(n, k);
        let mut b = unrank(0, n, k);
        for idx in 0..size {
            assert_eq!(rank(&b, k), idx);
            assert_eq!(unrank(idx, n, k), b);
            assert_eq!(b.iter().map(|&x| x as usize).sum::<usize>(), n);
            let more = next_board(&mut b, k);
            assert_eq!(more, idx + 1 < size);
        }
    }
}

#[test]
fn index_round_trip_every_entry_up_to_level_12() {
    // Stepping through every board: rank counts 0..size with no gap, unrank
    // inverts rank on every entry, and every board has the level's seeds.
    round_trip_levels(12, 12);
    round_trip_levels(10, 12);
}

#[test]
fn unrank_near_agrees_with_unrank_from_any_hint() {
    use adji::index::unrank_near;
    let mut s = 7u64;
    for (k, n) in [(12usize, 9usize), (10, 14), (12, 20), (10, 40)] {
        let size = level_size(n, k);
        for _ in 0..20_000 {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let (r, h) = ((s >> 11) % size, (s >> 29) % size);
            let near = if s & 1 == 0 {
                unrank(h, n, k)
            } else {
                unrank(r.saturating_sub(s % 50), n, k)
            };
            assert_eq!(
                unrank_near(r, n, k, &near),
                unrank(r, n, k),
                "k {k} n {n} r {r}"
            );
        }
    }
}

#[test]
fn unrank_inverts_rank_on_every_entry_of_small_levels() {
    for k in [10usize, 12] {
        for n in 0..=7 {
            for idx in 0..level_size(n, k) {
                let b = unrank(idx, n, k);
                assert_eq!(b.iter().map(|&x| x as usize).sum::<usize>(), n);
                assert_eq!(rank(&b, k), idx);
                assert!(b[k..MAX_PITS].iter().all(|&x| x == 0));
            }
        }
    }
}

fn thread_independent<G: Game>(max: u32) {
    let mut files = Vec::new();
    for threads in [1, 2] {
        let dir = tempfile::tempdir().unwrap();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| build::<G>(dir.path(), LoopRule::Start, max));
        let bytes: Vec<Vec<u8>> = (0..=max)
            .map(|n| {
                std::fs::read(adji::tables::level_path(
                    dir.path(),
                    G::RULES,
                    LoopRule::Start,
                    n,
                ))
                .unwrap()
            })
            .collect();
        files.push(bytes);
    }
    assert_eq!(files[0], files[1]);
}

#[test]
fn one_and_two_threads_give_identical_files() {
    thread_independent::<Adjito>(9);
    thread_independent::<AdjiBoto>(9);
}

#[test]
fn a_tiny_frontier_cap_spills_to_pending_bits_and_gives_identical_tables() {
    use adji::tables::retrograde::{build_level, build_level_with, BuildConfig};
    for rule in [LoopRule::Start, LoopRule::Even] {
        let dir = tempfile::tempdir().unwrap();
        let set = tables_to::<Adjito>(dir.path(), rule, 8);
        for n in 0..=8 {
            let lower = lower_levels::<Adjito>(dir.path(), rule, n);
            let (lo1, hi1, _) = build_level::<Adjito>(n, &lower, &NoProgress).unwrap();
            let tiny = BuildConfig {
                cap: 16,
                ..BuildConfig::for_size(level_size(n as usize, 12) as usize)
            };
            let (lo2, hi2, rep) =
                build_level_with::<Adjito>(n, &lower, &NoProgress, &tiny).unwrap();
            assert_eq!((lo1, hi1), (lo2, hi2), "level {n}");
            if n >= 6 {
                assert!(rep.spills > 0, "level {n} should have spilled");
            }
        }
        drop(set);
    }
}

/// The tables of levels below `n` in `dir`.
fn lower_levels<G: Game>(dir: &std::path::Path, rule: LoopRule, n: u32) -> TableSet {
    if n == 0 {
        TableSet::empty(G::RULES.tables(), rule)
    } else {
        TableSet::open::<G>(dir, rule, n - 1).unwrap()
    }
}

/// The acyclic pass settles what it can with one event per position; the
/// sweep alone (the version-2 builder) must give the same bounds, here on
/// levels where Adji-Boto's quiet graph has cycles (16, 17) and on Adjito's
/// (whose graph has one giant cycle component).
fn acyclic_pass_changes_nothing<G: Game>(top: u32, levels: std::ops::RangeInclusive<u32>) {
    use adji::tables::retrograde::{build_level_with, BuildConfig};
    let dir = tempfile::tempdir().unwrap();
    tables_to::<G>(dir.path(), LoopRule::Start, top);
    for n in levels {
        let lower = lower_levels::<G>(dir.path(), LoopRule::Start, n);
        let run = |acyclic_pass| {
            let c = BuildConfig {
                cap: 1 << 16,
                acyclic_pass,
                ..BuildConfig::for_size(level_size(n as usize, G::PITS) as usize)
            };
            build_level_with::<G>(n, &lower, &NoProgress, &c).unwrap()
        };
        let (with, without) = (run(true), run(false));
        assert!(with.2.kahn_settled > 0 && without.2.kahn_settled == 0);
        assert!(
            with.0 == without.0 && with.1 == without.1,
            "{:?} level {n}",
            G::ID
        );
    }
}

#[test]
fn the_acyclic_pass_changes_no_bound_adjiboto_cyclic_levels() {
    acyclic_pass_changes_nothing::<AdjiBoto>(16, 16..=17);
}

#[test]
fn the_acyclic_pass_changes_no_bound_adjito() {
    acyclic_pass_changes_nothing::<Adjito>(11, 2..=12);
}

fn tables_to<G: Game>(dir: &std::path::Path, rule: LoopRule, max: u32) -> TableSet {
    build::<G>(dir, rule, max)
}

/// The fast cells (2 bytes a position) and the safe ones (3, with a plane
/// of `hi` bytes) give the same bounds on every level of every rule set
/// under both loop rules; fast mode builds again in safe mode exactly
/// where a loop-sensitive position needs it, which some small Adjito
/// levels do (their files list exceptions) and most levels do not: none
/// without a loop-sensitive position, such as Adji-Boto 16 and 17 (the
/// first levels where the sweep runs below the level's last threshold,
/// which a fast build once skipped).
fn fast_is_safe<G: Game>(max: u32, rule: LoopRule) -> (u32, u32) {
    use adji::tables::retrograde::{build_level_with, BuildConfig};
    let dir = tempfile::tempdir().unwrap();
    tables_to::<G>(dir.path(), rule, max);
    let (mut rebuilt, mut fast) = (0, 0);
    for n in 0..=max {
        let lower = lower_levels::<G>(dir.path(), rule, n);
        let size = level_size(n as usize, G::PITS) as usize;
        let run = |safe| {
            let c = BuildConfig {
                safe,
                ..BuildConfig::for_size(size)
            };
            build_level_with::<G>(n, &lower, &NoProgress, &c).unwrap()
        };
        let (f, s) = (run(false), run(true));
        assert!(s.2.safe, "forced safe mode");
        assert!(
            f.0 == s.0 && f.1 == s.1,
            "{:?} {rule:?} level {n}",
            G::RULES
        );
        if f.2.safe {
            // Only a loop-sensitive position (lo < hi) calls for it.
            assert!(
                f.0.iter().zip(&f.1).any(|(lo, hi)| lo != hi),
                "{:?} {rule:?} level {n} built again without a loop-sensitive position",
                G::RULES
            );
            rebuilt += 1;
        } else {
            fast += 1;
        }
    }
    (rebuilt, fast)
}

#[test]
fn fast_and_safe_cells_give_the_same_levels_in_every_rule_set() {
    use adji::rules::RuleSet;
    let mut seen = (0, 0);
    for rules in RuleSet::ALL {
        for rule in [LoopRule::Start, LoopRule::Even] {
            let max = if rules.game() == adji::rules::GameId::Adjito {
                10
            } else {
                17
            };
            let (r, f) = adji::with_rules!(rules, fast_is_safe(max, rule));
            seen = (seen.0 + r, seen.1 + f);
        }
    }
    assert!(seen.0 > 0, "no level needed the safe rebuild: {seen:?}");
    assert!(seen.1 > seen.0, "most levels build in fast mode: {seen:?}");
}

/// A staged level (its forward pass written to scratch disk, the rest built
/// with the lower levels released; with `grouped`, the forward pass in up
/// to three groups of lower levels, each raising the exits the ones before
/// wrote) is the in-memory build's file byte for byte, in every rule set
/// under both loop rules; the safe rebuild that
/// some small Adjito levels need reads the scratch cells again; no scratch
/// file is left.
fn staged_is_in_memory<G: Game>(max: u32, rule: LoopRule, grouped: bool) -> u32 {
    use adji::tables::retrograde::outofcore::{CellStore, OocConfig};
    use adji::tables::retrograde::{build_tables_planned, plan_within};
    let one = tempfile::tempdir().unwrap();
    tables_to::<G>(one.path(), rule, max);
    let d = tempfile::tempdir().unwrap();
    let mut plan = plan_within::<G>(max, u64::MAX, None).unwrap();
    for l in plan.iter_mut().skip(1) {
        l.staged = true;
        if grouped {
            // The lower levels in up to three groups, level 0 first.
            let k = l.level - 1;
            let (a, b) = (k / 3, 2 * k / 3);
            l.lower_groups = [(0, a), (a + 1, b), (b + 1, k)]
                .into_iter()
                .filter(|&(x, y)| x <= y)
                .collect();
        }
    }
    let ooc = OocConfig {
        shards: 1,
        inbox_bytes: 1 << 20,
        store: CellStore::Kept,
        wide: false,
    };
    let mut safe = 0;
    build_tables_planned::<G>(d.path(), rule, &plan, &ooc, &NoProgress, |e| {
        safe += e.report.as_ref().is_some_and(|r| r.safe) as u32;
    })
    .unwrap();
    let rules = G::RULES.tables();
    for n in 0..=max {
        let want = std::fs::read(adji::tables::level_path(one.path(), rules, rule, n)).unwrap();
        let got = std::fs::read(adji::tables::level_path(d.path(), rules, rule, n)).unwrap();
        assert!(got == want, "{:?} {rule:?} level {n}", G::RULES);
    }
    let left: Vec<_> = std::fs::read_dir(d.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "scratch left: {left:?}");
    safe
}

#[test]
fn staged_levels_are_the_in_memory_files_in_every_rule_set() {
    use adji::rules::RuleSet;
    let mut safe = 0;
    for rules in RuleSet::ALL {
        for rule in [LoopRule::Start, LoopRule::Even] {
            let max = if rules.game() == adji::rules::GameId::Adjito {
                10
            } else {
                17
            };
            for grouped in [false, true] {
                safe += adji::with_rules!(rules, staged_is_in_memory(max, rule, grouped));
            }
        }
    }
    assert!(safe > 0, "no staged level was built again in safe mode");
}

/// A run whose last level reads its lower levels in groups keeps the
/// levels mapped between levels; each level before it that reads them all
/// at once copies them into memory first, the compressed ones kept from
/// an earlier run and the raw ones just built: a compressed level read
/// mapped decodes a block a lookup (Adji-Boto 43 from compressed 0–42 ran
/// for hours). Failed before the fix: the forward passes read them
/// mapped, and `lower_mapped_bytes` counted them.
#[test]
fn levels_before_a_grouped_level_read_their_lower_levels_in_memory() {
    use adji::tables::compressed::{Codec, Transform};
    use adji::tables::retrograde::outofcore::{CellStore, OocConfig};
    use adji::tables::retrograde::{build_tables_compressed, plan_within, BuildEvent, LevelPlan};
    let (first, max) = (8, 12);
    let d = tempfile::tempdir().unwrap();
    let build = |plan: &[LevelPlan], on_level: &mut dyn FnMut(&BuildEvent)| {
        let codec = Codec {
            block: 4096,
            level: 3,
            transform: Transform::None,
        };
        let ooc = OocConfig {
            shards: 1,
            inbox_bytes: 1 << 20,
            store: CellStore::Kept,
            wide: false,
        };
        let (dir, rule) = (d.path(), LoopRule::Start);
        build_tables_compressed::<AdjiBoto>(
            dir,
            rule,
            plan,
            &ooc,
            Some(codec),
            &NoProgress,
            on_level,
        )
        .unwrap();
    };
    build(
        &plan_within::<AdjiBoto>(first, u64::MAX, None).unwrap(),
        &mut |_| {},
    );
    let mut plan = plan_within::<AdjiBoto>(max, u64::MAX, None).unwrap();
    let last = plan.last_mut().unwrap();
    last.staged = true;
    last.lower_groups = vec![(0, 5), (6, max - 1)];
    let mut mapped = Vec::new();
    build(&plan, &mut |e| {
        if let Some(r) = &e.report {
            mapped.push((e.level, r.lower_mapped_bytes));
        }
    });
    let built: Vec<u32> = mapped.iter().map(|m| m.0).collect();
    assert_eq!(built, (first + 1..=max).collect::<Vec<_>>());
    assert!(mapped.iter().all(|m| m.1 == 0), "read mapped: {mapped:?}");
    let set = TableSet::open::<AdjiBoto>(d.path(), LoopRule::Start, max).unwrap();
    let ref_dir = tempfile::tempdir().unwrap();
    let want = tables_to::<AdjiBoto>(ref_dir.path(), LoopRule::Start, max);
    for n in first - 1..=max {
        let mut board = unrank(0, n as usize, AdjiBoto::PITS);
        for _ in 0..level_size(n as usize, AdjiBoto::PITS) {
            let pos = Position {
                pits: board,
                side: 0,
                opening: 0,
            };
            assert_eq!(set.bounds::<AdjiBoto>(&pos), want.bounds::<AdjiBoto>(&pos));
            next_board(&mut board, AdjiBoto::PITS);
        }
    }
}
