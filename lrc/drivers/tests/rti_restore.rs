//! Federation restore across processes (across network namespaces when run as root).
//!
//! - Three time-managed federates (`rti-checkpoint`) exchange timestamped updates whose values
//!   depend on everything each reflected; a timed save at t = 50, a run to 100, a restore, and a
//!   second run to 100 reflect exactly the values of the first run, value for value, with the
//!   same handles. Then three fresh processes of a new federation, with other names and in
//!   another join order, restore the same save (new LRCs, swapped handles) and reflect the same
//!   values again.
//! - The same timed save and restore in an `HLAinteger64Time` federation at times no `f64`
//!   holds (2^53 + 1 + k), exact after the restore.
//! - With `rti-shell` federates: restored names and reservations, restore status, a federate
//!   reporting failure, a federate killed during the restore, an abort, and corrupted or
//!   truncated or missing save files (the requester's own, or another machine's) — each ends with
//!   the right callback, the file named, and the federation still running as before.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::lab::{Lab, Ports, Probe, args, base_args, serial};
use common::shell::{cmd, next_event, shell_env, until};
use common::temp_dir::TempDir;

const LONG: Duration = Duration::from_secs(60);

/// The MovingObject FOM with Position sent in time-stamp order.
fn tso_fom(fed: &str) -> PathBuf {
    let text = std::fs::read_to_string(
        common::lab::repo_root().join("fed-examples/foms/MovingObject.xml"),
    )
    .unwrap()
    .replacen("<order>Receive</order>", "<order>TimeStamp</order>", 1);
    let path = std::env::temp_dir().join(format!("{fed}-MovingObject.xml"));
    std::fs::write(&path, text).unwrap();
    path
}

#[allow(clippy::too_many_arguments)]
fn checkpoint(
    lab: &Lab,
    host: usize,
    ports: &Ports,
    fed: &str,
    name: &str,
    federate_type: &str,
    extra: &[&str],
    save_dir: &str,
) -> Probe {
    let mut a = base_args(lab, host, ports, fed);
    a.extend(args(&["--name", name, "--federate-type", federate_type]));
    a.extend(args(extra));
    Probe::spawn_interactive_env(
        lab,
        host,
        env!("CARGO_BIN_EXE_rti-checkpoint"),
        &a,
        name,
        &[("HLAMESH_SAVE_DIR", save_dir)],
    )
}

/// Reflections of a `run` line after step `after`.
fn tail(run: &serde_json::Value, after: u64) -> Vec<serde_json::Value> {
    run["reflections"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r[0].as_u64().unwrap() > after)
        .cloned()
        .collect()
}

