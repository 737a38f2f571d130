//! Passwords: argon2id at OWASP's recommended parameters (19 MiB, 2 passes, 1 lane), hashed on
//! the blocking thread pool so the async workers never stall.
//!
//! Each hash needs 19 MiB of working memory. Left alone, a burst of registrations or logins
//! hashes all at once (48 at a time took 0.9–1.7 GB) and the allocator keeps what it took.
//! So at most [`Passwords::new`]'s `concurrency` hashes run at once (the others wait their
//! turn: hashing is CPU-bound, more at once would not finish sooner), each in a working area
//! kept from one hash to the next: the memory hashing ever takes is `concurrency` × 19 MiB.

use std::sync::{Arc, LazyLock, Mutex};

use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};
use tokio::sync::Semaphore;

/// The parameters of new hashes.
fn params() -> Params {
    Params::new(19 * 1024, 2, 1, None).expect("OWASP parameters are valid")
}

/// A hash of a password nobody has, verified against when the username is unknown, so unknown
/// users and wrong passwords take the same time.
static DUMMY_HASH: LazyLock<String> = LazyLock::new(|| {
    let mut memory = vec![Block::default(); params().block_count()];
    hash_in(&mut memory, b"an unguessable placeholder password")
});

/// Hashes and checks passwords, a bounded number at a time.
#[derive(Debug)]
pub struct Passwords {
    turns: Arc<Semaphore>,
    /// Working areas not in use, one per hash that may run.
    idle_memory: Arc<Mutex<Vec<Vec<Block>>>>,
}

impl Passwords {
    /// At most `concurrency` hashes at once.
    pub fn new(concurrency: usize) -> Passwords {
        Passwords {
            turns: Arc::new(Semaphore::new(concurrency.max(1))),
            idle_memory: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Hashes a password (PHC string).
    pub async fn hash(&self, password: String) -> anyhow::Result<String> {
        self.with_memory(move |memory| hash_in(memory, password.as_bytes()))
            .await
    }

    /// Checks a password against a stored hash; with `None`, checks against a dummy hash and
    /// fails.
    pub async fn verify(&self, password: String, stored: Option<String>) -> anyhow::Result<bool> {
        let known = stored.is_some();
        let stored = stored.unwrap_or_else(|| DUMMY_HASH.clone());
        let matches = self
            .with_memory(move |memory| verify_in(memory, password.as_bytes(), &stored))
            .await?;
        Ok(known && matches)
    }

    /// Runs `work` on the blocking pool, in its turn, with a working area.
    async fn with_memory<T: Send + 'static>(
        &self,
        work: impl FnOnce(&mut Vec<Block>) -> T + Send + 'static,
    ) -> anyhow::Result<T> {
        let _turn = self.turns.acquire().await?;
        let idle = self.idle_memory.clone();
        Ok(tokio::task::spawn_blocking(move || {
            let mut memory = idle
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .pop()
                .unwrap_or_else(|| vec![Block::default(); params().block_count()]);
            let outcome = work(&mut memory);
            idle.lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .push(memory);
            outcome
        })
        .await?)
    }
}

/// A new hash of `password` with a fresh salt, computed in `memory`.
fn hash_in(memory: &mut Vec<Block>, password: &[u8]) -> String {
    let params = params();
    let salt = SaltString::generate(&mut OsRng);
    let mut raw_salt = [0u8; 64];
    let raw_salt = salt
        .as_salt()
        .decode_b64(&mut raw_salt)
        .expect("a generated salt decodes");
    let hasher = Argon2::new(Algorithm::Argon2id, Version::V0x13, params.clone());
    let output = Output::init_with(Params::DEFAULT_OUTPUT_LEN, |out| {
        compute(&hasher, password, raw_salt, out, memory)
    })
    .expect("hashing cannot fail with valid parameters");
    PasswordHash {
        algorithm: Algorithm::Argon2id.ident(),
        version: Some(Version::V0x13.into()),
        params: ParamsString::try_from(&params).expect("valid parameters print"),
        salt: Some(salt.as_salt()),
        hash: Some(output),
    }
    .to_string()
}

/// Whether `password` hashes to `stored` (a PHC string of any argon2 parameters).
fn verify_in(memory: &mut Vec<Block>, password: &[u8], stored: &str) -> bool {
    let Ok(parsed) = PasswordHash::new(stored) else {
        return false;
    };
    let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
        return false;
    };
    let (Ok(algorithm), Ok(params)) = (
        Algorithm::try_from(parsed.algorithm),
        Params::try_from(&parsed),
    ) else {
        return false;
    };
    let version = parsed
        .version
        .and_then(|version| Version::try_from(version).ok())
        .unwrap_or_default();
    let mut raw_salt = [0u8; 64];
    let Ok(raw_salt) = salt.decode_b64(&mut raw_salt) else {
        return false;
    };
    let hasher = Argon2::new(algorithm, version, params);
    Output::init_with(expected.len(), |out| {
        compute(&hasher, password, raw_salt, out, memory)
    })
    // `Output` compares in constant time.
    .is_ok_and(|computed| computed == expected)
}

/// Argon2 in `memory`, grown (or shrunk) to what the parameters need first: a hash stored
/// with other parameters than today's still verifies.
fn compute(
    hasher: &Argon2<'_>,
    password: &[u8],
    salt: &[u8],
    out: &mut [u8],
    memory: &mut Vec<Block>,
) -> Result<(), argon2::password_hash::Error> {
    memory.resize(hasher.params().block_count(), Block::default());
    hasher
        .hash_password_into_with_memory(password, salt, out, &mut memory[..])
        .map_err(argon2::password_hash::Error::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use argon2::PasswordVerifier;

    #[tokio::test]
    async fn a_burst_of_hashes_shares_one_working_area_per_turn() {
        let passwords = Arc::new(Passwords::new(2));
        let mut burst = tokio::task::JoinSet::new();
        for index in 0..12 {
            let passwords = passwords.clone();
            burst.spawn(async move { passwords.hash(format!("password {index}")).await });
        }
        for hashed in burst.join_all().await {
            assert!(hashed.unwrap().starts_with("$argon2id$"));
        }
        let areas = passwords.idle_memory.lock().unwrap().len();
        assert!(areas <= 2, "{areas} working areas for 2 turns");
    }

    #[tokio::test]
    async fn hashes_verify_both_ways_with_the_argon2_crate() {
        let passwords = Passwords::new(2);
        let ours = passwords.hash("correct horse".to_owned()).await.unwrap();
        assert!(ours.starts_with("$argon2id$v=19$m=19456,t=2,p=1$"));
        let parsed = PasswordHash::new(&ours).unwrap();
        assert!(
            Argon2::default()
                .verify_password(b"correct horse", &parsed)
                .is_ok()
        );
        assert!(
            passwords
                .verify("correct horse".to_owned(), Some(ours.clone()))
                .await
                .unwrap()
        );
        assert!(
            !passwords
                .verify("wrong horse".to_owned(), Some(ours))
                .await
                .unwrap()
        );
        // A hash the crate made, with other parameters, verifies here too.
        use argon2::PasswordHasher;
        let theirs = Argon2::new(
            Algorithm::Argon2id,
            Version::V0x13,
            Params::new(8 * 1024, 1, 1, None).unwrap(),
        )
        .hash_password(b"battery staple", &SaltString::generate(&mut OsRng))
        .unwrap()
        .to_string();
        assert!(
            passwords
                .verify("battery staple".to_owned(), Some(theirs))
                .await
                .unwrap()
        );
        assert!(!passwords.verify("x".to_owned(), None).await.unwrap());
    }
}
