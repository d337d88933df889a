//! `connection_lost` across processes: a member cut off the network (every UDP datagram
//! dropped with nftables in its namespace) is resigned by the others, carries on alone while
//! cut, and is told `connection_lost` when the partition heals, because the larger side keeps
//! the federation (see `hlamesh_lrc::core::eviction`). The others never notice anything but the
//! lost member. Needs network namespaces (root); on loopback it says so and checks nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{cmd, next_event, shell, until};

#[test]
fn a_member_cut_off_gets_connection_lost_when_the_partition_heals() {
    let _g = serial();
    let lab = Lab::new(3);
    if !lab.is_namespaces() {
        eprintln!("NOTE: cutting a host off needs network namespaces (root): test skipped");
        return;
    }
    let ports = Ports::unique();
    let fed = format!("cut{}", std::process::id());
    let (mut a, _ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, _hb) = shell(&lab, 2, &ports, &fed, "B");
    let (mut c, hc) = shell(&lab, 3, &ports, &fed, "C");

    struct Heal<'a>(&'a Lab);
    impl Drop for Heal<'_> {
        fn drop(&mut self) {
            self.0.cut(3, false);
        }
    }
    let heal = Heal(&lab);
    assert!(lab.cut(3, true), "cut host 3 off");

    // A and B resign C: a federation-wide point registered now completes with C failed.
    assert_eq!(cmd(&mut a, "register split")["event"], "ok");
    until(&mut a, "announce", "split");
    until(&mut b, "announce", "split");
    assert_eq!(cmd(&mut a, "achieve split")["event"], "ok");
    assert_eq!(cmd(&mut b, "achieve split")["event"], "ok");
    for p in [&mut a, &mut b] {
        let l = until(p, "synchronized", "split");
        let failed = l.last().unwrap()["failed"].clone();
        let hc_failed = failed
            .as_array()
            .unwrap()
            .iter()
            .any(|x| x.as_u64() == Some(hc));
        let already_out = failed.as_array().unwrap().is_empty();
        // C is either failed (it was still a member at the registration) or was already out.
        assert!(hc_failed || already_out, "[{}] {failed}", p.name);
    }
    // C, alone, resigns A and B: its own point completes with no one else.
    assert_eq!(cmd(&mut c, "register alone")["event"], "ok");
    until(&mut c, "announce", "alone");
    assert_eq!(cmd(&mut c, "achieve alone")["event"], "ok");
    until(&mut c, "synchronized", "alone");

    // Heal: C hears the others again and learns it was dropped.
    drop(heal);
    let lost = next_event(&mut c, "connection_lost");
    let fault = lost["fault"].as_str().unwrap();
    assert!(fault.contains(&fed) && fault.contains("removed"), "{fault}");
    let after = cmd(&mut c, "register late");
    assert!(
        after["error"]
            .as_str()
            .unwrap()
            .starts_with("FederateNotExecutionMember"),
        "{after}"
    );
    let again = cmd(&mut c, "join");
    assert!(
        again["error"]
            .as_str()
            .unwrap()
            .starts_with("ConnectionFailed"),
        "{again}"
    );

    // A and B carry on, and were not told anything.
    assert_eq!(cmd(&mut a, "register after")["event"], "ok");
    until(&mut b, "announce", "after");
    assert_eq!(cmd(&mut a, "achieve after")["event"], "ok");
    assert_eq!(cmd(&mut b, "achieve after")["event"], "ok");
    for p in [&mut a, &mut b] {
        let l = until(p, "synchronized", "after");
        assert!(
            !l.iter()
                .chain(p.backlog.iter())
                .any(|x| x["event"] == "connection_lost"),
            "[{}] {l:?}",
            p.name
        );
    }
    for p in [&mut a, &mut b] {
        p.send("resign");
        next_event(p, "resigned");
    }
    c.send("exit");
}
