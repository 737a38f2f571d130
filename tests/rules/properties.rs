//! Invariants over thousands of random games: every preset, 2–8 players, random option mixes.

use std::collections::HashSet;

use kings_corner::rules::options::{
    BlockedRule, Build, ChipPay, Chips, DrawMode, EmptySide, GameEnd, Scoring,
};
use kings_corner::rules::shuffle::uniform_below;
use kings_corner::rules::{
    Action, Card, Event, Face, GameState, HandOutcome, PileId, Preset, Rules, Seat, Setup, Status,
    replay,
};
use proptest::prelude::*;
use rand_chacha::ChaCha20Rng;

use crate::helpers::{full_deck, play_disrupted_match, play_random_match, setup};

/// Rules drawn from a preset with random overrides, always valid.
fn any_rules() -> impl Strategy<Value = Rules> {
    let table = (
        0..4usize,
        0..8u8,
        any::<bool>(),
        any::<bool>(),
        0..20u8,
        0..20u8,
    );
    let turn = (
        0..4u8,
        1..=2u8,
        any::<bool>(),
        any::<bool>(),
        0..3u32,
        0..4u8,
    );
    let piles = (
        any::<bool>(),
        any::<bool>(),
        0..4u8,
        0..3u8,
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
        any::<bool>(),
    );
    let scoring = (0..3u8, 0..8u8, 0..3u8, 0..6u8, 1..30u32);
    (table, turn, piles, scoring).prop_map(|(table, turn, piles, scoring)| {
        let (preset, players, two_decks, jokers, hand_size, hand_size_5) = table;
        let (draw, draw_count, until_playable, must_play, king_hold, empty_side) = turn;
        let (pile_to_side, partial, side_build, corner_build, wrap, ace_two, foundations, collect) =
            piles;
        let (blocked, scoring_kind, chips, game_end, n) = scoring;
        let mut rules = Preset::ALL[preset].rules();
        rules.decks = if two_decks { 2 } else { 1 };
        rules.players = 2 + players % if two_decks { 7 } else { 5 };
        rules.jokers = jokers;
        let most = ((52 * usize::from(rules.decks) - 4) / usize::from(rules.players)).min(13) as u8;
        if hand_size < 13 {
            rules.hand_size = 1 + hand_size % most;
        }
        if hand_size_5 < 13 {
            rules.hand_size_5_plus = 1 + hand_size_5 % most;
        }
        rules.hand_size = rules.hand_size.min(most);
        rules.hand_size_5_plus = rules.hand_size_5_plus.min(most);
        rules.draw = [
            DrawMode::End,
            DrawMode::Start,
            DrawMode::WhenStuck,
            rules.draw,
        ][usize::from(draw)];
        rules.draw_count = draw_count;
        rules.draw_until_playable = until_playable && rules.draw != DrawMode::WhenStuck;
        rules.must_play = must_play;
        rules.king_hold_penalty = king_hold;
        rules.empty_side = [
            EmptySide::AnyCard,
            EmptySide::KingOnly,
            EmptySide::FromStock,
            rules.empty_side,
        ][usize::from(empty_side)];
        rules.pile_to_empty_side = pile_to_side;
        rules.partial_runs = partial;
        rules.side_build = [
            Build::DownAlternating,
            Build::DownSuit,
            Build::UpAlternating,
            rules.side_build,
        ][usize::from(side_build)];
        rules.corner_build = [Build::DownAlternating, Build::DownSuit, rules.corner_build]
            [usize::from(corner_build)];
        rules.ace_wrap = wrap;
        rules.ace_starter_takes_two = ace_two && rules.side_build.is_down();
        rules.foundations = foundations;
        rules.collect_corners = collect;
        rules.blocked = if blocked == 1 {
            BlockedRule::FewestCardsWins
        } else {
            rules.blocked
        };
        rules.scoring = match scoring_kind {
            0 => Scoring::Penalty,
            1 => Scoring::JqTwo,
            2 => Scoring::FaceValue,
            3 => Scoring::Kings25,
            4 => Scoring::Pip,
            5 => Scoring::None,
            _ => rules.scoring,
        };
        rules.chips = match chips {
            0 => Some(Chips {
                ante: 1,
                idle_turn: 1,
                pay: ChipPay::Penalty,
            }),
            1 => Some(Chips {
                ante: 2,
                idle_turn: 0,
                pay: ChipPay::PerKing,
            }),
            _ => None,
        };
        // Game ends bounded in hands, so random play (whose turns of pile moves can be long)
        // finishes; `hands_won` and the presets' own targets are covered by scenario tests and
        // `every_preset_plays_whole_matches`.
        rules.game_end = match game_end {
            0 => GameEnd::SingleHand,
            1 => GameEnd::Target(5 + n),
            2 => GameEnd::OutAtTarget(5 + n),
            _ => GameEnd::Hands(1 + n % 3),
        };
        let cards_score =
            kings_corner::rules::Rank::all().any(|rank| rules.scoring.rank_points(rank) > 0);
        if !cards_score && matches!(rules.game_end, GameEnd::Target(_) | GameEnd::OutAtTarget(_)) {
            // Valid with a king-hold penalty, but random play might never reach the target.
            rules.game_end = GameEnd::Hands(2);
        }
        rules.validate().expect("generated rules are valid");
        rules
    })
}

