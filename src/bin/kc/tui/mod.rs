//! `kc` alone, or `kc tui [MATCH]`: the full-screen table. The lobby (my matches, the open
//! tables), a match played with the arrow keys and Enter or typed as `7H N`, watched, or
//! replayed with a scrubber; live from the account stream and the match's stream, so that a
//! move at the table shows at once.
//!
//! - `app.rs`: the state and what each key means (an `Intent`), without terminal or network;
//! - `draw.rs`: the screen drawn from the state;
//! - this file: the terminal (given back as it was, on a panic too), and the loop that reads
//!   keys, the streams and a one-second tick, carries out each intent through the API and
//!   draws.

mod app;
mod draw;

use std::time::Duration;

use ratatui::crossterm::event::{self, Event, KeyCode, KeyModifiers};
use serde_json::{Value, json};
use tokio::sync::mpsc;

use self::app::{App, Intent, Lobby, LoginForm, Replay, Screen, Table};
use self::draw::Look;
use crate::api::{Api, Call};
use crate::commands;
use crate::failure::Failure;
use crate::sse;
use crate::table::Style;

/// How often the screen is drawn with nothing else happening (the clocks count down).
const TICK: Duration = Duration::from_secs(1);

/// A screen with no news for this many ticks is read again (a stream can miss what a restart
/// of the server's side loses; kc wait backs its stream the same way).
const LOOK_AGAIN_TICKS: u32 = 10;

/// A closed stream is opened again after this long.
const REOPEN_AFTER: Duration = Duration::from_secs(2);

/// The full-screen table, on `start` if given, else on the lobby.
pub async fn run(api: &mut Api, cards: Style, start: Option<String>) -> Result<(), Failure> {
    let look = Look {
        colour: std::env::var_os("NO_COLOR").is_none_or(|value| value.is_empty()),
        cards,
    };
    let mut terminal = Terminal::enter()?;
    let me = api.login().map(|login| login.username.clone());
    let mut app = App::new(api.base.clone(), me);
    let mut live = Live::new();
    let keys = read_keys();
    if app.me.is_none() && !api.has_env_token() {
        app.login = Some(LoginForm {
            reason: format!("Not logged in to {}.", api.base),
            ..LoginForm::default()
        });
    } else {
        let first = match start {
            Some(id) => Intent::Open(id),
            None => Intent::Lobby,
        };
        carry_out(api, &mut app, &mut live, first).await;
    }
    run_loop(api, &mut app, &mut live, keys, &mut terminal, look).await
}

async fn run_loop(
    api: &mut Api,
    app: &mut App,
    live: &mut Live,
    mut keys: mpsc::UnboundedReceiver<Event>,
    terminal: &mut Terminal,
    look: Look,
) -> Result<(), Failure> {
    let mut tick = tokio::time::interval(TICK);
    let mut quiet_ticks = 0;
    loop {
        terminal.draw(app, look)?;
        tokio::select! {
            key = keys.recv() => {
                let Some(key) = key else { return Ok(()) };
                let intent = app.on_event(&key);
                if intent == Intent::Quit {
                    return Ok(());
                }
                carry_out(api, app, live, intent).await;
            }
            Some(news) = live.news.recv() => {
                quiet_ticks = 0;
                // Everything that came at once, then one read of the table or the lobby.
                let mut stale = live.take(news, app);
                while let Ok(more) = live.news.try_recv() {
                    stale |= live.take(more, app);
                }
                if stale {
                    refresh(api, app, live).await;
                }
            }
            _ = tick.tick() => {
                // A closed stream is opened again, but not a finished match's: nothing more
                // will come on it.
                let closed = live.closed_since.is_some_and(|since| since.elapsed() >= REOPEN_AFTER);
                if closed && !app.on_an_ended_match() {
                    follow(api, app, live).await;
                }
                // A table quiet for a while is read again, in case the stream missed something.
                quiet_ticks += 1;
                if quiet_ticks >= LOOK_AGAIN_TICKS && !app.on_an_ended_match() {
                    quiet_ticks = 0;
                    refresh(api, app, live).await;
                }
            }
        }
    }
}

/// Carries out what a key asked; a failure is said on the status line (a login asked for
/// when the login is gone).
async fn carry_out(api: &mut Api, app: &mut App, live: &mut Live, intent: Intent) {
    match perform(api, app, live, intent).await {
        Ok(()) => {}
        Err(failure) => said_failure(api, app, failure),
    }
}

fn said_failure(api: &Api, app: &mut App, failure: Failure) {
    let login_gone = matches!(&failure, Failure::NotLoggedIn { .. })
        || matches!(&failure, Failure::Refused { code, .. } if code == "login_expired");
    if login_gone && !api.has_env_token() {
        app.login = Some(LoginForm {
            reason: failure.to_string(),
            username: app.me.clone().unwrap_or_default(),
            on_password: app.me.is_some(),
            ..LoginForm::default()
        });
    }
    app.status = failure.to_string();
}

