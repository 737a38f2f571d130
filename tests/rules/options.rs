//! One scenario per option of docs/rules.md §4 showing its effect, and the same scenario under
//! `standard` showing its absence.

use kings_corner::rules::options::{
    BlockedRule, Build, ChipPay, Chips, DrawMode, EmptySide, GameEnd, NextDeal, Scoring,
};
use kings_corner::rules::{
    Action, DrawReason, Event, GameState, HandOutcome, HandResult, Preset, Rules, Status,
};

use crate::helpers::{
    act, hand_text, move_pile, pile, pile_text, placed, play, play_joker, refusal, setup, started,
    table,
};

/// Every side space holds a king and the corners are empty: only a king can be played.
const STUCK: &[(&str, &str)] = &[("N", "KD"), ("E", "KC"), ("S", "KH"), ("W", "KS")];

fn standard() -> Rules {
    Rules::default()
}

fn hand_end(events: &[Event]) -> &HandResult {
    events
        .iter()
        .find_map(|event| {
            if let Event::HandEnded(result) = event {
                Some(result)
            } else {
                None
            }
        })
        .unwrap_or_else(|| panic!("the hand did not end: {events:?}"))
}

fn moved(from: &str, to: &str, count: u8) -> Action {
    Action::Move {
        from: pile(from),
        to: pile(to),
        count: Some(count),
    }
}

#[test]
fn players_and_hand_sizes_set_the_deal() {
    for (players, stock) in [(2, 34), (3, 27), (4, 20), (5, 13), (6, 6)] {
        let (state, _) = started(setup(Rules {
            players,
            ..standard()
        }));
        assert_eq!(state.stock_count(), stock, "{players} players");
        assert!((0..players).all(|seat| state.hand(seat).len() == 7));
    }
    let (state, _) = started(setup(Rules {
        players: 5,
        ..Preset::NightOne.rules()
    }));
    assert!(
        (0..5).all(|seat| state.hand(seat).len() == 5),
        "night-one deals 5 at 5 players"
    );
    let (state, _) = started(setup(Rules {
        players: 4,
        hand_size: 5,
        ..standard()
    }));
    assert!((0..4).all(|seat| state.hand(seat).len() == 5));
}

#[test]
fn the_deal_goes_one_card_at_a_time_from_the_dealers_left() {
    let setup = setup(Rules {
        players: 3,
        ..standard()
    });
    let (state, events) = started(setup.clone());
    let Event::HandDealt {
        dealer,
        hands,
        layout,
        stock,
        ..
    } = &events[0]
    else {
        panic!("{events:?}")
    };
    let deck = kings_corner::rules::shuffle::shuffled_deck(
        &setup.secret,
        &setup.client_seeds,
        1,
        1,
        false,
    );
    let first = usize::from((dealer + 1) % 3);
    assert_eq!(hands[first].as_ref().unwrap()[0], deck[0]);
    assert_eq!(hands[(first + 1) % 3].as_ref().unwrap()[0], deck[1]);
    assert_eq!(hands[first].as_ref().unwrap()[1], deck[3]);
    assert_eq!(
        layout
            .iter()
            .map(|face| kings_corner::rules::Card::Natural(*face))
            .collect::<Vec<_>>(),
        deck[21..25]
    );
    assert_eq!(stock.as_ref().unwrap()[..], deck[25..]);
    assert_eq!(
        state.turn(),
        Some(first as u8),
        "the player left of the dealer starts"
    );
}

#[test]
fn two_decks_and_jokers_make_the_deck() {
    let (state, _) = started(setup(Rules {
        decks: 2,
        players: 8,
        jokers: true,
        hand_size_5_plus: 5,
        ..standard()
    }));
    assert_eq!(state.all_cards().len(), 108);
    let (state, _) = started(setup(standard()));
    assert_eq!(state.all_cards().len(), 52);
    assert!(
        !state
            .all_cards()
            .contains(&kings_corner::rules::Card::Joker)
    );
}

