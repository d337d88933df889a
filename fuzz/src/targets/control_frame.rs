//! Control-plane frames (the postcard body of each length-prefixed frame on a peer's QUIC
//! stream, `frame::Frame::decode`), and the flow-control state they feed.
//!
//! Invariants: a frame that decodes encodes to a length prefix plus a body that decodes to the
//! same frame; an acknowledgement of any position or a request with any policy leaves the flow
//! window and the acknowledgement state usable.

use std::time::{Duration, Instant};

use hlamesh_transport::flow::{AckPolicy, AckState, FlowConfig, FlowWindow, Room};
use hlamesh_transport::frame::{Frame, MAX_FRAME};

use super::fixture::ROGUE;

/// See the module docs.
pub fn run(data: &[u8]) {
    let Ok(frame) = Frame::decode(data) else {
        return;
    };
    let enc = frame.encode();
    let len = u32::from_be_bytes([enc[0], enc[1], enc[2], enc[3]]) as usize;
    assert_eq!(len, enc.len() - 4);
    assert!(len <= MAX_FRAME || data.len() > MAX_FRAME);
    let back = Frame::decode(&enc[4..]).expect("an encoded frame decodes");
    assert_eq!(back, frame);
    match frame {
        Frame::Ack { position, .. } => ack(position),
        Frame::AckRequest { policy, .. } => ask(policy),
        _ => {}
    }
}

fn ack(position: u64) {
    let now = Instant::now();
    let mut w = FlowWindow::new(FlowConfig {
        window_bytes: 1000,
        window_messages: 10,
        stall_after: Duration::from_millis(50),
    });
    w.add_receiver(ROGUE, now);
    for p in 1..=20 {
        w.on_sent(p, 100);
    }
    let _ = w.on_ack(ROGUE, position, now);
    let _ = w.room(now);
    w.on_sent(21, 100);
    let _ = w.on_ack(ROGUE, position, now);
    // Whatever it acknowledged, the sender is never blocked past the stall deadline.
    assert_eq!(w.room(now + Duration::from_millis(50)), Room::Open);
}

fn ask(policy: AckPolicy) {
    let own = AckPolicy {
        every_bytes: 4096,
        every_messages: 16,
    };
    let mut s = AckState::default();
    s.asked(policy);
    let mut due = 0;
    for _ in 0..32 {
        due += usize::from(s.delivered(usize::MAX / 4, own));
    }
    // Never later than our own policy asks.
    assert_eq!(due, 32);
}
