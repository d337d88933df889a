//! Message retraction (8.21 `retract`, 6.23 `requestRetraction`) across three processes (three
//! network namespaces when run as root), with `rti-shell` federates and time management:
//!
//! - `S` regulates (lookahead 1) and is not constrained: its timestamped interactions
//!   (`CustomerTransactions`), updates (`Employee.PayRate`) and deletes go out in time-stamp
//!   order, and its own advances are granted at once.
//! - `C` is constrained and does not regulate: it receives a time-stamp-order message only
//!   when its advance passes the message's time, which needs `S`'s promise past it. `S` can
//!   retract only while its own logical time is below the message's time, so a message `S`
//!   retracts before advancing never reaches `C`: *retraction before delivery*.
//! - `U` is neither: HLA delivers it time-stamp-order messages at once in receive order (with
//!   their time and retraction handle), so the same retraction reaches it *after delivery*, and
//!   it gets `request_retraction(handle)`.
//!
//! The scenario: `S` sends an interaction, an update and a delete of its instance, all at time
//! 10, and retracts each; `U` gets each at once and then `request_retraction` with its handle;
//! then `S` sends one more interaction at 12 and keeps it; `S` and `C` advance to 20: `C` gets
//! exactly that interaction before its grant (nothing retracted, and no removal of the
//! instance). `S`'s retraction of the kept interaction after its advance is
//! `MessageCanNoLongerBeRetracted`; a handle `S` never got, and `C` retracting `S`'s handle,
//! are `InvalidMessageRetractionHandle`. The instance survived its retracted delete: `S`'s
//! update at 25 reaches `C` at its grant to 30, and a delete at 35 that `S` keeps removes it
//! at `C`'s grant to 40. Every wait is for an event, bounded by the shell's timeout.
//!
//! `a_handle_from_before_a_restore_is_void_after_it`: `retract` is refused during a save
//! (`SaveInProgress`); after a restore, handles issued before it are
//! `InvalidMessageRetractionHandle` (the messages they named belong to the abandoned run), and
//! new sends get new handles that work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, failed, next_event, ok, shell, shell_env, until};
use common::temp_dir::TempDir;

/// Sends with `line` and returns the retraction handle it printed.
fn sent(p: &mut Shell, line: &str) -> u64 {
    ok(p, line);
    let l = next_event(p, "sent");
    let h = l["handle"].as_u64().unwrap();
    assert_ne!(h, 0, "[{}] {l}", p.name);
    h
}