/// Checks every invariant at one step of a game.
struct Checker {
    deck: Vec<Card>,
    totals: Vec<u32>,
    penalties: Vec<u32>,
    active: Vec<bool>,
    /// Seats that resigned or timed out.
    left: Vec<Seat>,
    steps: usize,
}

impl Checker {
    fn new(rules: &Rules) -> Checker {
        let players = usize::from(rules.players);
        Checker {
            deck: full_deck(rules),
            totals: vec![0; players],
            penalties: vec![0; players],
            active: vec![true; players],
            left: Vec::new(),
            steps: 0,
        }
    }

    fn step(&mut self, state: &GameState, events: &[Event], rng: &mut ChaCha20Rng) {
        self.cards_are_all_accounted_for(state);
        self.scores_follow_the_table(state, events);
        // The costly checks run on every step of a game's start, then on a sample, so that a
        // thousand games fit in CI's time (long games are long turns of pile moves).
        self.steps += 1;
        if self.steps.is_multiple_of(32) || state.status() != Status::Playing {
            snapshot_reads_back(state);
        }
        if self.steps <= 300 || self.steps.is_multiple_of(8) || state.status() != Status::Playing {
            check_views(state, events);
            if state.status() == Status::Playing {
                check_actions(state, rng);
            }
        }
    }

    fn cards_are_all_accounted_for(&self, state: &GameState) {
        let mut cards = state.all_cards();
        cards.sort();
        assert_eq!(cards, self.deck, "cards lost or duplicated");
    }

