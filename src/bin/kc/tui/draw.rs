//! The screen drawn from the app's state with ratatui: a header, the screen's body, the line
//! being typed and what happened last. Colour only adds to what the text already says (the
//! chosen row is reversed, playable cards bold), so `NO_COLOR` loses nothing.

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{
    Block, Borders, Clear, LineGauge, List, ListItem, ListState, Paragraph, Wrap,
};
use serde_json::Value;

use super::app::{App, Lobby, LoginForm, Screen, Table};
use crate::table::{self as words_of, Style as Cards};
use crate::words::{self, Names};

/// How the screen is coloured.
#[derive(Clone, Copy)]
pub struct Look {
    /// Colour allowed (`NO_COLOR` unset).
    pub colour: bool,
    /// How cards are written.
    pub cards: Cards,
}

impl Look {
    fn fg(self, colour: Color) -> Style {
        if self.colour {
            Style::new().fg(colour)
        } else {
            Style::new()
        }
    }

    /// A card: red suits red where colour is allowed.
    fn card(self, card: &str) -> Span<'static> {
        let red = card.ends_with('H') || card.ends_with('D');
        let style = if red {
            self.fg(Color::Red)
        } else {
            Style::new()
        };
        Span::styled(self.cards.card(card), style)
    }
}

/// Draws the whole screen.
pub fn draw(frame: &mut Frame, app: &App, look: Look, now: i64) {
    let [header, body, input, status] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(5),
        Constraint::Length(1),
        Constraint::Length(1),
    ])
    .areas(frame.area());
    let title = match &app.screen {
        Screen::Lobby(_) => format!(
            "kc · {} · {}",
            app.server,
            app.me.as_deref().unwrap_or("not logged in")
        ),
        Screen::Table(table) => table_title(table, now),
    };
    frame.render_widget(
        Paragraph::new(title).style(Style::new().add_modifier(Modifier::BOLD)),
        header,
    );
    match &app.screen {
        Screen::Lobby(lobby) => draw_lobby(frame, body, lobby, app.me.as_deref(), look),
        Screen::Table(table) => draw_table(frame, body, table, look, now),
    }
    frame.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled("> ", look.fg(Color::Cyan)),
            Span::raw(app.input.as_str()),
            Span::styled("▏", Style::new().add_modifier(Modifier::SLOW_BLINK)),
        ])),
        input,
    );
    let said = if app.status.is_empty() {
        help(&app.screen).to_owned()
    } else {
        app.status.clone()
    };
    frame.render_widget(
        Paragraph::new(said).style(Style::new().add_modifier(Modifier::DIM)),
        status,
    );
    if let Some(form) = &app.login {
        draw_login(frame, form, &app.server);
    }
}

/// The keys a screen takes, when nothing else is to be said.
fn help(screen: &Screen) -> &'static str {
    match screen {
        Screen::Lobby(_) => {
            "↑↓ Enter: open/join · new [preset] [seats] [bots] [clock] · join ID · quit"
        }
        Screen::Table(table) if table.replay.is_some() => {
            "replay: ←→ one event · PgUp PgDn ten · Home End · Esc back to the table"
        }
        Screen::Table(table) if table.view["your_seat"].is_null() => {
            "watching · type: replay · back · quit"
        }
        Screen::Table(_) => {
            "↑↓ Enter: play · type 7H N · hint · talk … · replay · resign · back · quit"
        }
    }
}

fn draw_lobby(frame: &mut Frame, area: Rect, lobby: &Lobby, me: Option<&str>, look: Look) {
    let mut items: Vec<ListItem> = Vec::new();
    for summary in &lobby.mine {
        items.push(ListItem::new(lobby_row(summary, "", me)));
    }
    for summary in &lobby.open {
        items.push(ListItem::new(lobby_row(summary, "join: ", me)));
    }
    let empty = lobby.mine.is_empty() && lobby.open.is_empty();
    let title = format!(
        " My matches ({}) · open tables ({}) ",
        lobby.mine.len(),
        lobby.open.len()
    );
    let block = Block::new().borders(Borders::ALL).title(title);
    if empty {
        let words = "No matches yet. Type `new` for a table against the basic bot, or \
                     `new standard 4 basic expert` for more seats.";
        frame.render_widget(
            Paragraph::new(words).wrap(Wrap { trim: true }).block(block),
            area,
        );
        return;
    }
    let list = List::new(items)
        .block(block)
        .highlight_style(chosen(look))
        .highlight_symbol("▸ ");
    let mut state = ListState::default().with_selected(Some(lobby.selected));
    frame.render_stateful_widget(list, area, &mut state);
}

