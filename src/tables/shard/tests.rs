use super::*;
use crate::index::level_size;
use crate::rules::RuleSet;
use crate::tables::error::TableError;
use crate::tables::format::{self, HEADER_LEN};
use crate::value::LoopRule;

/// Bound bytes of a made-up level: mostly values, some exceptions.
fn fake(i: u64) -> (u8, u8) {
    match i % 7 {
        3 => (-2i8 as u8, 4),
        5 => (
            crate::value::NEG_INF_BYTE as u8,
            crate::value::POS_INF_BYTE as u8,
        ),
        _ => ((i % 9) as u8, (i % 9) as u8),
    }
}

/// Wide records (16 bytes, rank u64) encode and decode ranks above
/// 2³², and the binary search finds them, at the boundary.
#[test]
fn wide_records_round_trip_above_u32() {
    assert_eq!(format::record_len(1 << 32), 8);
    assert_eq!(format::record_len((1 << 32) + 1), 16);
    let first = u32::MAX as u64 - 20;
    for width in [16usize] {
        let recs = format::exception_records(first, 50, width, &|i| fake(first + i as u64));
        assert!(recs.len().is_multiple_of(width));
        let ranks: Vec<u64> = recs.chunks(width).map(format::record_rank).collect();
        let want: Vec<u64> = (first..first + 50)
            .filter(|&r| format::is_exception(fake(r).0, fake(r).1))
            .collect();
        assert_eq!(ranks, want);
        assert!(ranks.iter().any(|&r| r > u32::MAX as u64));
        for r in first..first + 50 {
            let got = format::find_record(&recs, width, r);
            let (lo, hi) = fake(r);
            assert_eq!(
                got,
                format::is_exception(lo, hi).then_some((lo, hi)),
                "rank {r}"
            );
        }
        // The 8-byte form would have wrapped the ranks above 2³².
        let narrow = format::exception_records(first, 50, 8, &|i| fake(first + i as u64));
        assert!(format::find_record(&narrow, 8, u32::MAX as u64 + 5).is_none());
        assert!(recs.chunks(width).all(format::record_padding_zero));
    }
}

/// Narrow records are byte for byte the version-3 layout.
#[test]
fn narrow_records_keep_the_version_3_layout() {
    let recs = format::exception_records(10, 5, 8, &|i| fake(10 + i as u64));
    // Ranks 10 (3 mod 7) and 12 (5 mod 7).
    let mut want = Vec::new();
    want.extend_from_slice(&10u32.to_le_bytes());
    want.extend_from_slice(&[-2i8 as u8, 4, 0, 0]);
    want.extend_from_slice(&12u32.to_le_bytes());
    want.extend_from_slice(&[0x80, 0x7f, 0, 0]);
    assert_eq!(recs, want);
}

/// A shard at the end of Adji-Boto level 44 (more than 2³² entries)
/// writes 16-byte records with global ranks, and checks.
#[test]
fn a_shard_of_a_level_beyond_u32_has_wide_records() {
    let d = tempfile::tempdir().unwrap();
    let rules = RuleSet::AdjiBotoDefault;
    let total = level_size(44, 10);
    assert!(total > u32::MAX as u64);
    let first = total - 100;
    let bounds = |i: usize| fake(first + i as u64);
    let place = Place::new(3, 4, first..total);
    let info = write_shard_with(d.path(), rules, LoopRule::Start, 44, place, &bounds).unwrap();
    let want_exc = (first..total)
        .filter(|&r| format::is_exception(fake(r).0, fake(r).1))
        .count();
    assert_eq!(info.exceptions, want_exc as u64);
    let checked = check_shard(d.path(), rules, LoopRule::Start, 44, place).unwrap();
    assert_eq!(checked, info);
    let bytes = std::fs::read(d.path().join(&info.file)).unwrap();
    assert_eq!(bytes.len(), HEADER_LEN + 100 + 16 * want_exc);
    let recs = &bytes[HEADER_LEN + 100..];
    let first_exc = (first..total).find(|&r| format::is_exception(fake(r).0, fake(r).1));
    assert_eq!(Some(format::record_rank(&recs[..16])), first_exc);
    assert!(first_exc.unwrap() > u32::MAX as u64);
    // Another place in the level is refused, naming the file.
    let elsewhere = Place::new(3, 4, first - 1..total - 1);
    let e = check_shard(d.path(), rules, LoopRule::Start, 44, elsewhere)
        .unwrap_err()
        .to_string();
    assert!(e.contains(&info.file) && e.contains("expected"), "{e}");
}

/// The manifest refuses gaps, overlaps, a wrong count and a corrupt
/// checksum, each naming what is wrong.
#[test]
fn manifests_refuse_gaps_overlaps_and_corruption() {
    let d = tempfile::tempdir().unwrap();
    let (rules, rule, level) = (RuleSet::AdjitoDefault, LoopRule::Start, 3);
    let total = level_size(3, 12);
    let infos: Vec<ShardInfo> = [(0, 100), (100, total - 100)]
        .iter()
        .enumerate()
        .map(|(i, &(f, c))| {
            let place = Place::new(i as u32, 2, f..f + c);
            write_shard_with(d.path(), rules, rule, level, place, &|j| fake(f + j as u64)).unwrap()
        })
        .collect();
    let mut gap = infos.clone();
    gap[1].first = 101;
    gap[1].count -= 1;
    let e = write_manifest(d.path(), rules, rule, level, &gap)
        .unwrap_err()
        .to_string();
    assert!(e.contains("gap: entries 100..101"), "{e}");
    let mut over = infos.clone();
    over[1].first = 99;
    over[1].count += 1;
    let e = write_manifest(d.path(), rules, rule, level, &over)
        .unwrap_err()
        .to_string();
    assert!(e.contains("overlap"), "{e}");
    let e = write_manifest(d.path(), rules, rule, level, &infos[..1])
        .unwrap_err()
        .to_string();
    assert!(e.contains("shard 1 of 2 is not listed"), "{e}");
    let mut twice = infos.clone();
    twice[1] = infos[0].clone();
    let e = write_manifest(d.path(), rules, rule, level, &twice)
        .unwrap_err()
        .to_string();
    assert!(e.contains("shard 0 of 2 is listed twice"), "{e}");
    let path = write_manifest(d.path(), rules, rule, level, &infos).unwrap();
    let m = read_manifest(&path, rules, rule, level).unwrap();
    assert_eq!(m.shards, infos);
    let text = std::fs::read_to_string(&path).unwrap();
    std::fs::write(&path, text.replace("\"first\": 100", "\"first\": 10")).unwrap();
    let e = read_manifest(&path, rules, rule, level)
        .unwrap_err()
        .to_string();
    assert!(e.contains("manifest checksum mismatch"), "{e}");
    std::fs::write(&path, "{\"format\": ").unwrap();
    let e = read_manifest(&path, rules, rule, level)
        .unwrap_err()
        .to_string();
    assert!(e.contains("manifest is not valid"), "{e}");
    std::fs::write(&path, text).unwrap();
    let e = read_manifest(&path, RuleSet::AdjitoMustReach, rule, level).unwrap_err();
    assert!(matches!(e, TableError::WrongRules { .. }), "{e}");
}
