//! The memory a table copied into memory takes: its size once, never its
//! copy beside its file's pages (issue 50: loading the lower levels of
//! Adji-Boto 43 peaked 2.8 GiB, the largest level's file, above the sum
//! the plan counts). One test alone in its process, so that its peak is
//! its own.

mod common;

#[cfg(target_os = "linux")]
#[test]
fn a_level_copied_into_memory_holds_its_size_once() {
    use adji::rules::RuleSet;
    use adji::tables::{format, Table};
    use adji::value::LoopRule;
    use common::memory::{reset_peak, status_kib as kib};
    let (rules, rule, n) = (RuleSet::AdjiBotoDefault, LoopRule::Start, 26);
    let d = tempfile::tempdir().unwrap();
    let count = adji::index::level_size(n as usize, 10) as usize;
    format::write_level_with(d.path(), rules, rule, n, count, &|_| (0, 0)).unwrap();
    let path = format::level_path(d.path(), rules, rule, n);
    // Opened with its checksum checked: every page of the file is read.
    let t = Table::open(&path, rules, rule, n, 10).unwrap();
    if !reset_peak() {
        return;
    }
    let before = kib("VmRSS:");
    let t = t.into_memory().unwrap();
    let peak = kib("VmHWM:") - before;
    let size = count as i64 / 1024;
    assert!(
        peak < size / 2,
        "copying {size} KiB raised the peak by {peak} KiB"
    );
    assert_eq!(t.bound_bytes(count - 1), Some((0, 0)));
}
