//! Discovery datagrams: beacons and solicitations, the two things anyone on the discovery group
//! can send.
//!
//! A beacon is authenticated before any of its body is read (`Beacon::open`); the target opens
//! every input under a development-mode key ([`SECRET`], which the seed beacons are sealed with,
//! so the fuzzer reaches the body parser through the authenticated path too) and also runs the
//! body parser directly (`Beacon::decode_unverified`). Solicitations are sealed the same way
//! (`Solicit::open`; the seed is sealed under [`SECRET`] too). Invariants: what opens is what the
//! parser reads; what decodes seals and opens back to the same value, and never under another
//! secret; a datagram is at most one of a beacon and a solicitation.

use std::time::Instant;

use hlamesh_transport::beacon_auth::BeaconAuth;
use hlamesh_transport::discovery::{Beacon, Solicit};

/// The development secret the seed beacons are sealed under.
pub const SECRET: &[u8] = b"hlamesh-fuzz-development-secret";

/// See the module docs.
pub fn run(data: &[u8]) {
    let now = Instant::now();
    let parsed = Beacon::decode_unverified(data);
    let opened = Beacon::open(data, &mut BeaconAuth::development(SECRET), now);
    if let Ok(b) = &opened {
        assert_eq!(
            parsed.as_ref().ok(),
            Some(b),
            "opened but does not parse alike"
        );
    }
    let solicit = Solicit::decode(data);
    assert!(
        !(parsed.is_ok() && solicit.is_ok()),
        "a beacon and a solicitation at once"
    );
    if solicit.is_ok() {
        assert!(Solicit::is_solicit(data));
    }
    if let Ok(b) = parsed {
        let sealed = b.seal(&BeaconAuth::development(SECRET));
        let again = Beacon::open(&sealed, &mut BeaconAuth::development(SECRET), now)
            .expect("a sealed beacon opens under the same secret");
        assert_eq!(again, b);
        assert!(
            Beacon::open(
                &sealed,
                &mut BeaconAuth::development(b"another secret"),
                now
            )
            .is_err(),
            "a beacon opened under another secret"
        );
    }
    if let Ok(s) = Solicit::open(data, &mut BeaconAuth::development(SECRET), now) {
        assert_eq!(
            solicit.as_ref().ok(),
            Some(&s),
            "opened but does not parse alike"
        );
    }
    if let Ok(s) = solicit {
        assert_eq!(Solicit::decode(&s.encode()).ok(), Some(s));
        let sealed = s.seal(&BeaconAuth::development(SECRET));
        assert_eq!(
            Solicit::open(&sealed, &mut BeaconAuth::development(SECRET), now).ok(),
            Some(s),
            "a sealed solicitation opens under the same secret"
        );
        assert!(
            Solicit::open(
                &sealed,
                &mut BeaconAuth::development(b"another secret"),
                now
            )
            .is_err(),
            "a solicitation opened under another secret"
        );
    }
}
