//! Who may see a match and who may act in it: the rules of access, in one place.
//!
//! A caller is a [`Viewer`], built once at the HTTP edge; at one match, a viewer has a
//! [`Role`], decided by [`Role::of`] alone. Every operation on a match asks its role what it
//! may do ([`Role::sees`], [`Role::acts`], [`Role::leaves`], [`Role::joins`],
//! [`Role::invites`]); the table of `each_operation_against_each_role` below lists the answers.
//!
//! Anyone may watch a public match, also without an account ([`Viewer::Anonymous`]); only its
//! players (and the players a rematch keeps seats for) see a private one, which is invisible
//! (`not_found`) to everybody else, but for whoever brings its spectator code
//! ([`Viewer::Spectator`]): they watch it as a spectator. Only a seated player acts, and only
//! from their own seat.

use std::collections::HashMap;

use super::MatchError;
use super::refusals::{InvitationError, SeatingError};
use crate::bots::Level;
use crate::model::Visibility;
use crate::rules::{Preset, Seat};
use crate::store::{MatchRow, SeatOf, SeatRow};

/// What stays fixed once a match has started: who sits where, who may watch, and whether the
/// server ends forced turns. Kept with the match's cached state.
#[derive(Debug)]
pub struct Table {
    public: bool,
    /// A private match's spectator code (see [`spectator`]).
    spectator_code: Option<String>,
    seats: HashMap<String, Seat>,
    /// Who sits where, by seat.
    accounts: Vec<String>,
    /// The bot in each seat a bot holds, by seat.
    bots: Vec<Option<Level>>,
    /// Whether the server ends a turn whose only legal action is `end_turn`.
    pub auto_end_turn: bool,
    /// Whether a seated player may ask for a hint.
    pub hints: bool,
    /// A rated match: the pool its end is rated in.
    pub rating_pool: Option<Preset>,
}

impl Table {
    /// The table of a started match from its row and seats.
    pub fn new(row: &MatchRow, seats: &[SeatRow]) -> Table {
        let mut table = Table::seated(
            row.visibility == Visibility::Public,
            row.auto_end_turn,
            seats
                .iter()
                .map(|seat| (seat.account_id.clone(), seat.seat)),
        );
        for seat in seats {
            if let Some(slot) = table.bots.get_mut(usize::from(seat.seat)) {
                *slot = seat.bot;
            }
        }
        table.hints = row.hints;
        table.rating_pool = row.rating_pool;
        table.spectator_code.clone_from(&row.spectator_code);
        table
    }

    /// A table of these `(account id, seat)` pairs, people all, hints allowed.
    pub fn seated(
        public: bool,
        auto_end_turn: bool,
        seats: impl IntoIterator<Item = (String, Seat)>,
    ) -> Table {
        let seats: HashMap<String, Seat> = seats.into_iter().collect();
        let mut by_seat: Vec<(Seat, String)> = seats
            .iter()
            .map(|(account_id, seat)| (*seat, account_id.clone()))
            .collect();
        by_seat.sort();
        Table {
            public,
            spectator_code: None,
            bots: vec![None; by_seat.len()],
            accounts: by_seat
                .into_iter()
                .map(|(_, account_id)| account_id)
                .collect(),
            seats,
            auto_end_turn,
            hints: true,
            rating_pool: None,
        }
    }

    /// How many seats the table has.
    pub fn seat_count(&self) -> usize {
        self.accounts.len()
    }

    /// The account in `seat`.
    pub fn account_at(&self, seat: Seat) -> Option<&str> {
        self.accounts.get(usize::from(seat)).map(String::as_str)
    }

    /// The bot in `seat`, if a bot holds it.
    pub fn bot_at(&self, seat: Seat) -> Option<Level> {
        self.bots.get(usize::from(seat)).copied().flatten()
    }

