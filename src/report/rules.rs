//! The report of `adji rules`, and how every other report names a rule
//! set: [`label`] in text headers, [`RulesTag`] in reports that have no
//! `game` field (present only for a non-default rule set, so that the
//! default's reports keep their bytes).

use std::fmt;

use serde::{Serialize, Serializer};

use crate::game::Game;
use crate::rules::RuleSet;

/// A game and rule set as text headers name them: `adjiboto` for a
/// default reading, `adjiboto (valdez)` for another.
pub fn label(rules: RuleSet) -> String {
    if rules.is_default() {
        rules.game().name().to_string()
    } else {
        format!("{} ({})", rules.game(), rules.name())
    }
}

/// [`label`] of game type `G`'s rule set.
pub fn label_of<G: Game>() -> String {
    label(G::RULES)
}

/// [`label`] for what reads or writes endgame tables: a rule set that
/// reads another's tables says whose (`adjiboto (valdez, reading the
/// default rule set's tables)`).
pub fn tables_label(rules: RuleSet) -> String {
    let t = rules.tables();
    if t == rules {
        label(rules)
    } else {
        format!(
            "{} ({}, reading the {} rule set's tables)",
            rules.game(),
            rules.name(),
            t.name()
        )
    }
}

/// A non-default rule set, named in a report: its name in JSON (the key
/// `rules`), a first line with its [`label`] in text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RulesTag(pub RuleSet);

impl RulesTag {
    /// The tag of game type `G`: `None` for its default reading.
    pub fn of<G: Game>() -> Option<RulesTag> {
        (!G::RULES.is_default()).then_some(RulesTag(G::RULES))
    }

    /// Writes the header line of `tag`, if any.
    pub fn header(tag: &Option<RulesTag>, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match tag {
            Some(t) => writeln!(f, "{}", label(t.0)),
            None => Ok(()),
        }
    }
}

impl Serialize for RulesTag {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.0.name())
    }
}

/// One rule set, as `adji rules` lists it.
#[derive(Clone, Debug, Serialize)]
pub struct RuleSetInfo {
    /// Whether it is its game's default reading.
    pub default: bool,
    /// How it differs from the default (empty for a default).
    pub differences: Vec<&'static str>,
    /// The early end (a store holding more than this many seeds ends the
    /// game, played by the game driver), or none.
    pub early_end: Option<u16>,
    /// The game (`adjito` or `adjiboto`).
    pub game: &'static str,
    /// Its name (`--rules NAME`).
    pub name: &'static str,
    /// Where the reading comes from.
    pub source: &'static str,
    /// The rule set whose endgame tables it reads.
    pub tables: &'static str,
}

impl RuleSetInfo {
    /// The entry of `r`.
    pub fn new(r: RuleSet) -> Self {
        RuleSetInfo {
            default: r.is_default(),
            differences: r.differences().to_vec(),
            early_end: r.early_end(),
            game: r.game().name(),
            name: r.name(),
            source: r.source(),
            tables: r.tables().name(),
        }
    }
}

/// `adji rules`: every rule set, each game's default first. JSON is a list
/// of [`RuleSetInfo`] objects.
#[derive(Clone, Debug, Serialize)]
#[serde(transparent)]
pub struct RulesReport(pub Vec<RuleSetInfo>);

impl RulesReport {
    /// Every rule set of both games.
    pub fn new() -> Self {
        RulesReport(RuleSet::ALL.into_iter().map(RuleSetInfo::new).collect())
    }
}

impl Default for RulesReport {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Display for RulesReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, r) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            let default = if r.default { " (default)" } else { "" };
            writeln!(f, "{} --rules {}{default}", r.game, r.name)?;
            writeln!(f, "  source: {}", r.source)?;
            for d in &r.differences {
                writeln!(f, "  differs: {d}")?;
            }
            if r.tables != r.name {
                writeln!(f, "  tables: reads the {} rule set's", r.tables)?;
            }
            match r.early_end {
                Some(n) => writeln!(f, "  early end: a store holding more than {n} seeds")?,
                None => writeln!(f, "  early end: none (play until neither player can move)")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_set_is_listed_once_with_its_tables_and_end() {
        let r = RulesReport::new();
        assert_eq!(r.0.len(), RuleSet::ALL.len());
        let v = serde_json::to_value(&r).unwrap();
        let valdez = &v[4];
        assert_eq!(valdez["game"], "adjiboto");
        assert_eq!(valdez["name"], "valdez");
        assert_eq!(valdez["tables"], "default");
        assert_eq!(valdez["early_end"], 50);
        assert_eq!(v[3]["early_end"], serde_json::Value::Null);
        assert_eq!(label(RuleSet::AdjiBotoValdez), "adjiboto (valdez)");
        assert_eq!(label(RuleSet::AdjitoDefault), "adjito");
    }
}
