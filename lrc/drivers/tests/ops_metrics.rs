//! Metrics of a running federation, end to end: two `ops-probe` federates in separate processes
//! (regulating and constrained, updating and sending interactions) serve `/metrics`; the test
//! scrapes them over HTTP, parses the Prometheus text format strictly, and checks that the HLA
//! families are there and move as updates flow. Then: every metric the shipped Grafana dashboard
//! queries exists in a real scrape, and a real Prometheus server (the Debian package, installed
//! by `.ci/run`) started from the shipped scrape configuration returns reflection-latency
//! samples from its query API — for those two federates, and for the running demo (built beside
//! this test by `cargo test --workspace`), which `hlamesh status --json` must also list with
//! every federate.
//!
//! Everything runs on loopback: the test process itself scrapes the federates.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, Probe, args, base_args, serial};
use hlamesh_lrc::metrics::{FAMILIES, names};

// ------------------------------------------------------------------------------------------
// A strict parser of the Prometheus text exposition format (version 0.0.4).

#[derive(Debug, Clone)]
struct Sample {
    name: String,
    labels: BTreeMap<String, String>,
    value: f64,
}

#[derive(Debug, Default)]
struct Scrape {
    types: HashMap<String, String>,
    helps: BTreeSet<String>,
    samples: Vec<Sample>,
}

fn is_name(s: &str) -> bool {
    let mut c = s.chars();
    c.next()
        .is_some_and(|f| f.is_ascii_alphabetic() || f == '_' || f == ':')
        && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == ':')
}

fn parse_value(s: &str) -> Result<f64, String> {
    match s {
        "+Inf" => Ok(f64::INFINITY),
        "-Inf" => Ok(f64::NEG_INFINITY),
        "NaN" => Ok(f64::NAN),
        _ => s.parse().map_err(|e| format!("value {s:?}: {e}")),
    }
}

/// Labels `{k="v",...}` at the start of `s`; returns them and the rest.
fn parse_labels(s: &str) -> Result<(BTreeMap<String, String>, &str), String> {
    let mut labels = BTreeMap::new();
    let mut rest = s.strip_prefix('{').ok_or("labels must start with {")?;
    loop {
        rest = rest.trim_start();
        if let Some(r) = rest.strip_prefix('}') {
            return Ok((labels, r));
        }
        let eq = rest.find('=').ok_or("label without =")?;
        let key = rest[..eq].trim();
        if !is_name(key) || key.contains(':') {
            return Err(format!("bad label name {key:?}"));
        }
        rest = rest[eq + 1..]
            .strip_prefix('"')
            .ok_or("label value must be quoted")?;
        let mut value = String::new();
        let mut chars = rest.char_indices();
        let end = loop {
            match chars.next() {
                Some((_, '\\')) => match chars.next() {
                    Some((_, 'n')) => value.push('\n'),
                    Some((_, '\\')) => value.push('\\'),
                    Some((_, '"')) => value.push('"'),
                    other => return Err(format!("bad escape {other:?}")),
                },
                Some((i, '"')) => break i,
                Some((_, c)) => value.push(c),
                None => return Err("unterminated label value".into()),
            }
        };
        if labels.insert(key.to_string(), value).is_some() {
            return Err(format!("label {key} twice"));
        }
        rest = &rest[end + 1..];
        rest = rest.strip_prefix(',').unwrap_or(rest);
    }
}

fn family_of<'a>(scrape: &Scrape, name: &'a str) -> &'a str {
    for suffix in ["_bucket", "_sum", "_count"] {
        if let Some(base) = name.strip_suffix(suffix)
            && matches!(
                scrape.types.get(base).map(String::as_str),
                Some("histogram" | "summary")
            )
        {
            return base;
        }
    }
    name
}

