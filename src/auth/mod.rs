//! Accounts' credentials: argon2id passwords, JWT access tokens, opaque refresh tokens, the
//! [`AuthUser`] extractor and the login rate limiter.

pub mod extract;
pub mod jwt;
pub mod password;
pub mod rate_limit;
pub mod refresh;

pub use extract::AuthUser;
pub use jwt::TokenKeys;
pub use rate_limit::RateLimiter;
