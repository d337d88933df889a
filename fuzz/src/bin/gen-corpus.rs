//! Writes the seed corpus of every target (`fuzz/corpus/<target>/`) with the real encoders:
//! datagrams from a `DataSender`, NACKs and repairs from its retransmit buffer, control frames,
//! beacons, the LRC's data and control messages, save files, the repository's FOM files and a
//! value of every data type of the demo FOM. Also writes the hand-made regression scripts of
//! issue 20's finding 6 (`fuzz/regressions/`). Deterministic: running it again rewrites the same files.
//!
//! `cargo run --release -p hlamesh-fuzz --bin hlamesh-fuzz-corpus [-- <fuzz dir>]`

use std::path::{Path, PathBuf};
use std::time::Instant;

use hlamesh_lrc::core::regions::{Extent, RangeBounds};
use hlamesh_lrc::core::restore::{SavedMember, SavedMembership};
use hlamesh_lrc::core::save::{SavedFederateState, SavedInstance};
use hlamesh_lrc::core::wire::{
    ControlMsg, DataMsg, Decision, Declaration, Envelope, InstanceState, Reply, Request,
    ResignAction,
};
use hlamesh_lrc::encoding::dynamic::{self, Value};
use hlamesh_lrc::fom::{Fdd, FomModule, STANDARD_MIM_XML};
use hlamesh_lrc::handles::{
    AttributeHandle, DimensionHandle, FederateHandle, InteractionClassHandle,
    MessageRetractionHandle, ObjectClassHandle, ObjectInstanceHandle, ParameterHandle,
};
use hlamesh_timesync::{TimeKind, TimeMessage};
use hlamesh_transport::beacon_auth::BeaconAuth;
use hlamesh_transport::data::{DataConfig, DataSender, Nack, Reliability, Repair};
use hlamesh_transport::discovery::{Beacon, Claim, ClaimAck, Solicit};
use hlamesh_transport::flow::AckPolicy;
use hlamesh_transport::frame::Frame;
use hlamesh_transport::{FederationKey, FederationTag, NodeId};

/// A region's ranges on one dimension, as the wire carries them.
fn extent(dim: u32, lower: u64, upper: u64) -> Extent {
    Extent(
        [(DimensionHandle(dim), RangeBounds::new(lower, upper))]
            .into_iter()
            .collect(),
    )
}

struct Out {
    root: PathBuf,
    written: usize,
    bytes: usize,
}

impl Out {
    fn put(&mut self, kind: &str, target: &str, name: &str, bytes: &[u8]) {
        let dir = self.root.join(kind).join(target);
        if let Err(e) = std::fs::create_dir_all(&dir) {
            panic!("cannot create {}: {e}", dir.display());
        }
        let path = dir.join(name);
        if let Err(e) = std::fs::write(&path, bytes) {
            panic!("cannot write {}: {e}", path.display());
        }
        self.written += 1;
        self.bytes += bytes.len();
    }

    fn seed(&mut self, target: &str, name: &str, bytes: &[u8]) {
        self.put("corpus", target, name, bytes);
    }
}

const TAG: FederationTag = FederationTag(0x6c61_6d65_7368_0001);
const KEY: FederationKey = FederationKey([0x5a; 32]);

fn main() {
    let root = std::env::args().nth(1).map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf(),
        PathBuf::from,
    );
    let mut out = Out {
        root,
        written: 0,
        bytes: 0,
    };
    let datagrams = datagrams(&mut out);
    repair_nack(&mut out, &datagrams);
    control_frames(&mut out, &datagrams);
    beacons(&mut out);
    lrc_wire(&mut out);
    save_files(&mut out);
    foms(&mut out);
    dynamic_values(&mut out);
    receiver_scripts(&mut out);
    println!(
        "wrote {} files, {} bytes, under {}",
        out.written,
        out.bytes,
        out.root.display()
    );
}

fn sender(cfg: DataConfig) -> DataSender {
    DataSender::new(NodeId(3), TAG, &KEY, cfg).expect("config")
}

