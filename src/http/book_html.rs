//! The rule book as an HTML fragment (`GET /v1/rules/book` with `Accept: text/html`), so that a
//! client shows it without a Markdown reader of its own: CommonMark with tables, by
//! `pulldown-cmark`, made safe to embed in any page.
//!
//! - Every heading carries the id GitHub gives it (`## 7. Leaving a game` → `7-leaving-a-game`),
//!   so the book's own links (`#7-leaving-a-game-…`) work on the page as on GitHub.
//! - Nothing in the Markdown is taken as HTML: raw HTML is shown as the text it is.
//! - A link keeps its target only when it is a section of the book or an `http(s)` address;
//!   any other (a repository path, a `javascript:` URL) is left as its words.
//! - No `style` attribute (a strict CSP refuses them): table columns carry no alignment.

use std::collections::HashMap;

use pulldown_cmark::{Alignment, CowStr, Event, Options, Parser, Tag, TagEnd};

/// `markdown` as an HTML fragment: block elements with no `<html>` or `<body>` around them.
pub fn render(markdown: &str) -> String {
    let events: Vec<Event> = Parser::new_ext(markdown, Options::ENABLE_TABLES).collect();
    let mut slugs = Slugs::default();
    let mut out = Vec::with_capacity(events.len());
    let mut links_dropped = Vec::new();
    for (at, event) in events.iter().enumerate() {
        out.push(match event.clone() {
            Event::Start(Tag::Heading { level, .. }) => Event::Start(Tag::Heading {
                level,
                id: Some(CowStr::from(slugs.next(&heading_text(&events[at + 1..])))),
                classes: Vec::new(),
                attrs: Vec::new(),
            }),
            Event::Start(Tag::Link { dest_url, .. }) if !is_safe_target(&dest_url) => {
                links_dropped.push(true);
                continue;
            }
            Event::Start(link @ Tag::Link { .. }) => {
                links_dropped.push(false);
                Event::Start(link)
            }
            Event::End(TagEnd::Link) => {
                if links_dropped.pop().unwrap_or(false) {
                    continue;
                }
                Event::End(TagEnd::Link)
            }
            Event::Start(Tag::Table(columns)) => {
                Event::Start(Tag::Table(vec![Alignment::None; columns.len()]))
            }
            Event::Start(Tag::HtmlBlock) => Event::Start(Tag::Paragraph),
            Event::End(TagEnd::HtmlBlock) => Event::End(TagEnd::Paragraph),
            Event::Html(raw) | Event::InlineHtml(raw) => Event::Text(raw),
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => continue,
            other => other,
        });
    }
    let mut html = String::with_capacity(markdown.len() * 3 / 2);
    pulldown_cmark::html::push_html(&mut html, out.into_iter());
    html
}

/// Whether a link may keep its target: a section of the page, or a web address.
fn is_safe_target(target: &str) -> bool {
    target.starts_with('#') || target.starts_with("https://") || target.starts_with("http://")
}

/// The words of the heading whose events start `events` (up to its end).
fn heading_text(events: &[Event]) -> String {
    events
        .iter()
        .take_while(|event| !matches!(event, Event::End(TagEnd::Heading(_))))
        .filter_map(|event| match event {
            Event::Text(text) | Event::Code(text) => Some(text.as_ref()),
            _ => None,
        })
        .collect()
}

/// The ids given so far, to make each unique as GitHub does (`x`, `x-1`, `x-2`).
#[derive(Default)]
struct Slugs(HashMap<String, usize>);

impl Slugs {
    /// GitHub's id for a heading: lower case, letters, digits, `_` and `-` kept, spaces turned
    /// into `-`, everything else dropped.
    fn next(&mut self, heading: &str) -> String {
        let slug: String = heading
            .trim()
            .to_lowercase()
            .chars()
            .filter_map(|c| match c {
                ' ' => Some('-'),
                c if c.is_alphanumeric() || c == '_' || c == '-' => Some(c),
                _ => None,
            })
            .collect();
        let seen = self.0.entry(slug.clone()).or_insert(0);
        *seen += 1;
        match *seen {
            1 => slug,
            n => format!("{slug}-{}", n - 1),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_carry_the_ids_github_gives_them() {
        let html =
            render("# Title\n\n## 7. Leaving a game: resignation, `timeouts`, abort\n\n## Title\n");
        assert!(html.contains(r#"<h1 id="title">Title</h1>"#), "{html}");
        assert!(
            html.contains(r#"<h2 id="7-leaving-a-game-resignation-timeouts-abort">"#),
            "{html}"
        );
        assert!(html.contains(r#"<h2 id="title-1">"#), "{html}");
    }

    #[test]
    fn raw_html_is_shown_as_text_and_unsafe_links_as_words() {
        let html = render(
            "<script>alert(1)</script>\n\nA <b onclick=\"x()\">bold</b> [trap](javascript:alert(1)), \
             [file](docs/ratings.md), [section](#4-options), [web](https://example.org) ![img](x.png)\n",
        );
        assert!(!html.contains("<script"), "{html}");
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
            "{html}"
        );
        assert!(!html.contains("<b "), "{html}");
        assert!(!html.contains("javascript:"), "{html}");
        assert!(!html.contains("docs/ratings.md"), "{html}");
        assert!(html.contains("trap"), "{html}");
        assert!(
            html.contains(r##"<a href="#4-options">section</a>"##),
            "{html}"
        );
        assert!(
            html.contains(r#"<a href="https://example.org">web</a>"#),
            "{html}"
        );
        assert!(!html.contains("<img"), "{html}");
    }

    #[test]
    fn tables_carry_no_style() {
        let html = render("| a | b |\n|:--|--:|\n| 1 | 2 |\n");
        assert!(html.contains("<table>"), "{html}");
        assert!(!html.contains("style"), "{html}");
    }
}
