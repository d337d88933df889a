//! The network options every driver takes (`rti-probe`, `rti-shell`, `rti-checkpoint`,
//! `ops-probe`): the interface, multicast TTL, ports and discovery group of a lab of network
//! namespaces (or loopback), turned into a [`TransportConfig`].

use std::net::Ipv4Addr;

use hlamesh_transport::{SecurityConfig, TransportConfig};

/// Where a test federate's LRC talks (flatten into a clap parser).
#[derive(clap::Args, Debug, Clone)]
pub struct LabNetArgs {
    /// Interface address.
    #[arg(long, default_value = "127.0.0.1")]
    pub interface: Ipv4Addr,
    /// Multicast TTL.
    #[arg(long, default_value_t = 0)]
    pub ttl: u32,
    /// Discovery port.
    #[arg(long)]
    pub discovery_port: Option<u16>,
    /// Data port.
    #[arg(long)]
    pub data_port: Option<u16>,
    /// Discovery multicast group.
    #[arg(long)]
    pub discovery_group: Option<Ipv4Addr>,
    /// UDP port of the QUIC endpoint (default: any free port), e.g. for a test that drops a
    /// share of the QUIC packets arriving at one port.
    #[arg(long)]
    pub quic_port: Option<u16>,
    /// Peer timeout in milliseconds (silence after which a peer counts as lost).
    #[arg(long)]
    pub peer_timeout_ms: Option<u64>,
    /// Delay every data datagram this node receives by this many microseconds to 5/4 of it
    /// (the transport's seeded fault layer, seed 1): its data then arrives long after the
    /// control frames sent with it, as on a congested host.
    #[arg(long)]
    pub fault_delay_us: Option<u64>,
}

impl LabNetArgs {
    /// The transport configuration: defaults overridden by these options. A lab of namespaces
    /// is trusted, so development security is allowed off loopback there.
    pub fn transport_config(&self) -> TransportConfig {
        let mut cfg = TransportConfig {
            interface: self.interface,
            multicast_ttl: self.ttl,
            ..TransportConfig::default()
        };
        if let SecurityConfig::Development {
            allow_non_loopback, ..
        } = &mut cfg.security
        {
            *allow_non_loopback = !self.interface.is_loopback();
        }
        if let Some(p) = self.discovery_port {
            cfg.discovery_port = p;
        }
        if let Some(p) = self.data_port {
            cfg.data_port = p;
        }
        if let Some(g) = self.discovery_group {
            cfg.discovery_group = g;
        }
        if let Some(p) = self.quic_port {
            cfg.quic_port = p;
        }
        if let Some(ms) = self.peer_timeout_ms {
            cfg.peer_timeout = std::time::Duration::from_millis(ms);
        }
        if let Some(us) = self.fault_delay_us {
            cfg.fault = Some(hlamesh_transport::FaultSettings {
                seed: 1,
                reorder_per_mille: 1000,
                max_delay_us: us,
                ..Default::default()
            });
        }
        cfg
    }
}
