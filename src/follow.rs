//! Following a numbered log: a match's log, or an account's notifications. Both are read the
//! same three ways, written once here: a page after a number, a long-poll that waits for a
//! first new item when there is none yet, and a stream that yields item by item as they are
//! written, with a keep-alive after every quiet while.
//!
//! Waiting is the notifier's business ([`crate::live`]); a log only says how to read a page,
//! how to ask for its newest number and how to wait past one.

use std::time::Duration;

use futures_util::Stream;

/// Quiet time after which a followed log yields [`Followed::KeepAlive`].
pub const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// A log whose items are numbered 1, 2, … in the order they were written.
pub trait NumberedLog {
    /// What the log holds, as its reader may see it.
    type Item;
    /// Why a read failed.
    type Error;

    /// Up to a page of the items numbered after `after`, in order, as far as it read.
    fn after(&self, after: i64) -> impl Future<Output = Result<Page<Self::Item>, Self::Error>>;

    /// The newest number written (0 for an empty log).
    fn newest(&self) -> impl Future<Output = Result<i64, Self::Error>>;

    /// Returns once a number past `after` is written (true: it may have been), or `wait`
    /// runs out (false).
    fn wait_past(&self, after: i64, wait: Duration) -> impl Future<Output = bool>;

    /// [`NumberedLog::wait_past`] again, for a reader whose last wait past `after` ran out
    /// just now: the log need not ask its store first (see [`crate::live::Notifier::wait_more`]).
    fn wait_more(&self, after: i64, wait: Duration) -> impl Future<Output = bool> {
        self.wait_past(after, wait)
    }
}

/// A page of a log as its reader may see it: a log may leave out entries its reader is not
/// shown (talk from an account the reader blocks), so the items alone do not say how far it
/// read.
#[derive(Debug, PartialEq, Eq)]
pub struct Page<T> {
    /// The items shown, in order.
    pub items: Vec<T>,
    /// The number of the last entry read, shown or not (the `after` asked for when none was).
    pub through: i64,
}

/// A page of `log` after `after` and its newest number (which the reader knew to be `newest`),
/// waiting up to `wait` for a first new item when there is none yet (entries not shown to the
/// reader do not end the wait).
pub async fn poll<L: NumberedLog>(
    log: &L,
    newest: i64,
    after: i64,
    wait: Duration,
) -> Result<(Vec<L::Item>, i64), L::Error> {
    let deadline = tokio::time::Instant::now() + wait;
    let mut newest = newest;
    let mut read_through = after;
    loop {
        if newest <= read_through && !wait.is_zero() {
            let left = deadline.saturating_duration_since(tokio::time::Instant::now());
            if left.is_zero() || !log.wait_past(read_through, left).await {
                // Nothing came: an empty page, read from no one.
                return Ok((Vec::new(), newest));
            }
            newest = log.newest().await?;
        }
        let page = log.after(read_through).await?;
        if !page.items.is_empty() || page.through <= read_through || wait.is_zero() {
            return Ok((page.items, newest));
        }
        // Everything new was left out for this reader: wait on past it.
        read_through = page.through;
    }
}

/// What a followed log yields.
#[derive(Debug, PartialEq, Eq)]
pub enum Followed<T> {
    /// The next item.
    Item(T),
    /// Nothing new for [`KEEP_ALIVE`]; the reader is still there.
    KeepAlive,
}

/// `log` after `after`, item by item as they are written, with a keep-alive after every quiet
/// [`KEEP_ALIVE`]. Ends when a read fails (the client resumes after the last item it got).
pub fn follow<L: NumberedLog>(log: L, after: i64) -> impl Stream<Item = Followed<L::Item>> {
    let start = Following {
        log,
        after,
        pending: Vec::new(),
        then: Then::Read,
    };
    futures_util::stream::unfold(start, |mut following| async move {
        let item = following.next().await?;
        Some((item, following))
    })
}

/// A followed log between two items.
struct Following<L: NumberedLog> {
    log: L,
    after: i64,
    /// Read but not yet yielded, newest first.
    pending: Vec<L::Item>,
    /// What it does once `pending` is yielded.
    then: Then,
}

/// What a followed log does next, with nothing read left to yield.
#[derive(Clone, Copy)]
enum Then {
    /// Read a page: something new was announced (or this is the start).
    Read,
    /// Wait past the last number read. The wait first asks the log's newest number, so after
    /// a page this also says whether more is there, without reading an empty page to know.
    Wait,
    /// Wait again: the last wait ran out with nothing new, so nothing is asked first.
    WaitMore,
}