#[test]
fn a_joker_is_played_as_a_named_card_and_counts_as_it() {
    let rules = Rules {
        jokers: true,
        ..standard()
    };
    let mut state = table(rules, &["JK 6C 2D", "3C"], &[("N", "8S")], "");
    assert_eq!(refusal(&state, 0, play("JK", "N")), "joker_needs_identity");
    assert_eq!(refusal(&state, 0, play_joker("7S", "N")), "does_not_fit");
    assert_eq!(
        refusal(
            &state,
            0,
            Action::Play {
                card: "6C".parse().unwrap(),
                as_face: Some("7H".parse().unwrap()),
                to: pile("N")
            }
        ),
        "not_a_joker"
    );
    act(&mut state, 0, play_joker("7H", "N"));
    assert_eq!(pile_text(&state, "N"), "8S JK7H");
    act(&mut state, 0, play("6C", "N"));
    assert_eq!(pile_text(&state, "N"), "8S JK7H 6C");
    // Each identity that fits is its own legal action.
    let state = table(
        Rules {
            jokers: true,
            ..standard()
        },
        &["JK", "3C"],
        &[("N", "8S"), ("E", "KH"), ("S", "AD"), ("W", "AC")],
        "",
    );
    let plays: Vec<String> = state
        .legal_actions(0)
        .iter()
        .filter_map(|action| match action {
            Action::Play {
                as_face: Some(face),
                to,
                ..
            } => Some(format!("{face}>{to}")),
            _ => None,
        })
        .collect();
    assert_eq!(
        plays,
        [
            "7D>N", "7H>N", "QC>E", "QS>E", "KC>NE", "KD>NE", "KH>NE", "KS>NE", "KC>SE", "KD>SE",
            "KH>SE", "KS>SE", "KC>SW", "KD>SW", "KH>SW", "KS>SW", "KC>NW", "KD>NW", "KH>NW",
            "KS>NW"
        ]
    );
}

#[test]
fn draw_start_draws_when_the_turn_begins_and_end_turn_only_passes() {
    let (_, events) = started(setup(Rules {
        draw: DrawMode::Start,
        ..standard()
    }));
    assert!(
        matches!(
            events.last(),
            Some(Event::CardsDrawn {
                reason: DrawReason::TurnStart,
                count: 1,
                ..
            })
        ),
        "{events:?}"
    );
    let mut state = table(
        Rules {
            draw: DrawMode::Start,
            ..standard()
        },
        &["2C", "3C"],
        STUCK,
        "4H 5H",
    );
    let events = act(&mut state, 0, Action::EndTurn);
    assert!(matches!(
        events[0],
        Event::TurnEnded {
            seat: 0,
            passed: false
        }
    ));
    assert!(matches!(
        events[2],
        Event::CardsDrawn {
            seat: 1,
            reason: DrawReason::TurnStart,
            ..
        }
    ));
    assert_eq!(hand_text(&state, 0), "2C");
    // Standard: no draw at the start; end_turn draws.
    let (_, events) = started(setup(standard()));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::CardsDrawn { .. }))
    );
    let mut state = table(standard(), &["2C", "3C"], STUCK, "4H 5H");
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(hand_text(&state, 0), "2C 4H");
}

