//! The Grafana dashboard (deploy/grafana/hlamesh-dashboard.json) queries only what a real node
//! exports: every transport metric name in a panel or variable query appears in a real scrape of
//! two transports that exchanged messages, every label such a query groups or filters by exists,
//! and the panels the operators need are there. The HLA-level families the dashboard also
//! queries are exported by the LRC; `lrc/drivers/tests/ops_metrics.rs` checks those against a running
//! federation.

#[path = "metrics_support/mod.rs"]
mod support;

use std::collections::{BTreeSet, HashSet};

use hlamesh_transport::data::Reliability;
use serde_json::Value;
use support::{await_data, get, pair, parse};

fn dashboard() -> Value {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../deploy/grafana/hlamesh-dashboard.json"
    );
    let text = std::fs::read_to_string(path).expect("dashboard file");
    serde_json::from_str(&text).expect("dashboard is JSON")
}

/// Every query string of the dashboard: panel `expr`s and variable queries.
fn queries(v: &Value, key: Option<&str>, out: &mut Vec<String>) {
    match v {
        Value::Object(m) => {
            for (k, v) in m {
                queries(v, Some(k), out);
            }
        }
        Value::Array(a) => a.iter().for_each(|v| queries(v, key, out)),
        Value::String(s) if matches!(key, Some("expr" | "query" | "definition")) => {
            out.push(s.clone())
        }
        _ => {}
    }
}

fn metric_names(q: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    let mut rest = q;
    while let Some(i) = rest.find("hlamesh_") {
        let tail = &rest[i..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .unwrap_or(tail.len());
        out.insert(tail[..end].to_string());
        rest = &tail[end..];
    }
    out
}

/// Label names in `by (...)` clauses and `{label=...}` selectors.
fn label_names(q: &str) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    for (open, close) in [("by (", ')'), ("{", '}')] {
        let mut rest = q;
        while let Some(i) = rest.find(open) {
            let tail = &rest[i + open.len()..];
            let end = tail.find(close).expect("balanced");
            for part in tail[..end].split(',') {
                let name: String = part
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() {
                    out.insert(name);
                }
            }
            rest = &tail[end..];
        }
    }
    out
}

#[test]
fn dashboard_queries_only_exported_metrics() {
    let d = dashboard();
    let mut qs = Vec::new();
    queries(&d, None, &mut qs);
    let transport = |n: &String| {
        hlamesh_transport::metrics::FAMILIES.iter().any(|f| {
            n.strip_prefix(f)
                .is_some_and(|r| r.is_empty() || r == "_bucket" || r == "_sum" || r == "_count")
        })
    };
    // Queries over the LRC's families are checked by the LRC's tests.
    qs.retain(|q| metric_names(q).iter().all(transport));
    let names: BTreeSet<String> = qs.iter().flat_map(|q| metric_names(q)).collect();
    assert!(
        names.len() >= 15,
        "the dashboard queries most families: {names:?}"
    );

    let p = pair(1, Some("127.0.0.1:0".parse().expect("addr")), None);
    for _ in 0..10 {
        p.fa.send(Reliability::Reliable, b"r").expect("send");
        p.fa.send(Reliability::BestEffort, b"b").expect("send");
    }
    await_data(&p.b, p.a.node_id(), 10);
    let (_, body) = get(p.a.metrics_addr().expect("serves"), "/metrics");
    let scrape = parse(&body);
    let exported = scrape.names();
    let missing: Vec<&String> = names.iter().filter(|n| !exported.contains(*n)).collect();
    assert!(
        missing.is_empty(),
        "the dashboard queries metrics a node does not export: {missing:?}"
    );

    // Labels: the exported ones, plus `instance` that Prometheus adds to every target.
    let mut labels: HashSet<String> = scrape
        .samples
        .keys()
        .flat_map(|(_, l)| l.keys().cloned())
        .collect();
    labels.insert("instance".into());
    for q in &qs {
        for l in label_names(q) {
            assert!(labels.contains(&l), "label {l} in {q:?} is not exported");
        }
    }
}

#[test]
fn dashboard_has_the_operator_panels() {
    let d = dashboard();
    let panels = d["panels"].as_array().expect("panels");
    let titles: Vec<&str> = panels.iter().filter_map(|p| p["title"].as_str()).collect();
    for want in [
        "Multicast throughput",
        "NACK / repair rate",
        "Datagrams dropped by reason",
        "QUIC RTT per peer",
        "Peers connected / lost",
    ] {
        assert!(
            titles.iter().any(|t| t.starts_with(want)),
            "no panel {want:?} in {titles:?}"
        );
    }
    let mut ids = HashSet::new();
    for p in panels {
        assert!(ids.insert(p["id"].as_u64().expect("id")), "duplicate id");
        if p["type"] == "row" {
            continue;
        }
        let targets = p["targets"].as_array().expect("targets");
        assert!(!targets.is_empty(), "{}", p["title"]);
        for t in targets {
            assert!(t["expr"].as_str().is_some_and(|e| !e.is_empty()));
            assert!(t["refId"].as_str().is_some());
        }
        // Every panel uses the dashboard's data source variable, so importing asks for one.
        assert_eq!(p["datasource"]["uid"], "${datasource}", "{}", p["title"]);
    }
    assert_eq!(d["uid"], "hlamesh-transport");
}