/// Real datagrams of every kind; returns them for the repair and frame seeds.
fn datagrams(out: &mut Out) -> Vec<Vec<u8>> {
    let now = Instant::now();
    let cfg = DataConfig {
        max_datagram: 600,
        ..DataConfig::default()
    };
    let mut tx = sender(cfg);
    let mut all: Vec<(String, Vec<u8>)> = Vec::new();
    let mut emit = |tx: &mut DataSender, name: &str, rel, payload: &[u8]| {
        let mut ds = Vec::new();
        tx.send(now, rel, payload, &mut |d: &[u8]| ds.push(d.to_vec()))
            .expect("send");
        for (i, d) in ds.into_iter().enumerate() {
            all.push((format!("{name}-{i}"), d));
        }
    };
    emit(
        &mut tx,
        "reliable-small",
        Reliability::Reliable,
        b"position 1.0 2.0",
    );
    emit(&mut tx, "reliable-empty", Reliability::Reliable, b"");
    emit(&mut tx, "best-effort", Reliability::BestEffort, b"speed 12");
    emit(
        &mut tx,
        "reliable-fragmented",
        Reliability::Reliable,
        &[7u8; 1500],
    );
    emit(
        &mut tx,
        "best-effort-fragmented",
        Reliability::BestEffort,
        &[9u8; 1300],
    );
    // DDM cell best-effort (kind 4), whole and fragmented.
    for (name, payload) in [
        ("cell", &b"speed 13"[..]),
        ("cell-fragmented", &[5u8; 1300][..]),
    ] {
        let mut ds = Vec::new();
        tx.send_cells(now, payload, &mut |d: &[u8]| ds.push(d.to_vec()))
            .expect("send");
        for (i, d) in ds.into_iter().enumerate() {
            all.push((format!("{name}-{i}"), d));
        }
    }
    // Batched: several messages in one datagram.
    let mut ds = Vec::new();
    for m in [&b"a"[..], b"bb", b"ccc"] {
        tx.push(now, Reliability::Reliable, m, &mut |d: &[u8]| {
            ds.push(d.to_vec())
        })
        .expect("push");
    }
    tx.flush(now, &mut |d: &[u8]| ds.push(d.to_vec()));
    for (i, d) in ds.into_iter().enumerate() {
        all.push((format!("reliable-batch-{i}"), d));
    }
    let mut hb = Vec::new();
    tx.heartbeat(now, &mut |d: &[u8]| hb.push(d.to_vec()));
    for (i, d) in hb.into_iter().enumerate() {
        all.push((format!("heartbeat-{i}"), d));
    }
    let mut keep = Vec::new();
    for (name, d) in all {
        // Only the first and last fragment of a long message: the middle ones add nothing.
        if name.contains("fragmented") && !(name.ends_with("-0") || name.ends_with("-2")) {
            continue;
        }
        out.seed("datagram", &name, &d);
        keep.push(d);
    }
    keep
}

fn repair_nack(out: &mut Out, datagrams: &[Vec<u8>]) {
    let nacks = [
        Nack {
            ranges: vec![(1, 1)],
        },
        Nack {
            ranges: vec![(1, 3), (5, 9), (12, 12)],
        },
        Nack {
            ranges: vec![(0, u64::MAX)],
        },
    ];
    for (i, n) in nacks.iter().enumerate() {
        out.seed("repair_nack", &format!("nack-{i}"), &enc(n));
    }
    // A real sender's answer to a real NACK.
    let now = Instant::now();
    let mut tx = sender(DataConfig::default());
    for i in 0..6u8 {
        tx.send(now, Reliability::Reliable, &[i; 40], &mut |_: &[u8]| {})
            .expect("send");
    }
    let r = tx.on_nack(now, NodeId(1), &nacks[1]);
    out.seed("repair_nack", "repair-real", &enc(&r));
    let r = Repair {
        first_available: 4,
        datagrams: datagrams
            .iter()
            .take(3)
            .map(|d| serde_bytes::ByteBuf::from(d.clone()))
            .collect(),
    };
    out.seed("repair_nack", "repair-fell-behind", &enc(&r));
    let r = Repair {
        first_available: 1,
        datagrams: Vec::new(),
    };
    out.seed("repair_nack", "repair-empty", &enc(&r));
    // Issue 20, finding 6b: two members' repairs each claiming almost 2^64 numbers lost.
    let r = Repair {
        first_available: u64::MAX - 1,
        datagrams: Vec::new(),
    };
    out.put(
        "regressions",
        "repair_nack",
        "repair-first-available-near-max",
        &enc(&r),
    );
}

