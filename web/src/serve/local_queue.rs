//! A process's own queue of ids worked through by one thread of its own: the checks of
//! uploaded problem bundles (`checks.rs`) and of students' hand-ins (`hand_ins.rs`). The
//! work itself is recorded in the store; the queue only says which to do next here.
//! Pitfall: on PostgreSQL an id queued belongs to the process that received it; on SQLite
//! (one process) the caller queues again at start-up what a restart interrupted.

use std::sync::Mutex;
use std::sync::mpsc::{Sender, channel};

/// A queue of ids and the thread that takes them one at a time.
#[derive(Default)]
pub struct LocalQueue {
    sender: Mutex<Option<Sender<i64>>>,
}

impl LocalQueue {
    /// Queues `id`; an error when the thread was never started here or has stopped.
    pub fn queue(&self, id: i64) -> anyhow::Result<()> {
        let sender = self.sender.lock().unwrap_or_else(|p| p.into_inner());
        let sender = sender.as_ref().ok_or_else(|| anyhow::anyhow!("this process has no such queue"))?;
        sender.send(id).map_err(|_| anyhow::anyhow!("the queue's thread has stopped"))
    }

    /// Starts the thread `name`, which runs `work` on each id queued.
    pub fn start(&self, name: &str, mut work: impl FnMut(i64) + Send + 'static) -> anyhow::Result<()> {
        let (send, receive) = channel::<i64>();
        *self.sender.lock().unwrap_or_else(|p| p.into_inner()) = Some(send);
        std::thread::Builder::new().name(name.to_owned()).spawn(move || {
            for id in receive {
                work(id);
            }
        })?;
        Ok(())
    }
}

/// `work`'s result, or, if it panicked, the words that tell whoever waits for it (the
/// queue's thread goes on with the next id): `what` "failed unexpectedly".
pub fn unless_panicked<T>(what: &str, work: impl FnOnce() -> Result<T, String>) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(work))
        .unwrap_or_else(|_| Err(format!("{what} failed unexpectedly (a bug: the service's log has its trace)")))
}