impl<L: NumberedLog> Following<L> {
    async fn next(&mut self) -> Option<Followed<L::Item>> {
        loop {
            if let Some(item) = self.pending.pop() {
                return Some(Followed::Item(item));
            }
            let moved = match self.then {
                Then::Read => {
                    let page = self.log.after(self.after).await.ok()?;
                    // Past every entry read, those left out for this reader too: waiting past
                    // only the last item shown would wake at once, again and again.
                    self.after = self.after.max(page.through);
                    self.pending = page.items;
                    self.pending.reverse();
                    self.then = Then::Wait;
                    continue;
                }
                Then::Wait => self.log.wait_past(self.after, KEEP_ALIVE).await,
                Then::WaitMore => self.log.wait_more(self.after, KEEP_ALIVE).await,
            };
            if !moved {
                self.then = Then::WaitMore;
                return Some(Followed::KeepAlive);
            }
            self.then = Then::Read;
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use futures_util::StreamExt;

    use super::*;

    /// A log in memory whose `wait_past` writes the next item (as another writer would) and
    /// whose reads fail once it is told to.
    struct Memory {
        items: Mutex<Vec<i64>>,
        writes_on_wait: Mutex<Vec<i64>>,
        fails_after: usize,
        reads: Mutex<usize>,
        /// The items its reader is not shown.
        hidden: Vec<i64>,
    }

    impl NumberedLog for Memory {
        type Item = i64;
        type Error = ();

        async fn after(&self, after: i64) -> Result<Page<i64>, ()> {
            let mut reads = self.reads.lock().unwrap();
            *reads += 1;
            if *reads > self.fails_after {
                return Err(());
            }
            let items = self.items.lock().unwrap();
            let read: Vec<i64> = items
                .iter()
                .copied()
                .filter(|n| *n > after)
                .take(2)
                .collect();
            let through = read.last().map_or(after, |n| *n);
            Ok(Page {
                items: read
                    .into_iter()
                    .filter(|n| !self.hidden.contains(n))
                    .collect(),
                through,
            })
        }

        async fn newest(&self) -> Result<i64, ()> {
            Ok(self.items.lock().unwrap().last().copied().unwrap_or(0))
        }

        async fn wait_past(&self, after: i64, _wait: Duration) -> bool {
            if self
                .items
                .lock()
                .unwrap()
                .last()
                .is_some_and(|n| *n > after)
            {
                return true;
            }
            let next = self.writes_on_wait.lock().unwrap().pop();
            if let Some(next) = next {
                self.items.lock().unwrap().push(next);
            }
            next.is_some()
        }
    }

    fn memory(items: Vec<i64>, later: Vec<i64>, fails_after: usize) -> Memory {
        Memory {
            items: Mutex::new(items),
            writes_on_wait: Mutex::new(later),
            fails_after,
            reads: Mutex::new(0),
            hidden: Vec::new(),
        }
    }

    /// A stream yields every item once, in order, across pages and waits; a quiet wait is a
    /// keep-alive, and quiet waits go on without reading the log; a failed read ends it.
    #[tokio::test]
    async fn a_followed_log_yields_each_item_once_in_order() {
        let log = memory(vec![1, 2, 3], vec![4], 4);
        let followed: Vec<_> = follow(log, 1).take(6).collect().await;
        assert_eq!(
            followed,
            [
                Followed::Item(2),
                Followed::Item(3),
                // The wait after the first page writes 4.
                Followed::Item(4),
                // Nothing more: keep-alives, reading nothing more.
                Followed::KeepAlive,
                Followed::KeepAlive,
                Followed::KeepAlive,
            ]
        );
        let log = memory(vec![1, 2, 3], vec![4], 1);
        let followed: Vec<_> = follow(log, 1).collect().await;
        assert_eq!(
            followed,
            [Followed::Item(2), Followed::Item(3)],
            "the second read fails"
        );
    }

    /// Entries left out for the reader are read past, never waited on again: a stream whose
    /// newest entries are hidden waits quietly, and a long-poll waits on past them.
    #[tokio::test]
    async fn hidden_entries_are_read_past() {
        let hidden = || Memory {
            hidden: vec![3, 5],
            ..memory(vec![1, 2, 3], vec![5, 4], 4)
        };
        let followed: Vec<_> = follow(hidden(), 1).take(4).collect().await;
        assert_eq!(
            followed,
            [
                Followed::Item(2),
                // 3 is hidden: the wait past it writes 4, then 5 (hidden), then nothing.
                Followed::Item(4),
                Followed::KeepAlive,
                Followed::KeepAlive,
            ]
        );
        let log = hidden();
        assert_eq!(poll(&log, 3, 2, Duration::ZERO).await, Ok((vec![], 3)));
        assert_eq!(
            poll(&log, 3, 2, Duration::from_secs(1)).await,
            Ok((vec![4], 4)),
            "3 is hidden: the poll waits on for 4"
        );
    }

    /// A long-poll answers at once when there is something new, and otherwise waits for it.
    #[tokio::test]
    async fn a_poll_waits_only_when_nothing_is_new() {
        let log = memory(vec![1, 2], vec![3], 10);
        assert_eq!(poll(&log, 2, 1, Duration::ZERO).await, Ok((vec![2], 2)));
        assert_eq!(poll(&log, 2, 2, Duration::ZERO).await, Ok((vec![], 2)));
        assert_eq!(
            poll(&log, 2, 2, Duration::from_secs(1)).await,
            Ok((vec![3], 3))
        );
    }
}
