//! The multicast datagram layout (version 4): a fixed header, a body of frames, an authentication
//! tag. Hand-rolled little-endian fields so encoding writes straight into a reused buffer and
//! decoding hands out [`Bytes`] slices of the received datagram (no copy).
//!
//! ```text
//! offset size  field
//!  0      1    version            = 4 (3: the same without kinds 5 and 6; 2: without kind 4;
//!                                 1: with an HMAC-SHA256 tag)
//!  1      1    kind               1 = reliable data, 2 = best-effort data, 3 = heartbeat,
//!                                 4 = best-effort data on a DDM cell group,
//!                                 5 = reliable data with a chain header (DDM cell groups),
//!                                 6 = heartbeat with a chain tail
//!  2      2    frame count        (heartbeat: 0)
//!  4      4    reserved           sent as 0, ignored (room for a key epoch)
//!  8      8    federation tag
//! 16      8    sender NodeId
//! 24      8    seq                reliable: sequence number of the first frame (frame i has seq+i)
//!                                 best-effort: this datagram's best-effort number (own space)
//!                                 cell best-effort: this datagram's cell number (a third space)
//!                                 heartbeat: the sender's reliable high-water (last seq assigned)
//! 32      ..   body               data: frames (kind 5: after the chain header);
//!                                 heartbeat: u64 best-effort high-water (kind 2)
//!                                 (kind 6: then the tail's u64 floor and group list)
//! len-16 16    MAC                keyed BLAKE3 over bytes [0, len-16), truncated to 16 bytes
//!
//! frame, whole message (4 + len bytes):   kind u8 = 0, reserved u8, len u16, payload
//! frame, fragment     (20 + len bytes):   kind u8 = 1, reserved u8, len u16, index u32, count u32,
//!                                         offset u32 (byte offset in the message), total u32, payload
//! chain header:  group list `targets`, u64 floor, group list `others`
//! group list:    count u8, then count × (group u16, position u64)
//! ```
//!
//! All integers are little-endian. A fragment always travels alone in its datagram, so the
//! message a fragment belongs to is identified by `seq - index` within its kind's number space
//! (reliable, best-effort and cell best-effort alike; the same number in two spaces names two
//! messages).
//!
//! **Cell best-effort** (kind 4) is a best-effort message sent to DDM cell groups
//! (`docs/DDM.md`, "Cells"): one copy per group, every copy with the same number, taken from a
//! per-sender counter of its own. A receiver joins only some cell groups, so the numbers it sees
//! of that space have gaps it cannot tell from loss; they are used only to drop the copy that
//! arrives on a second joined group, and the heartbeat's best-effort high-water stays the
//! default group's (kind 2), whose loss is counted exactly.
//!
//! **Chained reliable** (kind 5) and **chained heartbeats** (kind 6) carry a sender's reliable
//! stream once it has sent reliable data to DDM cell groups: each datagram says, in its
//! [`ChainHeader`], where the sender's previous frames to each group were, so that a receiver
//! in some of the groups knows which positions it is due (`crate::data::chain`). A datagram
//! whose header would say nothing new (the default group, the position before it there too)
//! stays kind 1, and a sender that never sent to a cell sends kinds 1 and 3 only. The positions
//! a message takes must not depend on where it goes, since the layer above numbers its messages
//! by the same rule ([`crate::data::DataConfig::reliable_numbers`]); so every reliable datagram
//! keeps room for the longest header its federation's groups allow
//! ([`chain_header_max_len`], [`crate::data::DataConfig::chain_reserve`]), and a chained
//! datagram stays within `max_datagram`.
//!
//! **Versions.** The version byte changes whenever a datagram of the new code could be
//! misread, or not read at all, by the old: 2 → 3 for kind 4, which a version-2 receiver drops
//! as an unknown kind (it would silently lose every cell update of a newer sender); 3 → 4 for
//! kinds 5 and 6. Nodes of
//! different versions are kept apart before that, by [`crate::PROTOCOL_VERSION`].
use bytes::Bytes;

