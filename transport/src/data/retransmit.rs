//! The sender's bounded retransmit buffer: recent reliable datagrams, indexed by the sequence
//! numbers they cover, evicted oldest first when over the byte or count limit. Its copies are cut
//! from a [`ByteArena`] (no allocation per datagram), so the memory it holds is its byte limit
//! plus at most one arena chunk.
//!
//! The limits are a ceiling, not the working size: datagrams every receiver has acknowledged are
//! released early ([`RetransmitBuffer::release_through`], driven by
//! [`crate::data::DataSender::release_acknowledged`]). Without that, a steady stream filled the
//! buffer to its limits (tens of MB, minutes to fill at a few hundred updates per second), which
//! looked like a leak in every long run.

use std::collections::VecDeque;

use bytes::Bytes;

use crate::arena::ByteArena;

#[derive(Debug)]
struct Stored {
    first: u64,
    frames: u64,
    datagram: Bytes,
}

/// Reliable datagrams kept for repair. Sequence numbers are contiguous across entries.
#[derive(Debug)]
pub(crate) struct RetransmitBuffer {
    entries: VecDeque<Stored>,
    bytes: usize,
    cap_bytes: usize,
    cap_count: usize,
    evicted: u64,
    copies: ByteArena,
}

/// Size of the chunks the copies are cut from.
const COPY_CHUNK: usize = 64 << 10;

impl RetransmitBuffer {
    pub(crate) fn new(cap_bytes: usize, cap_count: usize) -> Self {
        RetransmitBuffer {
            entries: VecDeque::new(),
            bytes: 0,
            cap_bytes,
            cap_count,
            evicted: 0,
            copies: ByteArena::new(COPY_CHUNK),
        }
    }

    /// Keeps a copy of `datagram`, which covers sequence numbers `first .. first + frames`.
    pub(crate) fn push(&mut self, first: u64, frames: u64, datagram: &[u8]) {
        let datagram = self.copies.copy(datagram);
        self.bytes += datagram.len();
        self.entries.push_back(Stored {
            first,
            frames,
            datagram,
        });
        while self.bytes > self.cap_bytes || self.entries.len() > self.cap_count {
            let Some(old) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= old.datagram.len();
            self.evicted += 1;
        }
    }

    /// Drops the datagrams whose sequence numbers are all `<= last` (nobody will ask for them
    /// again). Returns how many were dropped.
    pub(crate) fn release_through(&mut self, last: u64) -> usize {
        let mut n = 0;
        while let Some(old) = self
            .entries
            .front()
            .filter(|e| e.first.saturating_add(e.frames) <= last.saturating_add(1))
        {
            self.bytes -= old.datagram.len();
            self.entries.pop_front();
            n += 1;
        }
        n
    }

    /// Oldest sequence number still held, or `next` if nothing is.
    pub(crate) fn first_available(&self, next: u64) -> u64 {
        self.entries.front().map_or(next, |e| e.first)
    }

    /// The datagrams covering any sequence number in `first..=last`, oldest first, appended to
    /// `out` while `budget` (bytes) lasts. Returns the remaining budget. The work is bounded by
    /// the buffer size, whatever the range.
    pub(crate) fn collect(
        &self,
        first: u64,
        last: u64,
        mut budget: usize,
        out: &mut Vec<Bytes>,
        mut skip_until: u64,
    ) -> (usize, u64) {
        let start = self
            .entries
            .partition_point(|e| e.first + e.frames <= first);
        for e in self.entries.range(start..) {
            if e.first > last {
                break;
            }
            if e.first < skip_until {
                // Already sent for an earlier range of the same NACK.
                continue;
            }
            if e.datagram.len() > budget {
                break;
            }
            budget -= e.datagram.len();
            out.push(e.datagram.clone());
            skip_until = e.first + e.frames;
        }
        (budget, skip_until)
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    pub(crate) fn evicted(&self) -> u64 {
        self.evicted
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_drops_only_datagrams_wholly_at_or_below_the_position() {
        let mut b = RetransmitBuffer::new(1 << 20, 1000);
        // Datagrams covering 1..=3, 4, 5..=6.
        b.push(1, 3, &[1; 10]);
        b.push(4, 1, &[2; 10]);
        b.push(5, 2, &[3; 10]);
        assert_eq!(b.release_through(2), 0, "1..=3 is not wholly acknowledged");
        assert_eq!(b.release_through(4), 2);
        assert_eq!((b.len(), b.bytes(), b.first_available(7)), (1, 10, 5));
        assert_eq!(b.evicted(), 0, "released is not evicted");
        assert_eq!(b.release_through(u64::MAX), 1);
        assert_eq!((b.len(), b.bytes(), b.first_available(7)), (0, 0, 7));
    }
}