#[test]
fn when_stuck_draws_only_when_stuck_and_ends_the_turn_if_nothing_fits() {
    let rules = Rules {
        draw: DrawMode::WhenStuck,
        ..standard()
    };
    // Stuck: end_turn is refused until the player draws; an unplayable draw ends the turn.
    let mut state = table(rules.clone(), &["2C", "3C"], STUCK, "4H 5H");
    assert_eq!(refusal(&state, 0, Action::EndTurn), "must_draw");
    let events = act(&mut state, 0, Action::Draw);
    assert!(matches!(
        events[0],
        Event::CardsDrawn {
            reason: DrawReason::Draw,
            ..
        }
    ));
    assert!(
        events
            .iter()
            .any(|event| matches!(event, Event::TurnEnded { seat: 0, .. })),
        "{events:?}"
    );
    assert_eq!(state.turn(), Some(1));
    // A playable draw: the player plays on.
    let mut state = table(rules.clone(), &["2C", "3C"], STUCK, "QS 5H");
    act(&mut state, 0, Action::Draw);
    assert_eq!(state.turn(), Some(0));
    assert_eq!(refusal(&state, 0, Action::Draw), "draw_not_allowed");
    act(&mut state, 0, play("QS", "N"));
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(state.turn(), Some(1));
    // Not stuck: no draw, and a card must be played before the turn ends.
    let state = table(rules, &["QS 2C", "3C"], STUCK, "4H");
    assert_eq!(refusal(&state, 0, Action::Draw), "draw_not_allowed");
    assert_eq!(refusal(&state, 0, Action::EndTurn), "must_play");
    // Standard: no mid-turn draw at all.
    let state = table(standard(), &["2C", "3C"], STUCK, "4H 5H");
    assert_eq!(refusal(&state, 0, Action::Draw), "draw_not_allowed");
}

#[test]
fn draw_count_two_draws_two() {
    let draw_two = |stock| {
        let rules = Rules {
            draw_count: 2,
            ..standard()
        };
        let mut state = table(rules, &["2C", "3C"], &[("N", "KD")], stock);
        act(&mut state, 0, Action::EndTurn);
        hand_text(&state, 0)
    };
    assert_eq!(draw_two("4H 5H 6H"), "2C 4H 5H");
    assert_eq!(draw_two("4H"), "2C 4H", "fewer if the stock is short");
}

#[test]
fn draw_until_playable_draws_until_a_card_fits_then_draws_as_usual() {
    let rules = Rules {
        draw_until_playable: true,
        ..standard()
    };
    let mut state = table(rules, &["2C", "3C"], STUCK, "4H 5H QS 7H 8H");
    assert_eq!(refusal(&state, 0, Action::EndTurn), "must_draw");
    let events = act(&mut state, 0, Action::Draw);
    assert!(
        matches!(events[0], Event::CardsDrawn { count: 3, .. }),
        "{events:?}"
    );
    act(&mut state, 0, play("QS", "N"));
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(hand_text(&state, 0), "2C 4H 5H 7H");
    // Standard: a stuck player simply ends the turn.
    let state = table(standard(), &["2C", "3C"], STUCK, "4H 5H QS");
    assert!(state.decide(0, Action::EndTurn).is_ok());
}

#[test]
fn must_play_refuses_to_end_the_turn_while_a_card_fits() {
    let state = table(
        Rules {
            must_play: true,
            ..standard()
        },
        &["QS 2C", "3C"],
        &[("N", "KD")],
        "4H",
    );
    assert_eq!(refusal(&state, 0, Action::EndTurn), "must_play");
    assert!(!state.legal_actions(0).contains(&Action::EndTurn));
    let state = table(standard(), &["QS 2C", "3C"], &[("N", "KD")], "4H");
    assert!(state.legal_actions(0).contains(&Action::EndTurn));
}

#[test]
fn king_hold_penalty_charges_a_king_held_while_a_corner_is_empty() {
    let mut state = table(
        Rules {
            king_hold_penalty: 3,
            ..standard()
        },
        &["KS 2C", "3C"],
        &[("N", "KD")],
        "4H",
    );
    let events = act(&mut state, 0, Action::EndTurn);
    assert_eq!(events[0], Event::KingHoldPenalized { seat: 0, points: 3 });
    assert_eq!(state.spectator_view().seats[0].hand_penalties, 3);
    let mut state = table(standard(), &["KS 2C", "3C"], &[("N", "KD")], "4H");
    let events = act(&mut state, 0, Action::EndTurn);
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::KingHoldPenalized { .. }))
    );
}

