//! The README's "run" command works: the demo starts the example federation as separate
//! processes, runs a short scenario as fast as possible, and its summary shows every federate
//! reached End, the viewer reflected every car's updates in order (across the restore, which
//! rewinds every federate to the save), and one federation save and one restore happened in
//! every federate.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::process::Command;

use common::lab::{Ports, serial};

#[test]
fn the_demo_runs_the_federation_and_its_summary_checks_out() {
    let _g = serial();
    let ports = Ports::unique();
    let out = Command::new(env!("CARGO_BIN_EXE_demo"))
        .args([
            "--duration",
            "3",
            "--cars",
            "2",
            "--afap",
            "--timeout",
            "60",
        ])
        // Ports of its own, so that a demo a developer runs meanwhile is not disturbed.
        .env("HLAMESH_DISCOVERY_PORT", ports.discovery.to_string())
        .env("HLAMESH_DATA_PORT", ports.data.to_string())
        .env("HLAMESH_DISCOVERY_GROUP", ports.group.to_string())
        .output()
        .expect("run demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "demo failed:\n{stdout}");
    assert!(
        stdout.contains("RESULT all_end=true viewer_in_order=true"),
        "{stdout}"
    );
    let row = |name: &str| -> Vec<String> {
        stdout
            .lines()
            .find(|l| l.starts_with(name) && l.contains(" End "))
            .unwrap_or_else(|| panic!("{name} did not reach End:\n{stdout}"))
            .split_whitespace()
            .map(str::to_string)
            .collect()
    };
    // Every column of the table has a header.
    let header: Vec<&str> = stdout
        .lines()
        .find(|l| l.starts_with("federate "))
        .unwrap_or_else(|| panic!("no table header:\n{stdout}"))
        .split_whitespace()
        .collect();
    for name in [
        "commander",
        "car-1",
        "car-2",
        "flightsim",
        "operator",
        "viewer",
    ] {
        let cols = row(name);
        assert_eq!(
            cols.len(),
            header.len(),
            "{name}'s row has a column without a header ({header:?}):\n{stdout}"
        );
        // The last two columns: saves, restores.
        assert_eq!(cols[cols.len() - 2], "1", "{name} saved once:\n{stdout}");
        assert_eq!(cols[cols.len() - 1], "1", "{name} restored once:\n{stdout}");
    }
    assert!(
        stdout.contains("commander: federation saved: Ok(())"),
        "{stdout}"
    );
    assert!(stdout.contains("save=true restore=true"), "{stdout}");
    assert!(
        stdout.contains("commander: federation restored: Ok(())"),
        "{stdout}"
    );
    for car in ["car-1", "car-2"] {
        assert!(
            stdout.contains(&format!(
                "viewer: {car}: last update Some(60) of Some(60) sent"
            )),
            "{stdout}"
        );
    }
    assert!(stdout.contains("complete, in order"), "{stdout}");
    // Event-driven: the operator ran one frame at the start and one at each event it sent,
    // then asked for the end. The untimed save finds it wherever it is when the save reaches
    // it (as fast as possible, after its first event and before or after its second), and it
    // sends again, after the restore, every event it had not sent at the save.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("operator: ") && l.contains(" events sent when the save"))
        .unwrap_or_else(|| panic!("no operator line:\n{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at_save: usize = words[1].parse().expect("events at the save");
    let total: usize = words[3].parse().expect("events");
    let sent: usize = words[words.iter().position(|w| *w == "all:").expect("in all") - 2]
        .parse()
        .expect("sent in all");
    assert_eq!(total, 2, "{stdout}");
    assert!(
        (1..=2).contains(&at_save),
        "the save came after the refuel at 0.8 s (the commander saves at 1.2 s):\n{stdout}"
    );
    assert_eq!(
        sent,
        total + (total - at_save),
        "each event after the save is sent twice, the others once:\n{stdout}"
    );
    let op = row("operator");
    assert_eq!(
        op[3],
        (sent + 1).to_string(),
        "a grant per event and the end:\n{stdout}"
    );
    assert_eq!(op[6], format!("{sent}/0"), "{stdout}");
    // Its time-stamped Refuel reached car-1 only.
    assert!(
        stdout.contains("car-1: fuel") && stdout.contains("refuels 1"),
        "{stdout}"
    );
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("car-2: fuel") && l.ends_with("refuels 0")),
        "{stdout}"
    );
    assert!(stdout.contains("latency send -> reflect"), "{stdout}");
}
