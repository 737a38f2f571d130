//! Why a command did not do what it was asked, and the exit code that says so: 1 refused (by
//! the server, with its problem `code`, or for want of a login), 2 bad usage, 3 the server
//! could not be reached. The message is for a person; the server's `detail` is shown as it is.

use std::fmt;

/// A command's failure.
#[derive(Debug)]
pub enum Failure {
    /// The server answered with a problem (`application/problem+json`).
    Refused {
        /// Its stable code.
        code: String,
        /// Its sentence for a person.
        detail: String,
    },
    /// No login is held for the server (and `KC_TOKEN` is not set).
    NotLoggedIn {
        /// The server's URL.
        server: String,
    },
    /// The server could not be reached, or answered something that is not the API.
    Unreachable {
        /// The server's URL.
        server: String,
        /// What happened.
        cause: String,
    },
    /// The command line asks for something `kc` cannot do.
    Usage(String),
    /// Something on this machine (the config file, the terminal).
    Local(String),
}

impl Failure {
    /// The process's exit code for it.
    pub fn exit_code(&self) -> i32 {
        match self {
            Failure::Refused { .. } | Failure::NotLoggedIn { .. } | Failure::Local(_) => 1,
            Failure::Usage(_) => 2,
            Failure::Unreachable { .. } => 3,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::Refused { code, detail, .. } => write!(f, "{code}: {detail}"),
            Failure::NotLoggedIn { server } => write!(
                f,
                "missing_token: not logged in to {server}: run `kc login USERNAME` (or set KC_TOKEN)"
            ),
            Failure::Unreachable { server, cause } => write!(
                f,
                "unreachable: {server} did not answer ({cause}); check that the server runs and \
                 the address (`--server URL`)"
            ),
            Failure::Usage(message) => write!(f, "usage: {message}"),
            Failure::Local(message) => write!(f, "{message}"),
        }
    }
}
