//! What each command asks the server, and what it prints: words for a person, or with `--json`
//! the API's own JSON (one document on stdout), so that scripts read exactly what the
//! description says.

use std::io::{BufRead, IsTerminal, Write};
use std::time::Duration;

use clap::Args;
use serde_json::{Value, json};

use crate::api::{Api, Call, login_from};
use crate::failure::Failure;
use crate::table::{self, Style};

/// How a command prints.
#[derive(Clone, Copy)]
pub struct Out {
    /// The API's JSON instead of words.
    pub json: bool,
    /// How cards are written.
    pub style: Style,
}

impl Out {
    /// Prints `value` as JSON with `--json`, else the words.
    pub fn print(self, value: &Value, words: impl FnOnce() -> String) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("JSON serialises")
            );
        } else {
            print!("{}", words());
        }
    }
}

/// `kc new`'s options: the table a new match is created with.
#[derive(Args)]
pub struct NewMatch {
    /// The preset (`standard`, `draw-first`, `foundations`, `night-one`).
    #[arg(long, default_value = "standard")]
    preset: String,
    /// Seats at the table (the creator takes seat 0).
    #[arg(long, default_value_t = 2)]
    seats: u8,
    /// A bot for the next free seat, by level (`basic`, `expert`, …); repeat for more.
    #[arg(long = "bot")]
    bots: Vec<String>,
    /// A clock: a preset's name (`fast_5m`, `correspondence_1d`, …).
    #[arg(long)]
    clock: Option<String>,
    /// Only players with the invite code may join.
    #[arg(long)]
    private: bool,
}

/// `kc register USERNAME`: a new account, then logged in.
pub async fn register(api: &mut Api, username: &str) -> Result<(), Failure> {
    let password = read_password("Password (8 characters or more): ")?;
    let account = Call {
        body: Some(json!({"username": username, "password": password})),
        anonymous: true,
        ..Call::default()
    };
    api.post("/v1/accounts", account).await?;
    log_in(api, username, &password).await?;
    println!("Registered and logged in as {username} on {}.", api.base);
    Ok(())
}

/// `kc login USERNAME`.
pub async fn login(api: &mut Api, username: &str) -> Result<(), Failure> {
    let password = read_password("Password: ")?;
    log_in(api, username, &password).await?;
    println!("Logged in as {username} on {}.", api.base);
    Ok(())
}

pub async fn log_in(api: &mut Api, username: &str, password: &str) -> Result<(), Failure> {
    let call = Call {
        body: Some(json!({"username": username, "password": password})),
        anonymous: true,
        ..Call::default()
    };
    let pair = api.post("/v1/auth/login", call).await?;
    api.keep_login(Some(login_from(username, &pair)?))
}

/// `kc logout`: the refresh token revoked on the server, the login forgotten here.
pub async fn logout(api: &mut Api) -> Result<(), Failure> {
    let Some(login) = api.login().cloned() else {
        println!("Not logged in to {}.", api.base);
        return Ok(());
    };
    let call = Call {
        body: Some(json!({"refresh_token": login.refresh_token})),
        anonymous: true,
        ..Call::default()
    };
    // Forgotten here even when the server cannot be told: the tokens expire by themselves.
    let told = api.post("/v1/auth/logout", call).await;
    api.keep_login(None)?;
    told?;
    println!("Logged out of {} ({}).", api.base, login.username);
    Ok(())
}

/// `kc matches [--turn]`: my matches, or those waiting for my move, soonest deadline first.
pub async fn matches(api: &mut Api, out: Out, turn: bool) -> Result<(), Failure> {
    let page = my_matches(api, turn).await?;
    let me = api.login().map(|login| login.username.clone());
    out.print(&page, || {
        let rows: Vec<String> = page["matches"]
            .as_array()
            .into_iter()
            .flatten()
            .map(|summary| match_line(summary, me.as_deref()))
            .collect();
        if rows.is_empty() {
            let none = if turn {
                "No match waits for your move."
            } else {
                "No matches yet: `kc new`."
            };
            format!("{none}\n")
        } else {
            rows.join("\n") + "\n"
        }
    });
    Ok(())
}

