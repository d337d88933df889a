//! The LRC's core messages: `DataMsg` (on the federation's multicast data stream, inside the
//! transport's authenticated datagrams) and the `Envelope` around every `ControlMsg` (over
//! QUIC between LRCs), each a version byte and postcard.
//!
//! Invariants: any bytes give a message or a typed error; a message that decodes encodes to
//! bytes that decode and encode to the same bytes again (compared as bytes, so that a NaN time
//! or value does not count as a difference).

use hlamesh_lrc::core::wire::{DataMsg, Envelope, WIRE_VERSION};

/// See the module docs.
pub fn run(data: &[u8]) {
    check(data);
    // The same bytes behind the right version byte reach the postcard decoder every time.
    let mut versioned = Vec::with_capacity(data.len() + 1);
    versioned.push(WIRE_VERSION);
    versioned.extend_from_slice(data);
    check(&versioned);
}

fn check(bytes: &[u8]) {
    match DataMsg::decode(bytes) {
        Ok(m) => {
            let enc = m.encode();
            assert_eq!(enc[0], WIRE_VERSION);
            let again = DataMsg::decode(&enc).expect("an encoded data message decodes");
            assert_eq!(again.encode(), enc);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    match Envelope::decode(bytes) {
        Ok(m) => {
            let enc = m.encode();
            let again = Envelope::decode(&enc).expect("an encoded envelope decodes");
            assert_eq!(again.encode(), enc);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
