//! Convey Region Designator Sets across processes (issue 23), with `rti-shell` federates on three
//! LRCs (network namespaces when run as root): `S` turns its switch on through the MOM
//! (`HLAsetSwitches`), subscribes with a region around `X = [0, 100)` and gets, with each
//! reflection and interaction sent with regions, receiver-local handles of the sent regions that
//! overlap it, whose ranges `get_range_bounds` reads; `A`, switch off, gets none. Semantics:
//! `hlamesh_core::core::convey`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, next_event, ok, shell_with, until};

const SET_SWITCHES: &str = "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAsetSwitches";

fn shell(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    let fom = common::fom("Regions.xml").display().to_string();
    shell_with(lab, host, ports, fed, name, &[], &["--fom", &fom])
}

/// The `sent` handles of the next `event` line labelled (interactions) or valued (reflections)
/// `mark`: `None` when nothing was conveyed.
fn sent(s: &mut Shell, event: &str, mark: &str) -> Option<Vec<u64>> {
    let l = loop {
        let l = next_event(s, event);
        let label = if event == "reflect" {
            l["value"].as_str()
        } else {
            l["label"].as_str()
        };
        if label == Some(mark) {
            break l;
        }
    };
    l["sent"]
        .as_array()
        .map(|a| a.iter().map(|h| h.as_u64().unwrap()).collect())
}

/// The range on `X` of `s`'s (conveyed) region handle `h`.
fn bounds(s: &mut Shell, h: u64) -> (u64, u64) {
    ok(s, &format!("bounds #{h} X"));
    let b = next_event(s, "bounds");
    (b["lower"].as_u64().unwrap(), b["upper"].as_u64().unwrap())
}

#[test]
fn a_receiver_with_the_switch_on_gets_the_overlapping_sent_regions() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("convey{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut s, hs) = shell(&lab, 2, &ports, &fed, "S");
    let (mut a, _) = shell(&lab, 3, &ports, &fed, "A");

    ok(&mut s, &format!("publish-interaction {SET_SWITCHES}"));
    ok(
        &mut s,
        &format!("send-mom {SET_SWITCHES} {hs} HLAconveyRegionDesignatorSets=00000001"),
    );
    ok(&mut s, "region watch X=0..100");
    ok(&mut s, "subscribe-regions Vehicle Position watch");
    ok(&mut s, "region ear X=0..100");
    ok(&mut s, "subscribe-interaction-regions Radio ear");
    ok(&mut a, "subscribe Vehicle Position");
    ok(&mut a, "subscribe-interaction Radio");

    ok(&mut p, "publish Vehicle Position");
    ok(&mut p, "publish-interaction Radio");
    ok(&mut p, "region at X=95..105");
    ok(&mut p, "region far X=500..510");
    ok(&mut p, "region near X=50..51");
    ok(&mut p, "register-object-regions Vehicle Position at,far");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();

    // The update regions that overlap S's: `at`, not `far`.
    ok(&mut p, &format!("update {o} Position 1"));
    let first = sent(&mut s, "reflect", "1").expect("conveyed");
    assert_eq!(first.len(), 1, "{first:?}");
    assert_eq!(bounds(&mut s, first[0]), (95, 105));
    assert_eq!(sent(&mut a, "reflect", "1"), None, "A's switch is off");

    // An interaction sent with `near` and `far`: S is given `near`'s ranges only.
    ok(&mut p, "send-regions Radio near,far r1");
    let r1 = sent(&mut s, "interaction", "r1").expect("conveyed");
    assert_eq!(r1.len(), 1, "{r1:?}");
    assert_eq!(bounds(&mut s, r1[0]), (50, 51));
    assert_eq!(sent(&mut a, "interaction", "r1"), None);

    // `at` moves: the next reflection conveys the new ranges under a new handle; the old
    // handle keeps the ranges it was sent with. Sent again unchanged: the same handle.
    ok(&mut p, "move at X=10..20");
    ok(&mut p, &format!("update {o} Position 2"));
    ok(&mut p, &format!("update {o} Position 3"));
    let second = sent(&mut s, "reflect", "2").expect("conveyed");
    assert_eq!(second.len(), 1);
    assert_ne!(second, first);
    assert_eq!(bounds(&mut s, second[0]), (10, 20));
    assert_eq!(bounds(&mut s, first[0]), (95, 105));
    assert_eq!(sent(&mut s, "reflect", "3"), Some(second.clone()));

    // Another federate cannot read S's conveyed handle; S cannot change it.
    let e = common::shell::failed(&mut a, &format!("bounds #{} X", second[0]));
    assert!(e.starts_with("RegionNotCreatedByThisFederate"), "{e}");
    let e = common::shell::failed(&mut s, &format!("move #{} X=0..1", second[0]));
    assert!(e.starts_with("InvalidRegion"), "{e}");

    // Unassociated, the attribute is in the default region: nothing to convey.
    ok(&mut p, &format!("unassociate {o} Position at,far"));
    ok(&mut p, &format!("update {o} Position 4"));
    assert_eq!(sent(&mut s, "reflect", "4"), None);

    // S turns the switch off: nothing conveyed any more.
    ok(&mut p, &format!("associate {o} Position at"));
    ok(
        &mut s,
        &format!("send-mom {SET_SWITCHES} {hs} HLAconveyRegionDesignatorSets=00000000"),
    );
    ok(&mut p, &format!("update {o} Position 5"));
    ok(&mut p, "send-regions Radio near r2");
    assert_eq!(sent(&mut s, "reflect", "5"), None);
    assert_eq!(sent(&mut s, "interaction", "r2"), None);
    until(&mut a, "interaction", "r2");
}
