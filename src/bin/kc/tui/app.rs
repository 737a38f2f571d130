//! What the full-screen table holds and what a key means: pure state, no terminal and no
//! network, so that a key's effect is a value (`Intent`) the loop in `mod.rs` carries out
//! against the API, and this file is tested without either.

use ratatui::crossterm::event::{Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use serde_json::Value;

use crate::table;

/// The whole screen's state.
pub struct App {
    /// The screen shown.
    pub screen: Screen,
    /// The line being typed (a move `7H N`, or a word: `hint`, `talk …`, `replay`, `back`).
    pub input: String,
    /// The last thing said to the player: what happened, or why not.
    pub status: String,
    /// The server's address, for the header and the login prompt.
    pub server: String,
    /// Who is logged in.
    pub me: Option<String>,
    /// A login asked for (at start without one, or when the login expired), over the screen.
    pub login: Option<LoginForm>,
}

/// The screens.
pub enum Screen {
    /// My matches and the open tables.
    Lobby(Lobby),
    /// One match: played, watched or replayed.
    Table(Box<Table>),
}

/// The lobby's rows: my matches, then the public tables waiting for players.
#[derive(Default)]
pub struct Lobby {
    /// My matches (`MatchSummary`), the inbox's order.
    pub mine: Vec<Value>,
    /// Public tables waiting for players that I do not sit at.
    pub open: Vec<Value>,
    /// The row chosen (over `mine` then `open`).
    pub selected: usize,
}

/// One match on screen.
pub struct Table {
    /// Its id.
    pub id: String,
    /// The view as the server last gave it (`MatchView`).
    pub view: Value,
    /// Its summary (`MatchSummary`): who sits where.
    pub summary: Value,
    /// The log so far: `(seq, Event)`.
    pub log: Vec<(i64, Value)>,
    /// The legal action chosen (an index into the view's `legal_actions`).
    pub selected: usize,
    /// The expert bot's advice asked for (`Hint`), until the next move.
    pub hint: Option<Value>,
    /// A replay under way.
    pub replay: Option<Replay>,
}

/// The table as it was after event `at`.
pub struct Replay {
    /// The event shown.
    pub at: i64,
    /// The view then (`GET /v1/matches/{id}/replay?at=`).
    pub view: Value,
}

/// A login prompt.
#[derive(Default)]
pub struct LoginForm {
    /// Why it is asked.
    pub reason: String,
    /// The account's name.
    pub username: String,
    /// The password (shown as stars).
    pub password: String,
    /// Whether the password is being typed (else the name).
    pub on_password: bool,
}

/// What a key asks the loop to do.
#[derive(Debug, PartialEq)]
pub enum Intent {
    /// Nothing beyond the state changed here.
    Nothing,
    /// Leave `kc`.
    Quit,
    /// Back to the lobby (read again).
    Lobby,
    /// Read again what is on screen.
    Refresh,
    /// Open a match.
    Open(String),
    /// Take a seat at a match, then open it.
    Join(String),
    /// Create a match with these words (`[preset] [seats] [bot levels…] [clock]`), then open it.
    New(Vec<String>),
    /// Play this action (one of the view's `legal_actions`).
    Act(Value),
    /// Ask for a hint.
    Hint,
    /// Say something to the table.
    Talk(String),
    /// A courtesy or a claim: `nudge`, `give-time`, `claim`.
    Post(&'static str),
    /// Leave the match for good.
    Resign,
    /// Show the table after event `at`.
    ReplayAt(i64),
    /// Log in with these.
    Login {
        /// The account's name.
        username: String,
        /// Its password.
        password: String,
    },
}

impl App {
    /// A new app on the lobby.
    pub fn new(server: String, me: Option<String>) -> App {
        App {
            screen: Screen::Lobby(Lobby::default()),
            input: String::new(),
            status: String::new(),
            server,
            me,
            login: None,
        }
    }

    /// Whether a match that has ended is on screen.
    pub fn on_an_ended_match(&self) -> bool {
        match &self.screen {
            Screen::Table(table) => {
                matches!(table.view["status"].as_str(), Some("finished" | "aborted"))
            }
            Screen::Lobby(_) => false,
        }
    }

    /// What a terminal event means.
    pub fn on_event(&mut self, event: &Event) -> Intent {
        let Event::Key(key) = event else {
            return Intent::Nothing;
        };
        if key.kind == KeyEventKind::Release {
            return Intent::Nothing;
        }
        if key.modifiers.contains(KeyModifiers::CONTROL) && key.code == KeyCode::Char('c') {
            return Intent::Quit;
        }
        if self.login.is_some() {
            return self.on_login_key(key);
        }
        match key.code {
            KeyCode::Char(c) => {
                self.input.push(c);
                Intent::Nothing
            }
            KeyCode::Backspace => {
                self.input.pop();
                Intent::Nothing
            }
            KeyCode::Esc if !self.input.is_empty() => {
                self.input.clear();
                Intent::Nothing
            }
            KeyCode::Enter if !self.input.trim().is_empty() => {
                let line = std::mem::take(&mut self.input);
                self.typed(line.trim())
            }
            code => match &mut self.screen {
                Screen::Lobby(lobby) => lobby.on_key(code),
                Screen::Table(table) => table.on_key(code),
            },
        }
    }

    fn on_login_key(&mut self, key: &KeyEvent) -> Intent {
        let form = self.login.as_mut().expect("a login form");
        let field = if form.on_password {
            &mut form.password
        } else {
            &mut form.username
        };
        match key.code {
            KeyCode::Char(c) => field.push(c),
            KeyCode::Backspace => {
                field.pop();
            }
            KeyCode::Tab | KeyCode::Up | KeyCode::Down => form.on_password = !form.on_password,
            KeyCode::Esc => return Intent::Quit,
            KeyCode::Enter if !form.on_password => form.on_password = true,
            KeyCode::Enter if !form.username.is_empty() && !form.password.is_empty() => {
                return Intent::Login {
                    username: form.username.clone(),
                    password: std::mem::take(&mut form.password),
                };
            }
            _ => {}
        }
        Intent::Nothing
    }

    /// A typed line: a word of the screen, or at a table a move in `kc`'s words.
    fn typed(&mut self, line: &str) -> Intent {
        let words: Vec<&str> = line.split_whitespace().collect();
        let rest = || words[1..].join(" ");
        match words[0].to_lowercase().as_str() {
            "q" | "quit" | "exit" => return Intent::Quit,
            "refresh" => return Intent::Refresh,
            "open" | "show" if words.len() == 2 => return Intent::Open(words[1].to_owned()),
            "join" if words.len() == 2 => return Intent::Join(words[1].to_owned()),
            "new" => return Intent::New(words[1..].iter().map(|w| w.to_string()).collect()),
            _ => {}
        }
        let Screen::Table(table) = &mut self.screen else {
            self.status = format!(
                "`{line}`: in the lobby, type `new [preset] [seats] [bots…] [clock]`, `join ID`, \
                 `open ID` or `quit`"
            );
            return Intent::Nothing;
        };
        match words[0].to_lowercase().as_str() {
            "back" | "lobby" => Intent::Lobby,
            "hint" => Intent::Hint,
            "talk" | "say" if words.len() > 1 => Intent::Talk(rest()),
            "nudge" => Intent::Post("nudge"),
            "give-time" => Intent::Post("give-time"),
            "claim" => Intent::Post("claim"),
            "resign" => Intent::Resign,
            "replay" => {
                let at = words.get(1).and_then(|at| at.parse().ok());
                Intent::ReplayAt(at.unwrap_or_else(|| table.version()))
            }
            _ => match table.legal_as_typed(line) {
                Some(action) => Intent::Act(action),
                None => {
                    self.status = format!(
                        "`{line}` is not a legal move now (↑↓ show those that are; \
                         `hint`, `talk …`, `replay`, `back`)"
                    );
                    Intent::Nothing
                }
            },
        }
    }
}

impl Lobby {
    /// Every row: mine, then the open tables.
    pub fn rows(&self) -> impl Iterator<Item = &Value> {
        self.mine.iter().chain(&self.open)
    }

    fn on_key(&mut self, code: KeyCode) -> Intent {
        let count = self.mine.len() + self.open.len();
        match code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down if self.selected + 1 < count => self.selected += 1,
            KeyCode::Enter => {
                let Some(row) = self.rows().nth(self.selected) else {
                    return Intent::Nothing;
                };
                let id = row["id"].as_str().unwrap_or_default().to_owned();
                return if self.selected < self.mine.len() {
                    Intent::Open(id)
                } else {
                    Intent::Join(id)
                };
            }
            _ => {}
        }
        Intent::Nothing
    }
}

impl Table {
    /// A table just opened.
    pub fn new(id: String, view: Value, summary: Value) -> Table {
        Table {
            id,
            view,
            summary,
            log: Vec::new(),
            selected: 0,
            hint: None,
            replay: None,
        }
    }

    /// The log's length the view reflects.
    pub fn version(&self) -> i64 {
        self.view["version"].as_i64().unwrap_or(0)
    }

    /// The view on screen: the replay's, or the live one.
    pub fn shown(&self) -> &Value {
        self.replay
            .as_ref()
            .map_or(&self.view, |replay| &replay.view)
    }

    /// The legal actions of the live view.
    pub fn legal(&self) -> &[Value] {
        self.view["legal_actions"]
            .as_array()
            .map_or(&[], Vec::as_slice)
    }

    /// A new view from the server: the choice kept on the same action if it is still legal.
    pub fn take_view(&mut self, view: Value) {
        let chosen = self.legal().get(self.selected).cloned();
        if view["version"] != self.view["version"] {
            self.hint = None;
        }
        self.view = view;
        self.selected = chosen
            .and_then(|chosen| self.legal().iter().position(|action| *action == chosen))
            .unwrap_or(0);
    }

    fn on_key(&mut self, code: KeyCode) -> Intent {
        if let Some(replay) = &self.replay {
            let last = self.version();
            let at = match code {
                KeyCode::Left => replay.at - 1,
                KeyCode::Right => replay.at + 1,
                KeyCode::PageUp => replay.at - 10,
                KeyCode::PageDown => replay.at + 10,
                KeyCode::Home => 0,
                KeyCode::End => last,
                KeyCode::Esc => {
                    self.replay = None;
                    return Intent::Nothing;
                }
                _ => return Intent::Nothing,
            };
            return Intent::ReplayAt(at.clamp(0, last));
        }
        let count = self.legal().len();
        match code {
            KeyCode::Up | KeyCode::Left => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down | KeyCode::Right if self.selected + 1 < count => self.selected += 1,
            KeyCode::Enter => {
                if let Some(action) = self.legal().get(self.selected) {
                    return Intent::Act(action.clone());
                }
            }
            KeyCode::Esc => return Intent::Lobby,
            _ => {}
        }
        Intent::Nothing
    }

    /// The legal action typed as `kc`'s words, with the verb optional for a play
    /// (`7H N`, `play 7h n`, `JK N as 7H`, `move S N 2`, `draw`, `end`).
    pub fn legal_as_typed(&self, line: &str) -> Option<Value> {
        let wanted = canonical(line);
        self.legal()
            .iter()
            .find(|action| canonical(&table::action_words(action)) == wanted)
            .cloned()
    }
}

/// Typed words in one spelling: upper case, `play` added before a card, a joker's `as` and
/// `--as` alike, `--count` and a bare number alike.
fn canonical(line: &str) -> String {
    let mut words: Vec<String> = line
        .split_whitespace()
        .map(str::to_uppercase)
        .filter(|word| word != "--AS" && word != "--COUNT")
        .collect();
    let verbs = ["PLAY", "MOVE", "DRAW", "END", "END_TURN"];
    if words
        .first()
        .is_some_and(|first| !verbs.contains(&first.as_str()))
    {
        words.insert(0, "PLAY".to_owned());
    }
    if words.first().is_some_and(|first| first == "END_TURN") {
        words[0] = "END".to_owned();
    }
    // `play JK N as 7H`: the word `as` sits fourth (a card named AS sits second or fifth).
    if words.len() == 5 && words[0] == "PLAY" && words[3] == "AS" {
        words.remove(3);
    }
    words.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn key(code: KeyCode) -> Event {
        Event::Key(KeyEvent::new(code, KeyModifiers::NONE))
    }

    fn table() -> App {
        let mut app = App::new("http://server".into(), Some("maya".into()));
        let view = json!({"version": 7, "legal_actions": [
            {"type": "play", "card": "7H", "to": "N"},
            {"type": "play", "card": "JK", "as": "6S", "to": "E"},
            {"type": "move", "from": "S", "to": "N", "count": 2},
            {"type": "end_turn"},
        ]});
        app.screen = Screen::Table(Box::new(Table::new("m".into(), view, json!({}))));
        app
    }

    fn typed(app: &mut App, line: &str) -> Intent {
        for c in line.chars() {
            app.on_event(&key(KeyCode::Char(c)));
        }
        app.on_event(&key(KeyCode::Enter))
    }

    #[test]
    fn the_arrows_choose_a_legal_action_and_enter_plays_it() {
        let mut app = table();
        app.on_event(&key(KeyCode::Down));
        app.on_event(&key(KeyCode::Down));
        app.on_event(&key(KeyCode::Down));
        app.on_event(&key(KeyCode::Down));
        assert_eq!(
            app.on_event(&key(KeyCode::Enter)),
            Intent::Act(json!({"type": "end_turn"}))
        );
        app.on_event(&key(KeyCode::Up));
        assert_eq!(
            app.on_event(&key(KeyCode::Enter)),
            Intent::Act(json!({"type": "move", "from": "S", "to": "N", "count": 2}))
        );
    }

    #[test]
    fn a_move_is_typed_in_kcs_words_or_shorter() {
        let mut app = table();
        let seven = Intent::Act(json!({"type": "play", "card": "7H", "to": "N"}));
        assert_eq!(typed(&mut app, "7h n"), seven);
        assert_eq!(typed(&mut app, "play 7H N"), seven);
        assert_eq!(
            typed(&mut app, "JK E as 6S"),
            Intent::Act(json!({"type": "play", "card": "JK", "as": "6S", "to": "E"}))
        );
        assert_eq!(
            typed(&mut app, "move s n 2"),
            Intent::Act(json!({"type": "move", "from": "S", "to": "N", "count": 2}))
        );
        assert_eq!(
            typed(&mut app, "end"),
            Intent::Act(json!({"type": "end_turn"}))
        );
        assert_eq!(
            typed(&mut app, "AS N"),
            Intent::Nothing,
            "the ace of spades"
        );
        assert_eq!(typed(&mut app, "8H N"), Intent::Nothing);
        assert!(app.status.contains("not a legal move"), "{}", app.status);
        assert_eq!(
            typed(&mut app, "talk good game"),
            Intent::Talk("good game".into())
        );
        assert_eq!(typed(&mut app, "replay"), Intent::ReplayAt(7));
    }

    #[test]
    fn a_replay_is_scrubbed_with_the_arrows_within_the_log() {
        let mut app = table();
        let Screen::Table(table) = &mut app.screen else {
            unreachable!()
        };
        table.replay = Some(Replay {
            at: 7,
            view: json!({}),
        });
        assert_eq!(app.on_event(&key(KeyCode::Left)), Intent::ReplayAt(6));
        assert_eq!(app.on_event(&key(KeyCode::Right)), Intent::ReplayAt(7));
        assert_eq!(app.on_event(&key(KeyCode::PageUp)), Intent::ReplayAt(0));
        assert_eq!(app.on_event(&key(KeyCode::Esc)), Intent::Nothing);
        let Screen::Table(table) = &app.screen else {
            unreachable!()
        };
        assert!(table.replay.is_none());
    }

    #[test]
    fn ctrl_c_quits_from_anywhere() {
        let mut app = table();
        app.login = Some(LoginForm::default());
        let ctrl_c = Event::Key(KeyEvent::new(KeyCode::Char('c'), KeyModifiers::CONTROL));
        assert_eq!(app.on_event(&ctrl_c), Intent::Quit);
    }
}