/// Postcard, as the control plane carries these bodies.
fn enc<T: serde::Serialize>(v: &T) -> Vec<u8> {
    postcard::to_allocvec(v).expect("plain data encodes")
}

fn control_frames(out: &mut Out, datagrams: &[Vec<u8>]) {
    let tag = TAG;
    let frames = [
        (
            "hello",
            Frame::Hello {
                node: NodeId(9),
                version: 2,
                proof: Some([3; 32]),
            },
        ),
        (
            "hello-ack",
            Frame::HelloAck {
                node: NodeId(10),
                proof: None,
            },
        ),
        (
            "refused",
            Frame::Refused {
                reason: "did not prove the federation secret".into(),
            },
        ),
        ("heartbeat", Frame::Heartbeat),
        ("goodbye", Frame::Goodbye),
        (
            "joined",
            Frame::Joined {
                tag,
                next_seq: 12,
                reply: true,
            },
        ),
        ("left", Frame::Left { tag }),
        ("key-request", Frame::KeyRequest { tag }),
        (
            "key-reply",
            Frame::KeyReply {
                tag,
                key: Some(KEY),
            },
        ),
        (
            "nack",
            Frame::Nack {
                tag,
                nack: Nack {
                    ranges: vec![(3, 7)],
                },
            },
        ),
        (
            "repair",
            Frame::Repair {
                tag,
                repair: Repair {
                    first_available: 1,
                    datagrams: datagrams
                        .iter()
                        .take(2)
                        .map(|d| serde_bytes::ByteBuf::from(d.clone()))
                        .collect(),
                },
            },
        ),
        (
            "ack",
            Frame::Ack {
                tag,
                position: 4096,
            },
        ),
        (
            "ack-request",
            Frame::AckRequest {
                tag,
                policy: AckPolicy {
                    every_bytes: 1 << 20,
                    every_messages: 256,
                },
            },
        ),
        ("cell-fallback", Frame::CellFallback { tag, on: true }),
        (
            "app",
            Frame::App {
                tag: Some(tag),
                hw: 99,
                payload: Envelope {
                    federation: "MovingObject".into(),
                    msg: ControlMsg::Report {
                        last: 4,
                        to: 1,
                        settled: 2,
                    },
                }
                .encode(),
            },
        ),
    ];
    for (name, f) in frames {
        // The decoder gets the body; the 4-byte length prefix is read by the stream reader.
        out.seed("control_frame", name, &f.encode()[4..]);
    }
}

fn beacons(out: &mut Out) {
    let b = Beacon {
        node: NodeId(0x1234_5678_9abc_def0),
        quic_addrs: vec![
            "127.0.0.1:47702".parse().expect("addr"),
            "[::1]:47702".parse().expect("addr"),
        ],
        federations: vec!["MovingObject".into(), "HlameshDemo".into()],
        cert_fingerprint: [0x42; 32],
        claims: vec![Claim {
            name: "NewFed".into(),
            claim_time_us: 1_700_000_000_000_000,
        }],
        seq: 41,
        notes: vec![("MovingObject".into(), "HLAinteger64Time".into())],
        acks: vec![ClaimAck {
            node: NodeId(0x0fed_cba9_8765_4321),
            name: "NewFed".into(),
            claim_time_us: 1_700_000_000_000_123,
        }],
    };
    let auth = BeaconAuth::development(hlamesh_fuzz::targets::beacon::SECRET);
    out.seed("beacon", "beacon-full", &b.seal(&auth));
    let b = Beacon {
        node: NodeId(7),
        quic_addrs: vec!["10.77.41.2:40000".parse().expect("addr")],
        federations: Vec::new(),
        cert_fingerprint: [0; 32],
        claims: Vec::new(),
        seq: 1,
        notes: Vec::new(),
        acks: Vec::new(),
    };
    out.seed("beacon", "beacon-idle", &b.seal(&auth));
    out.seed(
        "beacon",
        "solicit",
        &Solicit { node: NodeId(7) }.seal(&auth),
    );
}

