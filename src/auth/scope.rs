//! Scopes: what a personal access token may do. A password session (an access token from
//! logging in) may do everything; a personal access token only what its scopes name.
//!
//! - `play`: create, join, leave and play matches, claim, invite;
//! - `read`: see matches, views, feeds, replays, exports, the account and its notifications;
//! - `webhooks`: register, list, re-enable and delete webhooks;
//! - `account`: list, create and revoke personal access tokens (never with more scopes than the
//!   token asking has) and delete the account.

use std::fmt;

/// One scope.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// Acting in matches.
    Play,
    /// Seeing matches and the account.
    Read,
    /// Managing webhooks.
    Webhooks,
    /// Managing tokens and the account.
    Account,
}

impl Scope {
    /// Every scope, in the order they are listed.
    pub const ALL: [Scope; 4] = [Scope::Play, Scope::Read, Scope::Webhooks, Scope::Account];

    /// Its name.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Play => "play",
            Scope::Read => "read",
            Scope::Webhooks => "webhooks",
            Scope::Account => "account",
        }
    }

    /// The scope of this name.
    pub fn parse(name: &str) -> Option<Scope> {
        Scope::ALL.into_iter().find(|scope| scope.name() == name)
    }

    fn bit(self) -> u8 {
        1 << (self as u8)
    }
}

impl fmt::Display for Scope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A set of scopes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Scopes(u8);

impl Scopes {
    /// Every scope: a password session.
    pub fn all() -> Scopes {
        Scope::ALL.into_iter().collect()
    }

    /// Whether `scope` is in the set.
    pub fn contains(self, scope: Scope) -> bool {
        self.0 & scope.bit() != 0
    }

    /// Whether every scope of `other` is in the set.
    pub fn covers(self, other: Scopes) -> bool {
        self.0 & other.0 == other.0
    }

    /// The scopes in the set, in [`Scope::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Scope> {
        Scope::ALL
            .into_iter()
            .filter(move |scope| self.contains(*scope))
    }

    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The names, space-separated (as stored).
    pub fn to_stored(self) -> String {
        self.iter().map(Scope::name).collect::<Vec<_>>().join(" ")
    }

    /// The set as stored; `None` if a name is unknown.
    pub fn from_stored(stored: &str) -> Option<Scopes> {
        stored.split_whitespace().map(Scope::parse).collect()
    }
}

impl FromIterator<Scope> for Scopes {
    fn from_iter<I: IntoIterator<Item = Scope>>(scopes: I) -> Scopes {
        Scopes(scopes.into_iter().fold(0, |bits, scope| bits | scope.bit()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_round_trip_and_compare() {
        let some: Scopes = [Scope::Read, Scope::Play].into_iter().collect();
        assert_eq!(some.to_stored(), "play read");
        assert_eq!(Scopes::from_stored("play read"), Some(some));
        assert_eq!(Scopes::from_stored("play admin"), None);
        assert!(Scopes::all().covers(some));
        assert!(!some.covers(Scopes::all()));
        assert!(some.contains(Scope::Read) && !some.contains(Scope::Webhooks));
        assert!(Scopes::default().is_empty());
    }
}
