//! Transport configuration: one serde struct, loadable from TOML, with defaults that keep everything
//! on this host (loopback interface, multicast TTL 0) so that nothing leaves the machine unless the
//! user says so.
//!
//! Joining a LAN is one setting plus TTL: set `interface` to the address of the NIC (or
//! `interface_cidr` to a CIDR the NIC's address falls in) and `multicast_ttl = 1`.

use std::net::{Ipv4Addr, SocketAddr};
use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::error::TransportError;
use crate::id::FederationTag;

/// Protocol version carried in beacons and the QUIC handshake. Peers with another version are
/// ignored (beacons) or refused (QUIC) with one clear log line. 4: data datagrams of wire
/// version 2 (keyed BLAKE3 MAC, [`crate::data::auth`]); a node of version 3 could not read them.
/// 5: beacons carry a note per federation ([`crate::discovery::Beacon::notes`]); a node of
/// version 4 could not decode them. 6: beacons acknowledge other nodes' create claims
/// ([`crate::discovery::Beacon::acks`]); a node of version 5 could not decode them, and would
/// never acknowledge a claim (its rivals would wait the whole old settle interval). 7: data
/// datagrams of wire version 3 (DDM cell traffic as its own kind,
/// [`crate::data::DatagramKind::CellBestEffort`]); a node of version 6 would drop every cell
/// update of a newer sender. 8: the `CellFallback` control frame (a member that cannot join a
/// DDM cell group asks for cell traffic on the default group); a node of version 7 could not
/// decode it, and would go on sending to cells that member cannot hear. 9: data datagrams of
/// wire version 4 (reliable traffic on DDM cell groups, [`crate::data::DatagramKind::ChainedReliable`]);
/// a node of version 8 would drop every reliable cell message and chained heartbeat.
pub const PROTOCOL_VERSION: u16 = 9;

/// How peers authenticate each other on the QUIC mesh.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "mode", rename_all = "snake_case")]
pub enum SecurityConfig {
    /// Mutual TLS: a lab CA certificate, this node's certificate (signed by the CA, with the DNS name
    /// `hlamesh` among its subject alternative names) and its private key, all PEM files. A peer
    /// whose certificate is not signed by the CA is refused.
    Certificates {
        /// CA certificate (PEM).
        ca: PathBuf,
        /// This node's certificate chain (PEM).
        cert: PathBuf,
        /// This node's private key (PEM, PKCS#8 or SEC1/PKCS#1).
        key: PathBuf,
    },
    /// Ephemeral self-signed certificates plus a shared federation secret that both ends prove with
    /// a MAC keyed by the TLS exporter in the first control message. Meant for one machine or a
    /// trusted lab; on a non-loopback interface it needs `allow_non_loopback = true` (and warns).
    Development {
        /// The shared secret every member must know.
        secret: String,
        /// Permit development mode on an interface other than loopback.
        #[serde(default)]
        allow_non_loopback: bool,
    },
}

impl Default for SecurityConfig {
    fn default() -> Self {
        SecurityConfig::Development {
            secret: "hlamesh-development".to_string(),
            allow_non_loopback: false,
        }
    }
}

/// Seeded fault injection on received multicast datagrams (tests only): delay, reorder and
/// duplicate real packets after they crossed a real socket. Loss is injected in the kernel with
/// nftables instead (see deploy/lab).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FaultSettings {
    /// Seed of the fault sequence (replayable).
    pub seed: u64,
    /// Datagrams dropped, per mille.
    #[serde(default)]
    pub drop_per_mille: u32,
    /// Datagrams duplicated, per mille.
    #[serde(default)]
    pub dup_per_mille: u32,
    /// Datagrams held back and delivered later (reordered), per mille.
    #[serde(default)]
    pub reorder_per_mille: u32,
    /// Maximum extra delay of a reordered datagram, microseconds.
    #[serde(default)]
    pub max_delay_us: u64,
}

