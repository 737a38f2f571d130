//! The outbox of letters (`outgoing_mail`, migration 0017) and an account's address and the
//! single-use tokens mailed to it (`accounts.email*`, `email_tokens`).
//!
//! A letter is written in the transaction of the change that causes it ([`queue_letter`]);
//! the sender claims due letters with a lease (on PostgreSQL `FOR UPDATE SKIP LOCKED`, so two
//! processes never claim the same one), sends, and records the outcome.

use sqlx::{AnyConnection, Row};

use super::work::Claim;
use super::{Db, StoreError};
use crate::store::query;

/// Why a letter is sent: the outbox's `purpose`, and the label of its metrics.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// A link that confirms an address.
    Verify,
    /// A link that sets a new password.
    Reset,
    /// The password was changed by a reset.
    PasswordChanged,
    /// The account's address was changed or removed (to the old address).
    EmailChanged,
    /// A player's alerts: one notification, or a digest of several.
    Alerts,
}

impl Purpose {
    /// As stored and labelled.
    pub const fn name(self) -> &'static str {
        match self {
            Purpose::Verify => "verify",
            Purpose::Reset => "reset",
            Purpose::PasswordChanged => "password_changed",
            Purpose::EmailChanged => "email_changed",
            Purpose::Alerts => "alerts",
        }
    }
}

/// A letter to one recipient: a subject, the same words as plain text and as HTML, and for
/// alerts the one-click unsubscribe link (RFC 8058).
#[derive(Clone, Debug)]
pub struct Letter {
    /// Its id (a UUID): the local part of its `Message-ID`, the same on every attempt.
    pub id: String,
    /// Whose account it concerns.
    pub account_id: String,
    /// Where it goes (checked for shape when the owner set it).
    pub recipient: String,
    /// Why.
    pub purpose: Purpose,
    /// The `Subject:`.
    pub subject: String,
    /// The `text/plain` part.
    pub text: String,
    /// The `text/html` part.
    pub html: String,
    /// `List-Unsubscribe`: a URL a POST to which turns these alerts off.
    pub unsubscribe_url: Option<String>,
}

/// A letter as the outbox holds it.
#[derive(Clone, Debug)]
pub struct OutgoingMail {
    /// UUID.
    pub id: String,
    /// Whose account it concerns.
    pub account_id: String,
    /// Where it goes.
    pub recipient: String,
    /// `verify`, `reset`, `password_changed`, `email_changed`, `alerts`.
    pub purpose: String,
    /// Its subject.
    pub subject: String,
    /// Its plain text.
    pub text_body: String,
    /// Its HTML.
    pub html_body: String,
    /// Its one-click unsubscribe URL, for alerts.
    pub unsubscribe_url: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Failed attempts so far.
    pub attempts: i64,
}

/// The account's address as its owner sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AccountEmail {
    /// As typed.
    pub email: String,
    /// When the owner followed the link (Unix seconds).
    pub verified_at: Option<i64>,
    /// When mail to it stopped, and why.
    pub stopped: Option<(i64, String)>,
}

/// A single-use token from a letter, as stored.
#[derive(Clone, Debug)]
pub struct EmailToken {
    /// Whose.
    pub account_id: String,
    /// `verify` or `reset`.
    pub purpose: String,
    /// The address it was sent to.
    pub email: String,
    /// Unix seconds.
    pub expires_at: i64,
    /// Set once spent.
    pub used_at: Option<i64>,
}

/// A token to store: its hash, purpose, address and expiry.
#[derive(Clone, Debug)]
pub struct NewEmailToken {
    /// Hex SHA-256 of the token.
    pub token_hash: String,
    /// `verify` or `reset`.
    pub purpose: &'static str,
    /// The address it goes to.
    pub email: String,
    /// Unix seconds.
    pub expires_at: i64,
}

/// What a reset did.
#[derive(Debug, PartialEq, Eq)]
pub enum ResetOutcome {
    /// The password was changed; every token of the account revoked.
    Reset {
        /// Whose.
        account_id: String,
    },
    /// The token is unknown, spent, expired, or its address is no longer the account's.
    Invalid,
}

const MAIL_COLUMNS: &str = "id, account_id, recipient, purpose, subject, text_body, html_body, \
                            unsubscribe_url, created_at, attempts";

fn mail_from_row(row: &sqlx::any::AnyRow) -> Result<OutgoingMail, sqlx::Error> {
    Ok(OutgoingMail {
        id: row.try_get("id")?,
        account_id: row.try_get("account_id")?,
        recipient: row.try_get("recipient")?,
        purpose: row.try_get("purpose")?,
        subject: row.try_get("subject")?,
        text_body: row.try_get("text_body")?,
        html_body: row.try_get("html_body")?,
        unsubscribe_url: row.try_get("unsubscribe_url")?,
        created_at: row.try_get("created_at")?,
        attempts: row.try_get("attempts")?,
    })
}