/// A lobby row: the match, its state (`your turn`) and its seats.
fn lobby_row(summary: &Value, prefix: &str, me: Option<&str>) -> String {
    let my_turn = words_of::my_turn(summary, me);
    let seats: Vec<String> = summary["seats"]
        .as_array()
        .into_iter()
        .flatten()
        .map(words_of::seat_name)
        .collect();
    let id = summary["id"].as_str().unwrap_or("?");
    format!(
        "{prefix}{} {:<9} {}/{} seats · {}",
        &id[..id.len().min(8)],
        if my_turn {
            "your turn"
        } else {
            summary["status"].as_str().unwrap_or("?")
        },
        seats.len(),
        summary["seat_count"]
            .as_u64()
            .map_or("?".into(), |n| n.to_string()),
        seats.join(", ")
    )
}

/// The header of a table: the match, the hand, whose turn and the time left.
fn table_title(table: &Table, now: i64) -> String {
    let view = table.shown();
    let you = table.view["your_seat"].as_u64();
    let whose = match (view["status"].as_str(), view["turn"].as_u64()) {
        (Some("playing"), Some(turn)) if Some(turn) == you => "your turn".to_owned(),
        (Some("playing"), Some(turn)) => {
            let names = Names {
                summary: &table.summary,
                you,
            };
            format!("{} to move", names.of(&turn.into()))
        }
        (Some(other), _) => other.to_owned(),
        _ => "?".to_owned(),
    };
    let left = view["clock"]["deadline"]
        .as_str()
        .filter(|_| table.replay.is_none())
        .map(|deadline| format!(" · {}", time_left(deadline, now)))
        .unwrap_or_default();
    let watching = if you.is_none() { " · watching" } else { "" };
    format!(
        "{} · hand {} · v{} · {whose}{left}{watching}",
        &table.id[..table.id.len().min(8)],
        view["hand_number"],
        view["version"]
    )
}

/// "2m 05s left", "1d 3h left", "late by 12s".
pub fn time_left(deadline: &str, now: i64) -> String {
    let Some(at) = crate::api::unix_seconds(deadline) else {
        return format!("by {deadline}");
    };
    let seconds = at - now;
    let span = |s: i64| match s {
        s if s >= 86_400 => format!("{}d {}h", s / 86_400, s % 86_400 / 3600),
        s if s >= 3600 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        s if s >= 60 => format!("{}m {:02}s", s / 60, s % 60),
        s => format!("{s}s"),
    };
    if seconds >= 0 {
        format!("{} left", span(seconds))
    } else {
        format!("late by {}", span(-seconds))
    }
}

fn draw_table(frame: &mut Frame, area: Rect, table: &Table, look: Look, now: i64) {
    let wide = area.width >= 100;
    let split = if wide {
        [Constraint::Percentage(55), Constraint::Percentage(45)]
    } else {
        [Constraint::Length(area.width.min(46)), Constraint::Min(20)]
    };
    let [left, right] = Layout::horizontal(split).areas(area);
    let view = table.shown();
    let you = table.view["your_seat"].as_u64();
    let names = Names {
        summary: &table.summary,
        you,
    };
    let [board, gauge] = if table.replay.is_some() {
        Layout::vertical([Constraint::Min(3), Constraint::Length(1)]).areas(left)
    } else {
        Layout::vertical([Constraint::Min(3), Constraint::Length(0)]).areas(left)
    };
    let lines = board_lines(
        table,
        view,
        &names,
        look,
        board.width.saturating_sub(2),
        now,
    );
    let board_title = if table.replay.is_some() {
        " Replay "
    } else {
        " Table "
    };
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .block(Block::new().borders(Borders::ALL).title(board_title)),
        board,
    );
    if let Some(replay) = &table.replay {
        let last = table.version().max(1);
        frame.render_widget(
            LineGauge::default()
                .ratio((replay.at as f64 / last as f64).clamp(0.0, 1.0))
                .label(format!("event {} of {}", replay.at, table.version()))
                .filled_style(look.fg(Color::Cyan).add_modifier(Modifier::BOLD)),
            gauge,
        );
    }
    let legal_height = if table.legal().is_empty() || table.replay.is_some() {
        3
    } else {
        (table.legal().len() as u16 + 2)
            .min(right.height / 2)
            .max(3)
    };
    let [legal, log] =
        Layout::vertical([Constraint::Length(legal_height), Constraint::Min(3)]).areas(right);
    draw_legal(frame, legal, table, look);
    draw_log(frame, log, table, &names, look);
}

