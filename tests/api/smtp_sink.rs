//! A real SMTP server in the test process (plain SMTP on 127.0.0.1, RFC 5321's commands, no
//! TLS: `tests/mail/` checks STARTTLS and AUTH against aiosmtpd), keeping every message it
//! accepts, and able to refuse a recipient with a chosen reply.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;

use crate::helpers::{TestApp, spawn_app_with};

/// A server that mails through `sink`, its links under `https://kings.example.test`.
pub async fn app_with_mail(sink: &SmtpSink) -> TestApp {
    let url = sink.url.clone();
    spawn_app_with(move |settings| {
        settings.smtp_url = Some(url);
        settings.mail_from = Some("Kings Corner <kings@example.test>".to_owned());
        settings.public_url = Some("https://kings.example.test".parse().unwrap());
    })
    .await
}

/// One message the sink accepted.
#[derive(Clone, Debug)]
pub struct Received {
    /// `RCPT TO` addresses.
    pub recipients: Vec<String>,
    /// The message as sent (headers and body, CRLF line ends, dot-unstuffed).
    pub data: String,
}

impl Received {
    /// The first header named `name` (unfolded), if present.
    pub fn header(&self, name: &str) -> Option<String> {
        let head = self.data.split("\r\n\r\n").next().unwrap_or_default();
        let mut found: Option<String> = None;
        for line in head.split("\r\n") {
            if line.starts_with(' ') || line.starts_with('\t') {
                if let Some(value) = found.as_mut() {
                    value.push(' ');
                    value.push_str(line.trim());
                }
                continue;
            }
            if found.is_some() {
                break;
            }
            if let Some((key, value)) = line.split_once(':')
                && key.eq_ignore_ascii_case(name)
            {
                found = Some(value.trim().to_owned());
            }
        }
        found
    }

    /// The message with quoted-printable undone (soft breaks, `=XX` bytes; RFC 2045 §6.7).
    pub fn text(&self) -> String {
        let joined = self.data.replace("=\r\n", "");
        let bytes = joined.as_bytes();
        let mut decoded = Vec::with_capacity(bytes.len());
        let mut at = 0;
        while at < bytes.len() {
            let hex = bytes
                .get(at + 1..at + 3)
                .and_then(|pair| std::str::from_utf8(pair).ok())
                .and_then(|pair| u8::from_str_radix(pair, 16).ok());
            match (bytes[at], hex) {
                (b'=', Some(byte)) => {
                    decoded.push(byte);
                    at += 3;
                }
                (byte, _) => {
                    decoded.push(byte);
                    at += 1;
                }
            }
        }
        String::from_utf8_lossy(&decoded).into_owned()
    }

    /// The token after `marker` (`verify-email=`) in the message's first link.
    pub fn token(&self, marker: &str) -> String {
        let text = self.text();
        let at = text
            .find(marker)
            .unwrap_or_else(|| panic!("no {marker} in {text}"))
            + marker.len();
        text[at..]
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-' || *c == '_')
            .collect()
    }
}

/// The sink: its address and what it got.
#[derive(Clone)]
pub struct SmtpSink {
    /// `smtp://127.0.0.1:PORT`.
    pub url: String,
    received: Arc<Mutex<Vec<Received>>>,
    /// Recipients refused at `RCPT TO`, with the reply.
    refused: Arc<Mutex<Vec<(String, String)>>>,
}

impl SmtpSink {
    /// Starts a sink on a random port.
    pub async fn start() -> SmtpSink {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("smtp://{}", listener.local_addr().unwrap());
        let sink = SmtpSink {
            url,
            received: Arc::default(),
            refused: Arc::default(),
        };
        let serving = sink.clone();
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let sink = serving.clone();
                tokio::spawn(async move {
                    let _ = sink.session(stream).await;
                });
            }
        });
        sink
    }

    /// Refuses mail to `address` from now on with `reply` (`550 5.1.1 no such user`).
    pub fn refuse(&self, address: &str, reply: &str) {
        self.refused
            .lock()
            .unwrap()
            .push((address.to_lowercase(), reply.to_owned()));
    }

    /// Every message so far.
    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The messages to `address` so far.
    pub fn to(&self, address: &str) -> Vec<Received> {
        self.received()
            .into_iter()
            .filter(|message| {
                message
                    .recipients
                    .iter()
                    .any(|r| r.eq_ignore_ascii_case(address))
            })
            .collect()
    }

    /// Waits (up to 10 s) until `address` has received `count` messages; returns them.
    pub async fn wait_for(&self, address: &str, count: usize) -> Vec<Received> {
        for _ in 0..200 {
            let messages = self.to(address);
            if messages.len() >= count {
                return messages;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!(
            "{address} received {} messages, not {count}",
            self.to(address).len()
        );
    }

    async fn session(&self, stream: tokio::net::TcpStream) -> std::io::Result<()> {
        let (read, mut write) = stream.into_split();
        let mut lines = BufReader::new(read);
        write.write_all(b"220 sink.test ESMTP\r\n").await?;
        let mut recipients = Vec::new();
        let mut line = String::new();
        loop {
            line.clear();
            if lines.read_line(&mut line).await? == 0 {
                return Ok(());
            }
            let command = line.trim_end().to_owned();
            let verb = command
                .split_whitespace()
                .next()
                .unwrap_or_default()
                .to_uppercase();
            let reply = match verb.as_str() {
                "EHLO" => {
                    "250-sink.test\r\n250-8BITMIME\r\n250-SMTPUTF8\r\n250 PIPELINING".to_owned()
                }
                "HELO" => "250 sink.test".to_owned(),
                "MAIL" => {
                    recipients.clear();
                    "250 2.1.0 ok".to_owned()
                }
                "RCPT" => {
                    let address = command
                        .split_once(':')
                        .map(|(_, rest)| rest.trim().trim_start_matches('<'))
                        .and_then(|rest| rest.split('>').next())
                        .unwrap_or_default()
                        .to_owned();
                    let refusal = self
                        .refused
                        .lock()
                        .unwrap()
                        .iter()
                        .find(|(refused, _)| *refused == address.to_lowercase())
                        .map(|(_, reply)| reply.clone());
                    match refusal {
                        Some(reply) => reply,
                        None => {
                            recipients.push(address);
                            "250 2.1.5 ok".to_owned()
                        }
                    }
                }
                "DATA" => {
                    write.write_all(b"354 go ahead\r\n").await?;
                    let mut data = String::new();
                    loop {
                        line.clear();
                        if lines.read_line(&mut line).await? == 0 {
                            return Ok(());
                        }
                        if line == ".\r\n" {
                            break;
                        }
                        let unstuffed = line.strip_prefix('.').unwrap_or(&line);
                        data.push_str(unstuffed);
                    }
                    self.received.lock().unwrap().push(Received {
                        recipients: std::mem::take(&mut recipients),
                        data,
                    });
                    "250 2.0.0 queued".to_owned()
                }
                "RSET" => {
                    recipients.clear();
                    "250 ok".to_owned()
                }
                "NOOP" => "250 ok".to_owned(),
                "QUIT" => {
                    write.write_all(b"221 bye\r\n").await?;
                    return Ok(());
                }
                _ => "502 5.5.2 not implemented".to_owned(),
            };
            write.write_all(format!("{reply}\r\n").as_bytes()).await?;
        }
    }
}