fn lrc_wire(out: &mut Out) {
    let obj = ObjectInstanceHandle(0x0000_0003_0000_0001);
    let fed = FederateHandle(2);
    let a = |n| AttributeHandle(n);
    let data = [
        (
            "register",
            DataMsg::Register {
                object: obj,
                class: ObjectClassHandle(3),
                name: "car-1".into(),
                owned: vec![a(1), a(2)],
            },
        ),
        (
            "update",
            DataMsg::Update {
                object: obj,
                producer: fed,
                values: vec![(a(1), vec![0x40, 0x09, 0x21, 0xfb]), (a(2), b"ab".to_vec())],
                tag: b"tag".to_vec(),
                time: Some(1.5f64.to_be_bytes().to_vec()),
                tso: true,
                versions: vec![0, 2],
                retraction: Some(3),
                after: 0,
                regions: None,
            },
        ),
        (
            "update-moved-in-cells",
            DataMsg::Update {
                object: obj,
                producer: fed,
                values: vec![(a(1), b"p".to_vec())],
                tag: Vec::new(),
                time: None,
                tso: false,
                versions: Vec::new(),
                retraction: None,
                after: 7,
                regions: Some(hlamesh_lrc::core::regions::InlineRegions {
                    attrs: vec![(a(1), 3, vec![extent(1, 10, 20)])],
                }),
            },
        ),
        (
            "interaction",
            DataMsg::Interaction {
                class: InteractionClassHandle(2),
                producer: fed,
                params: vec![(ParameterHandle(1), vec![1, 2, 3])],
                tag: Vec::new(),
                time: None,
                tso: false,
                retraction: None,
            },
        ),
        (
            "delete",
            DataMsg::Delete {
                object: obj,
                producer: fed,
                tag: Vec::new(),
                time: None,
                tso: false,
                retraction: None,
            },
        ),
        (
            "retract",
            DataMsg::Retract {
                handle: MessageRetractionHandle::new(fed, 3),
                seq: 12,
            },
        ),
        (
            "request-update",
            DataMsg::RequestUpdate {
                object: None,
                class: Some(ObjectClassHandle(3)),
                attrs: vec![a(1)],
                tag: Vec::new(),
            },
        ),
        ("epoch", DataMsg::Epoch(2)),
        (
            "declare",
            DataMsg::Declare {
                federate: fed,
                decl: Declaration::SubscribeObject(ObjectClassHandle(3), vec![a(1), a(2)]),
            },
        ),
        (
            "hand-over",
            DataMsg::HandOver {
                object: obj,
                owner: fed,
                attrs: vec![(a(1), 3)],
            },
        ),
        (
            "offer",
            DataMsg::OfferOwnership {
                object: obj,
                owner: fed,
                attrs: vec![a(2)],
                versions: vec![1],
                tag: b"x".to_vec(),
            },
        ),
        (
            "time",
            DataMsg::Time {
                from: fed,
                msg: TimeMessage::RegulationQuery {
                    query: 5,
                    hw: hlamesh_timesync::Seq(2),
                },
                epoch: 0,
                number: 3,
            },
        ),
        (
            "update-regions",
            DataMsg::UpdateRegions {
                object: obj,
                producer: fed,
                attrs: vec![(a(1), vec![extent(1, 10, 20)]), (a(2), Vec::new())],
                version: 2,
            },
        ),
        (
            "move-regions",
            DataMsg::MoveRegions {
                object: obj,
                producer: fed,
                version: 3,
                after: 7,
                attrs: vec![(a(1), vec![extent(1, 12, 22)])],
            },
        ),
        (
            "interaction-in-regions",
            DataMsg::InteractionInRegions {
                class: InteractionClassHandle(2),
                producer: fed,
                params: vec![(ParameterHandle(1), b"hi".to_vec())],
                tag: b"t".to_vec(),
                time: None,
                tso: false,
                retraction: None,
                regions: vec![extent(1, 0, 5), extent(2, 3, 4)],
            },
        ),
        (
            "request-update-in-regions",
            DataMsg::RequestUpdateInRegions {
                class: ObjectClassHandle(3),
                attrs: vec![(vec![a(1)], vec![extent(1, 0, 100)])],
                tag: Vec::new(),
            },
        ),
        (
            "declare-in-regions",
            DataMsg::Declare {
                federate: fed,
                decl: Declaration::SubscribeObjectInRegions {
                    class: ObjectClassHandle(3),
                    attrs: vec![a(1), a(2)],
                    regions: vec![(a(1), vec![extent(1, 0, 100)]), (a(2), Vec::new())],
                },
            },
        ),
    ];
    for (name, m) in data {
        out.seed("lrc_wire", &format!("data-{name}"), &m.encode());
    }
    let control = [
        (
            "join",
            ControlMsg::Request {
                id: 1,
                body: Request::Join {
                    name: Some("viewer".into()),
                    federate_type: "Viewer".into(),
                    modules: vec![("extra.xml".into(), "<objectModel/>".into())],
                },
                epoch: 0,
            },
        ),
        (
            "resign",
            ControlMsg::Request {
                id: 2,
                body: Request::Resign(fed, ResignAction::DeleteObjects, 40),
                epoch: 1,
            },
        ),
        (
            "leave",
            ControlMsg::Request {
                id: 3,
                body: Request::Leave,
                epoch: 1,
            },
        ),
        (
            "reply",
            ControlMsg::Reply {
                id: 1,
                reply: Reply::Joined(fed),
            },
        ),
        (
            "welcome",
            ControlMsg::Welcome {
                base: 2,
                folded: vec![
                    (1, Decision::NodeAdded(10)),
                    (
                        2,
                        Decision::Retired {
                            node: 10,
                            handles: vec![(1, 2)],
                        },
                    ),
                ],
                log: vec![
                    Decision::NodeAdded(11),
                    Decision::FederateJoined {
                        handle: fed,
                        name: "car-1".into(),
                        federate_type: "Car".into(),
                        node: 11,
                        req: (11, 1),
                    },
                ],
                modules: vec![("MovingObject.xml".into(), "<objectModel/>".into())],
                time_kind: TimeKind::Float64,
            },
        ),
        (
            "decisions",
            ControlMsg::Decisions {
                first: 3,
                list: vec![
                    Decision::NodeRemoved(12),
                    Decision::NodeLeft(13),
                    Decision::Destroyed,
                ],
            },
        ),
        (
            "report",
            ControlMsg::Report {
                last: 9,
                to: 11,
                settled: 3,
            },
        ),
        ("fetch", ControlMsg::Fetch { after: 2 }),
        (
            "time",
            ControlMsg::Time {
                from: fed,
                to: None,
                msg: TimeMessage::RegulationQuery {
                    query: 1,
                    hw: hlamesh_timesync::Seq(0),
                },
                epoch: 0,
                number: 1,
            },
        ),
        ("redirect", ControlMsg::Redirect { coordinator: 11 }),
        ("snapshot-request", ControlMsg::SnapshotRequest),
        (
            "evicted",
            ControlMsg::Evicted {
                nodes: vec![11, 12],
            },
        ),
        (
            "member",
            ControlMsg::Member {
                nodes: vec![11, 12],
            },
        ),
        (
            "snapshot",
            ControlMsg::Snapshot {
                high_water: 77,
                instances: vec![InstanceState {
                    object: obj,
                    class: ObjectClassHandle(3),
                    name: "car-1".into(),
                    owners: vec![(a(1), Some(fed), 0), (a(2), None, 1)],
                    values: vec![(a(1), vec![1, 2, 3, 4])],
                }],
                declarations: vec![(
                    fed,
                    Declaration::SubscribeInteraction(InteractionClassHandle(2), true),
                )],
                hand_overs: vec![(obj, fed, vec![(a(1), 2)])],
                epoch: 0,
            },
        ),
    ];
    for (name, msg) in control {
        let e = Envelope {
            federation: "MovingObject".into(),
            msg,
        };
        out.seed("lrc_wire", &format!("control-{name}"), &e.encode());
    }
}

