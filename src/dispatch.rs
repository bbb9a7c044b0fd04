//! The one dispatch point: a rule set chosen at run time (a command line's
//! `--rules`, a table header's byte, a web request, a Python call) turned
//! into the monomorphised game type that carries it as
//! [`Game::RULES`](crate::game::Game::RULES). The command line, the web
//! server and the Python package all go through [`with_rules!`](crate::with_rules);
//! none holds a copy of the table below. It sits above the games, since it
//! names their types.

/// Runs generic code for the game type of a rule set chosen at run time.
///
/// - `with_rules!(rules, f(a, b))` calls `f::<G>(a, b)` where
///   `G::RULES == rules`;
/// - `with_rules!(rules, G => expr)` evaluates `expr` with the type alias
///   `G` naming that game type (for code that is not one function call,
///   such as a front end's method body).
#[macro_export]
macro_rules! with_rules {
    ($rules:expr, $f:ident ( $($arg:expr),* )) => {
        $crate::with_rules!($rules, G => $f::<G>($($arg),*))
    };
    ($rules:expr, $G:ident => $body:expr) => {
        match $rules {
            $crate::rules::RuleSet::AdjitoDefault => {
                type $G = $crate::Adjito;
                $body
            }
            $crate::rules::RuleSet::AdjitoMustReach => {
                type $G = $crate::adjito::AdjitoMustReach;
                $body
            }
            $crate::rules::RuleSet::AdjitoSlamForbidden => {
                type $G = $crate::adjito::AdjitoSlamForbidden;
                $body
            }
            $crate::rules::RuleSet::AdjiBotoDefault => {
                type $G = $crate::AdjiBoto;
                $body
            }
            $crate::rules::RuleSet::AdjiBotoValdez => {
                type $G = $crate::adjiboto::AdjiBotoValdez;
                $body
            }
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::game::Game;
    use crate::rules::RuleSet;

    fn rules_of<G: Game>() -> RuleSet {
        G::RULES
    }

    /// Both forms reach the game type whose `RULES` is the run-time value.
    #[test]
    fn every_rule_set_reaches_its_own_type() {
        for r in RuleSet::ALL {
            assert_eq!(with_rules!(r, rules_of()), r);
            assert_eq!(with_rules!(r, G => <G as Game>::RULES), r);
        }
    }
}
