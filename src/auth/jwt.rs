//! Access tokens: HS256 JWTs with the algorithm pinned and `exp`, `iat`, `iss`, `aud`, `sub` and
//! a token type all required, so nothing but an access token of this server passes.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use jsonwebtoken::{Algorithm, DecodingKey, EncodingKey, Header, Validation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// Seconds a token is still accepted after its `exp` (clocks of other servers drift).
const LEEWAY_SECONDS: u64 = 5;

/// Most verified tokens kept (about 100 bytes each) before the list starts again.
const MOST_VERIFIED: usize = 10_000;

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
    verified: Arc<VerifiedTokens>,
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
            verified: Arc::default(),
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
        self.verify_issued(token).map(|(account_id, _)| account_id)
    }

    /// [`Self::verify`], with when the token was issued (its `iat`): a password reset refuses
    /// the account's tokens issued before it.
    pub fn verify_issued(&self, token: &str) -> Option<(String, i64)> {
        self.verify_at(token, jsonwebtoken::get_current_timestamp())
    }

    /// [`Self::verify`] with the kept tokens' expiry judged at `now` (Unix seconds; a token
    /// seen for the first time is judged by `jsonwebtoken` at the system's time).
    fn verify_at(&self, token: &str, now: u64) -> Option<(String, i64)> {
        let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
        if let Some(kept) = self.verified.account(&digest, now) {
            // Expired, it stays expired: its `exp` is signed.
            return kept;
        }
        let claims = self.check_signature_and_claims(token)?;
        self.verified.keep(digest, &claims);
        Some((claims.sub, claims.iat))
    }

    /// The whole check of a token: its header, signature, and every claim.
    fn check_signature_and_claims(&self, token: &str) -> Option<Claims> {
        let header = jsonwebtoken::decode_header(token).ok()?;
        if header.alg != Algorithm::HS256 {
            return None;
        }
        let key = self.decoding.get(header.kid.as_deref()?)?;
        let mut validation = Validation::new(Algorithm::HS256);
        validation.set_required_spec_claims(&["exp", "iat", "iss", "aud", "sub"]);
        validation.set_issuer(&[ISSUER]);
        validation.set_audience(&[AUDIENCE]);
        validation.leeway = LEEWAY_SECONDS;
        let data = jsonwebtoken::decode::<Claims>(token, key, &validation).ok()?;
        (data.claims.typ == ACCESS).then_some(data.claims)
    }
}

/// Access tokens that passed the whole check, by their SHA-256. A client sends the same token
/// with every request until it expires: found here, it costs a hash instead of a signature
/// check and a parse of its claims (a tenth of a view's time on the server). Only verified
/// tokens are kept, each with its `exp`, judged again on every use. The digest, not the token,
/// is compared, so how long a lookup takes says nothing about a kept token. When full, the
/// list starts again, empty (its tokens are verified again as they come).
#[derive(Default)]
struct VerifiedTokens {
    accounts: Mutex<HashMap<[u8; 32], (String, i64, i64)>>,
}

impl VerifiedTokens {
    /// A kept token's account, `Some(None)` once it has expired at `now`; `None` for a token
    /// not kept.
    fn account(&self, digest: &[u8; 32], now: u64) -> Option<Option<(String, i64)>> {
        let accounts = self.accounts.lock().expect("verified tokens lock");
        let (account_id, expires, issued) = accounts.get(digest)?;
        // The same test as jsonwebtoken's: expired once `exp` is more than the leeway ago.
        Some(
            (*expires + LEEWAY_SECONDS as i64 >= now as i64).then(|| (account_id.clone(), *issued)),
        )
    }

    fn keep(&self, digest: [u8; 32], claims: &Claims) {
        let mut accounts = self.accounts.lock().expect("verified tokens lock");
        if accounts.len() >= MOST_VERIFIED {
            accounts.clear();
        }
        accounts.insert(digest, (claims.sub.clone(), claims.exp, claims.iat));
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        self.accounts.lock().expect("verified tokens lock").len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys() -> TokenKeys {
        let secret = b"a secret of the test, long enough";
        TokenKeys {
            signing_kid: "k1".to_owned(),
            encoding: Arc::new(EncodingKey::from_secret(secret)),
            decoding: Arc::new(HashMap::from([(
                "k1".to_owned(),
                DecodingKey::from_secret(secret),
            )])),
            ttl_seconds: 900,
            verified: Arc::default(),
        }
    }

    #[test]
    fn a_kept_token_still_expires() {
        let keys = keys();
        let now = jsonwebtoken::get_current_timestamp();
        let token = keys.issue("ada", now as i64);
        assert_eq!(
            keys.verify_at(&token, now).map(|(id, _)| id).as_deref(),
            Some("ada")
        );
        assert_eq!(keys.verified.len(), 1, "the verified token is kept");
        assert_eq!(
            keys.verify_at(&token, now).map(|(id, _)| id).as_deref(),
            Some("ada")
        );
        let expires = now + 900;
        assert_eq!(
            keys.verify_at(&token, expires + LEEWAY_SECONDS)
                .map(|(id, _)| id)
                .as_deref(),
            Some("ada"),
            "within the leeway"
        );
        assert_eq!(keys.verify_at(&token, expires + LEEWAY_SECONDS + 1), None);
    }

    #[test]
    fn only_verified_tokens_are_kept() {
        let keys = keys();
        let now = jsonwebtoken::get_current_timestamp();
        let token = keys.issue("ada", now as i64);
        // One character of the signature changed (not the last, whose low bits may be unused).
        let at = token.len() - 10;
        let changed = if &token[at..=at] == "A" { "B" } else { "A" };
        let forged = format!("{}{changed}{}", &token[..at], &token[at + 1..]);
        assert_eq!(keys.verify(&forged), None);
        let expired = keys.issue("ada", now as i64 - 900 - LEEWAY_SECONDS as i64 - 1);
        assert_eq!(keys.verify(&expired), None);
        assert_eq!(keys.verified.len(), 0);
        assert_eq!(keys.verify(&token).as_deref(), Some("ada"));
        assert_eq!(keys.verify(&forged), None, "not taken for the kept token");
    }
}