fn parse(text: &str) -> Result<Scrape, String> {
    let mut s = Scrape::default();
    for (n, line) in text.lines().enumerate() {
        let ctx = |e: String| format!("line {}: {e}: {line:?}", n + 1);
        if line.trim().is_empty() {
            continue;
        }
        if let Some(c) = line.strip_prefix('#') {
            let mut w = c.trim_start().splitn(3, ' ');
            let ok = match (w.next(), w.next(), w.next()) {
                (Some("HELP"), Some(name), _) => is_name(name) && s.helps.insert(name.to_string()),
                (Some("TYPE"), Some(name), Some(t)) => {
                    let t = t.trim();
                    is_name(name)
                        && matches!(t, "counter" | "gauge" | "histogram" | "summary" | "untyped")
                        && s.types.insert(name.to_string(), t.to_string()).is_none()
                }
                _ => true, // Other comments are allowed.
            };
            if !ok {
                return Err(ctx("bad or repeated HELP or TYPE".into()));
            }
            continue;
        }
        let name_end = line
            .find(['{', ' '])
            .ok_or_else(|| ctx("no value".into()))?;
        let name = &line[..name_end];
        if !is_name(name) {
            return Err(ctx(format!("bad metric name {name:?}")));
        }
        let (labels, rest) = if line[name_end..].starts_with('{') {
            parse_labels(&line[name_end..]).map_err(ctx)?
        } else {
            (BTreeMap::new(), &line[name_end..])
        };
        let mut fields = rest.split_whitespace();
        let value =
            parse_value(fields.next().ok_or_else(|| ctx("no value".into()))?).map_err(ctx)?;
        if let Some(ts) = fields.next() {
            ts.parse::<i64>()
                .map_err(|e| ctx(format!("timestamp: {e}")))?;
        }
        if fields.next().is_some() {
            return Err(ctx("trailing fields".into()));
        }
        let family = family_of(&s, name).to_string();
        let Some(t) = s.types.get(&family) else {
            return Err(ctx(format!("sample of {family} before its TYPE")));
        };
        if t == "counter" && (value.is_nan() || value < 0.0) {
            return Err(ctx("negative counter".into()));
        }
        s.samples.push(Sample {
            name: name.to_string(),
            labels,
            value,
        });
    }
    check_histograms(&s)?;
    Ok(s)
}

/// Buckets are cumulative, end in +Inf, and +Inf equals _count, for every histogram series.
fn check_histograms(s: &Scrape) -> Result<(), String> {
    type Key = (String, BTreeMap<String, String>);
    let mut buckets: BTreeMap<Key, Vec<(f64, f64)>> = BTreeMap::new();
    let mut counts: BTreeMap<Key, f64> = BTreeMap::new();
    for x in &s.samples {
        let fam = family_of(s, &x.name);
        if s.types.get(fam).map(String::as_str) != Some("histogram") {
            continue;
        }
        if x.name.ends_with("_bucket") {
            let mut l = x.labels.clone();
            let le = l
                .remove("le")
                .ok_or(format!("{}: bucket without le", x.name))?;
            buckets
                .entry((fam.to_string(), l))
                .or_default()
                .push((parse_value(&le)?, x.value));
        } else if x.name.ends_with("_count") {
            counts.insert((fam.to_string(), x.labels.clone()), x.value);
        }
    }
    for (k, mut b) in buckets {
        b.sort_by(|x, y| x.0.total_cmp(&y.0));
        if b.windows(2).any(|w| w[1].1 < w[0].1) {
            return Err(format!("{k:?}: buckets not cumulative: {b:?}"));
        }
        let last = b.last().ok_or("empty histogram")?;
        if last.0 != f64::INFINITY || counts.get(&k) != Some(&last.1) {
            return Err(format!(
                "{k:?}: +Inf bucket {last:?} vs count {:?}",
                counts.get(&k)
            ));
        }
    }
    Ok(())
}

impl Scrape {
    /// Sum of the samples named `name` whose labels include `with`.
    fn sum(&self, name: &str, with: &[(&str, &str)]) -> f64 {
        self.samples
            .iter()
            .filter(|x| x.name == name)
            .filter(|x| {
                with.iter()
                    .all(|(k, v)| x.labels.get(*k).map(String::as_str) == Some(*v))
            })
            .map(|x| x.value)
            .sum()
    }

    fn has(&self, name: &str) -> bool {
        self.samples.iter().any(|x| x.name == name)
    }
}

