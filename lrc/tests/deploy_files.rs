//! The example files under deploy/ stay true to the code: the node configuration parses, equals
//! the built-in defaults and names every key; the environment example only uses variables the
//! transport reads; the Prometheus target file is well-formed file-SD JSON; the systemd units say
//! what the deployment docs promise.
#![allow(clippy::unwrap_used)]

use std::path::PathBuf;

use hlamesh_transport::{FaultSettings, TransportConfig};

fn repo(path: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(path)
}

fn read(path: &str) -> String {
    std::fs::read_to_string(repo(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn as_toml(c: &TransportConfig) -> toml::Table {
    toml::Table::try_from(c).unwrap()
}

const NODE_EXAMPLE: &str = "deploy/config/node.toml.example";

#[test]
fn node_example_parses_to_the_defaults() {
    let parsed = TransportConfig::from_toml(&read(NODE_EXAMPLE)).expect("example parses");
    parsed.validate().expect("example is valid");
    assert_eq!(
        as_toml(&parsed),
        as_toml(&TransportConfig::default()),
        "{NODE_EXAMPLE} must show the built-in defaults"
    );
}

/// Every configuration key appears in the example, set or commented out; a key added to
/// TransportConfig without documenting it here fails this test.
#[test]
fn node_example_names_every_key() {
    let text = read(NODE_EXAMPLE);
    // Options are left out when None: fill them so that every field is serialised.
    let full = TransportConfig {
        interface_cidr: Some("10.0.0.0/8".into()),
        data_group: Some("239.255.1.1".parse().unwrap()),
        fault: Some(FaultSettings::default()),
        ..TransportConfig::default()
    };
    let table = as_toml(&full);
    assert!(table.len() >= 20, "{table:?}");
    let mentioned = |key: &str| {
        text.lines().any(|l| {
            let l = l.trim_start_matches('#').trim_start();
            l.starts_with(&format!("{key} =")) || l == format!("[{key}]")
        })
    };
    for key in table.keys() {
        assert!(mentioned(key), "{NODE_EXAMPLE} does not mention `{key}`");
    }
    for key in ["ca", "cert", "key", "secret", "allow_non_loopback"] {
        assert!(mentioned(key), "{NODE_EXAMPLE}: security key `{key}`");
    }
}

/// Commented-out `key = value` examples are valid settings too.
#[test]
fn node_example_commented_values_parse() {
    let text = read(NODE_EXAMPLE);
    let keys = as_toml(&TransportConfig::default());
    let mut checked = 0;
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("# ") else {
            continue;
        };
        let Some((key, _)) = rest.split_once(" = ") else {
            continue;
        };
        if matches!(key, "interface_cidr" | "data_group") || keys.contains_key(key) {
            TransportConfig::from_toml(rest).unwrap_or_else(|e| panic!("{rest:?}: {e}"));
            checked += 1;
        }
    }
    assert!(
        checked >= 2,
        "expected the commented interface_cidr and data_group"
    );
    // The commented certificates block, uncommented, is a certificates configuration.
    let block: String = text
        .lines()
        .skip_while(|l| *l != "# [security]")
        .take_while(|l| l.starts_with("# "))
        .map(|l| format!("{}\n", &l[2..]))
        .collect();
    let c = TransportConfig::from_toml(&block).unwrap_or_else(|e| panic!("{block}: {e}"));
    assert!(matches!(
        c.security,
        hlamesh_transport::SecurityConfig::Certificates { .. }
    ));
}

/// The env example uses only variables `TransportConfig::apply_env` reads, plus the log filter
/// `HLAMESH_LOG` the binaries read.
#[test]
fn env_example_uses_known_variables() {
    let env = read("deploy/systemd/hlamesh.env.example");
    let config_rs = read("transport/src/config.rs");
    let probe_rs = read("transport/src/bin/probe.rs");
    let mut names = 0;
    for line in env.lines() {
        let l = line.trim_start_matches('#');
        let Some((name, _)) = l.split_once('=') else {
            continue;
        };
        if name.is_empty() || !name.chars().all(|c| c.is_ascii_uppercase() || c == '_') {
            continue;
        }
        names += 1;
        if name == "HLAMESH_LOG" {
            assert!(
                probe_rs.contains("\"HLAMESH_LOG\""),
                "log filter variable renamed?"
            );
        } else {
            assert!(
                config_rs.contains(&format!("\"{name}\"")),
                "{name} is not read by transport/src/config.rs"
            );
        }
    }
    assert!(names >= 6, "{names}");
    for needed in ["HLAMESH_INTERFACE", "HLAMESH_TTL", "HLAMESH_SECRET"] {
        assert!(env.contains(needed), "{needed}");
    }
}

#[test]
fn prometheus_targets_are_file_sd_json() {
    let v: serde_json::Value =
        serde_json::from_str(&read("deploy/prometheus/targets/lab.json")).expect("JSON");
    let groups = v.as_array().expect("a list of target groups");
    assert!(!groups.is_empty());
    for g in groups {
        let targets = g["targets"].as_array().expect("targets");
        assert!(!targets.is_empty());
        for t in targets {
            let t = t.as_str().expect("target is a string");
            t.parse::<std::net::SocketAddr>()
                .unwrap_or_else(|e| panic!("{t}: {e}"));
        }
        for (k, l) in g["labels"].as_object().expect("labels") {
            assert!(l.is_string(), "label {k} must be a string");
        }
    }
    let yml = read("deploy/prometheus/prometheus.yml");
    assert!(yml.contains("file_sd_configs:") && yml.contains("targets/*.json"));
}

#[test]
fn systemd_units_say_what_the_docs_promise() {
    let f = read("deploy/systemd/hlamesh-federate@.service");
    for line in [
        "ExecStart=/usr/local/bin/hlamesh-federate --config /etc/hlamesh/%i.toml",
        "EnvironmentFile=-/etc/hlamesh/%i.env",
        "Restart=on-failure",
        "NoNewPrivileges=yes",
        "ProtectSystem=strict",
        "StateDirectory=hlamesh/%i",
    ] {
        assert!(f.lines().any(|l| l == line), "federate unit lacks {line:?}");
    }
    // Not ProcSubset=pid: interface_cidr reads /proc/net.
    assert!(!f.lines().any(|l| l.starts_with("ProcSubset=")));
    let m = read("deploy/systemd/hlamesh-monitor.service");
    assert!(
        m.lines()
            .any(|l| l.starts_with("ExecStart=") && l.contains("status --watch"))
    );
}
