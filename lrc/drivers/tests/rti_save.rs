//! Federation save across processes (across network namespaces when run as root): a save every
//! federate completes writes each federate's own state and the RTI's checksummed state for it;
//! services are refused with SaveInProgress meanwhile; a federate reporting failure, an abort and
//! a federate killed during the save each end in `federation_not_saved` with the right reason,
//! and the federation keeps working afterwards. Each federate is an `rti-shell` process.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use common::lab::{Lab, Ports, serial};
use common::shell::{cmd, next_event, shell_env, until};
use common::temp_dir::TempDir;

fn error_of(l: &serde_json::Value) -> &str {
    assert_eq!(l["event"], "failed", "{l}");
    l["error"].as_str().unwrap()
}

#[test]
fn save_completes_and_writes_every_federates_state() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("save{}", std::process::id());
    let dir = TempDir::new("save");
    let env = [("HLAMESH_SAVE_DIR", dir.0.to_str().unwrap())];
    let names = ["A", "B", "C"];
    let mut shells: Vec<_> = names
        .iter()
        .enumerate()
        .map(|(i, n)| shell_env(&lab, i + 1, &ports, &fed, n, &env).0)
        .collect();

    // Out of order: reporting before any save is refused.
    assert!(error_of(&cmd(&mut shells[1], "save-begun")).starts_with("SaveNotInitiated"));

    assert_eq!(cmd(&mut shells[0], "save s1")["event"], "ok");
    for s in shells.iter_mut() {
        until(s, "initiate_save", "s1");
    }
    // While saving: refused services (the core refuses each under the lock of the service
    // itself) and out-of-order reports.
    for refused in [
        "reserve Thing",
        "publish Employee PayRate",
        "subscribe Employee PayRate",
        "register during-save",
        "achieve never-announced",
    ] {
        let e = error_of(&cmd(&mut shells[2], refused)).to_string();
        assert!(e.starts_with("SaveInProgress"), "{refused}: {e}");
    }
    assert!(error_of(&cmd(&mut shells[2], "save-complete")).starts_with("FederateHasNotBegunSave"));
    assert!(error_of(&cmd(&mut shells[1], "save s2")).starts_with("SaveInProgress"));
    cmd(&mut shells[0], "save-status");
    let st = next_event(&mut shells[0], "save_status");
    let st = st["status"].as_array().unwrap();
    assert_eq!(st.len(), 3);
    assert!(
        st.iter().all(|x| x[1] == "FederateInstructedToSave"),
        "{st:?}"
    );
    for (s, n) in shells.iter_mut().zip(names) {
        assert_eq!(cmd(s, "save-begun")["event"], "ok");
        assert_eq!(cmd(s, &format!("write-state state-of-{n}"))["event"], "ok");
        assert_eq!(cmd(s, "save-complete")["event"], "ok");
    }
    for s in shells.iter_mut() {
        next_event(s, "saved");
    }
    // Each federate's own state and the RTI's state for it, side by side.
    let save_dir = hlamesh_lrc::save_file::save_dir(&dir.0, &fed, "s1");
    for n in names {
        let own = std::fs::read_to_string(save_dir.join(n).join("state.txt")).unwrap();
        assert_eq!(own, format!("state-of-{n}"));
        let rti =
            hlamesh_lrc::save_file::read(&hlamesh_lrc::save_file::rti_file(&dir.0, &fed, "s1", n))
                .unwrap();
        assert_eq!(rti.federate_name, n);
        assert_eq!(rti.label, "s1");
        assert_eq!(rti.federation, fed);
        // The log names all three federates: membership and handles are in it.
        let joined = rti
            .log
            .iter()
            .filter(|(_, d)| matches!(d, hlamesh_lrc::core::wire::Decision::FederateJoined { .. }))
            .count();
        assert_eq!(joined, 3, "{n}");
        assert!(!rti.modules.is_empty());
    }
    // Services work again after the save.
    assert_eq!(cmd(&mut shells[2], "reserve Thing")["event"], "ok");
    assert_eq!(
        cmd(&mut shells[2], "publish Employee PayRate")["event"],
        "ok"
    );
    assert_eq!(
        cmd(&mut shells[2], "subscribe Employee PayRate")["event"],
        "ok"
    );
    for s in shells.iter_mut() {
        s.send("resign");
        next_event(s, "resigned");
    }
}

#[test]
fn failed_aborted_and_crashed_saves_report_their_reason() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("savef{}", std::process::id());
    let dir = TempDir::new("savef");
    let env = [("HLAMESH_SAVE_DIR", dir.0.to_str().unwrap())];
    let (mut a, _) = shell_env(&lab, 1, &ports, &fed, "A", &env);
    let (mut b, _) = shell_env(&lab, 2, &ports, &fed, "B", &env);
    let (mut c, _) = shell_env(&lab, 3, &ports, &fed, "C", &env);

    // A federate that cannot save.
    cmd(&mut a, "save f1");
    for s in [&mut a, &mut b, &mut c] {
        until(s, "initiate_save", "f1");
        cmd(s, "save-begun");
    }
    cmd(&mut a, "save-complete");
    cmd(&mut b, "save-not-complete");
    cmd(&mut c, "save-complete");
    for s in [&mut a, &mut b, &mut c] {
        let l = next_event(s, "not_saved");
        assert_eq!(
            l["reason"], "FederateReportedFailureDuringSave",
            "[{}]",
            s.name
        );
    }

    // Abort.
    cmd(&mut b, "save f2");
    for s in [&mut a, &mut b, &mut c] {
        until(s, "initiate_save", "f2");
    }
    assert_eq!(cmd(&mut c, "abort-save")["event"], "ok");
    for s in [&mut a, &mut b, &mut c] {
        assert_eq!(next_event(s, "not_saved")["reason"], "SaveAborted");
    }
    assert!(error_of(&cmd(&mut a, "abort-save")).starts_with("SaveNotInProgress"));

    // A federate killed during the save: the save fails, the federation goes on.
    cmd(&mut a, "save f3");
    for s in [&mut a, &mut b, &mut c] {
        until(s, "initiate_save", "f3");
    }
    cmd(&mut a, "save-begun");
    cmd(&mut a, "save-complete");
    c.kill9();
    for s in [&mut a, &mut b] {
        assert_eq!(
            next_event(s, "not_saved")["reason"],
            "RtiDetectedFailureDuringSave"
        );
    }
    cmd(&mut a, "register after");
    for s in [&mut a, &mut b] {
        until(s, "announce", "after");
        cmd(s, "achieve after");
    }
    for s in [&mut a, &mut b] {
        until(s, "synchronized", "after");
        s.send("resign");
        next_event(s, "resigned");
    }
}
