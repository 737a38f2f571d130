//! Online backups of the SQLite database: `kings-corner backup FILE`.
//!
//! A running server holds its SQLite file for itself alone (`vfs=unix-excl`: see
//! `store/sqlite_file.rs`), so no other process may read the file while it runs. The server
//! therefore makes the copy itself: it listens on a Unix socket beside its database file
//! ([`socket_path`]: `kings-corner.db.backup.sock`, readable and writable by its owner only, as
//! the file is), and the `backup` command asks it there. The copy is SQLite's `VACUUM INTO`
//! ([`Db::backup_into`]): one read transaction, so the copy is the database at one instant,
//! compacted, while moves go on. When no server holds the file, the command opens it and
//! copies it the same way.
//!
//! PostgreSQL is backed up with `pg_dump` (docs/operations.md, "Backups").
//!
//! The socket speaks one line each way: `backup /absolute/path\n`, answered `ok BYTES\n` or
//! `error SENTENCE\n`.

use std::io;
use std::path::{Path, PathBuf};

use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{UnixListener, UnixStream};

use crate::config::DatabaseSettings;
use crate::store::{Db, sqlite_path};

/// The longest request line the socket reads: a path, with room to spare.
const LONGEST_REQUEST: u64 = 8 * 1024;

/// Why a backup was not made.
#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    /// `backup` copies SQLite files only.
    #[error(
        "backup copies a SQLite database; for PostgreSQL use pg_dump (docs/operations.md, \"Backups\")"
    )]
    NotSqlite,
    /// No database file at the configured path.
    #[error("there is no database at {}", .0.display())]
    NoDatabase(PathBuf),
    /// The copy's file exists already: a backup never overwrites one.
    #[error("{} exists already: a backup never overwrites a file", .0.display())]
    TargetExists(PathBuf),
    /// The target's directory does not exist or cannot be read.
    #[error("the directory of {} cannot be used", .path.display())]
    TargetDirectory {
        /// The target asked for.
        path: PathBuf,
        /// What the operating system said.
        #[source]
        source: io::Error,
    },
    /// A server holds the file, but its backup socket does not answer.
    #[error(
        "a server holds {} but its backup socket {} does not answer",
        database.display(),
        socket.display()
    )]
    ServerUnreachable {
        /// The database file.
        database: PathBuf,
        /// Its socket.
        socket: PathBuf,
        /// What connecting said.
        #[source]
        source: io::Error,
    },
    /// The server (or, without one, this process) could not make the copy.
    #[error("the copy failed: {0}")]
    Failed(String),
}

/// The socket beside the database file at `database`.
pub fn socket_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(".backup.sock");
    PathBuf::from(name)
}

/// The server's side: answers backup requests on the socket beside `database` for as long as
/// the process runs. A socket file left by a server that stopped is replaced: this process
/// holds the database, so no other server can be listening there.
pub fn serve(db: Db, database: &Path) -> io::Result<PathBuf> {
    use std::os::unix::fs::PermissionsExt;
    let socket = socket_path(database);
    match std::fs::remove_file(&socket) {
        Err(error) if error.kind() != io::ErrorKind::NotFound => return Err(error),
        _ => {}
    }
    let listener = UnixListener::bind(&socket)?;
    std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))?;
    tokio::spawn(async move {
        loop {
            match listener.accept().await {
                Ok((stream, _)) => {
                    tokio::spawn(answer(db.clone(), stream));
                }
                Err(error) => {
                    tracing::warn!(%error, "the backup socket stopped accepting");
                    return;
                }
            }
        }
    });
    Ok(socket)
}

/// One request on the socket.
async fn answer(db: Db, stream: UnixStream) {
    let (reader, mut writer) = stream.into_split();
    let mut line = String::new();
    let read = BufReader::new(reader)
        .take(LONGEST_REQUEST)
        .read_line(&mut line)
        .await;
    let reply = match read {
        Ok(_) => match line.trim_end_matches('\n').strip_prefix("backup ") {
            Some(target) if Path::new(target).is_absolute() => {
                match copy(&db, Path::new(target)).await {
                    Ok(bytes) => {
                        tracing::info!(target, bytes, "backup written");
                        format!("ok {bytes}\n")
                    }
                    Err(error) => format!("error {error}\n"),
                }
            }
            _ => "error the request is `backup /absolute/path`\n".to_owned(),
        },
        Err(error) => format!("error {error}\n"),
    };
    let _ = writer.write_all(reply.as_bytes()).await;
}