async fn perform(
    api: &mut Api,
    app: &mut App,
    live: &mut Live,
    intent: Intent,
) -> Result<(), Failure> {
    match intent {
        Intent::Nothing | Intent::Quit => {}
        Intent::Lobby => {
            app.screen = Screen::Lobby(Lobby::default());
            refresh(api, app, live).await;
            follow(api, app, live).await;
        }
        Intent::Refresh => refresh(api, app, live).await,
        Intent::Open(id) => open(api, app, live, &full_id(app, &id)).await?,
        Intent::Join(id) => {
            let id = full_id(app, &id);
            commands::post_about(api, &id, "join", json!({})).await?;
            open(api, app, live, &id).await?;
            app.status = "Seated.".into();
        }
        Intent::New(words) => {
            let summary = api
                .post(
                    "/v1/matches",
                    Call {
                        body: Some(new_match(&words)?),
                        ..Call::default()
                    },
                )
                .await?;
            let id = summary["id"].as_str().unwrap_or_default().to_owned();
            open(api, app, live, &id).await?;
            app.status = format!("Created {id}.");
        }
        Intent::Login { username, password } => {
            commands::log_in(api, &username, &password).await?;
            app.login = None;
            app.me = Some(username.clone());
            app.status = format!("Logged in as {username}.");
            refresh(api, app, live).await;
            follow(api, app, live).await;
        }
        Intent::Act(action) => {
            let Screen::Table(table) = &mut app.screen else {
                return Ok(());
            };
            let id = table.id.clone();
            let version = table.view["version"].clone();
            let words = crate::table::action_words(&action);
            let view = commands::send_move(api, &id, &version, action).await?;
            if let Screen::Table(table) = &mut app.screen {
                table.take_view(view);
            }
            app.status = format!("Played: {words}.");
        }
        Intent::Hint => {
            let Screen::Table(table) = &mut app.screen else {
                return Ok(());
            };
            let hint = commands::get_about(api, &table.id, "hint").await?;
            app.status = format!(
                "Hint: {} — {}",
                crate::table::action_words(&hint["action"]),
                hint["reason"].as_str().unwrap_or("")
            );
            if let Some(index) = table.legal().iter().position(|a| *a == hint["action"]) {
                table.selected = index;
            }
            table.hint = Some(hint);
        }
        Intent::Talk(text) => {
            let id = table_id(app)?;
            commands::post_about(api, &id, "messages", json!({"text": text})).await?;
            app.status = "Said.".into();
        }
        Intent::Post(what) => {
            let id = table_id(app)?;
            commands::post_about(api, &id, what, json!({})).await?;
            app.status = format!("Done: {what}.");
            refresh(api, app, live).await;
        }
        Intent::Resign => {
            let id = table_id(app)?;
            let Screen::Table(table) = &app.screen else {
                return Ok(());
            };
            let version = table.view["version"].clone();
            let view = commands::send_move(api, &id, &version, json!({"type": "resign"})).await?;
            if let Screen::Table(table) = &mut app.screen {
                table.take_view(view);
            }
            app.status = "You resigned.".into();
        }
        Intent::ReplayAt(at) => {
            let Screen::Table(table) = &mut app.screen else {
                return Ok(());
            };
            let path = commands::match_path(&table.id, "replay")?;
            let call = Call {
                query: vec![("at", at.to_string())],
                ..Call::default()
            };
            let view = api.get(&path, call).await?;
            table.replay = Some(Replay { at, view });
        }
    }
    Ok(())
}

/// The match of the table on screen.
fn table_id(app: &App) -> Result<String, Failure> {
    match &app.screen {
        Screen::Table(table) => Ok(table.id.clone()),
        Screen::Lobby(_) => Err(Failure::Usage("open a match first".into())),
    }
}

/// A match's id from what was typed: the whole id, or the start of one of the lobby's rows.
fn full_id(app: &App, typed: &str) -> String {
    if let Screen::Lobby(lobby) = &app.screen {
        let mut found = lobby
            .rows()
            .filter_map(|row| row["id"].as_str())
            .filter(|id| id.starts_with(typed));
        if let (Some(one), None) = (found.next(), found.next()) {
            return one.to_owned();
        }
    }
    typed.to_owned()
}

