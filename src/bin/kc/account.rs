//! The commands about the account rather than one match: `kc seek` (quick pairing),
//! `kc vacation`, `kc token` (tokens for scripts and bots), and `kc verify`, which hands an
//! export to the server binary's own `verify` (kc links none of the rules).

use std::path::PathBuf;
use std::process::Command;

use clap::{Args, Subcommand};
use serde_json::{Value, json};

use crate::api::{Api, Call};
use crate::commands::Out;
use crate::failure::Failure;

/// `kc seek`'s options.
#[derive(Args)]
pub struct Seek {
    /// The seeks I have made (open, matched, cancelled, expired), instead of a new one.
    #[arg(long, conflicts_with = "cancel")]
    list: bool,
    /// Withdraws this open seek.
    #[arg(long, value_name = "SEEK")]
    cancel: Option<String>,
    /// The preset (`standard`, `draw-first`, `foundations`, `night-one`).
    #[arg(long, default_value = "standard")]
    preset: String,
    /// Seats at the table (the preset's number by default).
    #[arg(long)]
    seats: Option<u8>,
    /// A clock preset (`fast_5m`, `correspondence_1d`, …); seeks pair with the same clock only.
    #[arg(long)]
    clock: Option<String>,
    /// A rated table (needs a clock).
    #[arg(long)]
    rated: bool,
    /// The lowest rating accepted at the table.
    #[arg(long)]
    min_rating: Option<i64>,
    /// The highest rating accepted at the table.
    #[arg(long)]
    max_rating: Option<i64>,
    /// Unrated: bots take the empty seats after this many seconds (10 or more).
    #[arg(long)]
    bots_after: Option<u32>,
}

/// `kc seek`: a request for a table (or `--list`, `--cancel SEEK`).
pub async fn seek(api: &mut Api, out: Out, seek: Seek) -> Result<(), Failure> {
    if seek.list {
        let list = api.get("/v1/me/seeks", Call::default()).await?;
        out.print(&list, || {
            let rows: Vec<String> = list["seeks"]
                .as_array()
                .into_iter()
                .flatten()
                .map(seek_line)
                .collect();
            if rows.is_empty() {
                "No seeks.\n".to_owned()
            } else {
                rows.join("\n") + "\n"
            }
        });
        return Ok(());
    }
    if let Some(id) = seek.cancel {
        let path = format!("/v1/seeks/{}", crate::commands::segment(&id)?);
        let gone = api
            .call(reqwest::Method::DELETE, &path, Call::default())
            .await?;
        out.print(&gone, || format!("Seek {id} withdrawn.\n"));
        return Ok(());
    }
    let mut body = json!({"preset": seek.preset, "rated": seek.rated});
    if let Some(seats) = seek.seats {
        body["seats"] = seats.into();
    }
    if let Some(clock) = seek.clock {
        body["clock"] = clock.into();
    }
    if seek.min_rating.is_some() || seek.max_rating.is_some() {
        body["rating_range"] = json!({"min": seek.min_rating, "max": seek.max_rating});
    }
    if let Some(seconds) = seek.bots_after {
        body["bots_after_seconds"] = seconds.into();
    }
    let made = api
        .post(
            "/v1/seeks",
            Call {
                body: Some(body),
                ..Call::default()
            },
        )
        .await?;
    out.print(&made, || seek_line(&made) + "\n");
    Ok(())
}

/// A seek in a line: its id, its state and, once matched, the match.
fn seek_line(seek: &Value) -> String {
    let matched = seek["match_id"]
        .as_str()
        .map(|id| format!(" → match {id}"))
        .unwrap_or_default();
    format!(
        "{}  {:<9} {} for {}{}{}",
        seek["id"].as_str().unwrap_or("?"),
        seek["status"].as_str().unwrap_or("?"),
        seek["preset"].as_str().unwrap_or("?"),
        seek["seats"],
        if seek["rated"] == true { ", rated" } else { "" },
        matched
    )
}

/// `kc vacation`'s options.
#[derive(Args)]
pub struct Vacation {
    /// Start a vacation until this moment (RFC 3339, `2026-12-27T18:00:00Z`).
    #[arg(long, conflicts_with_all = ["days", "end"])]
    until: Option<String>,
    /// Start a vacation of this many days from now.
    #[arg(long, conflicts_with = "end")]
    days: Option<u32>,
    /// End the vacation under way.
    #[arg(long)]
    end: bool,
}

/// `kc vacation`: my vacation days (and the vacation under way); `--until`/`--days` start
/// one, `--end` ends it.
pub async fn vacation(api: &mut Api, out: Out, vacation: Vacation) -> Result<(), Failure> {
    let until = match (vacation.until, vacation.days) {
        (Some(until), _) => Some(until),
        (None, Some(days)) => Some(days_from_now(days)?),
        (None, None) => None,
    };
    let shown = if vacation.end {
        api.call(reqwest::Method::DELETE, "/v1/me/vacation", Call::default())
            .await?
    } else if let Some(until) = until {
        let call = Call {
            body: Some(json!({"until": until})),
            ..Call::default()
        };
        api.post("/v1/me/vacation", call).await?
    } else {
        api.get("/v1/me/vacation", Call::default()).await?
    };
    out.print(&shown, || {
        let away = match shown["vacation"]["until"].as_str() {
            Some(until) => format!("On vacation until {until}; "),
            None => "Not on vacation; ".to_owned(),
        };
        format!("{away}{} vacation days left.\n", shown["days"])
    });
    Ok(())
}

