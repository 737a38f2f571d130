//! `kings-corner admin …`: the operators' commands on the server's database (docs/operations.md,
//! "Moderation"). Each prints what it found or did, or an error saying why not, and exits 1
//! after an error; the work itself is the match service's ([`crate::matches::moderation`]).

use std::sync::Arc;

use crate::config::{AdminCommand, DatabaseSettings};
use crate::live::{Notifier, Wake};
use crate::matches::{MatchError, Matches};
use crate::store::Db;
use crate::time_source::SystemClock;

/// Runs `command` on the database of `settings`; the text to print, or why it failed.
pub async fn run(command: AdminCommand, database: &DatabaseSettings) -> Result<String, String> {
    let db = Db::connect_existing(database)
        .await
        .map_err(|problem| format!("{:#}", anyhow::Error::from(problem)))?;
    let matches = Matches::new(
        db,
        1,
        Notifier::in_process(),
        Arc::new(SystemClock),
        Wake::default(),
    );
    answer(&matches, command)
        .await
        .map_err(|error| error.to_string())
}

/// Runs `command` with `matches`: the text to print, or the refusal.
pub async fn answer(matches: &Matches, command: AdminCommand) -> Result<String, MatchError> {
    Ok(match command {
        AdminCommand::Reports { all } => {
            let queue = matches.report_queue(all).await?;
            if queue.is_empty() {
                "no open reports".to_owned()
            } else {
                lines(queue)
            }
        }
        AdminCommand::Report { id } => {
            let report = matches.report_in_context(&id).await?;
            report.to_string().trim_end().to_owned()
        }
        AdminCommand::Resolve {
            id,
            outcome,
            operator,
        } => {
            matches.resolve_report(&id, &outcome, &operator).await?;
            format!("ok: report {id} resolved")
        }
        AdminCommand::Audit { limit } => {
            let actions = matches.operator_actions(limit).await?;
            if actions.is_empty() {
                "no operator actions yet".to_owned()
            } else {
                lines(actions)
            }
        }
    })
}

fn lines<T: ToString>(items: Vec<T>) -> String {
    items
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}
