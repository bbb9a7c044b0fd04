//! The memory a compressed level holds once checked and once decoded
//! into memory: the decoded level, never also the compressed file's
//! pages (a build that kept Adji-Boto's compressed 0–42 held 8.9 GiB of
//! their pages after checking them, and level 43's peak passed its plan
//! by 1.4 GiB while decoding them). One test alone in its process, so
//! that its peak is its own.

mod common;

#[cfg(target_os = "linux")]
#[test]
fn a_compressed_level_holds_neither_its_checked_nor_its_decoded_file() {
    use adji::rules::RuleSet;
    use adji::tables::compressed::{format as zformat, Codec, Transform};
    use adji::tables::{format, OpenCheck, Table};
    use adji::value::LoopRule;
    use common::memory::{reset_peak, status_kib as kib};
    let (rules, rule, n) = (RuleSet::AdjiBotoDefault, LoopRule::Start, 26);
    let d = tempfile::tempdir().unwrap();
    let count = adji::index::level_size(n as usize, 10) as usize;
    // Values that zstd cannot squeeze to nothing: a hash of the rank.
    let value = |i: usize| {
        let mut z = (i as u64).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        let h = (z ^ (z >> 31)) >> 59;
        let v = (h as i8 - 16) as u8;
        (v, v)
    };
    format::write_level_with(d.path(), rules, rule, n, count, &value).unwrap();
    let raw = format::level_path(d.path(), rules, rule, n);
    let t = Table::open(&raw, rules, rule, n, 10).unwrap();
    let z = zformat::level_path(d.path(), rules, rule, n);
    let codec = Codec {
        block: 4096,
        level: 1,
        transform: Transform::None,
    };
    zformat::write_compressed(&t, &z, codec, &|_| {}).unwrap();
    drop(t);
    std::fs::remove_file(&raw).unwrap();
    let zkib = std::fs::metadata(&z).unwrap().len() as i64 / 1024;
    let size = count as i64 / 1024;
    assert!(
        zkib > size / 4,
        "the level compressed to {zkib} KiB of {size}"
    );
    let base = kib("VmRSS:");
    // Opened with every block checked: every page of the file is read.
    let t = Table::open_checked(&raw, rules, rule, n, 10, OpenCheck::Full).unwrap();
    assert!(t.is_compressed());
    let held = kib("VmRSS:") - base;
    assert!(held < zkib / 4, "checking {zkib} KiB left {held} KiB held");
    if !reset_peak() {
        return;
    }
    let before = kib("VmRSS:");
    let t = t.into_memory().unwrap();
    let peak = kib("VmHWM:") - before;
    // The decoded level, and one round of blocks' pages (16 MiB of
    // output) before they are released.
    let round = zformat::ROUND_BYTES as i64 / 1024;
    assert!(
        peak < size + round + zkib / 8,
        "decoding {zkib} KiB into {size} KiB raised the peak by {peak} KiB"
    );
    assert_eq!(t.bound_bytes(count - 1), Some(value(count - 1)));
}
