//! kc's full-screen table driven in tmux (issue 41), as a person at a terminal would: keys
//! sent with `send-keys`, the screen read with `capture-pane`. A whole match against a bot
//! played with the keyboard alone at 80×24, then at 200×50 after a resize; a spectator's
//! screen that never shows a card of a hand (checked against the finished match's replay
//! with every hand open); no colour under `NO_COLOR`; and the terminal given back as it was
//! after `quit` and after Ctrl-C.
//!
//! tmux comes from Debian's package (`.ci/run` installs it). Without it these tests say so
//! and pass, unless `KC_REQUIRE_TMUX` is set (as `.ci/run` sets it), where they fail.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use crate::helpers::{json_of, spawn_app};
use crate::kc::{Kc, kc_login, maya_and_leo, pass_until_turn_of, registered};

/// One tmux server of the test's own (its socket in a temporary directory), one session.
struct Tmux {
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

impl Tmux {
    /// A shell in a `width`×`height` terminal with kc's environment for `kc`; `None` when
    /// tmux is missing and not required.
    fn start(kc: &Kc, width: u16, height: u16, extra_env: &[(&str, &str)]) -> Option<Tmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var_os("KC_REQUIRE_TMUX").is_none(),
                "KC_REQUIRE_TMUX is set and tmux is not installed (apt-get install tmux)"
            );
            eprintln!("skipped: tmux is not installed (apt-get install tmux)");
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let kc_dir = PathBuf::from(env!("CARGO_BIN_EXE_kc"))
            .parent()
            .unwrap()
            .to_owned();
        let mut shell = vec![
            "env".to_owned(),
            format!("XDG_CONFIG_HOME={}", kc.home.path().display()),
            format!("KC_TRACE={}", kc.trace().display()),
            format!("KC_SERVER={}", kc.server),
            format!("PATH={}:/usr/bin:/bin", kc_dir.display()),
            "TERM=tmux-256color".to_owned(),
            "LANG=C.UTF-8".to_owned(),
            "PS1=$ ".to_owned(),
        ];
        shell.extend(
            extra_env
                .iter()
                .map(|(name, value)| format!("{name}={value}")),
        );
        shell.extend(["bash", "--norc", "--noprofile"].map(str::to_owned));
        let size = (width.to_string(), height.to_string());
        let started = Command::new("tmux")
            .arg("-S")
            .arg(&socket)
            .args(["-f", "/dev/null", "new-session", "-d", "-s", "kc", "-x"])
            .args([&size.0, "-y", &size.1])
            .args(&shell)
            .status()
            .unwrap();
        assert!(started.success(), "tmux starts");
        Some(Tmux { socket, _dir: dir })
    }

    fn tmux(&self, args: &[&str]) -> String {
        let output = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        assert!(output.status.success(), "tmux {args:?}: {output:?}");
        String::from_utf8_lossy(&output.stdout).into_owned()
    }

    /// Keys by tmux's names (`Enter`, `Down`, `C-c`).
    fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "kc"];
        args.extend(keys);
        self.tmux(&args);
    }

    /// Types `text` and presses Enter.
    fn line(&self, text: &str) {
        self.tmux(&["send-keys", "-t", "kc", "-l", text]);
        self.keys(&["Enter"]);
    }

    /// The screen as text.
    fn screen(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-t", "kc"])
    }

    /// The screen with its colours and styles as escape sequences.
    fn screen_styled(&self) -> String {
        self.tmux(&["capture-pane", "-p", "-e", "-t", "kc"])
    }

    fn resize(&self, width: u16, height: u16) {
        self.tmux(&[
            "resize-window",
            "-t",
            "kc",
            "-x",
            &width.to_string(),
            "-y",
            &height.to_string(),
        ]);
    }

    /// The screen once `wanted` holds of it (bounded, so that a hang fails with the screen).
    async fn until(&self, what: &str, wanted: impl Fn(&str) -> bool) -> String {
        for _ in 0..300 {
            let screen = self.screen();
            if wanted(&screen) {
                return screen;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("the screen never showed {what}:\n{}", self.screen());
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .status();
    }
}

/// The header's `v{N}`: the version the screen shows.
fn version_shown(screen: &str) -> Option<i64> {
    let header = screen.lines().next()?;
    header
        .split(" · ")
        .find_map(|part| part.strip_prefix('v')?.parse().ok())
}

/// The screen without the log lines after `version`. The stream brings an event to the log
/// a moment before the view that reflects it is read, so a screen can show a line the header
/// does not count yet: a card it names has been played in public by then.
fn without_log_after(screen: &str, version: i64) -> String {
    screen
        .lines()
        .map(|line| {
            let Some((table, entry)) = line.split_once("││") else {
                return line.to_owned();
            };
            // Numbers are right-aligned: ` 81 …`, `115 …`.
            let seq: Option<i64> = entry
                .trim_start()
                .split(' ')
                .next()
                .and_then(|n| n.parse().ok());
            match seq {
                Some(seq) if seq > version => format!("{table}││"),
                _ => line.to_owned(),
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn log_lines_after_the_header_are_left_out_whatever_their_width() {
    let screen = "│W  2H      ││ 80 Basic bot played 6H on N.  │\n\
                  │stock 13   ││ 81 Basic bot played 8H on SW. │\n\
                  │           ││115 Maya's turn.               │\n\
                  │           ││(watching)                     │";
    let at_80 = without_log_after(screen, 80);
    assert!(at_80.contains("6H") && !at_80.contains("8H") && !at_80.contains("Maya"));
    assert!(at_80.contains("2H") && at_80.contains("stock 13") && at_80.contains("(watching)"));
    assert_eq!(without_log_after(screen, 115), screen);
}

/// The legal action marked as chosen (`▸ play 7H N`), in kc's words.
fn chosen_action(screen: &str) -> Option<String> {
    let line = screen.lines().find(|line| line.contains("▸ "))?;
    let after = line.split("▸ ").nth(1)?;
    let words = after.split('│').next()?.split("  ←").next()?;
    Some(words.trim().to_owned())
}

/// The terminal's line discipline as `stty -a` gives it back after kc has left: echo and
/// canonical input on, as a shell leaves them.
async fn terminal_is_sane(tmux: &Tmux) {
    // kc gone and the shell's prompt back first: keys sent before would go to kc.
    tmux.until("the shell's prompt", |screen| {
        screen.lines().rev().find(|line| !line.trim().is_empty()) == Some("$")
    })
    .await;
    // The marker is written so that the typed line, wrapped, never shows it whole.
    tmux.line("clear; stty -a | tr ';' '\\n' | grep -o -w -e '-*icanon' -e '-*echo' | sort -u | tr '\\n' ' '; echo '=EN''D'");
    let answer = |screen: &str| {
        screen
            .lines()
            .find(|line| line.ends_with("=END") && !line.contains("stty"))
            .map(str::to_owned)
    };
    let screen = tmux
        .until("stty's answer", |screen| answer(screen).is_some())
        .await;
    let said = answer(&screen).unwrap();
    let words: Vec<&str> = said.split_whitespace().collect();
    assert!(
        words.contains(&"echo")
            && words.contains(&"icanon")
            && !words.contains(&"-echo")
            && !words.contains(&"-icanon"),
        "the terminal is not given back as it was: {said}\n{screen}"
    );
}

/// A whole match against the basic bot, played with the keyboard alone: the match made by
/// typing `new`, every move the chosen legal action played with Enter (once with the arrow
/// keys, once typed as words), checked on screen at 80×24 and, after a resize, at 200×50;
/// a spectator in another terminal sees the table live and never a card of a hand.
#[tokio::test]
async fn a_whole_match_is_played_with_the_keyboard_and_watched() {
    let app = spawn_app().await;
    let (maya, leo) = maya_and_leo(&app.address).await;
    let Some(player) = Tmux::start(&maya, 80, 24, &[]) else {
        return;
    };
    player.line("kc");
    player
        .until("the lobby", |screen| screen.contains("No matches yet"))
        .await;
    player.line("new night-one 2 basic");
    let screen = player
        .until("the new table", |screen| screen.contains(" Table "))
        .await;
    assert!(screen.contains("Your hand "), "{screen}");
    let id = maya.json(&["matches"]).await["matches"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();

    let Some(watcher) = Tmux::start(&leo, 100, 30, &[]) else {
        return;
    };
    watcher.line(&format!("kc tui {id} --ascii"));
    watcher
        .until("the spectator's table", |screen| {
            screen.contains("watching")
        })
        .await;

    let mut seen_by_watcher: Vec<(i64, String)> = Vec::new();
    let mut moves = 0;
    let mut checked_small = false;
    let mut checked_large = false;
    let mut typed_once = false;
    loop {
        let screen = player
            .until("a turn or the end", |screen| {
                let header = screen.lines().next().unwrap_or_default();
                header.contains("your turn") || header.contains("finished")
            })
            .await;
        if screen.lines().next().unwrap().contains("finished") {
            break;
        }
        assert!(
            screen.contains("Your hand ") && screen.contains(" Legal "),
            "{screen}"
        );
        assert!(
            chosen_action(&screen).is_some(),
            "the chosen action is marked:\n{screen}"
        );
        if !checked_small {
            assert_eq!(screen.lines().count(), 24, "{screen}");
            keep_screen("kc-tui-80x24.txt", &screen);
            checked_small = true;
        } else if !checked_large {
            player.resize(200, 50);
            // Drawn again at the new size: 50 lines, the table across the width.
            let large = player
                .until("the table redrawn at 200×50", |screen| {
                    let header = screen.lines().next().unwrap_or_default();
                    header.contains("your turn")
                        && screen.lines().count() == 50
                        && screen.lines().any(|line| line.chars().count() > 150)
                })
                .await;
            assert!(
                large.contains("Your hand ") && large.contains(" Legal "),
                "{large}"
            );
            checked_large = true;
        }
        let before = version_shown(&screen).unwrap();
        if !typed_once {
            // The chosen legal action typed in kc's words (`7H N`: the verb may go).
            let words = chosen_action(&screen).unwrap();
            player.line(words.trim_start_matches("play "));
            typed_once = true;
        } else if moves % 3 == 1 {
            // The next action in the list, chosen with the arrow keys (the same one when
            // it is the only one).
            player.keys(&["Down", "Enter"]);
        } else {
            player.keys(&["Enter"]);
        }
        player
            .until("the move taken", |screen| {
                version_shown(screen).is_some_and(|now| now > before)
                    || !screen
                        .lines()
                        .next()
                        .unwrap_or_default()
                        .contains("your turn")
            })
            .await;
        moves += 1;
        assert!(moves < 400, "the hand ends");
        let watched = watcher.screen();
        if let Some(version) = version_shown(&watched) {
            seen_by_watcher.push((version, watched));
        }
    }
    assert!(
        checked_small && checked_large,
        "the match had turns enough to check both sizes"
    );
    let end = player
        .until("the winner", |screen| screen.contains("Won by"))
        .await;
    let final_version = version_shown(&end).unwrap();
    let watched = watcher
        .until("the end, live, on the spectator's screen", |screen| {
            version_shown(screen) == Some(final_version)
        })
        .await;
    assert!(
        watched.contains("Won by") && !watched.contains("Your hand"),
        "{watched}"
    );
    seen_by_watcher.push((final_version, watched));

    // No card of any hand at the moment a spectator's screen showed (the replay of the
    // finished match opens every hand).
    let token = kc_login(&maya)["access_token"].as_str().unwrap().to_owned();
    for (version, screen) in &seen_by_watcher {
        let replay = json_of(
            app.client
                .get(format!("{}/v1/matches/{id}/replay", app.address))
                .query(&[("at", version.to_string())])
                .bearer_auth(&token),
        )
        .await;
        let hands: Vec<&str> = replay["all_hands"]
            .as_array()
            .unwrap_or_else(|| panic!("every hand at {version}: {replay}"))
            .iter()
            .flat_map(|hand| hand.as_array().unwrap())
            .filter_map(Value::as_str)
            .collect();
        let current = without_log_after(screen, *version);
        let shown: Vec<&str> = current
            .split(|c: char| !c.is_ascii_alphanumeric())
            .collect();
        for card in hands {
            assert!(
                !shown.contains(&card),
                "the spectator saw {card}, in a hand at {version}:\n{screen}"
            );
        }
    }

    player.line("quit");
    terminal_is_sane(&player).await;
    watcher.keys(&["C-c"]);
    terminal_is_sane(&watcher).await;
}

/// The table without colour under `NO_COLOR` (the chosen action still marked, reversed);
/// with colour, red suits are red; and a login asked for on the screen when none is held.
#[tokio::test]
async fn no_color_draws_without_colour_and_a_login_is_asked_for() {
    let app = spawn_app().await;
    let kc = Kc::new(&app);
    let Some(plain) = Tmux::start(&kc, 80, 24, &[("NO_COLOR", "1")]) else {
        return;
    };
    plain.line("kc");
    plain
        .until("the login prompt", |screen| screen.contains("Log in to"))
        .await;
    registered(&kc, "maya").await;
    plain.tmux(&["send-keys", "-t", "kc", "-l", "maya"]);
    plain.keys(&["Enter"]);
    plain.tmux(&["send-keys", "-t", "kc", "-l", "correct horse battery"]);
    plain.keys(&["Enter"]);
    plain
        .until("the lobby after the login", |screen| {
            screen.contains("Logged in as maya")
        })
        .await;
    plain.line("new standard 2 basic");
    plain
        .until("the table", |screen| screen.contains(" Table "))
        .await;
    let styled = plain.screen_styled();
    let colours = regex::Regex::new(r"\x1b\[[0-9;]*(3[0-7]|38;|9[0-7])[0-9;]*m").unwrap();
    assert!(
        !colours.is_match(&styled),
        "a colour under NO_COLOR: {:?}",
        colours.find(&styled).map(|found| found.as_str())
    );
    let hidden_password = plain.screen();
    assert!(
        !hidden_password.contains("correct horse"),
        "{hidden_password}"
    );
    plain.line("quit");
    terminal_is_sane(&plain).await;

    let Some(coloured) = Tmux::start(&kc, 80, 24, &[]) else {
        return;
    };
    coloured.line("kc");
    coloured
        .until("the lobby", |screen| screen.contains("My matches"))
        .await;
    coloured.keys(&["Enter"]);
    coloured
        .until("the table", |screen| screen.contains(" Table "))
        .await;
    let styled = coloured.screen_styled();
    // Red as tmux writes it: the 16-colour form or the 256-colour one.
    assert!(
        ["\x1b[31m", "\x1b[91m", "\x1b[38;5;1m", "\x1b[38;5;9m"]
            .iter()
            .any(|red| styled.contains(red)),
        "red suits are red with colour: {styled:?}"
    );
    coloured.keys(&["C-c"]);
    terminal_is_sane(&coloured).await;
}

/// Keeps a screen for the docs (`KC_WRITE_SCREENS=1`): docs/kc-tui-80x24.txt is one.
fn keep_screen(name: &str, screen: &str) {
    if std::env::var_os("KC_WRITE_SCREENS").is_none() {
        return;
    }
    let path = format!("{}/docs/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::write(path, screen).expect("the screen is written");
}

/// The time left to the seat to move, as the header shows it (`4m 58s left`).
fn time_left_shown(screen: &str) -> Option<String> {
    let header = screen.lines().next()?;
    header
        .split(" · ")
        .find(|part| part.ends_with(" left"))
        .map(str::to_owned)
}

/// The lobby follows my matches live (the other player's move makes the row say `your
/// turn`); a table with a clock counts down; a hint is marked among the legal actions; talk
/// shows in the log; the replay's scrubber moves with the arrow keys; and an expired login
/// is met by a prompt on the screen, after which the table goes on.
#[tokio::test]
async fn the_lobby_is_live_clocks_count_down_and_an_expired_login_is_asked_for() {
    let app = spawn_app().await;
    let (maya, leo) = maya_and_leo(&app.address).await;
    let id = maya.json(&["new", "--seats", "2"]).await["id"]
        .as_str()
        .unwrap()
        .to_owned();
    leo.ok(&["join", &id]).await;
    // Leo's turn to begin with (a turn whose only action is to end it ends by itself, so the
    // turn may come back).
    pass_until_turn_of(&maya, &leo, &id).await;

    // The login held has expired and its refresh token is refused.
    let config = maya.config();
    let mut held: Value = serde_json::from_slice(&std::fs::read(&config).unwrap()).unwrap();
    held["servers"]["default"]["login"]["access_expires_at"] = 0.into();
    held["servers"]["default"]["login"]["refresh_token"] = "revoked".into();
    std::fs::write(&config, held.to_string()).unwrap();

    let Some(tui) = Tmux::start(&maya, 80, 24, &[]) else {
        return;
    };
    tui.line("kc");
    let asked = tui
        .until("the login prompt", |screen| screen.contains("Log in to"))
        .await;
    assert!(asked.contains("login_expired"), "{asked}");
    assert!(asked.contains("maya"), "the name is kept: {asked}");
    tui.tmux(&["send-keys", "-t", "kc", "-l", "correct horse battery"]);
    tui.keys(&["Enter"]);
    tui.until("the lobby after the login", |screen| {
        screen.contains("Logged in as maya") && screen.contains(&id[..8])
    })
    .await;
    pass_until_turn_of(&maya, &leo, &id).await;
    tui.until("the other's turn in the lobby", |screen| {
        screen.contains("playing")
    })
    .await;
    pass_until_turn_of(&leo, &maya, &id).await;
    tui.until("my turn in the lobby, live", |screen| {
        screen.contains("your turn")
    })
    .await;

    tui.line("new standard 2 basic fast_5m");
    let first = tui
        .until("my turn at the clocked table", |screen| {
            screen
                .lines()
                .next()
                .unwrap_or_default()
                .contains("your turn")
                && time_left_shown(screen).is_some()
        })
        .await;
    let before = time_left_shown(&first).unwrap();
    tokio::time::sleep(Duration::from_millis(2200)).await;
    let after = time_left_shown(&tui.screen()).unwrap();
    assert_ne!(before, after, "the clock counts down");

    tui.line("hint");
    tui.until("the hint", |screen| {
        screen.contains("Hint: ") && screen.contains("← hint")
    })
    .await;
    tui.line("talk good luck");
    tui.until("the talk in the log", |screen| {
        screen.contains("You: good luck")
    })
    .await;

    let screen = tui.screen();
    let version = version_shown(&screen).unwrap();
    tui.line("replay");
    tui.until("the replay", |screen| {
        screen.contains(" Replay ") && screen.contains(&format!("event {version} of {version}"))
    })
    .await;
    tui.keys(&["Left"]);
    tui.until("a step back", |screen| {
        screen.contains(&format!("event {} of {version}", version - 1))
    })
    .await;
    tui.keys(&["Home"]);
    let dealt = tui
        .until("the start", |screen| {
            screen.contains(&format!("event 0 of {version}"))
        })
        .await;
    assert!(
        !dealt.contains("You: good luck"),
        "the log stops at the replay's event"
    );
    tui.keys(&["Escape"]);
    tui.until("the live table again", |screen| screen.contains(" Table "))
        .await;
    tui.keys(&["C-c"]);
    terminal_is_sane(&tui).await;
}
