//! When a player's waiting alerts go out (pure): at once, at most one message an hour, or once
//! a day at a chosen local hour; never inside the player's quiet hours, which are wall-clock
//! times in their IANA time zone (so they follow the zone's daylight-saving changes: quiet
//! from 22:00 to 07:00 is 9 hours most nights, 8 or 10 on the nights the clocks change).

use jiff::Timestamp;
use jiff::civil::Time;
use jiff::tz::TimeZone;

/// How often messages may go.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Digest {
    /// A message for every alert, as it comes.
    Each,
    /// At most one message an hour: an hour after the first alert it holds (and an hour after
    /// the last message), with every alert since.
    Hourly,
    /// One message a day, at `hour` local time.
    Daily {
        /// 0–23.
        hour: i8,
    },
}

/// Local quiet hours: `from` up to `until` (minutes after midnight; `from > until` spans
/// midnight).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Quiet {
    /// Start, minutes after local midnight.
    pub from: i16,
    /// End, minutes after local midnight.
    pub until: i16,
}

/// A player's schedule.
#[derive(Clone, Debug)]
pub struct Schedule {
    /// How often.
    pub digest: Digest,
    /// When not.
    pub quiet: Option<Quiet>,
    /// Where their wall clock is.
    pub zone: TimeZone,
}

impl Schedule {
    /// When alerts waiting since `oldest` go out, the last message having gone at
    /// `last_sent` (Unix seconds).
    pub fn due_at(&self, oldest: i64, last_sent: Option<i64>) -> i64 {
        let earliest = match self.digest {
            Digest::Each => oldest,
            Digest::Hourly => {
                let after_oldest = oldest + 3600;
                last_sent.map_or(after_oldest, |last| after_oldest.max(last + 3600))
            }
            Digest::Daily { hour } => {
                let after = last_sent.map_or(oldest, |last| oldest.max(last + 1));
                self.next_wall_time(after, Time::constant(hour, 0, 0, 0))
            }
        };
        self.outside_quiet(earliest)
    }

    /// `at`, or the end of the quiet hours it falls in.
    fn outside_quiet(&self, at: i64) -> i64 {
        let Some(quiet) = self.quiet.filter(|quiet| quiet.from != quiet.until) else {
            return at;
        };
        let local = self.local(at).time();
        let minute = i16::from(local.hour()) * 60 + i16::from(local.minute());
        let inside = if quiet.from < quiet.until {
            quiet.from <= minute && minute < quiet.until
        } else {
            minute >= quiet.from || minute < quiet.until
        };
        if !inside {
            return at;
        }
        let until = Time::constant(0, 0, 0, 0)
            .checked_add(jiff::SignedDuration::from_mins(i64::from(quiet.until)))
            .unwrap_or(Time::midnight());
        self.next_wall_time(at, until)
    }

    /// The first moment at or after `at` when the local clock reads `time` (where a
    /// daylight-saving change skips it, the moment the clock jumps over it).
    fn next_wall_time(&self, at: i64, time: Time) -> i64 {
        let local = self.local(at);
        let mut date = local.date();
        for _ in 0..3 {
            if let Ok(candidate) = date.to_datetime(time).to_zoned_datetime(self.zone.clone()) {
                let second = candidate.timestamp().as_second();
                if second >= at {
                    return second;
                }
            }
            date = date.tomorrow().unwrap_or(date);
        }
        at
    }

