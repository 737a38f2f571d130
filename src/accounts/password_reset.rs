//! Password reset by email. Asking for a link answers the same, in the same time, whether or
//! not an account has the address: the answer is given before anything is looked up, and the
//! letter is written afterwards. A reset link is single-use, expires within the hour, is
//! stored hashed and is bound to the verified address it went to; setting a new password with
//! it signs every session of the account out (refresh tokens revoked, personal tokens and
//! stream tickets deleted, access tokens issued before it refused) and tells the owner.

use std::net::IpAddr;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{AccountError, Accounts, check_password};
use crate::auth::refresh;
use crate::mail::{EmailAddress, Letter, Purpose, escape_html, html_link, html_page};
use crate::store::mail::ResetOutcome;

/// How long a reset link works.
pub const RESET_FOR_SECONDS: i64 = 3600;

/// Who forgot their password: the account's verified address, or its username.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "maya@example.com"}))]
pub struct ResetRequest {
    /// The account's verified address (every account with it is sent a link).
    #[schema(max_length = 254, format = "email")]
    pub email: Option<String>,
    /// Or its username (the link goes to its verified address).
    #[schema(max_length = 32)]
    pub username: Option<String>,
}

/// The answer to a request for a reset link: always the same.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"detail": "If an account has this verified address, a link to set a new password is on its way; it works for one hour."}))]
pub struct ResetRequested {
    /// In words.
    pub detail: &'static str,
}

/// A new password, with the token of a reset link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "q2V0m3n1bW9yZS1yYW5kb20tYnl0ZXMtaGVyZQ", "password": "a new horse battery"}))]
pub struct NewPassword {
    /// As the link carried it.
    #[schema(max_length = 128, pattern = "^[A-Za-z0-9_-]+$")]
    pub token: String,
    /// 8–256 characters.
    #[schema(min_length = 8, max_length = 256)]
    pub password: String,
}

const REQUESTED: &str = "If an account has this verified address, a link to set a new password is on its way; it works for one hour.";

impl Accounts {
    /// Asks for a reset link. Refused only for reasons that depend on the request alone (no
    /// mail on this server, a misshapen request, too many requests from this client or for
    /// this address or username); otherwise the same answer, and the letters, if any, are
    /// written after it.
    pub async fn request_reset(
        self: Arc<Self>,
        request: ResetRequest,
        client: Option<IpAddr>,
    ) -> Result<ResetRequested, AccountError> {
        self.require_mail()?;
        let wanted = match (request.email, request.username) {
            (Some(email), None) => {
                Wanted::Email(EmailAddress::parse(&email).map_err(AccountError::InvalidEmail)?)
            }
            (None, Some(username)) if (1..=32).contains(&username.len()) => {
                Wanted::Username(username)
            }
            (None, Some(_)) => return Err(AccountError::InvalidUsername),
            _ => return Err(AccountError::InvalidResetRequest),
        };
        let client = client.map(|ip| format!("ip:{ip}")).unwrap_or_default();
        let key = match &wanted {
            Wanted::Email(address) => format!("email:{}", address.key()),
            Wanted::Username(username) => format!("user:{}", username.to_lowercase()),
        };
        self.limits
            .resets
            .check(&[&client, &key])
            .map_err(|retry_after| AccountError::TooManyAttempts { retry_after })?;
        // Whether an account is found is decided from here on, out of the answer's way.
        tokio::spawn(async move {
            if let Err(error) = self.mail_resets(wanted).await {
                tracing::warn!(%error, "a password reset letter could not be written");
            }
        });
        Ok(ResetRequested { detail: REQUESTED })
    }

