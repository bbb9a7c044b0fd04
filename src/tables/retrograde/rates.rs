//! The build times measured where the tables are built, and the plan's
//! projection from them.
//!
//! After each level it builds, `tables build` records the level's wall
//! seconds, positions, thread count and form (in memory, staged, out of
//! core) in the directory's [`RATES_FILE`]. The next plan projects every
//! level from the nearest level measured there ([`project_measured`]): its
//! seconds a position times the level's positions, preferring a level of
//! the same form and thread count, the nearest below before the nearest
//! above. Levels with nothing measured keep the floor's projection
//! ([`super::project`]). A missing or unreadable file is no measurement;
//! the file is rewritten atomically.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::plan::LevelPlan;

/// The file of measured build times in a tables directory (hidden, like
/// the build locks: a listing of the directory shows its tables).
pub const RATES_FILE: &str = ".adji-build-times.json";

/// One level's build as measured.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Measured {
    /// Positions of the level.
    pub positions: u64,
    /// Wall seconds of its build (passes and file written).
    pub secs: f64,
    /// Threads of the build.
    pub threads: usize,
    /// How it was built: [`Form::name`].
    pub form: String,
}

/// How a level is built, as far as its rate goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// In memory, in one phase.
    InMemory,
    /// In memory, its forward pass through scratch disk.
    Staged,
    /// Out of core, in shards.
    OutOfCore,
}

impl Form {
    /// The form of a level's plan.
    pub fn of(l: &LevelPlan) -> Form {
        match (l.shards > 1, l.staged) {
            (true, _) => Form::OutOfCore,
            (false, true) => Form::Staged,
            (false, false) => Form::InMemory,
        }
    }

    /// Its name in [`RATES_FILE`].
    pub fn name(self) -> &'static str {
        match self {
            Form::InMemory => "in memory",
            Form::Staged => "staged",
            Form::OutOfCore => "out of core",
        }
    }
}

/// The measured levels of each file set (`adjiboto-start`, …) of a
/// directory, by level.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Rates {
    /// Levels measured, by file set and level.
    pub sets: BTreeMap<String, BTreeMap<u32, Measured>>,
}

impl Rates {
    /// The rates recorded in `dir` (none when the file is missing or
    /// unreadable).
    pub fn load(dir: &Path) -> Rates {
        std::fs::read(dir.join(RATES_FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    /// Records level `level` of file set `set` as `m` in `dir`'s file,
    /// replacing an earlier measurement of it.
    ///
    /// # Errors
    /// I/O errors writing the file.
    pub fn record(dir: &Path, set: &str, level: u32, m: Measured) -> std::io::Result<()> {
        let mut r = Rates::load(dir);
        r.sets.entry(set.to_string()).or_default().insert(level, m);
        let json = serde_json::to_vec_pretty(&r).map_err(std::io::Error::other)?;
        crate::fsutil::write_atomic(&dir.join(RATES_FILE), &json)
    }
}

/// Projects each level of `plan` from the nearest level of `measured`
/// (see the module comment), for a build on `threads` threads; sets
/// [`LevelPlan::projected_secs`] and [`LevelPlan::projected_from`] of the
/// levels it projects, and leaves the others as they are.
pub fn project_measured(
    plan: &mut [LevelPlan],
    measured: &BTreeMap<u32, Measured>,
    threads: usize,
) {
    for l in plan.iter_mut() {
        let form = Form::of(l).name();
        let score = |(&m, x): (&u32, &Measured)| {
            let same = (x.form == form) as u8 + (x.threads == threads) as u8;
            let below = m <= l.level;
            (same, below, std::cmp::Reverse(m.abs_diff(l.level)))
        };
        if let Some((&m, x)) = measured.iter().max_by_key(|&e| score(e)) {
            l.projected_secs = Some(x.secs / x.positions.max(1) as f64 * l.positions as f64);
            l.projected_from = Some(m);
        }
    }
}

/// [`project_measured`] from the rates recorded in `dir` for the file
/// set `set` ([`crate::tables::format::set_name`]), on the current thread
/// pool. Returns how many levels it projected.
pub fn project_dir(plan: &mut [LevelPlan], dir: &Path, set: &str) -> usize {
    let rates = Rates::load(dir);
    let Some(measured) = rates.sets.get(set) else {
        return 0;
    };
    project_measured(plan, measured, rayon::current_num_threads());
    plan.iter().filter(|l| l.projected_from.is_some()).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(positions: u64, secs: f64, form: Form) -> Measured {
        Measured {
            positions,
            secs,
            threads: 2,
            form: form.name().into(),
        }
    }

    /// A level is projected from the nearest measured level of its form,
    /// below it first, scaled by positions; a missing file is no
    /// measurement, and a record replaces the one before.
    #[test]
    fn levels_are_projected_from_the_nearest_measured_one() {
        let d = tempfile::tempdir().unwrap();
        assert!(Rates::load(d.path()).sets.is_empty());
        std::fs::write(d.path().join(RATES_FILE), b"{ not json").unwrap();
        assert!(Rates::load(d.path()).sets.is_empty());
        Rates::record(d.path(), "s", 10, m(100, 1.0, Form::InMemory)).unwrap();
        Rates::record(d.path(), "s", 10, m(100, 2.0, Form::InMemory)).unwrap();
        Rates::record(d.path(), "s", 12, m(400, 4.0, Form::OutOfCore)).unwrap();
        Rates::record(d.path(), "s", 14, m(800, 4.0, Form::InMemory)).unwrap();
        let r = Rates::load(d.path());
        let mut plan = crate::tables::retrograde::plan::<crate::Adjito>(16).unwrap();
        plan[13].shards = 2;
        project_measured(&mut plan, &r.sets["s"], 2);
        let at = |n: usize| (plan[n].projected_from, plan[n].projected_secs.unwrap());
        let per = |secs: f64, pos: f64, n: usize| secs / pos * plan[n].positions as f64;
        assert_eq!(at(10), (Some(10), per(2.0, 100.0, 10)));
        assert_eq!(at(11), (Some(10), per(2.0, 100.0, 11)));
        assert_eq!(at(13), (Some(12), per(4.0, 400.0, 13)));
        assert_eq!(at(16), (Some(14), per(4.0, 800.0, 16)));
        // Nothing below of its form: the nearest above.
        assert_eq!(at(3), (Some(10), per(2.0, 100.0, 3)));
    }
}