#[test]
fn timed_save_at_50_then_restore_replays_every_reflection() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("restore{}", std::process::id());
    let dir = TempDir::new("restore");
    let fom = tso_fom(&fed);
    let fom = fom.to_str().unwrap();
    let gen1 = [("A", "alpha"), ("B", "beta"), ("C", "gamma")];
    let mut procs = Vec::new();
    for (i, (name, ty)) in gen1.iter().enumerate() {
        let mut extra = vec!["--restore-after"];
        if i == 0 {
            extra.extend(["--create", "--fom", fom, "--request-save"]);
        }
        let p = checkpoint(&lab, i + 1, &ports, &fed, name, ty, &extra, dir.path());
        p.wait_event("joined", LONG);
        procs.push(p);
    }
    let mut first = Vec::new();
    for p in &procs {
        // How many of the others' "ready" updates came before this federate had discovered
        // every object (they once were dropped there, and the barrier then hung).
        let ready = p.wait_event("ready", LONG);
        eprintln!("[{}] ready; {} early", p.name, ready["early"]);
        let saved = p.wait_event("saved", LONG);
        assert_eq!(saved["step"], 50, "[{}]", p.name);
        let run = p.wait_event("run", LONG);
        assert_eq!(run["time"], 100.0);
        // Two other federates, 100 steps each.
        assert_eq!(
            run["reflections"].as_array().unwrap().len(),
            200,
            "[{}]",
            p.name
        );
        first.push(run);
    }
    for (p, run1) in procs.iter().zip(&first) {
        let r = p.wait_event("restored", LONG);
        assert_eq!(
            r["time"], 50.0,
            "[{}] logical time after the restore",
            p.name
        );
        assert_eq!(r["step"], 50, "[{}]", p.name);
        assert_eq!(r["handle"], run1["handle"], "[{}]", p.name);
        let run2 = p.wait_event("run", LONG);
        assert_eq!(run2["handle"], run1["handle"]);
        assert_eq!(
            tail(&run2, 50),
            tail(run1, 50),
            "[{}] reflections after the restore differ from the first run",
            p.name
        );
        assert_eq!(run2["acc"], run1["acc"], "[{}] final state", p.name);
    }
    for mut p in procs {
        p.wait_event("resigned", LONG);
        assert_eq!(p.wait_exit(LONG), Some(0), "[{}]", p.name);
    }

    // New processes (new LRCs), other names, types joined in reverse order: the federates are
    // matched to the saved ones by type, so handles swap (gamma joins first, gets handle 1, and
    // becomes C with handle 3).
    let gen2 = [("X", "gamma"), ("Y", "beta"), ("Z", "alpha")];
    let mut procs = Vec::new();
    for (i, (name, ty)) in gen2.iter().enumerate() {
        let mut extra = vec!["--restore-only"];
        if i == 0 {
            extra.extend(["--create", "--fom", fom, "--request-save"]);
        }
        let p = checkpoint(&lab, i + 1, &ports, &fed, name, ty, &extra, dir.path());
        let j = p.wait_event("joined", LONG);
        if i == 0 {
            assert_eq!(j["handle"], 1);
        }
        procs.push(p);
    }
    for (p, saved) in procs.iter().zip([&first[2], &first[1], &first[0]]) {
        let r = p.wait_event("restored", LONG);
        assert_eq!(
            r["handle"], saved["handle"],
            "[{}] takes the saved handle",
            p.name
        );
        assert_eq!(r["time"], 50.0);
        let run = p.wait_event("run", LONG);
        assert_eq!(
            tail(&run, 50),
            tail(saved, 50),
            "[{}] reflections after restoring in new processes differ",
            p.name
        );
        assert_eq!(run["acc"], saved["acc"]);
    }
    for mut p in procs {
        p.wait_event("resigned", LONG);
        assert_eq!(p.wait_exit(LONG), Some(0), "[{}]", p.name);
    }
}

/// The same timed save and restore in an `HLAinteger64Time` federation whose steps sit at
/// 2^53 + 1 + k, where no `f64` is exact: the save, made right after the grant to the save
/// time, and the restore bring every federate back to exactly 2^53 + 51, and the second run
/// reflects exactly what the first one did.
#[test]
fn integer_time_timed_save_and_restore_are_exact() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("irestore{}", std::process::id());
    let dir = TempDir::new("irestore");
    let fom = tso_fom(&fed);
    let fom = fom.to_str().unwrap();
    const BASE: i64 = (1 << 53) + 1;
    let mut procs = Vec::new();
    for (i, (name, ty)) in [("A", "alpha"), ("B", "beta"), ("C", "gamma")]
        .iter()
        .enumerate()
    {
        let mut extra = vec!["--restore-after", "--integer-time", "--steps", "60"];
        if i == 0 {
            extra.extend(["--create", "--fom", fom, "--request-save"]);
        }
        let p = checkpoint(&lab, i + 1, &ports, &fed, name, ty, &extra, dir.path());
        p.wait_event("joined", LONG);
        procs.push(p);
    }
    let mut first = Vec::new();
    for p in &procs {
        p.wait_event("ready", LONG);
        assert_eq!(p.wait_event("saved", LONG)["step"], 50, "[{}]", p.name);
        let run = p.wait_event("run", LONG);
        assert_eq!(run["itime"].as_i64(), Some(BASE + 60), "[{}]", p.name);
        assert_eq!(run["reflections"].as_array().unwrap().len(), 120);
        first.push(run);
    }
    for (p, run1) in procs.iter().zip(&first) {
        let r = p.wait_event("restored", LONG);
        assert_eq!(
            r["itime"].as_i64(),
            Some(BASE + 50),
            "[{}] logical time after the restore, exactly",
            p.name
        );
        assert_eq!(r["handle"], run1["handle"], "[{}]", p.name);
        let run2 = p.wait_event("run", LONG);
        assert_eq!(run2["itime"].as_i64(), Some(BASE + 60));
        assert_eq!(tail(&run2, 50), tail(run1, 50), "[{}]", p.name);
        assert_eq!(run2["acc"], run1["acc"], "[{}] final state", p.name);
    }
    for mut p in procs {
        p.wait_event("resigned", LONG);
        assert_eq!(p.wait_exit(LONG), Some(0), "[{}]", p.name);
    }
}