#[test]
fn empty_side_king_only_takes_only_kings() {
    let state = table(
        Rules {
            empty_side: EmptySide::KingOnly,
            ..standard()
        },
        &["QS KH", "3C"],
        &[("N", "KD")],
        "4H",
    );
    assert_eq!(refusal(&state, 0, play("QS", "E")), "side_needs_king");
    assert!(state.decide(0, play("KH", "E")).is_ok());
    let state = table(standard(), &["QS KH", "3C"], &[("N", "KD")], "4H");
    assert!(state.decide(0, play("QS", "E")).is_ok());
}

#[test]
fn empty_side_from_stock_refills_at_the_start_of_each_turn() {
    let rules = Rules {
        empty_side: EmptySide::FromStock,
        ..standard()
    };
    let mut state = table(
        rules.clone(),
        &["QS 2C", "3C"],
        &[("N", "KD"), ("E", "5C"), ("S", "6C")],
        "4H 9H 8H",
    );
    assert_eq!(refusal(&state, 0, play("QS", "W")), "space_awaits_stock");
    let events = act(&mut state, 0, Action::EndTurn);
    assert!(
        events.contains(&Event::SideRefilled {
            pile: pile("W"),
            card: "9H".parse().unwrap()
        }),
        "{events:?}"
    );
    assert_eq!(pile_text(&state, "W"), "9H");
    // Once the stock is gone, any card from hand fills the space.
    let state = table(
        rules,
        &["QS 2C", "3C"],
        &[("N", "KD"), ("E", "5C"), ("S", "6C")],
        "",
    );
    assert!(state.decide(0, play("2C", "W")).is_ok());
    // A joker turned up goes to the bottom of the stock and the next card is turned instead.
    let rules = Rules {
        empty_side: EmptySide::FromStock,
        jokers: true,
        ..standard()
    };
    let mut state = table(
        rules,
        &["QS 2C", "3C"],
        &[("N", "KD"), ("E", "5C"), ("S", "6C")],
        "4H JK 8H 7H",
    );
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(pile_text(&state, "W"), "8H");
    assert_eq!(state.stock_count(), 2);
    act(&mut state, 1, Action::EndTurn);
    assert_eq!(
        hand_text(&state, 1),
        "3C 7H",
        "the joker waits at the bottom"
    );
    // Standard: the space is filled from hand at once.
    let state = table(
        standard(),
        &["QS 2C", "3C"],
        &[("N", "KD"), ("E", "5C"), ("S", "6C")],
        "4H 9H",
    );
    assert!(state.decide(0, play("QS", "W")).is_ok());
}

#[test]
fn pile_to_empty_side_lets_a_pile_fill_a_space() {
    let layout = [("N", "KD"), ("E", "5C 4H")];
    let mut state = table(
        Rules {
            pile_to_empty_side: true,
            ..standard()
        },
        &["2C", "3C"],
        &layout,
        "4D",
    );
    act(&mut state, 0, move_pile("E", "S"));
    assert_eq!(pile_text(&state, "S"), "5C 4H");
    let state = table(standard(), &["2C", "3C"], &layout, "4D");
    assert_eq!(
        refusal(&state, 0, move_pile("E", "S")),
        "pile_to_empty_side_off"
    );
}

#[test]
fn partial_runs_move_the_top_part_of_a_pile() {
    let layout = [("N", "10S 9H 8C 7D"), ("E", "9D")];
    let mut state = table(
        Rules {
            partial_runs: true,
            ..standard()
        },
        &["2C", "3C"],
        &layout,
        "4D",
    );
    assert_eq!(refusal(&state, 0, move_pile("N", "E")), "bad_count");
    assert_eq!(refusal(&state, 0, moved("N", "E", 3)), "does_not_fit");
    act(&mut state, 0, moved("N", "E", 2));
    assert_eq!(pile_text(&state, "E"), "9D 8C 7D");
    assert_eq!(pile_text(&state, "N"), "10S 9H");
    let state = table(standard(), &["2C", "3C"], &layout, "4D");
    assert_eq!(refusal(&state, 0, moved("N", "E", 2)), "bad_count");
}

