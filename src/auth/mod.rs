//! Credentials: argon2id passwords, JWT access tokens and their signing keys (sealed at rest
//! with an operator's key), opaque refresh tokens, personal access tokens and their
//! [`scope`]s, and the rate limiter. The account service ([`crate::accounts`]) uses them; the
//! HTTP layer's `Caller` extractor asks it to authenticate every request.

pub mod jwt;
pub mod password;
pub mod personal;
pub mod rate_limit;
pub mod refresh;
pub mod scope;
pub mod sealing;

pub use jwt::TokenKeys;
pub use password::Passwords;
pub use rate_limit::RateLimiter;
pub use scope::{Scope, Scopes};
