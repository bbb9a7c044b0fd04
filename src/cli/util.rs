//! Small helpers of the command-line tool: progress bars, byte sizes, and
//! what this process and the machine have in memory.

use adji::progress::Progress;
use indicatif::{ProgressBar, ProgressStyle};

/// A progress bar on stderr (hidden when stderr is not a terminal); it
/// receives the library's [`Progress`] calls.
pub struct Bar(pub ProgressBar);

impl Progress for Bar {
    fn start(&self, what: &str, total: u64) {
        self.0.set_length(total);
        self.0.set_position(0);
        self.0.set_message(what.to_string());
    }
    fn inc(&self, n: u64) {
        self.0.inc(n);
    }
    fn message(&self, message: &str) {
        self.0.set_message(message.to_string());
    }
    fn finish(&self, message: &str) {
        self.0.finish_with_message(message.to_string());
    }
}

/// A progress bar on stderr with no projected end, only the time
/// elapsed: for work whose pieces differ in cost by orders of magnitude
/// (exact solves), where a projection from the pieces done so far would
/// be a guess shown as a figure.
pub fn bar_without_eta(len: u64, unit: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{elapsed}} so far; \
             no projected end: positions differ too much in cost)"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// A progress bar on stderr (hidden when stderr is not a terminal).
pub fn bar(len: u64, unit: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(&format!(
            "{{msg}} [{{bar:30}}] {{human_pos}}/{{human_len}} {unit} ({{per_sec}}, ETA {{eta}})"
        ))
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    pb
}

/// Formats a byte count.
pub fn fmt_bytes(b: u64) -> String {
    const U: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut x = b as f64;
    let mut i = 0;
    while x >= 1024.0 && i < U.len() - 1 {
        x /= 1024.0;
        i += 1;
    }
    if i == 0 {
        format!("{b} B")
    } else {
        format!("{x:.1} {}", U[i])
    }
}

/// Parses a size such as `512M`, `8G`, `2GiB`, `1000000`.
pub fn parse_size(s: &str) -> Result<u64, String> {
    let t = s.trim();
    let split = t
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(t.len());
    let (num, unit) = t.split_at(split);
    let v: f64 = num
        .parse()
        .map_err(|_| format!("expected a size like 512M or 8G, found '{s}'"))?;
    let mult: u64 = match unit.trim().to_ascii_lowercase().as_str() {
        "" | "b" => 1,
        "k" | "kb" | "kib" => 1 << 10,
        "m" | "mb" | "mib" => 1 << 20,
        "g" | "gb" | "gib" => 1 << 30,
        "t" | "tb" | "tib" => 1 << 40,
        _ => {
            return Err(format!(
                "unknown size unit '{unit}' in '{s}' (use K, M, G or T)"
            ))
        }
    };
    let bytes = v * mult as f64;
    // Sizes are whole bytes; a fraction of a byte, or a size past 2^64,
    // is a mistake to name, not to round silently (0.5 was 0 B; 10^20 T
    // was saturated).
    if bytes < 1.0 || bytes >= u64::MAX as f64 {
        return Err(format!(
            "size '{s}' is out of range (at least one byte, below 16 EiB)"
        ));
    }
    Ok(bytes as u64)
}

/// A `Key:   123 kB` field of a Linux `/proc` file, in bytes.
fn proc_kib(file: &str, key: &str) -> Option<u64> {
    let s = std::fs::read_to_string(file).ok()?;
    let l = s.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = l[key.len()..].split_whitespace().next()?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Peak resident set size of this process (Linux; 0 elsewhere).
pub fn peak_rss() -> u64 {
    proc_kib("/proc/self/status", "VmHWM:").unwrap_or(0)
}

/// Memory available to new work (Linux `MemAvailable`), if known.
pub fn available_memory() -> Option<u64> {
    proc_kib("/proc/meminfo", "MemAvailable:")
}

/// The kernel's writeback settings for dirty file pages (Linux), which
/// decide when the mapped scratch cells of an out-of-core build are
/// written back while the build still uses them.
#[derive(Clone, Debug, PartialEq)]
pub struct Writeback {
    /// Dirty bytes past which background writeback starts.
    pub background: u64,
    /// Where [`Writeback::background`] comes from, e.g.
    /// `vm.dirty_background_ratio = 10`.
    pub source: String,
    /// Age in seconds past which a dirty page is written back anyway.
    pub expire_secs: f64,
}

/// The kernel's [`Writeback`] settings, if readable (Linux; `None`
/// elsewhere). A ratio is taken of the available memory.
pub fn writeback() -> Option<Writeback> {
    let read = |k: &str| -> Option<u64> {
        std::fs::read_to_string(format!("/proc/sys/vm/{k}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    let bytes = read("dirty_background_bytes")?;
    let (background, source) = if bytes > 0 {
        (bytes, format!("vm.dirty_background_bytes = {bytes}"))
    } else {
        let ratio = read("dirty_background_ratio")?;
        let of = available_memory()?;
        (
            of / 100 * ratio,
            format!("vm.dirty_background_ratio = {ratio}"),
        )
    };
    let expire_secs = read("dirty_expire_centisecs")? as f64 / 100.0;
    Some(Writeback {
        background,
        source,
        expire_secs,
    })
}

/// Makes sure this process may open `need` descriptors, raising its soft
/// limit up to the hard one when it must (Linux; elsewhere nothing is
/// checked); the error names `option` when even the hard limit is too low.
pub fn descriptors_for(need: u64, option: &str) -> Result<(), String> {
    #[cfg(target_os = "linux")]
    {
        let mut lim = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit and setrlimit read or write one rlimit we own.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 || lim.rlim_cur >= need {
            return Ok(());
        }
        if lim.rlim_max >= need {
            lim.rlim_cur = need;
            if unsafe { libc::setrlimit(libc::RLIMIT_NOFILE, &lim) } == 0 {
                return Ok(());
            }
        }
        Err(format!(
            "{option}: needs {need} file descriptors with the server's own, but the limit is {} \
             (ulimit -n); lower {option} or raise the limit",
            lim.rlim_max
        ))
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (need, option);
        Ok(())
    }
}
