//! docs/rules.md §7, leaving a game in play: resignation, timeouts and abort, each in the words of
//! the rule book.

use kings_corner::rules::options::{ChipPay, Chips, GameEnd};
use kings_corner::rules::{Action, Event, OutReason, Rules, Status};

use crate::helpers::{act, hand_text, play, refusal, setup, started, table};

const DEADLINE: &str = "2026-11-30T12:00:00Z";

fn three_seats(game_end: GameEnd) -> Rules {
    Rules {
        game_end,
        ..Rules::default()
    }
}

/// §7.1 and §7.3: a player resigns on their turn: they are out, their hand is set aside, and
/// the turn passes at once to the next seat still in, with no draw and no penalty.
#[test]
fn resigning_on_ones_turn_passes_the_turn_at_once() {
    let rules = Rules {
        king_hold_penalty: 3,
        ..three_seats(GameEnd::Target(50))
    };
    let mut state = table(rules, &["KH 2C", "3C 4C", "5H 6H"], &[("N", "9S")], "7D 8D");
    let events = act(&mut state, 0, Action::Resign);
    assert_eq!(
        events,
        [
            Event::SeatOut {
                seat: 0,
                reason: OutReason::Resign,
                deadline: None,
                hand: Some(crate::helpers::cards("2C KH")),
            },
            Event::TurnStarted { seat: 1 },
        ]
    );
    assert_eq!(state.turn(), Some(1));
    assert_eq!(state.stock_count(), 2, "no draw");
    assert!(!state.is_active(0));
    assert_eq!(hand_text(&state, 0), "", "the dead hand is set aside");
    assert_eq!(refusal(&state, 0, Action::Resign), "seat_out");
    // The seats still in play on, and the turn skips the seat that left.
    act(&mut state, 1, Action::EndTurn);
    act(&mut state, 2, Action::EndTurn);
    assert_eq!(state.turn(), Some(1));
}

/// §7.1: resigning needs no turn; the seat to move keeps it.
#[test]
fn resigning_off_turn_leaves_the_turn_where_it_is() {
    let mut state = table(
        three_seats(GameEnd::Target(50)),
        &["2C 3C", "4C 5C", "6H 7H"],
        &[("N", "9S")],
        "7D",
    );
    let events = act(&mut state, 2, Action::Resign);
    assert_eq!(events.len(), 1);
    assert_eq!(state.turn(), Some(0));
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(state.turn(), Some(1), "seat 2 is skipped");
    act(&mut state, 1, Action::EndTurn);
    assert_eq!(state.turn(), Some(0));
}

/// §7.4: when only one seat is still in, the match ends at once and that seat wins it, even
/// in the middle of a hand and against better totals.
#[test]
fn the_last_seat_in_wins_at_once() {
    let mut state = table(
        Rules {
            players: 2,
            ..Rules::default()
        },
        &["2C 3C", "4C 5C"],
        &[("N", "9S")],
        "7D",
    );
    let events = act(&mut state, 1, Action::Resign);
    assert!(matches!(
        events.last(),
        Some(Event::GameEnded { winners, .. }) if winners == &[0]
    ));
    assert_eq!(state.status(), Status::Finished);
    assert_eq!(state.winners(), Some(&[0][..]));
}

/// §7.3 and §7: a timeout is the server's forfeit of the seat to move, recording the
/// deadline it enforced; it has the same effect as a resignation.
#[test]
fn a_timeout_forfeits_the_seat_to_move_and_records_its_deadline() {
    let state = table(
        three_seats(GameEnd::Target(50)),
        &["2C 3C", "4C 5C", "6H 7H"],
        &[("N", "9S")],
        "7D",
    );
    assert_eq!(
        state.forfeit(1, DEADLINE.to_owned()).unwrap_err().code(),
        "not_your_turn",
        "only the seat to move runs out of time"
    );
    let events = state.forfeit(0, DEADLINE.to_owned()).unwrap();
    assert_eq!(
        events[0],
        Event::SeatOut {
            seat: 0,
            reason: OutReason::Timeout,
            deadline: Some(DEADLINE.to_owned()),
            hand: Some(crate::helpers::cards("2C 3C")),
        }
    );
    assert_eq!(events[1], Event::TurnStarted { seat: 1 });
}

/// §7.2: until the first action of the first hand any seated player may abort; the match
/// ends as aborted, nobody wins. After a card is played, it is too late: resign instead.
#[test]
fn abort_only_before_the_first_action() {
    let rules = Rules {
        players: 2,
        ..Rules::default()
    };
    let (state, _) = started(setup(rules.clone()));
    assert!(state.can_abort());
    let other = 1 - state.turn().unwrap();
    let mut aborted = state.clone();
    assert_eq!(
        act(&mut aborted, other, Action::Abort),
        [Event::MatchAborted { seat: other }]
    );
    assert_eq!(aborted.status(), Status::Aborted);
    assert_eq!(aborted.winners(), None);

    let mut state = table(rules, &["8D 2C", "3C"], &[("N", "9S")], "7D");
    assert!(state.can_abort());
    act(&mut state, 0, play("8D", "N"));
    assert!(!state.can_abort());
    assert_eq!(refusal(&state, 1, Action::Abort), "too_late_to_abort");
}

