//! The process's own memory, read from `/proc/self/status` (Linux), for
//! the tests that hold a budget to its bytes.

/// The field `field` of `/proc/self/status` (`"VmRSS:"`, `"VmHWM:"`), in
/// KiB.
pub fn status_kib(field: &str) -> i64 {
    let s = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = s.lines().find(|l| l.starts_with(field)).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

/// Resets the peak (`VmHWM`) to the present RSS (Linux 4.0 and later);
/// false, with a line saying the test is skipped, where the system does
/// not let a process do it.
pub fn reset_peak() -> bool {
    match std::fs::write("/proc/self/clear_refs", "5") {
        Ok(()) => true,
        Err(e) => {
            eprintln!("SKIPPED: this system does not let a process reset its peak RSS ({e})");
            false
        }
    }
}
