//! docs/rules.md §6.16–§6.18, the readings that change play: a scenario each, in the words of the
//! reading, with the table that shows it.

use kings_corner::rules::options::GameEnd;
use kings_corner::rules::{Action, Event, Rules, Status};

use crate::helpers::{act, move_pile, pile_text, play, refusal, table};

fn starter_rules(ace_wrap: bool) -> Rules {
    Rules {
        ace_starter_takes_two: true,
        ace_wrap,
        ..Rules::default()
    }
}

/// §6.16: with `ace_wrap` and `ace_starter_takes_two` together, a lone starter ace takes a 2 of
/// the other colour or a king of the other colour, and after the king it builds down as usual.
#[test]
fn reading_19_a_lone_ace_takes_a_two_or_with_aces_high_a_king() {
    let hands = ["KH KS QH 2C", "3C"];
    let mut state = table(starter_rules(true), &hands, &[("N", "AH")], "");
    assert_eq!(refusal(&state, 0, play("KH", "N")), "does_not_fit");
    assert!(state.decide(0, play("2C", "N")).is_ok(), "the starter rule");
    act(&mut state, 0, play("KS", "N"));
    act(&mut state, 0, play("QH", "N"));
    assert_eq!(pile_text(&state, "N"), "AH KS QH");

    // A pile whose lowest card is a king of the other colour may move onto the lone ace.
    let mut state = table(
        starter_rules(true),
        &hands,
        &[("N", "AH"), ("E", "KC QD")],
        "",
    );
    act(&mut state, 0, move_pile("E", "N"));
    assert_eq!(pile_text(&state, "N"), "AH KC QD");

    // Without `ace_wrap` the starter takes only its 2, and says so.
    let state = table(starter_rules(false), &hands, &[("N", "AH")], "");
    assert_eq!(
        state.decide(0, play("KS", "N")).unwrap_err().to_string(),
        "K♠ does not fit on A♥: a lone starter ace takes only a 2."
    );
    // Without the starter rule, `ace_wrap` alone takes the king and not the 2.
    let aces_high = Rules {
        ace_wrap: true,
        ..Rules::default()
    };
    let state = table(aces_high, &hands, &[("N", "AH")], "");
    assert!(state.decide(0, play("KS", "N")).is_ok());
    assert_eq!(refusal(&state, 0, play("2C", "N")), "does_not_fit");
}

/// §6.17: a 2 played onto a lone starter ace closes the pair for good: it may move as a whole
/// where its ace fits, and nothing goes on that 2 wherever it lies.
#[test]
fn reading_20_a_finished_starter_stays_finished_wherever_it_moves() {
    let mut state = table(
        starter_rules(false),
        &["2S AD", "3C"],
        &[("N", "AH"), ("E", "3D 2C")],
        "",
    );
    act(&mut state, 0, play("2S", "N"));
    // A♥ fits on 2♣: the closed pair moves onto E as a whole.
    act(&mut state, 0, move_pile("N", "E"));
    assert_eq!(pile_text(&state, "E"), "3D 2C AH 2S");
    assert_eq!(
        state.decide(0, play("AD", "E")).unwrap_err().to_string(),
        "A♦ does not fit on 2♠: that pile took its 2 and is finished."
    );

    // Onto a corner as well: no pile goes on its 2 there either.
    let corner = "KS QD JC 10H 9C 8H 7C 6H 5C 4H 3C 2D";
    let mut state = table(
        starter_rules(false),
        &["2H 9H", "9S"],
        &[("N", "AS"), ("NE", corner), ("W", "AC")],
        "",
    );
    act(&mut state, 0, play("2H", "N"));
    act(&mut state, 0, move_pile("N", "NE"));
    assert_eq!(pile_text(&state, "NE"), format!("{corner} AS 2H"));
    assert_eq!(refusal(&state, 0, move_pile("W", "NE")), "does_not_fit");
    assert_eq!(state.status(), Status::Playing);
}

/// §6.18: the hand size follows the players still dealt in, not the seats: a five-seat table
/// dealing 5 each deals 7 each once a player is out at the target.
#[test]
fn reading_21_hand_size_counts_the_players_still_in() {
    let rules = Rules {
        hand_size_5_plus: 5,
        game_end: GameEnd::OutAtTarget(10),
        ..Rules::default()
    };
    let mut state = table(
        rules,
        &["9D", "KS 7D 2C", "3C", "4C", "5H"],
        &[("N", "10S")],
        "",
    );
    let events = act(&mut state, 0, play("9D", "N"));
    let dealt = events
        .iter()
        .find_map(|event| match event {
            Event::HandDealt { hands, .. } => Some(hands.clone()),
            _ => None,
        })
        .expect("the next hand is dealt");
    let sizes: Vec<usize> = dealt
        .iter()
        .map(|hand| hand.as_ref().map_or(0, Vec::len))
        .collect();
    assert_eq!(sizes, [7, 0, 7, 7, 7], "four players in: 7 cards each");
    assert!(
        state
            .legal_actions(state.turn().unwrap())
            .contains(&Action::EndTurn)
    );

    // A table whose later hands could not be dealt is refused when it is created.
    let refused = Rules::resolve(&serde_json::json!({"players": 5, "hand_size": 13})).unwrap_err();
    assert_eq!(refused.option, "hand_size", "{refused}");
    assert!(
        Rules::resolve(
            &serde_json::json!({"players": 5, "hand_size": 13, "game_end": {"single_hand": true}})
        )
        .is_ok(),
        "a single hand is dealt once, at five players"
    );
}