/// Everything the transport needs to run.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TransportConfig {
    /// IPv4 address of the interface used for multicast and QUIC. Default: 127.0.0.1.
    pub interface: Ipv4Addr,
    /// Alternative to `interface`: pick the local address that falls in this CIDR (e.g.
    /// "192.168.10.0/24"). Resolved at start.
    pub interface_cidr: Option<String>,
    /// Multicast TTL. 0 keeps datagrams on this host (the default); 1 for one LAN segment.
    pub multicast_ttl: u32,
    /// Discovery multicast group.
    pub discovery_group: Ipv4Addr,
    /// Discovery UDP port.
    pub discovery_port: u16,
    /// UDP port of the federation data groups.
    pub data_port: u16,
    /// Base address of the range federation data groups are hashed into.
    pub data_group_base: Ipv4Addr,
    /// Prefix length of that range (default /16: 239.255.0.0/16).
    pub data_group_prefix: u8,
    /// Fixed data group for every federation instead of the hashed one.
    pub data_group: Option<Ipv4Addr>,
    /// DDM cell groups (see `docs/DDM.md` and [`crate::core::cells`]): the grid has this many
    /// cells along each of the first two dimensions of a routing space. Must be the same at
    /// every member of a federation (it decides which cell a region is in). Default 4.
    pub cells_per_dimension: u32,
    /// Cell groups (slots) per federation, so at most this many memberships of the data
    /// socket per federation besides its default group: at most 19, so that one federation fits
    /// in Linux's default `net.ipv4.igmp_max_memberships` (20) with its default group; 0 turns
    /// cell groups off (everything on the default group). Must be the same at every member of a
    /// federation. Each slot keeps 10 bytes of every reliable datagram free for the chain header
    /// ([`TransportConfig::chain_reserve`]). Default 16.
    pub max_joined_cells: u32,
    /// A best-effort message sent with regions whose cells map to more groups than this goes to
    /// the default group instead, once (counted as a fallback). Default 8.
    pub max_cells_per_send: u32,
    /// QUIC UDP port (0 = any free port).
    pub quic_port: u16,
    /// How often beacons are sent.
    #[serde(with = "duration_ms")]
    pub beacon_interval: Duration,
    /// A peer that sent no beacon for this long is forgotten by discovery.
    #[serde(with = "duration_ms")]
    pub beacon_expiry: Duration,
    /// Least time between two beacons of this node. A beacon asked for sooner (an answer to a
    /// starting node's query, a new federation) is deferred to this gap, so a storm of queries
    /// costs at most one beacon per gap. It is also the least time between two queries.
    #[serde(with = "duration_ms")]
    pub beacon_min_gap: Duration,
    /// The create race's fast path (`hlamesh_core::create_race`): a creator decides once its
    /// own beacon built this long after its claim was first heard back has come back, and
    /// every other claimant it heard has acknowledged its claim. It must exceed the time a
    /// beacon takes to reach every node and an answer to come back (network, and the answering
    /// node's scheduling); at most three beacon intervals and 50 ms are used (the wait for a
    /// silent claimant).
    #[serde(with = "duration_ms")]
    pub create_settle: Duration,
    /// How often control-plane heartbeats are sent to each peer.
    #[serde(with = "duration_ms")]
    pub heartbeat_interval: Duration,
    /// A connected peer silent for longer than this is reported lost.
    #[serde(with = "duration_ms")]
    pub peer_timeout: Duration,
    /// Security mode.
    pub security: SecurityConfig,
    /// Largest UDP payload of a data datagram, bytes; 0 (the default): the interface's MTU
    /// less 28, at most [`AUTO_MAX_DATAGRAM`] (see [`TransportConfig::resolved_max_datagram`]).
    pub max_datagram: usize,
    /// Flow control of reliable data (see [`crate::flow`]): a sender's application threads wait
    /// while its slowest receiver has not acknowledged `flow_window_bytes` or
    /// `flow_window_messages` of its reliable stream. Off, senders never wait and a slower
    /// receiver is served by NACK and repair alone.
    pub flow_control: bool,
    /// Unacknowledged reliable bytes allowed ahead of the slowest receiver, counted as the
    /// receiver's socket buffer is charged (about twice the payload plus 900 bytes per message:
    /// [`crate::flow::buffer_cost`]). 0: a quarter
    /// of the data socket's receive buffer as the kernel granted it (`net.core.rmem_max` caps
    /// it), at least 64 KiB.
    pub flow_window_bytes: u64,
    /// Unacknowledged reliable messages allowed ahead of the slowest receiver.
    pub flow_window_messages: u64,
    /// A receiver that acknowledged nothing for this long while a sender waited is left out of
    /// the window until it catches up, so one stuck receiver cannot stop the others.
    #[serde(with = "duration_ms")]
    pub flow_stall: Duration,
    /// Retransmit buffer per sender and federation, bytes: a ceiling. With flow control on, the
    /// buffer releases what every receiver acknowledged once it is a second old, so a steady
    /// stream holds about one flow window plus a second of traffic; a receiver that stops
    /// acknowledging (or flow control off) lets it grow to this limit, never beyond.
    pub retransmit_buffer_bytes: usize,
    /// Reassembly memory per federation, bytes.
    pub reassembly_buffer_bytes: usize,
    /// Largest message accepted for sending or reassembly.
    pub max_message: usize,
    /// Test-only seeded fault layer on received data datagrams.
    pub fault: Option<FaultSettings>,
    /// Address of the Prometheus `/metrics` endpoint (e.g. "0.0.0.0:47780"; port 0 = any free
    /// port). Off when absent. Process-wide: see [`crate::metrics`].
    pub metrics_addr: Option<SocketAddr>,
}