use crate::data::chain::{ChainHeader, GroupId, Tail};
use crate::id::{FederationTag, NodeId};

/// The wire version this code speaks: 2 since the MAC is keyed BLAKE3 (see
/// [`crate::data::auth`]), 3 since DDM cell traffic has its own kind
/// ([`DatagramKind::CellBestEffort`]), 4 since reliable traffic goes to cells too
/// ([`DatagramKind::ChainedReliable`]). A datagram of another version is dropped and counted
/// (`bad_version`); nodes of another version are refused before that, by
/// [`crate::PROTOCOL_VERSION`].
pub const VERSION: u8 = 4;
/// Fixed header length.
pub const HEADER_LEN: usize = 32;
/// Length of the truncated MAC (see [`crate::data::auth`]).
pub const MAC_LEN: usize = 16;
/// Header of a whole-message frame.
pub const WHOLE_FRAME_HEADER: usize = 4;
/// Header of a fragment frame.
pub const FRAGMENT_FRAME_HEADER: usize = 20;
/// Largest UDP payload over IPv4.
pub const MAX_UDP_PAYLOAD: usize = 65_507;
/// Smallest datagram size a sender may be configured with (a fragment must carry a useful amount).
pub const MIN_DATAGRAM: usize = HEADER_LEN + MAC_LEN + FRAGMENT_FRAME_HEADER + 64;

const FRAME_WHOLE: u8 = 0;
const FRAME_FRAGMENT: u8 = 1;

/// What a datagram carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DatagramKind {
    /// Sequenced, repaired data frames.
    Reliable,
    /// Unsequenced data frames (numbered only to count loss and drop duplicates).
    BestEffort,
    /// The sender's high-water marks, sent periodically so that tail loss is noticed.
    Heartbeat,
    /// Unsequenced data frames sent to DDM cell groups, numbered in a space of their own, used
    /// only to drop the copy of a message that arrives on a second group (see the module docs:
    /// their loss is not measured).
    CellBestEffort,
    /// Reliable data frames with a [`ChainHeader`] before them: positions in the one reliable
    /// space, spread over the default group and DDM cell groups (see the module docs).
    ChainedReliable,
    /// A heartbeat with a [`Tail`] after the best-effort high-water: what a sender that has
    /// sent reliable data to cell groups says of its stream.
    ChainedHeartbeat,
}

impl DatagramKind {
    fn to_byte(self) -> u8 {
        match self {
            DatagramKind::Reliable => 1,
            DatagramKind::BestEffort => 2,
            DatagramKind::Heartbeat => 3,
            DatagramKind::CellBestEffort => 4,
            DatagramKind::ChainedReliable => 5,
            DatagramKind::ChainedHeartbeat => 6,
        }
    }

    fn from_byte(b: u8) -> Option<Self> {
        match b {
            1 => Some(DatagramKind::Reliable),
            2 => Some(DatagramKind::BestEffort),
            3 => Some(DatagramKind::Heartbeat),
            4 => Some(DatagramKind::CellBestEffort),
            5 => Some(DatagramKind::ChainedReliable),
            6 => Some(DatagramKind::ChainedHeartbeat),
            _ => None,
        }
    }
}

/// Why a datagram could not be parsed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Shorter than header + MAC.
    #[error("datagram too short ({0} bytes)")]
    TooShort(usize),
    /// A version this code does not speak.
    #[error("unsupported wire version {0}")]
    BadVersion(u8),
    /// Unknown datagram kind byte.
    #[error("unknown datagram kind {0}")]
    BadKind(u8),
    /// Unknown frame kind byte.
    #[error("unknown frame kind {0}")]
    BadFrameKind(u8),
    /// A frame runs past the end of the body, or the body has bytes left over.
    #[error("frame overruns or underruns the body")]
    BadFrameLength,
    /// Fragment fields are inconsistent (index >= count, offset + len > total, ...).
    #[error("inconsistent fragment header")]
    BadFragment,
    /// Heartbeat body of the wrong size, or data datagram with no frames.
    #[error("malformed body")]
    BadBody,
}

