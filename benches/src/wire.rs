//! The benchmark's own message layout, identical on both paths (hlamesh and raw UDP):
//! `[kind, path, reliability, 0, block (u32 BE), index (u64 BE), padding…]`.

/// Smallest payload the layout fits in.
pub const MIN_PAYLOAD: usize = 16;

/// What a message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Latency probe, driver → peer.
    Ping,
    /// Its echo, peer → driver.
    Echo,
    /// Throughput traffic, driver → peers.
    Stream,
}

impl Kind {
    fn byte(self) -> u8 {
        match self {
            Kind::Ping => b'P',
            Kind::Echo => b'E',
            Kind::Stream => b'T',
        }
    }
}

/// A parsed message header.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Kind.
    pub kind: Kind,
    /// Which path sent it (index into the run's paths).
    pub path: u8,
    /// 1 if best-effort.
    pub best_effort: bool,
    /// Block number (unique within a run).
    pub block: u32,
    /// Index within the block.
    pub index: u64,
}

/// Builds a message of `size` bytes (at least [`MIN_PAYLOAD`]).
pub fn message(h: Header, size: usize) -> Vec<u8> {
    let mut m = vec![0x5au8; size.max(MIN_PAYLOAD)];
    write(&mut m, h);
    m
}

/// Rewrites the header of `m` in place.
pub fn write(m: &mut [u8], h: Header) {
    m[0] = h.kind.byte();
    m[1] = h.path;
    m[2] = u8::from(h.best_effort);
    m[3] = 0;
    m[4..8].copy_from_slice(&h.block.to_be_bytes());
    m[8..16].copy_from_slice(&h.index.to_be_bytes());
}

/// Parses a header; `None` for anything else (e.g. another run's traffic).
pub fn parse(m: &[u8]) -> Option<Header> {
    if m.len() < MIN_PAYLOAD {
        return None;
    }
    let kind = match m[0] {
        b'P' => Kind::Ping,
        b'E' => Kind::Echo,
        b'T' => Kind::Stream,
        _ => return None,
    };
    let mut block = [0u8; 4];
    block.copy_from_slice(&m[4..8]);
    let mut index = [0u8; 8];
    index.copy_from_slice(&m[8..16]);
    Some(Header {
        kind,
        path: m[1],
        best_effort: m[2] == 1,
        block: u32::from_be_bytes(block),
        index: u64::from_be_bytes(index),
    })
}
