//! Discovery datagrams: beacons (`Beacon::decode`) and solicitations (`Solicit::decode`), the
//! two things anyone on the discovery group can send.
//!
//! Invariants: only the decode API is called (what a member does with a beacon is another
//! module's business); what decodes encodes back to bytes that decode to the same value, and a
//! datagram is at most one of the two.

use hlamesh_transport::discovery::{Beacon, Solicit};

/// See the module docs.
pub fn run(data: &[u8]) {
    let beacon = Beacon::decode(data);
    let solicit = Solicit::decode(data);
    assert!(
        !(beacon.is_ok() && solicit.is_ok()),
        "a beacon and a solicitation at once"
    );
    if solicit.is_ok() {
        assert!(Solicit::is_solicit(data));
    }
    if let Ok(b) = beacon {
        let again = Beacon::decode(&b.encode()).expect("an encoded beacon decodes");
        assert_eq!(again, b);
    }
    if let Ok(s) = solicit {
        assert_eq!(Solicit::decode(&s.encode()).ok(), Some(s));
    }
}
