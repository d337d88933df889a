//! Authenticated discovery seen from the RTI, with a real member process (`rti-probe`) and real
//! sockets on loopback multicast (TTL 0):
//! - forged beacons that list and claim a federation do not stop its creation, and the join
//!   that follows works;
//! - an LRC with the wrong development secret is told why it finds no federation, in the join's
//!   error, and `hlamesh status` with the wrong secret says so and exits non-zero.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use common::lab::{Lab, Ports, Probe, args, base_args, serial};
use hlamesh_lrc::ambassador::{CallbackModel, FederateAmbassador, RtiAmbassador};
use hlamesh_lrc::error::RtiError;
use hlamesh_lrc::node::Lrc;
use hlamesh_transport::beacon_auth::BeaconAuth;
use hlamesh_transport::discovery::{Beacon, Claim};
use hlamesh_transport::{NodeId, SecurityConfig, TransportConfig};

struct Nop;
impl FederateAmbassador for Nop {}

fn fom() -> String {
    concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../fed-examples/foms/MovingObject.xml"
    )
    .to_string()
}

fn probe(lab: &Lab, ports: &Ports, fed: &str, extra: &[&str], name: &str) -> Probe {
    let mut a = base_args(lab, 1, ports, fed);
    a.extend(args(&["--name", name, "--fom", &fom()]));
    a.extend(args(extra));
    Probe::spawn(lab, 1, env!("CARGO_BIN_EXE_rti-probe"), &a, name)
}

fn config(ports: &Ports, secret: &str) -> TransportConfig {
    TransportConfig {
        discovery_port: ports.discovery,
        data_port: ports.data,
        discovery_group: ports.group,
        security: SecurityConfig::Development {
            secret: secret.into(),
            allow_non_loopback: false,
        },
        ..TransportConfig::default()
    }
}

/// Sends, 50 times a second until `stop`, beacons (under another secret) of random nodes that
/// list `fed` and claim it at the epoch's first microsecond.
fn forger(ports: &Ports, fed: &str, stop: Arc<AtomicBool>) -> std::thread::JoinHandle<u64> {
    let dest = SocketAddr::from((ports.group, ports.discovery));
    let fed = fed.to_string();
    std::thread::spawn(move || {
        let sock = hlamesh_transport::sockets::multicast_sender(Ipv4Addr::LOCALHOST, 0)
            .expect("forger socket");
        let auth = BeaconAuth::development(b"forger");
        let mut n = 0u64;
        while !stop.load(Ordering::Relaxed) {
            n += 1;
            let b = Beacon {
                node: NodeId(0x5151_0000_0000_0000 + n),
                quic_addrs: vec!["127.0.0.1:9".parse().expect("addr")],
                federations: vec![fed.clone()],
                cert_fingerprint: [0; 32],
                claims: vec![Claim {
                    name: fed.clone(),
                    claim_time_us: 1,
                }],
                seq: 1,
                notes: Vec::new(),
                acks: Vec::new(),
            };
            let _ = sock.send_to(&b.seal(&auth), dest);
            std::thread::sleep(Duration::from_millis(20));
        }
        n
    })
}

#[test]
fn forged_claims_and_listings_do_not_stop_a_create_or_the_join_after_it() {
    let _g = serial();
    let lab = Lab::Loopback;
    let ports = Ports::unique();
    let fed = format!("Claimed{}", std::process::id());
    let stop = Arc::new(AtomicBool::new(false));
    let forging = forger(&ports, &fed, stop.clone());
    // Let the members-to-be hear forgeries before they decide.
    std::thread::sleep(Duration::from_millis(300));
    let creator = probe(
        &lab,
        &ports,
        &fed,
        &["--create", "--hold-ms", "3000"],
        "creator",
    );
    let first = creator
        .lines
        .recv_timeout(Duration::from_secs(20))
        .expect("create outcome");
    assert_eq!(first["event"], "created", "{first}");
    creator.wait_event("joined", Duration::from_secs(10));
    // A second member joins the real federation while the forgeries go on.
    let joiner = probe(&lab, &ports, &fed, &["--hold-ms", "200"], "joiner");
    joiner.wait_event("joined", Duration::from_secs(10));
    stop.store(true, Ordering::Relaxed);
    let sent = forging.join().expect("forger");
    assert!(sent > 10, "forged {sent} beacons");
}

#[test]
fn a_wrong_secret_is_explained_by_join_and_by_status() {
    let _g = serial();
    let lab = Lab::Loopback;
    let ports = Ports::unique();
    let fed = format!("Guarded{}", std::process::id());
    // The member runs with the default development secret.
    let member = probe(
        &lab,
        &ports,
        &fed,
        &["--create", "--hold-ms", "30000"],
        "member",
    );
    member.wait_event("joined", Duration::from_secs(20));

    let lrc = Lrc::start(config(&ports, "not-the-secret")).expect("lrc");
    let mut rti = RtiAmbassador::with_lrc(lrc);
    rti.connect(Box::new(Nop), CallbackModel::Immediate)
        .expect("connect");
    match rti.join_federation_execution(Some("intruder"), "probe", &fed) {
        Err(RtiError::FederationExecutionDoesNotExist(text)) => {
            assert!(
                text.contains("refused: wrong development secret or certificate"),
                "the error must say why: {text}"
            );
        }
        other => panic!("a wrong secret must not join, and must be told why: {other:?}"),
    }

    let status = |secret: &str| {
        let out = std::process::Command::new(common::hlamesh())
            .args([
                "status",
                "--listen-ms",
                "1500",
                "--discovery-port",
                &ports.discovery.to_string(),
                "--data-port",
                &ports.data.to_string(),
                "--discovery-group",
                &ports.group.to_string(),
            ])
            .env("HLAMESH_SECRET", secret)
            .output()
            .expect("hlamesh status");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).to_string(),
        )
    };
    let (code, text) = status("not-the-secret");
    assert_eq!(code, Some(3), "status with a wrong secret fails: {text}");
    assert!(
        text.contains("wrong development secret or certificate"),
        "status says why: {text}"
    );
    // The intruder goes (its beacons would be refused too); with the default secret (the
    // member's) the federation is listed and nothing is refused.
    drop(rti);
    let (code, text) = status("hlamesh-development");
    assert!(text.contains(&fed), "{text}");
    assert!(!text.contains("refused"), "{text}");
    assert_eq!(code, Some(0), "{text}");
}
