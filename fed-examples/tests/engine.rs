//! The engine framework across processes (network namespaces when run as root, loopback
//! otherwise), with the example federates as the engines:
//! - the engine state machine: a commander and two slaves reach Run together (nobody enters Run
//!   before everyone finished loading) and End cleanly, while a slave that cannot join and a
//!   slave that fails to load end in Fail with their cause and block nobody;
//! - periodic pacing as fast as possible runs exactly duration × rate frames (one grant each);
//! - a save and a restore during Run through the engine's management commands give back the
//!   car's position and fuel as they were at the save.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::lab::{Lab, Ports, Probe, args, base_args, serial};
use serde_json::Value;

const T: Duration = Duration::from_secs(60);

fn federate(lab: &Lab, host: usize, ports: &Ports, fed: &str, bin: &str, extra: &[&str]) -> Probe {
    federate_env(lab, host, ports, fed, bin, extra, &[])
}

fn federate_env(
    lab: &Lab,
    host: usize,
    ports: &Ports,
    fed: &str,
    bin: &str,
    extra: &[&str],
    envs: &[(&str, &str)],
) -> Probe {
    let mut a = base_args(lab, host, ports, fed);
    // As fast as possible unless the test asks for real time.
    if !extra.contains(&"--real-time") {
        a.extend(args(&["--afap"]));
    }
    a.extend(args(
        extra
            .iter()
            .copied()
            .filter(|x| *x != "--real-time")
            .collect::<Vec<_>>()
            .as_slice(),
    ));
    let exe = match bin {
        "commander" => env!("CARGO_BIN_EXE_commander"),
        "car" => env!("CARGO_BIN_EXE_car"),
        other => panic!("no binary {other}"),
    };
    let name = extra
        .windows(2)
        .find(|w| w[0] == "--name")
        .map_or(bin, |w| w[1]);
    Probe::spawn_interactive_env(lab, host, exe, &a, name, envs)
}

fn summary(p: &mut Probe) -> (Value, Option<i32>) {
    let s = p.wait_event("summary", T);
    (s, p.wait_exit(T))
}

