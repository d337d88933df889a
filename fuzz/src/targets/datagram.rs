//! The multicast data datagram: header (`wire::peek`), body layout (`Frames::validate`), frame
//! iteration, heartbeat body and MAC check, on the raw bytes and on the same bytes with a valid
//! MAC appended (what a member holding the key could send).
//!
//! Invariants: a body that validates yields exactly `frames` frames, all well formed, each
//! payload inside the datagram; writing the parsed header and frames back with the real encoder
//! (`DatagramWriter`) reproduces the datagram byte for byte, up to the reserved fields (which
//! are sent as 0 and ignored on receipt).

use bytes::Bytes;
use hlamesh_transport::data::auth::DatagramAuth;
use hlamesh_transport::data::wire::{
    self, DatagramKind, DatagramWriter, FrameKind, Frames, HEADER_LEN, MAC_LEN,
};

use super::fixture::KEY;

/// See the module docs.
pub fn run(data: &[u8]) {
    let auth = DatagramAuth::new(&KEY);
    check(data, &auth);
    if data.len() >= HEADER_LEN {
        let mut signed = data.to_vec();
        signed.extend_from_slice(&auth.mac(data));
        assert!(
            auth.verify(&signed),
            "a datagram signed with the key verifies"
        );
        check(&signed, &auth);
    }
}

fn check(d: &[u8], auth: &DatagramAuth) {
    let _ = auth.verify(d);
    let Ok(h) = wire::peek(d) else {
        return;
    };
    assert!(d.len() >= HEADER_LEN + MAC_LEN);
    assert_eq!(h.frames, u16::from_le_bytes([d[2], d[3]]));
    assert_eq!(h.seq.to_le_bytes(), d[24..32]);
    let validated = Frames::validate(d, &h);
    let frames: Vec<_> = Frames::new(Bytes::copy_from_slice(d), &h).collect();
    assert!(frames.len() <= usize::from(h.frames));
    if validated.is_err() {
        return;
    }
    let body_end = d.len() - MAC_LEN;
    // The datagram as the real encoder writes it: reserved bytes are zero.
    let mut expect = d[..body_end].to_vec();
    expect[4..8].fill(0);
    let mut buf = Vec::new();
    let chain = (h.kind == DatagramKind::ChainedReliable)
        .then(|| wire::chain_header(d).expect("validated: the chain header parses"));
    let mut w = match &chain {
        Some(c) => DatagramWriter::begin_chained(&mut buf, h.tag, h.sender, h.seq, c),
        None => DatagramWriter::begin(&mut buf, h.kind, h.tag, h.sender, h.seq),
    };
    match h.kind {
        DatagramKind::Heartbeat => {
            assert_eq!(d.len(), HEADER_LEN + 8 + MAC_LEN);
            assert!(frames.is_empty());
            let high = wire::heartbeat_best_effort_high(d);
            w.push_raw(&high.to_le_bytes());
        }
        DatagramKind::ChainedHeartbeat => {
            assert!(frames.is_empty());
            let tail = wire::read_tail(d, &h).expect("validated: the tail parses");
            assert!(tail.floor <= h.seq && tail.last.iter().all(|(_, p)| *p <= h.seq));
            let high = wire::heartbeat_best_effort_high(d);
            w.push_raw(&high.to_le_bytes());
            w.push_tail(&tail);
        }
        DatagramKind::Reliable
        | DatagramKind::BestEffort
        | DatagramKind::CellBestEffort
        | DatagramKind::ChainedReliable => {
            assert_eq!(
                frames.len(),
                usize::from(h.frames),
                "validated: every frame parses"
            );
            let mut pos = HEADER_LEN + chain.as_ref().map_or(0, wire::chain_header_len);
            if let Some(c) = &chain {
                assert!(!c.targets.is_empty());
                assert!(c.targets.iter().all(|(_, p)| *p < h.seq && *p >= c.floor));
                assert!(c.others.iter().all(|(_, p)| *p < h.seq && *p > c.floor));
            }
            for f in frames {
                let f = f.expect("a validated body yields only good frames");
                expect[pos + 1] = 0;
                match f.kind {
                    FrameKind::Whole => {
                        w.push_whole(&f.payload);
                        pos += wire::WHOLE_FRAME_HEADER;
                    }
                    FrameKind::Fragment {
                        index,
                        count,
                        offset,
                        total,
                    } => {
                        assert_eq!(h.frames, 1, "a fragment travels alone");
                        assert!(index < count);
                        assert!(!f.payload.is_empty());
                        assert!(u64::from(offset) + f.payload.len() as u64 <= u64::from(total));
                        w.push_fragment(index, count, offset, total, &f.payload);
                        pos += wire::FRAGMENT_FRAME_HEADER;
                    }
                }
                assert_eq!(&d[pos..pos + f.payload.len()], &f.payload[..]);
                pos += f.payload.len();
            }
            assert_eq!(pos, body_end, "frames cover the body exactly");
        }
    }
    w.finish(auth);
    assert_eq!(&buf[..body_end], &expect[..], "re-encoding differs");
}