    /// The viewer's role at this started match (where no seat is kept any more).
    pub fn role(&self, viewer: Viewer<'_>) -> Role {
        let taken = viewer
            .account()
            .and_then(|account_id| self.seats.get(account_id).copied());
        let seat_of = SeatOf { taken, kept: None };
        Role::of(viewer, seat_of, self.public, self.spectator_code.as_deref())
    }
}

/// What a viewer is at one match.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A player in this seat.
    Seated(Seat),
    /// A player of the match before, for whom this rematch keeps the seat until they join.
    Reserved(Seat),
    /// Anyone else who may watch: at a public match, anybody; at a private one, whoever brings
    /// its spectator code.
    Spectator,
    /// Anyone else at a private match: for them it does not exist.
    Outsider,
}

impl Role {
    /// The role of `viewer`, who sits (or has a seat kept) as `seat_of` says, at a match that
    /// is public or not and has this spectator code.
    pub fn of(
        viewer: Viewer<'_>,
        seat_of: SeatOf,
        public: bool,
        spectator_code: Option<&str>,
    ) -> Role {
        match (seat_of.taken, seat_of.kept) {
            (Some(seat), _) => Role::Seated(seat),
            (None, Some(seat)) => Role::Reserved(seat),
            (None, None) if public || viewer.watches_by(spectator_code) => Role::Spectator,
            (None, None) => Role::Outsider,
        }
    }

    /// The role of `viewer` at the match of `row`.
    pub fn at(row: &MatchRow, viewer: Viewer<'_>, seat_of: SeatOf) -> Role {
        Role::of(
            viewer,
            seat_of,
            row.visibility == Visibility::Public,
            row.spectator_code.as_deref(),
        )
    }

    /// The seat taken or kept, if any.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Role::Seated(seat) | Role::Reserved(seat) => Some(seat),
            Role::Spectator | Role::Outsider => None,
        }
    }

    /// Whether the role sees the match (view, summary, feed, stream, replay, export), and from
    /// which seat (`None`: as a spectator).
    pub fn sees(self) -> Result<Option<Seat>, MatchError> {
        match self {
            Role::Seated(seat) | Role::Reserved(seat) => Ok(Some(seat)),
            Role::Spectator => Ok(None),
            Role::Outsider => Err(MatchError::NotFound),
        }
    }

    /// The seat the role acts from (moves, resigning, claims, talk, hints, bots, rematches).
    /// A kept seat counts: whatever it asks of a match that has not started is refused as such.
    pub fn acts(self) -> Result<Seat, MatchError> {
        self.sees()?.ok_or(MatchError::NotAPlayer)
    }

    /// The seat the role gives up by leaving: only a seat taken.
    pub fn leaves(self) -> Result<Seat, MatchError> {
        match self {
            Role::Seated(seat) => Ok(seat),
            Role::Reserved(_) | Role::Spectator => {
                Err(MatchError::Seating(SeatingError::NotSeated))
            }
            Role::Outsider => Err(MatchError::NotFound),
        }
    }

    /// Whether the role may take a seat at an open match that keeps seats for a rematch's
    /// players or not (`kept_seats`), bringing `invite_code`: `Ok(Some(seat))` for a player
    /// seated already (a retry gets the same answer), `Ok(None)` to take the next seat. A
    /// rematch's players need no code; a private match without the right code is invisible.
    pub fn joins(
        self,
        row: &MatchRow,
        kept_seats: bool,
        invite_code: Option<&str>,
    ) -> Result<Option<Seat>, MatchError> {
        match self {
            Role::Seated(seat) => Ok(Some(seat)),
            Role::Reserved(_) => Ok(None),
            Role::Spectator | Role::Outsider => {
                if row.visibility == Visibility::Private
                    && row.invite_code.as_deref() != invite_code
                {
                    Err(MatchError::NotFound)
                } else if kept_seats {
                    Err(MatchError::Seating(SeatingError::NotInRematch))
                } else {
                    Ok(None)
                }
            }
        }
    }

    /// Whether the role may invite to the match, created by the viewer or not (`creator`).
    pub fn invites(self, creator: bool) -> Result<(), MatchError> {
        self.sees()?;
        if creator {
            Ok(())
        } else {
            Err(MatchError::Invitation(InvitationError::NotCreator))
        }
    }
}

