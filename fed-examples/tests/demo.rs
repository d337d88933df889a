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
    // Event-driven: the operator ran one frame at the start and one at each of its two events,
    // then asked for the end: three grants, whatever the others' frame rates — plus its event
    // between the save (t = 1.2) and the restore (t = 2.1), which it lives through twice.
    let op = row("operator");
    assert_eq!((op[2].as_str(), op[3].as_str()), ("7", "4"), "{stdout}");
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
