//! Which open seeks sit down together (quick pairing, docs/playing.md, "Quick pairing"). Pure: the
//! pairing round of [`super::seeks`] reads the open seeks, asks [`tables`] and writes each
//! table it answers in one transaction that takes its seeks only if they are all still open.
//!
//! Seeks pair only with seeks for the same kind of table (preset, seats, clock, what a passed
//! deadline means, rated or not) and from other accounts. The seek waiting longest is served
//! first: it is seated with the compatible seekers whose ratings in the pool are closest to
//! its seeker's (the longer waiting first among equals). Compatible means both ways: each
//! seeker's shown rating lies in every other seek's range. A seek that found nobody enough
//! and accepts bots, once it has waited `bots_after` seconds, is seated with the compatible
//! seekers who accept bots too, and bots of its level take the empty seats. Two accounts one of
//! which blocks the other ([`Apart`]) never sit at one table.

use std::collections::{HashMap, HashSet};

use crate::model::Level;
use crate::store::seeks::{OpenSeek, SeekTable};

/// A table to seat: the open seeks (indices into the round's list, the longest waiting
/// first) and the bots beside them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pairing {
    /// The seeks seated, by index; the first is the one served.
    pub seeks: Vec<usize>,
    /// How many seats bots take.
    pub bots: u8,
    /// Their level.
    pub bot_level: Level,
}

/// Pairs of accounts kept apart: one of the two blocks the other. Each account maps to those it
/// may not sit with, both ways round, so a check borrows and allocates nothing (it runs for
/// every pair of seekers a round weighs).
#[derive(Debug, Default)]
pub struct Apart(HashMap<String, HashSet<String>>);

impl Apart {
    /// The pairs of these blocks, (blocker, blocked) each: either way round keeps them apart.
    pub fn of(blocks: Vec<(String, String)>) -> Apart {
        let mut apart: HashMap<String, HashSet<String>> = HashMap::new();
        for (blocker, blocked) in blocks {
            apart
                .entry(blocked.clone())
                .or_default()
                .insert(blocker.clone());
            apart.entry(blocker).or_default().insert(blocked);
        }
        Apart(apart)
    }

    /// Whether accounts `one` and `other` may sit at one table.
    fn allow(&self, one: &str, other: &str) -> bool {
        self.0.get(one).is_none_or(|kept| !kept.contains(other))
    }
}

/// The tables `open` (longest waiting first, as the store lists them) fills at `now`, keeping
/// the pairs `apart` apart. No seek is in two of them.
pub fn tables(open: &[OpenSeek], apart: &Apart, now: i64) -> Vec<Pairing> {
    let mut kinds: HashMap<SeekTable, Vec<usize>> = HashMap::new();
    let mut order = Vec::new();
    for (index, open_seek) in open.iter().enumerate() {
        let kind = open_seek.seek.table;
        kinds
            .entry(kind)
            .or_insert_with(|| {
                order.push(kind);
                Vec::new()
            })
            .push(index);
    }
    let mut found = Vec::new();
    for kind in order {
        found.extend(tables_of_kind(open, apart, &kinds[&kind], now));
    }
    found
}

/// The tables of one kind: `members` are indices into `open`, longest waiting first.
fn tables_of_kind(open: &[OpenSeek], apart: &Apart, members: &[usize], now: i64) -> Vec<Pairing> {
    let mut seated = vec![false; open.len()];
    let mut found = Vec::new();
    for &served in members {
        if seated[served] {
            continue;
        }
        let seats = usize::from(open[served].seek.table.seats);
        let others = |with_bots: bool| {
            let mut others: Vec<usize> = members
                .iter()
                .copied()
                .filter(|&other| other != served && !seated[other])
                .filter(|&other| !with_bots || accepts_bots(&open[other]))
                .collect();
            // Closest rating first; `sort_by_key` is stable, so the longer waiting first
            // among equals.
            let rating = shown(&open[served]);
            others.sort_by_key(|&other| (shown(&open[other]) - rating).abs());
            choose(open, apart, served, &others, seats)
        };
        let full = others(false);
        let table = if full.len() == seats {
            Some(Pairing {
                seeks: in_waiting_order(full),
                bots: 0,
                bot_level: Level::Basic,
            })
        } else if waited_for_bots(&open[served], now) {
            let with_bots = others(true);
            Some(Pairing {
                bots: (seats - with_bots.len()) as u8,
                seeks: in_waiting_order(with_bots),
                bot_level: open[served].seek.bot_level.unwrap_or(Level::Basic),
            })
        } else {
            None
        };
        if let Some(table) = table {
            for &index in &table.seeks {
                seated[index] = true;
            }
            found.push(table);
        }
    }
    found
}