#[test]
fn the_parser_rejects_what_prometheus_would() {
    let ok = "# HELP a_total A.\n# TYPE a_total counter\na_total{x=\"1\\\"\"} 3\n\
              # TYPE h histogram\nh_bucket{le=\"1\"} 1\nh_bucket{le=\"+Inf\"} 2\nh_sum 3\nh_count 2\n";
    let s = parse(ok).unwrap();
    assert_eq!(s.sum("a_total", &[("x", "1\"")]), 3.0);
    for bad in [
        "a_total 1\n",                                              // no TYPE
        "# TYPE a counter\na{x=1} 1\n",                             // unquoted label
        "# TYPE a counter\na -1\n",                                 // negative counter
        "# TYPE a gauge\na 1 2 3\n",                                // trailing field
        "# TYPE h histogram\nh_bucket{le=\"+Inf\"} 2\nh_count 3\n", // +Inf != count
        "# TYPE h histogram\nh_bucket{le=\"1\"} 2\nh_bucket{le=\"+Inf\"} 1\nh_count 1\n",
    ] {
        assert!(parse(bad).is_err(), "{bad:?} should not parse");
    }
}

// ------------------------------------------------------------------------------------------
// The federation under test.

fn repo(path: &str) -> PathBuf {
    common::lab::repo_root().join(path)
}

fn http_get(addr: SocketAddr, path: &str) -> Result<String, String> {
    let mut s =
        TcpStream::connect_timeout(&addr, Duration::from_secs(2)).map_err(|e| e.to_string())?;
    s.set_read_timeout(Some(Duration::from_secs(5)))
        .map_err(|e| e.to_string())?;
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .map_err(|e| e.to_string())?;
    let mut buf = Vec::new();
    s.take(64 << 20)
        .read_to_end(&mut buf)
        .map_err(|e| e.to_string())?;
    let text = String::from_utf8(buf).map_err(|e| e.to_string())?;
    let (head, body) = text.split_once("\r\n\r\n").ok_or("no header end")?;
    if !head.starts_with("HTTP/1.1 200") {
        return Err(format!("{path}: {}", head.lines().next().unwrap_or("")));
    }
    Ok(body.to_string())
}

fn metrics_addr(url: &str) -> SocketAddr {
    url.strip_prefix("http://")
        .and_then(|u| u.strip_suffix("/metrics"))
        .and_then(|a| a.parse().ok())
        .unwrap_or_else(|| panic!("metrics URL {url:?}"))
}

struct Federate {
    probe: Probe,
    metrics: SocketAddr,
}

impl Federate {
    fn scrape(&self) -> Scrape {
        let body = http_get(self.metrics, "/metrics").expect("scrape");
        parse(&body).unwrap_or_else(|e| panic!("[{}] bad exposition: {e}", self.probe.name))
    }
}

/// Two regulating, constrained federates on loopback, both ready.
fn federation(tag: &str) -> (Lab, Federate, Federate) {
    let lab = Lab::Loopback;
    let ports = Ports::unique();
    let fed = format!("{tag}{}", std::process::id());
    let mut fom = Vec::new();
    for f in common::RESTAURANT {
        fom.push("--fom".to_string());
        fom.push(common::fom(f).display().to_string());
    }
    let spawn = |name: &str, extra: &[String]| {
        let mut a = base_args(&lab, 1, &ports, &fed);
        a.extend(args(&[
            "--name",
            name,
            "--time",
            "--metrics-addr",
            "127.0.0.1:0",
        ]));
        a.extend_from_slice(extra);
        let probe = Probe::spawn(&lab, 1, env!("CARGO_BIN_EXE_ops-probe"), &a, name);
        let started = probe.wait_event("started", Duration::from_secs(10));
        let url = started["metrics"]
            .as_str()
            .expect("metrics URL printed")
            .to_string();
        Federate {
            metrics: metrics_addr(&url),
            probe,
        }
    };
    let mut first = fom.clone();
    first.push("--create".into());
    let a = spawn("alpha", &first);
    a.probe.wait_event("joined", Duration::from_secs(15));
    let b = spawn("bravo", &[]);
    a.probe.wait_event("ready", Duration::from_secs(20));
    b.probe.wait_event("ready", Duration::from_secs(20));
    (lab, a, b)
}

