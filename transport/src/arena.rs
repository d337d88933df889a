//! A byte arena: copies byte strings into one shared allocation and hands each out as a
//! [`Bytes`], so that keeping a copy costs a `memcpy` and not an allocation. The receive buffer
//! cuts every received datagram from one ([`crate::recv_buf`]); the data sender keeps the copy of
//! each reliable datagram it may have to repair in one (its retransmit buffer, see
//! [`crate::data::DataSender`]).
//!
//! An allocation is reused once every string cut from it was dropped; until then it stays alive,
//! so what an arena holds is at most one chunk more than the strings its users keep.

use bytes::{Bytes, BytesMut};

/// Copies byte strings into chunks of `chunk` bytes (or one string's size, if larger).
#[derive(Debug)]
pub struct ByteArena {
    buf: BytesMut,
    chunk: usize,
}

impl ByteArena {
    /// An arena allocating `chunk` bytes at a time.
    pub fn new(chunk: usize) -> Self {
        ByteArena {
            buf: BytesMut::with_capacity(chunk),
            chunk,
        }
    }

    /// A copy of `data`.
    pub fn copy(&mut self, data: &[u8]) -> Bytes {
        if self.buf.capacity() < data.len() {
            // Takes the old allocation back if every string cut from it was dropped.
            self.buf.reserve(self.chunk.max(data.len()));
        }
        self.buf.extend_from_slice(data);
        self.buf.split().freeze()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copies_are_exact_and_independent_across_chunks() {
        let mut a = ByteArena::new(1000);
        let mut kept = Vec::new();
        for (i, n) in [300usize, 0, 700, 1, 2500, 999, 1000, 10]
            .into_iter()
            .enumerate()
        {
            let byte = i as u8 + 1;
            let c = a.copy(&vec![byte; n]);
            assert_eq!(c.len(), n);
            kept.push((byte, c));
        }
        for (byte, c) in kept {
            assert!(c.iter().all(|x| *x == byte), "a copy was overwritten");
        }
    }

    #[test]
    fn a_chunk_is_reused_once_its_copies_are_dropped() {
        let mut a = ByteArena::new(4096);
        let first = a.copy(&[7; 100]);
        let p = first.as_ptr();
        drop(first);
        // Fill the rest of the chunk, drop everything: the next copy reuses the same memory.
        for _ in 0..39 {
            drop(a.copy(&[1; 100]));
        }
        let again = a.copy(&[2; 100]);
        assert_eq!(again.as_ptr(), p, "the dropped chunk was not taken back");
    }
}