/// The header fields, readable before authentication (for routing by federation tag).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Datagram kind.
    pub kind: DatagramKind,
    /// Number of frames in the body.
    pub frames: u16,
    /// Federation the datagram belongs to.
    pub tag: FederationTag,
    /// Sending node.
    pub sender: NodeId,
    /// See the layout table in the module docs.
    pub seq: u64,
}

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    a.copy_from_slice(&b[at..at + 4]);
    u32::from_le_bytes(a)
}

fn u64_at(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[at..at + 8]);
    u64::from_le_bytes(a)
}

/// Read the header of a datagram without authenticating it: the shell uses this to route a
/// datagram to the federation named by its tag. Nothing read here may be trusted until the MAC
/// has been checked.
pub fn peek(datagram: &[u8]) -> Result<Header, WireError> {
    if datagram.len() < HEADER_LEN + MAC_LEN {
        return Err(WireError::TooShort(datagram.len()));
    }
    if datagram[0] != VERSION {
        return Err(WireError::BadVersion(datagram[0]));
    }
    let kind = DatagramKind::from_byte(datagram[1]).ok_or(WireError::BadKind(datagram[1]))?;
    Ok(Header {
        kind,
        frames: u16_at(datagram, 2),
        tag: FederationTag(u64_at(datagram, 8)),
        sender: NodeId(u64_at(datagram, 16)),
        seq: u64_at(datagram, 24),
    })
}

/// The authenticated part of a datagram (everything but the MAC) and the MAC.
pub fn split_mac(datagram: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = datagram.len().checked_sub(MAC_LEN)?;
    Some(datagram.split_at(at))
}

/// How a frame's payload relates to its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FrameKind {
    /// The payload is the whole message.
    Whole,
    /// The payload is one piece of a larger message.
    Fragment {
        /// Position of this fragment (0-based).
        index: u32,
        /// Number of fragments of the message.
        count: u32,
        /// Byte offset of this fragment in the message.
        offset: u32,
        /// Length of the whole message.
        total: u32,
    },
}

/// One frame of a data datagram; `payload` is a slice of the received datagram.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Whole message or fragment.
    pub kind: FrameKind,
    /// Payload bytes (shares the datagram's buffer).
    pub payload: Bytes,
}

/// Iterator over the frames of a data datagram's body. Yields an error (once, then stops) if the
/// body is malformed; a body that parses completely yields exactly `header.frames` frames.
#[derive(Debug)]
pub struct Frames {
    datagram: Bytes,
    pos: usize,
    end: usize,
    remaining: u16,
    failed: bool,
}

impl Frames {
    /// Frames of `datagram` (the full datagram including header and MAC), whose header is `h`.
    pub fn new(datagram: Bytes, h: &Header) -> Self {
        let end = datagram.len().saturating_sub(MAC_LEN);
        let pos = if h.kind == DatagramKind::ChainedReliable {
            chain_header_end(&datagram[..end]).unwrap_or(end)
        } else {
            HEADER_LEN
        };
        Frames {
            datagram,
            pos,
            end,
            remaining: h.frames,
            failed: false,
        }
    }

    /// Check the whole body without producing frames (no allocation, no reference counting).
    pub fn validate(datagram: &[u8], h: &Header) -> Result<(), WireError> {
        match h.kind {
            DatagramKind::Heartbeat => {
                if datagram.len() != HEADER_LEN + 8 + MAC_LEN || h.frames != 0 {
                    return Err(WireError::BadBody);
                }
                Ok(())
            }
            DatagramKind::ChainedHeartbeat => {
                if h.frames != 0 {
                    return Err(WireError::BadBody);
                }
                read_tail(datagram, h).map(|_| ())
            }
            DatagramKind::Reliable
            | DatagramKind::BestEffort
            | DatagramKind::CellBestEffort
            | DatagramKind::ChainedReliable => {
                if h.frames == 0 {
                    return Err(WireError::BadBody);
                }
                let body = &datagram[..datagram.len().saturating_sub(MAC_LEN)];
                let mut pos = HEADER_LEN;
                if h.kind == DatagramKind::ChainedReliable {
                    let (header, end) = read_chain_header_at(body)?;
                    chain_header_valid(&header, h)?;
                    pos = end;
                }
                let mut fragments = 0usize;
                for _ in 0..h.frames {
                    let (kind, _, stop) = parse_frame(body, pos)?;
                    if matches!(kind, FrameKind::Fragment { .. }) {
                        fragments += 1;
                    }
                    pos = stop;
                }
                if pos != body.len() {
                    return Err(WireError::BadFrameLength);
                }
                if fragments > 0 && h.frames != 1 {
                    // A fragment travels alone: that is what makes `seq - index` its message id.
                    return Err(WireError::BadFragment);
                }
                Ok(())
            }
        }
    }
}

