//! Email addresses as an owner types them: checked for shape (RFC 5321's lengths, one `@`, a
//! domain of dotted labels, nothing that could end a header line), never guessed at or
//! "corrected"; and kept out of logs (`Debug` shows a redacted form).

use std::fmt;

/// Longest address SMTP carries (RFC 5321 §4.5.3.1.3, a path of 256 less its brackets).
pub const MOST_LENGTH: usize = 254;
/// Longest local part (RFC 5321 §4.5.3.1.1).
const MOST_LOCAL: usize = 64;
/// Longest domain label (RFC 1035).
const MOST_LABEL: usize = 63;

/// A well-shaped address.
#[derive(Clone, PartialEq, Eq)]
pub struct EmailAddress(String);

/// Why an address was refused, in words a person can act on.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadAddress(pub &'static str);

impl EmailAddress {
    /// `text`, if it has the shape of an address: `local@domain.tld`, at most 254 characters,
    /// no spaces, control characters or angle brackets, a domain of labels of letters, digits
    /// and hyphens (or non-ASCII letters) with at least one dot.
    pub fn parse(text: &str) -> Result<EmailAddress, BadAddress> {
        if text.len() > MOST_LENGTH {
            return Err(BadAddress("An email address is at most 254 characters."));
        }
        if text.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(BadAddress(
                "An email address has no spaces, line breaks or control characters.",
            ));
        }
        let Some((local, domain)) = text.rsplit_once('@') else {
            return Err(BadAddress(
                "An email address has the form name@example.com.",
            ));
        };
        let local_allowed = |c: char| {
            !c.is_ascii() || c.is_ascii_alphanumeric() || "!#$%&'*+-/=?^_`{|}~.".contains(c)
        };
        if local.is_empty()
            || local.len() > MOST_LOCAL
            || !local.chars().all(local_allowed)
            || local.starts_with('.')
            || local.ends_with('.')
            || local.contains("..")
        {
            return Err(BadAddress(
                "The part before the @ is 1 to 64 letters, digits and .!#$%&'*+-/=?^_`{|}~, without a leading, trailing or double dot.",
            ));
        }
        let labels: Vec<&str> = domain.split('.').collect();
        let label_ok = |label: &&str| {
            !label.is_empty()
                && label.len() <= MOST_LABEL
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| !c.is_ascii() || c.is_ascii_alphanumeric() || c == '-')
        };
        if labels.len() < 2 || !labels.iter().all(label_ok) {
            return Err(BadAddress(
                "The part after the @ is a domain name such as example.com.",
            ));
        }
        // The SMTP library's own check, so that whatever passes here can be sent.
        text.parse::<lettre::Address>()
            .map_err(|_| BadAddress("This is not an address an email can be sent to."))?;
        Ok(EmailAddress(text.to_owned()))
    }

    /// As typed.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// Lower-cased, to compare addresses and to key rate limits (the domain is case-blind;
    /// nearly every mailbox is too).
    pub fn key(&self) -> String {
        self.0.to_lowercase()
    }

    /// The address with most of the local part hidden, for the owner's eyes on a page and
    /// for `Debug`: `m…a@example.com`.
    pub fn redacted(&self) -> String {
        redact(&self.0)
    }
}

/// `text` (an address) with most of its local part hidden.
pub fn redact(text: &str) -> String {
    match text.rsplit_once('@') {
        Some((local, domain)) => {
            let mut chars = local.chars();
            let first = chars.next().unwrap_or('?');
            match chars.next_back() {
                Some(last) => format!("{first}…{last}@{domain}"),
                None => format!("{first}…@{domain}"),
            }
        }
        None => "…".to_owned(),
    }
}

impl fmt::Debug for EmailAddress {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.redacted())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn well_shaped_addresses_pass_as_typed() {
        for text in [
            "maya@example.com",
            "Maya.Rossi+kings@Mail.Example.co.uk",
            "o'brien@example.ie",
            "jürgen@bücher.example",
            "x@a-b.example",
        ] {
            assert_eq!(EmailAddress::parse(text).unwrap().as_str(), text);
        }
    }

    #[test]
    fn misshapen_addresses_and_header_injections_are_refused() {
        for text in [
            "",
            "maya",
            "maya@",
            "@example.com",
            "maya@example",
            "maya@@example.com",
            "ma ya@example.com",
            "a@b.c\r\nBcc: c@d.e",
            "a@b\r\nBcc: c@d",
            "maya@example.com\n",
            "<maya@example.com>",
            "Maya <maya@example.com>",
            ".maya@example.com",
            "ma..ya@example.com",
            "maya@-example.com",
            "maya@example..com",
            "maya\0@example.com",
        ] {
            assert!(EmailAddress::parse(text).is_err(), "{text:?}");
        }
        let long = format!("{}@example.com", "a".repeat(65));
        assert!(EmailAddress::parse(&long).is_err());
        let longer = format!("a@{}.com", "b".repeat(250));
        assert!(EmailAddress::parse(&longer).is_err());
    }

    #[test]
    fn debug_never_shows_the_whole_address() {
        let address = EmailAddress::parse("maya.rossi@example.com").unwrap();
        assert_eq!(format!("{address:?}"), "m…i@example.com");
        assert_eq!(address.key(), "maya.rossi@example.com");
    }
}