#[test]
fn side_and_corner_builds() {
    let layout = [("N", "9H"), ("NE", "KH")];
    let suit = Rules {
        side_build: Build::DownSuit,
        corner_build: Build::DownSuit,
        ..standard()
    };
    let state = table(suit, &["8H 8S QH QS", "3C"], &layout, "");
    assert!(state.decide(0, play("8H", "N")).is_ok());
    assert_eq!(refusal(&state, 0, play("8S", "N")), "does_not_fit");
    assert!(state.decide(0, play("QH", "NE")).is_ok());
    assert_eq!(refusal(&state, 0, play("QS", "NE")), "does_not_fit");
    let up = Rules {
        side_build: Build::UpAlternating,
        ..standard()
    };
    let state = table(up, &["10S 8S QS", "3C"], &layout, "");
    assert!(state.decide(0, play("10S", "N")).is_ok());
    assert_eq!(refusal(&state, 0, play("8S", "N")), "does_not_fit");
    assert!(
        state.decide(0, play("QS", "NE")).is_ok(),
        "corners still build down"
    );
    let state = table(standard(), &["8H 8S QH QS", "3C"], &layout, "");
    assert_eq!(refusal(&state, 0, play("8H", "N")), "does_not_fit");
    assert!(state.decide(0, play("8S", "N")).is_ok());
    assert!(state.decide(0, play("QS", "NE")).is_ok());
}

#[test]
fn ace_wrap_lets_a_king_go_on_an_ace() {
    let layout = [("N", "2D AS")];
    let state = table(
        Rules {
            ace_wrap: true,
            ..standard()
        },
        &["KH KS", "3C"],
        &layout,
        "",
    );
    assert!(state.decide(0, play("KH", "N")).is_ok());
    assert_eq!(refusal(&state, 0, play("KS", "N")), "does_not_fit");
    let state = table(standard(), &["KH", "3C"], &layout, "");
    assert_eq!(refusal(&state, 0, play("KH", "N")), "does_not_fit");
}

#[test]
fn ace_starter_takes_a_two_and_is_then_finished() {
    let rules = Rules {
        ace_starter_takes_two: true,
        ..standard()
    };
    let mut state = table(rules, &["2S 2H AD", "3C"], &[("N", "AH")], "");
    assert_eq!(refusal(&state, 0, play("2H", "N")), "does_not_fit");
    act(&mut state, 0, play("2S", "N"));
    assert_eq!(
        state.decide(0, play("AD", "N")).unwrap_err().to_string(),
        "A♦ does not fit on 2♠: that pile took its 2 and is finished."
    );
    let state = table(standard(), &["2S", "3C"], &[("N", "AH")], "");
    assert_eq!(refusal(&state, 0, play("2S", "N")), "does_not_fit");
}

#[test]
fn foundations_build_up_in_suit_from_the_ace() {
    let rules = Rules {
        foundations: true,
        ..standard()
    };
    let mut state = table(rules, &["AH 2H 3S", "3C"], &[("N", "4C 3H")], "");
    assert_eq!(refusal(&state, 0, play("2H", "FH")), "does_not_fit");
    act(&mut state, 0, play("AH", "FH"));
    act(&mut state, 0, play("2H", "FH"));
    assert_eq!(refusal(&state, 0, play("3S", "FH")), "does_not_fit");
    // The top card of a pile moves to a foundation; nothing comes back.
    act(&mut state, 0, move_pile("N", "FH"));
    assert_eq!(pile_text(&state, "FH"), "AH 2H 3H");
    assert_eq!(pile_text(&state, "N"), "4C");
    assert_eq!(
        refusal(&state, 0, move_pile("FH", "E")),
        "foundation_is_final"
    );
    let state = table(standard(), &["AH", "3C"], &[("N", "4C")], "");
    assert_eq!(refusal(&state, 0, play("AH", "FH")), "no_such_pile");
}