const SODA: &str = "HLAobjectRoot.Food.Drink.Soda";
const KIDS: &str = "HLAinteractionRoot.CustomerTransactions.OrderTaken.FromKidsMenu";

#[test]
fn two_federates_are_scraped_and_their_metrics_move() {
    let _g = serial();
    let (_lab, a, b) = federation("opsm");
    a.probe.wait_event("progress", Duration::from_secs(20));
    let (a1, b1) = (a.scrape(), b.scrape());
    // At least 200 more steps of both (they advance in lockstep).
    a.probe.wait_event("progress", Duration::from_secs(20));
    b.probe.wait_event("progress", Duration::from_secs(20));
    let (a2, b2) = (a.scrape(), b.scrape());

    for (who, s) in [("alpha", &a2), ("bravo", &b2)] {
        for f in FAMILIES {
            assert!(s.types.contains_key(*f), "[{who}] family {f} missing");
            assert!(s.helps.contains(*f), "[{who}] family {f} has no help text");
        }
        assert_eq!(s.types[names::REFLECTION_LATENCY], "histogram");
        assert_eq!(s.types[names::TIME_ADVANCE_WAIT], "histogram");
        assert_eq!(s.types[names::UPDATES_SENT], "counter");
        assert_eq!(s.types[names::GALT_LAG], "gauge");
        // No label beyond the bounded ones on the HLA families.
        for x in s
            .samples
            .iter()
            .filter(|x| x.name.starts_with("hlamesh_hla_"))
        {
            for k in x.labels.keys() {
                assert!(
                    matches!(k.as_str(), "federation" | "class" | "le"),
                    "[{who}] {} has label {k}",
                    x.name
                );
            }
        }
        assert_eq!(
            s.sum(names::FEDERATES, &[]),
            2.0,
            "[{who}] federates joined now"
        );
        assert!(s.sum(names::FEDERATES_JOINED, &[]) >= 1.0, "[{who}]");
    }
    let cls = [("class", SODA)];
    let ic = [("class", KIDS)];
    let lat = format!("{}_count", names::REFLECTION_LATENCY);
    let lat_bucket = format!("{}_bucket", names::REFLECTION_LATENCY);
    let wait = format!("{}_count", names::TIME_ADVANCE_WAIT);
    for (who, s1, s2) in [("alpha", &a1, &a2), ("bravo", &b1, &b2)] {
        let grew = |name: &str, with: &[(&str, &str)], by: f64| {
            let (x, y) = (s1.sum(name, with), s2.sum(name, with));
            assert!(
                y >= x + by,
                "[{who}] {name}{with:?} went from {x} to {y}, expected +{by}"
            );
        };
        grew(names::UPDATES_SENT, &cls, 150.0);
        grew(names::UPDATE_BYTES_SENT, &cls, 150.0 * 8.0);
        grew(names::REFLECTIONS, &cls, 150.0);
        grew(names::REFLECTION_BYTES, &cls, 150.0 * 8.0);
        grew(names::INTERACTIONS_SENT, &ic, 15.0);
        grew(names::INTERACTIONS_RECEIVED, &ic, 15.0);
        grew(names::TIME_ADVANCE_GRANTS, &[], 150.0);
        grew(&wait, &[], 150.0);
        grew(names::NULL_MESSAGES_SENT, &[], 1.0);
        grew(names::NULL_MESSAGES_RECEIVED, &[], 1.0);
        // Marks are sampled (one per 10 ms at most): some hundreds of ms of updates give several.
        grew(&lat, &cls, 5.0);
        // Samples land in finite buckets (the 10 µs – 100 ms range covers a loopback hop).
        assert!(
            s2.sum(&lat_bucket, &[("class", SODA), ("le", "0.1")]) > 0.0,
            "[{who}] no latency sample under 100 ms"
        );
        grew(
            "hlamesh_data_messages_sent_total",
            &[("kind", "reliable")],
            150.0,
        );
        let lt = s2.sum(names::LOGICAL_TIME, &[]);
        assert!(lt >= 200.0, "[{who}] logical time {lt}");
    }
}

