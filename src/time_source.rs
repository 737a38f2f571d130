//! The time the match service goes by: when events are written, when a turn's deadline falls,
//! when a late seat may be forfeited. It is injected ([`Clock`]) so that tests can move time
//! without sleeping; the server runs on [`SystemClock`].
//!
//! Times are Unix seconds everywhere inside, and RFC 3339 (UTC, `Z`) in the API and the log.

use std::fmt::Debug;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use time::OffsetDateTime;
use time::format_description::well_known::Rfc3339;

/// A source of the current time.
pub trait Clock: Send + Sync + Debug {
    /// Now, in Unix seconds.
    fn now(&self) -> i64;
}

/// The operating system's clock.
#[derive(Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> i64 {
        system_now()
    }
}

/// The system's clock moved on by whatever a test asks: time passes as usual, and jumps
/// forward on [`ManualClock::advance`]. A test that checks a boundary to the second
/// ([`ManualClock::freeze`]) stops it, so that a real second ticking over between two requests
/// cannot move the answer.
#[derive(Debug, Default)]
pub struct ManualClock {
    ahead_by: AtomicI64,
    /// The system time the clock stopped at, or 0 while time passes.
    frozen_at: AtomicI64,
}

impl ManualClock {
    /// Moves time forward by `seconds`.
    pub fn advance(&self, seconds: i64) {
        self.ahead_by.fetch_add(seconds, Ordering::SeqCst);
    }

    /// Stops time where it is now: from here on it moves only by [`ManualClock::advance`].
    pub fn freeze(&self) {
        let _ =
            self.frozen_at
                .compare_exchange(0, system_now(), Ordering::SeqCst, Ordering::SeqCst);
    }
}

impl Clock for ManualClock {
    fn now(&self) -> i64 {
        let base = match self.frozen_at.load(Ordering::SeqCst) {
            0 => system_now(),
            frozen_at => frozen_at,
        };
        base + self.ahead_by.load(Ordering::SeqCst)
    }
}

fn system_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| elapsed.as_secs() as i64)
}

/// Unix seconds as RFC 3339 (`2026-11-30T12:00:00Z`).
pub fn rfc3339(unix_seconds: i64) -> String {
    OffsetDateTime::from_unix_timestamp(unix_seconds)
        .ok()
        .and_then(|time| time.format(&Rfc3339).ok())
        .unwrap_or_else(|| unix_seconds.to_string())
}

/// RFC 3339 as Unix seconds.
pub fn parse_rfc3339(text: &str) -> Option<i64> {
    OffsetDateTime::parse(text, &Rfc3339)
        .ok()
        .map(OffsetDateTime::unix_timestamp)
}

/// Serde helpers: a time kept as Unix seconds inside, written as RFC 3339 in the API
/// (`#[serde(with = "crate::time_source::as_rfc3339")]`, with `#[schema(value_type = String,
/// format = DateTime)]`). Reading accepts either form.
pub mod as_rfc3339 {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Writes Unix seconds as RFC 3339.
    pub fn serialize<S: Serializer>(unix_seconds: &i64, out: S) -> Result<S::Ok, S::Error> {
        out.serialize_str(&super::rfc3339(*unix_seconds))
    }

    /// Reads RFC 3339 (or Unix seconds) as Unix seconds.
    pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<i64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Time {
            Text(String),
            Seconds(i64),
        }
        match Time::deserialize(input)? {
            Time::Seconds(seconds) => Ok(seconds),
            Time::Text(text) => super::parse_rfc3339(&text)
                .ok_or_else(|| serde::de::Error::custom(format!("`{text}` is not RFC 3339"))),
        }
    }

    /// The same for a time that may be absent (`null`).
    pub mod option {
        use serde::{Deserialize, Deserializer, Serializer};

        /// Writes Unix seconds as RFC 3339, or `null`.
        pub fn serialize<S: Serializer>(time: &Option<i64>, out: S) -> Result<S::Ok, S::Error> {
            match time {
                Some(seconds) => out.serialize_str(&super::super::rfc3339(*seconds)),
                None => out.serialize_none(),
            }
        }

        /// Reads RFC 3339 (or Unix seconds), or `null`.
        pub fn deserialize<'de, D: Deserializer<'de>>(input: D) -> Result<Option<i64>, D::Error> {
            #[derive(Deserialize)]
            struct Wrapped(#[serde(with = "super")] i64);
            Ok(Option::<Wrapped>::deserialize(input)?.map(|Wrapped(seconds)| seconds))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_round_trip_through_rfc3339() {
        assert_eq!(rfc3339(1_796_040_000), "2026-11-30T12:00:00Z");
        assert_eq!(parse_rfc3339("2026-11-30T12:00:00Z"), Some(1_796_040_000));
        assert_eq!(
            parse_rfc3339("2026-11-30T13:00:00+01:00"),
            Some(1_796_040_000)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
        let clock = ManualClock::default();
        let before = clock.now();
        clock.advance(86_400);
        assert!(clock.now() >= before + 86_400);
    }

    #[test]
    fn a_frozen_clock_moves_only_when_told() {
        let clock = ManualClock::default();
        clock.freeze();
        let frozen = clock.now();
        std::thread::sleep(std::time::Duration::from_millis(1100));
        assert_eq!(clock.now(), frozen);
        clock.advance(5);
        assert_eq!(clock.now(), frozen + 5);
    }
}
