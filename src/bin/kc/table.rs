//! A match's view in text: the piles, the stock, the seats and the hand, cards in the rule
//! book's notation with Unicode suits (`7♥`), or as they are written (`7H`) with `--ascii`;
//! and the legal actions as the words `kc` takes them in (`play 7H N`).

use serde_json::Value;

/// The eight piles in the order they are drawn: sides and the corners beside them.
const PILES: [(&str, &str); 4] = [("N", "NE"), ("E", "SE"), ("S", "SW"), ("W", "NW")];

/// How cards are written.
#[derive(Clone, Copy)]
pub struct Style {
    /// Letters for suits (`7H`), for terminals without Unicode.
    pub ascii: bool,
}

impl Style {
    /// A card (`"7H"`, `"JK"`, a placed joker `"JK7H"`) as shown.
    pub fn card(self, card: &str) -> String {
        if self.ascii {
            return card.to_owned();
        }
        if let Some(stands_for) = card.strip_prefix("JK").filter(|rest| !rest.is_empty()) {
            return format!("🃏{}", self.card(stands_for));
        }
        if card == "JK" {
            return "🃏".to_owned();
        }
        let (rank, suit) = card.split_at(card.len() - 1);
        let suit = match suit {
            "H" => "♥",
            "D" => "♦",
            "C" => "♣",
            "S" => "♠",
            other => other,
        };
        format!("{rank}{suit}")
    }

    fn cards(self, cards: &Value) -> String {
        let shown: Vec<String> = cards
            .as_array()
            .map(|cards| {
                cards
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|card| self.card(card))
                    .collect()
            })
            .unwrap_or_default();
        if shown.is_empty() {
            "—".to_owned()
        } else {
            shown.join(" ")
        }
    }
}

/// The table of `view` (`MatchView`), its seats named from `summary` (`MatchSummary`).
pub fn draw(view: &Value, summary: &Value, style: Style) -> String {
    let mut out = String::new();
    let you = view["your_seat"].as_u64();
    let turn = view["turn"].as_u64();
    let status = view["status"].as_str().unwrap_or("?");
    out.push_str(&format!(
        "Match {} · hand {} · version {} · {}\n\n",
        view["match_id"].as_str().unwrap_or("?"),
        view["hand_number"],
        view["version"],
        match (status, turn) {
            ("playing", Some(seat)) if Some(seat) == you => "your turn".to_owned(),
            ("playing", Some(seat)) => format!("{} to move", name(summary, seat)),
            (other, _) => other.to_owned(),
        }
    ));
    for (side, corner) in PILES {
        let side_cards = style.cards(&view["piles"][side]);
        let corner_cards = style.cards(&view["piles"][corner]);
        out.push_str(&format!(
            "  {side:<2} {side_cards:<30} {corner:<2} {corner_cards}\n"
        ));
    }
    if let Some(foundations) = view["foundations"].as_object() {
        let shown: Vec<String> = foundations
            .iter()
            .map(|(pile, cards)| format!("{pile} {}", style.cards(cards)))
            .collect();
        out.push_str(&format!("  {}\n", shown.join("  ")));
    }
    out.push_str(&format!("  stock: {}\n\n", view["stock_count"]));
    for seat in view["seats"].as_array().into_iter().flatten() {
        let number = seat["seat"].as_u64().unwrap_or(0);
        let mut line = format!(
            "  {} {:<16} {:>2} cards {:>4} points",
            if Some(number) == turn { "▶" } else { " " },
            name(summary, number),
            seat["hand_count"],
            seat["total"]
        );
        if Some(number) == you {
            line.push_str("  (you)");
        }
        if seat["in_game"] == false {
            line.push_str("  (out)");
        }
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(deadline) = view["clock"]["deadline"].as_str() {
        out.push_str(&format!("  deadline: {deadline}\n"));
    }
    if !view["hand"].is_null() {
        out.push_str(&format!("\nYour hand: {}\n", style.cards(&view["hand"])));
    }
    let legal = legal_words(view);
    if !legal.is_empty() {
        out.push_str(&format!("Legal: {}\n", legal.join(" · ")));
    }
    if let Some(winners) = view["winners"]
        .as_array()
        .filter(|winners| !winners.is_empty())
    {
        let names: Vec<String> = winners
            .iter()
            .filter_map(Value::as_u64)
            .map(|seat| name(summary, seat))
            .collect();
        out.push_str(&format!("\nWon by {}\n", names.join(" and ")));
    }
    out
}

/// A taken seat (`SeatInfo`) by its player's name, or its bot's level (`basic bot`).
pub fn seat_name(info: &Value) -> String {
    match info["bot"].as_str() {
        Some(level) => format!("{level} bot"),
        None => info["username"].as_str().unwrap_or("?").to_owned(),
    }
}

/// Seat `seat` of the match `summary` (`MatchSummary`) by [`seat_name`]; a free seat as
/// `seat N`, counted from 1.
pub fn name(summary: &Value, seat: u64) -> String {
    summary["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|info| info["seat"].as_u64() == Some(seat))
        .map_or_else(|| format!("seat {}", seat + 1), seat_name)
}

/// Whether the match `summary` is being played and waits for `me`'s move.
pub fn my_turn(summary: &Value, me: Option<&str>) -> bool {
    summary["status"] == "playing"
        && summary["seats"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|seat| seat["seat"] == summary["turn"] && seat["username"].as_str() == me)
}

/// Every legal action of `view` in the words `kc` takes them in.
pub fn legal_words(view: &Value) -> Vec<String> {
    view["legal_actions"]
        .as_array()
        .into_iter()
        .flatten()
        .map(action_words)
        .collect()
}

/// One action (`Action`) as `kc`'s words: `play 7H N`, `play JK N --as 7H`, `move S N`,
/// `move S N --count 2`, `draw`, `end`.
pub fn action_words(action: &Value) -> String {
    let text = |field: &str| action[field].as_str().unwrap_or("?").to_owned();
    match action["type"].as_str() {
        Some("play") => {
            let mut words = format!("play {} {}", text("card"), text("to"));
            if let Some(face) = action["as"].as_str() {
                words.push_str(&format!(" --as {face}"));
            }
            words
        }
        Some("move") => {
            let mut words = format!("move {} {}", text("from"), text("to"));
            if let Some(count) = action["count"].as_u64() {
                words.push_str(&format!(" --count {count}"));
            }
            words
        }
        Some("draw") => "draw".to_owned(),
        Some("end_turn") => "end".to_owned(),
        Some(other) => other.to_owned(),
        None => "?".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn cards_are_written_with_suits_or_letters() {
        let unicode = Style { ascii: false };
        assert_eq!(unicode.card("10H"), "10♥");
        assert_eq!(unicode.card("QS"), "Q♠");
        assert_eq!(unicode.card("JK7D"), "🃏7♦");
        assert_eq!(Style { ascii: true }.card("10H"), "10H");
    }

    #[test]
    fn actions_read_as_the_commands_that_play_them() {
        assert_eq!(
            action_words(&json!({"type": "play", "card": "7H", "to": "N"})),
            "play 7H N"
        );
        assert_eq!(
            action_words(&json!({"type": "play", "card": "JK", "as": "7H", "to": "N"})),
            "play JK N --as 7H"
        );
        assert_eq!(
            action_words(&json!({"type": "move", "from": "S", "to": "N", "count": 2})),
            "move S N --count 2"
        );
        assert_eq!(action_words(&json!({"type": "end_turn"})), "end");
    }
}