/// The dashboard's query strings (panel `expr`s, variable queries).
fn dashboard_strings() -> Vec<String> {
    let text = std::fs::read_to_string(repo("deploy/grafana/hlamesh-dashboard.json")).unwrap();
    let json: serde_json::Value = serde_json::from_str(&text).expect("dashboard is JSON");
    let mut strings = Vec::new();
    fn walk(v: &serde_json::Value, key: &str, out: &mut Vec<String>) {
        match v {
            serde_json::Value::String(s) if matches!(key, "expr" | "query" | "definition") => {
                out.push(s.clone())
            }
            serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, key, out)),
            serde_json::Value::Object(o) => o.iter().for_each(|(k, x)| walk(x, k, out)),
            _ => {}
        }
    }
    walk(&json, "", &mut strings);
    strings
}

/// Every `hlamesh_*` name the dashboard queries, as written.
fn dashboard_metrics() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for s in dashboard_strings() {
        let mut rest = s.as_str();
        while let Some(i) = rest.find("hlamesh_") {
            let tail = &rest[i..];
            let end = tail
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .unwrap_or(tail.len());
            names.insert(tail[..end].to_string());
            rest = &tail[end..];
        }
    }
    names
}

#[test]
fn every_metric_the_dashboard_queries_exists_in_a_real_scrape() {
    let wanted = dashboard_metrics();
    // The dashboard shows the HLA level, not only the transport.
    for f in [
        names::REFLECTION_LATENCY,
        names::TIME_ADVANCE_GRANTS,
        names::UPDATES_SENT,
        names::REFLECTIONS,
    ] {
        assert!(
            wanted.iter().any(|w| w.starts_with(f)),
            "the dashboard does not query {f}"
        );
    }
    let _g = serial();
    let (_lab, a, b) = federation("opsd");
    a.probe.wait_event("progress", Duration::from_secs(20));
    let (sa, sb) = (a.scrape(), b.scrape());
    let missing: Vec<&String> = wanted.iter().filter(|w| !sa.has(w) && !sb.has(w)).collect();
    assert!(
        missing.is_empty(),
        "queried by the dashboard but not exported: {missing:?}"
    );
}

// ------------------------------------------------------------------------------------------
// A real Prometheus server.

struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free port")
}

/// The shipped configuration, made fit for a test: 1 s scrapes, targets from our own file.
fn test_config(dir: &std::path::Path, targets: &[SocketAddr]) -> PathBuf {
    let shipped = std::fs::read_to_string(repo("deploy/prometheus/prometheus.yml")).unwrap();
    let mut cfg = shipped.clone();
    for (from, to) in [
        ("scrape_interval: 5s", "scrape_interval: 1s"),
        ("scrape_timeout: 4s", "scrape_timeout: 1s"),
        ("evaluation_interval: 5s", "evaluation_interval: 1s"),
        ("- targets/*.json", "- test-targets/*.json"),
    ] {
        assert!(
            cfg.contains(from),
            "deploy/prometheus/prometheus.yml no longer has {from:?}"
        );
        cfg = cfg.replace(from, to);
    }
    std::fs::create_dir_all(dir.join("test-targets")).unwrap();
    let list: Vec<String> = targets.iter().map(ToString::to_string).collect();
    let sd =
        serde_json::json!([{"targets": list, "labels": {"host": "test", "role": "simulator"}}]);
    std::fs::write(dir.join("test-targets/test.json"), sd.to_string()).unwrap();
    let path = dir.join("prometheus.yml");
    std::fs::write(&path, cfg).unwrap();
    path
}

