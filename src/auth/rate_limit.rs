//! A sliding-window limiter for login attempts, per key (client address, username).
//!
//! In memory, per process: behind a load balancer each process limits on its own, which still
//! bounds guessing to the limit times the number of processes.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Allows `limit` events per `window` for each key.
#[derive(Debug)]
pub struct RateLimiter {
    limit: usize,
    window: Duration,
    seen: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl RateLimiter {
    /// A limiter of `limit` events per `window`.
    pub fn new(limit: u32, window: Duration) -> RateLimiter {
        RateLimiter {
            limit: limit as usize,
            window,
            seen: Mutex::new(HashMap::new()),
        }
    }

    /// Records an attempt for every key; `Err(seconds to wait)` if any key is over its limit
    /// (the attempt is then not recorded).
    pub fn check(&self, keys: &[&str]) -> Result<(), u64> {
        let now = Instant::now();
        let mut seen = self
            .seen
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        if seen.len() > 100_000 {
            // Bound memory under a flood of distinct keys: forget windows that have passed.
            seen.retain(|_, times| {
                times
                    .back()
                    .is_some_and(|last| now.duration_since(*last) < self.window)
            });
        }
        let mut wait = 0;
        for key in keys {
            let times = seen.entry((*key).to_owned()).or_default();
            while times
                .front()
                .is_some_and(|first| now.duration_since(*first) >= self.window)
            {
                times.pop_front();
            }
            if times.len() >= self.limit
                && let Some(first) = times.front()
            {
                let left = self.window.saturating_sub(now.duration_since(*first));
                wait = wait.max(left.as_secs() + 1);
            }
        }
        if wait > 0 {
            return Err(wait);
        }
        for key in keys {
            seen.entry((*key).to_owned()).or_default().push_back(now);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_past_the_limit_then_recovers() {
        let limiter = RateLimiter::new(2, Duration::from_millis(200));
        assert!(limiter.check(&["ip", "alice"]).is_ok());
        assert!(limiter.check(&["ip", "alice"]).is_ok());
        assert!(
            limiter.check(&["ip", "bob"]).is_err(),
            "the address is over its limit"
        );
        assert!(limiter.check(&["other-ip", "bob"]).is_ok());
        std::thread::sleep(Duration::from_millis(220));
        assert!(limiter.check(&["ip", "alice"]).is_ok());
    }
}
