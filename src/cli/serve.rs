//! `serve`: the web analysis board.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use adji::engine::HINT_BYTES;
use adji::rules::RuleSet;
use adji::server::{open_tables, App, Config, ConnLimits};

use crate::args::{GameRulesArgs, MemoryArg, RuleArg, SearchTablesArgs};
use crate::error::CliError;
use crate::setup::MemoryBudget;
use crate::util::fmt_bytes;

/// Help of `serve --game`: the page plays both games.
const SERVE_GAME_HELP: &str =
    "The game the page shows first (both can be played, under any of their rule sets)";

/// Help of `serve --rules`: the page plays every rule set.
const SERVE_RULES_HELP: &str = "The rule set the page shows first: which reading of the game's \
rules (`adji rules` lists them; docs/RULES.md describes each). The page and the API \
serve every rule set";

/// The help of `--game` and `--rules` in `serve`; other arguments pass
/// unchanged.
fn serve_help(a: clap::Arg) -> clap::Arg {
    match a.get_id().as_str() {
        "game" => a.help(SERVE_GAME_HELP),
        "rules" => a.help(SERVE_RULES_HELP),
        _ => a,
    }
}

/// Options of `serve`.
#[derive(clap::Args, Debug)]
#[command(mut_args(serve_help))]
pub struct ServeArgs {
    #[command(flatten)]
    pub game: GameRulesArgs,
    #[command(flatten)]
    pub tables: SearchTablesArgs,
    #[command(flatten)]
    pub rule: RuleArg,
    /// Address to listen on (loopback by default: only this machine can connect).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// Port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Solves running at once, one thread each (default: the number of cores).
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub workers: Option<u16>,
    /// Solves that may wait for a worker; more are refused (HTTP 503).
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u16).range(0..=4096))]
    pub queue: u16,
    /// Hash table per worker, in MiB (allocated at start).
    #[arg(long, default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=1_048_576))]
    pub hash: u32,
    /// The longest one solve may run, in seconds.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=86_400))]
    pub time_cap: u32,
    #[command(flatten)]
    pub memory: MemoryArg,
    /// A name the server also answers to (repeatable), e.g. behind a proxy
    /// or on a LAN. It always answers to localhost, 127.0.0.1, [::1] and the
    /// --bind address; requests for any other Host get HTTP 421, and API
    /// requests from other sites (Origin, Sec-Fetch-Site) get 403.
    #[arg(long, value_name = "NAME", value_parser = host_name)]
    pub allow_host: Vec<String>,
    /// Seconds a client may take to send a request head, and may stay
    /// silent on an open connection; then it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub header_timeout: u32,
    /// Seconds a client may leave an answer unread (the connection's
    /// buffers full, no byte taken); then it is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=3600))]
    pub write_timeout: u32,
    /// Connections open at once; at the cap a new one closes the oldest
    /// idle one, or is closed itself when every one is busy with a request.
    /// Must fit the descriptor limit (ulimit -n) with room to spare.
    #[arg(long, value_name = "N", default_value_t = 512, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub max_connections: u32,
}

/// Parses an `--allow-host` name: letters, digits, dots, hyphens (or an
/// address), no port, no scheme.
fn host_name(s: &str) -> Result<String, String> {
    let ok = !s.is_empty()
        && s.len() <= 253
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c))
        && (s.starts_with('[') || !s.contains(':'));
    if ok {
        Ok(s.to_string())
    } else {
        Err(format!(
            "expected a host name such as board.example (no scheme, no port), found '{s}'"
        ))
    }
}

/// Runs `serve` until the process is stopped.
pub fn serve(a: &ServeArgs) -> Result<(), CliError> {
    let workers = a.workers.map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        usize::from,
    );
    let rules = a.game.rule_set()?;
    let config = Config {
        rules,
        tables: tables_dir(&a.tables),
        rule: a.rule.rule(),
        check: a.tables.check(),
        workers,
        waiting: a.queue.into(),
        hash_mib: a.hash as usize,
        time_cap: Duration::from_secs(a.time_cap.into()),
        allow_hosts: a.allow_host.clone(),
        conn: ConnLimits {
            header_timeout: Duration::from_secs(a.header_timeout.into()),
            write_timeout: Duration::from_secs(a.write_timeout.into()),
            max_connections: a.max_connections as usize,
        },
    };
    let mut tables = open_tables(&config).map_err(|e| CliError::Input(e.to_string()))?;
    crate::setup::check_table_cache(&a.tables, tables.min_cache_bytes())?;
    let (others, _) = plan(a, workers, 0);
    tables.fit_caches(crate::setup::cache_budget(&a.tables, a.memory, others));
    check_memory(a, workers, tables.allocated_bytes())?;
    crate::util::descriptors_for(a.max_connections as u64 + RESERVED_FDS, "--max-connections")
        .map_err(CliError::Input)?;
    let app =
        Arc::new(App::with_tables(config, tables).map_err(|e| CliError::Input(e.to_string()))?);
    let addr = SocketAddr::new(a.bind, a.port);
    adji::server::run(Arc::clone(&app), addr, |bound| announce(&app, bound))
        .map_err(|e| CliError::Input(e.to_string()))
}

