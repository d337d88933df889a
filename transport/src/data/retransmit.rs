//! The sender's bounded retransmit buffer: recent reliable datagrams, indexed by the sequence
//! numbers they cover, evicted oldest first when over the byte or count limit.
//!
//! The copies are packed into chunks of [`COPY_CHUNK`] bytes that the buffer owns and recycles:
//! a chunk whose every datagram was released or evicted goes to a spare list and takes the next
//! copies, so a steady stream allocates nothing and, above all, touches no fresh page. Cutting the
//! copies from a `Bytes` arena (as before) freed each chunk to the allocator once its last
//! datagram went, a second later, and took a new one for the next copies: with 8 KiB updates
//! that was about 250 MB/s of memory the allocator handed back and forth, page faults and
//! heap trimming included, and the copy into it was the largest user-space item on the sender
//! (`benches/README.md`, "Data path A/B (issue 22)"). Repairs (rare) copy their datagrams out.
//!
//! The limits are a ceiling, not the working size: datagrams every receiver has acknowledged are
//! released early ([`RetransmitBuffer::release_through`], driven by
//! [`crate::data::DataSender::release_acknowledged`]). Without that, a steady stream filled the
//! buffer to its limits (tens of MB, minutes to fill at a few hundred updates per second), which
//! looked like a leak in every long run. Spare chunks are kept only up to the bytes the buffer
//! holds (at least [`SPARE_FLOOR`]), so an idle sender gives its memory back as its datagrams are
//! released.

use std::collections::VecDeque;

use bytes::Bytes;

#[derive(Debug)]
struct Stored {
    first: u64,
    frames: u64,
    /// Serial number of the chunk holding the copy (see `RetransmitBuffer::chunk_base`).
    chunk: u64,
    start: usize,
    len: usize,
}

/// Reliable datagrams kept for repair. Sequence numbers are contiguous across entries.
#[derive(Debug)]
pub(crate) struct RetransmitBuffer {
    entries: VecDeque<Stored>,
    bytes: usize,
    cap_bytes: usize,
    cap_count: usize,
    evicted: u64,
    /// Chunks in use, oldest first; the last one takes new copies.
    chunks: VecDeque<Vec<u8>>,
    /// Serial number of `chunks[0]`.
    chunk_base: u64,
    /// Chunks no datagram uses any more, ready for new copies.
    spare: Vec<Vec<u8>>,
}

/// Size of the chunks the copies are packed into (a larger datagram gets a chunk of its size).
const COPY_CHUNK: usize = 64 << 10;
/// Spare chunk bytes kept even when the buffer holds less.
const SPARE_FLOOR: usize = 1 << 20;

impl RetransmitBuffer {
    pub(crate) fn new(cap_bytes: usize, cap_count: usize) -> Self {
        RetransmitBuffer {
            entries: VecDeque::new(),
            bytes: 0,
            cap_bytes,
            cap_count,
            evicted: 0,
            chunks: VecDeque::new(),
            chunk_base: 0,
            spare: Vec::new(),
        }
    }

    /// Keeps a copy of `datagram`, which covers sequence numbers `first .. first + frames`.
    pub(crate) fn push(&mut self, first: u64, frames: u64, datagram: &[u8]) {
        let len = datagram.len();
        let fits = self
            .chunks
            .back()
            .is_some_and(|c| c.capacity() - c.len() >= len);
        if !fits {
            let chunk = match self.spare.iter().position(|c| c.capacity() >= len) {
                Some(i) => self.spare.swap_remove(i),
                None => Vec::with_capacity(COPY_CHUNK.max(len)),
            };
            self.chunks.push_back(chunk);
        }
        let chunk = self.chunk_base + self.chunks.len() as u64 - 1;
        let Some(c) = self.chunks.back_mut() else {
            return;
        };
        let start = c.len();
        c.extend_from_slice(datagram);
        self.bytes += len;
        self.entries.push_back(Stored {
            first,
            frames,
            chunk,
            start,
            len,
        });
        let mut evicted = false;
        while self.bytes > self.cap_bytes || self.entries.len() > self.cap_count {
            let Some(old) = self.entries.pop_front() else {
                break;
            };
            self.bytes -= old.len;
            self.evicted += 1;
            evicted = true;
        }
        if evicted {
            self.recycle();
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
            self.bytes -= old.len;
            self.entries.pop_front();
            n += 1;
        }
        if n > 0 {
            self.recycle();
        }
        n
    }

