//! Reassembly of fragmented best-effort messages, in any fragment order, with duplicates.
//!
//! Memory is bounded: each incomplete message is charged its full length (allocated on its first
//! fragment) plus its fragment bitmap; a message that would exceed the capacity evicts the
//! oldest incomplete ones first (counted). Incomplete messages time out (counted). Reliable
//! messages do not come here: they arrive in sequence order and are assembled in place.
//!
//! A message is keyed by its sender, its number space ([`Space`]: default-group or DDM cell
//! best-effort, numbered independently) and its number there: a cell message and a
//! default-group message with the same number from the same sender are two messages.

use std::collections::{BTreeMap, VecDeque};
use std::time::{Duration, Instant};

use bytes::Bytes;

use crate::id::NodeId;

#[derive(Debug)]
struct Entry {
    id: u64,
    count: u32,
    total: u32,
    received: u32,
    filled: usize,
    have: Vec<u64>,
    buf: Vec<u8>,
}

impl Entry {
    fn charge(&self) -> usize {
        self.buf.len() + self.have.len() * 8
    }
}

/// The best-effort number space a message was numbered in (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Space {
    /// Best-effort on the default group (`DatagramKind::BestEffort`).
    BestEffort,
    /// Best-effort on DDM cell groups (`DatagramKind::CellBestEffort`).
    Cell,
}

/// What names an incomplete message: sender, number space, the number of its first fragment.
type Key = (NodeId, Space, u64);

/// One fragment handed to [`Reassembly::insert`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Piece<'a> {
    pub(crate) from: NodeId,
    /// The number space of `msg`.
    pub(crate) space: Space,
    pub(crate) msg: u64,
    pub(crate) index: u32,
    pub(crate) count: u32,
    pub(crate) offset: u32,
    pub(crate) total: u32,
    pub(crate) payload: &'a [u8],
}

/// Counters of what reassembly dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct ReassemblyCounts {
    pub(crate) timeouts: u64,
    pub(crate) evicted: u64,
    pub(crate) too_large: u64,
    pub(crate) inconsistent: u64,
    pub(crate) duplicates: u64,
}

#[derive(Debug)]
pub(crate) struct Reassembly {
    entries: BTreeMap<Key, Entry>,
    /// Creation order, for eviction and timeouts; entries removed early leave stale keys that
    /// are skipped (matched by entry id).
    order: VecDeque<(Instant, Key, u64)>,
    bytes: usize,
    capacity: usize,
    max_message: usize,
    timeout: Duration,
    next_id: u64,
    pub(crate) counts: ReassemblyCounts,
}

impl Reassembly {
    pub(crate) fn new(capacity: usize, max_message: usize, timeout: Duration) -> Self {
        Reassembly {
            entries: BTreeMap::new(),
            order: VecDeque::new(),
            bytes: 0,
            capacity,
            max_message,
            timeout,
            next_id: 0,
            counts: ReassemblyCounts::default(),
        }
    }

