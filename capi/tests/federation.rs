//! C++ federates in separate processes, built from `tests/cpp/fed.cpp` against the standard's
//! headers and `librti1516e.so` as a user would build them, in one federation on loopback
//! (UDP multicast TTL 0, a development secret and ports of the test's own):
//!
//! * objects: publish/subscribe with class promotion (Car discovered as Vehicle), update →
//!   reflect with byte-identical values and tag (unsubscribed attributes filtered), an
//!   interaction promoted with its parameters filtered, delete → remove, resign, destroy once
//!   the federation is empty; misuse throws the standard class and the federate continues
//!   (`FederationExecutionDoesNotExist`, `CouldNotOpenFDD`, `ObjectClassNotPublished`,
//!   `AlreadyConnected`, `CallNotAllowedFromWithinCallback` for evoke and connect inside callbacks, destroy while
//!   joined → `FederatesCurrentlyJoined` retried); the RTI called from inside callbacks
//!   (an interaction sent from `reflectAttributeValues`); an exception thrown by a federate
//!   callback is caught and counted; both callback models; `connect`'s `hlamesh:` designator
//!   (one federate has no `HLAMESH_*` environment: it finds the federation only through it)
//!   and another RTI's designator (accepted);
//!   `disableCallbacks` holds callbacks back until `enableCallbacks`; an advisory switch
//!   enabled twice (`AttributeScopeAdvisorySwitchIsOn`), name lookups (`NameNotFound`), a DDM
//!   service throwing `RTIinternalError` "not implemented in hlamesh yet".
//! * time: two regulating and constrained federates with `HLAinteger64Time` (or
//!   `HLAfloat64Time`, the default implementation) in TAR lockstep
//!   (or the subscriber advancing by NER, granted at each message's time),
//!   time-stamped updates delivered in time-stamp order before the grant of their time, with
//!   exact grants; the next request made from inside `timeAdvanceGrant` (immediate model);
//!   `InTimeAdvancingState` for a second request; a timestamped update well ahead retracted
//!   at once never reflected, a second `retract` of its handle `InvalidMessageRetractionHandle`,
//!   and `MessageCanNoLongerBeRetracted` for an update whose time the publisher reached.
//! * a synchronization point registered, announced (with its tag), achieved from inside the
//!   announcement and synchronized; an intrusive ownership acquisition the owner answers from
//!   inside `requestAttributeOwnershipRelease`, the new owner's update reflected at the old
//!   owner, whose own update now throws `AttributeNotOwned`; `FederateOwnsAttributes` for a
//!   resign with `NO_ACTION` while owning.
//! * a federation save answered from inside `initiateFederateSave`, then a restore of it, each
//!   federate restored as itself.
//! * the objects scenario once more with the publisher built as C++20.
//! * `kill -9` of a C++ federate in a TAR lockstep: the survivor goes on being granted.
//! * the LRC's log on stderr only with `HLAMESH_LOG`.
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

/// The same federate built as C++20 (the later `-std` wins).
fn fed_exe_cxx20() -> PathBuf {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        build_cpp(
            &root().join("capi/tests/cpp/fed.cpp"),
            "capi-fed-cxx20",
            &["-std=c++20"],
        )
    })
    .clone()
}

fn fom() -> String {
    root()
        .join("capi/tests/data/CapiTest.xml")
        .display()
        .to_string()
}

fn federation(tag: &str) -> String {
    format!("capi-{tag}-{}", std::process::id())
}

const T: Duration = Duration::from_secs(40);

fn objects(sub_model: &str, pub_model: &str) {
    objects_with(sub_model, pub_model, &fed_exe());
}