fn saved_state() -> SavedFederateState {
    let fed = FederateHandle(3);
    SavedFederateState {
        federation: "MovingObject".into(),
        label: "checkpoint".into(),
        federate: fed,
        federate_name: "car-1".into(),
        federate_type: "Car".into(),
        log: vec![
            (1, Decision::NodeAdded(11)),
            (
                2,
                Decision::FederateJoined {
                    handle: fed,
                    name: "car-1".into(),
                    federate_type: "Car".into(),
                    node: 11,
                    req: (11, 1),
                },
            ),
        ],
        modules: vec![(
            "MovingObject.xml".into(),
            include_str!("../../../fed-examples/foms/MovingObject.xml").into(),
        )],
        instances: vec![SavedInstance {
            object: ObjectInstanceHandle(0x0000_000b_0000_0001),
            class: ObjectClassHandle(3),
            known_as: Some(ObjectClassHandle(3)),
            name: "car-1".into(),
            owners: vec![(AttributeHandle(1), fed)],
            versions: vec![(AttributeHandle(1), 1)],
            values: vec![(AttributeHandle(1), vec![0x3f, 0xf0, 0, 0, 0, 0, 0, 0])],
        }],
        published_objects: vec![(ObjectClassHandle(3), vec![AttributeHandle(1)])],
        published_interactions: vec![InteractionClassHandle(2)],
        subscribed_objects: vec![(ObjectClassHandle(3), vec![AttributeHandle(1)], true)],
        subscribed_interactions: vec![(InteractionClassHandle(2), true)],
        subscribed_rates: vec![(ObjectClassHandle(3), "TenHz".into(), 100_000)],
        next_counter: 2,
        auto_resign: ResignAction::CancelThenDeleteThenDivest,
        switches: Default::default(),
        time_kind: TimeKind::Float64,
        logical_time: hlamesh_timesync::DynTime::new(4.0),
        lookahead: hlamesh_timesync::DynInterval::new(0.1),
        regulating: true,
        constrained: true,
        membership: SavedMembership {
            save_id: 9,
            federates: vec![SavedMember {
                handle: fed,
                name: "car-1".into(),
                federate_type: "Car".into(),
            }],
            reserved: vec![("car-1".into(), fed)],
            next_handle: 4,
            sync: Vec::new(),
            auto_provide: Some(true),
        },
        time_state: None,
        held: Vec::new(),
        requests: Vec::new(),
        mom: hlamesh_lrc::core::mom::SavedMom {
            modules: vec![("MovingObject.xml".into(), 0)],
            report_period_us: Some(1_000_000),
            service_reporting: Some(3),
            ..Default::default()
        },
        regions: Default::default(),
        conveyed: Default::default(),
    }
}