/// The `prometheus` binary, or `None` (with a SKIP note naming `test`).
fn prometheus_binary(test: &str) -> Option<&'static str> {
    let bin = ["prometheus", "/usr/bin/prometheus"].into_iter().find(|b| {
        Command::new(b)
            .arg("--version")
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if bin.is_none() {
        assert!(
            std::env::var_os("HLAMESH_REQUIRE_TOOLS").is_none(),
            "{test}: prometheus is required (HLAMESH_REQUIRE_TOOLS is set) but does not run"
        );
        eprintln!(
            "SKIP {test}: no `prometheus` binary (Debian package `prometheus`; .ci/run installs it)"
        );
    }
    bin
}

#[test]
fn a_real_prometheus_scrapes_the_federation_with_the_shipped_config() {
    let Some(bin) =
        prometheus_binary("a_real_prometheus_scrapes_the_federation_with_the_shipped_config")
    else {
        return;
    };
    let _g = serial();
    let (_lab, a, b) = federation("opsp");
    let counts = prometheus_latency_series(bin, "opsp", &[a.metrics, b.metrics]);
    let instances: BTreeSet<String> = counts
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["metric"]["instance"].as_str().unwrap_or("").to_string())
        .collect();
    assert!(
        instances.contains(&a.metrics.to_string()) || instances.contains(&b.metrics.to_string()),
        "series from {instances:?}"
    );
    // Latency is sampled (one message per 10 ms) over reflections and interactions alike: a
    // sample may land on the interaction sent every tenth step, as one CI run showed.
    let series = counts.as_array().unwrap();
    assert!(
        series
            .iter()
            .all(|s| s["metric"]["class"] == SODA || s["metric"]["class"] == KIDS),
        "{counts}"
    );
    assert!(
        series.iter().any(|s| s["metric"]["class"] == SODA),
        "{counts}"
    );
}

