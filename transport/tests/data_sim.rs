//! Deterministic simulation of the data plane: several nodes in one process, each with a
//! `DataSender` and a `DataReceiver`, a seeded faulty multicast network (`FaultInjector`: drop,
//! duplicate, reorder, delay), and a reliable ordered control channel (QUIC stand-in, postcard
//! encoded) for NACKs, repairs and causally gated control messages.
//!
//! Invariants checked:
//! - reliable: every receiver delivers each sender's messages in order, exactly once and
//!   byte-identical; with a retransmit buffer too small for the loss, exactly the messages that
//!   touch a reported `FellBehind` range are missing, and nothing else;
//! - best-effort: at most once, byte-identical;
//! - memory: receivers and senders stay within their configured bounds at every step;
//! - causality: a gated control message is released only once its data is delivered.
//!
//! Seeds: `HLAMESH_SIM_SEED=<n>` runs one seed, `HLAMESH_SIM_SEEDS=<count>` sets how many
//! (default 4). A failure names the seed to rerun.

// Nodes are addressed by index throughout (links and control are keyed by index pairs).
#![allow(clippy::needless_range_loop)]

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, HashMap};
use std::time::{Duration, Instant};

use bytes::Bytes;
use hlamesh_transport::data::{
    CausalGate, DataConfig, DataReceiver, DataSender, Nack, RecvEvent, Reliability, Repair, Seq,
    SeqRange,
};
use hlamesh_transport::fault::{FaultConfig, FaultInjector};
use hlamesh_transport::{FederationKey, FederationTag, NodeId};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

const TAG: FederationTag = FederationTag(0x5151);
const KEY: FederationKey = FederationKey([0x42; 32]);

#[derive(Clone, Debug)]
struct Scenario {
    nodes: usize,
    messages_per_node: usize,
    cfg: DataConfig,
    net: FaultConfig,
    control_delay: Duration,
    expect_fell_behind: bool,
    /// The last node joins this late: it hears nothing before, then starts every sender's
    /// stream at the sender's high-water + 1 (as after a state transfer).
    late_join: Option<Duration>,
    /// Node 0 leaves at this time: the others remove it (receiver and gate).
    leave: Option<Duration>,
}

#[derive(Debug)]
enum Ctrl {
    Nack(Vec<u8>),
    Repair(Vec<u8>),
    /// A control message gated on the sender's data high-water.
    Gated {
        hw: u64,
        id: u64,
    },
}

struct Node {
    id: NodeId,
    tx: DataSender,
    rx: DataReceiver,
    gate: CausalGate<(u64, u64)>,
    /// Per sender: delivered reliable (seq, payload).
    got_rel: BTreeMap<NodeId, Vec<(Seq, Bytes)>>,
    got_be: HashMap<Vec<u8>, usize>,
    lost: BTreeMap<NodeId, Vec<SeqRange>>,
    gated_released: u64,
    /// Not yet joined (late joiner) or gone (leaver): hears and does nothing.
    active: bool,
    /// Per sender, the first reliable number this node is expected to deliver.
    start: BTreeMap<NodeId, u64>,
}

struct Sent {
    seq: Option<Seq>,
    frames: u64,
    payload: Vec<u8>,
}

#[derive(Debug, Default)]
struct Outcome {
    fell_behind: u64,
    nacks: u64,
    reliable_delivered: u64,
    best_effort_delivered: u64,
    best_effort_sent: u64,
    network_drops: u64,
    late_joiner_delivered: u64,
    receivers: Vec<hlamesh_transport::data::RecvStats>,
}

