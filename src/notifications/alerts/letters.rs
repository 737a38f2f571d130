//! The words of an alert letter: one line per notification (the table in words, what happened,
//! the deadline in the player's zone, a link to the table in `/play`), in plain text and HTML.

use jiff::Timestamp;
use jiff::tz::TimeZone;

use crate::mail::{escape_html, html_link, html_page};
use crate::notifications::Notice;
use crate::rules::OutReason;
use crate::time_source::parse_rfc3339;

/// One line of a letter.
pub(super) struct Line {
    /// The table's link.
    pub link: String,
    /// What happened, in words.
    pub text: String,
}

/// Who else sits at a table, as a line names them ("with noor and bot-1").
pub(super) type Table = Vec<String>;

/// The line for `notice`, at a table whose other players are `others`, with times in `zone`;
/// `link` builds the link of a path under `PUBLIC_URL`.
pub(super) fn line(
    notice: &Notice,
    others: &Table,
    zone: &TimeZone,
    link: impl Fn(&str) -> String,
) -> Line {
    let with = if others.is_empty() {
        String::new()
    } else {
        format!(" with {}", join(others))
    };
    let deadline = |deadline: Option<&str>| {
        deadline
            .and_then(parse_rfc3339)
            .map(|at| format!(" Your time runs out {}.", local_time(at, zone)))
            .unwrap_or_default()
    };
    let (match_id, text) = match notice {
        Notice::YourTurn(turn) => (
            &turn.match_id,
            format!(
                "It is your turn at the table{with}.{}",
                deadline(turn.deadline.as_deref())
            ),
        ),
        Notice::DeadlineNear(near) => (
            &near.match_id,
            format!(
                "Your turn at the table{with} is nearly out of time.{}",
                deadline(Some(&near.deadline))
            ),
        ),
        Notice::MatchStarted(started) => (
            &started.match_id,
            format!("Every seat is taken: the match{with} has started."),
        ),
        Notice::MatchFinished(finished) => {
            let you_won = finished.winners.contains(&finished.seat);
            let how = if finished.winners.is_empty() {
                "was called off".to_owned()
            } else if you_won {
                "is over: you won".to_owned()
            } else {
                "is over".to_owned()
            };
            (&finished.match_id, format!("The match{with} {how}."))
        }
        Notice::SeatJoined(changed) => (
            &changed.match_id,
            format!(
                "{} took a seat at your table ({} of {} seats taken).",
                changed.username, changed.seats_taken, changed.seat_count
            ),
        ),
        Notice::SeatLeft(changed) => (
            &changed.match_id,
            format!(
                "{} left your table ({} of {} seats taken).",
                changed.username, changed.seats_taken, changed.seat_count
            ),
        ),
        Notice::Invited(invited) => (
            &invited.match_id,
            format!(
                "{} invites you to a private table of {} seats.",
                invited.invited_by, invited.seat_count
            ),
        ),
        Notice::SeatOut(out) => {
            let why = match out.reason {
                OutReason::Resign => "resigned",
                OutReason::Timeout => "ran out of time",
            };
            (&out.match_id, format!("A player at the table{with} {why}."))
        }
        Notice::RematchOffered(offer) => (
            &offer.match_id,
            format!("{} offers a rematch: join it to accept.", offer.offered_by),
        ),
        Notice::Nudged(nudged) => (
            &nudged.match_id,
            format!("The table{with} reminds you that it waits for your move."),
        ),
        Notice::VacationStarted(changed) => (
            &changed.match_id,
            format!(
                "A player at the table{with} went on vacation: their clock stops{}.",
                changed
                    .until
                    .as_deref()
                    .and_then(parse_rfc3339)
                    .map(|at| format!(" until {}", local_time(at, zone)))
                    .unwrap_or_default()
            ),
        ),
        Notice::VacationEnded(changed) => (
            &changed.match_id,
            format!("A player at the table{with} is back from vacation."),
        ),
    };
    Line {
        link: link(&format!("/play/#/match/{match_id}")),
        text,
    }
}

