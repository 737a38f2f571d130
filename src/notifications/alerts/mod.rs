//! Alerts: telling a player who has left the table, by email and by Web Push, what their
//! notifications say,
//! as their settings allow: which kinds, how often (each, at most hourly, or a daily digest at
//! a local hour), and not in their quiet hours, in their IANA time zone.
//!
//! The relay writes an alert for each notification an account wants, unless it is watching
//! live ([`super::presence`]); the [`composer`] turns a queue's alerts into one letter when the
//! [`schedule`] says they are due, and the mail outbox sends it. Each letter carries a
//! one-click unsubscribe link (RFC 8058) that turns its kinds off without logging in.
//!
//! # Layout
//! - this file: the settings players read and write, and unsubscribing;
//! - [`schedule`]: when a queue is due (pure, with `jiff`'s time zones);
//! - `composer`: the background round that writes the letters;
//! - `letters`: their words.

mod composer;
mod letters;
pub mod schedule;

use jiff::tz::TimeZone;
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::notice::KINDS;
use super::{NotificationError, Notifications};
use crate::auth::refresh;
use crate::store::alerts::AlertSettingsRow;
pub(super) use composer::Composer;
use schedule::{Digest, Quiet, Schedule};

/// Longest time-zone name accepted.
const MOST_ZONE_LENGTH: usize = 64;

/// How often letters go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "snake_case")]
pub enum DigestChoice {
    /// A letter for each notification as it comes.
    Each,
    /// At most one letter an hour: everything from an hour in one letter, sent an hour after
    /// the first of it.
    Hourly,
    /// One letter a day at `digest_hour`, local time.
    Daily,
}

/// Local quiet hours: no letter from `from` until `until` (wall-clock times in `time_zone`;
/// `from` after `until` spans midnight). What comes meanwhile goes when they end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"from": "22:00", "until": "07:30"}))]
pub struct QuietHours {
    /// `HH:MM`, 00:00–23:59.
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub from: String,
    /// `HH:MM`, 00:00–23:59.
    #[schema(pattern = "^([01][0-9]|2[0-3]):[0-5][0-9]$")]
    pub until: String,
}

/// What the account is told by email while away from the table, how often and when.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({
    "email": ["your_turn", "invited", "match_finished"],
    "push": ["your_turn"],
    "digest": "hourly",
    "digest_hour": 8,
    "quiet_hours": {"from": "22:00", "until": "07:30"},
    "time_zone": "Europe/Berlin"
}))]
pub struct AlertSettings {
    /// The notification types to be told of by email (`your_turn`, `deadline_near`,
    /// `invited`, `match_finished`, `rematch_offered`, …; see the account stream). Empty: no
    /// alerts by email. Needs a verified address.
    pub email: Vec<String>,
    /// The notification types to be told of by Web Push, on every device subscribed
    /// (`POST /v1/me/push-subscriptions`). Empty (the default): none.
    #[serde(default)]
    pub push: Vec<String>,
    /// How often letters go.
    pub digest: DigestChoice,
    /// With `daily`: the local hour (0–23) the day's letter goes at.
    #[schema(minimum = 0, maximum = 23)]
    pub digest_hour: u8,
    /// No letters in these local hours; `null`: none.
    pub quiet_hours: Option<QuietHours>,
    /// An IANA time zone (`Europe/Berlin`, `America/New_York`, `UTC`): the zone of
    /// `digest_hour`, `quiet_hours` and the times in letters.
    #[schema(max_length = 64, example = "Europe/Berlin")]
    pub time_zone: String,
}

/// What a one-click unsubscribe did.
#[derive(Debug, Serialize, ToSchema)]
pub struct Unsubscribed {
    /// The notification types no longer sent by email.
    pub turned_off: Vec<String>,
}

impl Notifications {
    /// The caller's alert settings.
    pub async fn alert_settings(
        &self,
        account_id: &str,
    ) -> Result<AlertSettings, NotificationError> {
        let row = self.db.alert_settings(account_id).await?;
        Ok(AlertSettings::from_row(&row))
    }

    /// Replaces the caller's alert settings.
    pub async fn set_alert_settings(
        &self,
        account_id: &str,
        settings: AlertSettings,
    ) -> Result<AlertSettings, NotificationError> {
        let row = settings.to_row()?;
        if !settings.email.is_empty() {
            if !self.mail.configured() {
                return Err(NotificationError::MailUnavailable);
            }
            let verified = self
                .db
                .account_email(account_id)
                .await?
                .is_some_and(|email| email.verified_at.is_some());
            if !verified {
                return Err(NotificationError::EmailNotVerified);
            }
        }
        self.db
            .put_alert_settings(account_id, &row, self.clock.now())
            .await?;
        self.alerts.wake();
        Ok(AlertSettings::from_row(&row))
    }

    /// Follows a letter's one-click unsubscribe link: its kinds are no longer sent by email.
    pub async fn unsubscribe(&self, token: &str) -> Result<Unsubscribed, NotificationError> {
        match self
            .db
            .unsubscribe(&refresh::hash(token), self.clock.now())
            .await?
        {
            Some(turned_off) => Ok(Unsubscribed { turned_off }),
            None => Err(NotificationError::UnknownUnsubscribeLink),
        }
    }
}

