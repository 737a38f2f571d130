//! Signing keys at rest. The token signing keys live in the database, so that every server
//! process on it signs and verifies alike. An operator may give a key encryption key
//! (`KEY_ENCRYPTION_KEY`): the signing keys are then stored sealed with it (ChaCha20-Poly1305,
//! a fresh nonce per key), and a copy of the database alone no longer lets anyone forge tokens.
//!
//! Stored forms: plain base64 of the key, or `sealed:v1:` + base64(nonce ‖ ciphertext).

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use chacha20poly1305::aead::{Aead, KeyInit};
use chacha20poly1305::{ChaCha20Poly1305, Key, Nonce};
use sha2::{Digest, Sha256};

const SEALED: &str = "sealed:v1:";

/// Why a stored signing key cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum SealError {
    /// The keys are sealed and no key encryption key was given.
    #[error("the signing keys in the database are sealed: set KEY_ENCRYPTION_KEY")]
    NoKey,
    /// The key encryption key given is not the one they were sealed with, or the stored value
    /// was altered.
    #[error("KEY_ENCRYPTION_KEY does not open the signing keys in the database")]
    WrongKey,
    /// The stored value is neither base64 nor sealed.
    #[error("a stored signing key is unreadable")]
    Unreadable,
}

/// The operator's key encryption key.
pub struct KeyEncryptionKey(ChaCha20Poly1305);

impl KeyEncryptionKey {
    /// The key derived from an operator's secret (at least 32 bytes, checked with the
    /// settings): its SHA-256.
    pub fn from_secret(secret: &str) -> KeyEncryptionKey {
        let key: [u8; 32] = Sha256::digest(secret.as_bytes()).into();
        KeyEncryptionKey(ChaCha20Poly1305::new(Key::from_slice(&key)))
    }

    /// `key` sealed, as stored.
    pub fn seal(&self, key: &[u8]) -> String {
        let nonce = crate::random::bytes::<12>();
        let sealed = self
            .0
            .encrypt(Nonce::from_slice(&nonce), key)
            .expect("sealing a short key cannot fail");
        format!(
            "{SEALED}{}",
            STANDARD.encode([&nonce[..], &sealed].concat())
        )
    }
}

/// Whether a stored key is sealed.
pub fn is_sealed(stored: &str) -> bool {
    stored.starts_with(SEALED)
}

/// The key a stored value holds.
pub fn open(stored: &str, kek: Option<&KeyEncryptionKey>) -> Result<Vec<u8>, SealError> {
    let Some(sealed) = stored.strip_prefix(SEALED) else {
        return STANDARD.decode(stored).map_err(|_| SealError::Unreadable);
    };
    let kek = kek.ok_or(SealError::NoKey)?;
    let bytes = STANDARD.decode(sealed).map_err(|_| SealError::Unreadable)?;
    if bytes.len() < 12 {
        return Err(SealError::Unreadable);
    }
    let (nonce, ciphertext) = bytes.split_at(12);
    kek.0
        .decrypt(Nonce::from_slice(nonce), ciphertext)
        .map_err(|_| SealError::WrongKey)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sealed_keys_open_only_with_their_key() {
        let kek = KeyEncryptionKey::from_secret("an operator's secret of at least 32 bytes");
        let stored = kek.seal(b"signing key");
        assert!(is_sealed(&stored));
        assert!(!stored.contains(&STANDARD.encode(b"signing key")));
        assert_eq!(open(&stored, Some(&kek)).unwrap(), b"signing key");
        assert!(matches!(open(&stored, None), Err(SealError::NoKey)));
        let other = KeyEncryptionKey::from_secret("another secret of at least thirty-two bytes");
        assert!(matches!(
            open(&stored, Some(&other)),
            Err(SealError::WrongKey)
        ));
        assert_eq!(
            open(&STANDARD.encode(b"plain"), Some(&kek)).unwrap(),
            b"plain"
        );
    }
}