fn seeds() -> Vec<u64> {
    if let Some(s) = std::env::var("HLAMESH_SIM_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
    {
        return vec![s];
    }
    let n = std::env::var("HLAMESH_SIM_SEEDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4u64);
    (1..=n).collect()
}

fn size(rng: &mut StdRng) -> usize {
    match rng.random_range(0..100) {
        0..70 => rng.random_range(1..=200),
        70..90 => rng.random_range(201..=4096),
        _ => rng.random_range(4097..=64 << 10),
    }
}

fn frames_of(cfg: &DataConfig, len: usize) -> u64 {
    if len <= cfg.max_whole_payload() {
        1
    } else {
        len.div_ceil(cfg.fragment_payload()) as u64
    }
}

/// Run one seeded scenario; Err names what broke.
fn run(seed: u64, sc: &Scenario) -> Result<Outcome, String> {
    let t0 = Instant::now();
    let mut rng = StdRng::seed_from_u64(seed);
    let ids: Vec<NodeId> = (0..sc.nodes).map(|i| NodeId(100 + i as u64)).collect();
    let mut nodes: Vec<Node> = ids
        .iter()
        .map(|&id| {
            let mut rx = DataReceiver::new(id, TAG, &KEY, sc.cfg.clone()).expect("cfg");
            for &o in &ids {
                if o != id {
                    rx.add_sender(o);
                }
            }
            Node {
                id,
                tx: DataSender::new(id, TAG, &KEY, sc.cfg.clone()).expect("cfg"),
                rx,
                gate: CausalGate::new(),
                got_rel: BTreeMap::new(),
                got_be: HashMap::new(),
                lost: BTreeMap::new(),
                gated_released: 0,
                active: true,
                start: BTreeMap::new(),
            }
        })
        .collect();
    let late = sc.nodes - 1;
    let join_at = sc.late_join.map(|d| t0 + d);
    let leave_at = sc.leave.map(|d| t0 + d);
    let mut joined = join_at.is_none();
    let mut left = false;
    if !joined {
        nodes[late].active = false;
    }
    let mut gated_to_inactive = 0u64;
    let mut links: BTreeMap<(usize, usize), FaultInjector> = BTreeMap::new();
    for s in 0..sc.nodes {
        for r in 0..sc.nodes {
            if s != r {
                let link_seed = seed.wrapping_mul(1000).wrapping_add((s * 31 + r) as u64);
                links.insert((s, r), FaultInjector::new(link_seed, sc.net.clone()));
            }
        }
    }
    // Control channel: (deliver at, counter) ordered; per-pair FIFO kept by never scheduling a
    // message before the previous one on the same pair.
    let mut control: BinaryHeap<Reverse<(Instant, u64, usize, usize)>> = BinaryHeap::new();
    let mut control_msgs: HashMap<u64, Ctrl> = HashMap::new();
    let mut control_last: HashMap<(usize, usize), Instant> = HashMap::new();
    let mut counter = 0u64;
    let mut schedule = |now: Instant,
                        from: usize,
                        to: usize,
                        msg: Ctrl,
                        control: &mut BinaryHeap<Reverse<(Instant, u64, usize, usize)>>,
                        control_msgs: &mut HashMap<u64, Ctrl>| {
        let last = control_last.entry((from, to)).or_insert(now);
        let at = (now + sc.control_delay).max(*last);
        *last = at;
        counter += 1;
        control.push(Reverse((at, counter, from, to)));
        control_msgs.insert(counter, msg);
    };

    let mut sent: Vec<Vec<Sent>> = (0..sc.nodes).map(|_| Vec::new()).collect();
    let mut be_sent: HashMap<Vec<u8>, usize> = HashMap::new();
    let mut gated_sent = 0u64;
    let mut next_send: Vec<Instant> = (0..sc.nodes)
        .map(|_| t0 + Duration::from_micros(rng.random_range(0..500)))
        .collect();
    let mut remaining: Vec<usize> = vec![sc.messages_per_node; sc.nodes];
    let mut out = Outcome::default();
    let limit = t0 + Duration::from_secs(120);
    let mut now = t0;
    let mem_bound = sc.cfg.reorder_capacity_bytes
        + sc.cfg.reassembly_capacity_bytes
        + (sc.nodes - 1) * sc.cfg.max_message;

    if !joined {
        next_send[late] = join_at.unwrap_or(t0);
    }
    loop {
        // 0. Membership changes.
        if !joined && join_at.is_some_and(|t| t <= now) {
            joined = true;
            nodes[late].active = true;
            for s in 0..sc.nodes {
                if s != late {
                    let next = nodes[s].tx.high_water().0 + 1;
                    nodes[late].start.insert(ids[s], next);
                    nodes[late].rx.start_sender_at(ids[s], Seq(next));
                }
            }
        }
        if !left && leave_at.is_some_and(|t| t <= now) {
            left = true;
            nodes[0].active = false;
            remaining[0] = 0;
            for r in 1..sc.nodes {
                nodes[r].rx.remove_sender(ids[0]);
                nodes[r].gate.remove_sender(ids[0]);
            }
        }
        // 1. Application sends due now: a burst of 1..=4 messages, some batched.
        for s in 0..sc.nodes {
            if remaining[s] == 0 || next_send[s] > now || !nodes[s].active {
                continue;
            }
            let mut wire: Vec<Bytes> = Vec::new();
            let mut emit = |d: &[u8]| wire.push(Bytes::copy_from_slice(d));
            let burst = rng.random_range(1..=4).min(remaining[s]);
            for _ in 0..burst {
                let len = size(&mut rng);
                let payload: Vec<u8> = (0..len).map(|_| rng.random()).collect();
                let reliable = rng.random_range(0..100) < 75;
                let rel = if reliable {
                    Reliability::Reliable
                } else {
                    Reliability::BestEffort
                };
                let tx = &mut nodes[s].tx;
                let seq = if rng.random_bool(0.5) {
                    tx.push(now, rel, &payload, &mut emit)
                } else {
                    tx.send(now, rel, &payload, &mut emit)
                }
                .map_err(|e| format!("send: {e}"))?;
                if reliable {
                    sent[s].push(Sent {
                        seq,
                        frames: frames_of(&sc.cfg, len),
                        payload,
                    });
                } else {
                    *be_sent.entry(payload).or_default() += 1;
                    out.best_effort_sent += 1;
                }
            }
            nodes[s].tx.flush(now, &mut emit);
            remaining[s] -= burst;
            next_send[s] = now + Duration::from_micros(rng.random_range(50..3000));
            for d in wire {
                multicast(s, now, d, &mut links, &mut nodes);
            }
            // Now and then a control message gated on the data just sent.
            if rng.random_range(0..100) < 20 {
                let hw = nodes[s].tx.high_water().0;
                for r in 0..sc.nodes {
                    if r != s && !nodes[r].active {
                        continue;
                    }
                    if r != s {
                        gated_sent += 1;
                        schedule(
                            now,
                            s,
                            r,
                            Ctrl::Gated { hw, id: gated_sent },
                            &mut control,
                            &mut control_msgs,
                        );
                    }
                }
            }
        }

        // 2. Multicast datagrams due.
        for (&(_, r), link) in links.iter_mut() {
            while let Some(d) = link.poll(now) {
                if nodes[r].active {
                    nodes[r].rx.on_datagram(now, d);
                }
            }
        }

        // 3. Control messages due.
        while let Some(Reverse((at, c, from, to))) = control.peek().copied() {
            if at > now {
                break;
            }
            control.pop();
            let Some(msg) = control_msgs.remove(&c) else {
                continue;
            };
            if !nodes[to].active || !nodes[from].active {
                // To or from a node that has left: the QUIC connection is gone.
                if matches!(msg, Ctrl::Gated { .. }) {
                    gated_to_inactive += 1;
                }
                continue;
            }
            match msg {
                Ctrl::Nack(bytes) => {
                    let nack: Nack = postcard::from_bytes(&bytes).map_err(|e| e.to_string())?;
                    let from_id = nodes[from].id;
                    let rep = nodes[to].tx.on_nack(now, from_id, &nack);
                    let bytes = postcard::to_allocvec(&rep).map_err(|e| e.to_string())?;
                    schedule(
                        now,
                        to,
                        from,
                        Ctrl::Repair(bytes),
                        &mut control,
                        &mut control_msgs,
                    );
                }
                Ctrl::Repair(bytes) => {
                    let rep: Repair = postcard::from_bytes(&bytes).map_err(|e| e.to_string())?;
                    let from_id = nodes[from].id;
                    nodes[to].rx.on_repair(now, from_id, rep);
                }
                Ctrl::Gated { hw, id } => {
                    let from_id = nodes[from].id;
                    nodes[to].gate.push(from_id, Seq(hw), (hw, id));
                }
            }
        }

        // 4. Timers.
        for s in 0..sc.nodes {
            if !nodes[s].active {
                continue;
            }
            if nodes[s].tx.poll_timeout().is_some_and(|t| t <= now) {
                let mut wire: Vec<Bytes> = Vec::new();
                nodes[s]
                    .tx
                    .on_timeout(now, &mut |d: &[u8]| wire.push(Bytes::copy_from_slice(d)));
                for d in wire {
                    multicast(s, now, d, &mut links, &mut nodes);
                }
            }
            if nodes[s].rx.poll_timeout().is_some_and(|t| t <= now) {
                nodes[s].rx.on_timeout(now);
            }
        }

        // 5. Receiver events, gate, invariants.
        for r in 0..sc.nodes {
            if !nodes[r].active {
                continue;
            }
            while let Some(ev) = nodes[r].rx.poll_event() {
                match ev {
                    RecvEvent::Deliver {
                        from,
                        seq: Some(seq),
                        payload,
                    } => {
                        out.reliable_delivered += 1;
                        nodes[r]
                            .got_rel
                            .entry(from)
                            .or_default()
                            .push((seq, payload));
                    }
                    RecvEvent::Deliver {
                        seq: None, payload, ..
                    } => {
                        out.best_effort_delivered += 1;
                        let n = nodes[r].got_be.entry(payload.to_vec()).or_default();
                        *n += 1;
                        if *n > be_sent.get(&payload[..]).copied().unwrap_or(0) {
                            return Err(format!(
                                "node {r}: best-effort message of {} bytes delivered more often \
                                 than sent",
                                payload.len()
                            ));
                        }
                    }
                    RecvEvent::SendNack { to, nack } => {
                        out.nacks += 1;
                        let to_idx = ids.iter().position(|&i| i == to).ok_or("nack to whom")?;
                        let bytes = postcard::to_allocvec(&nack).map_err(|e| e.to_string())?;
                        schedule(
                            now,
                            r,
                            to_idx,
                            Ctrl::Nack(bytes),
                            &mut control,
                            &mut control_msgs,
                        );
                    }
                    RecvEvent::FellBehind { from, lost } => {
                        out.fell_behind += 1;
                        if !sc.expect_fell_behind {
                            return Err(format!("node {r} fell behind {from}: {lost:?}"));
                        }
                        nodes[r].lost.entry(from).or_default().push(lost);
                    }
                }
            }
            let node = &mut nodes[r];
            for &s in &ids {
                if s != node.id {
                    node.gate.advance(s, node.rx.delivered(s));
                }
            }
            while let Some((from, (hw, _id))) = node.gate.pop() {
                // A removed sender's held messages are released on removal, by design.
                let removed = left && from == ids[0];
                if !removed && node.rx.delivered(from) < Seq(hw) {
                    return Err(format!("node {r}: gate released hw {hw} early"));
                }
                node.gated_released += 1;
            }
            if node.rx.memory_bytes() > mem_bound {
                return Err(format!(
                    "node {r}: receiver memory {} over bound {mem_bound}",
                    node.rx.memory_bytes()
                ));
            }
            let (bytes, count) = node.tx.retransmit_usage();
            if bytes > sc.cfg.retransmit_capacity_bytes || count > sc.cfg.retransmit_capacity_msgs {
                return Err(format!(
                    "node {r}: retransmit buffer over bounds ({bytes}, {count})"
                ));
            }
        }

        // Done when everything is sent and every reliable stream is delivered everywhere.
        let all_sent = remaining.iter().all(|&n| n == 0);
        let all_delivered = (0..sc.nodes).all(|r| {
            !nodes[r].active
                || (0..sc.nodes).all(|s| {
                    s == r
                        || (left && s == 0)
                        || nodes[r].rx.delivered(ids[s]) >= nodes[s].tx.high_water()
                })
        });
        let all_sent = all_sent && joined && (left || leave_at.is_none());
        if all_sent
            && all_delivered
            && control.is_empty()
            && links.values().all(|l| l.in_flight() == 0)
        {
            break;
        }
        // 6. Advance the clock to the next thing that happens.
        let mut next: Option<Instant> = None;
        let mut consider = |t: Option<Instant>| {
            if let Some(t) = t {
                next = Some(next.map_or(t, |n: Instant| n.min(t)));
            }
        };
        for s in 0..sc.nodes {
            if remaining[s] > 0 {
                consider(Some(next_send[s]));
            }
            if nodes[s].active {
                consider(nodes[s].tx.poll_timeout());
                consider(nodes[s].rx.poll_timeout());
            }
        }
        if !left {
            consider(leave_at);
        }
        for link in links.values() {
            consider(link.next_deadline());
        }
        consider(control.peek().map(|Reverse((t, ..))| *t));
        let Some(t) = next else {
            return Err("simulation stalled with nothing scheduled".into());
        };
        if t > limit {
            return Err("not converged after 120 s of virtual time".into());
        }
        now = t.max(now);
    }

    // Final checks: reliable streams exact (minus reported losses), gates drained.
    let mut held_by_departed = 0;
    for r in 0..sc.nodes {
        if !nodes[r].active {
            held_by_departed += nodes[r].gate.held() as u64;
            continue;
        }
        for s in 0..sc.nodes {
            if s == r {
                continue;
            }
            let departed = left && s == 0;
            let start = nodes[r].start.get(&ids[s]).copied().unwrap_or(1);
            let lost = nodes[r].lost.get(&ids[s]).cloned().unwrap_or_default();
            let mut expected: Vec<(Seq, &[u8])> = sent[s]
                .iter()
                .filter(|m| {
                    let last = m.seq.map_or(0, |q| q.0);
                    let first = last + 1 - m.frames;
                    first >= start && !lost.iter().any(|l| l.first.0 <= last && first <= l.last.0)
                })
                .map(|m| (m.seq.unwrap_or_default(), &m.payload[..]))
                .collect();
            let got: Vec<(Seq, &[u8])> = nodes[r]
                .got_rel
                .get(&ids[s])
                .map(|v| v.iter().map(|(q, p)| (*q, &p[..])).collect())
                .unwrap_or_default();
            if departed && got.len() <= expected.len() {
                // Removed mid-stream: what was delivered is a prefix of what was sent.
                expected.truncate(got.len());
            }
            if got.len() != expected.len() {
                return Err(format!(
                    "node {r} from {s}: delivered {} reliable messages, expected {} (lost ranges \
                     {lost:?})",
                    got.len(),
                    expected.len()
                ));
            }
            for (i, (g, e)) in got.iter().zip(&expected).enumerate() {
                if g.0 != e.0 || g.1 != e.1 {
                    return Err(format!(
                        "node {r} from {s}: message {i} differs (seq {:?} vs {:?}, {} vs {} bytes)",
                        g.0,
                        e.0,
                        g.1.len(),
                        e.1.len()
                    ));
                }
            }
        }
        if nodes[r].gate.held() != 0 {
            return Err(format!(
                "node {r}: {} gated messages never released",
                nodes[r].gate.held()
            ));
        }
        let d = nodes[r].rx.stats().dropped;
        let not_member = if left { 0 } else { d.not_member };
        if d.bad_auth + d.malformed + not_member + d.wrong_federation + d.bad_version > 0 {
            return Err(format!("node {r}: unexpected drops {d:?}"));
        }
    }
    let released: u64 = nodes.iter().map(|n| n.gated_released).sum();
    if released + gated_to_inactive + held_by_departed != gated_sent {
        return Err(format!(
            "{released} gated messages released, {gated_to_inactive} to/from departed nodes, \
             {held_by_departed} held by departed nodes, {gated_sent} sent"
        ));
    }
    out.network_drops = links.values().map(|l| l.stats().dropped).sum();
    out.receivers = nodes.iter().map(|n| n.rx.stats()).collect();
    if sc.late_join.is_some() {
        out.late_joiner_delivered = nodes[late].got_rel.values().map(|v| v.len() as u64).sum();
    }
    Ok(out)
}

/// Send a datagram from node `s` to every other node's link (and back to itself, as a real
/// multicast loop would; the receiver drops its own datagrams).
fn multicast(
    s: usize,
    now: Instant,
    d: Bytes,
    links: &mut BTreeMap<(usize, usize), FaultInjector>,
    nodes: &mut [Node],
) {
    for (&(from, _), link) in links.iter_mut() {
        if from == s {
            link.inject(now, d.clone());
        }
    }
    nodes[s].rx.on_datagram(now, d);
}

fn lossy_net() -> FaultConfig {
    FaultConfig {
        drop_per_mille: 50,
        dup_per_mille: 20,
        reorder_per_mille: 50,
        delay_min: Duration::from_micros(20),
        delay_max: Duration::from_micros(300),
        reorder_delay: Duration::from_millis(1),
    }
}

fn sim_config() -> DataConfig {
    DataConfig {
        max_message: 64 << 10,
        reorder_capacity_bytes: 256 << 10,
        reassembly_capacity_bytes: 512 << 10,
        reassembly_timeout: Duration::from_millis(500),
        ..DataConfig::default()
    }
}

fn check_all(sc: &Scenario) -> Vec<Outcome> {
    seeds()
        .into_iter()
        .map(|seed| match run(seed, sc) {
            Ok(o) => o,
            Err(e) => panic!("seed {seed}: {e}\n(rerun with HLAMESH_SIM_SEED={seed})"),
        })
        .collect()
}

#[test]
fn lossy_network_delivers_everything_exactly_once_in_order() {
    let sc = Scenario {
        nodes: 4,
        messages_per_node: 120,
        cfg: sim_config(),
        net: lossy_net(),
        control_delay: Duration::from_micros(150),
        expect_fell_behind: false,
        late_join: None,
        leave: None,
    };
    let outs = check_all(&sc);
    for o in &outs {
        // The run must actually have exercised loss and repair.
        assert!(o.network_drops > 0 && o.nacks > 0, "{o:?}");
        // 4 nodes, 3 receivers per sender, about 75 % reliable.
        assert!(o.reliable_delivered >= 3 * 4 * 80, "{o:?}");
        assert!(o.best_effort_delivered > 0, "{o:?}");
    }
}

#[test]
fn batching_with_gated_control_on_a_clean_network() {
    let sc = Scenario {
        nodes: 3,
        messages_per_node: 150,
        cfg: sim_config(),
        net: FaultConfig {
            delay_min: Duration::from_micros(10),
            delay_max: Duration::from_micros(40),
            ..FaultConfig::default()
        },
        control_delay: Duration::from_micros(5),
        expect_fell_behind: false,
        late_join: None,
        leave: None,
    };
    for o in check_all(&sc) {
        assert_eq!(o.nacks, 0, "{o:?}");
        assert_eq!(o.best_effort_delivered, 2 * o.best_effort_sent, "{o:?}");
    }
}

#[test]
fn small_retransmit_buffer_reports_fell_behind_and_never_diverges() {
    let sc = Scenario {
        nodes: 3,
        messages_per_node: 150,
        cfg: DataConfig {
            retransmit_capacity_msgs: 12,
            ..sim_config()
        },
        net: FaultConfig {
            drop_per_mille: 250,
            ..lossy_net()
        },
        // Repairs come late, so the sender's buffer has moved on.
        control_delay: Duration::from_millis(8),
        expect_fell_behind: true,
        late_join: None,
        leave: None,
    };
    let outs = check_all(&sc);
    let fell: u64 = outs.iter().map(|o| o.fell_behind).sum();
    assert!(fell > 0, "no run exercised the fell-behind path: {outs:?}");
}

#[test]
fn late_joiner_and_leaver_on_a_lossy_network() {
    let sc = Scenario {
        nodes: 4,
        messages_per_node: 100,
        cfg: sim_config(),
        net: lossy_net(),
        control_delay: Duration::from_micros(150),
        expect_fell_behind: false,
        // Bursts of ~2.5 messages come every ~1.5 ms: 100 messages take ~55 ms.
        late_join: Some(Duration::from_millis(20)),
        leave: Some(Duration::from_millis(35)),
    };
    for (seed, o) in seeds().into_iter().zip(check_all(&sc)) {
        assert!(o.nacks > 0, "seed {seed}: {o:?}");
        assert!(o.late_joiner_delivered > 0, "seed {seed}: {o:?}");
    }
}
