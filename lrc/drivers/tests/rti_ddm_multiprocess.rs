//! DDM regions across processes (issue 23, tests 1, 2 and part of 4), with `rti-shell` federates
//! on four LRCs (network namespaces when run as root): a publisher moves a vehicle over the `X`
//! dimension of `foms/Regions.xml`; a subscriber with a region around `X = [0, 100)` discovers
//! the vehicle only when its update region first overlaps, reflects only the updates sent while
//! it overlaps, gets `attributes_out_of_scope` / `attributes_in_scope` as it moves out and back,
//! and receives only the interactions sent with an overlapping region; a third subscriber without
//! regions (the default region) gets everything; a late joiner gets the vehicle's update regions
//! in its state transfer. Then each region exception at its point.
//! Semantics: `hlamesh_core::core::regions`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, failed, next_event, ok, shell_with, until};

fn shell(lab: &Lab, host: usize, ports: &Ports, fed: &str, name: &str) -> (Shell, u64) {
    let fom = common::fom("Regions.xml").display().to_string();
    shell_with(lab, host, ports, fed, name, &[], &["--fom", &fom])
}

/// The DDM-relevant callbacks `s` printed up to the interaction tagged `mark`, in order, as
/// short strings: `discover`, `reflect V`, `in Attrs`, `out Attrs`, `interaction TAG`.
fn seen_until(s: &mut Shell, mark: &str) -> Vec<String> {
    until(s, "interaction", mark)
        .into_iter()
        .filter_map(|l| {
            Some(match l["event"].as_str()? {
                "discover" => "discover".to_string(),
                "reflect" => format!("reflect {}", l["value"].as_str()?),
                "in_scope" => format!("in {}", l["attrs"]),
                "out_of_scope" => format!("out {}", l["attrs"]),
                "interaction" => format!("interaction {}", l["label"].as_str()?),
                _ => return None,
            })
        })
        .collect()
}