fn error_of(l: &serde_json::Value) -> &str {
    assert_eq!(l["event"], "failed", "{l}");
    l["error"].as_str().unwrap()
}

/// Saves `label` with every shell writing `state-of-NAME`.
fn save(shells: &mut [&mut common::shell::Shell], label: &str) {
    assert_eq!(cmd(shells[0], &format!("save {label}"))["event"], "ok");
    for s in shells.iter_mut() {
        until(s, "initiate_save", label);
        cmd(s, "save-begun");
        let n = s.name.clone();
        cmd(s, &format!("write-state state-of-{n}"));
        cmd(s, "save-complete");
    }
    for s in shells.iter_mut() {
        next_event(s, "saved");
    }
}

fn corrupt(path: &Path) {
    let b = std::fs::read(path).unwrap();
    std::fs::write(path, &b[..b.len() - 7]).unwrap();
}

#[test]
fn restore_brings_back_names_and_reservations_and_every_failure_is_reported() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("restoref{}", std::process::id());
    // One save directory per process, as on separate machines.
    let dirs: Vec<TempDir> = (0..3)
        .map(|i| TempDir::new(&format!("restoref{i}")))
        .collect();
    let env = |i: usize| [("HLAMESH_SAVE_DIR", dirs[i].path())];
    let (mut a, ha) = shell_env(&lab, 1, &ports, &fed, "A", &env(0));
    let (mut b, hb) = shell_env(&lab, 2, &ports, &fed, "B", &env(1));
    let (mut c, hc) = shell_env(&lab, 3, &ports, &fed, "C", &env(2));

    assert_eq!(cmd(&mut a, "reserve Before")["event"], "ok");
    until(&mut a, "reserved", "Before");
    save(&mut [&mut a, &mut b, &mut c], "r1");
    assert_eq!(cmd(&mut b, "reserve After")["event"], "ok");
    until(&mut b, "reserved", "After");

    // No such save.
    cmd(&mut a, "restore nope");
    let l = next_event(&mut a, "restore_request_failed");
    assert!(l["reason"].as_str().unwrap().contains("no save"), "{l}");

    // A successful restore: every federate is told its saved name and handle and reads the
    // state it wrote; services wait meanwhile.
    cmd(&mut c, "restore r1");
    next_event(&mut c, "restore_request_ok");
    for (s, h) in [(&mut a, ha), (&mut b, hb), (&mut c, hc)] {
        next_event(s, "restore_begun");
        let l = next_event(s, "initiate_restore");
        assert_eq!(l["name"], s.name.as_str());
        assert_eq!(l["handle"], h);
    }
    assert!(error_of(&cmd(&mut a, "reserve Other")).starts_with("RestoreInProgress"));
    assert!(error_of(&cmd(&mut a, "save again")).starts_with("RestoreInProgress"));
    cmd(&mut b, "restore-status");
    let st = next_event(&mut b, "restore_status");
    assert!(
        st["status"]
            .as_array()
            .unwrap()
            .iter()
            .all(|x| x[2] == "FederateRestoring"),
        "{st}"
    );
    for s in [&mut a, &mut b, &mut c] {
        cmd(s, "read-state");
        let l = next_event(s, "state");
        assert_eq!(l["text"], format!("state-of-{}", s.name));
        assert_eq!(cmd(s, "restore-complete")["event"], "ok");
    }
    assert!(error_of(&cmd(&mut a, "restore-complete")).starts_with("RestoreNotRequested"));
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "restored");
    }
    // The reservation made after the save is gone; the one before it is back.
    cmd(&mut c, "reserve After");
    until(&mut c, "reserved", "After");
    cmd(&mut c, "reserve Before");
    until(&mut c, "not_reserved", "Before");

    // A federate that cannot restore its own state.
    cmd(&mut a, "restore r1");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "initiate_restore");
    }
    assert_eq!(cmd(&mut a, "restore-complete")["event"], "ok");
    assert_eq!(cmd(&mut b, "restore-not-complete")["event"], "ok");
    assert_eq!(cmd(&mut c, "restore-complete")["event"], "ok");
    for s in [&mut a, &mut b, &mut c] {
        assert_eq!(
            next_event(s, "not_restored")["reason"],
            "FederateReportedFailureDuringRestore"
        );
    }

    // Abort while the federates restore.
    cmd(&mut b, "restore r1");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "initiate_restore");
    }
    cmd(&mut c, "abort-restore");
    for s in [&mut a, &mut b, &mut c] {
        assert_eq!(next_event(s, "not_restored")["reason"], "RestoreAborted");
    }
    assert!(error_of(&cmd(&mut c, "abort-restore")).starts_with("RestoreNotInProgress"));

    // The requester's own file is truncated: refused at once, the file named.
    let fa = hlamesh_lrc::save_file::rti_file(&dirs[0].0, &fed, "r1", "A");
    let good = std::fs::read(&fa).unwrap();
    corrupt(&fa);
    cmd(&mut a, "restore r1");
    let l = next_event(&mut a, "restore_request_failed");
    assert!(
        l["reason"].as_str().unwrap().contains(fa.to_str().unwrap()),
        "{l}"
    );
    std::fs::write(&fa, &good).unwrap();

    // Another machine's file is corrupt: found when that LRC prepares, before anything
    // changed; everyone hears RTI_UNABLE_TO_RESTORE and the federation runs on untouched.
    let fb = hlamesh_lrc::save_file::rti_file(&dirs[1].0, &fed, "r1", "B");
    let mut bytes = std::fs::read(&fb).unwrap();
    let n = bytes.len() - 1;
    bytes[n] ^= 0x5a;
    std::fs::write(&fb, &bytes).unwrap();
    cmd(&mut a, "restore r1");
    next_event(&mut a, "restore_request_ok");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "restore_begun");
        let l = next_event(s, "not_restored");
        assert_eq!(l["reason"], "RtiUnableToRestore");
        assert!(
            l["detail"].as_str().unwrap().contains(fb.to_str().unwrap()),
            "[{}] {l}",
            s.name
        );
    }
    // Another machine's file is missing: the same, and every federate (the requester too)
    // gets the missing file's path, not only that LRC's log.
    std::fs::remove_file(&fb).unwrap();
    cmd(&mut a, "restore r1");
    next_event(&mut a, "restore_request_ok");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "restore_begun");
        let l = next_event(s, "not_restored");
        assert_eq!(l["reason"], "RtiUnableToRestore");
        let detail = l["detail"].as_str().unwrap();
        assert!(
            detail.contains(fb.to_str().unwrap()) && detail.contains("No such file"),
            "[{}] {l}",
            s.name
        );
    }
    std::fs::write(&fb, &bytes).unwrap();
    cmd(&mut b, "reserve Untouched");
    until(&mut b, "reserved", "Untouched");

    // A later save of the same label fails part-way: A and C rewrote their files, B did not.
    // The files of two saves are never mixed: B's LRC finds its file is of the other save.
    save(&mut [&mut a, &mut b, &mut c], "m1");
    cmd(&mut b, "save m1");
    for s in [&mut a, &mut b, &mut c] {
        until(s, "initiate_save", "m1");
        cmd(s, "save-begun");
    }
    cmd(&mut a, "save-complete");
    cmd(&mut c, "save-complete");
    cmd(&mut b, "save-not-complete");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "not_saved");
    }
    cmd(&mut a, "restore m1");
    next_event(&mut a, "restore_request_ok");
    for s in [&mut a, &mut b, &mut c] {
        assert_eq!(
            next_event(s, "not_restored")["reason"],
            "RtiUnableToRestore"
        );
    }

    // A federate killed during the restore: the others hear it and go on.
    std::fs::write(&fb, {
        let mut b = bytes.clone();
        b[n] ^= 0x5a;
        b
    })
    .unwrap();
    cmd(&mut a, "restore r1");
    for s in [&mut a, &mut b, &mut c] {
        next_event(s, "initiate_restore");
    }
    cmd(&mut a, "restore-complete");
    c.kill9();
    for s in [&mut a, &mut b] {
        assert_eq!(
            next_event(s, "not_restored")["reason"],
            "RtiDetectedFailureDuringRestore"
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
