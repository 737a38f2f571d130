//! Backups and their restores, as an operator makes them: `kings-corner backup FILE` for SQLite
//! while the server plays, and the `pg_dump`/`pg_restore` recipe of docs/operations.md for PostgreSQL. Each
//! restored database serves a new server on which the same tokens play on.

use std::path::Path;
use std::process::Command;

use crate::helpers::{
    Player, TestApp, TestDatabase, backup, play_first_action, play_on, spawn_app_with,
    standard_match, view_at, view_of_turn,
};

/// A match with a move played, and the version it is at.
async fn a_match_under_way(app: &TestApp) -> (Vec<Player>, String, i64) {
    let (players, id) = standard_match(app).await;
    let (turn, view) = view_of_turn(app, &players, &id).await;
    play_first_action(app, &players[turn], &id, &view).await;
    let version = view_at(app, &app.address, &players[0], &id).await["version"]
        .as_i64()
        .unwrap();
    (players, id, version)
}

#[tokio::test]
async fn a_sqlite_backup_made_while_the_server_plays_restores_and_plays_on() {
    use std::os::unix::fs::PermissionsExt;
    let directory = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", directory.path().join("live.db").display());
    let app = spawn_app_with(|settings| settings.database.url = url.clone()).await;
    let (players, id, version) = a_match_under_way(&app).await;

    // The server holds its file: the copy is made through its socket while it runs.
    let copy = directory.path().join("copy.db");
    let (made, said) = backup(&url, &copy).await;
    assert!(made, "{said}");
    assert!(said.starts_with("ok: "), "{said}");
    let mode = std::fs::metadata(&copy).unwrap().permissions().mode() & 0o777;
    assert_eq!(
        mode, 0o600,
        "a backup holds the signing keys: its owner's only"
    );
    let (again, said) = backup(&url, &copy).await;
    assert!(!again && said.contains("exists already"), "{said}");

    // Play goes on after the copy; the copy keeps the moment it was made.
    let (turn, view) = view_of_turn(&app, &players, &id).await;
    play_first_action(&app, &players[turn], &id, &view).await;

    // Restore: a new server on the copy. The same tokens read and play.
    let restored = format!("sqlite://{}", copy.display());
    let mut settings = app.settings.clone();
    settings.database.url = restored.clone();
    let (_, address) = crate::helpers::start(settings).await;
    let view = view_at(&app, &address, &players[0], &id).await;
    assert_eq!(
        view["version"], version,
        "the copy is the database when it was made"
    );
    play_on(&app, &address, &players, &id).await;

    // The restored server answers for its own file too; a copy no server holds is copied by
    // the command itself.
    let second = directory.path().join("second.db");
    let (made, said) = backup(&restored, &second).await;
    assert!(made, "{said}");
    let (made, said) = backup(
        &format!("sqlite://{}", second.display()),
        &directory.path().join("third.db"),
    )
    .await;
    assert!(made, "{said}");
}

#[tokio::test]
async fn backup_refuses_what_it_cannot_copy() {
    let directory = tempfile::tempdir().unwrap();
    let target = directory.path().join("copy.db");
    let missing = format!("sqlite://{}", directory.path().join("none.db").display());
    let (made, said) = backup(&missing, &target).await;
    assert!(!made && said.contains("there is no database"), "{said}");
    let (made, said) = backup("postgres://postgres@127.0.0.1:5432/postgres", &target).await;
    assert!(!made && said.contains("pg_dump"), "{said}");
    let nowhere = Path::new("/no/such/directory/copy.db");
    std::fs::File::create(directory.path().join("idle.db")).unwrap();
    let idle = format!("sqlite://{}", directory.path().join("idle.db").display());
    let (made, said) = backup(&idle, nowhere).await;
    assert!(!made && said.contains("cannot be used"), "{said}");
}

/// docs/operations.md's PostgreSQL recipe: `pg_dump --format=custom`, then `pg_restore` into an empty
/// database. Runs where the suite runs on PostgreSQL.
#[tokio::test]
async fn a_postgres_dump_restores_and_plays_on() {
    let app = spawn_app_with(|_| {}).await;
    let (Some(name), TestDatabase::Postgres { admin_url, .. }) =
        (app.database.postgres_name(), &app.database)
    else {
        return; // SQLite: the test above.
    };
    let (players, id, version) = a_match_under_way(&app).await;
    let base = admin_url.rsplit_once('/').unwrap().0;
    let dump = tempfile::tempdir().unwrap();
    let file = dump.path().join("kings.dump");
    let dumped = Command::new("pg_dump")
        .args(["--format=custom", "--file"])
        .arg(&file)
        .arg(format!("{base}/{name}"))
        .status()
        .expect("pg_dump runs");
    assert!(dumped.success());

    let (restored, url) = TestDatabase::postgres(admin_url).await;
    let loaded = Command::new("pg_restore")
        .args(["--no-owner", "--exit-on-error", "--dbname", &url])
        .arg(&file)
        .status()
        .expect("pg_restore runs");
    assert!(loaded.success());
    let mut settings = app.settings.clone();
    settings.database.url = url;
    settings.database.pooler = kings_corner::config::Pooler::None;
    settings.database.listen_url = None;
    restored.behind_pooler(&mut settings).await;
    let (_, address) = crate::helpers::start(settings).await;
    let view = view_at(&app, &address, &players[0], &id).await;
    assert_eq!(view["version"], version);
    play_on(&app, &address, &players, &id).await;
}
