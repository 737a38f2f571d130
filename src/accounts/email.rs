//! An email address on the account: set (with the password, since the address can reset it),
//! verified by a single-use link bound to the address, removed; the old address is told when
//! it changes. The address is shown to its owner only (`GET /v1/me`), and never logged.

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{AccountError, Accounts};
use crate::auth::refresh;
use crate::mail::address::redact;
use crate::mail::{EmailAddress, Letter, Purpose, html_link, html_page};
use crate::store::mail::{AccountEmail, NewEmailToken};
use crate::time_source::rfc3339;

/// How long a verification link works.
pub const VERIFY_FOR_SECONDS: i64 = 24 * 3600;

/// A new address for the caller's account, confirmed with its password.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"email": "maya@example.com", "password": "correct horse battery"}))]
pub struct NewEmail {
    /// The address: `name@example.com`, at most 254 characters, checked for shape only.
    #[schema(max_length = 254, format = "email")]
    pub email: String,
    /// The account's password: the address can reset it.
    pub password: String,
}

/// The caller's password, to remove the address.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"password": "correct horse battery"}))]
pub struct RemoveEmail {
    /// The account's password.
    pub password: String,
}

/// A token from a letter's link.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"token": "q2V0m3n1bW9yZS1yYW5kb20tYnl0ZXMtaGVyZQ"}))]
pub struct EmailTokenRequest {
    /// As the link carried it (base64url).
    #[schema(max_length = 128, pattern = "^[A-Za-z0-9_-]+$")]
    pub token: String,
}

/// The account's address, as its owner sees it.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"address": "maya@example.com", "verified": true, "verified_at": "2026-12-06T10:00:00Z", "stopped": null}))]
pub struct EmailView {
    /// As typed.
    pub address: String,
    /// Whether its owner followed the verification link; only a verified address receives
    /// alerts and password resets.
    pub verified: bool,
    /// When (RFC 3339).
    #[schema(format = DateTime)]
    pub verified_at: Option<String>,
    /// Why mail to it stopped (a bounce or a permanent refusal), if it did: verify it again
    /// (`POST /v1/me/email/verification`) to start it again.
    pub stopped: Option<String>,
}

impl From<AccountEmail> for EmailView {
    fn from(email: AccountEmail) -> EmailView {
        EmailView {
            address: email.email,
            verified: email.verified_at.is_some(),
            verified_at: email.verified_at.map(rfc3339),
            stopped: email.stopped.map(|(_, reason)| reason),
        }
    }
}

impl Accounts {
    /// Sets the caller's address (unverified) once `password` is confirmed, and mails a
    /// verification link to it; a verified address it replaces is told.
    pub async fn set_email(
        &self,
        account_id: &str,
        request: NewEmail,
    ) -> Result<EmailView, AccountError> {
        self.require_mail()?;
        let address = EmailAddress::parse(&request.email).map_err(AccountError::InvalidEmail)?;
        self.confirm_password(account_id, request.password).await?;
        self.limit_letters(account_id, &address)?;
        let account = self.account(account_id).await?;
        let previous = self.db.account_email(account_id).await?;
        let now = self.clock.now();
        let (token, new_token) = self.new_token("verify", &address, VERIFY_FOR_SECONDS);
        let mut letters =
            vec![self.verification_letter(account_id, &account.username, &address, &token)];
        if let Some(previous) = previous.filter(|previous| {
            previous.verified_at.is_some() && previous.email.to_lowercase() != address.key()
        }) {
            letters.push(self.email_changed_letter(
                account_id,
                &account.username,
                &previous.email,
                Some(&address),
            ));
        }
        self.db
            .set_account_email(
                account_id,
                Some(address.as_str()),
                Some(&new_token),
                &letters,
                now,
            )
            .await?;
        self.mail.wake();
        Ok(EmailView {
            address: address.as_str().to_owned(),
            verified: false,
            verified_at: None,
            stopped: None,
        })
    }

    /// Removes the caller's address once `password` is confirmed (a verified one is told).
    pub async fn remove_email(
        &self,
        account_id: &str,
        password: String,
    ) -> Result<(), AccountError> {
        self.confirm_password(account_id, password).await?;
        let account = self.account(account_id).await?;
        let Some(previous) = self.db.account_email(account_id).await? else {
            return Ok(());
        };
        let mut letters = Vec::new();
        if previous.verified_at.is_some() && self.mail.configured() {
            letters.push(self.email_changed_letter(
                account_id,
                &account.username,
                &previous.email,
                None,
            ));
        }
        self.db
            .set_account_email(account_id, None, None, &letters, self.clock.now())
            .await?;
        self.mail.wake();
        Ok(())
    }

