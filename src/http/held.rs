//! A cap on the connections requests hold open (long-polls and event streams), so that many
//! waiting clients cannot take every file the process may open and stop it from accepting
//! moves. Past the cap a new long-poll or stream answers 503 with `Retry-After`.

use std::future::{Ready, ready};
use std::sync::Arc;

use actix_web::http::StatusCode;
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;

/// How many connections requests may hold open at once.
#[derive(Clone, Debug)]
pub struct HeldConnections(Arc<Semaphore>);

impl HeldConnections {
    /// At most `cap` held connections.
    pub fn new(cap: usize) -> HeldConnections {
        HeldConnections(Arc::new(Semaphore::new(cap)))
    }
}

/// One held connection's place under the cap, given back when dropped (when the long-poll
/// answers or the stream ends).
pub struct Held(#[allow(dead_code)] OwnedSemaphorePermit);

impl FromRequest for Held {
    type Error = ApiError;
    type Future = Ready<Result<Held, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let held = request
            .app_data::<web::Data<HeldConnections>>()
            .expect("HeldConnections are registered");
        ready(held.0.clone().try_acquire_owned().map(Held).map_err(|_| {
            ApiError::refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "too_many_held_connections",
                "The server holds as many long-polls and streams as it may: try again shortly.",
            )
            .retry_after(5)
        }))
    }
}
