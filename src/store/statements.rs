//! Every statement of the store is built with [`query`]: sqlx's own, except that behind a
//! pooler in transaction mode its prepared statements are unnamed. PgBouncer (before 1.21)
//! keeps no account of prepared statements, so a named one prepared in one transaction would
//! be missing from, or collide with another client's on, the PostgreSQL session the next
//! transaction borrows. An unnamed statement lives only until the next one, inside the
//! transaction [`super::Db::single`] opens for it.
//!
//! Named statements are the faster default (one round trip once prepared), so the switch is
//! made only for a pooler, once and for the whole process: unnamed statements also work on a
//! direct session, so a process with two databases is never wrong, only slower on one.

use std::sync::atomic::{AtomicBool, Ordering};

use sqlx::any::{AnyArguments, AnyRow};
use sqlx::query::{Query, QueryAs};
use sqlx::{Any, FromRow};

/// Whether statements are named (and cached per connection), until a pooler turns it off.
static NAMED: AtomicBool = AtomicBool::new(true);

/// From now on, every statement this process prepares is unnamed.
pub(super) fn unnamed_from_now_on() {
    NAMED.store(false, Ordering::Relaxed);
}

/// `sqlx::query(sql)`, its statement named only while no pooler said otherwise.
pub(crate) fn query(sql: &str) -> Query<'_, Any, AnyArguments<'_>> {
    sqlx::query(sql).persistent(NAMED.load(Ordering::Relaxed))
}

/// `sqlx::query_as(sql)`, named as [`query`] is.
pub(crate) fn query_as<O>(sql: &str) -> QueryAs<'_, Any, O, AnyArguments<'_>>
where
    O: for<'r> FromRow<'r, AnyRow>,
{
    sqlx::query_as(sql).persistent(NAMED.load(Ordering::Relaxed))
}
