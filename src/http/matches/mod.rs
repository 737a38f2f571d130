//! The match endpoints, one file per concern, each handler a parse → one service call →
//! respond:
//! - [`lobby`]: create, list, summary, join, leave, invite, rematch;
//! - [`moves`]: the private view (with `ETag`), moves (with `Idempotency-Key`), claims on late
//!   seats, nudges;
//! - [`talk`]: table talk, and a reader's mute of it; [`notes`]: a player's private notes;
//! - [`feed`]: the event feed, long-polled or as Server-Sent Events;
//! - [`archive`]: replays and the verifiable export;
//! - [`bots`]: bots for free seats, and hints.

pub mod archive;
pub mod bots;
pub mod feed;
pub mod lobby;
pub mod moves;
pub mod notes;
pub mod talk;

use utoipa_actix_web::service_config::ServiceConfig;

/// Registers the view and the move, the routes a game's traffic is made of, ahead of every
/// other ([`super::configure`]).
pub fn configure_hot(config: &mut ServiceConfig) {
    moves::configure_hot(config);
}

/// Registers every other match route: each file registers its own, so that a new handler is
/// written in one file.
pub fn configure(config: &mut ServiceConfig) {
    config
        .configure(lobby::configure)
        .configure(bots::configure)
        .configure(moves::configure)
        .configure(talk::configure)
        .configure(notes::configure)
        .configure(feed::configure)
        .configure(archive::configure);
}