/// A page of my matches (`mine=true`), or of those waiting for my move (`turn=mine`, soonest
/// deadline first): the first 100.
pub async fn my_matches(api: &mut Api, turn: bool) -> Result<Value, Failure> {
    let filter = if turn {
        ("turn", "mine")
    } else {
        ("mine", "true")
    };
    let query = vec![(filter.0, filter.1.to_owned()), ("limit", "100".to_owned())];
    api.get(
        "/v1/matches",
        Call {
            query,
            ..Call::default()
        },
    )
    .await
}

/// One match of a listing: its id, status, who sits, whose turn and its deadline.
fn match_line(summary: &Value, me: Option<&str>) -> String {
    let seats: Vec<String> = summary["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|seat| {
            let name = table::seat_name(seat);
            if seat["seat"] == summary["turn"] && summary["status"] == "playing" {
                format!("▶{name}")
            } else {
                name
            }
        })
        .collect();
    let deadline = summary["clock"]["deadline"]
        .as_str()
        .map(|deadline| format!("  by {deadline}"))
        .unwrap_or_default();
    format!(
        "{}  {:<8} {}{}{}",
        summary["id"].as_str().unwrap_or("?"),
        summary["status"].as_str().unwrap_or("?"),
        seats.join(", "),
        if table::my_turn(summary, me) {
            "  (your turn)"
        } else {
            ""
        },
        deadline
    )
}

/// `kc new`: a match with these rules, seat 0 mine, bots in the next seats.
pub async fn new_match(api: &mut Api, out: Out, new: NewMatch) -> Result<(), Failure> {
    let mut body = json!({
        "seats": new.seats,
        "rules": {"preset": new.preset},
        "bots": new.bots.iter().map(|level| json!({"level": level})).collect::<Vec<_>>(),
    });
    if let Some(clock) = new.clock {
        body["clock"] = clock.into();
    }
    if new.private {
        body["visibility"] = "private".into();
    }
    let summary = api
        .post(
            "/v1/matches",
            Call {
                body: Some(body),
                ..Call::default()
            },
        )
        .await?;
    out.print(&summary, || {
        let mut words = format!(
            "Created {} ({}).\n",
            summary["id"].as_str().unwrap_or("?"),
            summary["status"].as_str().unwrap_or("?")
        );
        if let Some(code) = summary["invite_code"].as_str() {
            words.push_str(&format!("Invite code: {code}\n"));
        }
        words
    });
    Ok(())
}

/// `kc join MATCH [--code CODE]`.
pub async fn join(api: &mut Api, out: Out, id: &str, code: Option<&str>) -> Result<(), Failure> {
    let body = match code {
        Some(code) => json!({"invite_code": code}),
        None => json!({}),
    };
    let summary = post_about(api, id, "join", body).await?;
    out.print(&summary, || {
        format!(
            "Seated at {} ({}).\n",
            summary["id"].as_str().unwrap_or("?"),
            summary["status"].as_str().unwrap_or("?")
        )
    });
    Ok(())
}

/// `kc show MATCH`: the table as I see it.
pub async fn show(api: &mut Api, out: Out, id: &str) -> Result<(), Failure> {
    let view = view(api, id).await?;
    print_table(api, out, id, &view).await
}

async fn print_table(api: &mut Api, out: Out, id: &str, view: &Value) -> Result<(), Failure> {
    if out.json {
        out.print(view, String::new);
        return Ok(());
    }
    let summary = get_about(api, id, "").await?;
    print!("{}", table::draw(view, &summary, out.style));
    Ok(())
}

/// `kc replay MATCH [--at N]`: the table after event `N` (the last by default): my seat's
/// view while the match runs, every hand once it has ended.
pub async fn replay(api: &mut Api, out: Out, id: &str, at: Option<i64>) -> Result<(), Failure> {
    let at = match at {
        Some(at) => at,
        None => get_about(api, id, "").await?["version"]
            .as_i64()
            .unwrap_or(0),
    };
    let call = Call {
        query: vec![("at", at.to_string())],
        ..Call::default()
    };
    let view = api.get(&match_path(id, "replay")?, call).await?;
    print_table(api, out, id, &view).await
}