/// Now plus `days`, in RFC 3339.
fn days_from_now(days: u32) -> Result<String, Failure> {
    let at = time::OffsetDateTime::now_utc() + time::Duration::days(i64::from(days));
    at.replace_nanosecond(0)
        .expect("zero nanoseconds")
        .format(&time::format_description::well_known::Rfc3339)
        .map_err(|error| Failure::Local(error.to_string()))
}

/// `kc token …`: tokens for scripts and bots.
#[derive(Subcommand)]
pub enum Token {
    /// Create a token; it is printed this once (`KC_TOKEN=… kc …`, or a bot's config).
    Create {
        /// A name to know it by.
        #[arg(long, default_value = "kc")]
        name: String,
        /// What it may do: `play`, `read`, `webhooks`, `account`, comma-separated.
        #[arg(long, value_delimiter = ',', default_value = "read,play")]
        scope: Vec<String>,
        /// Days until it stops working (without it: until revoked).
        #[arg(long)]
        days: Option<u32>,
    },
    /// My tokens (never the tokens themselves).
    List,
    /// Revoke a token by its id.
    Revoke {
        /// The token's id (`kc token list`).
        id: String,
    },
}

/// `kc token create|list|revoke`.
pub async fn token(api: &mut Api, out: Out, token: Token) -> Result<(), Failure> {
    match token {
        Token::Create { name, scope, days } => {
            let mut body = json!({"name": name, "scopes": scope});
            if let Some(days) = days {
                body["expires_in_days"] = days.into();
            }
            let call = Call {
                body: Some(body),
                ..Call::default()
            };
            let created = api.post("/v1/me/tokens", call).await?;
            // The one place kc prints a token: the user asked for it, and the server shows it
            // this once. Words on stderr, the token alone on stdout for `$(kc token create)`.
            if out.json {
                out.print(&created, String::new);
            } else {
                eprintln!(
                    "Token {} ({}) for {}: keep it secret; it is shown this once.",
                    created["id"].as_str().unwrap_or("?"),
                    created["name"].as_str().unwrap_or("?"),
                    scope_words(&created["scopes"])
                );
                println!("{}", created["token"].as_str().unwrap_or(""));
            }
        }
        Token::List => {
            let list = api.get("/v1/me/tokens", Call::default()).await?;
            out.print(&list, || {
                list["tokens"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|token| {
                        format!(
                            "{}  {:<20} {}  expires {}\n",
                            token["id"].as_str().unwrap_or("?"),
                            token["name"].as_str().unwrap_or("?"),
                            scope_words(&token["scopes"]),
                            token["expires_at"].as_str().unwrap_or("never")
                        )
                    })
                    .collect()
            });
        }
        Token::Revoke { id } => {
            let path = format!("/v1/me/tokens/{}", crate::commands::segment(&id)?);
            let gone = api
                .call(reqwest::Method::DELETE, &path, Call::default())
                .await?;
            out.print(&gone, || format!("Token {id} revoked.\n"));
        }
    }
    Ok(())
}

fn scope_words(scopes: &Value) -> String {
    scopes
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect::<Vec<_>>()
        .join(",")
}

/// `kc verify FILE`: the export checked by the server binary's own `verify` (its commitment,
/// every event's hash, the deal and every move re-played), found beside `kc`, on the `PATH`,
/// or at `$KC_VERIFIER`; its words and its verdict passed on.
pub fn verify(file: &str) -> Result<(), Failure> {
    let verifier = verifier();
    let status = Command::new(&verifier)
        .arg("verify")
        .arg(file)
        .status()
        .map_err(|error| {
            Failure::Local(format!(
                "`{} verify` could not be run ({error}): install the server binary \
                 (`cargo install --path .` installs both) or set KC_VERIFIER to its path",
                verifier.display()
            ))
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(Failure::Refused {
            code: "export_invalid".into(),
            detail: format!("{file} does not verify (the reason is above)"),
        })
    }
}

/// The server binary: `$KC_VERIFIER`, else `kings-corner` beside kc, else on the `PATH`.
fn verifier() -> PathBuf {
    if let Some(path) = std::env::var_os("KC_VERIFIER") {
        return PathBuf::from(path);
    }
    let beside = std::env::current_exe()
        .ok()
        .and_then(|kc| Some(kc.parent()?.join("kings-corner")))
        .filter(|path| path.is_file());
    beside.unwrap_or_else(|| PathBuf::from("kings-corner"))
}