fn history(s: &Value) -> Vec<String> {
    s["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h.as_str().unwrap().to_string())
        .collect()
}

/// When the engine entered `state` (ms since the epoch).
fn entered(s: &Value, state: &str) -> f64 {
    let h = history(s);
    let i = h
        .iter()
        .position(|x| x == state)
        .unwrap_or_else(|| panic!("{state} in {h:?}"));
    s["entered_unix_ms"][i - 1].as_f64().unwrap()
}

const LIFE: [&str; 8] = [
    "Begin",
    "JoinSynchronization",
    "Load(0)",
    "Load(1)",
    "Load(2)",
    "Run",
    "LeaveSynchronization",
    "End",
];

/// Frames of a periodic engine that ran from its start time to `end` at `hz`.
fn expected_frames(s: &Value, end: f64, hz: f64) -> u64 {
    ((end - s["run_start_time"].as_f64().unwrap()) * hz).round() as u64
}

#[test]
fn engines_reach_run_together_and_end_while_failing_slaves_block_nobody() {
    let _g = serial();
    let lab = Lab::new(5);
    let ports = Ports::unique();
    let fed = format!("engine-fsm-{}", std::process::id());
    let mut commander = federate(
        &lab,
        1,
        &ports,
        &fed,
        "commander",
        &[
            "--cars",
            "2",
            "--duration",
            "2",
            "--no-save",
            "--expected",
            "car-1,car-2,ghost,car-9",
            "--join-timeout-ms",
            "4000",
        ],
    );
    let mut cars: Vec<Probe> = ["car-1", "car-2"]
        .iter()
        .enumerate()
        .map(|(i, n)| federate(&lab, 2 + i, &ports, &fed, "car", &["--name", n]))
        .collect();
    // Cannot join: its federation never exists.
    let mut ghost = federate(
        &lab,
        4,
        &ports,
        &format!("{fed}-nowhere"),
        "car",
        &["--name", "ghost", "--join-timeout-ms", "1500"],
    );
    // Joins, but is not in the scenario: fails while loading.
    let mut stray = federate(&lab, 5, &ports, &fed, "car", &["--name", "car-9"]);

    let (g, gcode) = summary(&mut ghost);
    assert_eq!(g["state"], "Fail", "{g}");
    let cause = g["final_state"].as_str().unwrap();
    assert!(
        cause.contains("join federation execution")
            && cause.contains("FederationExecutionDoesNotExist"),
        "{cause}"
    );
    assert_eq!(history(&g), ["Begin", "JoinSynchronization", cause]);
    assert_eq!(gcode, Some(1));

    let (s9, code9) = summary(&mut stray);
    assert_eq!(s9["state"], "Fail", "{s9}");
    assert!(
        s9["final_state"]
            .as_str()
            .unwrap()
            .contains("car car-9 is not in the scenario"),
        "{s9}"
    );
    assert!(history(&s9).contains(&"Load(2)".to_string()), "{s9}");
    assert_eq!(code9, Some(1));

    let (c, ccode) = summary(&mut commander);
    let mut good = vec![c.clone()];
    for p in cars.iter_mut() {
        let (s, code) = summary(p);
        assert_eq!(code, Some(0), "{s}");
        good.push(s);
    }
    assert_eq!(ccode, Some(0), "{c}");
    assert_eq!(c["missing"], serde_json::json!(["ghost"]), "{c}");
    for s in &good {
        assert_eq!(history(s), LIFE, "{s}");
    }
    // Together: nobody entered Run before everyone had entered the last load frame.
    let last_load = good
        .iter()
        .map(|s| entered(s, "Load(2)"))
        .fold(f64::MIN, f64::max);
    let first_run = good
        .iter()
        .map(|s| entered(s, "Run"))
        .fold(f64::MAX, f64::min);
    assert!(
        first_run >= last_load,
        "Run at {first_run} before the last load at {last_load}"
    );
    // As fast as possible, the frame count is exact: one per quantum from the start time to
    // the end, each with its grant.
    let cf = expected_frames(&c, 2.0, 10.0);
    assert_eq!(c["run_frames"].as_u64(), Some(cf), "{c}");
    assert_eq!(c["grants"].as_u64(), Some(cf), "{c}");
    for s in &good[1..] {
        let f = expected_frames(s, 2.0, 20.0);
        assert!(f >= 38, "{s}");
        assert_eq!(s["run_frames"].as_u64(), Some(f), "{s}");
        assert_eq!(s["grants"].as_u64(), Some(f), "{s}");
        assert_eq!(s["updates_sent"].as_u64(), Some(f), "{s}");
        assert_eq!(s["final_time"].as_f64(), Some(2.0), "{s}");
    }
}

#[test]
fn a_save_and_restore_during_run_give_back_the_saved_car_state() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("engine-save-{}", std::process::id());
    let dir = std::env::temp_dir().join(format!("hlamesh-engine-save-{}", std::process::id()));
    let mut commander = federate(
        &lab,
        1,
        &ports,
        &fed,
        "commander",
        &[
            "--cars",
            "1",
            "--duration",
            "3",
            "--no-save",
            "--expected",
            "car-1",
        ],
    );
    let mut car = federate(
        &lab,
        2,
        &ports,
        &fed,
        "car",
        &[
            "--name",
            "car-1",
            "--local-save-at",
            "1.0",
            "--local-restore-at",
            "2.0",
            "--state-dir",
            dir.to_str().unwrap(),
        ],
    );
    let (s, code) = summary(&mut car);
    assert_eq!(code, Some(0), "{s}");
    let (c, ccode) = summary(&mut commander);
    assert_eq!(ccode, Some(0), "{c}");
    assert_eq!(s["saves"], serde_json::json!(["car-local"]), "{s}");
    assert_eq!(s["restores"], serde_json::json!(["car-local"]), "{s}");
    let saved = &s["extra"]["at_save"];
    let restored = &s["extra"]["after_restore"];
    assert!(
        saved["fuel"].as_f64().is_some() && saved["x"].as_f64().is_some(),
        "{s}"
    );
    assert_eq!(
        saved, restored,
        "the restore gives back position, fuel and sequence"
    );
    // The save was taken around t=1 (20 Hz: about 20 updates in) and the car drove on after
    // the restore from there, so its final sequence is about one second short of its frames.
    let seq_at_save = saved["seq"].as_i64().unwrap();
    assert!((18..=23).contains(&seq_at_save), "{s}");
    let frames = s["run_frames"].as_i64().unwrap();
    let final_seq = s["extra"]["state"]["seq"].as_i64().unwrap();
    assert!(
        final_seq < frames - 15,
        "restore rewound the car: {final_seq} vs {frames} frames"
    );
    let final_fuel = s["extra"]["state"]["fuel"].as_f64().unwrap();
    assert!(final_fuel < saved["fuel"].as_f64().unwrap(), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_federation_save_and_restore_through_the_engine_give_back_the_saved_car_state() {
    // The commander's scenario saves the federation at t = 1.2 and restores it at t = 2.1: the
    // RTI rewinds logical time, the engine its frame and mirrored objects, the car its state.
    // Real time: the commander is constrained only, so as fast as possible the car could be
    // done before the commander's clock reaches the save.
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("engine-fedsave-{}", std::process::id());
    let dir = std::env::temp_dir().join(format!("hlamesh-engine-fedsave-{}", std::process::id()));
    let dir_s = dir.to_str().unwrap().to_string();
    let env = [("HLAMESH_SAVE_DIR", dir_s.as_str())];
    let mut commander = federate_env(
        &lab,
        1,
        &ports,
        &fed,
        "commander",
        &[
            "--cars",
            "1",
            "--duration",
            "3",
            "--expected",
            "car-1",
            "--state-dir",
            &dir_s,
            "--real-time",
        ],
        &env,
    );
    let mut car = federate_env(
        &lab,
        2,
        &ports,
        &fed,
        "car",
        &["--name", "car-1", "--state-dir", &dir_s, "--real-time"],
        &env,
    );
    let (s, code) = summary(&mut car);
    assert_eq!(code, Some(0), "{s}");
    let (c, ccode) = summary(&mut commander);
    assert_eq!(ccode, Some(0), "{c}");
    assert_eq!(s["saves"], serde_json::json!(["scenario-save"]), "{s}");
    assert_eq!(s["restores"], serde_json::json!(["scenario-save"]), "{s}");
    let saved = &s["extra"]["at_save"];
    let restored = &s["extra"]["after_restore"];
    assert!(saved["fuel"].as_f64().is_some(), "{s}");
    assert_eq!(saved, restored, "position, fuel and sequence as saved");
    // It drove on from the save: its final sequence is short of its frames by the replayed
    // stretch (about 0.9 s at 20 Hz), and logical time still ended at 3.
    let frames = s["run_frames"].as_i64().unwrap();
    let final_seq = s["extra"]["state"]["seq"].as_i64().unwrap();
    assert!(
        final_seq < frames - 12,
        "{final_seq} vs {frames} frames: {s}"
    );
    assert_eq!(s["final_time"].as_f64(), Some(3.0), "{s}");
    let _ = std::fs::remove_dir_all(&dir);
}
