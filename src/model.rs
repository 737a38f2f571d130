//! The words every layer above the rules shares about a match: where it is in its life, who may
//! see it, its clock and what a passed deadline means, how it ended, who plays a seat, and
//! where a seek for a table is. The API's schemas come from here; the store maps these to and
//! from its columns by name ([`Named`]). Nothing here imports from the store or the HTTP layer.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// A closed set of values with one name each: the name in the API (its serde name), the
/// database and on the command line.
pub trait Named: Copy + 'static {
    /// Every value.
    const ALL: &'static [Self];

    /// Its name.
    fn name(self) -> &'static str;

    /// The value of this name, if any.
    fn from_name(name: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|value| value.name() == name)
    }
}

/// Implements [`Named`] for a fieldless enum from a list of its variants and their names.
macro_rules! named {
    ($type:ty { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl Named for $type {
            const ALL: &'static [$type] = &[$(<$type>::$variant),+];

            fn name(self) -> &'static str {
                match self {
                    $(<$type>::$variant => $name),+
                }
            }
        }
    };
}

/// Where a match is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum MatchStatus {
    /// Waiting for players.
    Open,
    /// Dealt and in play.
    Playing,
    /// Over: the winners are known and the shuffle secret is revealed.
    Finished,
    /// Called off before its first action: no winners; the shuffle secret is revealed.
    Aborted,
}

named!(MatchStatus {
    Open => "open",
    Playing => "playing",
    Finished => "finished",
    Aborted => "aborted",
});

/// Who may find and watch a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed in the lobby; anyone may watch.
    #[default]
    Public,
    /// Joined with the invite code; invisible to others.
    Private,
}

named!(Visibility {
    Public => "public",
    Private => "private",
});

/// A match's clock (issue 8): so many seconds a turn, plus a bank per seat that time used
/// beyond a turn's seconds comes out of.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
pub struct ClockSettings {
    /// Seconds each turn may take before it draws on the bank.
    pub turn_seconds: u32,
    /// Seconds each seat may spend beyond its turns' seconds, over the whole match.
    pub bank_seconds: u32,
}

const DAY: u32 = 86_400;

/// Named clocks a person understands.
pub const CLOCK_PRESETS: [(&str, ClockSettings); 4] = [
    (
        "fast_5m",
        ClockSettings {
            turn_seconds: 5 * 60,
            bank_seconds: 10 * 60,
        },
    ),
    (
        "correspondence_1d",
        ClockSettings {
            turn_seconds: DAY,
            bank_seconds: 2 * DAY,
        },
    ),
    (
        "correspondence_3d",
        ClockSettings {
            turn_seconds: 3 * DAY,
            bank_seconds: 3 * DAY,
        },
    ),
    (
        "correspondence_7d",
        ClockSettings {
            turn_seconds: 7 * DAY,
            bank_seconds: 7 * DAY,
        },
    ),
];

impl ClockSettings {
    /// Whether this is a correspondence clock (turns of a day or more): the clocks a vacation
    /// stops (docs/clocks.md, "Vacations").
    pub fn is_correspondence(&self) -> bool {
        self.turn_seconds >= DAY
    }
}

/// Vacations (issue 21): the days a new account has to spend.
pub const FIRST_VACATION_DAYS: i64 = 10;
/// The most vacation days an account holds (and so the longest vacation).
pub const MOST_VACATION_DAYS: i64 = 30;
/// A vacation day, in seconds: vacations are charged by the day begun.
pub const VACATION_DAY_SECONDS: i64 = DAY as i64;

/// The longest turn a clock may give.
pub const MOST_TURN_SECONDS: u32 = 30 * DAY;
/// The largest bank a clock may give.
pub const MOST_BANK_SECONDS: u32 = 60 * DAY;

/// What a passed deadline means.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// Nothing happens by itself: any other seat still in may claim, forfeiting the late seat.
    #[default]
    Claim,
    /// The server forfeits the late seat at its deadline.
    Forfeit,
    /// At its deadline the `basic` bot plays the late seat's turn for it; the seat stays in.
    Bot,
}

named!(OnTimeout {
    Claim => "claim",
    Forfeit => "forfeit",
    Bot => "bot",
});

impl OnTimeout {
    /// What it does, in a few words a player reads when choosing it (`GET /v1/rules`).
    pub const fn description(self) -> &'static str {
        match self {
            OnTimeout::Claim => "another player may claim the late seat out",
            OnTimeout::Forfeit => "the late seat is out at once",
            OnTimeout::Bot => "a bot plays the late turn; the seat stays in",
        }
    }
}

/// How a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    /// By its `game_end`.
    Finished,
    /// Every other seat resigned.
    Resigned,
    /// The last of the other seats left because its time ran out.
    Timeout,
    /// Called off before its first action.
    Aborted,
}

named!(Outcome {
    Finished => "finished",
    Resigned => "resigned",
    Timeout => "timeout",
    Aborted => "aborted",
});

/// How well a bot plays: the kind of a seat a bot holds (a person's seat has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum Level {
    /// A uniformly random legal action.
    Random,
    /// The heuristics of the source pages: kings to corners, moves that open spaces, high
    /// cards shed first.
    Basic,
    /// Search over the unseen cards, each candidate played out with `basic`.
    Expert,
}

named!(Level {
    Random => "random",
    Basic => "basic",
    Expert => "expert",
});

impl Level {
    /// How it plays, in a few words a player reads when choosing it (`GET /v1/rules`).
    pub const fn description(self) -> &'static str {
        match self {
            Level::Random => "a random legal action",
            Level::Basic => "kings to corners, spaces opened, high cards shed first",
            Level::Expert => "searches the unseen cards, each choice played out",
        }
    }
}

/// Where a seek (quick pairing) is in its life.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum SeekStatus {
    /// Waiting for compatible seekers.
    Open,
    /// Seated in a new match with others (`match_id`).
    Matched,
    /// Withdrawn by its seeker.
    Cancelled,
    /// Not matched before its `expires_at`.
    Expired,
}

named!(SeekStatus {
    Open => "open",
    Matched => "matched",
    Cancelled => "cancelled",
    Expired => "expired",
});

#[cfg(test)]
mod tests {
    use super::*;

    /// Each name is the value's serde name, so the API, the database and the command line
    /// cannot spell a value two ways.
    fn names_are_serde_names<T: Named + Serialize + std::fmt::Debug>() {
        for value in T::ALL {
            assert_eq!(
                serde_json::to_value(value).unwrap(),
                value.name(),
                "{value:?}"
            );
            assert_eq!(
                T::from_name(value.name()).map(|found| found.name()),
                Some(value.name())
            );
        }
        assert!(T::from_name("").is_none());
    }

    #[test]
    fn every_name_is_its_serde_name_and_reads_back() {
        names_are_serde_names::<MatchStatus>();
        names_are_serde_names::<Visibility>();
        names_are_serde_names::<OnTimeout>();
        names_are_serde_names::<Outcome>();
        names_are_serde_names::<Level>();
        names_are_serde_names::<SeekStatus>();
    }
}
