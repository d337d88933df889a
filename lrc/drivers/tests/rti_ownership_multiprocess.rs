//! Ownership management across processes (across network namespaces when run as root), with
//! `rti-shell` federates: a negotiated hand-over of an instance attribute that keeps changing
//! (Employee.PayRate of the Restaurant FOM stands in for a moving object's position) watched by
//! a third federate — no gap, no duplicate, no interleaving of the two owners; an intrusive
//! acquisition with release; if-available on an attribute being divested; and an owner killed
//! in the middle of a negotiation, whose attribute goes to the waiting acquirer.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, failed, next_event, ok, shell};

/// Queries until `p`'s LRC names `owner` (its view follows the coordinator's decisions, which
/// reach LRCs at different moments); at most 100 queries.
fn wait_owner(p: &mut Shell, o: u64, owner: u64) {
    let mut last = serde_json::Value::Null;
    for _ in 0..100 {
        ok(p, &format!("query {o} PayRate"));
        last = next_event(p, "owner");
        if last["owner"] == owner {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    panic!("[{}] owner of {o} never became {owner}: {last}", p.name);
}

/// A registers an Employee; B and C publish and subscribe PayRate and discover it.
fn three(prefix: &str) -> (Lab, [(Shell, u64); 3], u64) {
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("{prefix}{}", std::process::id());
    let mut a = shell(&lab, 1, &ports, &fed, "A");
    let mut b = shell(&lab, 2, &ports, &fed, "B");
    let mut c = shell(&lab, 3, &ports, &fed, "C");
    ok(&mut a.0, "publish Employee PayRate");
    for s in [&mut b.0, &mut c.0] {
        ok(s, "publish Employee PayRate");
        ok(s, "subscribe Employee PayRate");
    }
    ok(&mut a.0, "register-object Employee");
    let o = next_event(&mut a.0, "registered_object")["object"]
        .as_u64()
        .unwrap();
    for s in [&mut b.0, &mut c.0] {
        assert_eq!(next_event(s, "discover")["object"], o);
    }
    (lab, [a, b, c], o)
}

#[test]
fn negotiated_hand_over_is_reflected_by_a_third_federate_without_gap_or_interleaving() {
    let _g = serial();
    let (_lab, [(mut a, ha), (mut b, hb), (mut c, _)], o) = three("ownneg");
    let mut n = 0;
    for _ in 0..20 {
        n += 1;
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    ok(&mut a, &format!("negotiate {o} PayRate offer"));
    assert_eq!(next_event(&mut b, "assume")["label"], "offer");
    ok(&mut b, &format!("acquire-if {o} PayRate"));
    // The owner goes on updating while it waits, and after it was asked to confirm.
    for _ in 0..5 {
        n += 1;
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    next_event(&mut a, "confirm_request");
    for _ in 0..5 {
        n += 1;
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    ok(&mut a, &format!("confirm {o} PayRate yours"));
    // The stale owner is refused at once.
    let e = failed(&mut a, &format!("update {o} PayRate {}", n + 1));
    assert!(e.starts_with("AttributeNotOwned"), "{e}");
    assert_eq!(next_event(&mut b, "acquired")["label"], "yours");
    let last = n + 20;
    for _ in 0..20 {
        n += 1;
        ok(&mut b, &format!("update {o} PayRate {n}"));
    }
    let mut got: Vec<(u64, u64)> = Vec::new();
    while got.last().is_none_or(|(v, _)| *v != last) {
        let l = next_event(&mut c, "reflect");
        let v: u64 = l["value"].as_str().unwrap().parse().unwrap();
        got.push((v, l["producer"].as_u64().unwrap()));
    }
    let values: Vec<u64> = got.iter().map(|(v, _)| *v).collect();
    assert_eq!(
        values,
        (1..=last).collect::<Vec<_>>(),
        "no gap, no duplicate"
    );
    let switch = got.iter().position(|(_, p)| *p == hb).unwrap();
    assert!(got[..switch].iter().all(|(_, p)| *p == ha), "{got:?}");
    assert!(got[switch..].iter().all(|(_, p)| *p == hb), "{got:?}");
    wait_owner(&mut c, o, hb);
}

#[test]
fn intrusive_release_if_available_while_divesting_and_owner_killed_mid_negotiation() {
    let _g = serial();
    let (_lab, [(mut a, _), (mut b, hb), (mut c, hc)], o) = three("ownint");
    // Intrusive acquisition: the owner is asked and releases.
    ok(&mut b, &format!("acquire {o} PayRate want"));
    assert_eq!(next_event(&mut a, "release_request")["label"], "want");
    ok(&mut a, &format!("if-wanted {o} PayRate"));
    assert_eq!(
        next_event(&mut a, "divested")["attrs"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    next_event(&mut b, "acquired");
    wait_owner(&mut c, o, hb);

    // If-available on an attribute being divested: the owner confirms.
    ok(&mut b, &format!("negotiate {o} PayRate n2"));
    next_event(&mut c, "assume");
    ok(&mut c, &format!("acquire-if {o} PayRate"));
    next_event(&mut b, "confirm_request");
    ok(&mut b, &format!("confirm {o} PayRate c2"));
    assert_eq!(next_event(&mut c, "acquired")["label"], "c2");
    wait_owner(&mut a, o, hc);

    // The owner is killed while it negotiates: its attribute becomes unowned when it is declared
    // lost and goes to the federate waiting for it.
    ok(&mut c, "auto-resign UnconditionallyDivestAttributes");
    ok(&mut c, &format!("negotiate {o} PayRate n3"));
    next_event(&mut b, "assume");
    ok(&mut b, &format!("acquire {o} PayRate take"));
    next_event(&mut c, "confirm_request");
    c.kill9();
    next_event(&mut b, "acquired");
    ok(&mut b, &format!("owned {o} PayRate"));
    assert_eq!(next_event(&mut b, "owned")["owned"], true);
    ok(&mut b, &format!("update {o} PayRate 1"));
    wait_owner(&mut a, o, hb);
}

#[test]
fn restore_brings_back_the_owners_as_saved() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("ownsave{}", std::process::id());
    let dirs: Vec<common::temp_dir::TempDir> = (0..2)
        .map(|i| common::temp_dir::TempDir::new(&format!("ownsave{i}")))
        .collect();
    let (mut a, ha) = common::shell::shell_env(
        &lab,
        1,
        &ports,
        &fed,
        "A",
        &[("HLAMESH_SAVE_DIR", dirs[0].path())],
    );
    let (mut b, hb) = common::shell::shell_env(
        &lab,
        2,
        &ports,
        &fed,
        "B",
        &[("HLAMESH_SAVE_DIR", dirs[1].path())],
    );
    ok(&mut a, "publish Employee PayRate");
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "subscribe Employee PayRate");
    ok(&mut a, "register-object Employee");
    let o = next_event(&mut a, "registered_object")["object"]
        .as_u64()
        .unwrap();
    assert_eq!(next_event(&mut b, "discover")["object"], o);
    // Saved while A owns PayRate.
    ok(&mut a, "save s1");
    for s in [&mut a, &mut b] {
        common::shell::until(s, "initiate_save", "s1");
        ok(s, "save-begun");
        ok(s, "save-complete");
    }
    for s in [&mut a, &mut b] {
        next_event(s, "saved");
    }
    // B takes it, then the federation goes back to the save.
    ok(&mut b, &format!("acquire {o} PayRate x"));
    next_event(&mut a, "release_request");
    ok(&mut a, &format!("if-wanted {o} PayRate"));
    next_event(&mut b, "acquired");
    wait_owner(&mut a, o, hb);
    ok(&mut b, "restore s1");
    for s in [&mut a, &mut b] {
        next_event(s, "initiate_restore");
        ok(s, "restore-complete");
    }
    for s in [&mut a, &mut b] {
        next_event(s, "restored");
    }
    for s in [&mut a, &mut b] {
        wait_owner(s, o, ha);
    }
    ok(&mut a, &format!("update {o} PayRate 7"));
    assert!(failed(&mut b, &format!("update {o} PayRate 8")).starts_with("AttributeNotOwned"));
    let l = next_event(&mut b, "reflect");
    assert_eq!(
        (l["value"].as_str(), l["producer"].as_u64()),
        (Some("7"), Some(ha))
    );
}

/// Queries `OBJ PayRate` from every shell at once (all three commands sent before any answer
/// is read) and returns the owners they name, in order.
fn query_all(shells: &mut [&mut Shell], o: u64) -> Vec<u64> {
    let line = format!("query {o} PayRate");
    for s in shells.iter_mut() {
        s.p.send(&line);
    }
    shells
        .iter_mut()
        .map(|s| next_event(s, "owner")["owner"].as_u64().unwrap())
        .collect()
}

/// Hands PayRate of `o` from `old` to `new` (negotiated divestiture, acquisition if available,
/// confirmation) and, as soon as `new` has its acquisition notification, queries from the new
/// owner, the old owner and `third` at once: each must name the new owner, as the old owner's
/// refused update and both federates' `owned` say.
fn hand_over_then_query(
    old: (&mut Shell, u64),
    new: (&mut Shell, u64),
    third: &mut Shell,
    o: u64,
    round: usize,
) {
    let ((old, _), (new, hn)) = (old, new);
    let tag = format!("r{round}");
    ok(old, &format!("negotiate {o} PayRate {tag}"));
    assert_eq!(next_event(new, "assume")["label"], tag.as_str());
    ok(new, &format!("acquire-if {o} PayRate"));
    next_event(old, "confirm_request");
    ok(old, &format!("confirm {o} PayRate {tag}"));
    assert_eq!(next_event(new, "acquired")["label"], tag.as_str());
    let named = query_all(&mut [&mut *new, &mut *old, &mut *third], o);
    assert_eq!(
        named,
        vec![hn; 3],
        "round {round}: owner named by [new owner, old owner, third] right after the acquisition \
         notification"
    );
    let e = failed(old, &format!("update {o} PayRate {round}"));
    assert!(e.starts_with("AttributeNotOwned"), "{e}");
    ok(old, &format!("owned {o} PayRate"));
    assert_eq!(next_event(old, "owned")["owned"], false);
    ok(new, &format!("owned {o} PayRate"));
    assert_eq!(next_event(new, "owned")["owned"], true);
    ok(new, &format!("update {o} PayRate {round}"));
}

/// Right after a hand-over every federate's ownership query names the new owner: the answers
/// never name an old owner whose updates its own LRC already refuses (they once did for about
/// 20 ms on the LRCs that had not applied the transfer yet).
#[test]
fn ownership_queries_right_after_a_hand_over_name_the_new_owner_everywhere() {
    let _g = serial();
    let (_lab, [(mut a, ha), (mut b, hb), (mut c, _)], o) = three("ownq");
    for round in 0..6 {
        // A gives PayRate to B, then B gives it back to A; C watches.
        hand_over_then_query((&mut a, ha), (&mut b, hb), &mut c, o, 2 * round);
        hand_over_then_query((&mut b, hb), (&mut a, ha), &mut c, o, 2 * round + 1);
    }
}