/// `kc legal MATCH`: one action a line, as the words that take it (`play 7H N`).
pub async fn legal(api: &mut Api, out: Out, id: &str) -> Result<(), Failure> {
    let view = view(api, id).await?;
    out.print(&view["legal_actions"], || {
        table::legal_words(&view)
            .into_iter()
            .map(|words| words + "\n")
            .collect()
    });
    Ok(())
}

/// How often a move whose answer was lost is sent again (with the same idempotency key).
const RESENDS: u32 = 3;

/// A move: sent with the version just seen and an idempotency key, so that a move sent again
/// after a lost answer is played once (the server answers the first answer again).
pub async fn act(api: &mut Api, out: Out, id: &str, action: Value) -> Result<(), Failure> {
    let seen = view(api, id).await?;
    let answer = send_move(api, id, &seen["version"], action).await?;
    print_table(api, out, id, &answer).await
}

/// `POST /v1/matches/{id}/moves` with `expected_version` and one idempotency key for every
/// try: a connection lost before the answer is tried again (up to [`RESENDS`] times), and the
/// server plays the move once. The view after the move.
pub async fn send_move(
    api: &mut Api,
    id: &str,
    version: &Value,
    action: Value,
) -> Result<Value, Failure> {
    let key = idempotency_key()?;
    let path = match_path(id, "moves")?;
    let body = json!({"expected_version": version, "action": action});
    let mut tries = 0;
    loop {
        let call = Call {
            body: Some(body.clone()),
            headers: vec![("idempotency-key", key.clone())],
            ..Call::default()
        };
        match api.post(&path, call).await {
            Err(Failure::Unreachable { .. }) if tries < RESENDS => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(500 * u64::from(tries))).await;
            }
            other => return other,
        }
    }
}

/// `kc hint MATCH`: what the expert bot would play in my place, and why.
pub async fn hint(api: &mut Api, out: Out, id: &str) -> Result<(), Failure> {
    let hint = get_about(api, id, "hint").await?;
    out.print(&hint, || {
        format!(
            "{}: {}\n",
            table::action_words(&hint["action"]),
            hint["reason"].as_str().unwrap_or("")
        )
    });
    Ok(())
}

/// `kc claim MATCH`: the late seat to move is out (where the table takes claims).
pub async fn claim(api: &mut Api, out: Out, id: &str) -> Result<(), Failure> {
    let view = post_about(api, id, "claim", json!({})).await?;
    print_table(api, out, id, &view).await
}

/// `kc nudge MATCH` and `kc give-time MATCH`: a courtesy to the seat to move, written in the
/// log; prints what the log says.
pub async fn courtesy(api: &mut Api, out: Out, id: &str, what: &str) -> Result<(), Failure> {
    let logged = post_about(api, id, what, json!({})).await?;
    out.print(&logged, || {
        let event = &logged["event"];
        match event["type"].as_str() {
            Some("time_given") => {
                format!("Seat {} has {} s more.\n", event["seat"], event["seconds"])
            }
            _ => format!("Seat {} was nudged.\n", event["seat"]),
        }
    });
    Ok(())
}

/// `kc talk MATCH WORDS…`: said to the table (plain text).
pub async fn talk(api: &mut Api, out: Out, id: &str, words: &[String]) -> Result<(), Failure> {
    let logged = post_about(api, id, "messages", json!({"text": words.join(" ")})).await?;
    out.print(&logged, || "Said.\n".to_owned());
    Ok(())
}

/// `kc invite MATCH USERNAME`: an invitation to my private match.
pub async fn invite(api: &mut Api, out: Out, id: &str, username: &str) -> Result<(), Failure> {
    let sent = post_about(api, id, "invitations", json!({"username": username})).await?;
    out.print(&sent, || format!("Invited {username}.\n"));
    Ok(())
}

