//! A match's log in words ("maya played 7♥ on N."), for the full-screen table: each kind of
//! entry of the description's `Event` union as a sentence, seats named from the match's
//! summary. A kind this file does not know is shown by its type, so a newer server still reads.

use serde_json::Value;

use crate::table::{self, Style};

/// Who sits at each seat: a player's name, a bot's level, or "you".
pub struct Names<'a> {
    /// The match's summary (`MatchSummary`).
    pub summary: &'a Value,
    /// The seat the reader holds, if any.
    pub you: Option<u64>,
}

impl Names<'_> {
    /// "maya", "basic bot", "you", "seat 3".
    pub fn of(&self, seat: &Value) -> String {
        let Some(seat) = seat.as_u64() else {
            return "?".to_owned();
        };
        if Some(seat) == self.you {
            return "you".to_owned();
        }
        table::name(self.summary, seat)
    }

    fn list(&self, seats: &Value) -> String {
        let names: Vec<String> = seats
            .as_array()
            .into_iter()
            .flatten()
            .map(|seat| self.of(seat))
            .collect();
        match names.as_slice() {
            [] => "nobody".to_owned(),
            [one] => one.clone(),
            [most @ .., last] => format!("{} and {last}", most.join(", ")),
        }
    }
}

/// One entry of the log (`Event`) as a sentence, its first letter a capital.
pub fn sentence(event: &Value, names: &Names, style: Style) -> String {
    let said = said(event, names, style);
    let mut letters = said.chars();
    match letters.next() {
        Some(first) => first.to_uppercase().chain(letters).collect(),
        None => said,
    }
}

fn said(event: &Value, names: &Names, style: Style) -> String {
    let who = |field: &str| names.of(&event[field]);
    let card = |field: &str| style.card(event[field].as_str().unwrap_or("?"));
    let text = |field: &str| event[field].as_str().unwrap_or("?").to_owned();
    let cards = |field: &str| {
        event[field]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|card| style.card(card))
            .collect::<Vec<_>>()
            .join(" ")
    };
    match event["type"].as_str().unwrap_or("?") {
        "hand_dealt" => format!(
            "Hand {} dealt by {}; {} turned up.",
            event["hand"],
            who("dealer"),
            cards("layout")
        ),
        "turn_started" if names.you.is_some() && event["seat"].as_u64() == names.you => {
            "Your turn.".to_owned()
        }
        "turn_started" => format!("{}'s turn.", who("seat")),
        "side_refilled" => format!("{} turned up onto {}.", card("card"), text("pile")),
        "cards_drawn" => {
            let count = event["count"].as_u64().unwrap_or(0);
            if count == 0 {
                format!("{} drew nothing: the stock is empty.", who("seat"))
            } else if event["cards"].is_array() {
                format!("{} drew {}.", who("seat"), cards("cards"))
            } else {
                format!("{} drew {}.", who("seat"), plural(count, "card"))
            }
        }
        "card_played" => format!("{} played {} on {}.", who("seat"), card("card"), text("to")),
        "pile_moved" => format!(
            "{} moved {} from {} onto {}.",
            who("seat"),
            plural(event["count"].as_u64().unwrap_or(1), "card"),
            text("from"),
            text("to")
        ),
        "corner_claimed" => format!("{} claimed corner {}.", who("seat"), text("pile")),
        "king_hold_penalized" => format!(
            "{} held a king with a corner empty: {}.",
            who("seat"),
            plural(event["points"].as_u64().unwrap_or(0), "point")
        ),
        "chips_to_pot" => format!(
            "{} paid {} into the pot.",
            who("seat"),
            plural(event["chips"].as_u64().unwrap_or(0), "chip")
        ),
        "turn_ended" if event["passed"] == true => format!("{} passed.", who("seat")),
        "turn_ended" => format!("{} ended the turn.", who("seat")),
        "hand_ended" => {
            let outcome = if event["outcome"]["kind"] == "went_out" {
                format!("{} went out", names.of(&event["outcome"]["seat"]))
            } else {
                "blocked".to_owned()
            };
            format!(
                "Hand {} over: {outcome}; won by {}.",
                event["hand"],
                names.list(&event["winners"])
            )
        }
        "seat_out" if event["reason"] == "resign" => format!("{} resigned.", who("seat")),
        "seat_out" => format!("{} ran out of time: out.", who("seat")),
        "match_aborted" => format!("{} called the match off.", who("seat")),
        "game_ended" => format!("Match over: won by {}.", names.list(&event["winners"])),
        "deadline_near" => format!("{}: a tenth of the turn's time left.", who("seat")),
        "bot_stood_in" => format!("{} ran out of time: a bot plays the turn.", who("seat")),
        "table_talk" => format!("{}: {}", who("seat"), text("text")),
        "nudged" => format!("{} nudged {}.", who("by"), who("seat")),
        "time_given" => format!(
            "{} gave {} {} s more.",
            who("by"),
            who("seat"),
            event["seconds"]
        ),
        "vacation_started" => format!("{} is on vacation until {}.", who("seat"), text("until")),
        "vacation_ended" => format!("{} is back from vacation.", who("seat")),
        other => format!("({other})"),
    }
}

fn plural(count: u64, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn entries_read_as_sentences_with_the_seats_named() {
        let summary = json!({"seats": [
            {"seat": 0, "username": "maya", "bot": null},
            {"seat": 1, "username": null, "bot": "basic"},
        ]});
        let names = Names {
            summary: &summary,
            you: Some(0),
        };
        let style = Style { ascii: true };
        let played = json!({"type": "card_played", "seat": 1, "card": "7H", "to": "N"});
        assert_eq!(
            sentence(&played, &names, style),
            "Basic bot played 7H on N."
        );
        let drawn = json!({"type": "cards_drawn", "seat": 0, "count": 1, "cards": ["QS"]});
        assert_eq!(sentence(&drawn, &names, style), "You drew QS.");
        let turn = json!({"type": "turn_started", "seat": 1});
        assert_eq!(sentence(&turn, &names, style), "Basic bot's turn.");
        let ended = json!({"type": "game_ended", "winners": [0, 1]});
        assert_eq!(
            sentence(&ended, &names, style),
            "Match over: won by you and basic bot."
        );
        assert_eq!(
            sentence(&json!({"type": "new_kind"}), &names, style),
            "(new_kind)"
        );
    }
}
