//! [`Unrateable`]: why a table asked for as rated cannot be (docs/ratings.md), each reason with
//! its stable code and the option it concerns.

use std::fmt;

/// Why a table asked for as rated cannot be.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unrateable {
    /// It has no clock.
    NoClock,
    /// Its late seats are played by a bot (`on_timeout: bot`).
    StandIns,
    /// It seats bots.
    Bots,
    /// Its rules are not a preset's.
    NotAPreset,
    /// It lets players ask for hints.
    Hints,
}

impl Unrateable {
    /// The problem's stable code.
    pub fn code(self) -> &'static str {
        match self {
            Unrateable::NoClock => "rated_needs_clock",
            Unrateable::StandIns => "rated_needs_claim_or_forfeit",
            Unrateable::Bots => "rated_needs_people",
            Unrateable::NotAPreset => "rated_needs_preset_rules",
            Unrateable::Hints => "rated_without_hints",
        }
    }

    /// The request field at fault.
    pub fn field(self) -> &'static str {
        match self {
            Unrateable::NoClock => "clock",
            Unrateable::StandIns => "on_timeout",
            Unrateable::Bots => "bots",
            Unrateable::NotAPreset => "rules",
            Unrateable::Hints => "hints",
        }
    }
}

impl fmt::Display for Unrateable {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Unrateable::NoClock => "A rated table needs a clock.",
            Unrateable::StandIns => {
                "A rated table needs on_timeout `claim` or `forfeit`: no bot plays a late turn."
            }
            Unrateable::Bots => "A rated table seats people only.",
            Unrateable::NotAPreset => {
                "A rated table plays a preset's rules unchanged (only the number of seats may differ)."
            }
            Unrateable::Hints => "A rated table plays without hints.",
        })
    }
}