const FULL_CORNER: &str = "KS QH JC 10D 9S 8H 7C 6D 5S 4H 3S 2D";

#[test]
fn collect_corners_claims_a_corner_completed_to_the_ace() {
    let rules = Rules {
        collect_corners: true,
        ..standard()
    };
    let mut state = table(rules, &["AC 5C", "3C 4C"], &[("NE", FULL_CORNER)], "");
    let events = act(&mut state, 0, play("AC", "NE"));
    assert!(matches!(&events[1], Event::CornerClaimed { seat: 0, cards, .. } if cards.len() == 13));
    assert_eq!(pile_text(&state, "NE"), "");
    let seen = &state.spectator_view().seats[0];
    assert_eq!(seen.claimed_corners, 1);
    assert_eq!(
        seen.claimed,
        [placed(&format!("{FULL_CORNER} AC"))],
        "with its cards"
    );
    let mut state = table(standard(), &["AC 5C", "3C 4C"], &[("NE", FULL_CORNER)], "");
    let events = act(&mut state, 0, play("AC", "NE"));
    assert_eq!(events.len(), 1);
    assert_eq!(state.pile(pile("NE")).len(), 13);
}

#[test]
fn the_player_with_most_corners_wins_the_hand_even_if_another_goes_out() {
    let rules = Rules {
        collect_corners: true,
        game_end: GameEnd::SingleHand,
        ..standard()
    };
    let mut state = table(
        rules,
        &["AC 5C", "QD"],
        &[
            ("NE", FULL_CORNER),
            ("N", "KS"),
            ("E", "KC"),
            ("S", "KH"),
            ("W", "KD"),
        ],
        "",
    );
    act(&mut state, 0, play("AC", "NE"));
    act(&mut state, 0, Action::EndTurn);
    let events = act(&mut state, 1, play("QD", "N"));
    let result = hand_end(&events);
    assert_eq!(result.outcome, HandOutcome::WentOut { seat: 1 });
    assert_eq!(result.winners, [0]);
    assert_eq!(
        result.hand_scores,
        [1, 0],
        "scores are unchanged by corners"
    );
    assert_eq!(state.winners(), Some(&[0][..]));
}

fn blocked_table(rules: Rules) -> GameState {
    table(rules, &["2C 3C", "4C", "5C 6C 7C"], STUCK, "")
}

fn pass_round(state: &mut GameState) -> Vec<Event> {
    let mut events = Vec::new();
    for seat in 0..state.players() {
        events.extend(act(state, seat, Action::EndTurn));
    }
    events
}

#[test]
fn a_round_of_passes_with_an_empty_stock_blocks_the_hand() {
    let mut state = blocked_table(standard());
    let events = pass_round(&mut state);
    let result = hand_end(&events);
    assert_eq!(result.outcome, HandOutcome::Blocked);
    assert_eq!(result.hand_scores, [2, 1, 3], "a blocked hand has no zero");
    assert!(result.winners.is_empty());
}

#[test]
fn fewest_cards_wins_a_blocked_hand() {
    let mut state = blocked_table(Rules {
        blocked: BlockedRule::FewestCardsWins,
        ..standard()
    });
    let events = pass_round(&mut state);
    let result = hand_end(&events);
    assert_eq!(result.winners, [1]);
    assert_eq!(result.hand_scores, [2, 0, 3]);
    // A tie on count is a draw: no winner, everyone scores.
    let mut state = table(
        Rules {
            blocked: BlockedRule::FewestCardsWins,
            ..standard()
        },
        &["2C", "4C"],
        STUCK,
        "",
    );
    let result = hand_end(&pass_round(&mut state)).clone();
    assert!(result.winners.is_empty());
    assert_eq!(result.hand_scores, [1, 1]);
}

