//! The benchmark's own message layout, identical on both paths (hlamesh and raw UDP):
//! `[kind, path, reliability, sender, block (u32 BE), index (u64 BE), padding…]` (sender: which
//! of the N→1 fan-in's sender processes sent it; 0 elsewhere). An echo of a
//! message of at least [`STAMPED_PAYLOAD`] bytes carries the echoing peer's wall-clock receive and
//! send times in bytes 16..32 (for the one-way latency estimate).

/// Smallest payload the layout fits in.
pub const MIN_PAYLOAD: usize = 16;

/// Smallest payload that carries the echo's wall-clock stamps.
pub const STAMPED_PAYLOAD: usize = 32;

/// Nanoseconds since the Unix epoch on this machine's wall clock.
pub fn wall_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Writes the echoing peer's receive (`t2`) and send (`t3`) times, if the message has room.
pub fn stamp(m: &mut [u8], t2: u64, t3: u64) {
    if m.len() >= STAMPED_PAYLOAD {
        m[16..24].copy_from_slice(&t2.to_be_bytes());
        m[24..32].copy_from_slice(&t3.to_be_bytes());
    }
}

/// The stamps of an echo, if it has room for them.
pub fn stamps(m: &[u8]) -> Option<(u64, u64)> {
    let a: [u8; 8] = m.get(16..24)?.try_into().ok()?;
    let b: [u8; 8] = m.get(24..32)?.try_into().ok()?;
    Some((u64::from_be_bytes(a), u64::from_be_bytes(b)))
}

/// What a message is for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Latency probe, driver → peer.
    Ping,
    /// Its echo, peer → driver.
    Echo,
    /// Throughput traffic, driver → peers (1→N) or peers → driver (N→1).
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
    /// Sender process of an N→1 fan-in stream (0 for traffic from the driver).
    pub sender: u8,
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
    m[3] = h.sender;
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
        sender: m[3],
    })
}