/// §7.2: the server's own start-of-turn draw (`draw: start`) is not a player's action.
#[test]
fn abort_is_still_open_after_the_automatic_first_draw() {
    let rules = Rules {
        players: 3,
        ..kings_corner::rules::Preset::DrawFirst.rules()
    };
    let (state, events) = started(setup(rules));
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::CardsDrawn { .. }))
    );
    assert!(state.can_abort());
}

/// §7.3: a seat that left is not dealt into later hands, scores nothing, keeps its chips and
/// antes no more; blocked hands count the seats still in.
#[test]
fn a_seat_that_left_is_not_dealt_in_and_pays_nothing_more() {
    let rules = Rules {
        chips: Some(Chips {
            ante: 2,
            idle_turn: 0,
            pay: ChipPay::Penalty,
        }),
        ..three_seats(GameEnd::Hands(3))
    };
    let mut state = table(rules, &["9D", "KS 7D 2C", "3C 4C"], &[("N", "10S")], "");
    act(&mut state, 2, Action::Resign);
    let chips_before = state.spectator_view().seats[2].chips;
    let events = act(&mut state, 0, play("9D", "N"));
    let result = events
        .iter()
        .find_map(|event| match event {
            Event::HandEnded(result) => Some(result.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(result.hand_scores[2], 0, "scores nothing");
    let dealt = events
        .iter()
        .find_map(|event| match event {
            Event::HandDealt { hands, .. } => Some(hands.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(dealt[2].as_ref().map(Vec::len), Some(0), "not dealt in");
    assert_eq!(dealt[0].as_ref().map(Vec::len), Some(7));
    let seat_two = &state.spectator_view().seats[2];
    assert_eq!(seat_two.chips, chips_before, "antes no more");
    assert_eq!(seat_two.left, Some(OutReason::Resign));
    assert_ne!(state.turn(), Some(2));
}

/// §7.5: in a game to a target, the seats still in win by their totals, whatever the totals
/// of a seat that left.
#[test]
fn seats_that_left_rank_below_the_seats_still_in() {
    let mut state = table(
        three_seats(GameEnd::Target(1)),
        &["9D", "KS 7D", "3C 4C"],
        &[("N", "10S")],
        "",
    );
    // Seat 2 holds the fewest points but leaves; seat 0 goes out: seat 1 reaches the target.
    act(&mut state, 2, Action::Resign);
    act(&mut state, 0, play("9D", "N"));
    assert_eq!(state.winners(), Some(&[0][..]));
    assert_eq!(state.status(), Status::Finished);
}

/// §7.5: the last seat in places first; the seats that left place below it, a later leaver
/// above an earlier one, whatever their totals.
#[test]
fn standings_place_leavers_last_a_later_leaver_above_an_earlier_one() {
    let rules = Rules {
        players: 4,
        ..Rules::default()
    };
    let mut state = table(rules, &["2C", "3C", "4C", "5C"], &[("N", "9S")], "7D 8D");
    assert_eq!(state.standings(), None, "no standings while playing");
    act(&mut state, 1, Action::Resign);
    act(&mut state, 3, Action::Resign);
    act(&mut state, 0, Action::Resign);
    assert_eq!(state.status(), Status::Finished);
    assert_eq!(state.standings(), Some(vec![2, 4, 1, 3]));
}

/// §7.5: seats still in at the end place by the game's end (here totals, lowest first), equal
/// totals share a place, and a seat that resigned places below them all.
#[test]
fn standings_of_seats_still_in_follow_their_totals_and_share_ties() {
    let rules = Rules {
        players: 4,
        game_end: GameEnd::Target(1),
        ..Rules::default()
    };
    // Seat 0 goes out with its last card; seats 1 and 2 hold one card each (1 point); seat 3
    // resigned first and scores nothing.
    let mut state = table(rules, &["8H", "2C", "4C", "3C"], &[("N", "9S")], "7D 8D");
    act(&mut state, 3, Action::Resign);
    act(&mut state, 0, play("8H", "N"));
    assert_eq!(state.status(), Status::Finished);
    assert_eq!(state.totals(), &[0, 1, 1, 0]);
    assert_eq!(state.standings(), Some(vec![1, 2, 2, 4]));
}

/// docs/ratings.md, "Which ends are rated": a turn ended where `end_turn` was all the seat could
/// do is not a turn of its own, even when the end-of-turn draw brings a card that would have
/// fitted; a turn ended at once while a play was open is.
#[test]
fn only_a_turn_with_a_choice_in_it_is_a_seats_own() {
    let two = Rules {
        players: 2,
        ..Rules::default()
    };
    let sides = [("N", "9S"), ("E", "9H"), ("S", "5D"), ("W", "5C")];
    // Seat 0 holds nothing that fits anywhere; the 8H it draws would go on the 9S.
    let mut stuck = table(two.clone(), &["2C 3D", "2H 3S"], &sides, "8H 7D 7C");
    assert_eq!(stuck.legal_actions(0), [Action::EndTurn]);
    act(&mut stuck, 0, Action::EndTurn);
    act(&mut stuck, 0, Action::Resign);
    assert_eq!(stuck.status(), Status::Finished);
    assert_eq!(stuck.left_before_taking_a_turn().collect::<Vec<_>>(), [0]);

    // The same seat with the 8H in hand ends its turn without playing it: its own turn.
    let mut chose = table(two, &["2C 8H", "2H 3S"], &sides, "3D 7D 7C");
    act(&mut chose, 0, Action::EndTurn);
    act(&mut chose, 0, Action::Resign);
    assert_eq!(chose.left_before_taking_a_turn().count(), 0);
}