/// The subject of a letter of `lines`.
pub(super) fn subject(lines: &[Line], first_kind: &str) -> String {
    match (lines.len(), first_kind) {
        (1, "your_turn") => "Your turn at Kings Corner".to_owned(),
        (1, "deadline_near") => "Your Kings Corner turn is nearly out of time".to_owned(),
        (1, "invited") => "An invitation to a Kings Corner table".to_owned(),
        (1, "rematch_offered") => "A rematch is offered at Kings Corner".to_owned(),
        (1, "match_finished") => "Your Kings Corner match is over".to_owned(),
        (1, _) => "News from your Kings Corner table".to_owned(),
        (count, _) => format!("{count} things happened at your Kings Corner tables"),
    }
}

/// The plain text and HTML of a letter to `username` of `lines`, with its settings and
/// unsubscribe links.
pub(super) fn bodies(
    username: &str,
    lines: &[Line],
    settings_link: &str,
    unsubscribe_link: &str,
) -> (String, String) {
    let mut text = format!("Hello {username},\n\n");
    for line in lines {
        text.push_str(&format!("* {}\n  {}\n\n", line.text, line.link));
    }
    text.push_str(&format!(
        "You receive these letters because you asked for them. Choose which, how often and when: {settings_link}\n\
         Stop letters like this one: {unsubscribe_link}\n"
    ));
    let mut paragraphs = vec![format!("Hello {},", escape_html(username))];
    for line in lines {
        paragraphs.push(format!(
            "{}<br>{}",
            escape_html(&line.text),
            html_link(&line.link, "Open the table")
        ));
    }
    paragraphs.push(format!(
        "<span style=\"font-size:13px;color:#666\">You receive these letters because you asked for them. {} · {}</span>",
        html_link(settings_link, "Choose which, how often and when"),
        html_link(unsubscribe_link, "Stop letters like this one")
    ));
    let title = if lines.len() == 1 {
        "News from your table"
    } else {
        "News from your tables"
    };
    (text, html_page(title, &paragraphs))
}

/// The JSON of a push message of `lines` for the web client's service worker: a title, the
/// lines as its body, and the table to open on a click (the one table, else the player's list).
pub(super) fn push_payload(lines: &[Line], first_kind: &str, first_match: Option<&str>) -> String {
    let mut body = lines
        .iter()
        .map(|line| line.text.as_str())
        .collect::<Vec<_>>()
        .join("\n");
    if body.chars().count() > 1000 {
        body = body.chars().take(999).collect::<String>() + "…";
    }
    let (url, tag) = match (lines.len(), first_match) {
        (1, Some(match_id)) => (format!("#/match/{match_id}"), format!("kc-{match_id}")),
        _ => ("#/mine".to_owned(), "kc-digest".to_owned()),
    };
    serde_json::json!({"title": subject(lines, first_kind), "body": body, "url": url, "tag": tag})
        .to_string()
}

/// `at` in the player's zone: "Tue 8 Dec 18:00 CET".
pub(super) fn local_time(at: i64, zone: &TimeZone) -> String {
    Timestamp::from_second(at)
        .map(|at| {
            at.to_zoned_datetime(zone.clone())
                .strftime("%a %-d %b %H:%M %Z")
                .to_string()
        })
        .unwrap_or_default()
}

fn join(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notifications::notice::YourTurn;

    #[test]
    fn a_turn_reads_with_the_table_and_the_deadline_in_the_players_zone() {
        let notice = Notice::YourTurn(YourTurn {
            match_id: "m1".to_owned(),
            version: 4,
            seat: 1,
            deadline: Some("2026-12-08T17:00:00Z".to_owned()),
        });
        let zone = TimeZone::get("Europe/Berlin").unwrap();
        let line = line(
            &notice,
            &vec!["noor".to_owned(), "bot-1".to_owned()],
            &zone,
            |path| format!("https://k.test{path}"),
        );
        assert_eq!(
            line.text,
            "It is your turn at the table with noor and bot-1. Your time runs out Tue 8 Dec 18:00 CET."
        );
        assert_eq!(line.link, "https://k.test/play/#/match/m1");
    }
}