/// Writes `letter` into the outbox, due at once: in the caller's transaction.
pub(super) async fn queue_letter(
    connection: &mut AnyConnection,
    letter: &Letter,
    now: i64,
) -> Result<(), sqlx::Error> {
    query(
        "INSERT INTO outgoing_mail (id, account_id, recipient, purpose, subject, text_body, \
         html_body, unsubscribe_url, created_at, next_attempt_at) \
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9)",
    )
    .bind(&letter.id)
    .bind(&letter.account_id)
    .bind(&letter.recipient)
    .bind(letter.purpose.name())
    .bind(&letter.subject)
    .bind(&letter.text)
    .bind(&letter.html)
    .bind(&letter.unsubscribe_url)
    .bind(now)
    .execute(connection)
    .await?;
    Ok(())
}

impl Db {
    /// Claims, until `lease_until`, up to `limit` letters due at `now` that no other process
    /// holds.
    pub async fn claim_letters(
        &self,
        now: i64,
        lease_until: i64,
        limit: i64,
    ) -> Result<Vec<OutgoingMail>, StoreError> {
        let claim = Claim {
            table: "outgoing_mail",
            lease: "lease_until",
            due: "next_attempt_at <= $1",
            order: "next_attempt_at",
            returning: MAIL_COLUMNS,
        };
        let rows = self.claim_rows(claim, now, lease_until, limit).await?;
        Ok(rows.iter().map(mail_from_row).collect::<Result<_, _>>()?)
    }

    /// Extends this process's claims on these letters until `lease_until`.
    pub async fn renew_letters(&self, ids: &[String], lease_until: i64) -> Result<(), StoreError> {
        self.renew_leases("outgoing_mail", "lease_until", ids, lease_until)
            .await
    }

    /// Records that the SMTP server accepted a letter.
    pub async fn letter_sent(&self, id: &str, now: i64) -> Result<(), StoreError> {
        self.single(async |connection| {
            query(
                "UPDATE outgoing_mail SET sent_at = $2, next_attempt_at = NULL, lease_until = NULL \
                 WHERE id = $1",
            )
            .bind(id)
            .bind(now)
            .execute(connection)
            .await
        })
        .await?;
        Ok(())
    }

    /// Records a failed attempt and when to try again.
    pub async fn letter_retry(
        &self,
        id: &str,
        retry_at: i64,
        error: &str,
    ) -> Result<(), StoreError> {
        self.single(async |connection| {
            query(
                "UPDATE outgoing_mail SET attempts = attempts + 1, next_attempt_at = $2, \
                 lease_until = NULL, last_error = $3 WHERE id = $1",
            )
            .bind(id)
            .bind(retry_at)
            .bind(error)
            .execute(connection)
            .await
        })
        .await?;
        Ok(())
    }