fn save_files(out: &mut Out) {
    let st = saved_state();
    let file = hlamesh_lrc::save_file::encode(&st).expect("encodes");
    // The target tries each input as a whole file and as the body of a valid file.
    let body = &file[hlamesh_lrc::save_file::MAGIC.len() + 2 + 32..];
    out.seed("save_file", "file-car", &file);
    out.seed("save_file", "body-car", body);
    let mut small = st.clone();
    small.modules.clear();
    small.instances.clear();
    small.log.truncate(1);
    small.lookahead = None;
    let file = hlamesh_lrc::save_file::encode(&small).expect("encodes");
    out.seed("save_file", "file-small", &file);
    // An HLAinteger64Time federation's save, at a time no f64 holds exactly.
    let mut int = small.clone();
    int.time_kind = TimeKind::Integer64;
    int.logical_time = Some(hlamesh_timesync::DynTime::integer((1 << 53) + 1));
    int.lookahead = Some(hlamesh_timesync::DynInterval::integer(3));
    let file = hlamesh_lrc::save_file::encode(&int).expect("encodes");
    out.seed("save_file", "file-integer-time", &file);
    out.seed(
        "save_file",
        "body-small",
        &file[hlamesh_lrc::save_file::MAGIC.len() + 2 + 32..],
    );
}

fn foms(out: &mut Out) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../fed-examples/foms");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .expect("fed-examples/foms")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    names.sort();
    for p in names {
        let text = std::fs::read(&p).expect("FOM readable");
        let name = p.file_name().map(|n| n.to_string_lossy().into_owned());
        out.seed("fom", &name.unwrap_or_default(), &text);
    }
    out.seed("fom", "HLAstandardMIM.xml", STANDARD_MIM_XML.as_bytes());
    // A small join-time module: one class, one interaction, one type of each kind.
    out.seed("fom", "small-module.xml", SMALL_MODULE.as_bytes());
}

