//! The SQLite database file: created readable and writable by its owner only (it holds the
//! token signing keys), and checked before the first connection, so that a file the server
//! could open but not write (a read-only mount, an immutable `-wal` file) stops it at start with
//! a sentence instead of failing later.
//!
//! A SQLite file serves one server process, so it is opened through SQLite's `unix-excl` VFS:
//! the process holds the file's lock for as long as it runs (a second process, or a second
//! server started on the same file by mistake, cannot open it), and the WAL index lives in the
//! process's memory instead of a memory-mapped `-shm` file. A `-shm` file that became
//! unwritable (or its disk full) used to stop a running server with SIGBUS when SQLite touched
//! the mapped page; with no `-shm` file there is nothing to map. The connections of the one
//! process still read while another writes, as in WAL mode with a `-shm` file.

use std::fs::OpenOptions;
use std::io;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

use sqlx::AnyConnection;

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
    /// Another process has the SQLite file open (a second server started on it by mistake, or
    /// a tool): a SQLite file serves one server process.
    #[error(
        "the SQLite file {} is in use by another process: a SQLite file serves one server \
         process (use PostgreSQL for several)",
        path.display()
    )]
    InUse {
        /// The file.
        path: PathBuf,
    },
    /// The database refused or did not answer.
    #[error("cannot connect to the database")]
    Connect(#[source] sqlx::Error),
    /// A tool that reads an existing database was given a SQLite file that does not exist;
    /// nothing was created.
    #[error(
        "the SQLite file {} does not exist (nothing was created): give the server's database",
        path.display()
    )]
    Missing {
        /// The file.
        path: PathBuf,
    },
    /// A tool that reads an existing database was given one that holds no server's tables.
    #[error(
        "the database holds no kings-corner tables: give the server's database (or run \
         `kings-corner migrate` on a new one)"
    )]
    NoSchema,
}

/// The file a `sqlite:` URL names, if it names one (not `:memory:`).
pub fn sqlite_path(url: &str) -> Option<PathBuf> {
    path_of(url)
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
/// `-wal` companion, where it exists, can be written. (A `-shm` file left by an earlier version
/// is not used: see the module's text.)
pub(super) fn prepare(url: &str) -> Result<(), StartError> {
    let Some(path) = path_of(url) else {
        return Ok(());
    };
    let fail = |path: &Path| {
        let path = path.to_owned();
        move |source| StartError::File { path, source }
    };
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(&path)
        .map_err(fail(&path))?;
    if locked_by_another_process(&file).map_err(fail(&path))? {
        return Err(StartError::InUse { path });
    }
    let mut wal = path.clone().into_os_string();
    wal.push("-wal");
    let wal = PathBuf::from(wal);
    if wal.exists() {
        OpenOptions::new()
            .append(true)
            .open(&wal)
            .map_err(fail(&wal))?;
    }
    Ok(())
}

impl super::Db {
    /// Whether another process (a running server) holds the SQLite file at `path`.
    pub fn sqlite_file_in_use(path: &Path) -> bool {
        std::fs::File::open(path)
            .and_then(|file| locked_by_another_process(&file))
            .unwrap_or(false)
    }

    /// SQLite: writes a consistent, compacted copy of the whole database to `target`, a file
    /// that must not exist yet (`VACUUM INTO`: one read transaction; writers go on meanwhile).
    /// Not bounded by the statement timeout: a large database takes as long as it takes.
    pub async fn backup_into(&self, target: &Path) -> Result<(), super::StoreError> {
        let mut connection = self.connection().await?;
        super::query("VACUUM INTO $1")
            .bind(target.to_string_lossy().into_owned())
            .execute(&mut *connection)
            .await?;
        Ok(())
    }
}

/// How long a SQLite writer waits for another's lock before failing with `SQLITE_BUSY`, set on
/// every connection.
pub(super) const WAIT_FOR_LOCK: &str = "PRAGMA busy_timeout = 5000";

/// Whether another process holds a lock on the file (SQLite's locks are POSIX record locks:
/// a process never sees its own, and a dead process holds none).
fn locked_by_another_process(file: &std::fs::File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: F_GETLK only reads and writes the struct passed by pointer.
    let mut probe: libc::flock = unsafe { std::mem::zeroed() };
    probe.l_type = libc::F_WRLCK as libc::c_short;
    probe.l_whence = libc::SEEK_SET as libc::c_short;
    // SAFETY: as above, on a file descriptor this function borrows.
    if unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETLK, &mut probe) } != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(probe.l_type != libc::F_UNLCK as libc::c_short)
}

/// Whether a SQLite connection can still begin a write, asked without waiting for the lock.
/// A connection opened while the `-wal` file could not be written (made immutable, a read-only
/// remount) fell back to reading it read-only, and stays so for its life: every write it is
/// given fails with "attempt to write a readonly database" long after the file is writable
/// again. The pool closes such a connection instead of keeping it, and a new one opens the file
/// afresh.
pub(super) async fn can_write(connection: &mut AnyConnection) -> bool {
    use sqlx::Executor;
    let check = async {
        connection.execute("PRAGMA busy_timeout = 0").await?;
        let begun = connection.execute("BEGIN IMMEDIATE").await;
        if begun.is_ok() {
            connection.execute("ROLLBACK").await?;
        }
        connection.execute(WAIT_FOR_LOCK).await?;
        Ok::<_, sqlx::Error>(begun)
    };
    match check.await {
        Ok(Ok(_)) => true,
        // Another connection holds the write lock: this one was not refused for itself.
        Ok(Err(sqlx::Error::Database(error))) => {
            matches!(
                error.code().as_deref(),
                Some("5" | "6" | "261" | "262" | "517")
            )
        }
        _ => false,
    }
}

/// The URL to connect with: SQLite creates the file when absent (`mode=rwc`), and a file is
/// this process's alone (`vfs=unix-excl`: see the module's text).
pub(super) fn connect_url(url: &str, backend: Backend) -> String {
    if backend == Backend::Postgres {
        return url.to_owned();
    }
    let mut parameters = Vec::new();
    if !url.contains("mode=") {
        parameters.push("mode=rwc");
    }
    if path_of(url).is_some() && !url.contains("vfs=") {
        parameters.push("vfs=unix-excl");
    }
    let mut url = url.to_owned();
    for parameter in parameters {
        url.push(if url.contains('?') { '&' } else { '?' });
        url.push_str(parameter);
    }
    url
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

    #[test]
    fn a_file_is_opened_for_this_process_alone_and_created_when_absent() {
        assert_eq!(
            connect_url("sqlite://a.db", Backend::Sqlite),
            "sqlite://a.db?mode=rwc&vfs=unix-excl"
        );
        assert_eq!(
            connect_url("sqlite://a.db?mode=ro", Backend::Sqlite),
            "sqlite://a.db?mode=ro&vfs=unix-excl"
        );
        assert_eq!(
            connect_url("sqlite::memory:", Backend::Sqlite),
            "sqlite::memory:?mode=rwc"
        );
        let postgres = "postgres://u@h/db";
        assert_eq!(connect_url(postgres, Backend::Postgres), postgres);
    }
}