impl Default for TransportConfig {
    fn default() -> Self {
        TransportConfig {
            interface: Ipv4Addr::LOCALHOST,
            interface_cidr: None,
            multicast_ttl: 0,
            discovery_group: Ipv4Addr::new(239, 255, 77, 1),
            discovery_port: 47_700,
            data_port: 47_701,
            data_group_base: Ipv4Addr::new(239, 255, 0, 0),
            data_group_prefix: 16,
            data_group: None,
            cells_per_dimension: 4,
            max_joined_cells: 16,
            max_cells_per_send: 8,
            quic_port: 0,
            beacon_interval: Duration::from_millis(200),
            beacon_expiry: Duration::from_secs(3),
            beacon_min_gap: Duration::from_millis(10),
            create_settle: Duration::from_millis(20),
            heartbeat_interval: Duration::from_millis(100),
            peer_timeout: Duration::from_millis(1000),
            security: SecurityConfig::default(),
            max_datagram: 0,
            flow_control: true,
            flow_window_bytes: 0,
            flow_window_messages: 65_536,
            flow_stall: Duration::from_millis(200),
            retransmit_buffer_bytes: 64 << 20,
            reassembly_buffer_bytes: 64 << 20,
            max_message: 16 << 20,
            fault: None,
            metrics_addr: None,
        }
    }
}

impl TransportConfig {
    /// Parses a TOML configuration (unknown keys are an error, missing keys take defaults).
    pub fn from_toml(text: &str) -> Result<Self, TransportError> {
        Ok(toml::from_str(text)?)
    }

    /// Overrides from `HLAMESH_*` environment variables (interface, TTL, ports, secret, metrics
    /// address), so a deployment can adjust one value without a file.
    pub fn apply_env(&mut self) -> Result<(), TransportError> {
        fn var(name: &str) -> Option<String> {
            std::env::var(name).ok().filter(|v| !v.is_empty())
        }
        fn parse<T: std::str::FromStr>(name: &str, v: &str) -> Result<T, TransportError> {
            v.parse()
                .map_err(|_| TransportError::Config(format!("{name}={v:?} is not valid")))
        }
        if let Some(v) = var("HLAMESH_INTERFACE") {
            if v.contains('/') {
                self.interface_cidr = Some(v);
            } else {
                self.interface = parse("HLAMESH_INTERFACE", &v)?;
            }
        }
        if let Some(v) = var("HLAMESH_TTL") {
            self.multicast_ttl = parse("HLAMESH_TTL", &v)?;
        }
        if let Some(v) = var("HLAMESH_DISCOVERY_PORT") {
            self.discovery_port = parse("HLAMESH_DISCOVERY_PORT", &v)?;
        }
        if let Some(v) = var("HLAMESH_DATA_PORT") {
            self.data_port = parse("HLAMESH_DATA_PORT", &v)?;
        }
        if let Some(v) = var("HLAMESH_DISCOVERY_GROUP") {
            self.discovery_group = parse("HLAMESH_DISCOVERY_GROUP", &v)?;
        }
        if let Some(v) = var("HLAMESH_CREATE_SETTLE_MS") {
            self.create_settle = Duration::from_millis(parse("HLAMESH_CREATE_SETTLE_MS", &v)?);
        }
        if let Some(v) = var("HLAMESH_METRICS_ADDR") {
            self.metrics_addr = Some(parse("HLAMESH_METRICS_ADDR", &v)?);
        }
        if let Some(v) = var("HLAMESH_SECRET") {
            self.security = SecurityConfig::Development {
                secret: v,
                allow_non_loopback: matches!(
                    self.security,
                    SecurityConfig::Development {
                        allow_non_loopback: true,
                        ..
                    }
                ),
            };
        }
        Ok(())
    }