const SMALL_MODULE: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
  <modelIdentification><name>Small</name><type>FOM</type><version>1</version></modelIdentification>
  <objects><objectClass><name>HLAobjectRoot</name>
    <objectClass><name>Probe</name><sharing>PublishSubscribe</sharing>
      <attribute><name>Reading</name><dataType>Reading</dataType><updateType>Conditional</updateType>
        <ownership>DivestAcquire</ownership><sharing>PublishSubscribe</sharing>
        <transportation>HLAreliable</transportation><order>Receive</order></attribute>
    </objectClass></objectClass></objects>
  <interactions><interactionClass><name>HLAinteractionRoot</name>
    <interactionClass><name>Ping</name><sharing>PublishSubscribe</sharing>
      <transportation>HLAbestEffort</transportation><order>TimeStamp</order>
      <parameter><name>Mode</name><dataType>Mode</dataType></parameter>
    </interactionClass></interactionClass></interactions>
  <dataTypes>
    <simpleDataTypes><simpleData><name>Celsius</name><representation>HLAfloat64BE</representation><units>C</units></simpleData></simpleDataTypes>
    <enumeratedDataTypes><enumeratedData><name>Mode</name><representation>HLAoctet</representation>
      <enumerator><name>Off</name><value>0</value></enumerator><enumerator><name>On</name><value>1</value></enumerator>
    </enumeratedData></enumeratedDataTypes>
    <arrayDataTypes><arrayData><name>Samples</name><dataType>Celsius</dataType><cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData></arrayDataTypes>
    <fixedRecordDataTypes><fixedRecordData><name>Reading</name><encoding>HLAfixedRecord</encoding>
      <field><name>Mode</name><dataType>Mode</dataType></field>
      <field><name>Samples</name><dataType>Samples</dataType></field>
    </fixedRecordData></fixedRecordDataTypes>
  </dataTypes>
</objectModel>
"#;

/// A value of each data type of the demo FOM (with the MIM), found by decoding a few byte
/// patterns with the real decoder and written back by the real encoder.
fn dynamic_values(out: &mut Out) {
    let demo = include_str!("../../../fed-examples/foms/HlameshDemo.xml");
    let m = FomModule::parse("HlameshDemo.xml", demo).expect("demo FOM");
    let fdd = Fdd::load(&[m]).expect("demo FOM loads");
    let types = fdd.data_types();
    let candidates: Vec<Vec<u8>> = vec![
        vec![],
        vec![0],
        vec![1],
        vec![0, 1],
        vec![0, 0, 0, 1],
        vec![0, 0, 0, 0],
        vec![0, 0, 0, 1, 0, 0, 0, 0x41],
        vec![0, 0, 0, 2, 0, 0, 0, 0x41, 0, 0, 0, 0x42],
        vec![0, 0, 0, 1, 0x41, 0, 0, 0],
        vec![0x3f, 0xf0, 0, 0, 0, 0, 0, 0],
        vec![0; 8],
        vec![0; 16],
        vec![0; 24],
        vec![0; 32],
        vec![0; 48],
        vec![0; 64],
    ];
    let mut written = 0;
    for (i, (id, t)) in types.iter().enumerate() {
        for c in &candidates {
            let Ok(v) = dynamic::decode(types, id, c) else {
                continue;
            };
            let Ok(enc) = dynamic::encode(types, id, &v) else {
                continue;
            };
            let mut seed = u16::try_from(i).expect("few types").to_le_bytes().to_vec();
            seed.extend_from_slice(&enc);
            let name: String = t
                .name
                .chars()
                .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
                .collect();
            out.seed("dynamic", &format!("{i:03}-{name}"), &seed);
            written += 1;
            break;
        }
    }
    // A string value, so that the character paths are seeded too.
    if let Some(id) = fdd.data_type_id("HLAunicodeString") {
        let i = types.iter().position(|(t, _)| t == id).expect("listed");
        if let Ok(enc) = dynamic::encode(types, id, &Value::String("Straße".into())) {
            let mut seed = u16::try_from(i).expect("few types").to_le_bytes().to_vec();
            seed.extend_from_slice(&enc);
            out.seed("dynamic", "unicode-string", &seed);
        }
    }
    assert!(written > 10, "only {written} data types seeded");
}

