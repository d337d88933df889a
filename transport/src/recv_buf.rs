//! The data thread's receive buffer. `recv_from` needs an initialised slice as large as the largest
//! datagram (64 KiB). Receiving straight into a fresh part of a `BytesMut` meant zero-filling 64 KiB
//! before every datagram (`memset` was the largest user-space symbol on the 8 KiB path). Here
//! the kernel writes into one scratch buffer, zeroed once, and only the received bytes are copied
//! out into an arena that hands out each datagram as a `Bytes`. The arena's allocation is reused
//! once every datagram cut from it has been dropped.

use std::net::{Ipv4Addr, UdpSocket};

use bytes::Bytes;

use crate::arena::ByteArena;

/// Largest UDP payload.
pub const MAX_DATAGRAM: usize = 65_536;
/// Size of one arena allocation: many MTU datagrams, a few large ones.
const ARENA: usize = 256 << 10;

/// A scratch buffer to receive into and an arena to cut datagrams from.
#[derive(Debug)]
pub struct RecvBuffer {
    scratch: Box<[u8]>,
    arena: ByteArena,
    /// Room for the `IP_PKTINFO` that says which group a datagram came in on.
    ancillary: Vec<u8>,
}

impl Default for RecvBuffer {
    fn default() -> Self {
        RecvBuffer::new()
    }
}

impl RecvBuffer {
    /// A buffer for datagrams up to [`MAX_DATAGRAM`] bytes.
    pub fn new() -> Self {
        RecvBuffer {
            scratch: vec![0u8; MAX_DATAGRAM].into_boxed_slice(),
            arena: ByteArena::new(ARENA),
            ancillary: crate::sockets::destination_space(),
        }
    }

    /// Receives one datagram from a multicast receive socket, with the address it was sent to
    /// (see [`crate::sockets::recv_with_destination`]).
    pub fn recv_datagram(
        &mut self,
        sock: &UdpSocket,
    ) -> std::io::Result<(Bytes, Option<Ipv4Addr>)> {
        let (n, dst) =
            crate::sockets::recv_with_destination(sock, &mut self.scratch, &mut self.ancillary)?;
        let n = n.min(self.scratch.len());
        Ok((self.arena.copy(&self.scratch[..n]), dst))
    }

    /// Receives one datagram with `recv`, which writes it into the slice it is given and returns
    /// its length (clamped to the slice) and whatever else it returns (e.g. the source address).
    pub fn recv_with<A, E>(
        &mut self,
        recv: impl FnOnce(&mut [u8]) -> Result<(usize, A), E>,
    ) -> Result<(Bytes, A), E> {
        let (n, extra) = recv(&mut self.scratch)?;
        let n = n.min(self.scratch.len());
        Ok((self.arena.copy(&self.scratch[..n]), extra))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fill(byte: u8, n: usize) -> impl FnOnce(&mut [u8]) -> Result<(usize, ()), ()> {
        move |s: &mut [u8]| {
            s[..n].fill(byte);
            Ok((n, ()))
        }
    }

    #[test]
    fn datagrams_are_independent_and_exact() {
        let mut b = RecvBuffer::new();
        let mut kept = Vec::new();
        // More than one arena's worth, of mixed sizes, including an empty and a maximal one.
        for (i, n) in [1472usize, 0, 65_536, 8192, 1, 65_536, 65_536, 65_536, 300]
            .into_iter()
            .enumerate()
        {
            let (d, ()) = b.recv_with(fill(i as u8 + 1, n)).expect("recv");
            assert_eq!(d.len(), n);
            kept.push((i as u8 + 1, d));
        }
        for (byte, d) in kept {
            assert!(d.iter().all(|x| *x == byte), "a datagram was overwritten");
        }
    }

    #[test]
    fn errors_pass_through_and_leave_the_buffer_usable() {
        let mut b = RecvBuffer::new();
        let r: Result<(Bytes, ()), &str> = b.recv_with(|_| Err("timed out"));
        assert_eq!(r, Err("timed out"));
        let (d, ()) = b.recv_with(fill(7, 10)).expect("recv");
        assert_eq!(&d[..], &[7u8; 10]);
        // A length beyond the slice (a misbehaving receive) is clamped, not a panic.
        let (d, ()) = b
            .recv_with(|_| Ok::<_, ()>((MAX_DATAGRAM + 5, ())))
            .expect("recv");
        assert_eq!(d.len(), MAX_DATAGRAM);
    }
}