/// Starts Prometheus from the shipped configuration pointed at `targets` and returns the
/// reflection-latency count series its query API serves, once it also gives a finite p99.
fn prometheus_latency_series(bin: &str, tag: &str, targets: &[SocketAddr]) -> serde_json::Value {
    let dir = std::env::temp_dir().join(format!("hlamesh-prom-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let config = test_config(&dir, targets);
    let web = SocketAddr::from(([127, 0, 0, 1], free_port()));
    let check = Command::new("promtool")
        .args(["check", "config"])
        .arg(&config)
        .output();
    if let Ok(o) = check {
        assert!(
            o.status.success(),
            "promtool: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let _server = Server(
        Command::new(bin)
            .arg(format!("--config.file={}", config.display()))
            .arg(format!(
                "--storage.tsdb.path={}",
                dir.join("data").display()
            ))
            .arg(format!("--web.listen-address={web}"))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start prometheus"),
    );
    let query = |q: &str| -> Option<serde_json::Value> {
        let mut enc = String::new();
        for b in q.bytes() {
            if b.is_ascii_alphanumeric() || b"_.-".contains(&b) {
                enc.push(b as char);
            } else {
                enc.push_str(&format!("%{b:02X}"));
            }
        }
        let body = http_get(web, &format!("/api/v1/query?query={enc}")).ok()?;
        let v: serde_json::Value = serde_json::from_str(&body).ok()?;
        (v["status"] == "success").then(|| v["data"]["result"].clone())
    };
    let latency = format!("{}_count", names::REFLECTION_LATENCY);
    let p99 = format!(
        "histogram_quantile(0.99, sum by (le) (rate({}_bucket[5s])))",
        names::REFLECTION_LATENCY
    );
    let deadline = Instant::now() + Duration::from_secs(40);
    let (mut counts, mut quantile) = (None, None);
    while Instant::now() < deadline && (counts.is_none() || quantile.is_none()) {
        if counts.is_none()
            && let Some(r) = query(&latency)
            && r.as_array().is_some_and(|a| {
                a.iter()
                    .any(|s| s["value"][1].as_str().and_then(|v| v.parse::<f64>().ok()) > Some(0.0))
            })
        {
            counts = Some(r);
        }
        if counts.is_some()
            && let Some(r) = query(&p99)
            && r.as_array().is_some_and(|a| {
                a.iter().any(|s| {
                    s["value"][1]
                        .as_str()
                        .and_then(|v| v.parse::<f64>().ok())
                        .is_some_and(|v| v.is_finite() && v > 0.0)
                })
            })
        {
            quantile = Some(r);
        }
        // Polling the server's HTTP API: there is no event to wait for.
        std::thread::sleep(Duration::from_millis(500));
    }
    let _ = std::fs::remove_dir_all(&dir);
    let counts = counts.expect("Prometheus returned no reflection-latency samples within 40 s");
    quantile.expect("histogram_quantile over the latency buckets gave no finite value");
    counts
}

/// The example federation's `demo`, built beside this test binary by `cargo test --workspace`.
fn demo_binary() -> Option<PathBuf> {
    let exe = std::env::current_exe().ok()?;
    let p = exe.parent()?.parent()?.join("demo");
    p.exists().then_some(p)
}

/// A running demo. On drop it is given time to end its run (it stops its federates itself);
/// only if it does not is it killed.
struct Demo(Child);

impl Drop for Demo {
    fn drop(&mut self) {
        let end = Instant::now() + Duration::from_secs(60);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.0.try_wait() {
                return;
            }
            // Polling a child's exit: there is no portable event to wait on with a timeout.
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Issue 8's tests 3 and 4 on the demo itself: while it runs, `hlamesh status --json` lists its
/// federation and every federate, and a real Prometheus started from the shipped configuration
/// scrapes every federate's `/metrics` and serves reflection-latency samples.
#[test]
fn the_running_demo_is_listed_by_status_and_scraped_by_prometheus() {
    let test = "the_running_demo_is_listed_by_status_and_scraped_by_prometheus";
    let Some(bin) = prometheus_binary(test) else {
        return;
    };
    let Some(demo) = demo_binary() else {
        eprintln!("SKIP {test}: the demo is not built (cargo test --workspace builds it)");
        return;
    };
    let _g = serial();
    let mut child = Command::new(demo)
        .args(["--duration", "12"])
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .expect("start the demo");
    let stdout = child.stdout.take().unwrap();
    let _demo = Demo(child);
    // The demo prints one "NAME: metrics at http://ADDR/metrics" line per federate, the viewer
    // last; the rest of its output is drained so it never blocks on a full pipe.
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            let _ = tx.send(line);
        }
    });
    let mut targets: HashMap<String, SocketAddr> = HashMap::new();
    let mut federation = String::new();
    while !targets.contains_key("viewer") {
        let line = rx
            .recv_timeout(Duration::from_secs(20))
            .expect("the demo printed its metrics URLs");
        if let Some(rest) = line.strip_prefix("hlamesh demo: federation ") {
            federation = rest.split(':').next().unwrap_or_default().to_string();
        }
        if let Some((name, url)) = line.trim().split_once(": metrics at ") {
            targets.insert(name.to_string(), metrics_addr(url));
        }
    }
    assert!(!federation.is_empty(), "the demo names its federation");

    // `hlamesh status --json` as another process on this machine (the demo's defaults).
    let mut listed = BTreeSet::new();
    let end = Instant::now() + Duration::from_secs(30);
    while listed.len() < targets.len() && Instant::now() < end {
        let out = Command::new(common::hlamesh())
            .args(["status", "--json", "--listen-ms", "2000"])
            .output()
            .expect("run hlamesh status");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
        listed = report["federations"]
            .as_array()
            .into_iter()
            .flatten()
            .filter(|f| f["name"] == federation.as_str())
            .flat_map(|f| f["members"].as_array().cloned().unwrap_or_default())
            .filter_map(|m| m["name"].as_str().map(str::to_string))
            .collect();
    }
    let expected: BTreeSet<String> = targets.keys().cloned().collect();
    assert_eq!(
        listed, expected,
        "members of {federation} listed by hlamesh status"
    );
    let list: Vec<SocketAddr> = targets.values().copied().collect();
    let counts = prometheus_latency_series(bin, "demo", &list);
    // The run must also end well: its last line is the summary's verdict.
    let verdict = loop {
        match rx.recv_timeout(Duration::from_secs(60)) {
            Ok(l) if l.starts_with("RESULT") => break l,
            Ok(_) => {}
            Err(_) => panic!("the demo printed no RESULT line"),
        }
    };
    assert!(verdict.contains("all_end=true"), "{verdict}");
    // The viewer reflects every vehicle: its latency series come from the demo's own classes.
    let viewer = targets["viewer"].to_string();
    assert!(
        counts
            .as_array()
            .unwrap()
            .iter()
            .any(|s| s["metric"]["instance"] == viewer.as_str()
                && s["metric"]["class"]
                    .as_str()
                    .is_some_and(|c| c.starts_with("HLAobjectRoot.Vehicle"))),
        "{counts}"
    );
}
