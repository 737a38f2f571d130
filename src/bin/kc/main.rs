//! `kc`: Kings in the Corner in a terminal, on a server's public HTTP API only (issue 41).
//!
//! Each command prints for a person by default and the API's own JSON with `--json`, and exits
//! 0 done, 1 refused (the problem's `code` first on stderr), 2 bad usage, 3 unreachable.
//!
//! - `config.rs`: the servers and the logins held for them (owner-only file);
//! - `api.rs`: calls, tokens renewed with the API's rotation, problems read;
//! - `commands.rs`: what each command asks the server and prints;
//! - `account.rs`: `kc seek`, `kc vacation`, `kc token`, `kc verify`;
//! - `wait.rs`: `kc wait`, on the account stream;
//! - `sse.rs`: a stream of Server-Sent Events, opened with a ticket and read event by event;
//! - `tui/`: the full-screen table (`kc` alone, or `kc tui`);
//! - `words.rs`: a match's log in sentences;
//! - `table.rs`: a view drawn in text;
//! - `failure.rs`: why a command failed, and its exit code.

mod account;
mod api;
mod commands;
mod config;
mod failure;
mod sse;
mod table;
mod tui;
mod wait;
mod words;

use clap::{Args, Parser, Subcommand};

use crate::failure::Failure;

/// Kings in the Corner in a terminal: play on any kings-corner server through its public API.
#[derive(Parser)]
#[command(name = "kc", version, about)]
struct Cli {
    #[command(flatten)]
    global: Global,
    /// Without a command: the full-screen table (`kc tui`).
    #[command(subcommand)]
    command: Option<Command>,
}

/// What every command takes.
#[derive(Args)]
pub struct Global {
    /// The server's URL (default http://127.0.0.1:8080); kept with a login made with it.
    #[arg(long, global = true, env = "KC_SERVER")]
    pub server: Option<String>,
    /// The name the server is kept under in kc's config.
    #[arg(long, global = true, default_value = "default")]
    pub server_name: String,
    /// Print the API's JSON instead of words.
    #[arg(long, global = true)]
    pub json: bool,
    /// Suits as letters (7H), for terminals without Unicode.
    #[arg(long, global = true)]
    pub ascii: bool,
}

#[derive(Subcommand)]
enum Command {
    /// Create an account and log in (the password is read from the terminal, or from stdin).
    Register {
        /// The account's name.
        username: String,
    },
    /// Log in (the password is read from the terminal, or from stdin).
    Login {
        /// The account's name.
        username: String,
    },
    /// Log out: the refresh token is revoked and forgotten.
    Logout,
    /// My matches (`--turn`: those waiting for my move, soonest deadline first).
    Matches {
        /// Only those waiting for my move.
        #[arg(long)]
        turn: bool,
    },
    /// Create a match (and take seat 0).
    New(commands::NewMatch),
    /// Take a free seat.
    Join {
        /// The match.
        r#match: String,
        /// A private match's invite code.
        #[arg(long)]
        code: Option<String>,
    },
    /// The table as I see it.
    Show {
        /// The match.
        r#match: String,
    },
    /// The actions I may take now, each as the words that take it.
    Legal {
        /// The match.
        r#match: String,
    },
    /// Play a card from my hand: `kc play MATCH 7H N` (a joker: `kc play MATCH JK N --as 7H`).
    Play {
        /// The match.
        r#match: String,
        /// The card (`7H`, `10D`, `JK`).
        card: String,
        /// The pile (`N E S W NE SE SW NW`, or a foundation `FC FD FH FS`).
        to: String,
        /// For a joker: the card it is played as.
        #[arg(long = "as")]
        as_face: Option<String>,
    },
    /// Move a pile: `kc move MATCH S N` (with `partial_runs`, `--count` cards from its top).
    Move {
        /// The match.
        r#match: String,
        /// The pile the cards come from.
        from: String,
        /// Where they go.
        to: String,
        /// How many cards from the top.
        #[arg(long)]
        count: Option<u8>,
    },
    /// Draw in mid-turn, where the table's draw mode allows it.
    Draw {
        /// The match.
        r#match: String,
    },
    /// End my turn.
    End {
        /// The match.
        r#match: String,
    },
    /// Leave the match for good.
    Resign {
        /// The match.
        r#match: String,
    },
    /// What the expert bot would play in my place, and why.
    Hint {
        /// The match.
        r#match: String,
    },
    /// Claim the late seat to move out (at a table that takes claims).
    Claim {
        /// The match.
        r#match: String,
    },
    /// Remind the seat to move that the table waits for it.
    Nudge {
        /// The match.
        r#match: String,
    },
    /// Give the seat to move the table's time for a turn once more.
    GiveTime {
        /// The match.
        r#match: String,
    },
    /// Say something to the table.
    Talk {
        /// The match.
        r#match: String,
        /// The words.
        #[arg(required = true)]
        words: Vec<String>,
    },
    /// Invite a player to my private match.
    Invite {
        /// The match.
        r#match: String,
        /// Who.
        username: String,
    },
    /// The match's verifiable export, as JSON (`kc export MATCH > match.json`).
    Export {
        /// The match.
        r#match: String,
    },
    /// The table after event N (`--at`, the last by default); every hand once it has ended.
    Replay {
        /// The match.
        r#match: String,
        /// The event to show the table after.
        #[arg(long)]
        at: Option<i64>,
    },
    /// Check an export offline with the server binary's own `verify` (`kc export` wrote it).
    Verify {
        /// The export's file.
        file: String,
    },
    /// Look for a table with players of my kind (quick pairing); `--list`, `--cancel SEEK`.
    Seek(account::Seek),
    /// My vacation days; `--days N` or `--until WHEN` to go away, `--end` to come back.
    Vacation(account::Vacation),
    /// Tokens for scripts and bots: `create --scope read,play`, `list`, `revoke ID`.
    #[command(subcommand)]
    Token(account::Token),
    /// The full-screen table: the lobby, or this match.
    Tui {
        /// A match to open at once.
        r#match: Option<String>,
    },
    /// Wait until it is my turn (in any match, or in this one); print the match and exit 0.
    Wait {
        /// Only this match.
        r#match: Option<String>,
        /// Wait instead until a turn of mine has a tenth of its time left.
        #[arg(long)]
        deadline_near: bool,
    },
}

