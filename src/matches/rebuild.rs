//! `kings-corner ratings rebuild`: every rating recomputed from the logs alone and compared
//! with what is stored (docs/ratings.md, "Recomputing").
//!
//! The rated matches are taken in the order they were rated. Each one's export is verified
//! as `kings-corner verify` would (commitment, hash chain, checked replay), its standings read
//! from the replayed end, and its players rated from the ratings the rebuild has reached so far
//! with the server's own computation ([`super::rated::rate`]). Every stored change must equal
//! the recomputed one to the bit, every stored rating the rebuild's last, and every finished
//! rated match must have been rated, unless its log ends it unrated ([`super::rated::counts`]).

use std::collections::{BTreeMap, HashMap};

use super::export;
use super::ledger::{UNRATED, rate};
use super::{MatchError, Matches};
use crate::rules::Preset;
use crate::store::ratings::{Standing, StoredChange};

/// Changes read per query.
const PAGE: i64 = 1000;

/// What a rebuild found.
#[derive(Debug, Default)]
pub struct RebuildReport {
    /// Rated matches replayed.
    pub matches: usize,
    /// Stored changes compared.
    pub changes: usize,
    /// Stored ratings compared.
    pub ratings: usize,
    /// Every difference, in words; empty when the rebuild reproduced everything.
    pub differences: Vec<String>,
}

impl std::fmt::Display for RebuildReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        for difference in &self.differences {
            writeln!(formatter, "DIFFERENT: {difference}")?;
        }
        let verdict = if self.differences.is_empty() {
            "ok"
        } else {
            "FAILED"
        };
        write!(
            formatter,
            "{verdict}: {} rated matches replayed, {} rating changes and {} ratings compared, {} different",
            self.matches,
            self.changes,
            self.ratings,
            self.differences.len()
        )
    }
}

impl Matches {
    /// Recomputes every rating from the logs and compares (see the module's comment).
    pub async fn rebuild_ratings(&self) -> Result<RebuildReport, MatchError> {
        let mut report = RebuildReport::default();
        let changes = self.every_rating_change().await?;
        report.changes = changes.len();
        // A match's changes in the order it was rated: by its first change.
        let mut by_match: Vec<(String, Vec<StoredChange>)> = Vec::new();
        let mut position: HashMap<String, usize> = HashMap::new();
        for change in changes {
            let at = *position.entry(change.match_id.clone()).or_insert_with(|| {
                by_match.push((change.match_id.clone(), Vec::new()));
                by_match.len() - 1
            });
            by_match[at].1.push(change);
        }
        let mut reached: HashMap<(String, Preset), Standing> = HashMap::new();
        for (match_id, mut stored) in by_match {
            report.matches += 1;
            stored.sort_by_key(|change| change.seat);
            if let Err(difference) = self.replay_rating(&match_id, &stored, &mut reached).await? {
                report
                    .differences
                    .push(format!("match {match_id}: {difference}"));
            }
        }
        let rated: std::collections::HashSet<String> = position.into_keys().collect();
        for match_id in self.db.finished_rated_matches().await? {
            if !rated.contains(&match_id) {
                // Unrated only if its log says a seat left before its first turn was over.
                let exported = self.export_for_audit(&match_id).await?;
                let unrated = match export::verify(&exported) {
                    Ok(verified) => verified.unrated_because.is_some(),
                    Err(_) => false,
                };
                if !unrated {
                    report.differences.push(format!(
                        "match {match_id}: finished at a rated table and rated by its log, but no rating changed"
                    ));
                }
            }
        }
        let mut expected: BTreeMap<(String, &'static str), Standing> = reached
            .into_iter()
            .map(|((account, pool), standing)| ((account, pool.name()), standing))
            .collect();
        for stored in self.db.all_ratings().await? {
            report.ratings += 1;
            let key = (stored.account_id.clone(), stored.pool.name());
            match expected.remove(&key) {
                Some(rebuilt) if rebuilt == stored.standing => {}
                Some(rebuilt) => report.differences.push(format!(
                    "account {} in {}: stored {:?}, rebuilt {:?}",
                    key.0, key.1, stored.standing, rebuilt
                )),
                None => report.differences.push(format!(
                    "account {} in {}: a rating no rated match gave",
                    key.0, key.1
                )),
            }
        }
        for ((account, pool), rebuilt) in expected {
            report.differences.push(format!(
                "account {account} in {pool}: rebuilt {rebuilt:?}, but no rating is stored"
            ));
        }
        Ok(report)
    }

    async fn every_rating_change(&self) -> Result<Vec<StoredChange>, MatchError> {
        let mut changes = Vec::new();
        loop {
            let after = changes.last().map_or(0, |change: &StoredChange| change.id);
            let page = self.db.rating_changes_after(after, PAGE).await?;
            let full = page.len() as i64 == PAGE;
            changes.extend(page);
            if !full {
                return Ok(changes);
            }
        }
    }

    /// One rated match replayed from its log and rated from `reached`, which it then moves
    /// on; `Ok(Err(..))` says how the stored changes differ.
    async fn replay_rating(
        &self,
        match_id: &str,
        stored: &[StoredChange],
        reached: &mut HashMap<(String, Preset), Standing>,
    ) -> Result<Result<(), String>, MatchError> {
        let exported = self.export_for_audit(match_id).await?;
        let verified = match export::verify(&exported) {
            Ok(verified) => verified,
            Err(problem) => return Ok(Err(format!("its log does not verify: {problem}"))),
        };
        let Some(pool) = Preset::of(&exported.rules) else {
            return Ok(Err("its rules are no preset's".into()));
        };
        if let Some(why) = verified.unrated_because {
            return Ok(Err(format!("ratings were stored, but {why}")));
        }
        if stored.iter().any(|change| change.pool != pool) {
            return Ok(Err(format!("rated in another pool than {}", pool.name())));
        }
        let mut accounts = vec![String::new(); exported.seats.len()];
        for seat in self.db.seats(match_id).await? {
            if let Some(slot) = accounts.get_mut(usize::from(seat.seat)) {
                slot.clone_from(&seat.account_id);
            }
        }
        let before: Vec<Standing> = accounts
            .iter()
            .map(|account| {
                reached
                    .get(&(account.clone(), pool))
                    .copied()
                    .unwrap_or(UNRATED)
            })
            .collect();
        let update = rate(pool, &accounts, &verified.standings, &before);
        if update.changes.len() != stored.len() {
            return Ok(Err(format!(
                "{} seats, {} changes stored",
                update.changes.len(),
                stored.len()
            )));
        }
        for (rebuilt, stored) in update.changes.iter().zip(stored) {
            let same = rebuilt.account_id == stored.account_id
                && rebuilt.seat == stored.seat
                && rebuilt.place == stored.place
                && rebuilt.before.rating == stored.before
                && rebuilt.after == stored.after;
            if !same {
                return Ok(Err(format!(
                    "seat {}: stored place {} from {:?} to {:?}, rebuilt place {} from {:?} to {:?}",
                    stored.seat,
                    stored.place,
                    stored.before,
                    stored.after,
                    rebuilt.place,
                    rebuilt.before.rating,
                    rebuilt.after
                )));
            }
        }
        for change in update.changes {
            let standing = Standing {
                rating: change.after,
                matches: change.before.matches + 1,
            };
            reached.insert((change.account_id, pool), standing);
        }
        Ok(Ok(()))
    }
}
