//! Damage met by a probe, [`Damage`]: what a level opened without the
//! full check ([`super::OpenCheck::Header`], `--trust-tables` on the
//! command line) may hold, found only when an entry is read — a
//! compressed block that does not decode or fails its checksum, a byte
//! marked loop-sensitive without its exception record, a value byte
//! outside ±(seeds on the board). (A damaged raw byte that still reads as
//! a possible value cannot be told from a good one without the full check
//! at open.)
//!
//! Policy: a damaged entry is never a value. The probe that meets it
//! answers "no entry" ([`super::Table::bounds`] gives `None`), so a
//! search goes on as if the level were not there and every bound it
//! proves still holds. The first damage of a level is kept (sticky,
//! first writer wins) with the file and block named, and the alarm it
//! raises is shared by every level of a [`super::TableSet`]: a search
//! watches it and stops, and the command that asked fails with
//! [`super::TableSet::check_damage`]'s error instead of reporting.

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use super::error::TableError;

/// A level's first damage, and the alarm of the set it belongs to.
#[derive(Debug, Default)]
pub(in crate::tables) struct Damage {
    first: OnceLock<Noted>,
    alarm: Arc<AtomicBool>,
}

/// What was recorded, by kind: a refusal keeps its own error, so that
/// the command fails with it and not with a "damaged" message.
#[derive(Debug)]
enum Noted {
    /// Damage, as the message of the error met.
    Damaged(String),
    /// A don't-care level read without the levels below it
    /// ([`TableError::DontCare`]): refused, not damaged.
    DontCare { path: PathBuf, level: u32 },
}

impl Damage {
    /// Records `e` (the first one recorded is kept) and raises the alarm.
    #[cold]
    pub(in crate::tables) fn note(&self, e: &TableError) {
        let noted = match e {
            TableError::DontCare { path, level } => Noted::DontCare {
                path: path.clone(),
                level: *level,
            },
            e => Noted::Damaged(e.to_string()),
        };
        let _ = self.first.set(noted);
        self.alarm.store(true, Ordering::Release);
    }

    /// The damage (or refusal) recorded, as the error a command fails with.
    pub(in crate::tables) fn error(&self) -> Option<TableError> {
        Some(match self.first.get()? {
            Noted::Damaged(what) => TableError::Damaged { what: what.clone() },
            Noted::DontCare { path, level } => TableError::DontCare {
                path: path.clone(),
                level: *level,
            },
        })
    }

    /// Shares `alarm` (a set's): raised now if damage is already recorded.
    pub(in crate::tables) fn share(&mut self, alarm: &Arc<AtomicBool>) {
        if self.first.get().is_some() {
            alarm.store(true, Ordering::Release);
        }
        self.alarm = Arc::clone(alarm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_damage_is_kept_and_raises_a_shared_alarm() {
        let alarm = Arc::new(AtomicBool::new(false));
        let mut d = Damage::default();
        d.share(&alarm);
        assert!(d.error().is_none());
        let bad = |what: &str| TableError::Corrupted {
            path: "x.adjz".into(),
            what: what.into(),
        };
        d.note(&bad("block 3: checksum mismatch"));
        d.note(&bad("block 4: checksum mismatch"));
        assert!(alarm.load(Ordering::Acquire));
        let e = d.error().unwrap().to_string();
        assert!(e.contains("x.adjz") && e.contains("block 3"), "{e}");
        // A set that takes a damaged level hears of it at once.
        let later = Arc::new(AtomicBool::new(false));
        d.share(&later);
        assert!(later.load(Ordering::Acquire));
    }

    /// A refusal is kept as a refusal (its own error), not as damage.
    #[test]
    fn a_refusal_is_kept_as_its_own_error() {
        let d = Damage::default();
        d.note(&TableError::DontCare {
            path: "x.adjz".into(),
            level: 9,
        });
        let e = d.error().unwrap();
        assert!(matches!(e, TableError::DontCare { level: 9, .. }), "{e:?}");
    }
}