    /// Writes a reset link to each account `wanted` names that has a verified address, within
    /// each account's own allowance.
    async fn mail_resets(&self, wanted: Wanted) -> Result<(), AccountError> {
        let accounts = match wanted {
            Wanted::Email(address) => self.db.accounts_by_email(address.as_str()).await?,
            Wanted::Username(username) => match self.db.account_by_username(&username).await? {
                Some(account) => match self.db.account_email(&account.id).await? {
                    Some(email) if email.verified_at.is_some() && email.stopped.is_none() => {
                        vec![(account.id, account.username, email.email)]
                    }
                    _ => Vec::new(),
                },
                None => Vec::new(),
            },
        };
        let mut resets = Vec::new();
        for (account_id, username, email) in accounts {
            if self
                .limits
                .letters
                .check(&[&format!("reset:{account_id}")])
                .is_err()
            {
                continue;
            }
            let Ok(address) = EmailAddress::parse(&email) else {
                continue;
            };
            let (token, stored) = self.new_token("reset", &address, RESET_FOR_SECONDS);
            let letter = self.reset_letter(&account_id, &username, &address, &token);
            resets.push((account_id, stored, letter));
        }
        if !resets.is_empty() {
            self.db.queue_links(&resets, self.clock.now()).await?;
            self.mail.wake();
        }
        Ok(())
    }

    /// Sets a new password with a reset link's token; every session of the account ends.
    pub async fn reset_password(&self, request: NewPassword) -> Result<(), AccountError> {
        check_password(&request.password)?;
        let hash = refresh::hash(&request.token);
        let password_hash = self
            .passwords
            .hash(request.password)
            .await
            .map_err(AccountError::Hashing)?;
        let now = self.clock.now();
        let letter_for =
            |account_id: &str, email: &str| self.password_changed_letter(account_id, email);
        match self
            .db
            .reset_password(&hash, &password_hash, now, letter_for)
            .await?
        {
            ResetOutcome::Reset { account_id } => {
                self.liveness.tokens_refused_before(&account_id, now);
                self.personal.forget_account(&account_id);
                self.mail.wake();
                Ok(())
            }
            ResetOutcome::Invalid => Err(AccountError::InvalidEmailToken),
        }
    }

    fn reset_letter(
        &self,
        account_id: &str,
        username: &str,
        address: &EmailAddress,
        token: &str,
    ) -> Letter {
        let link = self.mail.link(&format!("/play/#reset-password={token}"));
        let text = format!(
            "Hello {username},\n\n\
             Someone asked to set a new password for your Kings Corner account \"{username}\". To choose one, open this link within an hour:\n\n\
             {link}\n\n\
             Setting it signs you out everywhere.\n\n\
             If you did not ask for this, ignore this letter: your password stays as it is.\n"
        );
        let html = html_page(
            "Set a new password",
            &[
                format!("Hello {},", escape_html(username)),
                format!(
                    "Someone asked to set a new password for your Kings Corner account <b>{}</b>. To choose one, open this link within an hour:",
                    escape_html(username)
                ),
                html_link(&link, "Set a new password"),
                "Setting it signs you out everywhere.".to_owned(),
                "If you did not ask for this, ignore this letter: your password stays as it is."
                    .to_owned(),
            ],
        );
        Letter {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            recipient: address.as_str().to_owned(),
            purpose: Purpose::Reset,
            subject: "Set a new password for Kings Corner".to_owned(),
            text,
            html,
            unsubscribe_url: None,
        }
    }

    fn password_changed_letter(&self, account_id: &str, email: &str) -> Letter {
        let text = "The password of your Kings Corner account was just changed with a link sent to this address, and every session was signed out.\n\n\
                    If this was you, there is nothing more to do. If it was not, someone can read your mail: secure your mailbox, then ask for a new link.\n";
        Letter {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            recipient: email.to_owned(),
            purpose: Purpose::PasswordChanged,
            subject: "Your Kings Corner password was changed".to_owned(),
            text: text.to_owned(),
            html: html_page(
                "Your password was changed",
                &[
                    "The password of your Kings Corner account was just changed with a link sent to this address, and every session was signed out.".to_owned(),
                    "If this was you, there is nothing more to do. If it was not, someone can read your mail: secure your mailbox, then ask for a new link.".to_owned(),
                ],
            ),
            unsubscribe_url: None,
        }
    }
}

/// Whose password is to be reset.
enum Wanted {
    Email(EmailAddress),
    Username(String),
}
