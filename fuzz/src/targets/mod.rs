//! One module per target; each has `pub fn run(data: &[u8])`.

pub mod beacon;
pub mod control_frame;
pub mod datagram;
pub mod dynamic;
pub mod fom;
pub mod lrc_wire;
pub mod receiver;
pub mod repair_nack;
pub mod save_file;

/// The federation every transport target works in.
pub(crate) mod fixture {
    use hlamesh_transport::data::DataConfig;
    use hlamesh_transport::{FederationKey, FederationTag, NodeId};

    pub const TAG: FederationTag = FederationTag(0x6c61_6d65_7368_0001);
    pub const KEY: FederationKey = FederationKey([0x5a; 32]);
    /// The receiving node.
    pub const LOCAL: NodeId = NodeId(1);
    /// A member that holds the key and misbehaves.
    pub const ROGUE: NodeId = NodeId(2);
    /// A member that holds the key and follows the protocol: its stream must arrive intact.
    pub const HONEST: NodeId = NodeId(3);
    /// Not a member (but it holds the key).
    pub const STRANGER: NodeId = NodeId(4);

    /// Small limits, so that the fuzzer reaches them quickly.
    pub fn config() -> DataConfig {
        DataConfig {
            max_datagram: 600,
            max_message: 64 << 10,
            reorder_capacity_bytes: 96 << 10,
            reassembly_capacity_bytes: 160 << 10,
            retransmit_capacity_bytes: 8 << 20,
            retransmit_capacity_msgs: 1 << 16,
            max_nack_ranges: 8,
            max_repair_bytes: 16 << 10,
            ..DataConfig::default()
        }
    }
}