/// Parse the frame at `pos` of `body` (datagram without MAC): its kind and payload range.
fn parse_frame(b: &[u8], pos: usize) -> Result<(FrameKind, usize, usize), WireError> {
    if pos + WHOLE_FRAME_HEADER > b.len() {
        return Err(WireError::BadFrameLength);
    }
    let len = usize::from(u16_at(b, pos + 2));
    let (kind, header) = match b[pos] {
        FRAME_WHOLE => (FrameKind::Whole, WHOLE_FRAME_HEADER),
        FRAME_FRAGMENT => {
            if pos + FRAGMENT_FRAME_HEADER > b.len() {
                return Err(WireError::BadFrameLength);
            }
            let index = u32_at(b, pos + 4);
            let count = u32_at(b, pos + 8);
            let offset = u32_at(b, pos + 12);
            let total = u32_at(b, pos + 16);
            let fits = u64::from(offset) + len as u64 <= u64::from(total);
            if index >= count || !fits || len == 0 {
                return Err(WireError::BadFragment);
            }
            (
                FrameKind::Fragment {
                    index,
                    count,
                    offset,
                    total,
                },
                FRAGMENT_FRAME_HEADER,
            )
        }
        other => return Err(WireError::BadFrameKind(other)),
    };
    let start = pos + header;
    let stop = start + len;
    if stop > b.len() {
        return Err(WireError::BadFrameLength);
    }
    Ok((kind, start, stop))
}

impl Iterator for Frames {
    type Item = Result<Frame, WireError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        match parse_frame(&self.datagram[..self.end], self.pos) {
            Ok((kind, start, stop)) => {
                self.pos = stop;
                Some(Ok(Frame {
                    kind,
                    payload: self.datagram.slice(start..stop),
                }))
            }
            Err(e) => {
                self.failed = true;
                Some(Err(e))
            }
        }
    }
}

/// The best-effort high-water carried in a heartbeat body (call only on a validated heartbeat).
pub fn heartbeat_best_effort_high(datagram: &[u8]) -> u64 {
    if datagram.len() >= HEADER_LEN + 8 {
        u64_at(datagram, HEADER_LEN)
    } else {
        0
    }
}

/// Most groups a [`ChainHeader`] or a [`Tail`] may list in each of its lists: a sender uses at
/// most its federation's cell slots and the default group, far fewer than this.
pub const MAX_CHAIN_GROUPS: usize = 255;

/// Bytes a [`ChainHeader`] takes on the wire.
pub fn chain_header_len(h: &ChainHeader) -> usize {
    1 + 10 * h.targets.len() + 8 + 1 + 10 * h.others.len()
}

/// The longest [`ChainHeader`] of a sender whose federation has `groups` groups (its cell
/// groups and the default group): each group is named at most once, as a target or in
/// `others`. 0 with a single group, which never needs a header.
pub fn chain_header_max_len(groups: usize) -> usize {
    if groups <= 1 {
        0
    } else {
        1 + 8 + 1 + 10 * groups.min(MAX_CHAIN_GROUPS)
    }
}

