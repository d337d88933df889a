//! The create race's view of a discovered peer: the beacon's claims and acknowledgements as
//! the sans-I/O race (`crate::create_race`) reads them, converted once per turn.

use hlamesh_transport::discovery::PeerInfo;

use crate::create_race::Heard;

/// One peer's claims and acknowledgements, owned, for [`RaceBeacon::heard`].
pub(super) struct RaceBeacon {
    claims: Vec<(String, u64)>,
    acks: Vec<(u64, String, u64)>,
}

impl RaceBeacon {
    /// Converts the claims and acknowledgements of `peer`'s latest beacon.
    pub(super) fn of(peer: &PeerInfo) -> RaceBeacon {
        let b = &peer.beacon;
        RaceBeacon {
            claims: b
                .claims
                .iter()
                .map(|c| (c.name.clone(), c.claim_time_us))
                .collect(),
            acks: b
                .acks
                .iter()
                .map(|a| (a.node.0, a.name.clone(), a.claim_time_us))
                .collect(),
        }
    }

    /// The race's view of `peer`, which this was converted from.
    pub(super) fn heard<'a>(&'a self, peer: &'a PeerInfo) -> Heard<'a> {
        Heard {
            node: peer.beacon.node.0,
            federations: &peer.beacon.federations,
            claims: &self.claims,
            acks: &self.acks,
        }
    }
}
