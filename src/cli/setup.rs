//! Setting up a search (`solve`, `openings`) or a build: worker threads,
//! endgame tables, and the memory plan checked against `--memory` before
//! anything large is allocated.

use std::fmt;
use std::path::Path;

use adji::tables::TableSet;
use adji::tt::{AtomicTable, TtError, SLOT_BYTES};
use adji::value::LoopRule;

use adji::rules::RuleSet;

use crate::args::{MemoryArg, SearchTablesArgs, ThreadsArg};
use crate::error::CliError;
use crate::out::warn;
use crate::util::{available_memory, fmt_bytes};

/// Sets the size of rayon's global pool; returns the number of workers.
pub fn set_threads(t: ThreadsArg) -> Result<usize, CliError> {
    if let Some(n) = t.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| CliError::Input(format!("--threads: {e}")))?;
    }
    Ok(rayon::current_num_threads())
}

/// Assumed budget when `--memory` is not given and the available RAM is unknown.
const FALLBACK_BUDGET: u64 = 4 << 30;

/// The memory a command may use.
#[derive(Clone, Copy, Debug)]
pub struct MemoryBudget {
    /// Bytes.
    pub bytes: u64,
    /// Where the figure came from, when not from `--memory` (e.g. " (default: the available RAM)").
    pub origin: &'static str,
}

impl MemoryBudget {
    /// `--memory`, or the available RAM, or a safe default.
    pub fn of(m: MemoryArg) -> Self {
        match (m.memory, available_memory()) {
            (Some(bytes), _) => MemoryBudget { bytes, origin: "" },
            (None, Some(bytes)) => MemoryBudget {
                bytes,
                origin: " (default: the available RAM)",
            },
            (None, None) => MemoryBudget {
                bytes: FALLBACK_BUDGET,
                origin: " (default when the available RAM is unknown)",
            },
        }
    }

    /// Refuses a plan of `need` bytes over the budget.
    pub fn check(&self, need: u64, plan: String, hint: &str) -> Result<(), CliError> {
        if need <= self.bytes {
            return Ok(());
        }
        Err(CliError::Memory {
            need,
            plan,
            allow: self.bytes,
            origin: self.origin,
            hint: hint.to_string(),
        })
    }
}

/// The memory of a search: `workers` transposition tables of `hash_mib`
/// each (or the engine's move hints), plus what the endgame tables
/// allocate (caches of decoded blocks, copies in memory). Their files
/// mapped read-only are page cache, reported apart and not counted: the
/// kernel drops such pages under pressure and reads them again.
#[derive(Clone, Copy, Debug)]
pub struct SearchPlan {
    /// Transposition tables allocated at once.
    pub workers: usize,
    /// `--hash`, in MiB.
    pub hash_mib: usize,
    /// Bytes of one transposition table (or of the engine's move hints).
    pub hash_bytes: u64,
    /// What `hash_bytes` holds: `hash`, or the engine's `move hints`.
    pub hash_kind: &'static str,
    /// Bytes the endgame tables allocate, at most.
    pub tables_alloc: u64,
    /// Bytes of the endgame table files mapped read-only.
    pub mapped: u64,
    /// The budget.
    pub budget: MemoryBudget,
}

impl SearchPlan {
    /// The plan of `workers` tables of `hash_mib` and `tables`, refused when
    /// it exceeds the budget.
    pub fn new(
        workers: usize,
        hash_mib: usize,
        tables: Option<&TableSet>,
        memory: MemoryArg,
    ) -> Result<Self, CliError> {
        AtomicTable::entries_for(hash_mib).ok_or(TtError::Size(hash_mib))?;
        let hash = hash_bytes(hash_mib);
        SearchPlan::of_bytes(workers, hash_mib, (hash, "hash"), tables, memory)
    }

    /// The plan of the estimate engine (`analyse`): its move hints and
    /// the tables, refused when over the budget.
    pub fn engine(tables: Option<&TableSet>, memory: MemoryArg) -> Result<Self, CliError> {
        SearchPlan::of_bytes(
            1,
            0,
            (adji::engine::HINT_BYTES, "move hints"),
            tables,
            memory,
        )
    }