/// The tables directory: `--tables DIR`, or `tables` when it exists, or
/// none with `--no-tables`.
fn tables_dir(a: &SearchTablesArgs) -> Option<PathBuf> {
    match (&a.tables, a.no_tables) {
        (_, true) => None,
        (Some(dir), false) => Some(dir.clone()),
        (None, false) => Some(PathBuf::from("tables")).filter(|d| d.is_dir()),
    }
}

/// Descriptors the server needs besides its connections (standard
/// streams, the listener, the runtime, table files).
const RESERVED_FDS: u64 = 128;

/// The memory plan: each worker holds its hash table, and an analysis its
/// move hints (at most [`HINT_BYTES`]); the endgame tables of every rule
/// set allocate `tables` bytes at most (caches of decoded blocks). Their
/// files mapped read-only are page cache, not counted (the banner says
/// how much is mapped).
fn plan(a: &ServeArgs, workers: usize, tables: u64) -> (u64, String) {
    let hash = crate::setup::hash_bytes(a.hash as usize);
    let need = hash
        .saturating_add(HINT_BYTES)
        .saturating_mul(workers as u64)
        .saturating_add(tables);
    let text = format!(
        "{workers} worker(s) × ({} of hash + {} of move hints) + {} of table caches",
        fmt_bytes(hash),
        fmt_bytes(HINT_BYTES),
        fmt_bytes(tables)
    );
    (need, text)
}

/// Refuses, before allocating, a plan over the memory budget.
fn check_memory(a: &ServeArgs, workers: usize, tables: u64) -> Result<(), CliError> {
    let (need, text) = plan(a, workers, tables);
    MemoryBudget::of(a.memory).check(need, text, "lower --hash or --workers, or raise --memory")
}

/// Prints the URL on stdout (one line, flushed: scripts read it) and the
/// setup on stderr: the tables of each rule set (and a warning when the
/// tables directory gives none), the workers, the limits.
fn announce(app: &App, addr: SocketAddr) {
    use std::io::Write;
    let c = app.config();
    let tables = RuleSet::families()
        .map(|r| match app.covered(r) {
            0 => format!("{}: none (search only)", r.command_line()),
            n => format!("{}: levels 0..={}", r.command_line(), n - 1),
        })
        .collect::<Vec<_>>()
        .join(", ");
    let readers = RuleSet::ALL
        .into_iter()
        .filter(|r| r.tables() != *r)
        .map(|r| format!("{} reads {}'s", r.command_line(), r.tables().command_line()))
        .collect::<Vec<_>>()
        .join(", ");
    eprintln!(
        "adji serve: {} --rules {} first; tables {tables} ({readers}; {} mapped read-only, page cache); {} worker(s) with {} hash each (and up to {} of move hints \
         per analysis), {} may wait; {} s per solve at most; {} connections at most, {} s per request head, {} s per stalled write",
        c.rules.game(),
        c.rules.name(),
        fmt_bytes(app.mapped_bytes()),
        app.queue().workers(),
        fmt_bytes(app.queue().hash_bytes() as u64),
        fmt_bytes(HINT_BYTES),
        app.queue().waiting(),
        c.time_cap.as_secs(),
        c.conn.max_connections,
        c.conn.header_timeout.as_secs(),
        c.conn.write_timeout.as_secs()
    );
    // Families without tables are named in the line above ("none (search
    // only)"); a warning only when the directory gave none at all, which
    // is more likely a wrong --tables than a choice.
    if let Some(dir) = &c.tables {
        if RuleSet::families().all(|r| app.covered(r) == 0) {
            eprintln!(
                "warning: {} holds no tables for --loop {}; every position is searched",
                dir.display(),
                c.rule.name()
            );
        }
    }
    if !addr.ip().is_loopback() {
        eprintln!(
            "warning: listening on {}: other machines can reach this server",
            addr.ip()
        );
    }
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{}", adji::server::url(addr));
    let _ = out.flush();
}
