//! The HTTP layer: thin handlers over the services, the extractors ([`extract::AuthUser`],
//! the idempotency key), [`error::ApiError`] (problem+json), and the OpenAPI description
//! generated from the routes actually registered.

pub mod accounts;
pub mod auth;
pub mod body;
pub mod client;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod headers;
pub mod health;
pub mod held;
pub mod matches;
pub mod openapi;
pub mod request_log;
pub mod rules;

pub use openapi::{openapi, openapi_json};

use utoipa_actix_web::service_config::ServiceConfig;

/// Registers every API route (also used to build the OpenAPI description).
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(health::healthz)
        .service(health::readyz)
        .service(accounts::register)
        .service(accounts::me)
        .service(accounts::delete_me)
        .service(auth::login)
        .service(auth::refresh_tokens)
        .service(auth::logout)
        .service(rules::rules_catalog)
        .configure(matches::configure);
}