impl AlertSettings {
    fn from_row(row: &AlertSettingsRow) -> AlertSettings {
        let time = |minutes: i64| format!("{:02}:{:02}", minutes / 60, minutes % 60);
        AlertSettings {
            email: row
                .email_kinds
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            push: row
                .push_kinds
                .split_whitespace()
                .map(str::to_owned)
                .collect(),
            digest: match row.digest.as_str() {
                "hourly" => DigestChoice::Hourly,
                "daily" => DigestChoice::Daily,
                _ => DigestChoice::Each,
            },
            digest_hour: row.digest_hour.clamp(0, 23) as u8,
            quiet_hours: match (row.quiet_from, row.quiet_until) {
                (Some(from), Some(until)) => Some(QuietHours {
                    from: time(from),
                    until: time(until),
                }),
                _ => None,
            },
            time_zone: row.time_zone.clone(),
        }
    }

    /// The stored form, once every field is checked.
    fn to_row(&self) -> Result<AlertSettingsRow, NotificationError> {
        let invalid = |field: &'static str, detail: String| {
            NotificationError::InvalidAlertSettings { field, detail }
        };
        let kinds_of =
            |field: &'static str, named: &[String]| -> Result<String, NotificationError> {
                let mut kinds: Vec<&str> = Vec::new();
                for kind in named {
                    if !KINDS.contains(&kind.as_str()) {
                        return Err(invalid(
                            field,
                            format!(
                                "`{kind}` is not a notification type; the types are {}.",
                                KINDS.join(", ")
                            ),
                        ));
                    }
                    if !kinds.contains(&kind.as_str()) {
                        kinds.push(kind);
                    }
                }
                Ok(kinds.join(" "))
            };
        let email_kinds = kinds_of("email", &self.email)?;
        let push_kinds = kinds_of("push", &self.push)?;
        if self.digest_hour > 23 {
            return Err(invalid("digest_hour", "digest_hour is 0 to 23.".to_owned()));
        }
        if self.time_zone.len() > MOST_ZONE_LENGTH || TimeZone::get(&self.time_zone).is_err() {
            return Err(invalid(
                "time_zone",
                format!(
                    "`{}` is not an IANA time zone (such as Europe/Berlin, America/New_York or UTC).",
                    self.time_zone
                        .chars()
                        .take(MOST_ZONE_LENGTH)
                        .collect::<String>()
                ),
            ));
        }
        let (quiet_from, quiet_until) = match &self.quiet_hours {
            Some(quiet) => (
                Some(minutes(&quiet.from).ok_or_else(|| {
                    invalid(
                        "quiet_hours",
                        "quiet_hours.from is HH:MM, 00:00 to 23:59.".to_owned(),
                    )
                })?),
                Some(minutes(&quiet.until).ok_or_else(|| {
                    invalid(
                        "quiet_hours",
                        "quiet_hours.until is HH:MM, 00:00 to 23:59.".to_owned(),
                    )
                })?),
            ),
            None => (None, None),
        };
        Ok(AlertSettingsRow {
            email_kinds,
            push_kinds,
            digest: match self.digest {
                DigestChoice::Each => "each",
                DigestChoice::Hourly => "hourly",
                DigestChoice::Daily => "daily",
            }
            .to_owned(),
            digest_hour: i64::from(self.digest_hour),
            quiet_from,
            quiet_until,
            time_zone: self.time_zone.clone(),
        })
    }
}

/// `HH:MM` as minutes after midnight.
fn minutes(text: &str) -> Option<i64> {
    let (hours, minutes) = text.split_once(':')?;
    if hours.len() != 2 || minutes.len() != 2 {
        return None;
    }
    let hours: i64 = hours.parse().ok()?;
    let minutes: i64 = minutes.parse().ok()?;
    ((0..24).contains(&hours) && (0..60).contains(&minutes)).then_some(hours * 60 + minutes)
}

/// The schedule stored settings describe (UTC for a zone no longer known).
pub(super) fn schedule_of(row: &AlertSettingsRow) -> Schedule {
    Schedule {
        digest: match row.digest.as_str() {
            "hourly" => Digest::Hourly,
            "daily" => Digest::Daily {
                hour: row.digest_hour.clamp(0, 23) as i8,
            },
            _ => Digest::Each,
        },
        quiet: match (row.quiet_from, row.quiet_until) {
            (Some(from), Some(until)) => Some(Quiet {
                from: from as i16,
                until: until as i16,
            }),
            _ => None,
        },
        zone: TimeZone::get(&row.time_zone).unwrap_or(TimeZone::UTC),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_of_day_are_hh_mm() {
        assert_eq!(minutes("00:00"), Some(0));
        assert_eq!(minutes("22:30"), Some(1350));
        assert_eq!(minutes("23:59"), Some(1439));
        for bad in ["24:00", "7:00", "07:60", "0700", "07:00:00", "", "-1:00"] {
            assert_eq!(minutes(bad), None, "{bad}");
        }
    }
}
