//! Engine speed (issue 2): complete random hands, checked replay, and `legal_actions`.
//!
//! `cargo bench --bench engine`; criterion prints the median time per iteration and, where a
//! throughput is set, elements per second.

use criterion::{BatchSize, Criterion, Throughput, black_box, criterion_group, criterion_main};
use kings_corner::rules::options::GameEnd;
use kings_corner::rules::{Event, GameState, Rules, Setup, Status, replay};

mod common;
use common::XorShift;

fn setup(rules: Rules, game: u64) -> Setup {
    let mut secret = [7u8; 32];
    secret[..8].copy_from_slice(&game.to_le_bytes());
    Setup {
        client_seeds: vec![String::new(); usize::from(rules.players)],
        first_dealer: None,
        rules,
        secret,
    }
}

/// How the bench plays each action.
#[derive(Clone, Copy)]
enum Way {
    /// `act`: decided and applied in one, as the bots and the replay play.
    Act,
    /// `decide`, then `apply` of each event: the two halves apart, as a caller holding a shared
    /// state does.
    DecideApply,
}

/// Plays random legal actions until the first hand ends (or the match, with `whole_match`).
fn play(
    state: &mut GameState,
    rng: &mut XorShift,
    log: &mut Vec<Event>,
    whole_match: bool,
    way: Way,
) {
    log.extend(state.start_in_place().expect("starts"));
    while state.status() == Status::Playing {
        let seat = state.turn().expect("a seat to move");
        let actions = state.legal_actions(seat);
        let action = actions[rng.below(actions.len())];
        let events = match way {
            Way::Act => state.act(seat, action),
            Way::DecideApply => state.decide(seat, action).inspect(|events| {
                for event in events {
                    state.apply(event);
                }
            }),
        }
        .expect("legal actions are accepted");
        let hand_over = events
            .iter()
            .any(|event| matches!(event, Event::HandEnded(_)));
        log.extend(events);
        if hand_over && !whole_match {
            break;
        }
    }
}

fn standard_4p() -> Rules {
    Rules {
        players: 4,
        ..Rules::default()
    }
}

fn random_hands(c: &mut Criterion) {
    let mut group = c.benchmark_group("random_hand");
    group.throughput(Throughput::Elements(1));
    for (name, way) in [
        ("standard_4_players", Way::Act),
        ("standard_4_players_decide_apply", Way::DecideApply),
    ] {
        let mut game = 0u64;
        group.bench_function(name, |b| {
            b.iter_batched(
                || {
                    game += 1;
                    (
                        GameState::new(setup(standard_4p(), game)).unwrap(),
                        XorShift(game * 2654435761 + 1),
                    )
                },
                |(mut state, mut rng)| {
                    let mut log = Vec::with_capacity(256);
                    play(&mut state, &mut rng, &mut log, false, way);
                    black_box(log.len())
                },
                BatchSize::SmallInput,
            )
        });
    }
    group.finish();
}

fn checked_replay(c: &mut Criterion) {
    let rules = Rules {
        game_end: GameEnd::Target(50),
        ..standard_4p()
    };
    let setup = setup(rules, 99);
    let mut state = GameState::new(setup.clone()).unwrap();
    let mut log = Vec::new();
    play(&mut state, &mut XorShift(12345), &mut log, true, Way::Act);
    let mut group = c.benchmark_group("replay");
    group.throughput(Throughput::Elements(log.len() as u64));
    group.bench_function(format!("standard_match_{}_events", log.len()), |b| {
        b.iter(|| black_box(replay(setup.clone(), &log).expect("replays")))
    });
    group.finish();
}

fn legal_actions(c: &mut Criterion) {
    // A typical mid-game state: 30 random actions into a standard 4-player hand.
    let mut state = GameState::new(setup(standard_4p(), 5)).unwrap();
    for event in state.start().unwrap() {
        state.apply(&event);
    }
    let mut rng = XorShift(777);
    for _ in 0..30 {
        let seat = state.turn().unwrap();
        let actions = state.legal_actions(seat);
        let action = actions[rng.below(actions.len())];
        for event in state.decide(seat, action).unwrap() {
            state.apply(&event);
        }
    }
    let seat = state.turn().unwrap();
    eprintln!(
        "mid-game state: hand {} cards, {} legal actions",
        state.hand(seat).len(),
        state.legal_actions(seat).len()
    );
    c.bench_function("legal_actions/mid_game_standard_4_players", |b| {
        b.iter(|| black_box(state.legal_actions(black_box(seat))))
    });
}

criterion_group!(benches, random_hands, checked_replay, legal_actions);
criterion_main!(benches);