/// `kc export MATCH > file`: the match's verifiable export, as the API gives it (always JSON).
pub async fn export(api: &mut Api, id: &str) -> Result<(), Failure> {
    let export = get_about(api, id, "export").await?;
    println!(
        "{}",
        serde_json::to_string_pretty(&export).expect("JSON serialises")
    );
    Ok(())
}

pub async fn view(api: &mut Api, id: &str) -> Result<Value, Failure> {
    get_about(api, id, "view").await
}

/// `GET /v1/matches/{id}/{what}` (`what` empty: the match's summary).
pub async fn get_about(api: &mut Api, id: &str, what: &str) -> Result<Value, Failure> {
    api.get(&match_path(id, what)?, Call::default()).await
}

/// `POST /v1/matches/{id}/{what}` with a JSON body.
pub async fn post_about(
    api: &mut Api,
    id: &str,
    what: &str,
    body: Value,
) -> Result<Value, Failure> {
    let call = Call {
        body: Some(body),
        ..Call::default()
    };
    api.post(&match_path(id, what)?, call).await
}

/// The path of `what` of match `id`.
pub fn match_path(id: &str, what: &str) -> Result<String, Failure> {
    let id = segment(id)?;
    Ok(if what.is_empty() {
        format!("/v1/matches/{id}")
    } else {
        format!("/v1/matches/{id}/{what}")
    })
}

/// A match id as a path segment: only what an id may hold, so that no argument can reach
/// another path of the API.
pub fn segment(id: &str) -> Result<&str, Failure> {
    let fits = !id.is_empty()
        && id.len() <= 64
        && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-');
    if fits {
        Ok(id)
    } else {
        Err(Failure::Usage(format!("`{id}` is not a match id")))
    }
}

/// A fresh idempotency key: 128 random bits, hex.
fn idempotency_key() -> Result<String, Failure> {
    let mut bytes = [0u8; 16];
    getrandom::fill(&mut bytes).map_err(|error| Failure::Local(error.to_string()))?;
    Ok(hex::encode(bytes))
}

/// A password: typed at the terminal without echo, or the first line of stdin when it is not
/// a terminal (a script: `printf '%s\n' "$PASSWORD" | kc login maya`).
fn read_password(prompt: &str) -> Result<String, Failure> {
    let stdin = std::io::stdin();
    let local = |error: std::io::Error| Failure::Local(format!("reading the password: {error}"));
    let mut line = String::new();
    if stdin.is_terminal() {
        eprint!("{prompt}");
        std::io::stderr().flush().map_err(local)?;
        let _quiet = Unechoed::new();
        stdin.lock().read_line(&mut line).map_err(local)?;
        eprintln!();
    } else {
        stdin.lock().read_line(&mut line).map_err(local)?;
    }
    let password = line.trim_end_matches(['\r', '\n']).to_owned();
    if password.is_empty() {
        return Err(Failure::Usage("no password given".into()));
    }
    Ok(password)
}

/// The terminal without echo while it lives (the settings before are put back on drop, also
/// when the read fails).
struct Unechoed(Option<libc::termios>);

impl Unechoed {
    fn new() -> Unechoed {
        // SAFETY: tcgetattr and tcsetattr on stdin with a termios we own; failures leave the
        // terminal as it was and echo on.
        unsafe {
            let mut settings = std::mem::zeroed::<libc::termios>();
            if libc::tcgetattr(libc::STDIN_FILENO, &mut settings) != 0 {
                return Unechoed(None);
            }
            let before = settings;
            settings.c_lflag &= !libc::ECHO;
            if libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &settings) != 0 {
                return Unechoed(None);
            }
            Unechoed(Some(before))
        }
    }
}

impl Drop for Unechoed {
    fn drop(&mut self) {
        if let Some(before) = self.0 {
            // SAFETY: puts back the settings read in `new`.
            unsafe {
                libc::tcsetattr(libc::STDIN_FILENO, libc::TCSANOW, &before);
            }
        }
    }
}
