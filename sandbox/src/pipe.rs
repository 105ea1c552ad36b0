//! Two runs talking to each other, as judges run an interactive problem: the program's
//! stdout is the interactor's stdin, and the interactor's stdout the program's stdin
//! ([`crate::Sandbox::interact`]). A leaf: the engine makes a [`channel`], the stream calls
//! of `stdio.rs` read and write through each side's [`End`].
//!
//! Deterministic whatever the threads' timing. A side's writes are a *turn*, which ends
//! when it next reads (natively: it flushed, then waits for the reply) or when its run
//! ends; a read takes at most the rest of the other side's oldest finished turn, and
//! waits while there is none. So what each side reads, read by read, depends on what the
//! other wrote alone, never on which thread ran first; and the bytes a side wrote are
//! there for the other before it waits, as natively once flushed, so no wait lasts longer
//! than natively. A read that finds the other side ended reads the end of file.
//!
//! Both sides waiting on each other, each having read all the other wrote, is a *stall*:
//! neither can go on, whatever the timing (natively both would wait until the judges'
//! clock ended the submission: a program that forgot to flush, or reads more than it is
//! sent). The program's read then ends its run as out of time ([`Received::Stalled`]),
//! and the interactor reads the end of file that its end brings. A write by a side whose
//! reader has ended is dropped, never an error: natively, whether the reader is gone yet
//! is a race.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};

use crate::limits::WALL_CLOCK_LIMIT;

/// Who said something in a dialogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Speaker {
    /// The program under test.
    Program,
    /// The problem's interactor.
    Interactor,
}

impl Speaker {
    fn index(self) -> usize {
        self as usize
    }

    fn other(self) -> Speaker {
        match self {
            Speaker::Program => Speaker::Interactor,
            Speaker::Interactor => Speaker::Program,
        }
    }
}

/// What a read got.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Received {
    /// Bytes of the other side's oldest turn (at most as many as asked).
    Bytes(Vec<u8>),
    /// The other side has ended, and everything it wrote was read.
    End,
    /// The program waits on the interactor and the interactor on it (or, a host backstop,
    /// nothing came for [`WALL_CLOCK_LIMIT`]): the reader's run ends as out of time.
    Stalled,
}

/// One side of a dialogue: reads the other's writes, and its own writes go to the other.
/// Dropping it ends the side (its last turn is sent; the other reads the end after it).
pub(crate) struct End {
    channel: Arc<Channel>,
    side: Speaker,
}

/// What both sides share.
pub(crate) struct Channel {
    shared: Mutex<Shared>,
    changed: Condvar,
}

#[derive(Default)]
struct Shared {
    /// By writer: its turn in progress.
    turn: [Vec<u8>; 2],
    /// By writer: its finished turns the other has not read (the oldest perhaps in part).
    unread: [VecDeque<Vec<u8>>; 2],
    /// By writer: its output is closed (its run ended, or it closed stdout): once its
    /// turns are read, the other reads the end of file.
    closed: [bool; 2],
    /// By side: its run ended (it reads no more: writes to it are dropped).
    ended: [bool; 2],
    /// By reader: waiting for the other's next turn.
    waiting: [bool; 2],
    stalled: bool,
    /// By reader: whether it read the end of the other's output.
    saw_end: [bool; 2],
    /// The dialogue as the program had it: what it wrote and what it read, in its order.
    dialogue: Vec<(Speaker, Vec<u8>)>,
}

impl Shared {
    /// Ends `side`'s turn: what it wrote since its last read goes to the other, unless the
    /// other has ended.
    fn end_turn(&mut self, side: Speaker) {
        let turn = std::mem::take(&mut self.turn[side.index()]);
        if !turn.is_empty() && !self.ended[side.other().index()] {
            self.unread[side.index()].push_back(turn);
        }
    }

    /// Closes `side`'s output, its last turn sent.
    fn close(&mut self, side: Speaker) {
        self.end_turn(side);
        self.closed[side.index()] = true;
    }
}

/// The two ends of a new dialogue (the program's, the interactor's) and what they share,
/// which tells the dialogue once both have ended ([`Channel::finish`]).
pub(crate) fn channel() -> (End, End, Arc<Channel>) {
    let channel = Arc::new(Channel { shared: Mutex::new(Shared::default()), changed: Condvar::new() });
    let end = |side| End { channel: channel.clone(), side };
    (end(Speaker::Program), end(Speaker::Interactor), channel)
}

impl Channel {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        // A side's thread that panicked leaves nothing half-done that matters here.
        self.shared.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Once both sides have ended: the dialogue as the program had it, and whether the
    /// interactor read the end of the program's output.
    pub(crate) fn finish(&self) -> (Vec<(Speaker, Vec<u8>)>, bool) {
        let mut shared = self.lock();
        (std::mem::take(&mut shared.dialogue), shared.saw_end[Speaker::Interactor.index()])
    }
}

/// Appends `bytes` said by `speaker` to `dialogue`, to the last entry when the same side
/// said it.
fn say(dialogue: &mut Vec<(Speaker, Vec<u8>)>, speaker: Speaker, bytes: &[u8]) {
    match dialogue.last_mut() {
        Some((last, said)) if *last == speaker => said.extend_from_slice(bytes),
        _ => dialogue.push((speaker, bytes.to_vec())),
    }
}