/// `new [preset] [seats] [bot levels…] [clock]` as a new match's request: a two-seat
/// standard table against the basic bot when nothing is said. A clock is named as the API
/// names it (`fast_5m`, `correspondence_1d`: the words with `_`; presets have `-`).
fn new_match(words: &[String]) -> Result<Value, Failure> {
    let mut preset = "standard".to_owned();
    let mut seats: Option<u8> = None;
    let mut bots = Vec::new();
    let mut clock = None;
    for word in words {
        if let Ok(count) = word.parse::<u8>() {
            seats = Some(count);
        } else if ["random", "basic", "expert"].contains(&word.as_str()) {
            bots.push(json!({"level": word}));
        } else if word.contains('_') {
            clock = Some(word.clone());
        } else {
            preset = word.clone();
        }
    }
    if bots.is_empty() {
        bots.push(json!({"level": "basic"}));
    }
    let seats = seats.unwrap_or(bots.len() as u8 + 1);
    if seats < 2 {
        return Err(Failure::Usage("a table has two seats or more".into()));
    }
    let mut body = json!({"seats": seats, "rules": {"preset": preset}, "bots": bots});
    if let Some(clock) = clock {
        body["clock"] = clock.into();
    }
    Ok(body)
}

/// Opens match `id`: its view, its summary and its log so far, then its stream.
async fn open(api: &mut Api, app: &mut App, live: &mut Live, id: &str) -> Result<(), Failure> {
    // The log first: the view read after it is as new or newer, and the stream follows from
    // the log's end (a view older than the log would stay on screen until the next event).
    let log = read_log(api, id, 0).await?;
    let view = commands::view(api, id).await?;
    let summary = commands::get_about(api, id, "").await?;
    let mut table = Table::new(id.to_owned(), view, summary);
    table.log = log;
    app.screen = Screen::Table(Box::new(table));
    app.status.clear();
    follow(api, app, live).await;
    Ok(())
}

/// The log of match `id` after event `after`: `(seq, Event)`, every page.
async fn read_log(api: &mut Api, id: &str, after: i64) -> Result<Vec<(i64, Value)>, Failure> {
    let path = commands::match_path(id, "events")?;
    let mut log = Vec::new();
    let mut after = after;
    loop {
        let call = Call {
            query: vec![("after", after.to_string())],
            ..Call::default()
        };
        let page = api.get(&path, call).await?;
        let events = page["events"].as_array().cloned().unwrap_or_default();
        if events.is_empty() {
            return Ok(log);
        }
        for logged in events {
            after = logged["seq"].as_i64().unwrap_or(after);
            log.push((after, logged["event"].clone()));
        }
        if after >= page["version"].as_i64().unwrap_or(0) {
            return Ok(log);
        }
    }
}

/// Reads again what is on screen: the lobby's lists, or the table's view and summary.
async fn refresh(api: &mut Api, app: &mut App, live: &mut Live) {
    let read = match &mut app.screen {
        Screen::Lobby(lobby) => read_lobby(api, lobby).await,
        Screen::Table(table) => read_table(api, table, live).await,
    };
    if let Err(failure) = read {
        said_failure(api, app, failure);
    }
}

async fn read_lobby(api: &mut Api, lobby: &mut Lobby) -> Result<(), Failure> {
    let mine = commands::my_matches(api, false).await?;
    let call = Call {
        query: vec![("limit", "50".to_owned())],
        ..Call::default()
    };
    let open = api.get("/v1/matches", call).await?;
    let list = |page: &Value| page["matches"].as_array().cloned().unwrap_or_default();
    lobby.mine = list(&mine);
    let mine_ids: Vec<&Value> = lobby.mine.iter().map(|summary| &summary["id"]).collect();
    lobby.open = list(&open)
        .into_iter()
        .filter(|summary| !mine_ids.contains(&&summary["id"]))
        .collect();
    let rows = lobby.mine.len() + lobby.open.len();
    lobby.selected = lobby.selected.min(rows.saturating_sub(1));
    Ok(())
}

async fn read_table(api: &mut Api, table: &mut Table, live: &mut Live) -> Result<(), Failure> {
    let view = commands::view(api, &table.id).await?;
    if view["status"] != table.view["status"] || live.seats_changed {
        table.summary = commands::get_about(api, &table.id, "").await?;
        live.seats_changed = false;
    }
    table.take_view(view);
    // What the stream has not brought (it was closed a while): the log read after its end.
    let last = table.log.last().map_or(0, |(seq, _)| *seq);
    if last < table.version() {
        let more = read_log(api, &table.id, last).await?;
        table.log.extend(more);
    }
    Ok(())
}

/// The stream of the screen shown: a match's, or the account's for the lobby.
struct Live {
    /// What the stream tasks send.
    news: mpsc::UnboundedReceiver<News>,
    sender: mpsc::UnboundedSender<News>,
    /// The stream task of the screen shown; a new screen stops the old one's.
    task: Option<tokio::task::JoinHandle<()>>,
    /// Which screen's stream it is: news from an older one is dropped.
    generation: u64,
    /// When the stream closed, if it did (it is opened again).
    closed_since: Option<std::time::Instant>,
    /// A seat was taken or left since the summary was read.
    seats_changed: bool,
}