fn push_groups(buf: &mut Vec<u8>, groups: &[(GroupId, u64)]) {
    // Callers bound the lists by the federation's cell slots (`MAX_CHAIN_GROUPS` at most).
    buf.push(groups.len().min(MAX_CHAIN_GROUPS) as u8);
    for (g, p) in groups.iter().take(MAX_CHAIN_GROUPS) {
        buf.extend_from_slice(&g.0.to_le_bytes());
        buf.extend_from_slice(&p.to_le_bytes());
    }
}

/// Reads a list of `(group, position)` written by `push_groups` at `pos` of `b`.
fn read_groups(b: &[u8], pos: usize) -> Result<(Vec<(GroupId, u64)>, usize), WireError> {
    let n = usize::from(*b.get(pos).ok_or(WireError::BadBody)?);
    let end = pos + 1 + 10 * n;
    if end > b.len() {
        return Err(WireError::BadBody);
    }
    let groups = (0..n)
        .map(|i| {
            let at = pos + 1 + 10 * i;
            (GroupId(u16_at(b, at)), u64_at(b, at + 2))
        })
        .collect();
    Ok((groups, end))
}

/// Writes `h` (the body of a [`DatagramKind::ChainedReliable`] datagram starts with it).
fn push_chain_header(buf: &mut Vec<u8>, h: &ChainHeader) {
    push_groups(buf, &h.targets);
    buf.extend_from_slice(&h.floor.to_le_bytes());
    push_groups(buf, &h.others);
}

/// The chain header at the start of the body of `b` (a datagram without its MAC), and where the
/// frames start.
fn read_chain_header_at(b: &[u8]) -> Result<(ChainHeader, usize), WireError> {
    let (targets, pos) = read_groups(b, HEADER_LEN)?;
    if pos + 8 > b.len() {
        return Err(WireError::BadBody);
    }
    let floor = u64_at(b, pos);
    let (others, end) = read_groups(b, pos + 8)?;
    Ok((
        ChainHeader {
            targets,
            floor,
            others,
        },
        end,
    ))
}

fn chain_header_end(b: &[u8]) -> Option<usize> {
    read_chain_header_at(b).ok().map(|(_, end)| end)
}

/// What a correct sender's header says of the positions before its datagram's first (`h.seq`):
/// at least one target, every position named below it, the floor no higher than a target's.
fn chain_header_valid(c: &ChainHeader, h: &Header) -> Result<(), WireError> {
    let below = |p: u64| p < h.seq;
    if c.targets.is_empty()
        || !c.targets.iter().all(|(_, p)| below(*p) && *p >= c.floor)
        || !c.others.iter().all(|(_, p)| below(*p) && *p > c.floor)
    {
        return Err(WireError::BadBody);
    }
    Ok(())
}

/// The chain header of a validated [`DatagramKind::ChainedReliable`] datagram (with its MAC).
pub fn chain_header(datagram: &[u8]) -> Result<ChainHeader, WireError> {
    let b = &datagram[..datagram.len().saturating_sub(MAC_LEN)];
    read_chain_header_at(b).map(|(c, _)| c)
}

/// The [`Tail`] of a [`DatagramKind::ChainedHeartbeat`] datagram (with its MAC) whose header is
/// `h`: body = best-effort high-water, then the tail's floor and groups.
pub fn read_tail(datagram: &[u8], h: &Header) -> Result<Tail, WireError> {
    let b = &datagram[..datagram.len().saturating_sub(MAC_LEN)];
    let at = HEADER_LEN + 8;
    if at + 8 > b.len() {
        return Err(WireError::BadBody);
    }
    let floor = u64_at(b, at);
    let (last, end) = read_groups(b, at + 8)?;
    if end != b.len() || floor > h.seq || last.iter().any(|(_, p)| *p > h.seq) {
        return Err(WireError::BadBody);
    }
    Ok(Tail {
        hw: h.seq,
        floor,
        last,
    })
}

/// Builds one datagram in a caller-owned, reused buffer. The MAC is appended by
/// [`DatagramWriter::finish`] (see `auth`).
#[derive(Debug)]
pub struct DatagramWriter<'a> {
    buf: &'a mut Vec<u8>,
    frames: u16,
}