#[test]
fn scoring_schemes_score_the_cards_left() {
    let schemes = [
        (Scoring::Penalty, 12),
        (Scoring::JqTwo, 13),
        (Scoring::FaceValue, 27),
        (Scoring::Kings25, 27),
        (Scoring::Pip, 27),
        (Scoring::None, 0),
    ];
    for (scoring, expected) in schemes {
        let rules = Rules {
            scoring: scoring.clone(),
            game_end: GameEnd::Hands(3),
            ..standard()
        };
        let mut state = table(rules, &["9D", "KS 7D QC"], &[("N", "10S")], "");
        let result = hand_end(&act(&mut state, 0, play("9D", "N"))).clone();
        assert_eq!(result.hand_scores, [0, expected], "{scoring:?}");
    }
}

#[test]
fn chips_ante_idle_turns_and_payment_to_the_player_who_goes_out() {
    let chips = Chips {
        ante: 2,
        idle_turn: 1,
        pay: ChipPay::Penalty,
    };
    let (state, _) = started(setup(Rules {
        chips: Some(chips),
        ..standard()
    }));
    assert_eq!(state.spectator_view().pot, Some(8));
    assert!(
        state
            .spectator_view()
            .seats
            .iter()
            .all(|seat| seat.chips == Some(-2))
    );
    let rules = Rules {
        chips: Some(chips),
        ..standard()
    };
    let mut state = table(
        rules,
        &["9D", "KS 7D"],
        &[("N", "10S"), ("E", "KC"), ("S", "KH"), ("W", "KD")],
        "8S 5H",
    );
    let events = act(&mut state, 0, Action::EndTurn);
    assert!(events.contains(&Event::ChipsToPot { seat: 0, chips: 1 }));
    act(&mut state, 1, Action::EndTurn);
    act(&mut state, 0, play("9D", "N"));
    let result = hand_end(&act(&mut state, 0, play("8S", "N"))).clone();
    let settlement = result.chips.unwrap();
    assert_eq!(settlement.pot_won_by, Some(0));
    assert_eq!(settlement.pot, 2);
    // Seat 1 holds K♠ 7♦ 5♥: 10 + 1 + 1 chips.
    assert_eq!(settlement.payments, [2 + 12, -12]);
    let (state, _) = started(setup(standard()));
    assert_eq!(state.spectator_view().pot, None);
}

#[test]
fn game_end_modes() {
    let went_out = |game_end| {
        let rules = Rules {
            game_end,
            ..standard()
        };
        let mut state = table(
            rules,
            &["9D", "KS 7D 2C", "3C 4C 5H 6H"],
            &[("N", "10S")],
            "",
        );
        let events = act(&mut state, 0, play("9D", "N"));
        (state, events)
    };
    // target: the match ends when someone reaches it; the lowest total wins.
    let (state, events) = went_out(GameEnd::Target(10));
    assert_eq!(state.status(), Status::Finished);
    assert!(matches!(events.last(), Some(Event::GameEnded { winners, .. }) if winners == &[0]));
    let (state, _) = went_out(GameEnd::Target(50));
    assert_eq!(state.status(), Status::Playing, "nobody reached 50");
    // single_hand: one hand.
    let (state, _) = went_out(GameEnd::SingleHand);
    assert_eq!(state.winners(), Some(&[0][..]));
    // out_at_target: seat 1 (12) is out; the others play on, dealt without seat 1.
    let (state, events) = went_out(GameEnd::OutAtTarget(10));
    assert_eq!(hand_end(&events).eliminated, [1]);
    assert_eq!(state.status(), Status::Playing);
    assert!(state.hand(1).is_empty());
    assert_eq!(state.hand(0).len(), 7);
    // hands_won: first to win n hands.
    let (state, _) = went_out(GameEnd::HandsWon(1));
    assert_eq!(state.winners(), Some(&[0][..]));
    let (state, _) = went_out(GameEnd::HandsWon(2));
    assert_eq!(state.status(), Status::Playing);
    // hands: lowest total after n hands.
    let (state, _) = went_out(GameEnd::Hands(1));
    assert_eq!(state.winners(), Some(&[0][..]));
}

