//! The SQLite database file: created readable and writable by its owner only (it holds the
//! token signing keys), and checked before the first connection, so that a file the server
//! could open but not write (a read-only mount, an immutable `-wal` or `-shm` file) stops it at
//! start with a sentence instead of failing later. An unwritable `-shm` file in particular
//! cannot be survived once the server runs: SQLite maps it into memory, and the kernel stops
//! the process (SIGBUS) when it touches the page.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use super::Backend;

/// Why the store could not start.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// A file of the SQLite database cannot be created or written.
    #[error("the SQLite file {} cannot be written", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// The database refused or did not answer.
    #[error("cannot connect to the database")]
    Connect(#[source] sqlx::Error),
}

/// The file a `sqlite:` URL names, if it names one (not `:memory:`).
fn path_of(url: &str) -> Option<PathBuf> {
    let rest = url
        .strip_prefix("sqlite://")
        .or(url.strip_prefix("sqlite:"))?;
    let path = rest.split('?').next().unwrap_or_default();
    (!path.is_empty() && !path.starts_with(":memory:")).then(|| PathBuf::from(path))
}

/// Creates the database file (mode 0600) if it does not exist, and checks that it and its
/// `-wal` and `-shm` companions, where they exist, can be written.
pub(super) fn prepare(url: &str) -> Result<(), StartError> {
    let Some(path) = path_of(url) else {
        return Ok(());
    };
    let fail = |path: &Path| {
        let path = path.to_owned();
        move |source| StartError::File { path, source }
    };
    OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .map_err(fail(&path))?;
    for suffix in ["-wal", "-shm"] {
        let mut companion = path.clone().into_os_string();
        companion.push(suffix);
        let companion = PathBuf::from(companion);
        if companion.exists() {
            OpenOptions::new()
                .append(true)
                .open(&companion)
                .map_err(fail(&companion))?;
        }
    }
    Ok(())
}

/// The URL to connect with: SQLite creates the file when absent (`mode=rwc`).
pub(super) fn with_create(url: &str, backend: Backend) -> String {
    if backend == Backend::Postgres || url.contains("mode=") {
        url.to_owned()
    } else if url.contains('?') {
        format!("{url}&mode=rwc")
    } else {
        format!("{url}?mode=rwc")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_new_database_file_is_its_owners_only() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new.db");
        prepare(&format!("sqlite://{}", path.display())).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert_eq!(path_of("sqlite::memory:"), None);
        assert_eq!(
            path_of("sqlite://a.db?mode=rwc"),
            Some(PathBuf::from("a.db"))
        );
    }
}