/// What a stream task says.
struct News {
    generation: u64,
    /// An event; `None`: the stream closed.
    event: Option<sse::Event>,
}

impl Live {
    fn new() -> Live {
        let (sender, news) = mpsc::unbounded_channel();
        Live {
            news,
            sender,
            task: None,
            generation: 0,
            closed_since: None,
            seats_changed: false,
        }
    }

    /// Takes in what a stream said; whether the screen must be read again.
    fn take(&mut self, news: News, app: &mut App) -> bool {
        if news.generation != self.generation {
            return false;
        }
        let Some(event) = news.event else {
            self.closed_since = Some(std::time::Instant::now());
            return true;
        };
        if event.kind == sse::KEEP_ALIVE {
            return false;
        }
        if let Screen::Table(table) = &mut app.screen
            && let Ok(logged) = serde_json::from_str::<Value>(&event.data)
            && let Some(seq) = logged["seq"].as_i64()
        {
            if table.log.last().is_none_or(|(last, _)| seq > *last) {
                table.log.push((seq, logged["event"].clone()));
            }
            let kind = logged["event"]["type"].as_str().unwrap_or("");
            self.seats_changed |= matches!(kind, "seat_out" | "hand_dealt" | "game_ended");
        }
        true
    }
}

/// Follows the screen shown: the match's stream after the last event of its log, or the
/// account's stream from now. The old stream is stopped.
async fn follow(api: &mut Api, app: &App, live: &mut Live) {
    if let Some(task) = live.task.take() {
        task.abort();
    }
    live.generation += 1;
    live.closed_since = None;
    let (path, after) = match &app.screen {
        Screen::Table(table) => match commands::match_path(&table.id, "stream") {
            Ok(path) => (
                path,
                table.log.last().map_or(0, |(seq, _)| *seq).to_string(),
            ),
            Err(_) => return,
        },
        Screen::Lobby(_) => ("/v1/me/stream".to_owned(), newest_notification(api).await),
    };
    let mut events = match sse::open(api, &path, &after).await {
        Ok(events) => events,
        Err(_) => {
            // Not now (a server restarting): tried again on a later tick.
            live.closed_since = Some(std::time::Instant::now());
            return;
        }
    };
    let sender = live.sender.clone();
    let generation = live.generation;
    live.task = Some(tokio::spawn(async move {
        loop {
            let event = events.next().await;
            let closed = event.is_none();
            if sender.send(News { generation, event }).is_err() || closed {
                return;
            }
        }
    }));
}

/// The number of the account's newest notification (the lobby's stream starts after it).
async fn newest_notification(api: &mut Api) -> String {
    let call = Call {
        query: vec![("limit", "1".to_owned())],
        ..Call::default()
    };
    match api.get("/v1/me/events", call).await {
        Ok(page) => page["newest"].as_i64().unwrap_or(0).to_string(),
        Err(_) => "0".to_owned(),
    }
}

/// Keys and resizes, read on a thread of their own (crossterm's read blocks). Ctrl-C leaves at
/// once, the terminal given back, even while the loop waits for a server that does not answer.
fn read_keys() -> mpsc::UnboundedReceiver<Event> {
    let (sender, keys) = mpsc::unbounded_channel();
    std::thread::spawn(move || {
        while let Ok(event) = event::read() {
            if let Event::Key(key) = &event
                && key.modifiers.contains(KeyModifiers::CONTROL)
                && key.code == KeyCode::Char('c')
            {
                ratatui::restore();
                std::process::exit(130);
            }
            if sender.send(event).is_err() {
                return;
            }
        }
    });
    keys
}

/// The terminal in raw mode on the alternate screen while this lives; given back as it was
/// when dropped, and by ratatui's panic hook on a panic.
struct Terminal(ratatui::DefaultTerminal);

impl Terminal {
    fn enter() -> Result<Terminal, Failure> {
        ratatui::try_init()
            .map(Terminal)
            .map_err(|error| Failure::Local(format!("the terminal cannot be drawn on: {error}")))
    }

    fn draw(&mut self, app: &App, look: Look) -> Result<(), Failure> {
        let now = crate::api::now();
        self.0
            .draw(|frame| draw::draw(frame, app, look, now))
            .map(|_| ())
            .map_err(|error| Failure::Local(format!("drawing the screen: {error}")))
    }
}

impl Drop for Terminal {
    fn drop(&mut self) {
        ratatui::restore();
    }
}