#[test]
fn retraction_before_and_after_delivery_across_processes() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("retract{}", std::process::id());
    let (mut s, hs) = shell(&lab, 1, &ports, &fed, "S");
    let (mut c, _) = shell(&lab, 2, &ports, &fed, "C");
    let (mut u, _) = shell(&lab, 3, &ports, &fed, "U");
    ok(&mut s, "publish Employee PayRate");
    ok(&mut s, "publish-interaction CustomerTransactions");
    for r in [&mut c, &mut u] {
        ok(r, "subscribe Employee PayRate");
        ok(r, "subscribe-interaction CustomerTransactions");
    }
    ok(&mut s, "register-object Employee");
    let o = next_event(&mut s, "registered_object")["object"]
        .as_u64()
        .unwrap();
    for r in [&mut c, &mut u] {
        assert_eq!(next_event(r, "discover")["object"], o);
    }
    ok(&mut s, "regulate 1");
    until(&mut s, "regulating", "0");
    ok(&mut c, "constrain");
    until(&mut c, "constrained", "0");

    // Sent at 10 and retracted while S is still at 0: U had each one and is asked for it
    // back; C never gets them (checked at its grant below).
    let i10 = sent(&mut s, "send-at CustomerTransactions 10 i10");
    assert_eq!(i10 >> 32, hs, "the sender's handle in the high half");
    let l = next_event(&mut u, "interaction");
    assert_eq!(
        (&l["label"], &l["retraction"], &l["received"]),
        (&"i10".into(), &i10.into(), &"Receive".into()),
        "{l}"
    );
    assert_eq!(l["time"], 10.0);
    ok(&mut s, &format!("retract {i10}"));
    assert_eq!(next_event(&mut u, "request_retraction")["handle"], i10);

    let u10 = sent(&mut s, &format!("update-at {o} PayRate u10 10"));
    let l = next_event(&mut u, "reflect");
    assert_eq!(
        (&l["value"], &l["retraction"]),
        (&"u10".into(), &u10.into()),
        "{l}"
    );
    ok(&mut s, &format!("retract {u10}"));
    assert_eq!(next_event(&mut u, "request_retraction")["handle"], u10);

    let d10 = sent(&mut s, &format!("delete-at {o} 10"));
    let l = next_event(&mut u, "remove");
    assert_eq!(
        (&l["object"], &l["retraction"]),
        (&o.into(), &d10.into()),
        "{l}"
    );
    ok(&mut s, &format!("retract {d10}"));
    assert_eq!(next_event(&mut u, "request_retraction")["handle"], d10);
    assert_ne!(i10, u10);
    assert_ne!(u10, d10);

    // One S keeps.
    let i12 = sent(&mut s, "send-at CustomerTransactions 12 i12");
    ok(&mut s, "tar 20");
    until(&mut s, "grant", "20");
    ok(&mut c, "tar 20");
    let got = until(&mut c, "grant", "20");
    let interactions: Vec<_> = got.iter().filter(|l| l["event"] == "interaction").collect();
    assert_eq!(interactions.len(), 1, "only the kept one: {got:?}");
    assert_eq!(
        (&interactions[0]["label"], &interactions[0]["retraction"]),
        (&"i12".into(), &i12.into())
    );
    assert_eq!(interactions[0]["received"], "TimeStamp");
    assert!(
        !got.iter().any(|l| l["event"] == "reflect"
            || l["event"] == "remove"
            || l["event"] == "request_retraction"),
        "nothing retracted reached C: {got:?}"
    );

    // The exceptions.
    let e = failed(&mut s, &format!("retract {i12}"));
    assert!(e.starts_with("MessageCanNoLongerBeRetracted"), "{e}");
    let e = failed(&mut s, &format!("retract {}", (hs << 32) | 999_999));
    assert!(e.starts_with("InvalidMessageRetractionHandle"), "{e}");
    let e = failed(&mut s, &format!("retract {i10}"));
    assert!(
        e.starts_with("InvalidMessageRetractionHandle"),
        "retracted once: {e}"
    );
    let e = failed(&mut c, &format!("retract {i12}"));
    assert!(
        e.starts_with("InvalidMessageRetractionHandle"),
        "not C's: {e}"
    );

    // The instance outlived its retracted delete, at C and for S.
    sent(&mut s, &format!("update-at {o} PayRate u25 25"));
    ok(&mut s, "tar 30");
    until(&mut s, "grant", "30");
    ok(&mut c, "tar 30");
    let got = until(&mut c, "grant", "30");
    let l = got
        .iter()
        .find(|l| l["event"] == "reflect")
        .expect("u25 reflected");
    assert_eq!(
        (&l["value"], &l["time"]),
        (&"u25".into(), &25.0.into()),
        "{got:?}"
    );
    assert_eq!(next_event(&mut u, "reflect")["value"], "u25");

    // A timed delete that is kept removes it at C's grant.
    let d35 = sent(&mut s, &format!("delete-at {o} 35"));
    ok(&mut s, "tar 40");
    until(&mut s, "grant", "40");
    ok(&mut c, "tar 40");
    let got = until(&mut c, "grant", "40");
    let l = got
        .iter()
        .find(|l| l["event"] == "remove")
        .expect("removed");
    assert_eq!(
        (&l["object"], &l["retraction"]),
        (&o.into(), &d35.into()),
        "{got:?}"
    );
    assert_eq!(l["received"], "TimeStamp");
    let e = failed(&mut s, &format!("retract {d35}"));
    assert!(e.starts_with("MessageCanNoLongerBeRetracted"), "{e}");
}

#[test]
fn a_handle_from_before_a_restore_is_void_after_it() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("retractr{}", std::process::id());
    let dirs: Vec<TempDir> = (0..2)
        .map(|i| TempDir::new(&format!("retractr{i}")))
        .collect();
    let (mut s, _) = shell_env(
        &lab,
        1,
        &ports,
        &fed,
        "S",
        &[("HLAMESH_SAVE_DIR", dirs[0].path())],
    );
    let (mut u, _) = shell_env(
        &lab,
        2,
        &ports,
        &fed,
        "U",
        &[("HLAMESH_SAVE_DIR", dirs[1].path())],
    );
    ok(&mut s, "publish-interaction CustomerTransactions");
    ok(&mut u, "subscribe-interaction CustomerTransactions");
    ok(&mut s, "regulate 1");
    until(&mut s, "regulating", "0");
    let before = sent(&mut s, "send-at CustomerTransactions 10 before");
    assert_eq!(next_event(&mut u, "interaction")["retraction"], before);

    ok(&mut s, "save r1");
    for p in [&mut s, &mut u] {
        until(p, "initiate_save", "r1");
    }
    let e = failed(&mut s, &format!("retract {before}"));
    assert!(e.starts_with("SaveInProgress"), "{e}");
    for p in [&mut s, &mut u] {
        ok(p, "save-begun");
        ok(p, "save-complete");
    }
    for p in [&mut s, &mut u] {
        next_event(p, "saved");
    }

    ok(&mut u, "restore r1");
    next_event(&mut u, "restore_request_ok");
    for p in [&mut s, &mut u] {
        next_event(p, "initiate_restore");
        ok(p, "restore-complete");
    }
    for p in [&mut s, &mut u] {
        next_event(p, "restored");
    }
    let e = failed(&mut s, &format!("retract {before}"));
    assert!(e.starts_with("InvalidMessageRetractionHandle"), "{e}");
    let after = sent(&mut s, "send-at CustomerTransactions 10 after");
    assert_ne!(after, before, "never the same handle again");
    assert_eq!(next_event(&mut u, "interaction")["retraction"], after);
    ok(&mut s, &format!("retract {after}"));
    assert_eq!(next_event(&mut u, "request_retraction")["handle"], after);
}
