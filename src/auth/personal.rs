//! Personal access tokens: `kcp_` + 32 random bytes in base64url. The prefix tells them from
//! access tokens at a glance (and lets secret scanners find leaked ones); only their SHA-256 is
//! stored.

/// What every personal access token starts with.
pub const PREFIX: &str = "kcp_";

/// A new random personal access token.
pub fn generate() -> String {
    format!("{PREFIX}{}", crate::random::token::<32>())
}

/// Whether a bearer token is a personal access token (not a JWT).
pub fn is_personal(token: &str) -> bool {
    token.starts_with(PREFIX)
}

/// The hash stored for a token.
pub fn hash(token: &str) -> String {
    super::refresh::hash(token)
}