    fn scores_follow_the_table(&mut self, state: &GameState, events: &[Event]) {
        let rules = state.rules();
        for event in events {
            match event {
                Event::HandDealt { .. } => self.penalties.iter_mut().for_each(|p| *p = 0),
                Event::KingHoldPenalized { seat, points } => {
                    self.penalties[usize::from(*seat)] += points
                }
                Event::HandEnded(result) => {
                    let out = match result.outcome {
                        HandOutcome::WentOut { seat } => {
                            assert!(
                                result.hands[usize::from(seat)].is_empty(),
                                "the player who went out holds cards"
                            );
                            Some(seat)
                        }
                        HandOutcome::Blocked => None,
                    };
                    // The base winner scores no cards: who went out, or the single fewest of a block.
                    let in_game: Vec<usize> = (0..result.hands.len())
                        .filter(|seat| self.active[*seat])
                        .collect();
                    let fewest = in_game
                        .iter()
                        .map(|seat| result.hands[*seat].len())
                        .min()
                        .unwrap();
                    let with_fewest: Vec<usize> = in_game
                        .iter()
                        .copied()
                        .filter(|seat| result.hands[*seat].len() == fewest)
                        .collect();
                    let zeroed = match (out, rules.blocked, &with_fewest[..]) {
                        (Some(seat), _, _) => Some(usize::from(seat)),
                        (None, BlockedRule::FewestCardsWins, [only]) => Some(*only),
                        _ => None,
                    };
                    for (seat, hand) in result.hands.iter().enumerate() {
                        let card_points: u32 = hand
                            .iter()
                            .map(|card| rules.scoring.card_points(*card))
                            .sum();
                        // A seat out of the game scores nothing at all (§7.3).
                        let expected = if !self.active[seat] {
                            0
                        } else if zeroed == Some(seat) {
                            self.penalties[seat]
                        } else {
                            card_points + self.penalties[seat]
                        };
                        assert_eq!(
                            result.hand_scores[seat], expected,
                            "hand score of seat {seat}"
                        );
                        self.totals[seat] += result.hand_scores[seat];
                    }
                    if !rules.collect_corners {
                        assert_eq!(
                            result.winners,
                            zeroed
                                .map(|seat| seat as Seat)
                                .into_iter()
                                .collect::<Vec<_>>()
                        );
                    }
                    for seat in &result.eliminated {
                        self.active[usize::from(*seat)] = false;
                    }
                    assert_eq!(result.totals, self.totals, "running totals");
                    if let Some(chips) = &result.chips {
                        assert_eq!(
                            chips.payments.iter().sum::<i64>(),
                            chips.pot_won_by.map_or(0, |_| chips.pot as i64)
                        );
                    }
                }
                Event::GameEnded { winners, totals } => {
                    assert!(!winners.is_empty(), "a match always has a winner");
                    assert_eq!(totals, &self.totals);
                    assert!(
                        winners.iter().all(|seat| !self.left.contains(seat)),
                        "seats that left rank below the seats still in"
                    );
                    self.standings_agree(state, winners);
                }
                Event::SeatOut { seat, .. } => {
                    assert!(self.active[usize::from(*seat)], "a seat leaves once");
                    self.active[usize::from(*seat)] = false;
                    self.left.push(*seat);
                }
                _ => {}
            }
        }
    }
}

impl Checker {
    /// docs/rules.md §7.5: the winners and only they place first; every seat that left places
    /// below every seat still in, and a later leaver above an earlier one.
    fn standings_agree(&self, state: &GameState, winners: &[u8]) {
        let places = state.standings().expect("a finished match has standings");
        assert_eq!(places.len(), usize::from(state.players()));
        for (seat, place) in places.iter().enumerate() {
            assert_eq!(
                *place == 1,
                winners.contains(&(seat as u8)),
                "seat {seat} places {place} with winners {winners:?}"
            );
        }
        let place = |seat: &u8| places[usize::from(*seat)];
        for (order, leaver) in self.left.iter().enumerate() {
            for stayer in (0..state.players()).filter(|seat| !self.left.contains(seat)) {
                assert!(
                    place(&stayer) < place(leaver),
                    "a leaver places above a seat still in"
                );
            }
            for later in &self.left[order + 1..] {
                assert!(
                    place(later) < place(leaver),
                    "an earlier leaver places above a later one"
                );
            }
        }
    }
}

/// No view or redacted event shows a card its seat may not see.
fn check_views(state: &GameState, events: &[Event]) {
    let players = state.players();
    let spectator = serde_json::to_string(&state.spectator_view()).unwrap();
    assert!(!spectator.contains("\"hand\":["), "a spectator sees a hand");
    for seat in 0..players {
        let mut view = state.view(seat);
        assert_eq!(view.hand.as_deref(), Some(state.hand(seat)));
        // Legal actions name joker identities (any card); the cards they play are the seat's own.
        for action in std::mem::take(&mut view.legal_actions) {
            if let Action::Play { card, .. } = action {
                assert!(
                    state.hand(seat).contains(&card),
                    "a legal action plays a card seat {seat} does not hold"
                );
            }
        }
        let json = serde_json::to_string(&view).unwrap();
        let strings: HashSet<&str> = json.split('"').skip(1).step_by(2).collect();
        let mut visible: HashSet<Card> = state.hand(seat).iter().copied().collect();
        for pile in PileId::ALL {
            visible.extend(state.pile(pile).iter().map(|placed| placed.card()));
        }
        if let Some(last) = state.last_hand() {
            visible.extend(last.hands.iter().flatten().copied());
        }
        // Claimed corners left the layout in everyone's sight.
        for seen in &view.seats {
            visible.extend(seen.claimed.iter().flatten().map(|placed| placed.card()));
        }
        let hidden = (0..players)
            .filter(|other| *other != seat)
            .flat_map(|other| state.hand(other).iter());
        for card in hidden.chain(hidden_stock(state).iter()) {
            if !visible.contains(card) {
                assert!(
                    !strings.contains(card.to_string().as_str()),
                    "seat {seat} sees hidden card {card}: {json}"
                );
            }
        }
        for event in events {
            match event.redacted_for(Some(seat)) {
                Event::HandDealt { hands, stock, .. } => {
                    assert!(stock.is_none());
                    for (other, dealt) in hands.iter().enumerate() {
                        assert_eq!(
                            dealt.is_some(),
                            other == usize::from(seat),
                            "dealt hands leak"
                        );
                    }
                }
                Event::CardsDrawn {
                    seat: drawer,
                    cards,
                    ..
                } => assert_eq!(cards.is_some(), drawer == seat),
                _ => {}
            }
        }
    }
}