/// The table's lines: piles, stock, seats with their clocks, the hand.
fn board_lines(
    table: &Table,
    view: &Value,
    names: &Names,
    look: Look,
    width: u16,
    now: i64,
) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let half = usize::from(width / 2).max(12);
    for (side, corner) in [("N", "NE"), ("E", "SE"), ("S", "SW"), ("W", "NW")] {
        let mut spans = vec![Span::styled(format!("{side:<3}"), look.fg(Color::Cyan))];
        spans.extend(pile(&view["piles"][side], look, half - 3));
        let used: usize = spans.iter().map(|span| span.width()).sum();
        spans.push(Span::raw(" ".repeat(half.saturating_sub(used))));
        spans.push(Span::styled(format!("{corner:<3}"), look.fg(Color::Cyan)));
        spans.extend(pile(&view["piles"][corner], look, half - 3));
        lines.push(Line::from(spans));
    }
    if let Some(foundations) = view["foundations"].as_object() {
        let mut spans = Vec::new();
        for (name, cards) in foundations {
            spans.push(Span::styled(format!("{name} "), look.fg(Color::Cyan)));
            spans.extend(pile(cards, look, 6));
            spans.push(Span::raw("  "));
        }
        lines.push(Line::from(spans));
    }
    lines.push(Line::from(format!("stock {}", view["stock_count"])));
    lines.push(Line::default());
    let turn = view["turn"].as_u64();
    let deadline = view["clock"]["deadline"].as_str();
    for seat in view["seats"].as_array().into_iter().flatten() {
        let number = seat["seat"].as_u64();
        let to_move = number.is_some() && number == turn && view["status"] == "playing";
        let mut text = format!(
            "{} {:<14} {:>2} cards {:>4} pts",
            if to_move { "▶" } else { " " },
            names.of(&seat["seat"]),
            seat["hand_count"],
            seat["total"]
        );
        if seat["in_game"] == false {
            text.push_str(" out");
        } else if to_move
            && table.replay.is_none()
            && let Some(deadline) = deadline
        {
            text.push_str(&format!(" {}", time_left(deadline, now)));
        }
        let style = if to_move {
            Style::new().add_modifier(Modifier::BOLD)
        } else {
            Style::new()
        };
        lines.push(Line::styled(text, style));
    }
    if let Some(hand) = view["hand"].as_array() {
        lines.push(Line::default());
        let playable: Vec<&str> = table
            .legal()
            .iter()
            .filter(|_| table.replay.is_none())
            .filter_map(|action| action["card"].as_str())
            .collect();
        let chosen_card = table
            .legal()
            .get(table.selected)
            .and_then(|action| action["card"].as_str())
            .filter(|_| table.replay.is_none());
        let mut spans = vec![Span::raw("Your hand ")];
        for card in hand.iter().filter_map(Value::as_str) {
            let mut span = look.card(card);
            if playable.contains(&card) {
                span = span
                    .patch_style(Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED));
            }
            if chosen_card == Some(card) {
                span = span.patch_style(Style::new().add_modifier(Modifier::REVERSED));
            }
            spans.push(span);
            spans.push(Span::raw(" "));
        }
        lines.push(Line::from(spans));
    } else if table.view["your_seat"].is_null() {
        lines.push(Line::default());
        lines.push(Line::from("Watching: no hand is shown."));
    }
    if let Some(winners) = view["winners"].as_array().filter(|w| !w.is_empty()) {
        lines.push(Line::default());
        let names: Vec<String> = winners.iter().map(|seat| names.of(seat)).collect();
        lines.push(Line::styled(
            format!("Won by {}", names.join(" and ")),
            Style::new().add_modifier(Modifier::BOLD),
        ));
    }
    if let Some(hint) = table.hint.as_ref().filter(|_| table.replay.is_none()) {
        lines.push(Line::default());
        lines.push(Line::from(format!(
            "Hint: {} — {}",
            words_of::action_words(&hint["action"]),
            hint["reason"].as_str().unwrap_or("")
        )));
    }
    lines
}

