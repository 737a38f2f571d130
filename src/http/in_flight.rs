//! A bound on the requests one account has in flight at once, so that no single account can
//! take the database pool, the write lock or the workers from everybody else (issue 35,
//! finding 5). Past the bound a request answers at once `429 too_many_requests_in_flight`
//! with `Retry-After`, before its handler runs, and changes nothing.
//!
//! It counts authenticated requests only: requests without a token are bounded per client
//! address where they cost (logins, registrations). Long-polls and streams are not counted:
//! they hold their connection by design and have a cap of their own ([`super::held`]).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;
use actix_web::web;

use super::error::ApiError;
use super::held;
use crate::instruments;

/// How long a refused caller is asked to wait, in seconds: requests in flight end within
/// moments unless the server is in trouble.
const RETRY_AFTER_SECONDS: u64 = 1;

/// Each account's requests in flight, and the most it may have.
#[derive(Debug)]
pub struct InFlight {
    most: u32,
    counts: Mutex<HashMap<String, u32>>,
}

impl InFlight {
    /// At most `most` requests of one account at once.
    pub fn new(most: u32) -> Arc<InFlight> {
        Arc::new(InFlight {
            most,
            counts: Mutex::new(HashMap::new()),
        })
    }

    fn counts(&self) -> MutexGuard<'_, HashMap<String, u32>> {
        self.counts
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// A place for one more request of `account_id`, or `None` at the bound.
    fn enter(self: &Arc<Self>, account_id: &str) -> Option<Place> {
        let mut counts = self.counts();
        match counts.get_mut(account_id) {
            Some(count) if *count >= self.most => return None,
            Some(count) => *count += 1,
            None if self.most == 0 => return None,
            None => {
                counts.insert(account_id.to_owned(), 1);
            }
        }
        Some(Place {
            registry: self.clone(),
            account_id: account_id.to_owned(),
        })
    }
}

/// One request's place under its account's bound, given back when the request is answered.
pub(super) struct Place {
    registry: Arc<InFlight>,
    account_id: String,
}

impl Drop for Place {
    fn drop(&mut self) {
        let mut counts = self.registry.counts();
        if let Some(count) = counts.get_mut(&self.account_id) {
            *count -= 1;
            // An account with nothing in flight takes no memory.
            if *count == 0 {
                counts.remove(&self.account_id);
            }
        }
    }
}

/// A place under the bound for a request `account_id` authenticated (called by
/// [`super::authenticate::authenticate`], which holds it until the request is answered), `None`
/// for a request that holds its connection, or the refusal at the bound.
pub(super) fn take_place(
    request: &ServiceRequest,
    account_id: &str,
) -> Result<Option<Place>, ApiError> {
    let Some(registry) = request.app_data::<web::Data<Arc<InFlight>>>() else {
        return Ok(None);
    };
    if held::holds_its_connection(request) {
        return Ok(None);
    }
    match registry.enter(account_id) {
        Some(place) => Ok(Some(place)),
        None => {
            instruments::in_flight_refused();
            Err(ApiError::refused(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_requests_in_flight",
                format!(
                    "This account has {} requests in flight already: wait for their answers.",
                    registry.most
                ),
            )
            .retry_after(RETRY_AFTER_SECONDS))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::InFlight;

    #[test]
    fn an_account_enters_up_to_its_bound_and_again_once_a_request_ends() {
        let registry = InFlight::new(2);
        let first = registry.enter("a").unwrap();
        let second = registry.enter("a").unwrap();
        assert!(registry.enter("a").is_none(), "the bound");
        assert!(
            registry.enter("b").is_some(),
            "another account is not held up"
        );
        drop(first);
        let third = registry.enter("a").expect("a place came free");
        drop(third);
        drop(second);
        assert!(
            registry.counts().is_empty(),
            "nothing in flight, nothing kept"
        );
    }
}