    /// Gives a letter up; with `stop`, mail to its recipient stops too (the account's address,
    /// while it is still that address) and the letters waiting for it are given up with it.
    pub async fn letter_failed(
        &self,
        letter: &OutgoingMail,
        now: i64,
        error: &str,
        stop: bool,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query(
                "UPDATE outgoing_mail SET attempts = attempts + 1, failed_at = $2, \
                 next_attempt_at = NULL, lease_until = NULL, last_error = $3 WHERE id = $1",
            )
            .bind(&letter.id)
            .bind(now)
            .bind(error)
            .execute(&mut *transaction)
            .await?;
            if stop {
                query(
                    "UPDATE accounts SET email_stopped_at = $3, email_stopped_reason = $4 \
                     WHERE id = $1 AND LOWER(email) = LOWER($2)",
                )
                .bind(&letter.account_id)
                .bind(&letter.recipient)
                .bind(now)
                .bind(error)
                .execute(&mut *transaction)
                .await?;
                query(
                    "UPDATE outgoing_mail SET failed_at = $3, next_attempt_at = NULL, \
                     last_error = 'mail to this address stopped' \
                     WHERE account_id = $1 AND LOWER(recipient) = LOWER($2) \
                     AND next_attempt_at IS NOT NULL AND lease_until IS NULL",
                )
                .bind(&letter.account_id)
                .bind(&letter.recipient)
                .bind(now)
                .execute(&mut *transaction)
                .await?;
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Stops mail to `address` for every account that has it (a bounce reported after the
    /// SMTP server took a letter) and gives up the letters waiting for it; how many accounts.
    pub async fn stop_mail_to(
        &self,
        address: &str,
        reason: &str,
        now: i64,
    ) -> Result<u64, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let stopped = query(
                "UPDATE accounts SET email_stopped_at = $2, email_stopped_reason = $3 \
                 WHERE LOWER(email) = LOWER($1) AND deleted_at IS NULL",
            )
            .bind(address)
            .bind(now)
            .bind(reason)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
            query(
                "UPDATE outgoing_mail SET failed_at = $2, next_attempt_at = NULL, \
                 last_error = 'mail to this address stopped' \
                 WHERE LOWER(recipient) = LOWER($1) AND next_attempt_at IS NOT NULL AND lease_until IS NULL",
            )
            .bind(address)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            transaction.commit().await?;
            Ok::<_, StoreError>(stopped)
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Forgets letters sent or given up before `before` (their text holds links that are
    /// spent by then, and addresses).
    pub async fn forget_letters(&self, before: i64) -> Result<u64, StoreError> {
        let deleted = self
            .single(async |connection| {
                query("DELETE FROM outgoing_mail WHERE next_attempt_at IS NULL AND created_at < $1")
                    .bind(before)
                    .execute(connection)
                    .await
            })
            .await?;
        Ok(deleted.rows_affected())
    }

    /// The account's address, if it has one.
    pub async fn account_email(
        &self,
        account_id: &str,
    ) -> Result<Option<AccountEmail>, StoreError> {
        let row = self
            .read(async |connection| {
                query(
                    "SELECT email, email_verified_at, email_stopped_at, email_stopped_reason \
                     FROM accounts WHERE id = $1 AND deleted_at IS NULL",
                )
                .bind(account_id)
                .fetch_optional(connection)
                .await
            })
            .await?;
        let Some(row) = row else { return Ok(None) };
        let Some(email) = row.try_get::<Option<String>, _>("email")? else {
            return Ok(None);
        };
        let stopped_at: Option<i64> = row.try_get("email_stopped_at")?;
        let reason: Option<String> = row.try_get("email_stopped_reason")?;
        Ok(Some(AccountEmail {
            email,
            verified_at: row.try_get("email_verified_at")?,
            stopped: stopped_at.map(|at| (at, reason.unwrap_or_default())),
        }))
    }

    /// Sets (`Some`) or removes the account's address: unverified, mail to it not stopped;
    /// earlier verification links are spent; `token` and `letters` are written with it.
    pub async fn set_account_email(
        &self,
        account_id: &str,
        email: Option<&str>,
        token: Option<&NewEmailToken>,
        letters: &[Letter],
        now: i64,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            query(
                "UPDATE accounts SET email = $2, email_verified_at = NULL, email_stopped_at = NULL, \
                 email_stopped_reason = NULL WHERE id = $1",
            )
            .bind(account_id)
            .bind(email)
            .execute(&mut *transaction)
            .await?;
            query("DELETE FROM email_tokens WHERE account_id = $1")
                .bind(account_id)
                .execute(&mut *transaction)
                .await?;
            if let Some(token) = token {
                insert_token(&mut transaction, account_id, token, now).await?;
            }
            for letter in letters {
                queue_letter(&mut transaction, letter, now).await?;
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Spends a verification token: the account's address is verified (and mail to it starts
    /// again) if the token is good and was sent to the account's current address. Returns
    /// the account, or `None` for a bad token.
    pub async fn verify_email(
        &self,
        token_hash: &str,
        now: i64,
    ) -> Result<Option<String>, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let Some(token) = spend_token(&mut transaction, token_hash, "verify", now).await?
            else {
                return Ok::<_, StoreError>(None);
            };
            let verified = query(
                "UPDATE accounts SET email_verified_at = $3, email_stopped_at = NULL, \
                 email_stopped_reason = NULL WHERE id = $1 AND email = $2 AND deleted_at IS NULL",
            )
            .bind(&token.account_id)
            .bind(&token.email)
            .bind(now)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
            if verified == 0 {
                return Ok(None);
            }
            transaction.commit().await?;
            Ok(Some(token.account_id))
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// The accounts (id, username, address) whose verified address, mail not stopped, is
    /// `email` (compared without regard to case).
    pub async fn accounts_by_email(
        &self,
        email: &str,
    ) -> Result<Vec<(String, String, String)>, StoreError> {
        let rows = self
            .read(async |connection| {
                query(
                    "SELECT id, username, email FROM accounts WHERE LOWER(email) = LOWER($1) \
                     AND email_verified_at IS NOT NULL AND email_stopped_at IS NULL \
                     AND deleted_at IS NULL ORDER BY created_at",
                )
                .bind(email)
                .fetch_all(connection)
                .await
            })
            .await?;
        Ok(rows
            .iter()
            .map(|row| {
                Ok((
                    row.try_get("id")?,
                    row.try_get("username")?,
                    row.try_get("email")?,
                ))
            })
            .collect::<Result<_, sqlx::Error>>()?)
    }

    /// Stores tokens (verification or reset links) with the letters that carry them.
    pub async fn queue_links(
        &self,
        links: &[(String, NewEmailToken, Letter)],
        now: i64,
    ) -> Result<(), StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            for (account_id, token, letter) in links {
                insert_token(&mut transaction, account_id, token, now).await?;
                queue_letter(&mut transaction, letter, now).await?;
            }
            transaction.commit().await?;
            Ok::<_, StoreError>(())
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// Spends a reset token: sets the new password hash, revokes every refresh token, personal
    /// token and stream ticket of the account, refuses its access tokens issued before `now`,
    /// spends its other reset links, and writes `letter` (built for the token's account by
    /// `letter_for`), all in one transaction.
    pub async fn reset_password(
        &self,
        token_hash: &str,
        password_hash: &str,
        now: i64,
        letter_for: impl FnOnce(&str, &str) -> Letter,
    ) -> Result<ResetOutcome, StoreError> {
        self.timed(async {
            let mut transaction = self.begin_write().await?;
            let Some(token) = spend_token(&mut transaction, token_hash, "reset", now).await? else {
                return Ok::<_, StoreError>(ResetOutcome::Invalid);
            };
            let changed = query(
                "UPDATE accounts SET password_hash = $3, tokens_valid_from = $4 \
                 WHERE id = $1 AND LOWER(email) = LOWER($2) AND email_verified_at IS NOT NULL \
                 AND deleted_at IS NULL",
            )
            .bind(&token.account_id)
            .bind(&token.email)
            .bind(password_hash)
            .bind(now)
            .execute(&mut *transaction)
            .await?
            .rows_affected();
            if changed == 0 {
                return Ok(ResetOutcome::Invalid);
            }
            query(
                "UPDATE refresh_tokens SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL",
            )
            .bind(&token.account_id)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            for table in ["stream_tickets", "personal_tokens"] {
                query(&format!("DELETE FROM {table} WHERE account_id = $1"))
                    .bind(&token.account_id)
                    .execute(&mut *transaction)
                    .await?;
            }
            query(
                "UPDATE email_tokens SET used_at = $2 WHERE account_id = $1 AND purpose = 'reset' \
                 AND used_at IS NULL",
            )
            .bind(&token.account_id)
            .bind(now)
            .execute(&mut *transaction)
            .await?;
            let letter = letter_for(&token.account_id, &token.email);
            queue_letter(&mut transaction, &letter, now).await?;
            transaction.commit().await?;
            Ok(ResetOutcome::Reset {
                account_id: token.account_id,
            })
        })
        .await
        .map_err(StoreError::of_write)
    }

    /// When the account's access tokens start being good again (a reset refuses older ones);
    /// `None` for an account that does not exist.
    pub async fn tokens_valid_from(
        &self,
        account_id: &str,
    ) -> Result<Option<Option<i64>>, StoreError> {
        let row = self
            .single(async |connection| {
                query("SELECT tokens_valid_from FROM accounts WHERE id = $1 AND deleted_at IS NULL")
                    .bind(account_id)
                    .fetch_optional(connection)
                    .await
            })
            .await?;
        Ok(match row {
            Some(row) => Some(row.try_get("tokens_valid_from")?),
            None => None,
        })
    }
}

async fn insert_token(
    connection: &mut AnyConnection,
    account_id: &str,
    token: &NewEmailToken,
    now: i64,
) -> Result<(), sqlx::Error> {
    query("DELETE FROM email_tokens WHERE expires_at <= $1")
        .bind(now)
        .execute(&mut *connection)
        .await?;
    query(
        "INSERT INTO email_tokens (token_hash, account_id, purpose, email, created_at, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(&token.token_hash)
    .bind(account_id)
    .bind(token.purpose)
    .bind(&token.email)
    .bind(now)
    .bind(token.expires_at)
    .execute(connection)
    .await?;
    Ok(())
}

/// Marks a token of `purpose` used, if it is unused and unexpired at `now`; the token.
async fn spend_token(
    connection: &mut AnyConnection,
    token_hash: &str,
    purpose: &str,
    now: i64,
) -> Result<Option<EmailToken>, sqlx::Error> {
    let row = query(
        "UPDATE email_tokens SET used_at = $3 WHERE token_hash = $1 AND purpose = $2 \
         AND used_at IS NULL AND expires_at > $3 \
         RETURNING account_id, purpose, email, expires_at, used_at",
    )
    .bind(token_hash)
    .bind(purpose)
    .bind(now)
    .fetch_optional(connection)
    .await?;
    row.map(|row| {
        Ok(EmailToken {
            account_id: row.try_get("account_id")?,
            purpose: row.try_get("purpose")?,
            email: row.try_get("email")?,
            expires_at: row.try_get("expires_at")?,
            used_at: row.try_get("used_at")?,
        })
    })
    .transpose()
}
