//! Personal access tokens: long-lived, scoped tokens for bots, command-line clients and
//! integrations, so that none of them needs the account's password. Shown once, stored as a
//! hash, listed with their last use, revocable.
//!
//! A token found valid is remembered for [`REMEMBERED_FOR`]: revoking one takes effect at once
//! in the process that revoked it, and within that time in the others on the same database.
//! "At once" holds against a first use racing the revocation too: a token read from the database
//! is remembered only if no revocation happened since the read began (see [`Remembered`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

use super::{AccountError, Accounts, Credentials};
use crate::auth::{Scope, Scopes, personal};
use crate::store::personal_tokens::PersonalToken;

/// How long a token found valid is taken to be valid without asking the database again.
pub const REMEMBERED_FOR: Duration = Duration::from_secs(5);

/// Most tokens remembered before the memory starts over.
const MOST_REMEMBERED: usize = 10_000;

/// Most tokens one account may have.
pub const MOST_PER_ACCOUNT: usize = 50;

/// Longest lifetime a token may be given, in days.
const LONGEST_DAYS: u32 = 3650;

/// How stale a token's `last_used_at` may get before it is written again.
const LAST_USE_RESOLUTION: i64 = 60;

/// A token to create.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"name": "my bot", "scopes": ["play", "read"], "expires_in_days": 90}))]
pub struct NewToken {
    /// A name to know it by (1–64 characters, not only spaces).
    #[schema(
        min_length = 1,
        max_length = 64,
        pattern = r"^[^\u0000]*[^\s\u0000][^\u0000]*$"
    )]
    pub name: String,
    /// What it may do: any of `play`, `read`, `webhooks`, `account` (at least one, and none
    /// the token creating it lacks).
    #[schema(min_items = 1)]
    pub scopes: Vec<String>,
    /// Days until it stops working (1–3650); without it, it works until revoked.
    #[schema(minimum = 1, maximum = 3650)]
    pub expires_in_days: Option<u32>,
}

/// A token as its owner sees it in the list (never the token itself).
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "9d1c2b3a-4e5f-4a6b-8c7d-0e1f2a3b4c5d", "name": "my bot", "scopes": ["play", "read"],
    "created_at": "2026-11-18T11:06:40Z", "expires_at": "2027-02-16T11:06:40Z", "last_used_at": "2026-11-18T12:06:40Z"
}))]
pub struct TokenView {
    /// Its id (to revoke it).
    #[schema(format = Uuid)]
    pub id: String,
    /// Its name.
    pub name: String,
    /// What it may do.
    pub scopes: Vec<String>,
    /// When (RFC 3339).
    #[serde(with = "crate::time_source::as_rfc3339")]
    #[schema(value_type = String, format = DateTime)]
    pub created_at: i64,
    /// When it stops working (RFC 3339); `null`: when revoked.
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub expires_at: Option<i64>,
    /// When it was last used (RFC 3339, to the minute); `null`: never.
    #[serde(with = "crate::time_source::as_rfc3339::option")]
    #[schema(value_type = Option<String>, format = DateTime)]
    pub last_used_at: Option<i64>,
}

/// A token just created: the token itself is in this answer only.
#[derive(Serialize, ToSchema)]
pub struct CreatedToken {
    /// The token's details.
    #[serde(flatten)]
    pub details: TokenView,
    /// `kcp_…`: send as `Authorization: Bearer kcp_…`. Shown this once.
    pub token: String,
}

/// The caller's tokens.
#[derive(Serialize, ToSchema)]
pub struct TokenList {
    /// Newest first.
    pub tokens: Vec<TokenView>,
}

/// Personal tokens found valid lately, by hash, and how many revocations this process has seen.
/// A reader notes the count ([`Remembered::generation`]) before it reads a token from the
/// database and remembers the token only if the count is unchanged: a revocation that came in
/// between may have deleted the row after the read, and remembering the token then would bring
/// it back for [`REMEMBERED_FOR`].
#[derive(Debug, Default)]
pub(super) struct Remembered(Mutex<Memory>);

#[derive(Debug, Default)]
struct Memory {
    tokens: HashMap<String, (PersonalToken, Instant)>,
    revocations: u64,
}

impl Remembered {
    fn memory(&self) -> std::sync::MutexGuard<'_, Memory> {
        self.0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn get(&self, hash: &str) -> Option<PersonalToken> {
        self.memory()
            .tokens
            .get(hash)
            .filter(|(_, checked)| checked.elapsed() < REMEMBERED_FOR)
            .map(|(token, _)| token.clone())
    }

    /// The last use of the token with `hash` this process has seen (its write to the database
    /// may still be on the way).
    fn last_use(&self, hash: &str) -> Option<i64> {
        self.memory()
            .tokens
            .get(hash)
            .and_then(|(token, _)| token.last_used_at)
    }

    /// How many revocations this process has seen: note it before reading a token.
    fn generation(&self) -> u64 {
        self.memory().revocations
    }

    /// Remembers `token`, read when the count of revocations was `generation`, unless a
    /// revocation came since.
    fn put(&self, token: PersonalToken, generation: u64) {
        let mut memory = self.memory();
        if memory.revocations != generation {
            return;
        }
        if memory.tokens.len() >= MOST_REMEMBERED {
            memory.tokens.clear();
        }
        memory
            .tokens
            .insert(token.token_hash.clone(), (token, Instant::now()));
    }