    /// The interface address after resolving `interface_cidr` against this host's addresses.
    pub fn resolved_interface(&self) -> Result<Ipv4Addr, TransportError> {
        let Some(cidr) = &self.interface_cidr else {
            return Ok(self.interface);
        };
        let (net, len) = parse_cidr(cidr)?;
        let mask = if len == 0 { 0 } else { u32::MAX << (32 - len) };
        for addr in local_ipv4_addrs() {
            if u32::from(addr) & mask == u32::from(net) & mask {
                return Ok(addr);
            }
        }
        Err(TransportError::Config(format!(
            "no local IPv4 address falls in interface_cidr {cidr}"
        )))
    }

    /// The largest data datagram: `max_datagram`, or with 0 the MTU of `interface` minus the
    /// IPv4 and UDP headers (28 bytes), capped at [`AUTO_MAX_DATAGRAM`]; 1472 (a 1500-byte
    /// Ethernet MTU) when the MTU cannot be read. On loopback every receiver is on this host and
    /// the MTU is 64 KiB, so batches grow to the cap and a sender pays one system call, one MAC
    /// and one wake-up of each receiver per up to [`AUTO_MAX_DATAGRAM`] bytes.
    pub fn resolved_max_datagram(&self, interface: Ipv4Addr) -> usize {
        if self.max_datagram != 0 {
            return self.max_datagram;
        }
        interface_mtu(interface)
            .map(|mtu| (mtu.saturating_sub(28)).clamp(576 - 28, AUTO_MAX_DATAGRAM))
            .unwrap_or(1472)
    }

    /// The multicast group carrying a federation's data.
    pub fn data_group_for(&self, tag: FederationTag) -> Ipv4Addr {
        if let Some(g) = self.data_group {
            return g;
        }
        let prefix = u32::from(self.data_group_prefix.min(31));
        let host_bits = 32 - prefix;
        let base = u32::from(self.data_group_base) & (u32::MAX << host_bits);
        // Avoid the .0 and .255 host parts some switches treat specially.
        let span = (1u64 << host_bits).saturating_sub(2).max(1);
        let offset = (tag.0 % span) as u32 + 1;
        Ipv4Addr::from(base | offset)
    }

    /// The multicast group of cell slot `slot` of a federation (see [`crate::core::cells`]):
    /// the addresses right after the federation's hashed default group, inside the same range
    /// (`data_group_base` / `data_group_prefix`, wrapping, skipping the .0 and .255 host parts
    /// as the default groups do). Another federation's default or cell group may coincide with
    /// one: that costs filtering (every datagram names its federation), never correctness.
    pub fn cell_group_for(&self, tag: FederationTag, slot: u32) -> Ipv4Addr {
        let prefix = u32::from(self.data_group_prefix.min(31));
        let host_bits = 32 - prefix;
        let base = u32::from(self.data_group_base) & (u32::MAX << host_bits);
        let span = (1u64 << host_bits).saturating_sub(2).max(1);
        let offset = ((tag.0 % span) + 1 + u64::from(slot)) % span + 1;
        Ipv4Addr::from(base | offset as u32)
    }

    /// The cell groups of a federation, one per slot (none when `max_joined_cells` is 0 or a
    /// fixed `data_group` is configured: then everything travels on the default group).
    pub fn cell_groups_for(&self, tag: FederationTag) -> Vec<Ipv4Addr> {
        if self.data_group.is_some() {
            return Vec::new();
        }
        (0..self.max_joined_cells)
            .map(|s| self.cell_group_for(tag, s))
            .collect()
    }

