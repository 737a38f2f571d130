//! A cap on the connections requests hold open (long-polls and event streams), so that many
//! waiting clients cannot take every file the process may open and stop it from accepting
//! moves. Past the cap a new long-poll or stream answers 503 with `Retry-After`. A held
//! connection also has a longest life (`MAX_HOLD_SECONDS`), so that no proxy's idle timeout
//! cuts it first and a stream moves to another process after a restart in time.

use std::future::{Ready, ready};
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::ServiceRequest;
use actix_web::http::{Method, StatusCode};
use actix_web::{FromRequest, HttpRequest, dev::Payload, web};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::error::ApiError;
use crate::instruments;

/// Whether `request` may hold its connection: an event stream, or a long-poll (a `wait` in its
/// query). These are bounded here, by the cap on held connections, rather than by the bound
/// on each account's requests in flight ([`super::in_flight`]).
pub fn holds_its_connection(request: &ServiceRequest) -> bool {
    if request.method() != Method::GET {
        return false;
    }
    request.path().ends_with("/stream")
        || url::form_urlencoded::parse(request.query_string().as_bytes())
            .any(|(name, value)| name == "wait" && value != "0")
}

/// How many connections requests may hold open at once, and for how long each.
#[derive(Clone, Debug)]
pub struct HeldConnections {
    places: Arc<Semaphore>,
    cap: usize,
    longest: Duration,
}

impl HeldConnections {
    /// At most `cap` held connections, each for at most `longest`.
    pub fn new(cap: usize, longest: Duration) -> HeldConnections {
        HeldConnections {
            places: Arc::new(Semaphore::new(cap)),
            cap,
            longest,
        }
    }

    /// How many are held now, and the cap.
    pub fn figures(&self) -> (usize, usize) {
        (
            self.cap.saturating_sub(self.places.available_permits()),
            self.cap,
        )
    }
}

/// One held connection's place under the cap, given back when dropped (when the long-poll
/// answers or the stream ends).
pub struct Held {
    _place: OwnedSemaphorePermit,
    longest: Duration,
}

impl Held {
    /// How long the connection may be held.
    pub fn longest(&self) -> Duration {
        self.longest
    }
}

impl FromRequest for Held {
    type Error = ApiError;
    type Future = Ready<Result<Held, ApiError>>;

    fn from_request(request: &HttpRequest, _: &mut Payload) -> Self::Future {
        let held = request
            .app_data::<web::Data<HeldConnections>>()
            .expect("HeldConnections are registered");
        let place = held.places.clone().try_acquire_owned();
        ready(
            place
                .map(|place| Held {
                    _place: place,
                    longest: held.longest,
                })
                .map_err(|_| {
                    instruments::held_refused();
                    ApiError::refused(
                StatusCode::SERVICE_UNAVAILABLE,
                "too_many_held_connections",
                "The server holds as many long-polls and streams as it may: try again shortly.",
            )
            .retry_after(5)
                }),
        )
    }
}
