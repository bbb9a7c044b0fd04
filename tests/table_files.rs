//! Table files: every kind of bad file gives a typed error, never a panic;
//! resume keeps finished levels; verify passes on what the tests build.

use std::path::Path;

use adji::game::{Game, GameId};
use adji::progress::NoProgress;
use adji::tables::build::build_tables;
use adji::tables::format::{Header, HEADER_LEN};
use adji::tables::verify::verify_level;
use adji::tables::{level_path, Table, TableError, TableSet};
use adji::value::LoopRule;
use adji::{AdjiBoto, Adjito};
use proptest::prelude::*;

fn build<G: Game>(dir: &Path, rule: LoopRule, max: u32) -> TableSet {
    build_tables::<G>(dir, rule, max, &NoProgress, |_| {}).unwrap()
}

fn open(dir: &Path, game: GameId, rule: LoopRule, level: u32) -> Result<Table, TableError> {
    let pits = if game == GameId::Adjito { 12 } else { 10 };
    Table::open(&level_path(dir, game, rule, level), game, rule, level, pits)
}

#[test]
fn verify_passes_on_built_tables() {
    let dir = tempfile::tempdir().unwrap();
    for rule in [LoopRule::Start, LoopRule::Even] {
        let a = build::<Adjito>(dir.path(), rule, 9);
        for n in 0..=9 {
            assert_eq!(verify_level::<Adjito>(&a, n, 3).1, 0);
        }
        let b = build::<AdjiBoto>(dir.path(), rule, 9);
        for n in 0..=9 {
            assert_eq!(verify_level::<AdjiBoto>(&b, n, 3).1, 0);
        }
    }
}

#[test]
fn verify_detects_a_changed_entry() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 6);
    // Rewrite level 6 with one lo byte changed and a correct checksum.
    let t = open(dir.path(), GameId::Adjito, LoopRule::Start, 6).unwrap();
    let (mut lo, hi) = t.planes();
    drop(t);
    lo[100] = lo[100].wrapping_add(2);
    adji::tables::format::write_level(dir.path(), GameId::Adjito, LoopRule::Start, 6, &lo, &hi)
        .unwrap();
    let set = TableSet::open::<Adjito>(dir.path(), LoopRule::Start, 6).unwrap();
    let (bad, count) = verify_level::<Adjito>(&set, 6, 5);
    assert!(count >= 1);
    assert_eq!(bad[0].index, 100);
}

#[test]
fn bad_files_give_typed_errors() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 4);
    let p = level_path(dir.path(), GameId::Adjito, LoopRule::Start, 4);
    let good = std::fs::read(&p).unwrap();

    // Truncated payload.
    std::fs::write(&p, &good[..good.len() - 10]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Truncated { .. })
    ));
    // Truncated header.
    std::fs::write(&p, &good[..20]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Truncated { .. })
    ));
    // Corrupt payload byte.
    let mut bad = good.clone();
    bad[HEADER_LEN + 7] ^= 0x40;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Corrupted { .. })
    ));
    // Corrupt header byte.
    let mut bad = good.clone();
    bad[17] ^= 1;
    std::fs::write(&p, &bad).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::Corrupted { .. })
    ));
    // Not a table.
    std::fs::write(&p, vec![b'x'; 200]).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::NotATable { .. })
    ));
    // Wrong game: an Adji-Boto file under an Adjito name.
    let other = tempfile::tempdir().unwrap();
    build::<AdjiBoto>(other.path(), LoopRule::Start, 4);
    std::fs::copy(
        level_path(other.path(), GameId::AdjiBoto, LoopRule::Start, 4),
        &p,
    )
    .unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 4),
        Err(TableError::WrongGame { .. })
    ));
    std::fs::write(&p, &good).unwrap();
    // Wrong rule: the start file read as even.
    let even = level_path(dir.path(), GameId::Adjito, LoopRule::Even, 4);
    std::fs::copy(&p, &even).unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Even, 4),
        Err(TableError::WrongRule { .. })
    ));
    // Wrong level.
    std::fs::copy(
        &p,
        level_path(dir.path(), GameId::Adjito, LoopRule::Start, 3),
    )
    .unwrap();
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 3),
        Err(TableError::WrongLevel { .. })
    ));
    // Missing.
    assert!(matches!(
        open(dir.path(), GameId::Adjito, LoopRule::Start, 9),
        Err(TableError::Missing { .. })
    ));
}

#[test]
fn building_on_lower_levels_of_the_other_rule_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 3);
    // Put a start-rule file where the even-rule level 0 should be.
    std::fs::copy(
        level_path(dir.path(), GameId::Adjito, LoopRule::Start, 0),
        level_path(dir.path(), GameId::Adjito, LoopRule::Even, 0),
    )
    .unwrap();
    let r = build_tables::<Adjito>(dir.path(), LoopRule::Even, 3, &NoProgress, |_| {});
    assert!(matches!(r, Err(TableError::WrongRule { .. })));
}

#[test]
fn resume_keeps_finished_levels_and_rebuilds_bad_ones() {
    let dir = tempfile::tempdir().unwrap();
    build::<Adjito>(dir.path(), LoopRule::Start, 6);
    let p5 = level_path(dir.path(), GameId::Adjito, LoopRule::Start, 5);
    let good5 = std::fs::read(&p5).unwrap();
    // Simulate an interrupted build: level 6 missing, level 5 truncated.
    std::fs::remove_file(level_path(dir.path(), GameId::Adjito, LoopRule::Start, 6)).unwrap();
    std::fs::write(&p5, &good5[..good5.len() / 2]).unwrap();
    let mut events = Vec::new();
    build_tables::<Adjito>(dir.path(), LoopRule::Start, 6, &NoProgress, |e| {
        events.push((e.level, e.skipped))
    })
    .unwrap();
    assert_eq!(
        events,
        vec![
            (0, true),
            (1, true),
            (2, true),
            (3, true),
            (4, true),
            (5, false),
            (6, false)
        ]
    );
    assert_eq!(std::fs::read(&p5).unwrap(), good5);
    // No temporary files are left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty());
}

proptest! {
    #[test]
    fn header_reader_never_panics(bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let _ = Header::decode(Path::new("x"), &bytes);
    }

    #[test]
    fn header_reader_rejects_flipped_bits(bit in 0usize..(48 * 8)) {
        let h = Header { game: GameId::Adjito, rule: LoopRule::Start, level: 5, count: 4368,
            tool: "adji test".into(), payload_crc: 7 };
        let mut b = h.encode().to_vec();
        prop_assert_eq!(Header::decode(Path::new("x"), &b).unwrap(), h);
        b[bit / 8] ^= 1 << (bit % 8);
        prop_assert!(Header::decode(Path::new("x"), &b).is_err());
    }
}
