//! Federation management across processes (issue 24): `disconnect` and
//! `list_federation_executions`.
//!
//! `disconnect` after the last federate of an LRC resigned makes that LRC leave the
//! federation, and the other members see it leave — at once, and as having left, not lost. Four `rti-shell` processes (in network namespaces when run as root, on loopback otherwise),
//! with a peer timeout of 5 s so that a member that is merely silent would hold the others up
//! for seconds. A member that is not the coordinator disconnects: by the time its `disconnect`
//! returns, the others' views no longer hold its LRC. It is then frozen (`SIGSTOP`): a
//! federation-wide synchronization point still synchronizes, and a newcomer's join — which the
//! coordinator answers only once every member acknowledged it — completes long before the
//! frozen process could have been declared lost. Thawed, it connects and joins again under the
//! same LRC (a lost LRC would have been barred). Then the coordinator itself disconnects, and
//! the next member takes over at once. Before this, a disconnected LRC stayed a member without
//! federates until its process exited.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, cmd, next_event, shell_with, until};

/// Longer than anything the test waits for: a member that merely fell silent is declared lost
/// only after this.
const PEER_TIMEOUT_MS: &str = "5000";
/// What "at once" means here: far below the peer timeout, far above a join on a loaded host.
const PROMPT: Duration = Duration::from_millis(2500);

fn start(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    let (mut s, _h) = shell_with(
        lab,
        host,
        ports,
        fed,
        name,
        &[],
        &["--peer-timeout-ms", PEER_TIMEOUT_MS],
    );
    // The last LRC in join order is its own: each process joins after the previous one did.
    let node = lrcs(&mut s).last().copied().unwrap();
    (s, node)
}

fn lrcs(p: &mut Shell) -> Vec<u64> {
    assert_eq!(cmd(p, "lrcs")["event"], "ok");
    next_event(p, "lrcs")["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n.as_u64().unwrap())
        .collect()
}

fn signal(p: &Shell, sig: &str) {
    let ok = std::process::Command::new("kill")
        .args([sig, &p.child.id().to_string()])
        .status()
        .expect("run kill")
        .success();
    assert!(ok, "kill {sig} {}", p.name);
}

#[test]
fn a_disconnected_lrc_leaves_and_the_others_stop_counting_it() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("disc{}", std::process::id());
    // B creates the federation, so its LRC coordinates.
    let (mut b, nb) = start(&lab, 1, &ports, &fed, "B");
    let (mut a, na) = start(&lab, 2, &ports, &fed, "A");
    let (mut c, nc) = start(&lab, 3, &ports, &fed, "C");
    assert_eq!(lrcs(&mut b), vec![nb, na, nc]);

    // A member's disconnect returns once every other member applied its departure.
    assert_eq!(cmd(&mut a, "disconnect")["event"], "ok");
    assert_eq!(lrcs(&mut b), vec![nb, nc], "B still counts A");
    assert_eq!(lrcs(&mut c), vec![nb, nc], "C still counts A");

    // Frozen, A answers nothing: nothing the others do may wait for it.
    signal(&a, "-STOP");
    assert_eq!(cmd(&mut b, "register after")["event"], "ok");
    until(&mut b, "announce", "after");
    until(&mut c, "announce", "after");
    assert_eq!(cmd(&mut b, "achieve after")["event"], "ok");
    assert_eq!(cmd(&mut c, "achieve after")["event"], "ok");
    for p in [&mut b, &mut c] {
        let l = until(p, "synchronized", "after");
        assert_eq!(l.last().unwrap()["failed"], serde_json::json!([]));
    }
    // A join is answered once every member acknowledged it: A is no member to wait for.
    let began = Instant::now();
    let (mut d, nd) = start(&lab, 1, &ports, &fed, "D");
    let took = began.elapsed();
    assert!(
        took < PROMPT,
        "D joined after {took:?}: the coordinator waited for the LRC that left"
    );
    assert_eq!(lrcs(&mut b), vec![nb, nc, nd]);

    // Thawed, A joins again with the same LRC: it left, it was not lost (a lost LRC is barred).
    signal(&a, "-CONT");
    assert_eq!(cmd(&mut a, "connect")["event"], "ok");
    assert_eq!(cmd(&mut a, "join")["event"], "ok");
    next_event(&mut a, "joined");
    assert_eq!(lrcs(&mut b), vec![nb, nc, nd, na]);
    assert_eq!(lrcs(&mut a), vec![nb, nc, nd, na]);

    // The coordinator leaves: the next member in join order coordinates from then on, and a
    // decision that needs every member's acknowledgement (a join) completes promptly.
    assert_eq!(cmd(&mut b, "disconnect")["event"], "ok");
    signal(&b, "-STOP");
    let began = Instant::now();
    assert_eq!(cmd(&mut a, "disconnect")["event"], "ok");
    assert_eq!(cmd(&mut a, "connect")["event"], "ok");
    assert_eq!(cmd(&mut a, "join")["event"], "ok");
    let took = began.elapsed();
    assert!(
        took < PROMPT,
        "A left and joined again after {took:?}: the others waited for the coordinator that left"
    );
    for p in [&mut a, &mut c, &mut d] {
        assert_eq!(lrcs(p), vec![nc, nd, na], "[{}]", p.name);
    }
    signal(&b, "-CONT");
    for p in [&mut a, &mut b, &mut c, &mut d] {
        p.send("exit");
    }
}

/// Issue 24: `list_federation_executions` reports the time implementation of every
/// federation, also of one the asking LRC never opened (its members' beacons carry it): here
/// an `HLAinteger64Time` federation created in another process, beside the asker's own
/// `HLAfloat64Time` one. Before, it was reported as `HLAfloat64Time`, the default.
#[test]
fn list_reports_the_time_implementation_of_another_lrcs_federation() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let int_fed = format!("listi{}", std::process::id());
    let float_fed = format!("listf{}", std::process::id());
    let (_i, _) = shell_with(
        &lab,
        1,
        &ports,
        &int_fed,
        "I",
        &[],
        &["--time", "HLAinteger64Time"],
    );
    let (mut f, _) = shell_with(&lab, 2, &ports, &float_fed, "F", &[], &[]);
    assert_eq!(cmd(&mut f, "list")["event"], "ok");
    let report = next_event(&mut f, "executions");
    let list: Vec<(String, String)> = serde_json::from_value(report["list"].clone()).unwrap();
    assert!(
        list.contains(&(int_fed.clone(), "HLAinteger64Time".into())),
        "{list:?}"
    );
    assert!(
        list.contains(&(float_fed.clone(), "HLAfloat64Time".into())),
        "{list:?}"
    );
}