impl<'a> DatagramWriter<'a> {
    /// Clear `buf` and write a header.
    pub fn begin(
        buf: &'a mut Vec<u8>,
        kind: DatagramKind,
        tag: FederationTag,
        sender: NodeId,
        seq: u64,
    ) -> Self {
        buf.clear();
        buf.push(VERSION);
        buf.push(kind.to_byte());
        buf.extend_from_slice(&0u16.to_le_bytes());
        buf.extend_from_slice(&0u32.to_le_bytes());
        buf.extend_from_slice(&tag.0.to_le_bytes());
        buf.extend_from_slice(&sender.0.to_le_bytes());
        buf.extend_from_slice(&seq.to_le_bytes());
        DatagramWriter { buf, frames: 0 }
    }

    /// Clear `buf` and write the header of a [`DatagramKind::ChainedReliable`] datagram whose
    /// first frame is `seq`, with its chain header.
    pub fn begin_chained(
        buf: &'a mut Vec<u8>,
        tag: FederationTag,
        sender: NodeId,
        seq: u64,
        chain: &ChainHeader,
    ) -> Self {
        let w = DatagramWriter::begin(buf, DatagramKind::ChainedReliable, tag, sender, seq);
        push_chain_header(w.buf, chain);
        w
    }

    /// Append a [`Tail`] to a [`DatagramKind::ChainedHeartbeat`] begun with its best-effort
    /// high-water (the tail's `hw` is the header's `seq`).
    pub fn push_tail(&mut self, tail: &Tail) {
        self.buf.extend_from_slice(&tail.floor.to_le_bytes());
        push_groups(self.buf, &tail.last);
    }

    /// Re-open a datagram whose header was written earlier and that has `frames` frames.
    pub fn resume(buf: &'a mut Vec<u8>, frames: u16) -> Self {
        DatagramWriter { buf, frames }
    }

    /// Bytes written so far (header + frames, no MAC).
    pub fn len(&self) -> usize {
        self.buf.len()
    }

    /// True if nothing but the header has been written.
    pub fn is_empty(&self) -> bool {
        self.buf.len() <= HEADER_LEN
    }

    /// Frames written so far.
    pub fn frames(&self) -> u16 {
        self.frames
    }

    /// Append a whole-message frame. The caller checks sizes (payload ≤ u16::MAX).
    pub fn push_whole(&mut self, payload: &[u8]) {
        debug_assert!(payload.len() <= usize::from(u16::MAX));
        self.buf.push(FRAME_WHOLE);
        self.buf.push(0);
        self.buf
            .extend_from_slice(&(payload.len() as u16).to_le_bytes());
        self.buf.extend_from_slice(payload);
        self.frames += 1;
    }

    /// Append a fragment frame.
    pub fn push_fragment(
        &mut self,
        index: u32,
        count: u32,
        offset: u32,
        total: u32,
        payload: &[u8],
    ) {
        debug_assert!(payload.len() <= usize::from(u16::MAX));
        self.buf.push(FRAME_FRAGMENT);
        self.buf.push(0);
        self.buf
            .extend_from_slice(&(payload.len() as u16).to_le_bytes());
        self.buf.extend_from_slice(&index.to_le_bytes());
        self.buf.extend_from_slice(&count.to_le_bytes());
        self.buf.extend_from_slice(&offset.to_le_bytes());
        self.buf.extend_from_slice(&total.to_le_bytes());
        self.buf.extend_from_slice(payload);
        self.frames += 1;
    }

    /// Append raw body bytes (heartbeat body).
    pub fn push_raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Patch the frame count and append the MAC; the buffer then holds the finished datagram.
    pub fn finish(self, auth: &crate::data::auth::DatagramAuth) {
        let n = self.frames.to_le_bytes();
        self.buf[2] = n[0];
        self.buf[3] = n[1];
        let mac = auth.mac(self.buf);
        self.buf.extend_from_slice(&mac);
    }
}