    /// Bytes every reliable data datagram keeps free for a chain header
    /// ([`crate::data::DataConfig::chain_reserve`]): the longest header a federation's cell
    /// groups and default group allow, 0 without cell groups. 180 bytes with the default 16
    /// slots: at a 1500-byte MTU a reliable message of more than 1,240 bytes (not 1,420) is
    /// fragmented, and each fragment carries 1,224 bytes. On loopback (64 KiB datagrams) it
    /// changes nothing measurable. A federation that uses no DDM regions regains the bytes with
    /// `max_joined_cells` 0.
    pub fn chain_reserve(&self) -> usize {
        let cells = if self.data_group.is_some() {
            0
        } else {
            self.max_joined_cells as usize
        };
        crate::data::wire::chain_header_max_len(cells + 1)
    }

    /// Checks values that would otherwise fail obscurely later.
    pub fn validate(&self) -> Result<(), TransportError> {
        if self.max_joined_cells > 19 {
            return Err(TransportError::Config(format!(
                "max_joined_cells {} over 19 (net.ipv4.igmp_max_memberships is 20 by default, \
                 one is the federation's default group)",
                self.max_joined_cells
            )));
        }
        if !(1..=256).contains(&self.cells_per_dimension) {
            return Err(TransportError::Config(format!(
                "cells_per_dimension {} outside 1..=256",
                self.cells_per_dimension
            )));
        }
        if !self.discovery_group.is_multicast() {
            return Err(TransportError::Config(format!(
                "discovery_group {} is not a multicast address",
                self.discovery_group
            )));
        }
        if !self.data_group_base.is_multicast() {
            return Err(TransportError::Config(format!(
                "data_group_base {} is not a multicast address",
                self.data_group_base
            )));
        }
        if self.max_datagram != 0 && !(256..=65_000).contains(&self.max_datagram) {
            return Err(TransportError::Config(format!(
                "max_datagram {} outside 256..=65000 (0: from the interface's MTU)",
                self.max_datagram
            )));
        }
        let least = crate::data::wire::MIN_DATAGRAM + self.chain_reserve();
        if self.max_datagram != 0 && self.max_datagram < least {
            return Err(TransportError::Config(format!(
                "max_datagram {} leaves no room for the {}-byte chain header of {} DDM cell \
                 groups: raise it to at least {least} or lower max_joined_cells",
                self.max_datagram,
                self.chain_reserve(),
                self.max_joined_cells
            )));
        }
        if self.beacon_min_gap.is_zero() || self.beacon_min_gap > self.beacon_interval {
            return Err(TransportError::Config(format!(
                "beacon_min_gap {:?} must be at least 1 ms and at most beacon_interval {:?}",
                self.beacon_min_gap, self.beacon_interval
            )));
        }
        if self.create_settle < self.beacon_min_gap {
            return Err(TransportError::Config(format!(
                "create_settle {:?} must be at least beacon_min_gap {:?}",
                self.create_settle, self.beacon_min_gap
            )));
        }
        if self.flow_window_messages < 4 || self.flow_stall.is_zero() {
            return Err(TransportError::Config(format!(
                "flow_window_messages {} must be at least 4 and flow_stall {:?} above zero",
                self.flow_window_messages, self.flow_stall
            )));
        }
        if self.peer_timeout <= self.heartbeat_interval {
            return Err(TransportError::Config(
                "peer_timeout must be longer than heartbeat_interval".into(),
            ));
        }
        Ok(())
    }
}

fn parse_cidr(cidr: &str) -> Result<(Ipv4Addr, u32), TransportError> {
    let bad = || TransportError::Config(format!("interface_cidr {cidr:?} is not a.b.c.d/len"));
    let (a, l) = cidr.split_once('/').ok_or_else(bad)?;
    let addr: Ipv4Addr = a.parse().map_err(|_| bad())?;
    let len: u32 = l.parse().map_err(|_| bad())?;
    if len > 32 {
        return Err(bad());
    }
    Ok((addr, len))
}