/// Scripts for the receiver harness (see `targets::receiver` for the byte layout of a step).
fn receiver_scripts(out: &mut Out) {
    // Honest traffic: sends of every size with losses, timeouts, heartbeats, a late release.
    let honest: &[u8] = &[
        0, 1, 40, 0, 0, // reliable, 40 bytes, nothing lost
        0, 2, 0xb8, 0x0b, 0, 0x05, // reliable, 3000 bytes, fragments 0 and 2 lost
        0, 1, 10, 1, 0, // best-effort
        0, 2, 0xb8, 0x0b, 1, 0x02, // best-effort, fragmented, fragment 1 lost
        0, 1, 12, 3, 0, // DDM cell best-effort
        0, 1, 14, 7, 0, // DDM cell best-effort, arriving twice (two joined groups)
        0, 2, 0xb8, 0x0b, 7, 0x04, // cell, fragmented, twice, fragment 2 lost
        2,    // heartbeat
        7, 5, 0, // 5 ms
        7, 0xf4, 0x01, // 500 ms
        1, 1, // release what was held, reversed
        0, 3, 0, 0, // reliable, 600 bytes
    ];
    out.seed("receiver", "honest", honest);
    // The rogue: its own stream, forged datagrams, a forged heartbeat, repairs, membership.
    let rogue: &[u8] = &[
        4, 0xd0, 0x07, 0, 0x01, // rogue reliable 2000 bytes, fragment 0 lost
        3, 0, 1, 3, 1, 1, 2, 0, 0, 1, 0, 5, 1, 2, 3, 4, 5, 0, // forged fragment frame
        3, 0, 2, 3, 9, 0, 0, 8, 1, 0, // forged best-effort, raw 8-byte body
        3, 0, 4, 3, 9, 1, 2, 0, 5, 0, 0, 3, 0, 1, // forged cell best-effort, two whole frames
        4, 0xd0, 0x07, 3, 0x02, // rogue cell send, 2000 bytes, fragment 1 lost
        11, 3, 4, 0x10, 0x00, 3, 0x20, // forged heartbeat
        5, 3, 200, 2, 0, 3, 1, 0, 1, 3, 5, 0, 0, 0, 0, 0,
        1, // repair: a kept datagram and a forged one
        8, 4, 0x00, 0x01, // start the rogue at 256
        9, 1, // the stranger becomes a member
        10, 0, // replay
        12, 1, 1, 0, 3, 9, // the rogue answers a NACK
        7, 0xe8, 0x03, // 1 s
        9, 0, // the rogue leaves
        0, 1, 30, 0, 0, // an honest message afterwards
    ];
    out.seed("receiver", "rogue", rogue);
    // Unsigned garbage behind a plausible header, then honest data.
    let garbage: &[u8] = &[6, 1, 1, 0, 1, 3, 20, 1, 2, 3, 0, 1, 5, 0, 0];
    out.seed("receiver", "garbage", garbage);
    // Issue 20, finding 6a: a repair from the rogue holding a datagram with a valid MAC, seq = 2^64 - 1 and no
    // frames (steps: repair, first_available 0, one datagram, forged: version, kind reliable,
    // claims the rogue, seq MAX, raw empty body, frame count 0, from the rogue).
    out.put(
        "regressions",
        "receiver",
        "repair-forged-seq-max",
        &[5, 0, 1, 1, 0, 1, 3, 5, 0, 0, 0, 0, 0, 1],
    );
    // Issue 20, finding 6b: the rogue's repair says it can only repair from 2^64 - 1 on, then again after it
    // left and came back (the lost counts add up past 2^64).
    out.put(
        "regressions",
        "receiver",
        "repairs-first-available-near-max",
        &[5, 5, 0, 1, 9, 0, 9, 0, 5, 5, 0, 1],
    );
    // Issue 20, finding 6c: a heartbeat with reliable high-water 1 and best-effort high-water 2^64 - 1, before
    // any best-effort datagram of that sender.
    out.put(
        "regressions",
        "receiver",
        "heartbeat-best-effort-max",
        &[11, 3, 1, 5],
    );
}