/// Who asks about a match: built once per request at the HTTP edge (the `Watcher` extractor),
/// and never spelled as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Viewer<'a> {
    /// A signed-in account, by id.
    Account(&'a str),
    /// Whoever brings a private match's spectator code (`?watch=`): a spectator of that match
    /// alone.
    Spectator {
        /// The code brought.
        code: &'a str,
    },
    /// Nobody in particular (no token, no code): a spectator of public matches only.
    Anonymous,
}

impl<'a> From<Player<'a>> for Viewer<'a> {
    fn from(player: Player<'a>) -> Viewer<'a> {
        Viewer::Account(player.0)
    }
}

/// A signed-in account acting at the tables: who creates, joins, moves, talks. Built at the HTTP
/// edge from a checked token (or by the server for work it does for an account), so that an
/// account is never mistaken for a match id or any other string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Player<'a>(&'a str);

impl<'a> Player<'a> {
    /// The account with this id.
    pub fn new(account_id: &'a str) -> Player<'a> {
        Player(account_id)
    }

    /// Its account id.
    pub fn id(self) -> &'a str {
        self.0
    }

    /// The player as a viewer.
    pub fn viewer(self) -> Viewer<'a> {
        Viewer::from(self)
    }
}

impl<'a> Viewer<'a> {
    /// The viewer's account, if they signed in.
    pub fn account(self) -> Option<&'a str> {
        match self {
            Viewer::Account(account_id) => Some(account_id),
            Viewer::Spectator { .. } | Viewer::Anonymous => None,
        }
    }

    /// Whether the viewer brings `code` (none: nobody does).
    fn watches_by(self, code: Option<&str>) -> bool {
        matches!((self, code), (Viewer::Spectator { code: brought }, Some(code)) if brought == code)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::matches::lobby::{TableSettings, open_match};
    use crate::model::OnTimeout;
    use crate::rules::Rules;

    /// Who sees a started match, by kind of viewer, public and private.
    #[test]
    fn each_kind_of_viewer_sees_what_it_may() {
        let seated = || [("a".to_owned(), 0), ("b".to_owned(), 1)];
        let public = Table::seated(true, false, seated());
        let mut private = Table::seated(false, false, seated());
        private.spectator_code = Some("code".to_owned());

        // What the viewer sees: its seat (none for a spectator), or `not_found`.
        type Sees = Result<Option<Seat>, ()>;
        let cases: [(Viewer, Sees, Sees); 6] = [
            (Viewer::Account("a"), Ok(Some(0)), Ok(Some(0))),
            (Viewer::Account("b"), Ok(Some(1)), Ok(Some(1))),
            (Viewer::Account("c"), Ok(None), Err(())),
            (Viewer::Spectator { code: "code" }, Ok(None), Ok(None)),
            (Viewer::Spectator { code: "other" }, Ok(None), Err(())),
            (Viewer::Anonymous, Ok(None), Err(())),
        ];
        for (viewer, on_public, on_private) in cases {
            let sees = |table: &Table| table.role(viewer).sees().map_err(|_| ());
            assert_eq!(sees(&public), on_public, "{viewer:?} public");
            assert_eq!(sees(&private), on_private, "{viewer:?} private");
        }
        // A spectator is never seated, even one whose code spells an account id.
        assert_eq!(
            private.role(Viewer::Spectator { code: "a" }),
            Role::Outsider
        );
    }

    /// Every operation on a match against every role: what it is allowed (the seat it acts
    /// from, `-` for none) or the code of its refusal.
    #[test]
    fn each_operation_against_each_role() {
        let open = |visibility| {
            let settings = TableSettings {
                visibility,
                rules: Rules::resolve(&serde_json::json!({})).unwrap(),
                auto_end_turn: true,
                hints: true,
                clock: None,
                on_timeout: OnTimeout::Claim,
                vacations: false,
                rating_pool: None,
            };
            open_match("creator", settings, 0).0
        };
        let public = open(Visibility::Public);
        let private = open(Visibility::Private);
        let code = private.invite_code.as_deref();
        let shown = |outcome: Result<Option<Seat>, MatchError>| match outcome {
            Ok(Some(seat)) => seat.to_string(),
            Ok(None) => "-".to_owned(),
            Err(error) => error.code().to_owned(),
        };
        type Operation<'a> = (&'a str, Box<dyn Fn(Role) -> String + 'a>);
        let operations: Vec<Operation> = vec![
            ("see", Box::new(|role: Role| shown(role.sees()))),
            ("act", Box::new(|role: Role| shown(role.acts().map(Some)))),
            (
                "leave",
                Box::new(|role: Role| shown(role.leaves().map(Some))),
            ),
            (
                "join public",
                Box::new(|role: Role| shown(role.joins(&public, false, None))),
            ),
            (
                "join a rematch",
                Box::new(|role: Role| shown(role.joins(&public, true, None))),
            ),
            (
                "join private with its code",
                Box::new(|role: Role| shown(role.joins(&private, false, code))),
            ),
            (
                "join private without",
                Box::new(|role: Role| shown(role.joins(&private, false, Some("guess")))),
            ),
            (
                "invite as creator",
                Box::new(|role: Role| shown(role.invites(true).map(|()| None))),
            ),
            (
                "invite",
                Box::new(|role: Role| shown(role.invites(false).map(|()| None))),
            ),
        ];
        let roles = [
            Role::Seated(1),
            Role::Reserved(2),
            Role::Spectator,
            Role::Outsider,
        ];
        // Seated(1), Reserved(2), Spectator, Outsider.
        let expected: [(&str, [&str; 4]); 9] = [
            ("see", ["1", "2", "-", "not_found"]),
            ("act", ["1", "2", "not_a_player", "not_found"]),
            ("leave", ["1", "not_seated", "not_seated", "not_found"]),
            ("join public", ["1", "-", "-", "-"]),
            (
                "join a rematch",
                ["1", "-", "not_in_rematch", "not_in_rematch"],
            ),
            ("join private with its code", ["1", "-", "-", "-"]),
            ("join private without", ["1", "-", "not_found", "not_found"]),
            ("invite as creator", ["-", "-", "-", "not_found"]),
            (
                "invite",
                [
                    "not_match_creator",
                    "not_match_creator",
                    "not_match_creator",
                    "not_found",
                ],
            ),
        ];
        for ((name, operation), (expected_name, answers)) in operations.iter().zip(expected) {
            assert_eq!(*name, expected_name);
            for (role, answer) in roles.iter().zip(answers) {
                assert_eq!(operation(*role), answer, "{name} as {role:?}");
            }
        }
    }

    /// A role comes from the seat taken first, then the seat kept, then the match's door.
    #[test]
    fn a_role_is_decided_from_the_seat_then_the_door() {
        let taken = SeatOf {
            taken: Some(1),
            kept: None,
        };
        let kept = SeatOf {
            taken: None,
            kept: Some(2),
        };
        let none = SeatOf::default();
        let viewer = Viewer::Account("a");
        let code = Viewer::Spectator { code: "c" };
        assert_eq!(Role::of(viewer, taken, false, None), Role::Seated(1));
        assert_eq!(Role::of(viewer, kept, false, None), Role::Reserved(2));
        assert_eq!(Role::of(viewer, none, true, None), Role::Spectator);
        assert_eq!(Role::of(viewer, none, false, Some("c")), Role::Outsider);
        assert_eq!(Role::of(code, none, false, Some("c")), Role::Spectator);
        assert_eq!(
            Role::of(Viewer::Anonymous, none, false, None),
            Role::Outsider
        );
    }
}
