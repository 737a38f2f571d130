//! [`AuthUser`]: a handler that takes one can only be called with a valid access token.

use std::future::{Ready, ready};

use actix_web::{FromRequest, HttpRequest, dev::Payload, web};

use super::TokenKeys;
use crate::http::error::ApiError;

/// The account behind the request's `Authorization: Bearer` access token.
#[derive(Clone, Debug)]
pub struct AuthUser {
    /// The account id (`sub`).
    pub account_id: String,
}

impl FromRequest for AuthUser {
    type Error = ApiError;
    type Future = Ready<Result<AuthUser, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let keys = request
            .app_data::<web::Data<TokenKeys>>()
            .expect("TokenKeys are registered");
        let token = request
            .headers()
            .get(actix_web::http::header::AUTHORIZATION)
            .and_then(|value| value.to_str().ok())
            .and_then(|value| {
                value
                    .strip_prefix("Bearer ")
                    .or_else(|| value.strip_prefix("bearer "))
            });
        ready(match token {
            None => Err(ApiError::Unauthorized(
                "missing_token",
                "Send an access token: Authorization: Bearer <token>.",
            )),
            Some(token) => keys
                .verify(token.trim())
                .map(|account_id| AuthUser { account_id })
                .ok_or(ApiError::Unauthorized(
                    "invalid_token",
                    "The access token is invalid or expired.",
                )),
        })
    }
}
