//! `hlamesh status --json` against a running federation: two `ops-probe` federates in separate
//! processes (regulating and constrained, advancing time), and the `hlamesh` binary as a third
//! process that must list the federation, both members with their name, type, node and address,
//! their time state, and the nodes' peer RTTs. Runs in the lab of network namespaces when root
//! (the monitor on a third host), on loopback otherwise.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::time::Duration;

use common::lab::{Lab, Ports, Probe, args, base_args, serial};

#[test]
fn status_json_lists_the_federation_and_its_members() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("opss{}", std::process::id());
    let mut extra = Vec::new();
    for f in common::RESTAURANT {
        extra.push("--fom".to_string());
        extra.push(common::fom(f).display().to_string());
    }
    extra.push("--create".into());
    let spawn = |host: usize, name: &str, extra: &[String]| {
        let mut a = base_args(&lab, host, &ports, &fed);
        a.extend(args(&[
            "--name",
            name,
            "--federate-type",
            &format!("{name}-type"),
            "--time",
        ]));
        a.extend_from_slice(extra);
        Probe::spawn(&lab, host, env!("CARGO_BIN_EXE_ops-probe"), &a, name)
    };
    let a = spawn(1, "alpha", &extra);
    let sa = a.wait_event("started", Duration::from_secs(10));
    a.wait_event("joined", Duration::from_secs(15));
    let b = spawn(2, "bravo", &[]);
    let sb = b.wait_event("started", Duration::from_secs(10));
    a.wait_event("ready", Duration::from_secs(20));
    b.wait_event("ready", Duration::from_secs(20));
    // Both have advanced a while (lockstep): logical time and GALT are defined.
    a.wait_event("progress", Duration::from_secs(20));

    let hex = |v: &serde_json::Value| format!("{:016x}", v["node"].as_u64().unwrap());
    let (na, nb) = (hex(&sa), hex(&sb));
    // The lab's development-mode settings, as the probes use them.
    let config = std::env::temp_dir().join(format!("hlamesh-status-{}.toml", std::process::id()));
    std::fs::write(
        &config,
        format!(
            "multicast_ttl = {}\n[security]\nmode = \"development\"\n\
             secret = \"hlamesh-development\"\nallow_non_loopback = {}\n",
            lab.ttl(),
            !lab.addr(3).is_loopback()
        ),
    )
    .unwrap();
    let hlamesh = common::hlamesh();
    let out = lab
        .command(3, &hlamesh.to_string_lossy())
        .args(["status", "--json", "--listen-ms", "3000"])
        .arg("--config")
        .arg(&config)
        .args(["--interface", &lab.addr(3).to_string()])
        .args(["--discovery-port", &ports.discovery.to_string()])
        .args(["--data-port", &ports.data.to_string()])
        .args(["--discovery-group", &ports.group.to_string()])
        .output()
        .expect("run hlamesh status");
    let _ = std::fs::remove_file(&config);
    assert!(
        out.status.success(),
        "hlamesh status failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(text.trim()).unwrap_or_else(|e| {
        panic!("status --json is not one JSON object ({e}): {text}");
    });

    let feds = report["federations"].as_array().expect("federations");
    let f = feds
        .iter()
        .find(|f| f["name"] == fed.as_str())
        .unwrap_or_else(|| panic!("federation {fed} not listed: {report}"));
    let members = f["members"].as_array().expect("members");
    assert_eq!(members.len(), 2, "{f}");
    let nodes = report["nodes"].as_array().expect("nodes");
    for (name, node) in [("alpha", &na), ("bravo", &nb)] {
        let m = members
            .iter()
            .find(|m| m["name"] == name)
            .unwrap_or_else(|| panic!("member {name} missing: {f}"));
        assert_eq!(m["type"], format!("{name}-type"), "{m}");
        assert_eq!(m["node"], node.as_str(), "{m}");
        let n = nodes
            .iter()
            .find(|n| n["node"] == node.as_str())
            .unwrap_or_else(|| panic!("node {node} not listed: {report}"));
        assert_eq!(n["answered"], true, "{n}");
        assert_eq!(m["address"], n["address"], "{m}");
        let addr: std::net::SocketAddr = m["address"].as_str().unwrap().parse().expect("address");
        assert_ne!(addr.port(), 0);
        assert_eq!(m["regulating"], true, "{m}");
        assert_eq!(m["constrained"], true, "{m}");
        let lt = m["logical_time"].as_f64().expect("logical time");
        assert!(lt >= 1.0, "{m}");
        let galt = m["galt"]
            .as_f64()
            .expect("GALT defined with another regulator");
        assert!(galt >= lt, "{m}");
        // The node reports its RTT to the other federate's node.
        let other = if name == "alpha" { &nb } else { &na };
        let peer = n["peers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["node"] == other.as_str())
            .unwrap_or_else(|| panic!("{name}'s node has no RTT to {other}: {n}"));
        assert!(peer["rtt_us"].as_u64().is_some_and(|r| r > 0), "{peer}");
    }
    assert!(
        f["coordinator"] == na.as_str() || f["coordinator"] == nb.as_str(),
        "{f}"
    );
}