/// `served` and, of `others` in their order, each one compatible with all chosen before it,
/// of another account and not kept apart from any, up to `seats` in all.
fn choose(
    open: &[OpenSeek],
    apart: &Apart,
    served: usize,
    others: &[usize],
    seats: usize,
) -> Vec<usize> {
    let mut chosen = vec![served];
    for &other in others {
        if chosen.len() == seats {
            break;
        }
        let fits = chosen.iter().all(|&already| {
            open[already].seek.account_id != open[other].seek.account_id
                && apart.allow(&open[already].seek.account_id, &open[other].seek.account_id)
                && accepts(&open[already], &open[other])
                && accepts(&open[other], &open[already])
        });
        if fits {
            chosen.push(other);
        }
    }
    chosen
}

/// The seeks of a table, the one served first and the others in the round's order (longest
/// waiting first).
fn in_waiting_order(mut chosen: Vec<usize>) -> Vec<usize> {
    chosen[1..].sort_unstable();
    chosen
}

/// Whether `seek`'s range takes `seeker`'s shown rating.
fn accepts(seek: &OpenSeek, seeker: &OpenSeek) -> bool {
    let rating = shown(seeker);
    seek.seek.rating_min.is_none_or(|min| rating >= min)
        && seek.seek.rating_max.is_none_or(|max| rating <= max)
}

fn accepts_bots(seek: &OpenSeek) -> bool {
    seek.seek.bots_after.is_some()
}

/// Whether `seek` has waited long enough at `now` for bots to take the empty seats.
fn waited_for_bots(seek: &OpenSeek, now: i64) -> bool {
    seek.seek
        .bots_after
        .is_some_and(|after| now - seek.seek.created_at >= after)
}