#[test]
fn the_last_player_left_wins_out_at_target() {
    let rules = Rules {
        game_end: GameEnd::OutAtTarget(5),
        ..standard()
    };
    let mut state = table(rules, &["9D", "KS 7D 2C"], &[("N", "10S")], "");
    let events = act(&mut state, 0, play("9D", "N"));
    assert_eq!(hand_end(&events).eliminated, [1]);
    assert_eq!(state.winners(), Some(&[0][..]));
}

#[test]
fn a_turn_is_bounded_in_actions() {
    let rules = Rules {
        pile_to_empty_side: true,
        ..standard()
    };
    let mut state = table(rules, &["2C", "3C"], &[("N", "9D")], "4H");
    for step in 0..kings_corner::rules::MAX_ACTIONS_PER_TURN {
        let (from, to) = if step % 2 == 0 {
            ("N", "E")
        } else {
            ("E", "N")
        };
        act(&mut state, 0, move_pile(from, to));
    }
    assert_eq!(refusal(&state, 0, move_pile("N", "E")), "action_limit");
    assert_eq!(state.legal_actions(0), [Action::EndTurn]);
    act(&mut state, 0, Action::EndTurn);
    assert_eq!(state.turn(), Some(1));
}

#[test]
fn going_out_ends_the_hand_without_a_draw() {
    let mut state = table(standard(), &["9D", "3C"], &[("N", "10S")], "4H");
    let events = act(&mut state, 0, play("9D", "N"));
    assert!(
        !events
            .iter()
            .any(|event| matches!(event, Event::CardsDrawn { .. }))
    );
    assert_eq!(hand_end(&events).outcome, HandOutcome::WentOut { seat: 0 });
}

#[test]
fn only_the_seat_to_move_may_act() {
    let state = table(standard(), &["9D", "3C"], &[("N", "10S")], "4H");
    assert_eq!(refusal(&state, 1, Action::EndTurn), "not_your_turn");
    assert_eq!(refusal(&state, 7, Action::EndTurn), "unknown_seat");
    assert_eq!(refusal(&state, 0, play("3C", "N")), "card_not_in_hand");
    assert_eq!(
        state.decide(1, Action::EndTurn).unwrap_err().to_string(),
        "It is seat 0's turn, not seat 1's."
    );
}

/// `next_deal: winner` (source 002, "winner takes the deal onward"): the hand's winner deals
/// the next one, so the seat on their left starts it; under `standard` the deal passes left.
#[test]
fn the_winner_deals_the_next_hand() {
    let next_hand = |rules: Rules| {
        let mut state = table(rules, &["KS 2C", "9D", "3C 4C"], &[("N", "10S")], "5H 6H");
        act(&mut state, 0, Action::EndTurn);
        let events = act(&mut state, 1, play("9D", "N"));
        assert_eq!(hand_end(&events).winners, [1], "seat 1 went out");
        events
            .iter()
            .find_map(|event| match event {
                Event::HandDealt {
                    hand: 2, dealer, ..
                } => Some(*dealer),
                _ => None,
            })
            .expect("a second hand is dealt")
    };
    // Seat 2 dealt the first hand (seat 0 started it).
    assert_eq!(next_hand(standard()), 0, "the deal passes left");
    let winner_deals = Rules {
        next_deal: NextDeal::Winner,
        ..standard()
    };
    assert_eq!(next_hand(winner_deals), 1, "the winner deals");
}
