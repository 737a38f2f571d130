//! Helpers shared by the engine's tests: build tables from notation, act, play random games.

use kings_corner::rules::shuffle::{self, uniform_below};
use kings_corner::rules::{
    Action, Card, Event, GameState, PileId, PlacedCard, Rules, Seat, Setup, Status,
};
use rand_chacha::ChaCha20Rng;
use rand_core::SeedableRng;

/// The secret every test table uses.
pub const SECRET: [u8; 32] = [42; 32];

/// A setup with these rules and no client seeds.
pub fn setup(rules: Rules) -> Setup {
    let players = usize::from(rules.players);
    Setup {
        rules,
        secret: SECRET,
        client_seeds: vec![String::new(); players],
        first_dealer: None,
    }
}

/// Cards from space-separated notation: `"QS JD 6H"`.
pub fn cards(text: &str) -> Vec<Card> {
    text.split_whitespace()
        .map(|card| card.parse().unwrap())
        .collect()
}

/// Layout cards from notation: `"10D 9S JK8H"`.
pub fn placed(text: &str) -> Vec<PlacedCard> {
    text.split_whitespace()
        .map(|card| card.parse().unwrap())
        .collect()
}

/// A pile name.
pub fn pile(name: &str) -> PileId {
    serde_json::from_value(serde_json::Value::String(name.to_owned())).unwrap()
}

/// A table in mid-hand: `hands[i]` is seat i's hand, `piles` as (name, bottom → top), the stock
/// next card first. Seat 0 is to move.
pub fn table(rules: Rules, hands: &[&str], piles: &[(&str, &str)], stock: &str) -> GameState {
    let rules = Rules {
        players: hands.len() as u8,
        ..rules
    };
    let piles: Vec<(PileId, Vec<PlacedCard>)> = piles
        .iter()
        .map(|(name, text)| (pile(name), placed(text)))
        .collect();
    GameState::arrange(
        setup(rules),
        0,
        hands.iter().map(|hand| cards(hand)).collect(),
        &piles,
        cards(stock),
    )
}

/// A play action from notation: `play("7H", "N")`, or `play("JK", "N").as_("7H")`-style via `play_as`.
pub fn play(card: &str, to: &str) -> Action {
    Action::Play {
        card: card.parse().unwrap(),
        as_face: None,
        to: pile(to),
    }
}

/// A joker played as `face`.
pub fn play_joker(face: &str, to: &str) -> Action {
    Action::Play {
        card: Card::Joker,
        as_face: Some(face.parse().unwrap()),
        to: pile(to),
    }
}

/// A whole-pile move (no count).
pub fn move_pile(from: &str, to: &str) -> Action {
    Action::Move {
        from: pile(from),
        to: pile(to),
        count: None,
    }
}

/// Decides and applies; panics with the rule's sentence if refused.
pub fn act(state: &mut GameState, seat: Seat, action: Action) -> Vec<Event> {
    let events = state
        .decide(seat, action)
        .unwrap_or_else(|error| panic!("{action:?} refused: {error}"));
    for event in &events {
        state.apply(event);
    }
    events
}

/// The refusal code of an action.
pub fn refusal(state: &GameState, seat: Seat, action: Action) -> &'static str {
    match state.decide(seat, action) {
        Ok(events) => panic!("{action:?} was accepted: {events:?}"),
        Err(error) => error.code(),
    }
}

/// A pile in notation.
pub fn pile_text(state: &GameState, name: &str) -> String {
    state
        .pile(pile(name))
        .iter()
        .map(|card| card.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A hand in notation.
pub fn hand_text(state: &GameState, seat: Seat) -> String {
    state
        .hand(seat)
        .iter()
        .map(|card| card.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A seeded random number generator for choosing actions.
pub fn rng(seed: u64) -> ChaCha20Rng {
    ChaCha20Rng::seed_from_u64(seed)
}

/// Picks one of `actions` at random.
pub fn pick(rng: &mut ChaCha20Rng, actions: &[Action]) -> Action {
    actions[uniform_below(rng, actions.len() as u32) as usize]
}

/// Starts a match with these client seeds.
pub fn started(setup: Setup) -> (GameState, Vec<Event>) {
    let mut state = GameState::new(setup).unwrap();
    let events = state.start().unwrap();
    for event in &events {
        state.apply(event);
    }
    (state, events)
}

/// Plays a whole match by random legal actions; `on_step` sees every state and the events that
/// led to it. Panics if the match runs past `max_steps` actions.
pub fn play_random_match(
    setup: Setup,
    seed: u64,
    max_steps: usize,
    mut on_step: impl FnMut(&GameState, &[Event], &mut ChaCha20Rng),
) -> (GameState, Vec<Event>) {
    let mut rng = rng(seed);
    let (mut state, mut log) = started(setup);
    on_step(&state, &log, &mut rng);
    let mut steps = 0;
    while state.status() == Status::Playing {
        steps += 1;
        assert!(
            steps <= max_steps,
            "the match did not end within {max_steps} actions"
        );
        let seat = state.turn().unwrap();
        let actions = state.legal_actions(seat);
        assert!(!actions.is_empty(), "no legal action for the seat to move");
        let action = pick(&mut rng, &actions);
        let events = act(&mut state, seat, action);
        let from = log.len();
        log.extend(events);
        on_step(&state, &log[from..], &mut rng);
    }
    (state, log)
}

/// Plays a whole match by random legal actions, in which, now and then, a seat resigns (on
/// its turn or not), the seat to move is forfeited on time, reminded of its deadline or has a
/// bot stand in for it, or, before anyone has acted, a seat aborts the match.
pub fn play_disrupted_match(
    setup: Setup,
    seed: u64,
    max_steps: usize,
    mut on_step: impl FnMut(&GameState, &[Event], &mut ChaCha20Rng),
) -> (GameState, Vec<Event>) {
    let mut rng = rng(seed);
    let (mut state, mut log) = started(setup);
    on_step(&state, &log, &mut rng);
    let mut steps = 0;
    while state.status() == Status::Playing {
        steps += 1;
        assert!(
            steps <= max_steps,
            "the match did not end within {max_steps} actions"
        );
        let seat = state.turn().unwrap();
        assert!(state.is_active(seat), "the turn is on a seat still in");
        let still_in: Vec<Seat> = (0..state.players())
            .filter(|seat| state.is_active(*seat))
            .collect();
        let events = match uniform_below(&mut rng, 200) {
            0 => {
                let leaving = still_in[uniform_below(&mut rng, still_in.len() as u32) as usize];
                act(&mut state, leaving, Action::Resign)
            }
            1 => {
                let forfeited = state.forfeit(seat, "2026-11-30T12:00:00Z".to_owned());
                apply_all(&mut state, forfeited.unwrap())
            }
            3 if state.can_abort() => act(&mut state, seat, Action::Abort),
            _ => {
                let actions = state.legal_actions(seat);
                assert!(!actions.is_empty(), "no legal action for the seat to move");
                let action = pick(&mut rng, &actions);
                act(&mut state, seat, action)
            }
        };
        let from = log.len();
        log.extend(events);
        on_step(&state, &log[from..], &mut rng);
    }
    (state, log)
}

/// Applies server-decided events.
fn apply_all(state: &mut GameState, events: Vec<Event>) -> Vec<Event> {
    for event in &events {
        state.apply(event);
    }
    events
}

/// The canonical deck of these rules, sorted.
pub fn full_deck(rules: &Rules) -> Vec<Card> {
    let mut deck = shuffle::unshuffled_deck(rules.decks, rules.jokers);
    deck.sort();
    deck
}