fn objects_with(sub_model: &str, pub_model: &str, pub_exe: &std::path::Path) {
    let net = Net::unique();
    let exe_name = pub_exe.file_name().unwrap().to_string_lossy();
    let fed = federation(&format!("obj-{sub_model}-{pub_model}-{exe_name}"));
    let fom = fom();
    // The subscriber takes its settings from the environment and gets another RTI's
    // designator; the publisher has no HLAMESH_* environment and gets hlamesh's designator.
    let sub = Proc::spawn(
        "sub",
        &fed_exe(),
        &["sub", &fed, &fom, sub_model, "rti://localhost:8989"],
        &net.env(),
    );
    let mut s = sub.until("ready", T);
    let designator = net.designator();
    let mut publisher = Proc::spawn(
        "pub",
        pub_exe,
        &["pub", &fed, &fom, pub_model, &designator],
        &[],
    );
    let p = publisher.until("disconnected", T);
    s.extend(sub.until("disconnected", T));
    for expected in [
        "ok AlreadyConnected",
        "ok FederationExecutionDoesNotExist",
        "ok CouldNotOpenFDD",
        "ok AttributeScopeAdvisorySwitchIsOn",
        "ok NameNotFound",
        "ok DDM support services",
        "ok DDM regions",
        "ok ObjectClassNotPublished",
        "ok InvalidUpdateRateDesignator",
        "ok getUpdateRateValueForAttribute",
        "command ack",
        "ok CallNotAllowedFromWithinCallback",
        "ok CallNotAllowedFromWithinCallback connect",
        "ok disableCallbacks",
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
        "ok reportFederationExecutions",
        "ok getUpdateRateValue",
        // The MOM through the C++ API (`hlamesh_core::core::mom`).
        "discover mom class=HLAobjectRoot.HLAmanager.HLAfederate name=HLAfederate.sub",
        "ok attributeIsOwnedByRTI",
        "discover class=HLAobjectRoot.Vehicle",
        "reflect ok bytes=300",
        "ok CallNotAllowedFromWithinCallback",
        "interaction ok",
        // Convey Region Designator Sets: Stop's sent region (`hlamesh_core::core::convey`).
        "ok sentRegions",
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

#[test]
fn objects_with_a_cpp20_publisher() {
    objects_with("immediate", "evoked", &fed_exe_cxx20());
}

fn time_lockstep(role: &str, sub_model: &str, time: &str) {
    let net = Net::unique();
    let fed = federation(&format!("time-{role}-{sub_model}-{time}"));
    let fom = fom();
    let mut env = net.env();
    env.push(("FED_TIME".into(), time.into()));
    let tsub = Proc::spawn(role, &fed_exe(), &[role, &fed, &fom, sub_model, ""], &env);
    tsub.until("ready", T);
    let tpub = Proc::spawn(
        "tpub",
        &fed_exe(),
        &["tpub", &fed, &fom, "evoked", ""],
        &env,
    );
    let p = tpub.until("disconnected", T);
    let s = tsub.until("disconnected", T);
    assert!(p.iter().any(|l| l == "ok InTimeAdvancingState"), "{p:?}");
    assert!(p.iter().any(|l| l == "granted 11"), "{p:?}");
    // Retraction from C++: a handle that works once, then is invalid; too late after the grant
    // (the retracted update is not among the subscriber's ten reflections).
    assert!(
        p.iter().any(|l| l == "ok InvalidMessageRetractionHandle"),
        "{p:?}"
    );
    assert!(
        p.iter().any(|l| l == "ok MessageCanNoLongerBeRetracted"),
        "{p:?}"
    );
    // Every grant was exact (checked in the federate: TAR grants t+1, NER grants the time of
    // the next message) and the ten time-stamped updates were all reflected in time-stamp
    // order before their grants; lookahead and GALT queries answered.
    assert!(s.iter().any(|l| l == "lookahead 1 galt>=1"), "{s:?}");
    assert!(s.iter().any(|l| l == "granted 11 reflects=10"), "{s:?}");
}

#[test]
fn time_lockstep_tso_immediate_subscriber() {
    time_lockstep("tsub", "immediate", "integer");
}

#[test]
fn time_lockstep_tso_evoked_subscriber() {
    time_lockstep("tsub", "evoked", "integer");
}

#[test]
fn next_message_request_tso_immediate_subscriber() {
    time_lockstep("nsub", "immediate", "integer");
}

#[test]
fn next_message_request_tso_evoked_subscriber() {
    time_lockstep("nsub", "evoked", "integer");
}

#[test]
fn sync_point_and_ownership_transfer_driven_from_cpp() {
    let net = Net::unique();
    let fed = federation("own");
    let fom = fom();
    let ob = Proc::spawn(
        "ob",
        &fed_exe(),
        &["ob", &fed, &fom, "immediate", ""],
        &net.env(),
    );
    ob.until("ready", T);
    let oa = Proc::spawn(
        "oa",
        &fed_exe(),
        &["oa", &fed, &fom, "evoked", ""],
        &net.env(),
    );
    let a = oa.until("disconnected", T);
    let b = ob.until("disconnected", T);
    for expected in [
        "sync registered ReadyToRun",
        "sync announced ReadyToRun tag=go",
        "synchronized ReadyToRun failed=0",
        // The intrusive acquisition asked the owner, which divested from inside the callback.
        "released 1",
        "reflect from new owner",
        "ok AttributeNotOwned",
        "ok FederateOwnsAttributes",
        "resigned",
    ] {
        assert!(
            a.iter().any(|l| l.starts_with(expected)),
            "oa: no {expected:?} in {a:?}"
        );
    }
    for expected in [
        "sync announced ReadyToRun tag=go",
        "synchronized ReadyToRun failed=0",
        "acquired",
        "updated as owner",
        "ok FederateOwnsAttributes",
        "resigned",
    ] {
        assert!(
            b.iter().any(|l| l.starts_with(expected)),
            "ob: no {expected:?} in {b:?}"
        );
    }
}

#[test]
fn save_and_restore_driven_from_cpp() {
    let net = Net::unique();
    let fed = federation("save");
    let fom = fom();
    let saves = common::lib_dir().join(format!("capi-test-saves-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&saves);
    std::fs::create_dir_all(&saves).unwrap();
    let mut env = net.env();
    env.push(("HLAMESH_SAVE_DIR".into(), saves.display().to_string()));
    let sb = Proc::spawn("sb", &fed_exe(), &["sb", &fed, &fom, "immediate", ""], &env);
    sb.until("ready", T);
    let sa = Proc::spawn("sa", &fed_exe(), &["sa", &fed, &fom, "evoked", ""], &env);
    let a = sa.until("disconnected", T);
    let b = sb.until("disconnected", T);
    for lines in [&a, &b] {
        for expected in [
            "save initiated s1",
            "federation saved",
            "restore initiated s1",
            "federation restored",
            "resigned",
        ] {
            assert!(
                lines.iter().any(|l| l.starts_with(expected)),
                "no {expected:?} in {lines:?}"
            );
        }
    }
    assert!(
        a.iter().any(|l| l == "restore request succeeded s1"),
        "{a:?}"
    );
    // Each federate was restored as itself.
    assert!(
        a.iter()
            .any(|l| l.starts_with("restore initiated s1 as sa")),
        "{a:?}"
    );
    assert!(
        b.iter()
            .any(|l| l.starts_with("restore initiated s1 as sb")),
        "{b:?}"
    );
    let _ = std::fs::remove_dir_all(&saves);
}

#[test]
fn time_lockstep_tso_float_time() {
    time_lockstep("tsub", "evoked", "float");
}

#[test]
fn next_message_request_float_time() {
    time_lockstep("nsub", "immediate", "float");
}

/// A C++ federate killed with SIGKILL in the middle of a TAR lockstep: the other one's LRC
/// resigns it for the federation and the survivor keeps being granted, without a stall.
#[test]
fn killed_cpp_federate_is_resigned_and_time_goes_on() {
    let net = Net::unique();
    let fed = federation("kill");
    let fom = fom();
    let env = net.env();
    let ksub = Proc::spawn(
        "ksub",
        &fed_exe(),
        &["ksub", &fed, &fom, "evoked", ""],
        &env,
    );
    ksub.until("ready", T);
    let mut tpub = Proc::spawn(
        "tpub",
        &fed_exe(),
        &["tpub", &fed, &fom, "evoked", ""],
        &env,
    );
    tpub.until("step 3", T);
    // Still in lockstep: the subscriber cannot pass the publisher's time + lookahead.
    let killed = std::time::Instant::now();
    tpub.kill();
    let s = ksub.until("granted 30", T);
    let took = killed.elapsed();
    assert!(
        took < Duration::from_secs(5),
        "the survivor was granted its target {took:?} after the kill; {s:?}"
    );
    eprintln!("survivor granted its target {took:?} after kill -9 of the other federate");
    ksub.until("disconnected", T);
}

/// The LRC's log reaches a C++ federate's stderr only when `HLAMESH_LOG` asks for it: the
/// federate connects (which starts its LRC) and then fails on a FOM that does not exist.
#[test]
fn the_lrc_log_goes_to_stderr_only_with_hlamesh_log() {
    let net = Net::unique();
    let run = |log: Option<&str>| {
        let mut cmd = std::process::Command::new(fed_exe());
        cmd.args([
            "pub",
            &federation("log"),
            "/nonexistent/fom.xml",
            "immediate",
            "",
        ])
        .env("LD_LIBRARY_PATH", common::runtime_dir())
        .env_remove("HLAMESH_LOG");
        for (k, v) in net.env() {
            cmd.env(k, v);
        }
        if let Some(l) = log {
            cmd.env("HLAMESH_LOG", l);
        }
        let out = cmd.output().expect("run the C++ federate");
        let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
        assert!(
            stdout.contains("CouldNotOpenFDD") || stdout.contains("uncaught"),
            "the federate got past connect to the FOM error: {stdout}"
        );
        String::from_utf8_lossy(&out.stderr).into_owned()
    };
    let quiet = run(None);
    assert!(
        !quiet.contains("hlamesh_transport") && !quiet.contains("hlamesh_lrc"),
        "the LRC logged without HLAMESH_LOG: {quiet}"
    );
    let logged = run(Some("hlamesh_transport=info"));
    assert!(
        logged.contains("INFO hlamesh_transport") && logged.contains("transport started"),
        "no transport log on stderr with HLAMESH_LOG: {logged}"
    );
}
