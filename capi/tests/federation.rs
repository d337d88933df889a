//! C++ federates in separate processes, built from `tests/cpp/fed.cpp` against the standard's
//! headers and `librti1516e.so` as a user would build them, in one federation on loopback
//! (UDP multicast TTL 0, a development secret and ports of the test's own):
//!
//! * objects: publish/subscribe with class promotion (Car discovered as Vehicle), update →
//!   reflect with byte-identical values and tag (unsubscribed attributes filtered), an
//!   interaction promoted with its parameters filtered, delete → remove, resign, destroy once
//!   the federation is empty; misuse throws the standard class and the federate continues
//!   (`FederationExecutionDoesNotExist`, `ObjectClassNotPublished`, `AlreadyConnected`,
//!   `CallNotAllowedFromWithinCallback` for evoke and connect inside callbacks, destroy while
//!   joined → `FederatesCurrentlyJoined` retried); the RTI called from inside callbacks
//!   (an interaction sent from `reflectAttributeValues`); an exception thrown by a federate
//!   callback is caught and counted; both callback models; `connect`'s `hlamesh:` designator
//!   (one federate has no `HLAMESH_*` environment: it finds the federation only through it)
//!   and another RTI's designator (accepted).
//! * time: two regulating and constrained federates with `HLAinteger64Time` in TAR lockstep,
//!   time-stamped updates delivered in time-stamp order before the grant of their time, with
//!   exact grants; the next request made from inside `timeAdvanceGrant` (immediate model);
//!   `InTimeAdvancingState` for a second request.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use common::{Net, Proc, build_cpp, root};

fn fed_exe() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| build_cpp(&root().join("capi/tests/cpp/fed.cpp"), "capi-fed", &[]))
        .clone()
}

fn fom() -> String {
    root().join("capi/tests/data/CapiTest.xml").display().to_string()
}

fn federation(tag: &str) -> String {
    format!("capi-{tag}-{}", std::process::id())
}

const T: Duration = Duration::from_secs(40);

fn objects(sub_model: &str, pub_model: &str) {
    let net = Net::unique();
    let fed = federation(&format!("obj-{sub_model}-{pub_model}"));
    let fom = fom();
    // The subscriber takes its settings from the environment and gets another RTI's
    // designator; the publisher has no HLAMESH_* environment and gets hlamesh's designator.
    let sub = Proc::spawn(
        "sub",
        &fed_exe(),
        &["sub", &fed, &fom, sub_model, "rti://localhost:8989"],
        &net.env(),
    );
    sub.until("ready", T);
    let designator = net.designator();
    let mut publisher = Proc::spawn(
        "pub",
        &fed_exe(),
        &["pub", &fed, &fom, pub_model, &designator],
        &[],
    );
    let p = publisher.until("disconnected", T);
    let s = sub.until("disconnected", T);
    for expected in [
        "ok AlreadyConnected",
        "ok FederationExecutionDoesNotExist",
        "ok ObjectClassNotPublished",
        "command ack",
        "ok CallNotAllowedFromWithinCallback",
        "ok CallNotAllowedFromWithinCallback connect",
        "command stop-ok",
        "command done",
        "resigned",
    ] {
        assert!(
            p.iter().any(|l| l.starts_with(expected)),
            "publisher: no {expected:?} in {p:?}"
        );
    }
    for expected in [
        "discover class=HLAobjectRoot.Vehicle",
        "reflect ok bytes=300",
        "ok CallNotAllowedFromWithinCallback",
        "interaction ok",
        "removed",
        // The deliberate exception from discoverObjectInstance was caught and counted.
        "callback exceptions=1",
        "destroyed",
    ] {
        assert!(
            s.iter().any(|l| l.starts_with(expected)),
            "subscriber: no {expected:?} in {s:?}"
        );
    }
    assert_eq!(publisher.wait(T), Some(0));
}

#[test]
fn objects_interactions_misuse_immediate_subscriber_evoked_publisher() {
    objects("immediate", "evoked");
}

#[test]
fn objects_interactions_misuse_evoked_subscriber_immediate_publisher() {
    objects("evoked", "immediate");
}

fn time_lockstep(sub_model: &str) {
    let net = Net::unique();
    let fed = federation(&format!("time-{sub_model}"));
    let fom = fom();
    let tsub = Proc::spawn("tsub", &fed_exe(), &["tsub", &fed, &fom, sub_model, ""], &net.env());
    tsub.until("ready", T);
    let tpub = Proc::spawn("tpub", &fed_exe(), &["tpub", &fed, &fom, "evoked", ""], &net.env());
    let p = tpub.until("disconnected", T);
    let s = tsub.until("disconnected", T);
    assert!(p.iter().any(|l| l == "ok InTimeAdvancingState"), "{p:?}");
    assert!(p.iter().any(|l| l == "granted 11"), "{p:?}");
    // Every grant was exact (checked in the federate) and the ten time-stamped updates were
    // all reflected in time-stamp order before their grants.
    assert!(s.iter().any(|l| l == "granted 11 reflects=10"), "{s:?}");
}

#[test]
fn time_lockstep_tso_immediate_subscriber() {
    time_lockstep("immediate");
}

#[test]
fn time_lockstep_tso_evoked_subscriber() {
    time_lockstep("evoked");
}
