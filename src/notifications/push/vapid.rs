//! The server's VAPID key (RFC 8292): a P-256 key pair generated on first start and kept in the
//! database like the token signing keys (sealed with `KEY_ENCRYPTION_KEY` when it is set), so
//! that every process signs alike and a browser's subscription, made against the public key,
//! keeps working across restarts. Each request to a push service carries a JWT (ES256) for the
//! service's origin, signed with it.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use p256::SecretKey;
use p256::ecdsa::signature::Signer;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToEncodedPoint;

use crate::auth::sealing::{self, KeyEncryptionKey};
use crate::store::Db;

/// How long a VAPID token is good for (RFC 8292 §2: at most 24 hours).
const TOKEN_SECONDS: i64 = 12 * 3600;

/// The key pair.
pub struct VapidKey {
    signing: SigningKey,
    /// base64url of the uncompressed public point: the browser's `applicationServerKey`.
    public: String,
}

impl std::fmt::Debug for VapidKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the private key.
        f.debug_struct("VapidKey")
            .field("public", &self.public)
            .finish_non_exhaustive()
    }
}

impl VapidKey {
    /// The stored key pair, generated (at `now`) on first start; a key stored in the clear is
    /// sealed once a key encryption key is set.
    pub async fn load(
        db: &Db,
        kek: Option<&KeyEncryptionKey>,
        now: i64,
    ) -> anyhow::Result<VapidKey> {
        let fresh = loop {
            if let Ok(key) = SecretKey::from_slice(&crate::random::bytes::<32>()) {
                break key;
            }
        };
        let stored_fresh = match kek {
            Some(kek) => kek.seal(&fresh.to_bytes()),
            None => STANDARD.encode(fresh.to_bytes()),
        };
        let fresh_public =
            URL_SAFE_NO_PAD.encode(fresh.public_key().to_encoded_point(false).as_bytes());
        let (stored, _) = db.push_key(&stored_fresh, &fresh_public, now).await?;
        let secret = sealing::open(&stored, kek)?;
        if let Some(kek) = kek
            && !sealing::is_sealed(&stored)
        {
            db.replace_push_key(&kek.seal(&secret)).await?;
        }
        let key = SecretKey::from_slice(&secret)
            .map_err(|_| anyhow::anyhow!("the stored VAPID key is not a P-256 key"))?;
        Ok(VapidKey {
            public: URL_SAFE_NO_PAD.encode(key.public_key().to_encoded_point(false).as_bytes()),
            signing: SigningKey::from(key),
        })
    }

    /// The public key, base64url: what a browser subscribes with.
    pub fn public_key(&self) -> &str {
        &self.public
    }

    /// The `Authorization` header of a request to `endpoint`'s push service at `now`:
    /// `vapid t=<JWT>, k=<public key>` (RFC 8292 §3), the JWT's `sub` being `subject` when set.
    pub fn authorization(&self, endpoint: &url::Url, subject: Option<&str>, now: i64) -> String {
        let audience = endpoint.origin().ascii_serialization();
        let mut claims = serde_json::json!({"aud": audience, "exp": now + TOKEN_SECONDS});
        if let Some(subject) = subject {
            claims["sub"] = serde_json::Value::from(subject);
        }
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = URL_SAFE_NO_PAD.encode(claims.to_string());
        let signed = format!("{header}.{claims}");
        let signature: Signature = self.signing.sign(signed.as_bytes());
        let signature = URL_SAFE_NO_PAD.encode(signature.to_bytes());
        format!("vapid t={signed}.{signature}, k={}", self.public)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::VerifyingKey;
    use p256::ecdsa::signature::Verifier;

    #[test]
    fn the_token_is_signed_for_the_push_services_origin() {
        let secret = SecretKey::from_slice(&[7u8; 32]).unwrap();
        let key = VapidKey {
            public: URL_SAFE_NO_PAD.encode(secret.public_key().to_encoded_point(false).as_bytes()),
            signing: SigningKey::from(secret.clone()),
        };
        let endpoint = url::Url::parse("https://push.example.net:8443/send/abc?x=1").unwrap();
        let header = key.authorization(&endpoint, Some("https://kings.example.com"), 1_000);
        let (token, public) = header
            .strip_prefix("vapid t=")
            .unwrap()
            .split_once(", k=")
            .unwrap();
        assert_eq!(public, key.public_key());
        let parts: Vec<&str> = token.split('.').collect();
        let claims: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(parts[1]).unwrap()).unwrap();
        assert_eq!(
            claims,
            serde_json::json!({"aud": "https://push.example.net:8443", "exp": 1_000 + 12 * 3600, "sub": "https://kings.example.com"})
        );
        let signature = Signature::from_slice(&URL_SAFE_NO_PAD.decode(parts[2]).unwrap()).unwrap();
        VerifyingKey::from(secret.public_key())
            .verify(format!("{}.{}", parts[0], parts[1]).as_bytes(), &signature)
            .unwrap();
    }
}
