//! Where a run's traffic goes: interface, TTL, ports and groups, unique per run so that
//! concurrent runs (and tests) never hear each other.

use std::net::Ipv4Addr;
use std::time::Duration;

use hlamesh_transport::{SecurityConfig, TransportConfig};

/// The network parameters shared by the driver and its peers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetParams {
    /// Interface address of this process.
    pub interface: Ipv4Addr,
    /// Multicast TTL (0 on loopback, 1 in the namespace lab).
    pub ttl: u32,
    /// hlamesh discovery port.
    pub discovery_port: u16,
    /// hlamesh data port.
    pub data_port: u16,
    /// hlamesh discovery group.
    pub discovery_group: Ipv4Addr,
    /// Port of the raw UDP multicast baseline.
    pub raw_port: u16,
    /// Group of the raw UDP multicast baseline.
    pub raw_group: Ipv4Addr,
}

impl NetParams {
    /// Parameters unique to this process id, on `interface`.
    pub fn for_run(interface: Ipv4Addr, ttl: u32) -> NetParams {
        let pid = std::process::id();
        // 10000–19999: below the kernel's ephemeral range (32768–60999 by default), where a QUIC
        // endpoint's port 0 may land on one of ours (bind: address in use, seen in CI), and
        // below the tests' 20000–32767.
        let base = 10_000 + (pid % 1_250) as u16 * 8;
        NetParams {
            interface,
            ttl,
            discovery_port: base,
            data_port: base + 1,
            discovery_group: Ipv4Addr::new(239, 255, 180 + (pid % 20) as u8, (pid % 250) as u8 + 1),
            raw_port: base + 2,
            raw_group: Ipv4Addr::new(239, 255, 79, 1),
        }
    }

    /// The same run as seen from another host (its own interface).
    pub fn on(&self, interface: Ipv4Addr) -> NetParams {
        NetParams {
            interface,
            ..self.clone()
        }
    }

    /// A second set of hlamesh ports and discovery group for a second transport in the same
    /// processes (the `time` subcommand's transport barrier beside the LRC's transport).
    pub fn alt(&self) -> NetParams {
        let [a, b, c, d] = self.discovery_group.octets();
        NetParams {
            discovery_port: self.discovery_port + 4,
            data_port: self.discovery_port + 5,
            discovery_group: Ipv4Addr::new(a, b, c.wrapping_add(20), d),
            ..self.clone()
        }
    }

    /// Command-line arguments that reproduce these parameters in a peer process.
    pub fn to_args(&self) -> Vec<String> {
        vec![
            "--interface".into(),
            self.interface.to_string(),
            "--ttl".into(),
            self.ttl.to_string(),
            "--discovery-port".into(),
            self.discovery_port.to_string(),
            "--data-port".into(),
            self.data_port.to_string(),
            "--discovery-group".into(),
            self.discovery_group.to_string(),
            "--raw-port".into(),
            self.raw_port.to_string(),
            "--raw-group".into(),
            self.raw_group.to_string(),
        ]
    }

    /// The transport configuration for this process.
    pub fn transport_config(&self) -> TransportConfig {
        TransportConfig {
            interface: self.interface,
            multicast_ttl: self.ttl,
            discovery_port: self.discovery_port,
            data_port: self.data_port,
            discovery_group: self.discovery_group,
            security: SecurityConfig::Development {
                secret: "hlamesh-bench".into(),
                allow_non_loopback: true,
            },
            beacon_interval: Duration::from_millis(100),
            ..TransportConfig::default()
        }
    }
}
