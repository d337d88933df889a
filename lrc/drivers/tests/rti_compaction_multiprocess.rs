//! Decision-log compaction across processes (`hlamesh_core::core::compaction`): two `rti-shell`
//! federates on two LRCs hand an attribute back and forth until the coordinator has folded its
//! log several times; then a third LRC joins late. Its Welcome must be bounded by the live state
//! and the unfolded tail (at most [`FOLD_EVERY`] decisions plus a few), not by the federation's
//! history, and what it replays from the folded log must be right: it names the current owner,
//! follows a later hand-over, and can take the attribute itself.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, next_event, ok, shell};
use hlamesh_lrc::core::compaction::{FOLD_EVERY, KEEP, WelcomeSize};
use hlamesh_lrc::core::wire::Decision;
use hlamesh_lrc::handles::{AttributeHandle, FederateHandle, ObjectInstanceHandle};

/// The documented bound on a Welcome's log (`docs/ARCHITECTURE.md`, "Decision log
/// compaction"): a Welcome carries the folded live state and at most about [`FOLD_EVERY`]
/// verbatim decisions, so whatever the history, 16 KiB for a federation of this size.
const WELCOME_BOUND: usize = 16 * 1024;

/// Hand-overs at most before the test gives up waiting for the third fold.
const MAX_HANDOVERS: usize = 4_000;

/// `p`'s `decision-log` event: (last, base, kept, welcome bytes).
fn decision_log(p: &mut Shell) -> (u64, u64, u64, Option<u64>) {
    ok(p, "decision-log");
    let l = next_event(p, "decision_log");
    (
        l["last"].as_u64().unwrap(),
        l["base"].as_u64().unwrap(),
        l["kept"].as_u64().unwrap(),
        l["welcome_bytes"].as_u64(),
    )
}

/// One intrusive hand-over of PayRate from `owner` to `to`: `to` asks, the owner releases.
///
/// The acquirer may have released the attribute itself a moment ago, and its LRC may not have
/// applied that transfer yet (the acquisition notification reached the other LRC first): its
/// acquisition must be accepted all the same, as it no longer owns the attribute.
fn hand_over(owner: &mut Shell, to: &mut Shell, o: u64, tag: &str) {
    ok(to, &format!("acquire {o} PayRate {tag}"));
    assert_eq!(next_event(owner, "release_request")["label"], tag);
    ok(owner, &format!("if-wanted {o} PayRate"));
    next_event(owner, "divested");
    // Released without a tag of the owner's: the notification carries none.
    next_event(to, "acquired");
}

/// Queries until `p`'s LRC names `owner` (a decision reaches LRCs at different moments); at
/// most 100 queries.
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

/// What the same history would weigh in a Welcome unfolded: `n` transfers of one attribute
/// between `a` and `b`, each as small as a transfer can be (no tag), so an underestimate.
fn unfolded_bytes(n: u64, o: u64, a: u64, b: u64) -> usize {
    let fed = |h: u64| Some(FederateHandle(u32::try_from(h).unwrap()));
    let log: Vec<Decision> = (1..=n)
        .map(|v| {
            let (from, to) = if v % 2 == 1 { (a, b) } else { (b, a) };
            Decision::Transfer {
                object: ObjectInstanceHandle(o),
                attrs: vec![(AttributeHandle(1), u32::try_from(v).unwrap())],
                from: fed(from),
                to: fed(to),
                tag: Vec::new(),
                silent: false,
                req: (1, v),
            }
        })
        .collect();
    WelcomeSize::of(0, &[], &log).bytes
}

#[test]
fn a_late_joiner_after_thousands_of_hand_overs_gets_a_small_welcome_and_the_right_owner() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("compact{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");
    ok(&mut a, "publish Employee PayRate");
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "subscribe Employee PayRate");
    ok(&mut a, "register-object Employee");
    let o = next_event(&mut a, "registered_object")["object"]
        .as_u64()
        .unwrap();
    assert_eq!(next_event(&mut b, "discover")["object"], o);

    // Hand PayRate back and forth until A's LRC (the coordinator) folded at least three times
    // (each fold moves `base` by less than FOLD_EVERY) and has just folded, so that the Welcome
    // below carries little more than the KEEP decisions left verbatim: that is where it is
    // smallest and the comparison with the unfolded history is sharpest. Every hand-over is
    // awaited (acquisition notification), so no sleep paces this loop.
    let mut handovers = 0usize;
    let mut a_owns = true;
    let (last, base) = loop {
        assert!(
            handovers < MAX_HANDOVERS,
            "no third fold after {handovers} hand-overs: {:?}",
            decision_log(&mut a)
        );
        let tag = format!("h{handovers}");
        if a_owns {
            hand_over(&mut a, &mut b, o, &tag);
        } else {
            hand_over(&mut b, &mut a, o, &tag);
        }
        a_owns = !a_owns;
        handovers += 1;
        if handovers.is_multiple_of(16) {
            let (last, base, _, _) = decision_log(&mut a);
            if base > 2 * FOLD_EVERY && last - base <= 2 * KEEP {
                break (last, base);
            }
        }
    };
    let owner = if a_owns { ha } else { hb };
    eprintln!("{handovers} hand-overs: decision {last}, folded up to {base}");

    // The late joiner.
    let (mut c, _) = shell(&lab, 3, &ports, &fed, "C");
    let (c_last, c_base, c_kept, welcome) = decision_log(&mut c);
    let welcome = usize::try_from(welcome.expect("C was admitted by a Welcome")).unwrap();
    let unfolded = unfolded_bytes(handovers as u64, o, ha, hb);
    eprintln!(
        "late joiner: decision {c_last}, folded up to {c_base}, {c_kept} decisions kept, \
         welcome {welcome} B; the transfers alone unfolded: {unfolded} B"
    );
    assert!(c_last > last, "C's log goes on from the coordinator's");
    assert!(c_base >= base, "C holds the log as folded");
    assert!(welcome < WELCOME_BOUND, "welcome {welcome} B");
    assert!(
        welcome * 8 < unfolded,
        "welcome {welcome} B is not far below the unfolded {unfolded} B"
    );
    assert!(c_kept * 8 < c_last, "{c_kept} decisions kept of {c_last}");

    // What C replayed from the folded log: the current owner, at once.
    ok(&mut c, "publish Employee PayRate");
    ok(&mut c, "subscribe Employee PayRate");
    assert_eq!(next_event(&mut c, "discover")["object"], o);
    ok(&mut c, &format!("query {o} PayRate"));
    assert_eq!(
        next_event(&mut c, "owner")["owner"],
        owner,
        "C's first answer"
    );

    // It follows a hand-over decided after its join, and can take the attribute itself.
    let (now, mut from, mut to) = if a_owns { (hb, a, b) } else { (ha, b, a) };
    hand_over(&mut from, &mut to, o, "after");
    wait_owner(&mut c, o, now);
    hand_over(&mut to, &mut c, o, "mine");
    ok(&mut c, &format!("owned {o} PayRate"));
    assert_eq!(next_event(&mut c, "owned")["owned"], true);
    ok(&mut c, &format!("update {o} PayRate 1"));
    // Resigning with DeleteObjects requires owning no attribute; right after the divestiture
    // counts, before the transfer decision is back.
    ok(&mut c, &format!("divest {o} PayRate"));
    for s in [&mut c, &mut to, &mut from] {
        s.send("resign");
        assert_eq!(next_event(s, "resigned")["ok"], true, "[{}]", s.name);
        assert_eq!(s.wait_exit(common::shell::T), Some(0), "[{}] exits", s.name);
    }
}