    fn of_bytes(
        workers: usize,
        hash_mib: usize,
        (hash_bytes, hash_kind): (u64, &'static str),
        tables: Option<&TableSet>,
        memory: MemoryArg,
    ) -> Result<Self, CliError> {
        let plan = SearchPlan {
            workers,
            hash_mib,
            hash_bytes,
            hash_kind,
            tables_alloc: tables.map_or(0, TableSet::allocated_bytes),
            mapped: tables.map_or(0, TableSet::mapped_bytes),
            budget: MemoryBudget::of(memory),
        };
        // Only what changes the plan: --threads where each thread has
        // its table, --table-cache where caches are counted.
        let mut lower = Vec::new();
        if hash_kind == "hash" {
            lower.push("--hash");
        }
        if workers > 1 {
            lower.push("--threads");
        }
        if plan.tables_alloc > 0 {
            lower.push("--table-cache");
        }
        let hint = match lower.as_slice() {
            [] => "raise --memory".to_string(),
            [one] => format!("lower {one}, or raise --memory"),
            [rest @ .., last] => format!("lower {} or {last}, or raise --memory", rest.join(", ")),
        };
        plan.budget.check(plan.total(), plan.parts(), &hint)?;
        Ok(plan)
    }

    /// Bytes of the whole plan (the mapped files not counted).
    pub fn total(&self) -> u64 {
        (self.hash_bytes.saturating_mul(self.workers as u64)).saturating_add(self.tables_alloc)
    }

    fn parts(&self) -> String {
        format!(
            "{} × {} of {} + {} of table caches",
            self.workers,
            fmt_bytes(self.hash_bytes),
            self.hash_kind,
            fmt_bytes(self.tables_alloc)
        )
    }

    /// The mapped files, said apart: page cache, and whether it fits.
    fn mapped_text(&self) -> String {
        let fits = if self.mapped > self.budget.bytes {
            "; more than the budget: probes will read from disk"
        } else {
            ""
        };
        format!(
            "; tables mapped read-only {} (page cache, not counted{fits})",
            fmt_bytes(self.mapped)
        )
    }

    /// One transposition table of the planned size.
    pub fn table(&self) -> Result<AtomicTable, CliError> {
        Ok(AtomicTable::try_new(self.hash_mib)?)
    }
}

impl fmt::Display for SearchPlan {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "memory {} = {} of {}{}{}",
            self.parts(),
            fmt_bytes(self.total()),
            fmt_bytes(self.budget.bytes),
            self.budget.origin,
            self.mapped_text()
        )
    }
}

/// Opens the endgame tables of a search under `rules`: `None` with
/// `--no-tables`, or when the directory gives no level 0 for this rule set
/// and loop rule. A warning names what was found, unless the default
/// directory is simply absent.
pub fn search_tables(
    rules: RuleSet,
    a: &SearchTablesArgs,
    rule: LoopRule,
    memory: MemoryArg,
    reserved: u64,
) -> Result<Option<TableSet>, CliError> {
    if a.no_tables {
        return Ok(None);
    }
    let dir = a.tables.as_deref().unwrap_or(Path::new("tables"));
    let without = "the search runs without tables";
    if !dir.exists() {
        if a.tables.is_some() {
            warn(format_args!(
                "--tables {}: no such directory; {without}",
                dir.display()
            ));
        }
        return Ok(None);
    }
    if !dir.is_dir() {
        warn(format_args!(
            "--tables {}: not a directory; {without}",
            dir.display()
        ));
        return Ok(None);
    }
    let mut set = adji::oracle::tables::open(rules, dir, rule, a.check())?;
    check_table_cache(a, set.min_cache_bytes())?;
    set.fit_caches(cache_budget(a, memory, reserved));
    if set.covered() == 0 {
        warn(format_args!(
            "{}; {without}",
            no_tables_found(dir, rules, rule)
        ));
        return Ok(None);
    }
    Ok(Some(set))
}

/// Refuses a `--table-cache` below `min`, the least the caches of the
/// compressed levels hold (a direct-mapped cache each).
///
/// # Errors
/// [`CliError::Input`] naming the minimum.
pub fn check_table_cache(a: &SearchTablesArgs, min: u64) -> Result<(), CliError> {
    match a.table_cache {
        Some(b) if b < min => Err(CliError::Input(format!(
            "--table-cache {}: the compressed levels need at least {} (a cache of {} blocks \
             each, or the whole level when smaller); give at least that",
            fmt_bytes(b),
            fmt_bytes(min),
            adji::tables::compressed::reader::CACHE_SLOTS
        ))),
        _ => Ok(()),
    }
}

/// Bytes for the decoded blocks of compressed tables: `--table-cache`,
/// or what the memory budget leaves after `reserved` bytes (the rest of
/// the plan: hash tables, move hints, an opening tree's share), so that
/// a deep search keeps every compressed level it reads decoded when the
/// budget allows (issue 52: a quarter of it left the top levels
/// direct-mapped, 5.88 times the raw tables' time).
pub fn cache_budget(a: &SearchTablesArgs, memory: MemoryArg, reserved: u64) -> u64 {
    a.table_cache
        .unwrap_or_else(|| MemoryBudget::of(memory).bytes.saturating_sub(reserved))
}

/// Bytes of a transposition table of `hash_mib` MiB (0 for a size the
/// table refuses; the plan names that error).
pub fn hash_bytes(hash_mib: usize) -> u64 {
    AtomicTable::entries_for(hash_mib).map_or(0, |e| (e * SLOT_BYTES) as u64)
}

/// The tables a search uses, as its first line names them: `levels 0..=N`
/// or `none`.
pub fn tables_text(tables: Option<&TableSet>) -> String {
    match tables {
        Some(t) => format!("levels 0..={}", t.covered() - 1),
        None => "none".into(),
    }
}

/// "no adjito tables for --loop start in DIR", with what the directory holds instead.
pub fn no_tables_found(dir: &Path, rules: RuleSet, rule: LoopRule) -> String {
    let rules = rules.tables();
    let mut found = Vec::new();
    for r in RuleSet::families() {
        for l in TableSet::rules_present(dir, r) {
            if (r, l) != (rules, rule) {
                found.push(format!(
                    "{} tables for --loop {}",
                    r.command_line(),
                    l.name()
                ));
            }
        }
    }
    let found = if found.is_empty() {
        "no level-0 table of either game".to_string()
    } else {
        found.join(", ")
    };
    format!(
        "no {} tables for --loop {} in {} (it holds {found})",
        rules.command_line(),
        rule.name(),
        dir.display()
    )
}