/// This host's IPv4 addresses, read from the kernel's routing tables (no extra crate needed).
fn local_ipv4_addrs() -> Vec<Ipv4Addr> {
    // /proc/net/fib_trie lists "|-- a.b.c.d" followed by "/32 host LOCAL" for local addresses.
    let Ok(text) = std::fs::read_to_string("/proc/net/fib_trie") else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut last: Option<Ipv4Addr> = None;
    for line in text.lines() {
        let t = line.trim_start_matches([' ', '|', '+', '-', '`']).trim();
        if let Ok(a) = t.parse::<Ipv4Addr>() {
            last = Some(a);
        } else if t.contains("/32 host LOCAL")
            && let Some(a) = last
            && !out.contains(&a)
        {
            out.push(a);
        }
    }
    out
}

/// Largest datagram `max_datagram = 0` picks, whatever the MTU (see
/// [`TransportConfig::resolved_max_datagram`]).
pub const AUTO_MAX_DATAGRAM: usize = 16 * 1024;

/// The MTU of the interface that carries `addr`: loopback for 127/8, else the interface of the
/// longest directly connected route in `/proc/net/route` that contains `addr`, read from
/// `/sys/class/net/<iface>/mtu`. `None` when any of it is unreadable (not Linux, no route).
fn interface_mtu(addr: Ipv4Addr) -> Option<usize> {
    let iface = if addr.is_loopback() {
        "lo".to_string()
    } else {
        route_interface(&std::fs::read_to_string("/proc/net/route").ok()?, addr)?
    };
    std::fs::read_to_string(format!("/sys/class/net/{iface}/mtu"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// The interface of the longest-prefix, gateway-less route containing `addr` in the text of
/// `/proc/net/route` (addresses in little-endian hex).
fn route_interface(table: &str, addr: Ipv4Addr) -> Option<String> {
    let a = u32::from(addr);
    let hex = |s: &str| u32::from_str_radix(s, 16).ok().map(u32::swap_bytes);
    table
        .lines()
        .skip(1)
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let (dest, gw, mask) = (hex(f.get(1)?)?, hex(f.get(2)?)?, hex(f.get(7)?)?);
            (gw == 0 && mask != 0 && a & mask == dest & mask).then(|| (mask.count_ones(), f[0]))
        })
        .max_by_key(|(len, _)| *len)
        .map(|(_, iface)| iface.to_string())
}

/// The address a QUIC endpoint binds for a given interface.
pub fn quic_bind_addr(interface: Ipv4Addr, port: u16) -> SocketAddr {
    SocketAddr::from((interface, port))
}

mod duration_ms {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }
    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_millis(u64::deserialize(d)?))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_datagram_too_small_for_the_chain_header_of_its_cell_groups_is_refused() {
        let with_cells = TransportConfig {
            max_datagram: 300,
            ..TransportConfig::default()
        };
        assert_eq!(with_cells.chain_reserve(), 180);
        let e = with_cells
            .validate()
            .expect_err("300 bytes leave no room for 180");
        assert!(e.to_string().contains("max_joined_cells"), "{e}");
        let without = TransportConfig {
            max_joined_cells: 0,
            ..with_cells.clone()
        };
        assert_eq!(without.chain_reserve(), 0);
        without.validate().expect("no cell groups, no header");
        let fixed_group = TransportConfig {
            data_group: Some(Ipv4Addr::new(239, 1, 2, 3)),
            ..with_cells
        };
        assert_eq!(
            fixed_group.chain_reserve(),
            0,
            "a fixed data group has no cells"
        );
    }

    #[test]
    fn datagram_size_follows_the_interface_mtu() {
        let table = "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n\
                     eth0\t00000000\t010200C0\t0003\t0\t0\t0\t00000000\t0\t0\t0\n\
                     eth0\t000200C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n\
                     br9\t00000A0A\t00000000\t0001\t0\t0\t0\t0000FFFF\t0\t0\t0\n\
                     br8\t00800A0A\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n";
        let at = |a: &str| route_interface(table, a.parse().expect("address"));
        assert_eq!(at("192.0.2.5").as_deref(), Some("eth0"));
        assert_eq!(at("10.10.3.4").as_deref(), Some("br9"));
        assert_eq!(
            at("10.10.128.4").as_deref(),
            Some("br8"),
            "longest prefix wins"
        );
        assert_eq!(
            at("172.16.0.1"),
            None,
            "only the default route (via a gateway) covers it"
        );
        let c = TransportConfig::default();
        let lo = c.resolved_max_datagram(Ipv4Addr::LOCALHOST);
        if let Some(mtu) = interface_mtu(Ipv4Addr::LOCALHOST) {
            assert_eq!(lo, (mtu - 28).min(AUTO_MAX_DATAGRAM));
        } else {
            assert_eq!(lo, 1472);
        }
        let fixed = TransportConfig {
            max_datagram: 1400,
            ..TransportConfig::default()
        };
        assert_eq!(fixed.resolved_max_datagram(Ipv4Addr::LOCALHOST), 1400);
        fixed.validate().expect("valid");
        let bad = TransportConfig {
            max_datagram: 100,
            ..TransportConfig::default()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn defaults_stay_on_this_host() {
        let c = TransportConfig::default();
        assert_eq!(c.interface, Ipv4Addr::LOCALHOST);
        assert_eq!(c.multicast_ttl, 0);
        c.validate().expect("defaults valid");
    }

    #[test]
    fn toml_overrides_and_rejects_unknown_keys() {
        let c = TransportConfig::from_toml("multicast_ttl = 1\ninterface = \"10.1.2.3\"\n")
            .expect("parses");
        assert_eq!(c.multicast_ttl, 1);
        assert_eq!(c.interface, Ipv4Addr::new(10, 1, 2, 3));
        let err = TransportConfig::from_toml("multicast_tll = 1\n").expect_err("typo rejected");
        assert!(err.to_string().contains("multicast_tll"), "{err}");
    }

    #[test]
    fn metrics_addr_is_off_by_default_and_parses() {
        assert_eq!(TransportConfig::default().metrics_addr, None);
        let c = TransportConfig::from_toml("metrics_addr = \"127.0.0.1:47780\"\n").expect("parses");
        assert_eq!(
            c.metrics_addr,
            Some(SocketAddr::from(([127, 0, 0, 1], 47780)))
        );
        assert!(TransportConfig::from_toml("metrics_addr = \"47780\"\n").is_err());
    }

    #[test]
    fn security_modes_parse() {
        let c = TransportConfig::from_toml(
            "[security]\nmode = \"certificates\"\nca = \"ca.pem\"\ncert = \"n.pem\"\nkey = \"n.key\"\n",
        )
        .expect("parses");
        assert!(matches!(c.security, SecurityConfig::Certificates { .. }));
    }

    #[test]
    fn cell_groups_follow_the_default_group_inside_the_range() {
        let c = TransportConfig::default();
        let tag = FederationTag::from_name("Restaurant");
        let d = c.data_group_for(tag);
        let cells = c.cell_groups_for(tag);
        assert_eq!(cells.len(), 16);
        let distinct: std::collections::BTreeSet<_> = cells.iter().collect();
        assert_eq!(distinct.len(), 16);
        for g in &cells {
            assert_ne!(*g, d);
            assert_eq!(g.octets()[..2], [239, 255]);
            assert!(g.octets()[3] != 0 || g.octets()[2] != 0);
        }
        let fixed = TransportConfig {
            data_group: Some(Ipv4Addr::new(239, 1, 1, 1)),
            ..TransportConfig::default()
        };
        assert!(fixed.cell_groups_for(tag).is_empty());
        let too_many = TransportConfig {
            max_joined_cells: 20,
            ..TransportConfig::default()
        };
        assert!(too_many.validate().is_err());
    }

    #[test]
    fn data_groups_are_in_range_and_stable() {
        let c = TransportConfig::default();
        let g = c.data_group_for(FederationTag::from_name("Restaurant"));
        assert_eq!(g, c.data_group_for(FederationTag::from_name("Restaurant")));
        let o = g.octets();
        assert_eq!((o[0], o[1]), (239, 255));
        assert_ne!(
            g,
            c.data_group_for(FederationTag::from_name("Other")),
            "different names should usually map to different groups"
        );
    }

    #[test]
    fn cidr_resolves_loopback() {
        let c = TransportConfig {
            interface_cidr: Some("127.0.0.0/8".into()),
            ..Default::default()
        };
        assert_eq!(c.resolved_interface().expect("lo"), Ipv4Addr::LOCALHOST);
        let bad = TransportConfig {
            interface_cidr: Some("203.0.113.0/24".into()),
            ..Default::default()
        };
        assert!(bad.resolved_interface().is_err());
    }
}
