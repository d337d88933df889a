//! The README's "run" command works: the demo starts its node processes, every node receives
//! every other node's reliable messages in order, and it exits 0.

use std::process::Command;

#[test]
fn demo_runs_and_every_node_receives_everything() {
    let out = Command::new(env!("CARGO_BIN_EXE_demo"))
        .args(["--nodes", "3", "--messages", "500", "--rate", "2000"])
        // Ports of its own, so that a demo a developer runs meanwhile is not disturbed.
        .env("HLAMESH_DISCOVERY_PORT", "46700")
        .env("HLAMESH_DATA_PORT", "46701")
        .env("HLAMESH_DISCOVERY_GROUP", "239.255.77.9")
        .output()
        .expect("run demo");
    let stdout = String::from_utf8_lossy(&out.stdout);
    println!("{stdout}");
    assert!(out.status.success(), "demo failed:\n{stdout}");
    let per_peer: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(" reliable (in order: true)"))
        .collect();
    assert_eq!(per_peer.len(), 6, "3 nodes x 2 peers:\n{stdout}");
    assert!(
        per_peer.iter().all(|l| l.contains("500/500 reliable")),
        "{stdout}"
    );
}
