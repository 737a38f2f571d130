//! Access tokens: HS256 JWTs with the algorithm pinned and `exp`, `iat`, `iss`, `aud`, `sub` and
//! a token type all required, so nothing but an access token of this server passes.

use std::collections::HashMap;
use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};

use super::sealing::{self, KeyEncryptionKey, SealError};
use crate::store::{Db, StoreError};

/// Why the signing keys could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum KeysError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A stored key could not be opened.
    #[error(transparent)]
    Sealed(#[from] SealError),
}

/// The `iss` of every token.
pub const ISSUER: &str = "kings-corner";
/// The `aud` of every access token.
pub const AUDIENCE: &str = "kings-corner-api";
/// The `typ` claim of an access token.
pub const ACCESS: &str = "access";

/// The claims of an access token.
#[derive(Debug, Serialize, Deserialize)]
pub struct Claims {
    /// The account the token speaks for.
    pub sub: String,
    /// Always [`ISSUER`].
    pub iss: String,
    /// Always [`AUDIENCE`].
    pub aud: String,
    /// Issued at (Unix seconds).
    pub iat: i64,
    /// Expires at (Unix seconds).
    pub exp: i64,
    /// Token type: always `access`.
    pub typ: String,
}

/// The signing key in use and every key that still verifies.
#[derive(Clone)]
pub struct TokenKeys {
    signing_kid: String,
    encoding: Arc<EncodingKey>,
    decoding: Arc<HashMap<String, DecodingKey>>,
    ttl_seconds: i64,
}

impl std::fmt::Debug for TokenKeys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print key material.
        f.debug_struct("TokenKeys")
            .field("signing_kid", &self.signing_kid)
            .finish_non_exhaustive()
    }
}

impl TokenKeys {
    /// The configured secret, or the keys kept in the database (one is generated on first
    /// start, at `now`). With a key encryption key, keys are stored sealed, and any stored in
    /// the clear are sealed now.
    pub async fn load(
        db: &Db,
        configured: Option<&str>,
        kek: Option<&KeyEncryptionKey>,
        ttl_seconds: u64,
        now: i64,
    ) -> Result<TokenKeys, KeysError> {
        let keys: Vec<(String, Vec<u8>)> = match configured {
            Some(secret) => vec![("configured".to_owned(), secret.as_bytes().to_vec())],
            None => {
                let key = crate::random::bytes::<32>();
                let stored = match kek {
                    Some(kek) => kek.seal(&key),
                    None => STANDARD.encode(key),
                };
                db.insert_signing_key_if_absent("k1", &stored, now).await?;
                let mut keys = Vec::new();
                for (kid, stored) in db.signing_keys().await? {
                    let key = sealing::open(&stored, kek)?;
                    if let Some(kek) = kek
                        && !sealing::is_sealed(&stored)
                    {
                        db.replace_signing_key(&kid, &kek.seal(&key)).await?;
                    }
                    keys.push((kid, key));
                }
                keys
            }
        };
        let (signing_kid, signing_secret) = keys.first().cloned().expect("at least one key");
        Ok(TokenKeys {
            signing_kid,
            encoding: Arc::new(EncodingKey::from_secret(&signing_secret)),
            decoding: Arc::new(
                keys.iter()
                    .map(|(kid, secret)| (kid.clone(), DecodingKey::from_secret(secret)))
                    .collect(),
            ),
            ttl_seconds: ttl_seconds as i64,
        })
    }

    /// Lifetime of access tokens in seconds.
    pub fn ttl_seconds(&self) -> i64 {
        self.ttl_seconds
    }

    /// Issues an access token for an account.
    pub fn issue(&self, account_id: &str, now: i64) -> String {
        let claims = Claims {
            sub: account_id.to_owned(),
            iss: ISSUER.to_owned(),
            aud: AUDIENCE.to_owned(),
            iat: now,
            exp: now + self.ttl_seconds,
            typ: ACCESS.to_owned(),
        };
        let header = Header {
            kid: Some(self.signing_kid.clone()),
            ..Header::new(Algorithm::HS256)
        };
        jsonwebtoken::encode(&header, &claims, &self.encoding).expect("HS256 signing cannot fail")
    }

    /// The account id of a valid access token; `None` for anything else.
    pub fn verify(&self, token: &str) -> Option<String> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        if header.alg != Algorithm::HS256 {
            return None;
        }
        let key = self.decoding.get(header.kid.as_deref()?)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.leeway = 5;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation).ok()?;
        (data.claims.typ == ACCESS).then_some(data.claims.sub)
    }
}
