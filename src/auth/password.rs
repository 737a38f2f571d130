//! Passwords: argon2id at OWASP's recommended parameters (19 MiB, 2 passes, 1 lane), hashed on
//! the blocking thread pool so the async workers never stall.

use std::sync::LazyLock;

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::{Algorithm, Argon2, Params, Version};

fn hasher() -> Argon2<'static> {
    let params = Params::new(19 * 1024, 2, 1, None).expect("OWASP parameters are valid");
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

/// A hash of a password nobody has, verified against when the username is unknown, so unknown
/// users and wrong passwords take the same time.
static DUMMY_HASH: LazyLock<String> =
    LazyLock::new(|| hash_now("an unguessable placeholder password"));

fn hash_now(password: &str) -> String {
    let salt = SaltString::generate(&mut OsRng);
    hasher()
        .hash_password(password.as_bytes(), &salt)
        .expect("hashing cannot fail with valid parameters")
        .to_string()
}

/// Hashes a password (PHC string).
pub async fn hash(password: String) -> anyhow::Result<String> {
    Ok(tokio::task::spawn_blocking(move || hash_now(&password)).await?)
}

/// Checks a password against a stored hash; with `None`, checks against a dummy hash and fails.
pub async fn verify(password: String, stored: Option<String>) -> anyhow::Result<bool> {
    let known = stored.is_some();
    let stored = stored.unwrap_or_else(|| DUMMY_HASH.clone());
    let matches = tokio::task::spawn_blocking(move || {
        PasswordHash::new(&stored).is_ok_and(|parsed| {
            hasher()
                .verify_password(password.as_bytes(), &parsed)
                .is_ok()
        })
    })
    .await?;
    Ok(known && matches)
}