/// A snapshot of the state, written out as the server stores it and read back, is the same
/// state: what a server resumes a long match from (`matches/snapshot.rs`).
fn snapshot_reads_back(state: &GameState) {
    let stored = serde_json::to_string(&state.snapshot()).unwrap();
    let resumed = state
        .resumed(serde_json::from_str(&stored).unwrap())
        .expect("a snapshot of a real state fits its table");
    assert_eq!(&resumed, state, "the snapshot read back differs");
}

fn hidden_stock(state: &GameState) -> Vec<Card> {
    // The stock's cards are not in the state's public accessors; recover them by difference.
    let mut all = state.all_cards();
    let mut shown: Vec<Card> = (0..state.players())
        .flat_map(|seat| state.hand(seat).iter().copied())
        .collect();
    shown.extend(
        PileId::ALL
            .iter()
            .flat_map(|pile| state.pile(*pile).iter().map(|placed| placed.card())),
    );
    all.sort();
    shown.sort();
    let mut stock = Vec::new();
    let mut shown = shown.into_iter().peekable();
    for card in all {
        if shown.peek() == Some(&card) {
            shown.next();
        } else {
            stock.push(card);
        }
    }
    stock
}

/// Every listed action is accepted; a sample of unlisted ones is refused; others' seats are refused.
fn check_actions(state: &GameState, rng: &mut ChaCha20Rng) {
    let seat = state.turn().unwrap();
    let legal = state.legal_actions(seat);
    assert_eq!(state.view(seat).legal_actions, legal);
    let listed: HashSet<Action> = legal.iter().copied().collect();
    assert_eq!(listed.len(), legal.len(), "an action is listed twice");
    let step = if legal.len() > 40 {
        legal.len() / 20
    } else {
        1
    };
    for action in legal.iter().step_by(step) {
        if let Err(error) = state.decide(seat, *action) {
            panic!("listed action {action:?} refused: {error}");
        }
    }
    for _ in 0..6 {
        let action = random_action(state, seat, rng);
        if !listed.contains(&action) {
            assert!(
                state.decide(seat, action).is_err(),
                "unlisted action {action:?} accepted"
            );
        }
    }
    let other = (seat + 1) % state.players();
    if let Some(action) = legal.first() {
        // A seat out of the game is told so before it is told whose turn it is.
        let refusal = if state.is_active(other) {
            "not_your_turn"
        } else {
            "seat_out"
        };
        assert_eq!(state.decide(other, *action).unwrap_err().code(), refusal);
    }
}

fn random_action(state: &GameState, seat: Seat, rng: &mut ChaCha20Rng) -> Action {
    let mut below = |n: usize| uniform_below(rng, n as u32) as usize;
    let any_pile = PileId::ALL[below(12)];
    let hand = state.hand(seat);
    match below(5) {
        0 | 1 => {
            let card = if !hand.is_empty() && below(4) > 0 {
                hand[below(hand.len())]
            } else if below(10) == 0 {
                Card::Joker
            } else {
                Card::Natural(Face::from_index(below(52)).unwrap())
            };
            let as_face = (card == Card::Joker || below(10) == 0)
                .then(|| Face::from_index(below(52)).unwrap());
            Action::Play {
                card,
                as_face,
                to: any_pile,
            }
        }
        2 => {
            let from = PileId::ALL[below(12)];
            let count = (state.rules().partial_runs != (below(10) == 0)).then(|| below(14) as u8);
            Action::Move {
                from,
                to: any_pile,
                count,
            }
        }
        3 => Action::Draw,
        _ => Action::EndTurn,
    }
}

