//! The HTTP layer: thin handlers over the services, the extractors ([`extract::Caller`],
//! the idempotency key), [`error::ApiError`] (problem+json), the OpenAPI description
//! generated from the routes actually registered, and the web client's files ([`web_client`]).

pub mod accounts;
pub mod alerts;
pub mod auth;
pub mod authenticate;
pub mod blocks;
pub mod body;
pub mod book_html;
pub mod client;
pub mod cors;
pub mod email;
pub mod error;
pub mod extract;
pub mod fallback;
pub mod follows;
pub mod headers;
pub mod health;
pub mod held;
pub mod in_flight;
pub mod matches;
pub mod metrics;
pub mod notifications;
pub mod openapi;
pub mod players;
pub mod push;
pub mod query_names;
pub mod reports;
pub mod request_log;
pub mod rules;
pub mod screen;
pub mod seeks;
pub mod sse;
pub mod text;
pub mod tokens;
pub mod vacation;
pub mod web_client;
pub mod webhooks;

pub use openapi::{openapi, openapi_json};

use utoipa_actix_web::service_config::ServiceConfig;

/// Registers every API route (also used to build the OpenAPI description). actix-web tries the
/// routes in this order and matches each pattern with a parameter by a regular expression: the
/// two a game's traffic is made of come first (docs/perf/README.md), the others after them.
pub fn configure(config: &mut ServiceConfig) {
    config
        .configure(matches::configure_hot)
        .service(health::healthz)
        .service(health::readyz)
        .service(accounts::register)
        .service(accounts::me)
        .service(accounts::delete_me)
        .service(email::set_email)
        .service(email::remove_email)
        .service(email::resend_verification)
        .service(tokens::create_token)
        .service(tokens::list_tokens)
        .service(tokens::revoke_token)
        .service(tokens::create_stream_ticket)
        .service(players::get_player)
        .service(players::get_leaderboard)
        .service(seeks::create_seek)
        .service(seeks::list_seeks)
        .service(seeks::get_seek)
        .service(seeks::cancel_seek)
        .service(vacation::get_vacation)
        .service(vacation::start_vacation)
        .service(vacation::end_vacation)
        .service(blocks::list_blocks)
        .service(blocks::block)
        .service(blocks::unblock)
        .service(follows::list_follows)
        .service(follows::follow)
        .service(follows::unfollow)
        .service(reports::create_report)
        .service(reports::get_report)
        .service(reports::list_reports)
        .service(notifications::get_notifications)
        .service(notifications::stream_notifications)
        .service(alerts::get_alerts)
        .service(alerts::put_alerts)
        .service(alerts::unsubscribe)
        .service(alerts::unsubscribe_page)
        .service(push::push_key)
        .service(push::add_push_subscription)
        .service(push::list_push_subscriptions)
        .service(push::remove_push_subscription)
        .service(webhooks::create_webhook)
        .service(webhooks::list_webhooks)
        .service(webhooks::get_webhook)
        .service(webhooks::delete_webhook)
        .service(webhooks::enable_webhook)
        .service(webhooks::list_deliveries)
        .service(auth::login)
        .service(auth::refresh_tokens)
        .service(auth::logout)
        .service(email::verify_email)
        .service(email::request_password_reset)
        .service(email::reset_password)
        .service(rules::rules_catalog)
        .service(rules::rule_book)
        .configure(matches::configure);
}