fn shown(seek: &OpenSeek) -> i64 {
    seek.rating.displayed()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{OnTimeout, SeekStatus};
    use crate::ratings::{Rating, START};
    use crate::rules::Preset;
    use crate::store::seeks::SeekRow;

    const FOUR: SeekTable = SeekTable {
        preset: Preset::Standard,
        seats: 4,
        clock: None,
        on_timeout: OnTimeout::Claim,
        rated: false,
    };

    const TWO: SeekTable = SeekTable { seats: 2, ..FOUR };

    fn seek(account: &str, table: SeekTable, created_at: i64) -> OpenSeek {
        OpenSeek {
            seek: SeekRow {
                id: format!("{account}-{created_at}"),
                account_id: account.to_owned(),
                table,
                rating_min: None,
                rating_max: None,
                bots_after: None,
                bot_level: None,
                status: SeekStatus::Open,
                match_id: None,
                created_at,
                expires_at: created_at + 3600,
                ended_at: None,
            },
            rating: START,
        }
    }

    /// A seeker shown `shown` (σ the start's).
    fn rated(mut open: OpenSeek, shown: i64) -> OpenSeek {
        let mu = (shown as f64 - 1000.0) / 40.0 + 3.0 * START.sigma;
        open.rating = Rating {
            mu,
            sigma: START.sigma,
        };
        assert_eq!(open.rating.displayed(), shown);
        open
    }

    /// A seek that takes bots after `after` seconds.
    fn bots(mut open: OpenSeek, after: i64) -> OpenSeek {
        open.seek.bots_after = Some(after);
        open
    }

    fn range(mut open: OpenSeek, min: Option<i64>, max: Option<i64>) -> OpenSeek {
        open.seek.rating_min = min;
        open.seek.rating_max = max;
        open
    }

    #[test]
    fn a_table_fills_with_seekers_of_its_kind_only() {
        let open = [
            seek("a", FOUR, 1),
            seek("b", TWO, 2),
            seek("c", FOUR, 3),
            seek("d", FOUR, 4),
        ];
        assert!(
            tables(&open, &Apart::default(), 10).is_empty(),
            "three of four seats and one of two: nobody sits down"
        );
        let open = [
            seek("a", TWO, 1),
            seek("b", FOUR, 2),
            seek("c", TWO, 3),
            seek("d", TWO, 4),
        ];
        let found = tables(&open, &Apart::default(), 10);
        assert_eq!(found.len(), 1);
        assert_eq!(
            found[0].seeks,
            [0, 2],
            "the two longest waiting of the kind"
        );
        assert_eq!(found[0].bots, 0);
    }

    #[test]
    fn one_account_never_takes_two_seats() {
        let open = [seek("a", TWO, 1), seek("a", TWO, 2), seek("b", TWO, 3)];
        let found = tables(&open, &Apart::default(), 10);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].seeks, [0, 2]);
    }

    #[test]
    fn accounts_kept_apart_never_share_a_table() {
        let open = [
            seek("a", FOUR, 1),
            seek("b", FOUR, 2),
            seek("c", FOUR, 3),
            seek("d", FOUR, 4),
            seek("e", FOUR, 5),
        ];
        // c blocks a: a is served with b, d and e; c waits.
        let apart = Apart::of(vec![("c".into(), "a".into())]);
        let found = tables(&open, &apart, 10);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].seeks, [0, 1, 3, 4]);
        // Blocked both ways round, with bots to fill: a and c still never meet.
        let open = [bots(seek("a", TWO, 1), 0), bots(seek("c", TWO, 2), 0)];
        let apart = Apart::of(vec![("a".into(), "c".into())]);
        let found = tables(&open, &apart, 100);
        assert_eq!(found.len(), 2, "each sits with a bot");
        assert!(found.iter().all(|table| table.seeks.len() == 1));
    }

    #[test]
    fn the_longest_waiting_sits_with_the_closest_ratings() {
        let open = [
            rated(seek("a", TWO, 1), 1500),
            rated(seek("b", TWO, 2), 900),
            rated(seek("c", TWO, 3), 1450),
            rated(seek("d", TWO, 4), 1460),
        ];
        let found = tables(&open, &Apart::default(), 10);
        assert_eq!(found[0].seeks, [0, 3], "1460 is closest to 1500");
        assert_eq!(
            found[1].seeks,
            [1, 2],
            "then the longest waiting of the rest"
        );
    }

    #[test]
    fn ranges_hold_both_ways() {
        // a takes nobody below 1400; b's range excludes a.
        let open = [
            range(rated(seek("a", TWO, 1), 1500), Some(1400), None),
            range(rated(seek("b", TWO, 2), 1450), None, Some(1480)),
            rated(seek("c", TWO, 3), 1300),
            rated(seek("d", TWO, 4), 1420),
        ];
        let found = tables(&open, &Apart::default(), 10);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].seeks, [0, 3], "b refuses a, c is below a's range");
        assert_eq!(found[1].seeks, [1, 2]);
    }

    #[test]
    fn bots_take_the_empty_seats_after_the_wait_for_those_who_accept_them() {
        let mut served = seek("a", FOUR, 100);
        served.seek.bots_after = Some(60);
        served.seek.bot_level = Some(Level::Expert);
        let mut willing = seek("b", FOUR, 110);
        willing.seek.bots_after = Some(600);
        let unwilling = seek("c", FOUR, 120);
        let open = [served, willing, unwilling];
        assert!(
            tables(&open, &Apart::default(), 159).is_empty(),
            "a has waited 59 s"
        );
        let found = tables(&open, &Apart::default(), 160);
        assert_eq!(
            found,
            [Pairing {
                seeks: vec![0, 1],
                bots: 2,
                bot_level: Level::Expert
            }]
        );
    }

    #[test]
    fn a_full_table_of_people_comes_before_bots() {
        let mut served = seek("a", TWO, 100);
        served.seek.bots_after = Some(10);
        let open = [served, seek("b", TWO, 105)];
        let found = tables(&open, &Apart::default(), 1000);
        assert_eq!(found[0].seeks, [0, 1]);
        assert_eq!(found[0].bots, 0);
    }
}
