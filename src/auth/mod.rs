//! Credentials: argon2id passwords, JWT access tokens and their signing keys (sealed at rest
//! with an operator's key), opaque refresh tokens and the rate limiter. The account service ([`crate::accounts`]) uses them; the HTTP layer's `AuthUser`
//! extractor verifies access tokens with [`TokenKeys`].

pub mod jwt;
pub mod password;
pub mod rate_limit;
pub mod refresh;
pub mod sealing;

pub use jwt::TokenKeys;
pub use password::Passwords;
pub use rate_limit::RateLimiter;