#[test]
fn a_region_subscriber_sees_a_moving_vehicle_only_while_it_overlaps() {
    let _g = serial();
    let lab = Lab::new(4);
    let ports = Ports::unique();
    let fed = format!("ddm{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut s, _) = shell(&lab, 2, &ports, &fed, "S");
    let (mut a, _) = shell(&lab, 3, &ports, &fed, "A");

    // S watches X in [0, 100) for vehicles and radio messages; A subscribes without regions.
    ok(&mut s, "scope-advisory");
    ok(&mut s, "region watch X=0..100");
    ok(&mut s, "subscribe-regions Vehicle Position watch");
    ok(&mut s, "region ear X=0..100");
    ok(&mut s, "subscribe-interaction-regions Radio ear");
    ok(&mut a, "subscribe Vehicle Position");
    ok(&mut a, "subscribe-interaction Radio");

    // P's vehicle starts far away; `near` is a radio region S hears, used as a marker: P's
    // stream is in order, so whatever S gets of P's before a marker comes before it.
    ok(&mut p, "publish Vehicle Position,Status");
    ok(&mut p, "publish-interaction Radio");
    ok(&mut p, "region at X=500..510");
    ok(&mut p, "region near X=50..51");
    ok(&mut p, "region far X=900..901");
    ok(&mut p, "register-object-regions Vehicle Position,Status at");
    let o = next_event(&mut p, "registered_object")["object"]
        .as_u64()
        .unwrap();
    let at = p_region(&mut p, "at");

    let steps: &[&str] = &[
        "update O Position 1", // far: S neither discovers nor reflects
        "send-regions Radio far far1",
        "send-regions Radio near near1",
        "send-regions Radio far,near both1",
        "move at X=95..105", // into S's region: discovered, in scope
        "update O Position 2",
        "set-bounds at X 300 310", // template only: still inside
        "update O Position 3",
        "commit at", // out
        "update O Position 4",
        "move at X=0..10", // back in
        "update O Position 5",
        "unassociate O Position at", // the default region overlaps everything
        "update O Position 6",
        "associate O Position far", // far again
        "update O Position 7",
        "send-regions Radio near end",
    ];
    for step in steps {
        ok(&mut p, &step.replace('O', &o.to_string()));
    }
    let pos = position_handle(&mut p);
    let inn = format!("in [{pos}]");
    let out = format!("out [{pos}]");
    assert_eq!(
        seen_until(&mut s, "end"),
        vec![
            "interaction near1",
            "interaction both1",
            "discover",
            &inn,
            "reflect 2",
            "reflect 3",
            &out,
            &inn,
            "reflect 5",
            "reflect 6",
            &out,
            "interaction end",
        ],
        "the region subscriber"
    );
    assert_eq!(
        seen_until(&mut a, "end"),
        vec![
            "discover",
            "reflect 1",
            "interaction far1",
            "interaction near1",
            "interaction both1",
            "reflect 2",
            "reflect 3",
            "reflect 4",
            "reflect 5",
            "reflect 6",
            "reflect 7",
            "interaction end",
        ],
        "the subscriber without regions"
    );

    // A late joiner learns the update regions in its state transfer: subscribed with a
    // region, it does not discover the vehicle (now in `far`) until `far` moves over it.
    let (mut l, _) = shell(&lab, 4, &ports, &fed, "L");
    ok(&mut l, "region watch X=0..100");
    ok(&mut l, "subscribe-regions Vehicle Position watch");
    ok(&mut l, "subscribe-interaction-regions Radio watch");
    ok(&mut p, &format!("update {o} Position 8"));
    ok(&mut p, "send-regions Radio near late1");
    assert_eq!(
        seen_until(&mut l, "late1"),
        vec!["interaction late1"],
        "the late joiner"
    );
    ok(&mut p, "move far X=10..20");
    ok(&mut p, &format!("update {o} Position 9"));
    ok(&mut p, "send-regions Radio near late2");
    assert_eq!(
        seen_until(&mut l, "late2"),
        vec!["discover", "reflect 9", "interaction late2"],
        "the late joiner"
    );

    // The exceptions, each at its point.
    let e = failed(&mut s, &format!("delete-region #{at}"));
    assert!(e.starts_with("RegionNotCreatedByThisFederate"), "{e}");
    let e = failed(&mut s, &format!("move #{at} X=0..1"));
    assert!(e.starts_with("RegionNotCreatedByThisFederate"), "{e}");
    let e = failed(&mut s, "delete-region #77");
    assert!(e.starts_with("InvalidRegion"), "{e}");
    let e = failed(&mut s, "delete-region watch");
    assert!(e.starts_with("RegionInUseForUpdateOrSubscription"), "{e}");
    let e = failed(&mut p, "delete-region at");
    assert!(e.starts_with("RegionInUseForUpdateOrSubscription"), "{e}");
    for (lo, hi) in [(5, 5), (6, 5), (0, 1001)] {
        let e = failed(&mut s, &format!("set-bounds watch X {lo} {hi}"));
        assert!(e.starts_with("InvalidRangeBound"), "{e}");
    }
    let e = failed(&mut s, "bounds watch Y");
    assert!(
        e.starts_with("RegionDoesNotContainSpecifiedDimension"),
        "{e}"
    );
    let e = failed(&mut s, "set-bounds watch Y 0 1");
    assert!(
        e.starts_with("RegionDoesNotContainSpecifiedDimension"),
        "{e}"
    );
    ok(&mut s, "bounds watch X");
    let b = next_event(&mut s, "bounds");
    assert_eq!(
        (b["lower"].as_u64(), b["upper"].as_u64()),
        (Some(0), Some(100))
    );
    // Channel is not a dimension of Vehicle.Position, Y not one of Radio.
    ok(&mut s, "region tuned Channel=2..3");
    let e = failed(&mut s, "subscribe-regions Vehicle Position tuned");
    assert!(e.starts_with("InvalidRegionContext"), "{e}");
    ok(&mut p, "region high Y=0..10");
    let e = failed(&mut p, "send-regions Radio high x");
    assert!(e.starts_with("InvalidRegionContext"), "{e}");
    let e = failed(&mut p, "register-object-regions Vehicle Position #99");
    assert!(e.starts_with("InvalidRegion"), "{e}");
    let e = failed(&mut s, &format!("associate {} Position watch", o + 1));
    assert!(e.starts_with("ObjectInstanceNotKnown"), "{e}");
    let e = failed(&mut s, "register-object-regions Vehicle Position watch");
    assert!(e.starts_with("AttributeNotPublished"), "{e}");
    ok(&mut s, "delete-region tuned");
    let e = failed(&mut s, "bounds tuned Channel");
    assert!(e.starts_with("InvalidRegion"), "{e}");
    // During a save: SaveInProgress.
    ok(&mut s, "save ddm");
    for x in [&mut p, &mut s, &mut a, &mut l] {
        until(x, "initiate_save", "ddm");
    }
    let e = failed(&mut s, "region late X=0..1");
    assert!(e.starts_with("SaveInProgress"), "{e}");
    let e = failed(&mut p, "move at X=1..2");
    assert!(e.starts_with("SaveInProgress"), "{e}");
    ok(&mut s, "abort-save");
    for x in [&mut p, &mut s, &mut a, &mut l] {
        next_event(x, "not_saved");
    }
    ok(&mut s, "region late X=0..1");
}

/// The relevance advisories `s` printed up to the interaction tagged `mark`, in order:
/// `on Attrs`, `off Attrs`, `interaction TAG`.
fn relevance_until(s: &mut Shell, mark: &str) -> Vec<String> {
    until(s, "interaction", mark)
        .into_iter()
        .filter_map(|l| {
            Some(match l["event"].as_str()? {
                "updates_on" => format!("on {}", l["attrs"]),
                "updates_off" => format!("off {}", l["attrs"]),
                "interaction" => format!("interaction {}", l["label"].as_str()?),
                _ => return None,
            })
        })
        .collect()
}

/// Relevance advisories follow region overlap across processes (issue 23): the owner of a
/// vehicle, with the attribute relevance advisory switch on, gets `turnUpdatesOn` for its
/// position when a subscriber on another LRC moves its subscription region over the vehicle's
/// update region, and `turnUpdatesOff` when it moves away, when the vehicle moves away, and when
/// the subscription ends; a second subscriber whose region never overlaps changes nothing. Each
/// step ends with a radio message from the subscriber (the owner hears Radio without regions):
/// the subscriber's stream is in order, so what its step caused at the owner comes before it.
#[test]
fn an_owner_updates_only_while_a_moving_subscription_region_overlaps() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("ddmrel{}", std::process::id());
    let (mut p, _) = shell(&lab, 1, &ports, &fed, "P");
    let (mut s, _) = shell(&lab, 2, &ports, &fed, "S");
    let (mut b, _) = shell(&lab, 3, &ports, &fed, "B");

    ok(&mut p, "relevance-advisory");
    ok(&mut p, "subscribe-interaction Radio");
    ok(&mut p, "publish Vehicle Position,Status");
    ok(&mut p, "region at X=500..510");
    ok(&mut p, "register-object-regions Vehicle Position,Status at");
    next_event(&mut p, "registered_object");
    let pos = position_handle(&mut p);
    let on = format!("on [{pos}]");
    let off = format!("off [{pos}]");

    ok(&mut s, "publish-interaction Radio");
    ok(&mut s, "region watch X=0..100");
    ok(&mut b, "publish-interaction Radio");
    ok(&mut b, "region never X=900..1000");

    // (federate, command, what the owner sees up to the radio message that follows it)
    let steps: &[(char, &str, &[&str])] = &[
        ('b', "subscribe-regions Vehicle Position never", &[]),
        ('s', "subscribe-regions Vehicle Position watch", &[]),
        ('s', "move watch X=495..600", &[&on]),
        ('s', "set-bounds watch X 0 100", &[]),
        ('s', "commit watch", &[&off]),
        ('s', "move watch X=505..506", &[&on]),
        ('p', "move at X=0..10", &[&off]),
        ('p', "move at X=500..510", &[&on]),
        ('b', "move never X=0..1000", &[]),
        ('b', "unsubscribe-regions Vehicle Position never", &[]),
        ('s', "unsubscribe-regions Vehicle Position watch", &[&off]),
        ('s', "subscribe Vehicle Position", &[&on]),
    ];
    for (i, (who, step, want)) in steps.iter().enumerate() {
        let (x, region) = match who {
            'p' => (&mut p, "at"),
            's' => (&mut s, "watch"),
            _ => (&mut b, "never"),
        };
        ok(x, step);
        // The marker goes from the subscriber's LRC (the owner's own steps take effect at
        // once at its LRC; S's marker then only orders the check).
        let mark = format!("m{i}");
        let marker = if *who == 'b' { &mut b } else { &mut s };
        let r = if *who == 'b' { region } else { "watch" };
        ok(marker, &format!("send-regions Radio {r} {mark}"));
        let mut expected: Vec<String> = want.iter().map(|w| w.to_string()).collect();
        expected.push(format!("interaction {mark}"));
        assert_eq!(relevance_until(&mut p, &mark), expected, "after `{step}`");
    }
}

/// The handle `p`'s shell printed for its region `name` (set aside while waiting for the
/// command's answer).
fn p_region(p: &mut Shell, name: &str) -> u64 {
    let mut found = None;
    while let Some(i) = p
        .backlog
        .iter()
        .position(|l| l["event"] == "region" && l["label"] == name)
    {
        found = p.backlog.remove(i).and_then(|l| l["region"].as_u64());
    }
    found.unwrap_or_else(|| panic!("no region {name} printed"))
}

fn position_handle(p: &mut Shell) -> u64 {
    ok(p, "attr-handles Vehicle");
    next_event(p, "attrs")["map"]["Position"].as_u64().unwrap()
}