/// Copies the database into `target` (a new file, its owner's only) and says how many bytes
/// it holds. The copy is written under a temporary name beside `target` and renamed when
/// complete, so `target` is either absent or a whole backup.
async fn copy(db: &Db, target: &Path) -> Result<u64, BackupError> {
    use std::os::unix::fs::PermissionsExt;
    if target.exists() {
        return Err(BackupError::TargetExists(target.to_owned()));
    }
    let mut partial = target.as_os_str().to_owned();
    partial.push(".partial");
    let partial = PathBuf::from(partial);
    let _ = std::fs::remove_file(&partial);
    db.backup_into(&partial)
        .await
        .map_err(|error| BackupError::Failed(error.to_string()))?;
    let failed = |error: io::Error| BackupError::Failed(error.to_string());
    std::fs::set_permissions(&partial, std::fs::Permissions::from_mode(0o600)).map_err(failed)?;
    if target.exists() {
        let _ = std::fs::remove_file(&partial);
        return Err(BackupError::TargetExists(target.to_owned()));
    }
    std::fs::rename(&partial, target).map_err(failed)?;
    Ok(std::fs::metadata(target).map_err(failed)?.len())
}

/// The command's side: copies the SQLite database of `settings` into `target`, through the
/// running server when one holds the file, else directly. Returns the copy's size in bytes.
pub async fn run(settings: &DatabaseSettings, target: &Path) -> Result<u64, BackupError> {
    let database = sqlite_path(&settings.url).ok_or(BackupError::NotSqlite)?;
    if !database.exists() {
        return Err(BackupError::NoDatabase(database));
    }
    let target = absolute(target)?;
    if target.exists() {
        return Err(BackupError::TargetExists(target));
    }
    let socket = socket_path(&database);
    match UnixStream::connect(&socket).await {
        Ok(stream) => ask(stream, &target).await,
        Err(source) if Db::sqlite_file_in_use(&database) => Err(BackupError::ServerUnreachable {
            database,
            socket,
            source,
        }),
        Err(_) => {
            let db = Db::connect(settings)
                .await
                .map_err(|error| BackupError::Failed(format!("{error:#}")))?;
            let copied = copy(&db, &target).await;
            db.pool().close().await;
            copied
        }
    }
}

/// Sends the request on `stream` and reads the server's answer.
async fn ask(stream: UnixStream, target: &Path) -> Result<u64, BackupError> {
    let failed = |error: io::Error| BackupError::Failed(error.to_string());
    let (reader, mut writer) = stream.into_split();
    let request = format!("backup {}\n", target.display());
    writer.write_all(request.as_bytes()).await.map_err(failed)?;
    let mut line = String::new();
    BufReader::new(reader)
        .take(LONGEST_REQUEST)
        .read_line(&mut line)
        .await
        .map_err(failed)?;
    let line = line.trim_end();
    if let Some(bytes) = line.strip_prefix("ok ") {
        return bytes
            .parse()
            .map_err(|_| BackupError::Failed(format!("the server answered `{line}`")));
    }
    match line.strip_prefix("error ") {
        Some(sentence) if sentence.contains("exists already") => {
            Err(BackupError::TargetExists(target.to_owned()))
        }
        Some(sentence) => Err(BackupError::Failed(sentence.to_owned())),
        None => Err(BackupError::Failed(format!("the server answered `{line}`"))),
    }
}

/// `target` as an absolute path (the server may run in another directory): its directory
/// resolved, its name kept.
fn absolute(target: &Path) -> Result<PathBuf, BackupError> {
    let directory_error = |source| BackupError::TargetDirectory {
        path: target.to_owned(),
        source,
    };
    let name = target.file_name().ok_or_else(|| {
        directory_error(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the target names no file",
        ))
    })?;
    let directory = match target.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent.to_owned(),
        _ => PathBuf::from("."),
    };
    Ok(directory
        .canonicalize()
        .map_err(directory_error)?
        .join(name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_sits_beside_the_database() {
        assert_eq!(
            socket_path(Path::new("/var/lib/kc/kings-corner.db")),
            PathBuf::from("/var/lib/kc/kings-corner.db.backup.sock")
        );
    }

    #[test]
    fn a_relative_target_is_made_absolute_and_a_missing_directory_is_named() {
        let made = absolute(Path::new("copy.db")).unwrap();
        assert!(made.is_absolute() && made.ends_with("copy.db"));
        let missing = absolute(Path::new("/no/such/directory/copy.db")).unwrap_err();
        assert!(
            matches!(missing, BackupError::TargetDirectory { .. }),
            "{missing}"
        );
    }
}
