//! Stream tickets: a browser's `EventSource` cannot send an `Authorization` header, so a page
//! asks for a ticket (with its token, as for any request) and opens the stream with
//! `?ticket=…`. A ticket is single-use, lives [`TICKET_SECONDS`], and only reads: a long-lived
//! token never has to appear in a URL, where histories and proxies keep them.

use serde::Serialize;
use utoipa::ToSchema;

use super::{AccountError, Accounts, Credentials};
use crate::auth::{Scope, Scopes, refresh};
use crate::time_source::rfc3339;

/// How long a ticket is valid, in seconds.
pub const TICKET_SECONDS: i64 = 60;

/// What every stream ticket starts with.
const PREFIX: &str = "kct_";

/// A ticket, shown once.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"ticket": "kct_3q2-Vb8wX0cK1mPq7rT5uYz9aLs4dF6gHj2kN8pQeW0", "expires_at": "2026-11-30T12:01:00Z"}))]
pub struct StreamTicket {
    /// Pass as `?ticket=` to `GET /v1/matches/{id}/stream` or `GET /v1/me/stream`, once.
    pub ticket: String,
    /// When it stops working (RFC 3339): a minute from now.
    #[schema(format = DateTime)]
    pub expires_at: String,
}

impl Accounts {
    /// A new ticket for the caller's streams. A ticket minted by a personal access token is
    /// revoked with that token; every ticket of an account goes when the account is deleted.
    pub async fn issue_stream_ticket(
        &self,
        caller: &Credentials,
    ) -> Result<StreamTicket, AccountError> {
        let ticket = format!("{PREFIX}{}", crate::random::token::<32>());
        let now = self.clock.now();
        let expires_at = now + TICKET_SECONDS;
        self.db
            .insert_stream_ticket(
                &refresh::hash(&ticket),
                &caller.account_id,
                caller.token_id.as_deref(),
                expires_at,
                now,
            )
            .await?;
        Ok(StreamTicket {
            ticket,
            expires_at: rfc3339(expires_at),
        })
    }

    /// Uses up a ticket: the caller it stands for, who may only read.
    pub async fn redeem_stream_ticket(&self, ticket: &str) -> Result<Credentials, AccountError> {
        let account_id = self
            .db
            .redeem_stream_ticket(&refresh::hash(ticket), self.clock.now())
            .await?
            .ok_or(AccountError::InvalidStreamTicket)?;
        Ok(Credentials {
            account_id,
            scopes: Scopes::from_iter([Scope::Read]),
            token_id: None,
        })
    }
}