    fn local(&self, at: i64) -> jiff::ZonedDateTime {
        Timestamp::from_second(at)
            .unwrap_or(Timestamp::UNIX_EPOCH)
            .to_zoned_datetime(self.zone.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> i64 {
        text.parse::<Timestamp>().unwrap().as_second()
    }

    fn berlin(digest: Digest, quiet: Option<Quiet>) -> Schedule {
        Schedule {
            digest,
            quiet,
            zone: TimeZone::get("Europe/Berlin").unwrap(),
        }
    }

    const NIGHT: Quiet = Quiet {
        from: 22 * 60,
        until: 7 * 60,
    };

    #[test]
    fn each_goes_at_once_outside_quiet_hours() {
        let schedule = berlin(Digest::Each, Some(NIGHT));
        // 12:00 in Berlin (winter, UTC+1).
        let noon = at("2026-12-07T11:00:00Z");
        assert_eq!(schedule.due_at(noon, Some(noon - 10)), noon);
        // 23:30 in Berlin: held until 07:00 local.
        assert_eq!(
            schedule.due_at(at("2026-12-07T22:30:00Z"), None),
            at("2026-12-08T06:00:00Z")
        );
        // 06:59 local: a minute more.
        assert_eq!(
            schedule.due_at(at("2026-12-08T05:59:00Z"), None),
            at("2026-12-08T06:00:00Z")
        );
    }

    #[test]
    fn hourly_goes_an_hour_after_its_first_alert_and_the_last_message() {
        let schedule = berlin(Digest::Hourly, None);
        let first = at("2026-12-07T10:00:00Z");
        assert_eq!(schedule.due_at(first, None), first + 3600);
        assert_eq!(schedule.due_at(first, Some(first - 600)), first + 3600);
        assert_eq!(schedule.due_at(first, Some(first + 1800)), first + 5400);
    }

    #[test]
    fn daily_goes_at_the_local_hour_once_a_day() {
        let schedule = berlin(Digest::Daily { hour: 8 }, None);
        // 10:00 local: tomorrow 08:00 local (07:00 UTC in winter).
        let morning = at("2026-12-07T09:00:00Z");
        assert_eq!(schedule.due_at(morning, None), at("2026-12-08T07:00:00Z"));
        // 07:30 local: today.
        assert_eq!(
            schedule.due_at(at("2026-12-07T06:30:00Z"), None),
            at("2026-12-07T07:00:00Z")
        );
        // Sent at 08:00 today: an alert at 08:00:30 waits for tomorrow.
        let sent = at("2026-12-07T07:00:00Z");
        assert_eq!(
            schedule.due_at(sent + 30, Some(sent)),
            at("2026-12-08T07:00:00Z")
        );
    }

    #[test]
    fn quiet_hours_follow_the_wall_clock_across_daylight_saving_changes() {
        let schedule = berlin(Digest::Each, Some(NIGHT));
        // Spring forward: the night of 28–29 March 2026 (02:00 → 03:00 local). 07:00 local on
        // the 29th is 05:00 UTC (summer), though 06:00 UTC the day before.
        assert_eq!(
            schedule.due_at(at("2026-03-28T22:00:00Z"), None),
            at("2026-03-29T05:00:00Z")
        );
        assert_eq!(
            schedule.due_at(at("2026-03-27T22:00:00Z"), None),
            at("2026-03-28T06:00:00Z")
        );
        // Fall back: the night of 24–25 October 2026 (03:00 → 02:00 local): 07:00 local is
        // 06:00 UTC again (winter), an hour later in UTC than the morning before.
        assert_eq!(
            schedule.due_at(at("2026-10-24T21:00:00Z"), None),
            at("2026-10-25T06:00:00Z")
        );
        assert_eq!(
            schedule.due_at(at("2026-10-23T21:00:00Z"), None),
            at("2026-10-24T05:00:00Z")
        );
    }

    #[test]
    fn a_daily_hour_skipped_by_the_clock_change_goes_when_the_clock_jumps() {
        let schedule = berlin(Digest::Daily { hour: 2 }, None);
        // 02:00 does not exist in Berlin on 29 March 2026: the digest goes at 03:00 local
        // (01:00 UTC), the moment the clock jumps.
        assert_eq!(
            schedule.due_at(at("2026-03-28T12:00:00Z"), None),
            at("2026-03-29T01:00:00Z")
        );
    }

    #[test]
    fn quiet_hours_within_a_day_and_a_daily_digest_inside_them() {
        let schedule = Schedule {
            digest: Digest::Daily { hour: 13 },
            quiet: Some(Quiet {
                from: 12 * 60,
                until: 14 * 60 + 30,
            }),
            zone: TimeZone::get("America/New_York").unwrap(),
        };
        // 13:00 in New York falls in the quiet hours: 14:30 local (19:30 UTC in winter).
        assert_eq!(
            schedule.due_at(at("2026-12-07T15:00:00Z"), None),
            at("2026-12-07T19:30:00Z")
        );
    }
}