    /// Forgets every token of an account (a password reset deleted them).
    pub(super) fn forget_account(&self, account_id: &str) {
        let mut memory = self.memory();
        memory.revocations += 1;
        memory
            .tokens
            .retain(|_, (token, _)| token.account_id != account_id);
    }

    fn forget(&self, id: &str) {
        let mut memory = self.memory();
        memory.revocations += 1;
        memory.tokens.retain(|_, (token, _)| token.id != id);
    }
}

impl From<PersonalToken> for TokenView {
    fn from(token: PersonalToken) -> TokenView {
        TokenView {
            id: token.id,
            name: token.name,
            scopes: token.scopes.split_whitespace().map(str::to_owned).collect(),
            created_at: token.created_at,
            expires_at: token.expires_at,
            last_used_at: token.last_used_at,
        }
    }
}

impl Accounts {
    /// The credentials of a personal access token, if it is known and has not expired.
    pub(super) async fn authenticate_personal(
        &self,
        token: &str,
    ) -> Result<Credentials, AccountError> {
        let hash = personal::hash(token);
        let generation = self.personal.generation();
        let stored = match self.personal.get(&hash) {
            Some(stored) => stored,
            None => {
                let stored = self
                    .db
                    .personal_token(&hash)
                    .await?
                    .ok_or(AccountError::InvalidToken)?;
                self.personal.put(stored.clone(), generation);
                stored
            }
        };
        let now = self.clock.now();
        if stored
            .expires_at
            .is_some_and(|expires_at| expires_at <= now)
        {
            return Err(AccountError::InvalidToken);
        }
        if stored
            .last_used_at
            .is_none_or(|used| now - used >= LAST_USE_RESOLUTION)
        {
            self.note_use(stored.clone(), now, generation);
        }
        let scopes = Scopes::from_stored(&stored.scopes)
            .ok_or_else(|| AccountError::Corrupt(format!("scopes `{}`", stored.scopes)))?;
        Ok(Credentials {
            account_id: stored.account_id,
            scopes,
            token_id: Some(stored.id),
        })
    }

    /// Writes a token's last use, off the request's path.
    fn note_use(&self, mut token: PersonalToken, now: i64, generation: u64) {
        token.last_used_at = Some(now);
        self.personal.put(token.clone(), generation);
        let db = self.db.clone();
        tokio::spawn(async move {
            if let Err(error) = db.touch_personal_token(&token.id, now).await {
                tracing::debug!(%error, "a token's last use was not written");
            }
        });
    }

    /// Creates a personal access token for the caller, with at most the caller's scopes.
    pub async fn create_token(
        &self,
        caller: &Credentials,
        request: NewToken,
    ) -> Result<CreatedToken, AccountError> {
        let invalid = |field, detail: String| AccountError::InvalidTokenRequest { field, detail };
        let name = request.name.trim().to_owned();
        if !(1..=64).contains(&name.chars().count()) {
            return Err(invalid("name", "a name is 1 to 64 characters".into()));
        }
        let mut scopes = Vec::new();
        for name in &request.scopes {
            scopes.push(Scope::parse(name).ok_or_else(|| {
                invalid(
                    "scopes",
                    format!("`{name}` is not a scope: play, read, webhooks or account"),
                )
            })?);
        }
        let scopes: Scopes = scopes.into_iter().collect();
        if scopes.is_empty() {
            return Err(invalid("scopes", "name at least one scope".into()));
        }
        if let Some(missing) = scopes.iter().find(|scope| !caller.scopes.contains(*scope)) {
            return Err(AccountError::InsufficientScope(missing));
        }
        let days = request.expires_in_days;
        if days.is_some_and(|days| !(1..=LONGEST_DAYS).contains(&days)) {
            return Err(invalid("expires_in_days", "1 to 3650 days".into()));
        }
        let token = personal::generate();
        let now = self.clock.now();
        let stored = PersonalToken {
            id: uuid::Uuid::new_v4().to_string(),
            account_id: caller.account_id.clone(),
            name,
            token_hash: personal::hash(&token),
            scopes: scopes.to_stored(),
            created_at: now,
            expires_at: days.map(|days| now + i64::from(days) * 86_400),
            last_used_at: None,
        };
        if !self
            .db
            .insert_personal_token(&stored, MOST_PER_ACCOUNT)
            .await?
        {
            return Err(AccountError::TooManyTokens(MOST_PER_ACCOUNT));
        }
        Ok(CreatedToken {
            details: stored.into(),
            token,
        })
    }

    /// The caller's personal access tokens.
    pub async fn tokens(&self, account_id: &str) -> Result<TokenList, AccountError> {
        let mut tokens = self.db.personal_tokens_of(account_id).await?;
        // A use is written off the request's path: the listing right after it shows it too.
        for token in &mut tokens {
            token.last_used_at = token
                .last_used_at
                .max(self.personal.last_use(&token.token_hash));
        }
        Ok(TokenList {
            tokens: tokens.into_iter().map(TokenView::from).collect(),
        })
    }

    /// Revokes one of the caller's personal access tokens, and the stream tickets it minted.
    pub async fn revoke_token(&self, account_id: &str, id: &str) -> Result<(), AccountError> {
        if !self.db.delete_personal_token(account_id, id).await? {
            return Err(AccountError::TokenNotFound);
        }
        self.personal.forget(id);
        Ok(())
    }
}