impl End {
    /// Closes this side's output (`fd_close(1)`): the other reads its last turn, then the
    /// end of file, though this side runs on.
    pub(crate) fn close(&self) {
        self.channel.lock().close(self.side);
        self.channel.changed.notify_all();
    }

    /// Writes `bytes` into this side's turn (dropped once its output is closed).
    pub(crate) fn write(&self, bytes: &[u8]) {
        let mut shared = self.channel.lock();
        if self.side == Speaker::Program {
            say(&mut shared.dialogue, Speaker::Program, bytes);
        }
        if !shared.closed[self.side.index()] {
            shared.turn[self.side.index()].extend_from_slice(bytes);
        }
    }

    /// Ends this side's turn, then reads at most `max` bytes of the other side's oldest
    /// turn, waiting for one while there is none (see [`Received`]).
    pub(crate) fn read(&self, max: usize) -> Received {
        let (side, other) = (self.side.index(), self.side.other().index());
        let mut shared = self.channel.lock();
        shared.end_turn(self.side);
        self.channel.changed.notify_all();
        loop {
            if let Some(oldest) = shared.unread[other].front_mut() {
                let taken: Vec<u8> = oldest.drain(..max.min(oldest.len())).collect();
                if oldest.is_empty() {
                    shared.unread[other].pop_front();
                }
                if self.side == Speaker::Program {
                    say(&mut shared.dialogue, Speaker::Interactor, &taken);
                }
                return Received::Bytes(taken);
            }
            if shared.closed[other] {
                shared.saw_end[side] = true;
                return Received::End;
            }
            // The other waits too, with nothing of ours to read: neither can go on.
            if shared.waiting[other] && shared.unread[side].is_empty() {
                shared.stalled = true;
                self.channel.changed.notify_all();
            }
            if shared.stalled && self.side == Speaker::Program {
                return Received::Stalled;
            }
            shared.waiting[side] = true;
            let (guard, waited) = self.channel.changed.wait_timeout(shared, WALL_CLOCK_LIMIT).unwrap_or_else(|poisoned| poisoned.into_inner());
            shared = guard;
            shared.waiting[side] = false;
            if waited.timed_out() {
                return Received::Stalled;
            }
        }
    }
}

impl Drop for End {
    fn drop(&mut self) {
        let mut shared = self.channel.lock();
        shared.close(self.side);
        shared.ended[self.side.index()] = true;
        self.channel.changed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(text: &str) -> Received {
        Received::Bytes(text.as_bytes().to_vec())
    }

    #[test]
    fn a_read_takes_at_most_one_turn_of_the_other_side_whatever_was_written_since() {
        let (program, interactor, channel) = channel();
        program.write(b"500");
        program.write(b"\n");
        // The program's turn ends when it reads: the interactor's first.
        interactor.write(b"lower\n");
        let reply = std::thread::scope(|scope| {
            let reply = scope.spawn(|| program.read(100));
            assert_eq!(interactor.read(2), bytes("50"));
            assert_eq!(interactor.read(100), bytes("0\n"), "the rest of the turn, nothing more");
            interactor.write(b"higher\n");
            reply.join().unwrap()
        });
        assert_eq!(reply, bytes("lower\n"), "the interactor's turn ended when it read");
        drop(interactor);
        assert_eq!(program.read(100), bytes("higher\n"), "the last turn is sent at the end");
        assert_eq!(program.read(100), Received::End);
        drop(program);
        let (dialogue, saw_end) = channel.finish();
        let said: Vec<(Speaker, &str)> = dialogue.iter().map(|(who, b)| (*who, std::str::from_utf8(b).unwrap())).collect();
        assert_eq!(said, [(Speaker::Program, "500\n"), (Speaker::Interactor, "lower\nhigher\n")]);
        assert!(!saw_end, "the interactor ended before the program");
    }

    #[test]
    fn both_sides_waiting_on_each_other_stall_the_program_and_the_interactor_reads_its_end() {
        let (program, interactor, channel) = channel();
        let interactor_read = std::thread::scope(|scope| {
            let waiting = scope.spawn(|| (interactor.read(10), interactor.read(10)));
            assert_eq!(program.read(10), Received::Stalled);
            drop(program);
            waiting.join().unwrap()
        });
        assert_eq!(interactor_read, (Received::End, Received::End));
        drop(interactor);
        assert!(channel.finish().1, "the interactor read the end of the program's output");
    }

    #[test]
    fn a_side_that_closes_its_output_is_read_to_its_end_and_still_reads() {
        let (program, interactor, channel) = channel();
        program.write(b"dig 1\n");
        program.close();
        program.write(b"after the close\n");
        assert_eq!(interactor.read(100), bytes("dig 1\n"));
        assert_eq!(interactor.read(100), Received::End);
        interactor.write(b"found\n");
        drop(interactor);
        assert_eq!(program.read(100), bytes("found\n"), "its input is still open");
        drop(program);
        assert!(channel.finish().1);
    }

    #[test]
    fn writes_to_a_side_that_ended_are_dropped() {
        let (program, interactor, _channel) = channel();
        drop(interactor);
        program.write(b"anyone there?\n");
        assert_eq!(program.read(10), Received::End);
    }
}
