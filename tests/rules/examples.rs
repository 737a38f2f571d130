//! The worked examples of the rule pages docs/rules.md was distilled from, in the words of the
//! rules.

use kings_corner::rules::{Event, HandOutcome, Rules};

use crate::helpers::{act, cards, hand_text, move_pile, pile_text, play, refusal, table};

/// The example turn (000): North 10♦ 9♠, South 8♥ 7♣, East 4♣, West 2♦; hand Q♠ J♦ 6♥ 5♦ 3♠.
#[test]
fn the_example_turn() {
    let mut state = table(
        Rules::default(),
        &["QS JD 6H 5D 3S", "2C 3C 4C 5C 6C 7C 8C"],
        &[("N", "10D 9S"), ("S", "8H 7C"), ("E", "4C"), ("W", "2D")],
        "KH KD",
    );
    // Move S onto N: its bottom 8♥ fits 9♠.
    act(&mut state, 0, move_pile("S", "N"));
    assert_eq!(pile_text(&state, "S"), "");
    // 6♥ on 7♣.
    act(&mut state, 0, play("6H", "N"));
    // Q♠ into the emptied S; J♦ on Q♠.
    act(&mut state, 0, play("QS", "S"));
    act(&mut state, 0, play("JD", "S"));
    assert_eq!(pile_text(&state, "N"), "10D 9S 8H 7C 6H");
    assert_eq!(pile_text(&state, "S"), "QS JD");
    assert_eq!(hand_text(&state, 0), "5D 3S");
    // 3♠ does not fit 4♣ (both black) and nothing else fits.
    assert_eq!(refusal(&state, 0, play("3S", "E")), "does_not_fit");
    let error = state.decide(0, play("3S", "E")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "3♠ does not fit on 4♣: it must be the other colour."
    );
    let legal = state.legal_actions(0);
    assert!(
        legal
            .iter()
            .all(|action| !matches!(action, kings_corner::rules::Action::Play { .. })),
        "{legal:?}"
    );
    // Drawing ends the turn.
    let events = act(&mut state, 0, kings_corner::rules::Action::EndTurn);
    assert!(matches!(
        events[0],
        Event::CardsDrawn {
            seat: 0,
            count: 1,
            ..
        }
    ));
    assert_eq!(hand_text(&state, 0), "5D KH 3S");
    assert_eq!(state.turn(), Some(1));
}

/// The scoring example (000): Maya goes out: 0. Leo holds K♠ 7♦ 2♣: 12. Sam holds 4 cards, no kings: 4.
#[test]
fn the_scoring_example() {
    let mut state = table(
        Rules {
            game_end: kings_corner::rules::options::GameEnd::Target(50),
            ..Rules::default()
        },
        &["9D", "KS 7D 2C", "3C 4C 5H 6H"],
        &[("N", "10S"), ("E", "AH"), ("S", "AD"), ("W", "AS")],
        "2H 3H 4H",
    );
    let events = act(&mut state, 0, play("9D", "N"));
    let Some(Event::HandEnded(result)) = events
        .iter()
        .find(|event| matches!(event, Event::HandEnded(_)))
    else {
        panic!("the hand did not end: {events:?}");
    };
    assert_eq!(result.outcome, HandOutcome::WentOut { seat: 0 });
    assert_eq!(result.hand_scores, [0, 12, 4]);
    assert_eq!(result.winners, [0]);
    assert_eq!(result.hands[1], cards("2C 7D KS"));
    // The match goes on (nobody reached 50): the next hand is dealt by the next dealer.
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::HandDealt { hand: 2, .. }))
    );
}

/// The drills (001): an empty corner takes a king of any suit and nothing else; an empty side
/// space takes any card.
#[test]
fn the_drills_on_empty_spaces() {
    let state = table(
        Rules::default(),
        &["KH KC QS 2D", "3C"],
        &[("N", "9H"), ("E", "4C"), ("W", "5D")],
        "",
    );
    assert!(state.decide(0, play("KH", "NE")).is_ok());
    assert!(state.decide(0, play("KC", "SW")).is_ok());
    assert_eq!(refusal(&state, 0, play("QS", "NE")), "corner_needs_king");
    for card in ["KH", "QS", "2D"] {
        assert!(
            state.decide(0, play(card, "S")).is_ok(),
            "{card} into the empty south space"
        );
    }
    // A pile topped by 9♥ takes a black 8 only: 8♦ (same colour) is refused by its rule code.
    let state = table(Rules::default(), &["8D 8S", "3C"], &[("N", "9H")], "");
    assert_eq!(refusal(&state, 0, play("8D", "N")), "does_not_fit");
    assert!(state.decide(0, play("8S", "N")).is_ok());
}

/// Moving onto a corner (000): a side pile whose bottom card fits a corner pile's top may move
/// onto it; a corner pile never moves; a pile topped by an ace can still move when its bottom fits.
#[test]
fn moving_onto_a_corner() {
    let mut state = table(
        Rules::default(),
        &["5C", "3C"],
        &[
            ("NE", "KS QH"),
            ("N", "JC 10D 9S 8H 7C 6D 5S 4H 3S 2D AC"),
            ("E", "QD"),
            ("S", "KD"),
        ],
        "",
    );
    // A corner pile never moves as a whole, not even into an empty side space.
    assert_eq!(
        refusal(&state, 0, move_pile("NE", "S")),
        "corner_pile_cannot_move"
    );
    // The north pile is topped by an ace and its bottom J♣ fits Q♥: it moves onto the corner.
    act(&mut state, 0, move_pile("N", "NE"));
    assert_eq!(
        pile_text(&state, "NE"),
        "KS QH JC 10D 9S 8H 7C 6D 5S 4H 3S 2D AC"
    );
    assert_eq!(pile_text(&state, "N"), "");
    // Nothing can be played on an ace.
    assert_eq!(
        state.decide(0, play("5C", "NE")).unwrap_err().to_string(),
        "5♣ does not fit on A♣: nothing can be played on an ace."
    );
    // A king in a side space may move into an empty corner, the first player included.
    act(&mut state, 0, move_pile("S", "SE"));
    assert_eq!(pile_text(&state, "SE"), "KD");
}

/// A rematch sets its first dealer instead of drawing it; a seat the table lacks is refused.
#[test]
fn a_set_first_dealer_deals_first() {
    use kings_corner::rules::{GameState, shuffle};
    let rules = Rules {
        players: 3,
        ..Rules::default()
    };
    let drawn = shuffle::first_dealer(&crate::helpers::SECRET, &["", "", ""], 3);
    for dealer in 0..3 {
        let mut setup = crate::helpers::setup(rules.clone());
        setup.first_dealer = Some(dealer);
        let state = GameState::new(setup).unwrap();
        let Event::HandDealt {
            dealer: dealt_by, ..
        } = &state.start().unwrap()[0]
        else {
            panic!("a start deals");
        };
        assert_eq!(*dealt_by, dealer, "the drawn dealer was {drawn}");
    }
    let mut setup = crate::helpers::setup(rules);
    setup.first_dealer = Some(3);
    assert!(GameState::new(setup).is_err());
}
