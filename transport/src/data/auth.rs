//! Datagram authentication: HMAC-SHA256 truncated to 16 bytes (128-bit tag, as in RFC 2104 §5 /
//! NIST SP 800-107 truncation; plenty against forgery for datagrams that live milliseconds).
//!
//! The HMAC key is not the federation key itself but a sub-key derived from it,
//! `HMAC-SHA256(federation key, "hlamesh data-plane datagram mac v1")`, so that the federation
//! key can authenticate or encrypt other things later without the uses interfering.
//! Authentication only: datagrams are not encrypted, and replays are caught by sequence numbers.

use ring::hmac;

use crate::data::wire::{MAC_LEN, split_mac};
use crate::id::FederationKey;

const LABEL: &[u8] = b"hlamesh data-plane datagram mac v1";

/// Signs and verifies datagrams of one federation.
#[derive(Clone)]
pub struct DatagramAuth {
    key: hmac::Key,
}

impl std::fmt::Debug for DatagramAuth {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("DatagramAuth(..)")
    }
}

impl DatagramAuth {
    /// Derive the datagram key from the federation key.
    pub fn new(key: &FederationKey) -> Self {
        let root = hmac::Key::new(hmac::HMAC_SHA256, &key.0);
        let sub = hmac::sign(&root, LABEL);
        DatagramAuth {
            key: hmac::Key::new(hmac::HMAC_SHA256, sub.as_ref()),
        }
    }

    /// The truncated MAC of `data`.
    pub fn mac(&self, data: &[u8]) -> [u8; MAC_LEN] {
        let tag = hmac::sign(&self.key, data);
        let mut out = [0u8; MAC_LEN];
        out.copy_from_slice(&tag.as_ref()[..MAC_LEN]);
        out
    }

    /// True if the datagram's trailing MAC is right. Constant-time in the tag comparison.
    pub fn verify(&self, datagram: &[u8]) -> bool {
        let Some((signed, mac)) = split_mac(datagram) else {
            return false;
        };
        let expect = self.mac(signed);
        let diff = expect
            .iter()
            .zip(mac)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b));
        diff == 0 && mac.len() == MAC_LEN
    }
}