    /// Bytes charged to incomplete messages.
    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }

    /// Incomplete messages.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.entries.len()
    }

    /// Add a fragment; returns the message when it is complete.
    pub(crate) fn insert(&mut self, now: Instant, p: Piece<'_>) -> Option<Bytes> {
        let key = (p.from, p.space, p.msg);
        let total = p.total as usize;
        if !self.entries.contains_key(&key) {
            // A fragment carries at least one byte, so count <= total bounds the bitmap.
            if p.count > p.total {
                self.counts.inconsistent += 1;
                return None;
            }
            let charge = total + (p.count as usize).div_ceil(64) * 8;
            if total > self.max_message || charge > self.capacity {
                self.counts.too_large += 1;
                return None;
            }
            while self.bytes + charge > self.capacity {
                if !self.evict_oldest() {
                    break;
                }
            }
            let id = self.next_id;
            self.next_id += 1;
            self.entries.insert(
                key,
                Entry {
                    id,
                    count: p.count,
                    total: p.total,
                    received: 0,
                    filled: 0,
                    have: vec![0; (p.count as usize).div_ceil(64)],
                    buf: vec![0; total],
                },
            );
            self.order.push_back((now, key, id));
            self.bytes += charge;
        }
        let e = self.entries.get_mut(&key)?;
        if e.count != p.count || e.total != p.total {
            self.counts.inconsistent += 1;
            self.remove(key);
            return None;
        }
        let (word, bit) = ((p.index / 64) as usize, 1u64 << (p.index % 64));
        if e.have[word] & bit != 0 {
            self.counts.duplicates += 1;
            return None;
        }
        e.have[word] |= bit;
        let start = p.offset as usize;
        // The wire parser checked offset + len <= total.
        e.buf[start..start + p.payload.len()].copy_from_slice(p.payload);
        e.received += 1;
        e.filled += p.payload.len();
        if e.received < e.count {
            return None;
        }
        let complete = e.filled == e.total as usize;
        let entry = self.remove(key)?;
        if complete {
            Some(Bytes::from(entry.buf))
        } else {
            // Overlapping fragments: the sender is broken or malicious.
            self.counts.inconsistent += 1;
            None
        }
    }

    /// Drop incomplete messages older than the timeout.
    pub(crate) fn expire(&mut self, now: Instant) {
        while let Some(&(created, key, id)) = self.order.front() {
            if created + self.timeout > now {
                break;
            }
            self.order.pop_front();
            if self.entries.get(&key).is_some_and(|e| e.id == id) {
                self.remove(key);
                self.counts.timeouts += 1;
            }
        }
    }

    /// When the oldest incomplete message times out.
    pub(crate) fn next_deadline(&self) -> Option<Instant> {
        self.order
            .front()
            .map(|(created, ..)| *created + self.timeout)
    }

    /// Forget everything from `from`.
    pub(crate) fn remove_sender(&mut self, from: NodeId) {
        let keys: Vec<_> = self
            .entries
            .range((from, Space::BestEffort, 0)..=(from, Space::Cell, u64::MAX))
            .map(|(k, _)| *k)
            .collect();
        for k in keys {
            self.remove(k);
        }
    }

    fn evict_oldest(&mut self) -> bool {
        while let Some((_, key, id)) = self.order.pop_front() {
            if self.entries.get(&key).is_some_and(|e| e.id == id) {
                self.remove(key);
                self.counts.evicted += 1;
                return true;
            }
        }
        false
    }

    fn remove(&mut self, key: Key) -> Option<Entry> {
        let e = self.entries.remove(&key)?;
        self.bytes -= e.charge();
        // Drop stale keys at the front so that next_deadline stays accurate.
        while let Some(&(_, key, id)) = self.order.front() {
            if self.entries.get(&key).is_some_and(|e| e.id == id) {
                break;
            }
            self.order.pop_front();
        }
        Some(e)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn pieces(msg: &[u8], size: usize) -> Vec<(u32, u32, u32, Vec<u8>)> {
        let count = msg.len().div_ceil(size) as u32;
        msg.chunks(size)
            .enumerate()
            .map(|(i, c)| (i as u32, count, (i * size) as u32, c.to_vec()))
            .collect()
    }

    fn piece<'a>(from: u64, msg: u64, total: usize, p: &'a (u32, u32, u32, Vec<u8>)) -> Piece<'a> {
        Piece {
            from: NodeId(from),
            space: Space::BestEffort,
            msg,
            index: p.0,
            count: p.1,
            offset: p.2,
            total: total as u32,
            payload: &p.3,
        }
    }

    proptest! {
        #[test]
        fn any_order_with_duplicates_reassembles_exactly(
            len in 2usize..5000,
            size in 1usize..700,
            order in proptest::collection::vec(any::<u16>(), 0..64),
            seed in any::<u8>(),
        ) {
            let msg: Vec<u8> = (0..len).map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed)).collect();
            let ps = pieces(&msg, size);
            prop_assume!(ps.len() >= 2);
            // Every piece once, plus duplicates picked by `order`, shuffled by `order`.
            let mut seq: Vec<usize> = (0..ps.len()).collect();
            for (k, o) in order.iter().enumerate() {
                let i = usize::from(*o) % ps.len();
                seq.push(i);
                let j = (k * 7 + usize::from(*o)) % seq.len();
                let last = seq.len() - 1;
                seq.swap(j, last);
            }
            let now = Instant::now();
            let mut r = Reassembly::new(1 << 20, 1 << 20, Duration::from_secs(1));
            let mut done = Vec::new();
            for i in seq {
                if let Some(m) = r.insert(now, piece(1, 9, len, &ps[i])) {
                    done.push(m);
                }
            }
            // Completes exactly when every piece has been seen, byte-identical. (Duplicates
            // arriving after completion start a new entry; the receiver's best-effort window
            // drops duplicate datagrams before they get here.)
            prop_assert!(!done.is_empty());
            for d in &done {
                prop_assert_eq!(&d[..], &msg[..]);
            }
        }

        #[test]
        fn loss_never_completes_and_times_out(len in 2usize..5000, size in 1usize..700, lose in any::<u16>()) {
            let msg = vec![7u8; len];
            let ps = pieces(&msg, size);
            prop_assume!(ps.len() >= 2);
            let lost = usize::from(lose) % ps.len();
            let now = Instant::now();
            let mut r = Reassembly::new(1 << 20, 1 << 20, Duration::from_secs(1));
            for (i, p) in ps.iter().enumerate() {
                if i != lost {
                    prop_assert!(r.insert(now, piece(1, 9, len, p)).is_none());
                }
            }
            prop_assert_eq!(r.len(), 1);
            r.expire(now + Duration::from_millis(999));
            prop_assert_eq!(r.len(), 1);
            r.expire(now + Duration::from_secs(1));
            prop_assert_eq!(r.len(), 0);
            prop_assert_eq!(r.bytes(), 0);
            prop_assert_eq!(r.counts.timeouts, 1);
            prop_assert_eq!(r.next_deadline(), None);
        }
    }

    #[test]
    fn capacity_evicts_oldest_incomplete() {
        let now = Instant::now();
        let mut r = Reassembly::new(10_000, 1 << 20, Duration::from_secs(1));
        let msg = vec![1u8; 4000];
        let ps = pieces(&msg, 1000);
        // Three incomplete messages of 4000 bytes do not fit in 10 000: the first is evicted.
        for m in 0..3 {
            r.insert(now, piece(1, m, 4000, &ps[0]));
            assert!(r.bytes() <= 10_000);
        }
        assert_eq!(r.len(), 2);
        assert_eq!(r.counts.evicted, 1);
        // Message 0 is gone; messages 1 and 2 complete.
        let mut completed = 0;
        for m in 1..3 {
            for p in &ps[1..] {
                completed += usize::from(r.insert(now, piece(1, m, 4000, p)).is_some());
            }
        }
        assert_eq!(completed, 2);
        // Too large for the whole capacity: refused, counted.
        let big = vec![0u8; 20_000];
        let bp = pieces(&big, 1000);
        assert!(r.insert(now, piece(2, 1, 20_000, &bp[0])).is_none());
        assert_eq!(r.counts.too_large, 1);
    }

    /// A cell message and a default-group message with the same number from the same sender
    /// are two messages: their fragments never mix, each completes with its own bytes.
    #[test]
    fn spaces_do_not_mix() {
        let now = Instant::now();
        let mut r = Reassembly::new(1 << 20, 1 << 20, Duration::from_secs(1));
        let (a, b) = (vec![1u8; 3000], vec![2u8; 3000]);
        let (pa, pb) = (pieces(&a, 1000), pieces(&b, 1000));
        let cell = |p| Piece {
            space: Space::Cell,
            ..piece(1, 5, 3000, p)
        };
        assert!(r.insert(now, piece(1, 5, 3000, &pa[0])).is_none());
        assert!(r.insert(now, cell(&pb[1])).is_none());
        assert!(r.insert(now, piece(1, 5, 3000, &pa[1])).is_none());
        assert!(r.insert(now, cell(&pb[0])).is_none());
        assert_eq!(r.len(), 2);
        assert_eq!(r.insert(now, cell(&pb[2])).as_deref(), Some(&b[..]));
        assert_eq!(
            r.insert(now, piece(1, 5, 3000, &pa[2])).as_deref(),
            Some(&a[..])
        );
        assert_eq!(r.counts.duplicates + r.counts.inconsistent, 0);
        // Forgetting a sender forgets its messages of both spaces.
        r.insert(now, piece(1, 6, 3000, &pa[0]));
        r.insert(now, cell(&pb[0]));
        r.insert(now, piece(2, 6, 3000, &pa[0]));
        r.remove_sender(NodeId(1));
        assert_eq!(r.len(), 1);
    }

    #[test]
    fn inconsistent_fragment_drops_message() {
        let now = Instant::now();
        let mut r = Reassembly::new(1 << 20, 1 << 20, Duration::from_secs(1));
        let ps = pieces(&[3u8; 3000], 1000);
        r.insert(now, piece(1, 5, 3000, &ps[0]));
        r.insert(now, piece(1, 5, 2999, &ps[1]));
        assert_eq!(r.counts.inconsistent, 1);
        assert_eq!(r.len(), 0);
        assert_eq!(r.bytes(), 0);
    }
}