    /// Mails another verification link to the caller's address (after a lost letter, an
    /// expired link, or mail that stopped).
    pub async fn resend_verification(&self, account_id: &str) -> Result<EmailView, AccountError> {
        self.require_mail()?;
        let Some(current) = self.db.account_email(account_id).await? else {
            return Err(AccountError::NoEmail);
        };
        if current.verified_at.is_some() && current.stopped.is_none() {
            return Ok(current.into());
        }
        let address = EmailAddress::parse(&current.email).map_err(AccountError::InvalidEmail)?;
        self.limit_letters(account_id, &address)?;
        let account = self.account(account_id).await?;
        let (token, new_token) = self.new_token("verify", &address, VERIFY_FOR_SECONDS);
        let letter = self.verification_letter(account_id, &account.username, &address, &token);
        let link = (account_id.to_owned(), new_token, letter);
        self.db.queue_links(&[link], self.clock.now()).await?;
        self.mail.wake();
        Ok(current.into())
    }

    /// Spends a verification link's token: the address it was sent to is verified, if it is
    /// still the account's.
    pub async fn verify_email(&self, request: EmailTokenRequest) -> Result<(), AccountError> {
        let hash = refresh::hash(&request.token);
        match self.db.verify_email(&hash, self.clock.now()).await? {
            Some(_) => Ok(()),
            None => Err(AccountError::InvalidEmailToken),
        }
    }

    /// The caller's address, if any.
    pub async fn email(&self, account_id: &str) -> Result<Option<EmailView>, AccountError> {
        Ok(self
            .db
            .account_email(account_id)
            .await?
            .map(EmailView::from))
    }

    /// Refuses when the server sends no mail.
    pub(super) fn require_mail(&self) -> Result<(), AccountError> {
        if self.mail.configured() {
            Ok(())
        } else {
            Err(AccountError::MailUnavailable)
        }
    }

    /// Counts a letter to `address` for `account_id` against their hourly allowances.
    fn limit_letters(&self, account_id: &str, address: &EmailAddress) -> Result<(), AccountError> {
        self.limits
            .letters
            .check(&[
                &format!("account:{account_id}"),
                &format!("email:{}", address.key()),
            ])
            .map_err(|retry_after| AccountError::TooManyAttempts { retry_after })
    }

    /// A fresh token for a letter, and its stored form.
    pub(super) fn new_token(
        &self,
        purpose: &'static str,
        address: &EmailAddress,
        lasts: i64,
    ) -> (String, NewEmailToken) {
        let token = refresh::generate();
        let stored = NewEmailToken {
            token_hash: refresh::hash(&token),
            purpose,
            email: address.as_str().to_owned(),
            expires_at: self.clock.now() + lasts,
        };
        (token, stored)
    }

    fn verification_letter(
        &self,
        account_id: &str,
        username: &str,
        address: &EmailAddress,
        token: &str,
    ) -> Letter {
        // The token rides in the fragment: browsers never send it to a server, so it stays
        // out of access logs; the web client posts it.
        let link = self.mail.link(&format!("/play/#verify-email={token}"));
        let text = format!(
            "Hello {username},\n\n\
             Please confirm that this is your address for your Kings Corner account \"{username}\" by opening this link within 24 hours:\n\n\
             {link}\n\n\
             Once it is confirmed you can choose which alerts to receive here, and reset your password by email if you forget it.\n\n\
             If you did not ask for this, ignore this letter: nothing changes until the link is opened.\n"
        );
        let html = html_page(
            "Confirm your address",
            &[
                format!("Hello {},", crate::mail::escape_html(username)),
                format!(
                    "Please confirm that this is your address for your Kings Corner account <b>{}</b> within 24 hours:",
                    crate::mail::escape_html(username)
                ),
                html_link(&link, "Confirm my address"),
                "Once it is confirmed you can choose which alerts to receive here, and reset your password by email if you forget it.".to_owned(),
                "If you did not ask for this, ignore this letter: nothing changes until the link is opened.".to_owned(),
            ],
        );
        Letter {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            recipient: address.as_str().to_owned(),
            purpose: Purpose::Verify,
            subject: "Confirm your address for Kings Corner".to_owned(),
            text,
            html,
            unsubscribe_url: None,
        }
    }

    /// To the old address: the account's address changed (to `new`, shown redacted) or was
    /// removed.
    fn email_changed_letter(
        &self,
        account_id: &str,
        username: &str,
        old: &str,
        new: Option<&EmailAddress>,
    ) -> Letter {
        let what = match new {
            Some(new) => format!(
                "The address of your Kings Corner account \"{username}\" was changed to {}.",
                new.redacted()
            ),
            None => format!("The address of your Kings Corner account \"{username}\" was removed."),
        };
        let advice = "If you did this, there is nothing more to do. If you did not, someone who knows your password did: log in, change your password and set your address again.";
        Letter {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: account_id.to_owned(),
            recipient: old.to_owned(),
            purpose: Purpose::EmailChanged,
            subject: "Your Kings Corner address changed".to_owned(),
            text: format!(
                "Hello {username},\n\n{what}\n\n{advice}\n\nThis address ({}) receives no more mail from us.\n",
                redact(old)
            ),
            html: html_page(
                "Your address changed",
                &[
                    format!("Hello {},", crate::mail::escape_html(username)),
                    crate::mail::escape_html(&what),
                    advice.to_owned(),
                    "This address receives no more mail from us.".to_owned(),
                ],
            ),
            unsubscribe_url: None,
        }
    }
}
