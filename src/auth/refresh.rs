//! Opaque refresh tokens: 32 random bytes, base64url; only their SHA-256 is stored.

use sha2::{Digest, Sha256};

/// A new random refresh token.
pub fn generate() -> String {
    crate::random::token::<32>()
}

/// The hash stored for a token.
pub fn hash(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}
