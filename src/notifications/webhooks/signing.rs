//! Webhook signatures as Standard Webhooks (<https://www.standardwebhooks.com>) define them:
//! a secret `whsec_` + base64 of random bytes, and for each attempt the headers `webhook-id`,
//! `webhook-timestamp` (Unix seconds) and `webhook-signature` = `v1,` + base64 of
//! HMAC-SHA256(secret bytes, `{id}.{timestamp}.{body}`). Receivers verify with any of the
//! standard's libraries.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::auth::sealing::{self, KeyEncryptionKey};

/// The prefix of a signing secret.
const PREFIX: &str = "whsec_";

/// Random bytes in a new secret (the standard asks for 24 to 64).
const SECRET_BYTES: usize = 32;

/// A webhook's signing secret.
pub struct SigningSecret(Vec<u8>);

impl SigningSecret {
    /// A new random secret.
    pub fn generate() -> SigningSecret {
        SigningSecret(crate::random::bytes::<SECRET_BYTES>().to_vec())
    }

    /// The secret from its bytes (as stored).
    pub fn from_bytes(bytes: Vec<u8>) -> SigningSecret {
        SigningSecret(bytes)
    }

    /// Its bytes.
    pub fn bytes(&self) -> &[u8] {
        &self.0
    }

    /// As shown to its owner, once: `whsec_…`.
    pub fn reveal(&self) -> String {
        format!("{PREFIX}{}", STANDARD.encode(&self.0))
    }

    /// The `webhook-signature` of a message.
    pub fn sign(&self, id: &str, timestamp: i64, body: &str) -> String {
        let mut mac =
            Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes a key of any length");
        mac.update(format!("{id}.{timestamp}.").as_bytes());
        mac.update(body.as_bytes());
        format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()))
    }
}

impl std::fmt::Debug for SigningSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SigningSecret(<redacted>)")
    }
}

/// A stored secret opened.
pub(super) fn open_secret(
    stored: &str,
    kek: Option<&KeyEncryptionKey>,
) -> Result<SigningSecret, sealing::SealError> {
    sealing::open(stored, kek).map(SigningSecret::from_bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example of the Standard Webhooks reference libraries' tests.
    #[test]
    fn signs_as_the_reference_implementations_do() {
        let secret = STANDARD.decode("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw").unwrap();
        let signature = SigningSecret::from_bytes(secret).sign(
            "msg_p5jXN8AQM9LWM0D4loKWxJek",
            1614265330,
            r#"{"test": 2432232314}"#,
        );
        assert_eq!(signature, "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=");
    }

    #[test]
    fn a_secret_is_shown_with_its_prefix_and_never_in_debug_output() {
        let secret = SigningSecret::generate();
        let shown = secret.reveal();
        assert!(shown.starts_with("whsec_"));
        assert_eq!(STANDARD.decode(&shown[6..]).unwrap(), secret.bytes());
        assert!(!format!("{secret:?}").contains(&shown[6..]));
    }
}
