//! The memory a table copied into memory takes: its size once, never its
//! copy beside its file's pages (issue 50: loading the lower levels of
//! Adji-Boto 43 peaked 2.8 GiB, the largest level's file, above the sum
//! the plan counts). One test alone in its process, so that its peak is
//! its own.

#[cfg(target_os = "linux")]
#[test]
fn a_level_copied_into_memory_holds_its_size_once() {
    use adji::rules::RuleSet;
    use adji::tables::{format, Table};
    use adji::value::LoopRule;
    let kib = |field: &str| -> i64 {
        let s = std::fs::read_to_string("/proc/self/status").unwrap();
        let line = s.lines().find(|l| l.starts_with(field)).unwrap();
        line.split_whitespace().nth(1).unwrap().parse().unwrap()
    };
    let (rules, rule, n) = (RuleSet::AdjiBotoDefault, LoopRule::Start, 26);
    let d = tempfile::tempdir().unwrap();
    let count = adji::index::level_size(n as usize, 10) as usize;
    format::write_level_with(d.path(), rules, rule, n, count, &|_| (0, 0)).unwrap();
    let path = format::level_path(d.path(), rules, rule, n);
    // Opened with its checksum checked: every page of the file is read.
    let t = Table::open(&path, rules, rule, n, 10).unwrap();
    // Resets the peak (VmHWM) to the present RSS (Linux 4.0 and later).
    if let Err(e) = std::fs::write("/proc/self/clear_refs", "5") {
        eprintln!("SKIPPED: this system does not let a process reset its peak RSS ({e})");
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