/// A pile in at most `room` columns: every card, or its bottom and top cards around `…`.
fn pile(cards: &Value, look: Look, room: usize) -> Vec<Span<'static>> {
    let cards: Vec<&str> = cards
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .collect();
    if cards.is_empty() {
        return vec![Span::raw("·")];
    }
    let shown = |card: &&str| look.cards.card(card).chars().count() + 1;
    let whole: usize = cards.iter().map(shown).sum();
    let mut spans = Vec::new();
    if whole <= room || cards.len() <= 2 {
        for card in &cards {
            spans.push(look.card(card));
            spans.push(Span::raw(" "));
        }
    } else {
        spans.push(look.card(cards[0]));
        spans.push(Span::raw(format!(" …{}… ", cards.len() - 2)));
        spans.push(look.card(cards[cards.len() - 1]));
    }
    spans
}

fn draw_legal(frame: &mut Frame, area: Rect, table: &Table, look: Look) {
    let block = Block::new().borders(Borders::ALL).title(" Legal ");
    if table.replay.is_some() || table.legal().is_empty() {
        let words = if table.replay.is_some() {
            "(replaying)"
        } else if table.view["your_seat"].is_null() {
            "(watching)"
        } else if table.view["status"] == "playing" {
            "(not your turn)"
        } else {
            "(the match is over)"
        };
        frame.render_widget(Paragraph::new(words).block(block), area);
        return;
    }
    let hinted = table.hint.as_ref().map(|hint| &hint["action"]);
    let items: Vec<ListItem> = table
        .legal()
        .iter()
        .map(|action| {
            let mut text = words_of::action_words(action);
            if Some(action) == hinted {
                text.push_str("  ← hint");
            }
            ListItem::new(text)
        })
        .collect();
    let list = List::new(items)
        .block(block)
        .highlight_style(chosen(look))
        .highlight_symbol("▸ ");
    let mut state = ListState::default().with_selected(Some(table.selected));
    frame.render_stateful_widget(list, area, &mut state);
}

fn draw_log(frame: &mut Frame, area: Rect, table: &Table, names: &Names, look: Look) {
    let shown_to = table.replay.as_ref().map_or(i64::MAX, |replay| replay.at);
    let lines: Vec<Line> = table
        .log
        .iter()
        .filter(|(seq, _)| *seq <= shown_to)
        .map(|(seq, event)| {
            let talk = event["type"] == "table_talk";
            let style = if talk {
                look.fg(Color::Yellow)
            } else {
                Style::new()
            };
            Line::styled(
                format!("{seq:>3} {}", words::sentence(event, names, look.cards)),
                style,
            )
        })
        .collect();
    let inner_height = area.height.saturating_sub(2) as usize;
    let inner_width = area.width.saturating_sub(2).max(1) as usize;
    // The newest lines at the bottom: skip what the box cannot hold (each line wrapped).
    let rows: usize = lines
        .iter()
        .map(|line| line.width().div_ceil(inner_width).max(1))
        .sum();
    let scroll = rows.saturating_sub(inner_height) as u16;
    frame.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(Block::new().borders(Borders::ALL).title(" Log ")),
        area,
    );
}

fn draw_login(frame: &mut Frame, form: &LoginForm, server: &str) {
    let area = frame.area();
    let width = area.width.min(60);
    let height = 7.min(area.height);
    let box_area = Rect {
        x: area.x + (area.width - width) / 2,
        y: area.y + (area.height - height) / 2,
        width,
        height,
    };
    let marker = |on: bool| if on { "▶ " } else { "  " };
    let lines = vec![
        Line::from(form.reason.clone()),
        Line::default(),
        Line::from(format!(
            "{}Name:     {}",
            marker(!form.on_password),
            form.username
        )),
        Line::from(format!(
            "{}Password: {}",
            marker(form.on_password),
            "*".repeat(form.password.chars().count())
        )),
    ];
    frame.render_widget(Clear, box_area);
    frame.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: true }).block(
            Block::new()
                .borders(Borders::ALL)
                .title(format!(" Log in to {server} · Enter · Esc quits ")),
        ),
        box_area,
    );
}

/// The chosen row: reversed, which needs no colour.
fn chosen(look: Look) -> Style {
    look.fg(Color::Cyan).add_modifier(Modifier::REVERSED)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_time_left_reads_in_the_largest_units() {
        let deadline = "2026-12-06T12:00:00Z";
        let noon = 1_796_558_400; // 2026-12-06T12:00:00Z
        assert_eq!(time_left(deadline, noon - 125), "2m 05s left");
        assert_eq!(time_left(deadline, noon - 97_200), "1d 3h left");
        assert_eq!(time_left(deadline, noon + 12), "late by 12s");
    }
}
