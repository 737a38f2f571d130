//! The match endpoints, one file per concern, each handler a parse → one service call →
//! respond:
//! - [`lobby`]: create, list, summary, join, leave, invite, rematch;
//! - [`moves`]: the private view (with `ETag`), moves (with `Idempotency-Key`), claims on late
//!   seats, nudges;
//! - [`talk`]: table talk;
//! - [`feed`]: the event feed, long-polled or as Server-Sent Events;
//! - [`archive`]: replays and the verifiable export;
//! - [`bots`]: bots for free seats, and hints.

pub mod archive;
pub mod bots;
pub mod feed;
pub mod lobby;
pub mod moves;
pub mod talk;

use utoipa_actix_web::service_config::ServiceConfig;

/// Registers the view and the move, the routes a game's traffic is made of, ahead of every
/// other ([`super::configure`]).
pub fn configure_hot(config: &mut ServiceConfig) {
    config.service(moves::get_view).service(moves::post_move);
}

/// Registers every other match route.
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(lobby::create_match)
        .service(lobby::list_matches)
        .service(lobby::get_match)
        .service(lobby::join_match)
        .service(lobby::leave_match)
        .service(lobby::invite)
        .service(lobby::rematch)
        .service(bots::add_bot)
        .service(bots::get_hint)
        .service(moves::claim)
        .service(moves::nudge)
        .service(talk::post_message)
        .service(feed::get_events)
        .service(feed::stream_events)
        .service(archive::get_replay)
        .service(archive::export_match);
}
