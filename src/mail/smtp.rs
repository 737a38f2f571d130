//! The SMTP transport (lettre): a connection pool to the operator's SMTP server, with STARTTLS
//! or implicit TLS and AUTH as `SMTP_URL` says, and what each refusal means for a letter.

use std::time::Duration;

use lettre::message::header::{ContentType, HeaderName, HeaderValue};
use lettre::message::{Mailbox, MultiPart, SinglePart};
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};

use super::MailSettings;
use crate::store::mail::OutgoingMail;

/// How long one letter may take to send, connection included.
const TIMEOUT: Duration = Duration::from_secs(30);

/// SMTP reply codes that say the recipient's mailbox is at fault (RFC 5321 §4.2.3): mail to
/// the address stops until its owner verifies it again.
const MAILBOX_REFUSED: [u16; 4] = [550, 551, 553, 554];

/// SMTP reply codes that say the server refused us, not the letter (authentication): retried,
/// as the operator will put the setting right.
const REFUSED_US: [u16; 4] = [530, 534, 535, 538];

/// A configured transport and the `From:` of every letter.
#[derive(Clone)]
pub(super) struct Transport {
    smtp: AsyncSmtpTransport<Tokio1Executor>,
    from: Mailbox,
    /// The domain of `Message-ID`s: `MAIL_FROM`'s.
    domain: String,
}

/// What became of one attempt.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Sent {
    /// The SMTP server took the letter.
    Accepted,
    /// Try again later.
    Later(String),
    /// The letter will never go; `stop` when the fault is the recipient's address.
    Never {
        /// In words (the server's reply code and text).
        error: String,
        /// Whether mail to this address stops until it is verified again.
        stop: bool,
    },
}

impl Transport {
    /// The transport `settings` describe; refuses a URL or a certificate it cannot use (the
    /// reason never repeats the URL: it may hold a password).
    pub(super) fn new(settings: &MailSettings) -> anyhow::Result<Transport> {
        let url = settings.smtp_url.as_deref().unwrap_or_default();
        let mut builder = AsyncSmtpTransport::<Tokio1Executor>::from_url(url).map_err(|_| {
            anyhow::anyhow!(
                "SMTP_URL is not smtp://host[:port][?tls=required|opportunistic] or smtps://host[:port], with user:password@ for AUTH"
            )
        })?;
        if let Some(path) = &settings.smtp_ca_file {
            let pem = std::fs::read(path)
                .map_err(|error| anyhow::anyhow!("SMTP_CA_FILE {}: {error}", path.display()))?;
            let parsed = url::Url::parse(url)?;
            let host = parsed.host_str().unwrap_or_default().to_owned();
            let parameters = TlsParameters::builder(host)
                .add_root_certificate(Certificate::from_pem(&pem).map_err(|error| {
                    anyhow::anyhow!(
                        "SMTP_CA_FILE {} holds no certificate: {error}",
                        path.display()
                    )
                })?)
                .build_rustls()?;
            let tls = parsed
                .query_pairs()
                .find(|(key, _)| key == "tls")
                .map(|(_, value)| value.into_owned());
            builder = builder.tls(match (parsed.scheme(), tls.as_deref()) {
                ("smtps", _) => Tls::Wrapper(parameters),
                (_, Some("required")) => Tls::Required(parameters),
                (_, Some("opportunistic")) => Tls::Opportunistic(parameters),
                _ => anyhow::bail!(
                    "SMTP_CA_FILE is set but SMTP_URL asks for no TLS: use ?tls=required or smtps://"
                ),
            });
        }
        let from: Mailbox = settings
            .from
            .as_deref()
            .unwrap_or_default()
            .parse()
            .map_err(|_| anyhow::anyhow!("MAIL_FROM is not an address (`Kings Corner <kc@example.com>` or `kc@example.com`)"))?;
        let domain = from.email.domain().to_owned();
        Ok(Transport {
            smtp: builder.timeout(Some(TIMEOUT)).build(),
            from,
            domain,
        })
    }

    /// Sends one letter from the outbox.
    pub(super) async fn send(&self, letter: &OutgoingMail) -> Sent {
        let message = match self.message(letter) {
            Ok(message) => message,
            Err(error) => {
                return Sent::Never {
                    error: format!("the letter cannot be built: {error}"),
                    stop: false,
                };
            }
        };
        match self.smtp.send(message).await {
            Ok(_) => Sent::Accepted,
            Err(error) => judge(&error),
        }
    }

    /// The MIME message: text and HTML alternatives, a stable `Message-ID`, and for alerts the
    /// RFC 2369 / RFC 8058 unsubscribe headers.
    fn message(&self, letter: &OutgoingMail) -> anyhow::Result<Message> {
        let to: Mailbox = letter.recipient.parse()?;
        let mut builder = Message::builder()
            .from(self.from.clone())
            .to(to)
            .subject(letter.subject.clone())
            .message_id(Some(format!("<{}@{}>", letter.id, self.domain)))
            .date(std::time::UNIX_EPOCH + Duration::from_secs(letter.created_at.max(0) as u64));
        // Automated mail (RFC 3834): no vacation replies to it.
        builder = builder.raw_header(raw_header("Auto-Submitted", "auto-generated"));
        if let Some(url) = &letter.unsubscribe_url {
            builder = builder
                .raw_header(raw_header("List-Unsubscribe", &format!("<{url}>")))
                .raw_header(raw_header(
                    "List-Unsubscribe-Post",
                    "List-Unsubscribe=One-Click",
                ));
        }
        let body = MultiPart::alternative()
            .singlepart(
                SinglePart::builder()
                    .header(ContentType::TEXT_PLAIN)
                    .body(letter.text_body.clone()),
            )
            .singlepart(
                SinglePart::builder()
                    .header(ContentType::TEXT_HTML)
                    .body(letter.html_body.clone()),
            );
        Ok(builder.multipart(body)?)
    }
}

fn raw_header(name: &'static str, value: &str) -> HeaderValue {
    HeaderValue::new(HeaderName::new_from_ascii_str(name), value.to_owned())
}

/// What an SMTP failure means for the letter.
fn judge(error: &lettre::transport::smtp::Error) -> Sent {
    let described = describe(error);
    match error.status().map(u16::from) {
        Some(code) if REFUSED_US.contains(&code) => Sent::Later(described),
        Some(code) if error.is_permanent() => Sent::Never {
            error: described,
            stop: MAILBOX_REFUSED.contains(&code),
        },
        _ => Sent::Later(described),
    }
}

/// An SMTP failure in a few words, with its causes (lettre's errors hold no credentials), and
/// any address the server's reply quotes redacted: the text is logged.
fn describe(error: &lettre::transport::smtp::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    redact_addresses(&text).chars().take(500).collect()
}

/// `text` with every word that holds an `@` (an address, bare or in `<>`) redacted.
fn redact_addresses(text: &str) -> String {
    text.split(' ')
        .map(|word| {
            if word.contains('@') {
                let bare = word.trim_matches(|c: char| "<>,;:()[]\"'".contains(c));
                word.replace(bare, &super::address::redact(bare))
            } else {
                word.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::redact_addresses;

    #[test]
    fn addresses_in_a_reply_are_redacted() {
        assert_eq!(
            redact_addresses(
                "permanent error (550): 5.1.1 <maya.rossi@example.com>: Recipient address rejected"
            ),
            "permanent error (550): 5.1.1 <m…i@example.com>: Recipient address rejected"
        );
        assert_eq!(redact_addresses("connection refused"), "connection refused");
    }
}
