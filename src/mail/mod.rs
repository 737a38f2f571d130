//! Email: the letters the server sends (a verification link, a password reset, the notices
//! that a password or an address changed, a player's alerts) and the outbox they go out
//! through.
//!
//! A service writes a [`Letter`] into the outbox (`outgoing_mail`) in the same transaction as
//! the change that causes it, then [`Mail::wake`]s the sender. The sender ([`outbox`]) runs in
//! every server process: it claims due letters with a lease, sends each over SMTP ([`smtp`]),
//! and records the outcome, so a letter is sent by one process, retried with backoff while the
//! SMTP server refuses it for now, and never lost to a crash (a letter claimed by a process
//! that dies is taken up by another once the lease runs out; its `Message-ID` stays the same,
//! so a receiver that got it after all can drop the copy).
//!
//! With no `SMTP_URL` nothing is queued: the services that need mail answer `mail_unavailable`
//! and every other part of the server works as before.
//!
//! # Layout
//! - this file: [`MailSettings`], [`Mail`] (the handle services hold), [`Letter`];
//! - [`address`]: an address's shape, and keeping it out of logs;
//! - `smtp`: the transport (lettre), and what an SMTP refusal means for the letter;
//! - `outbox`: the sender.

pub mod address;
mod outbox;
mod smtp;

use std::sync::Arc;

pub use crate::store::mail::{Letter, Purpose};
pub use address::{BadAddress, EmailAddress};
use url::Url;

use crate::live::Wake;
use crate::store::Db;
use crate::time_source::Clock;

/// Where mail goes and what it says it is from; `None` fields: mail is off.
#[derive(Clone, Debug, Default)]
pub struct MailSettings {
    /// `smtp://`, `smtp://…?tls=required` (STARTTLS), or `smtps://` (implicit TLS), with
    /// `user:password@` for AUTH. Never logged.
    pub smtp_url: Option<String>,
    /// The `From:` of every letter (`Kings Corner <kc@example.com>`).
    pub from: Option<String>,
    /// The base of every link in a letter: `https://kings.example.com`.
    pub public_url: Option<Url>,
    /// A PEM file of certificates to trust for the SMTP server besides the usual roots (a
    /// private certificate authority).
    pub smtp_ca_file: Option<std::path::PathBuf>,
}

/// What services hold: whether mail is configured, the base of links, and the sender's wake.
#[derive(Clone, Debug)]
pub struct Mail {
    settings: MailSettings,
    wake: Wake,
}

impl Mail {
    /// The handle over `settings`; [`Mail::start`] starts the sender.
    pub fn new(settings: MailSettings) -> Mail {
        Mail {
            settings,
            wake: Wake::default(),
        }
    }

    /// Whether letters can be sent at all (`SMTP_URL`, `MAIL_FROM` and `PUBLIC_URL` set).
    pub fn configured(&self) -> bool {
        self.settings.smtp_url.is_some()
            && self.settings.from.is_some()
            && self.settings.public_url.is_some()
    }

    /// `path` (with its query or fragment) under `PUBLIC_URL`: the links letters carry.
    pub fn link(&self, path: &str) -> String {
        let base = self
            .settings
            .public_url
            .as_ref()
            .map(|url| url.as_str().trim_end_matches('/').to_owned())
            .unwrap_or_default();
        format!("{base}{path}")
    }

    /// Tells this process's sender that letters were queued (others find them within seconds).
    pub fn wake(&self) {
        self.wake.wake();
    }

    /// Starts the sender, if mail is configured; an SMTP URL that cannot be used stops the
    /// start with the reason (never the URL: it may hold a password).
    pub fn start(&self, db: Db, clock: Arc<dyn Clock>) -> anyhow::Result<()> {
        if !self.configured() {
            return Ok(());
        }
        let transport = smtp::Transport::new(&self.settings)?;
        outbox::Sender::new(db, clock, self.wake.clone(), transport).start();
        Ok(())
    }
}

/// Escapes text for HTML.
pub fn escape_html(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => escaped.push_str("&amp;"),
            '<' => escaped.push_str("&lt;"),
            '>' => escaped.push_str("&gt;"),
            '"' => escaped.push_str("&quot;"),
            '\'' => escaped.push_str("&#39;"),
            c => escaped.push(c),
        }
    }
    escaped
}

/// A letter's HTML part: its paragraphs (already escaped HTML) in a plain, narrow page that
/// reads in every mail client (no scripts, no remote images, styles inline).
pub fn html_page(title: &str, paragraphs: &[String]) -> String {
    let mut body = String::new();
    for paragraph in paragraphs {
        body.push_str("<p style=\"margin:0 0 14px\">");
        body.push_str(paragraph);
        body.push_str("</p>\n");
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\n\
         <body style=\"margin:0;padding:24px;background:#f4f1ea;font:16px/1.5 Georgia,serif;color:#222\">\n\
         <div style=\"max-width:560px;margin:0 auto;background:#fff;border-radius:8px;padding:24px\">\n\
         <h1 style=\"margin:0 0 16px;font-size:20px;color:#1d5b3a\">{title}</h1>\n{body}\
         <p style=\"margin:24px 0 0;font-size:13px;color:#666\">Kings Corner</p>\n</div></body></html>\n",
        title = escape_html(title),
    )
}

/// An HTML link to `url` reading `label`.
pub fn html_link(url: &str, label: &str) -> String {
    format!(
        "<a href=\"{}\" style=\"color:#1d5b3a\">{}</a>",
        escape_html(url),
        escape_html(label)
    )
}