fn main() {
    let cli = Cli::parse();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime starts");
    let outcome = runtime.block_on(run(cli));
    if let Err(failure) = outcome {
        eprintln!("kc: {failure}");
        std::process::exit(failure.exit_code());
    }
}

async fn run(cli: Cli) -> Result<(), Failure> {
    let global = &cli.global;
    let mut api = api::Api::open(&global.server_name, global.server.as_deref())?;
    let out = commands::Out {
        json: global.json,
        style: table::Style {
            ascii: global.ascii,
        },
    };
    let Some(command) = cli.command else {
        return tui::run(&mut api, out.style, None).await;
    };
    match command {
        Command::Register { username } => commands::register(&mut api, &username).await,
        Command::Login { username } => commands::login(&mut api, &username).await,
        Command::Logout => commands::logout(&mut api).await,
        Command::Matches { turn } => commands::matches(&mut api, out, turn).await,
        Command::New(new) => commands::new_match(&mut api, out, new).await,
        Command::Join { r#match, code } => {
            commands::join(&mut api, out, &r#match, code.as_deref()).await
        }
        Command::Show { r#match } => commands::show(&mut api, out, &r#match).await,
        Command::Legal { r#match } => commands::legal(&mut api, out, &r#match).await,
        Command::Play {
            r#match,
            card,
            to,
            as_face,
        } => {
            let mut action = serde_json::json!({"type": "play", "card": card, "to": to});
            if let Some(face) = as_face {
                action["as"] = face.into();
            }
            commands::act(&mut api, out, &r#match, action).await
        }
        Command::Move {
            r#match,
            from,
            to,
            count,
        } => {
            let mut action = serde_json::json!({"type": "move", "from": from, "to": to});
            if let Some(count) = count {
                action["count"] = count.into();
            }
            commands::act(&mut api, out, &r#match, action).await
        }
        Command::Draw { r#match } => {
            commands::act(&mut api, out, &r#match, serde_json::json!({"type": "draw"})).await
        }
        Command::End { r#match } => {
            let action = serde_json::json!({"type": "end_turn"});
            commands::act(&mut api, out, &r#match, action).await
        }
        Command::Resign { r#match } => {
            commands::act(
                &mut api,
                out,
                &r#match,
                serde_json::json!({"type": "resign"}),
            )
            .await
        }
        Command::Hint { r#match } => commands::hint(&mut api, out, &r#match).await,
        Command::Claim { r#match } => commands::claim(&mut api, out, &r#match).await,
        Command::Nudge { r#match } => commands::courtesy(&mut api, out, &r#match, "nudge").await,
        Command::GiveTime { r#match } => {
            commands::courtesy(&mut api, out, &r#match, "give-time").await
        }
        Command::Talk { r#match, words } => commands::talk(&mut api, out, &r#match, &words).await,
        Command::Invite { r#match, username } => {
            commands::invite(&mut api, out, &r#match, &username).await
        }
        Command::Export { r#match } => commands::export(&mut api, &r#match).await,
        Command::Replay { r#match, at } => commands::replay(&mut api, out, &r#match, at).await,
        Command::Verify { file } => account::verify(&file),
        Command::Seek(seek) => account::seek(&mut api, out, seek).await,
        Command::Vacation(vacation) => account::vacation(&mut api, out, vacation).await,
        Command::Token(token) => account::token(&mut api, out, token).await,
        Command::Tui { r#match } => tui::run(&mut api, out.style, r#match).await,
        Command::Wait {
            r#match,
            deadline_near,
        } => {
            let until = if deadline_near {
                wait::Until::DeadlineNear
            } else {
                wait::Until::MyTurn
            };
            wait::wait(&mut api, out, r#match.as_deref(), until).await
        }
    }
}