    /// Moves the chunks no entry uses to the spare list (the newest chunk stays, emptied when
    /// nothing is held), keeping spares up to the bytes held or [`SPARE_FLOOR`].
    fn recycle(&mut self) {
        let oldest_used = self
            .entries
            .front()
            .map_or(self.chunk_base + self.chunks.len() as u64, |e| e.chunk);
        while self.chunk_base < oldest_used && self.chunks.len() > 1 {
            if let Some(mut c) = self.chunks.pop_front() {
                c.clear();
                self.spare.push(c);
            }
            self.chunk_base += 1;
        }
        if self.entries.is_empty()
            && let Some(c) = self.chunks.back_mut()
        {
            c.clear();
        }
        let keep = self.bytes.max(SPARE_FLOOR);
        let mut spare_bytes: usize = self.spare.iter().map(Vec::capacity).sum();
        while spare_bytes > keep {
            let Some(c) = self.spare.pop() else { break };
            spare_bytes -= c.capacity();
        }
    }

    fn datagram(&self, e: &Stored) -> &[u8] {
        let i = (e.chunk - self.chunk_base) as usize;
        self.chunks
            .get(i)
            .and_then(|c| c.get(e.start..e.start + e.len))
            .unwrap_or(&[])
    }

    /// Oldest sequence number still held, or `next` if nothing is.
    pub(crate) fn first_available(&self, next: u64) -> u64 {
        self.entries.front().map_or(next, |e| e.first)
    }

    /// Copies of the datagrams covering any sequence number in `first..=last`, oldest first,
    /// appended to `out` while `budget` (bytes) lasts. Returns the remaining budget. The work is
    /// bounded by the buffer size, whatever the range.
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
            if e.len > budget {
                break;
            }
            budget -= e.len;
            out.push(Bytes::copy_from_slice(self.datagram(e)));
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

    fn all(b: &RetransmitBuffer) -> Vec<Bytes> {
        let mut out = Vec::new();
        b.collect(0, u64::MAX, usize::MAX, &mut out, 0);
        out
    }

    #[test]
    fn copies_stay_exact_across_chunks_releases_and_evictions() {
        // Byte ceiling of about six chunks: the oldest are evicted as the stream goes on.
        let mut b = RetransmitBuffer::new(6 * COPY_CHUNK, 1 << 20);
        let sizes = [100usize, 8192, 1472, COPY_CHUNK + 5, 1, 16 << 10, 300];
        let mut seq = 1u64;
        let mut sent: Vec<(u64, Vec<u8>)> = Vec::new();
        for round in 0..40u64 {
            for (i, n) in sizes.iter().enumerate() {
                let d: Vec<u8> = (0..*n).map(|k| (k as u64 + seq * 7 + i as u64) as u8).collect();
                b.push(seq, 1, &d);
                sent.push((seq, d));
                seq += 1;
            }
            if round % 5 == 4 {
                b.release_through(seq - 10);
            }
            let held = all(&b);
            let first = b.first_available(seq);
            let expect: Vec<&Vec<u8>> =
                sent.iter().filter(|(s, _)| *s >= first).map(|(_, d)| d).collect();
            assert_eq!(held.len(), expect.len(), "round {round}");
            for (h, e) in held.iter().zip(expect) {
                assert_eq!(&h[..], &e[..], "round {round}");
            }
            assert_eq!(b.bytes(), held.iter().map(Bytes::len).sum::<usize>());
            assert!(b.bytes() <= 6 * COPY_CHUNK);
        }
        assert!(b.evicted() > 0, "the ceiling evicted the oldest");
    }

    #[test]
    fn released_chunks_are_reused_and_spares_stay_bounded() {
        let mut b = RetransmitBuffer::new(usize::MAX, usize::MAX);
        let d = [5u8; 8000];
        for s in 1..=40 {
            b.push(s, 1, &d);
        }
        let chunks_used = b.chunks.len();
        b.release_through(40);
        assert_eq!((b.len(), b.bytes()), (0, 0));
        assert_eq!(b.chunks.len(), 1, "the newest chunk stays, emptied");
        // A steady stream now takes the spare chunks instead of allocating.
        let spare: Vec<*const u8> = b.spare.iter().map(|c| c.as_ptr()).collect();
        assert!(!spare.is_empty() && spare.len() < chunks_used);
        for s in 41..=80 {
            b.push(s, 1, &d);
        }
        let used: Vec<*const u8> = b.chunks.iter().map(|c| c.as_ptr()).collect();
        assert!(spare.iter().all(|p| used.contains(p)), "every spare chunk was reused");
        // Idle: spares are kept only up to the floor.
        b.release_through(80);
        let spare_bytes: usize = b.spare.iter().map(Vec::capacity).sum();
        assert!(spare_bytes <= SPARE_FLOOR);
        assert_eq!(all(&b).len(), 0);
    }
}
