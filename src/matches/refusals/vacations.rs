//! [`VacationError`]: why a vacation was refused, each refusal with its stable code. Vacations (`matches/vacations.rs`).
//! Each refusal says its [`Sort`]; the HTTP layer gives each sort its status (`http/error.rs`).

use super::Sort;
/// Why a vacation was refused (inside a [`MatchError::Vacation`](crate::matches::MatchError::Vacation)).
#[derive(Debug, thiserror::Error)]
pub enum VacationError {
    /// A vacation that cannot be taken as asked: its end not in the future, or further than
    /// the longest vacation.
    #[error("{detail}")]
    InvalidVacation {
        /// What is wrong with it.
        detail: String,
    },
    /// A vacation longer than the days the account holds.
    #[error(
        "This vacation takes {needed} days (counted by the day begun) and you hold {held}: come back sooner."
    )]
    NotEnoughVacationDays {
        /// The days the vacation asked for takes.
        needed: i64,
        /// The days the account holds.
        held: i64,
    },
    /// A vacation asked for while one is under way.
    #[error("You are on vacation until {until} already: come back first to change it.")]
    AlreadyOnVacation {
        /// When the vacation under way ends (RFC 3339).
        until: String,
    },
}

impl VacationError {
    /// What sort of refusal it is (the HTTP layer's status for it).
    pub fn sort(&self) -> Sort {
        match self {
            VacationError::InvalidVacation { .. } => Sort::Invalid,
            VacationError::NotEnoughVacationDays { .. }
            | VacationError::AlreadyOnVacation { .. } => Sort::Conflict,
        }
    }

    /// The stable, machine-readable code of the refusal.
    pub fn code(&self) -> &'static str {
        match self {
            VacationError::InvalidVacation { .. } => "invalid_vacation",
            VacationError::NotEnoughVacationDays { .. } => "not_enough_vacation_days",
            VacationError::AlreadyOnVacation { .. } => "already_on_vacation",
        }
    }

    /// The request field at fault, where one is.
    pub fn field(&self) -> Option<&str> {
        match self {
            VacationError::InvalidVacation { .. } => Some("until"),
            VacationError::NotEnoughVacationDays { .. } => Some("until"),
            _ => None,
        }
    }
}