/// Plays one random match with every check, then replays its log (through JSON) and compares.
fn check_random_match(rules: Rules, seed: u64) {
    check_match_played_by(rules, seed, |setup, seed, steps, on_step| {
        play_random_match(setup, seed, steps, on_step)
    });
}

/// As [`check_random_match`], with seats resigning, timing out and aborting now and then.
fn check_disrupted_match(rules: Rules, seed: u64) {
    check_match_played_by(rules, seed, |setup, seed, steps, on_step| {
        play_disrupted_match(setup, seed, steps, on_step)
    });
}

type Player = fn(
    Setup,
    u64,
    usize,
    &mut dyn FnMut(&GameState, &[Event], &mut ChaCha20Rng),
) -> (GameState, Vec<Event>);

fn check_match_played_by(rules: Rules, seed: u64, play: Player) {
    let setup: Setup = Setup {
        client_seeds: (0..rules.players).map(|s| format!("seed{s}")).collect(),
        first_dealer: None,
        ..setup(rules.clone())
    };
    let mut checker = Checker::new(&rules);
    let (state, log) = play(setup.clone(), seed, 60_000, &mut |state, events, rng| {
        checker.step(state, events, rng)
    });
    assert!(
        matches!(state.status(), Status::Finished | Status::Aborted),
        "every match ends"
    );
    let stored: Vec<String> = log
        .iter()
        .map(|event| serde_json::to_string(event).unwrap())
        .collect();
    let reread: Vec<Event> = stored
        .iter()
        .map(|text| serde_json::from_str(text).unwrap())
        .collect();
    assert_eq!(reread, log, "events survive JSON");
    let replayed = replay(setup, &reread).expect("the log replays");
    assert_eq!(replayed, state, "replay reproduces the state");
}

/// Random matches a property plays: `PROPTEST_CASES` when it is set (`.ci/run` sets 1000 for
/// its long run), else `quick` for a first `cargo test`. `share` scales it for properties whose
/// matches cost more.
fn cases(quick: u32, share: f64) -> u32 {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|cases| cases.parse::<u32>().ok())
        .unwrap_or(quick);
    ((f64::from(cases) * share).ceil() as u32).max(1)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(100, 1.0), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_games_keep_every_invariant(rules in any_rules(), seed in any::<u64>()) {
        check_random_match(rules, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(100, 0.3), failure_persistence: None, ..ProptestConfig::default() })]

    /// docs/rules.md §7: random resignations, timeouts, reminders and aborts never lose a card,
    /// never leave the turn on a seat that left, and every match still ends.
    #[test]
    fn random_resignations_and_timeouts_keep_every_invariant(rules in any_rules(), seed in any::<u64>()) {
        check_disrupted_match(rules, seed);
    }
}

/// Every preset plays end to end at 2, 4 and 6 players, with its own game end.
#[test]
fn every_preset_plays_whole_matches() {
    for preset in Preset::ALL {
        for players in [2, 3, 4, 5, 6] {
            for seed in 0..4 {
                check_random_match(
                    Rules {
                        players,
                        ..preset.rules()
                    },
                    seed,
                );
            }
        }
    }
}

/// A hand is bounded: each turn moves a card out of the stock or a hand, or is a pass.
#[test]
fn hands_end_within_a_bound_even_with_looping_pile_moves() {
    let rules = Rules {
        pile_to_empty_side: true,
        partial_runs: true,
        game_end: GameEnd::SingleHand,
        ..Rules::default()
    };
    for seed in 0..20 {
        let (state, log) = play_random_match(setup(rules.clone()), seed, 60_000, |_, _, _| {});
        assert_eq!(state.status(), Status::Finished);
        let turns = log
            .iter()
            .filter(|event| matches!(event, Event::TurnEnded { .. }))
            .count();
        // 52 cards can each leave the stock and a hand once; then one round of passes.
        assert!(turns <= 52 * 2 + 4, "{turns} turns");
    }
}
