//! Each subcommand, in a tiny configuration on loopback (`--local`, the bench spawning itself as
//! the peers), produces a JSON report with every figure present and plausible, and its plot as
//! SVG and as a PNG that decodes.

use std::path::PathBuf;
use std::process::Command;

use serde_json::Value;
use wait_timeout::ChildExt;

/// Far above any tiny run here (the slowest, with the C++ SDK install, takes about a minute).
const RUN_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

static SERIAL: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// `--timeout-s` bounds each wait inside the bench; this bounds the whole process, so that a
/// deadlock (as a metrics scrape once had) fails the test instead of hanging the suite.
fn wait_bounded(child: &mut std::process::Child, args: &[&str]) -> std::process::ExitStatus {
    match child
        .wait_timeout(RUN_LIMIT)
        .expect("wait for hlamesh-bench")
    {
        Some(s) => s,
        None => {
            let _ = child.kill();
            let _ = child.wait();
            panic!("hlamesh-bench {args:?} still running after {RUN_LIMIT:?}: hung");
        }
    }
}

fn run(args: &[&str], name: &str) -> (Value, String) {
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{}", std::process::id()));
    let out = dir.join(format!("{name}.json"));
    let mut child = Command::new(env!("CARGO_BIN_EXE_hlamesh-bench"))
        .args(args)
        .args(["--local", "--timeout-s", "120", "--out"])
        .arg(&out)
        .spawn()
        .expect("run hlamesh-bench");
    let status = wait_bounded(&mut child, args);
    assert!(status.success(), "hlamesh-bench {args:?} failed");
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("json written")).expect("json");
    let svg = std::fs::read_to_string(out.with_extension("svg")).expect("svg written");
    png_is_valid(&out.with_extension("png"));
    (json, svg)
}

/// The PNG has the signature, decodes, and is the SVG's 760 × 440 at 2× with more than one
/// colour (something was drawn on the white background).
fn png_is_valid(path: &std::path::Path) {
    let bytes = std::fs::read(path).expect("png written");
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "not a PNG: {}",
        path.display()
    );
    let mut reader = png::Decoder::new(std::io::Cursor::new(&bytes))
        .read_info()
        .expect("PNG header decodes");
    let mut buf = vec![0; reader.output_buffer_size().expect("buffer size")];
    let frame = reader.next_frame(&mut buf).expect("PNG image decodes");
    assert_eq!((frame.width, frame.height), (1520, 880));
    let px = frame.line_size / frame.width as usize;
    let data = &buf[..frame.buffer_size()];
    let first = &data[..px];
    let other = data.chunks(px).filter(|p| *p != first).count();
    // Text, axes, bars or lines cover a few percent of the picture at least.
    assert!(
        other > data.len() / px / 100,
        "PNG is almost blank: {other} non-background pixels"
    );
}

fn num(v: &Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} missing or not a number in {v}"))
}

fn machine_is_described(j: &Value) {
    let m = &j["machine"];
    assert!(num(m, "cores") >= 1.0);
    for k in ["cpu_model", "kernel", "hostname", "loadavg"] {
        assert!(!m[k].as_str().expect(k).is_empty(), "machine.{k} empty");
    }
    assert!(
        j["command"]
            .as_str()
            .expect("command")
            .contains("hlamesh-bench")
    );
    assert!(num(j, "duration_s") > 0.0);
}

fn latency_is_plausible(l: &Value, samples: f64) {
    assert_eq!(num(l, "samples"), samples);
    let order = ["min_us", "p50_us", "p90_us", "p99_us", "p999_us", "max_us"];
    let vals: Vec<f64> = order.iter().map(|k| num(l, k)).collect();
    assert!(vals[0] > 0.0, "zero latency: {l}");
    assert!(
        vals.windows(2).all(|w| w[0] <= w[1]),
        "percentiles out of order: {l}"
    );
    // A loopback round trip is above 1 µs and, in a tiny run, below a second.
    assert!(vals[1] > 1.0 && vals[1] < 1e6, "implausible median: {l}");
    let cdf = l["cdf"].as_array().expect("cdf");
    assert!(cdf.len() > 100);
}

#[test]
fn latency_tiny_local_run_reports_every_figure() {
    let (j, svg) = run(
        &[
            "latency",
            "--samples",
            "300",
            "--block",
            "100",
            "--warmup",
            "50",
            "--sizes",
            "100,1024",
        ],
        "latency",
    );
    assert_eq!(j["subcommand"], "latency");
    assert_eq!(j["options"]["level"], "rti", "the RTI level is the default");
    // Unpinned by default: the placement every user gets (pinning is `--pin split|shared`).
    assert_eq!(j["options"]["pin"], "free");
    let cpus = &j["cpus"];
    assert_eq!(cpus["pinning"], "free", "{cpus}");
    assert!(
        cpus["driver_cpu"].is_null() && cpus["peer_cpu"].is_null(),
        "{cpus}"
    );
    machine_is_described(&j);
    let results = j["results"].as_array().expect("results");
    // 2 sizes × (reliable, best-effort).
    assert_eq!(results.len(), 4);
    for r in results {
        latency_is_plausible(&r["hlamesh"], 300.0);
        latency_is_plausible(&r["baseline"], 300.0);
        let ratio = num(r, "ratio_p50");
        let expect = num(&r["hlamesh"], "p50_us") / num(&r["baseline"], "p50_us");
        assert!(
            (ratio - expect).abs() < 1e-9 * expect.max(1.0),
            "ratio {ratio} vs {expect}"
        );
        assert!(num(r, "ratio_p99") > 0.0);
        // Ping-pong is never batched: at least one datagram per ping (more when fragmented).
        assert!(
            num(r, "hlamesh_datagrams_per_message") >= 1.0,
            "ping-pong was batched: {r}"
        );
        assert!(r["reliability"] == "reliable" || r["reliability"] == "best-effort");
        // One-way latencies from the clock-offset estimate: each direction is shorter than the
        // round trip (within the estimate's error bound), and the bound is a real number.
        for (ow, rtt) in [
            (&r["one_way"], &r["hlamesh"]),
            (&r["baseline_one_way"], &r["baseline"]),
        ] {
            let bound = num(ow, "error_bound_us");
            assert!((0.0..1e6).contains(&bound), "{ow}");
            assert!(num(ow, "offset_us").is_finite());
            assert_eq!(num(ow, "probes"), 300.0);
            for dir in ["forward", "reverse"] {
                let p50 = num(&ow[dir], "p50_us");
                assert!(
                    p50 > 0.0 && p50 <= num(rtt, "p50_us") + bound,
                    "{dir}: {ow}"
                );
            }
        }
    }
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    assert!(
        svg.matches("<polyline").count() == 8,
        "one CDF line per path and configuration"
    );
}

#[test]
fn throughput_tiny_local_run_reports_every_figure() {
    let (j, svg) = run(
        &[
            "throughput",
            "--level",
            "transport",
            // Large enough that the partly filled datagrams at a block's end and the flushes of
            // a descheduled sender on a loaded machine do not dominate messages/datagram.
            "--messages",
            "20000",
            "--blocks",
            "2",
            "--fanout",
            "1,2",
            "--fanin",
            "2",
            "--pin",
            "split",
        ],
        "throughput",
    );
    assert_eq!(j["subcommand"], "throughput");
    assert_eq!(j["options"]["level"], "transport");
    machine_is_described(&j);
    let results = j["results"].as_array().expect("results");
    // fanouts 1, 2 × batching on, off.
    assert_eq!(results.len(), 4);
    for r in results {
        // Pinned split as asked: the driver and each receiver on a CPU, round robin.
        let cpus = r["cpus"].as_array().expect("cpus");
        assert_eq!(cpus.len() as f64, num(r, "fanout") + 1.0, "{r}");
        assert!(cpus.iter().all(Value::is_u64), "{r}");
        let (h, b) = (&r["hlamesh"], &r["baseline"]);
        for p in [h, b] {
            assert!(num(p, "msgs_per_s") > 0.0, "no rate: {p}");
            assert!(num(p, "sender_msgs_per_s") > 0.0);
            assert!(num(p, "mb_per_s") > 0.0);
            // Local peers: both ends' CPU is read, and sending or receiving costs some.
            assert!(num(p, "sender_cpu_us_per_msg") > 0.0, "no sender CPU: {p}");
            assert!(
                num(p, "receiver_cpu_us_per_msg") > 0.0,
                "no receiver CPU: {p}"
            );
            assert_eq!(p["per_block"].as_array().expect("per_block").len(), 2);
            let frac = num(p, "delivered_fraction_min");
            assert!((0.0..=1.0).contains(&frac));
        }
        // Reliable: every message reaches every receiver.
        assert_eq!(num(h, "lost_messages"), 0.0, "reliable messages lost: {h}");
        assert_eq!(num(h, "delivered_fraction_min"), 1.0);
        assert_eq!(num(h, "fell_behind_messages"), 0.0);
        let ratio = num(r, "ratio");
        let expect = num(h, "msgs_per_s") / num(b, "msgs_per_s");
        assert!((ratio - expect).abs() < 1e-9 * expect.max(1.0));
        // The raw path is one datagram per message; hlamesh packs only with batching on.
        assert_eq!(num(b, "messages_per_datagram"), 1.0);
        if r["batching"] == true {
            assert!(
                num(h, "messages_per_datagram") > 2.0,
                "batching did not pack: {h}"
            );
        } else {
            assert_eq!(num(h, "messages_per_datagram"), 1.0);
        }
    }
    // N→1: 2 senders × batching on, off.
    let fanin = j["fanin_results"].as_array().expect("fanin_results");
    assert_eq!(fanin.len(), 2);
    for r in fanin {
        fanin_is_plausible(r, 2, 20_000, 2);
        let h = &r["hlamesh"];
        if r["batching"] == true {
            assert!(
                num(h, "messages_per_datagram") > 2.0,
                "senders did not batch: {h}"
            );
        } else {
            assert_eq!(num(h, "messages_per_datagram"), 1.0);
        }
    }
    assert!(svg.starts_with("<svg") && svg.trim_end().ends_with("</svg>"));
    // One bar per path and configuration: 4 fan-out and 2 fan-in configurations.
    assert!(svg.matches("<rect").count() >= 12, "bars missing");
    assert!(svg.contains("2→1"), "fan-in groups missing from the plot");
}

/// One N→1 result: aggregate and per-sender figures present, the raw baseline measured by the
/// same senders (one datagram per message), the ratio computed, and no reliable loss.
fn fanin_is_plausible(r: &Value, senders: usize, messages: u64, blocks: u64) {
    assert_eq!(num(r, "senders"), senders as f64);
    let cpus = r["cpus"].as_array().expect("cpus");
    assert_eq!(cpus.len(), senders + 1, "{r}");
    let (h, b) = (&r["hlamesh"], &r["baseline"]);
    for p in [h, b] {
        assert!(num(p, "msgs_per_s") > 0.0, "no aggregate rate: {p}");
        assert!(num(p, "mb_per_s") > 0.0 && num(p, "sender_msgs_per_s") > 0.0);
        assert_eq!(
            p["per_block"].as_array().expect("per_block").len() as u64,
            blocks
        );
        let per = p["per_sender"].as_array().expect("per_sender");
        assert_eq!(per.len(), senders, "{p}");
        let got: f64 = per.iter().map(|s| num(s, "received")).sum();
        assert!(got > 0.0);
        assert_eq!(
            num(p, "lost_messages"),
            (senders as u64 * messages * blocks) as f64 - got
        );
        let mut shares = 0.0;
        for (k, s) in per.iter().enumerate() {
            assert_eq!(num(s, "sender"), k as f64);
            assert_eq!(num(s, "sent"), (messages * blocks) as f64);
            assert!(num(s, "received") > 0.0, "nothing from sender {k}: {p}");
            assert!(num(s, "msgs_per_s") > 0.0);
            shares += num(s, "share");
        }
        assert!((shares - 1.0).abs() < 1e-9, "shares add up to {shares}");
        let (lo, hi) = (num(p, "share_min"), num(p, "share_max"));
        assert!(
            0.0 < lo && lo <= 1.0 / senders as f64 + 1e-9 && hi >= lo,
            "{p}"
        );
        let fair = num(p, "rate_fairness");
        assert!(fair > 0.0 && fair <= 1.0, "{p}");
    }
    assert_eq!(
        num(b, "messages_per_datagram"),
        1.0,
        "raw baseline not sent by the senders: {b}"
    );
    let expect = num(h, "msgs_per_s") / num(b, "msgs_per_s");
    assert!((num(r, "ratio") - expect).abs() < 1e-9 * expect.max(1.0));
    if r["reliability"] == "reliable" {
        assert_eq!(num(h, "lost_messages"), 0.0, "reliable fan-in lost: {h}");
        assert_eq!(num(h, "delivered_fraction_min"), 1.0);
        assert_eq!(num(h, "fell_behind_messages"), 0.0);
        assert!((num(h, "share_min") - 1.0 / senders as f64).abs() < 1e-9);
    }
}

#[test]
fn latency_transport_level_tiny_local_run() {
    let (j, _svg) = run(
        &[
            "latency",
            "--level",
            "transport",
            "--samples",
            "200",
            "--block",
            "100",
            "--warmup",
            "20",
            "--sizes",
            "100",
            "--reliability",
            "reliable",
            "--pin",
            "shared",
        ],
        "latency-transport",
    );
    assert_eq!(j["options"]["level"], "transport");
    assert_eq!(j["cpus"]["pinning"], "shared");
    assert!(j["cpus"]["driver_cpu"].is_u64());
    assert_eq!(j["cpus"]["driver_cpu"], j["cpus"]["peer_cpu"]);
    let r = &j["results"][0];
    latency_is_plausible(&r["hlamesh"], 200.0);
    latency_is_plausible(&r["baseline"], 200.0);
    assert!(
        r["delivery"]
            .as_str()
            .expect("delivery")
            .contains("transport")
    );
}

#[test]
fn throughput_rti_level_tiny_local_run_loses_nothing_reliable() {
    let (j, svg) = run(
        &[
            "throughput",
            "--messages",
            "3000",
            "--blocks",
            "2",
            "--fanout",
            "1",
            "--fanin",
            "2",
            "--reliability",
            "reliable,best-effort",
        ],
        "throughput-rti",
    );
    assert_eq!(j["options"]["level"], "rti");
    let results = j["results"].as_array().expect("results");
    // The RTI level has no batching switch: one configuration per reliability.
    assert_eq!(results.len(), 2);
    for r in results {
        let (h, b) = (&r["hlamesh"], &r["baseline"]);
        assert!(num(h, "msgs_per_s") > 0.0 && num(b, "msgs_per_s") > 0.0);
        let expect = num(h, "msgs_per_s") / num(b, "msgs_per_s");
        assert!((num(r, "ratio") - expect).abs() < 1e-9 * expect.max(1.0));
        // Counters come from the process's metrics: datagrams were counted.
        assert!(num(h, "datagrams_out") > 0.0, "no datagram count: {h}");
        if r["reliability"] == "reliable" {
            assert_eq!(num(h, "lost_messages"), 0.0, "reliable updates lost: {h}");
        }
    }
    // N→1 through the RTI API: 2 sender federates updating, the driver reflecting.
    let fanin = j["fanin_results"].as_array().expect("fanin_results");
    assert_eq!(fanin.len(), 2);
    for r in fanin {
        fanin_is_plausible(r, 2, 3000, 2);
        assert!(num(&r["hlamesh"], "datagrams_out") > 0.0);
    }
    assert!(svg.matches("<rect").count() >= 8, "bars missing");
}

#[test]
fn time_tiny_local_run_reports_grants_and_null_messages() {
    let (j, svg) = run(
        &[
            "time",
            "--federates",
            "2,3",
            "--steps",
            "100",
            "--ner-events",
            "15",
            "--blocks",
            "2",
            "--pin",
            "split",
        ],
        "time",
    );
    // Evoked is the default: the federates' main threads take their grants in evoke_callback.
    assert_eq!(j["options"]["callbacks"], "evoked");
    assert_eq!(j["subcommand"], "time");
    machine_is_described(&j);
    assert!(!j["null_message_note"].as_str().expect("note").is_empty());
    let results = j["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for (r, n) in results.iter().zip([2.0, 3.0]) {
        assert_eq!(num(r, "federates"), n);
        assert_eq!(r["join_ms"].as_array().expect("join_ms").len(), n as usize);
        // Pinned split as asked: federate k on the k-th CPU, the late joiner last (each
        // reported exactly its CPU, or the run would have failed).
        let cpus = r["federate_cpus"].as_array().expect("federate_cpus");
        assert_eq!(cpus.len(), n as usize + 1, "{r}");
        assert!(cpus.iter().all(Value::is_u64), "{r}");
        if r["pinning"] == "split" {
            assert_ne!(cpus[0], cpus[1], "{r}");
        } else {
            assert_eq!(r["pinning"], "shared", "{r}");
        }
        let late = num(r, "late_join_ms");
        assert!(
            late > 0.0 && late <= num(r, "late_join_spawn_to_joined_ms"),
            "late join {late} ms: {r}"
        );
        let phases = r["phases"].as_array().expect("phases");
        let names: Vec<&str> = phases
            .iter()
            .map(|p| p["phase"].as_str().expect("phase"))
            .collect();
        assert_eq!(
            names,
            [
                "raw-barrier",
                "transport-barrier",
                "tar",
                "tar-update",
                "ner",
                "tar-callback"
            ]
        );
        let raw = num(&phases[0], "grants_per_s");
        assert!(raw > 0.0, "raw baseline not measured");
        for p in phases {
            let per_fed = p["grants_per_s_per_federate"]
                .as_array()
                .expect("per federate");
            assert_eq!(per_fed.len(), n as usize);
            let med = num(p, "grants_per_s");
            assert!(med > 0.0 && num(p, "grants_per_s_min") <= med, "{p}");
            let expect = if p["phase"] == "raw-barrier" {
                1.0
            } else {
                med / raw
            };
            assert!((num(p, "ratio_to_raw") - expect).abs() < 1e-9 * expect.max(1.0));
            assert!(
                p["violations"].as_array().expect("violations").is_empty(),
                "{p}"
            );
            assert_eq!(
                p["null_msgs_per_grant_per_block"]
                    .as_array()
                    .expect("per block")
                    .len(),
                2
            );
        }
        // Where a grant's time goes: the LRC's threads show up per thread name.
        let threads = phases[2]["per_thread_per_grant"]
            .as_object()
            .expect("per thread");
        assert!(threads.contains_key("hlamesh-data"), "{threads:?}");
        assert!(num(&phases[2], "cpu_us_per_grant") > 0.0);
        assert!(num(&phases[2], "ctx_switches_per_grant") > 0.0);
        // Lockstep needs at least one time message per grant; one multicast reaches every
        // other LRC, so it is not N − 1…
        let nulls = num(&phases[2], "null_msgs_per_grant");
        assert!((1.0..n).contains(&nulls), "{}", phases[2]);
        // …and with one update per step each federate reflects every other's.
        assert_eq!(num(&phases[3], "reflects_per_grant"), n - 1.0);
        // NER: every event is a grant for everyone; the others' events are reflections.
        let ner_reflects = num(&phases[4], "reflects_per_grant");
        assert!((ner_reflects - (n - 1.0) / n).abs() < 0.05, "{}", phases[4]);
        // TAR chained from inside the grant callback: the same one time message per grant.
        let chained = num(&phases[5], "null_msgs_per_grant");
        assert!((1.0..n).contains(&chained), "{}", phases[5]);
        assert!(num(&phases[5], "grants_per_s") > 0.0);
    }
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() >= 10);
}

#[test]
fn time_with_immediate_callbacks_runs_every_phase_without_violations() {
    let (j, _svg) = run(
        &[
            "time",
            "--federates",
            "2",
            "--steps",
            "100",
            "--ner-events",
            "15",
            "--blocks",
            "1",
            "--callbacks",
            "immediate",
            "--pin",
            "free",
        ],
        "time",
    );
    assert_eq!(j["options"]["callbacks"], "immediate");
    let results = j["results"].as_array().expect("results");
    assert_eq!(results.len(), 1);
    assert_eq!(results[0]["pinning"], "free");
    let cpus = results[0]["federate_cpus"].as_array().expect("cpus");
    assert!(
        cpus.len() == 3 && cpus.iter().all(Value::is_null),
        "{cpus:?}"
    );
    let phases = results[0]["phases"].as_array().expect("phases");
    assert_eq!(phases.len(), 6);
    for p in phases {
        assert!(num(p, "grants_per_s") > 0.0, "{p}");
        assert!(
            p["violations"].as_array().expect("violations").is_empty(),
            "{p}"
        );
    }
}

#[test]
fn scale_tiny_local_run_reports_latency_and_cpu_per_node_count() {
    let (j, svg) = run(
        &[
            "scale",
            "--nodes",
            "2,3",
            "--samples",
            "200",
            "--block",
            "100",
            "--warmup",
            "20",
            "--pin",
            "split",
        ],
        "scale",
    );
    assert_eq!(j["subcommand"], "scale");
    assert_eq!(j["options"]["level"], "rti");
    machine_is_described(&j);
    let results = j["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for (r, n) in results.iter().zip([2.0, 3.0]) {
        assert_eq!(num(r, "nodes"), n);
        // Pinned split as asked: the driver and every peer on a CPU, round robin.
        let cpus = r["cpus"].as_array().expect("cpus");
        assert_eq!(cpus.len(), n as usize, "{r}");
        assert!(cpus.iter().all(Value::is_u64), "{r}");
        if r["pinning"] == "split" {
            assert_ne!(cpus[0], cpus[1], "{r}");
        }
        latency_is_plausible(&r["hlamesh"], 200.0);
        latency_is_plausible(&r["baseline"], 200.0);
        let expect = num(&r["hlamesh"], "p50_us") / num(&r["baseline"], "p50_us");
        assert!((num(r, "ratio_p50") - expect).abs() < 1e-9 * expect.max(1.0));
        for c in [&r["hlamesh_cpu"], &r["baseline_cpu"]] {
            // Every node does work for every round trip: nonzero CPU, at most a few ms.
            for k in ["driver_us_per_roundtrip", "peer_us_per_roundtrip"] {
                let v = num(c, k);
                assert!(v > 0.0 && v < 5_000.0, "{k} = {v}: {c}");
            }
            assert!(num(c, "peer_us_per_roundtrip_max") >= num(c, "peer_us_per_roundtrip"));
            assert!(num(c, "ctx_switches_per_roundtrip") > 0.0);
        }
    }
    assert!(svg.starts_with("<svg") && svg.matches("<rect").count() >= 8);
}

/// `--peer` mode end to end, with the "other machine" being a `serve` process on loopback.
#[test]
fn peer_mode_runs_latency_through_a_serve_process() {
    use std::io::BufRead;
    struct Kill(std::process::Child);
    impl Drop for Kill {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
    let _g = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let port = 20_000 + (std::process::id() % 20_000) as u16;
    let listen = format!("127.0.0.1:{port}");
    let mut serve = Kill(
        Command::new(env!("CARGO_BIN_EXE_hlamesh-bench"))
            .args(["serve", "--listen", &listen, "--interface", "127.0.0.1"])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start serve"),
    );
    let mut err = std::io::BufReader::new(serve.0.stderr.take().expect("stderr"));
    let mut line = String::new();
    err.read_line(&mut line).expect("serve says it listens");
    assert!(line.contains("listening"), "{line}");
    // Keep draining serve's stderr so it never blocks on a full pipe.
    std::thread::spawn(move || for _ in err.lines() {});
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{}", std::process::id()));
    let out = dir.join("peer-latency.json");
    let args = [
        "latency",
        "--peer",
        &listen,
        "--interface",
        "127.0.0.1",
        "--samples",
        "200",
        "--block",
        "100",
        "--warmup",
        "20",
        "--sizes",
        "100",
        "--reliability",
        "reliable",
        "--timeout-s",
        "60",
        "--out",
    ];
    let mut driver = Command::new(env!("CARGO_BIN_EXE_hlamesh-bench"))
        .args(args)
        .arg(&out)
        .spawn()
        .expect("run the driver");
    assert!(wait_bounded(&mut driver, &args).success());
    let j: Value =
        serde_json::from_str(&std::fs::read_to_string(&out).expect("json")).expect("json");
    assert!(
        j["placement"]
            .as_str()
            .expect("placement")
            .contains("serve")
    );
    // A peer on another machine is never pinned.
    assert_eq!(j["cpus"]["pinning"], "free");
    assert!(j["cpus"]["peer_cpu"].is_null());
    latency_is_plausible(&j["results"][0]["hlamesh"], 200.0);
    latency_is_plausible(&j["results"][0]["baseline"], 200.0);
}

/// Processes running `exe` (read from /proc; a process gone meanwhile is skipped).
fn running(exe: &std::path::Path) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| std::fs::read_link(format!("/proc/{pid}/exe")).is_ok_and(|p| p == exe))
        .collect()
}

/// `--api rust,cpp`: the bench installs the C++ SDK next to its output (deploy/install-sdk.sh),
/// builds benches/cpp/bench_fed.cpp against it, and each subcommand measures both APIs in one
/// run with every block complete; no C++ federate outlives its run.
#[test]
fn api_cpp_tiny_local_runs_measure_both_apis() {
    let dir =
        PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("bench-{}", std::process::id()));
    let (lat, _) = run(
        &[
            "latency",
            "--api",
            "rust,cpp",
            "--sizes",
            "100,1024",
            "--samples",
            "40",
            "--block",
            "20",
            "--warmup",
            "10",
        ],
        "latency-api",
    );
    machine_is_described(&lat["run"]);
    assert!(
        num(&lat["run"], "sdk_install_s") > 0.0,
        "the SDK was installed"
    );
    let sdk = dir.join("cpp-sdk/sdk");
    assert!(sdk.join("lib/pkgconfig/rti1516e.pc").is_file());
    let exe = dir.join("cpp-sdk/bench_fed");
    assert!(exe.is_file(), "bench_fed built");
    let results = lat["results"].as_array().expect("results");
    assert_eq!(results.len(), 2);
    for r in results {
        assert_eq!(num(r, "lost_blocks"), 0.0);
        latency_is_plausible(&r["rust"], 40.0);
        latency_is_plausible(&r["cpp"], 40.0);
        assert!(num(r, "ratio_p50") > 0.0 && num(r, "ratio_p99") > 0.0);
    }
    assert!(running(&exe).is_empty(), "C++ federates left behind");

    let sdk_arg = sdk.display().to_string();
    let (thr, _) = run(
        &[
            "throughput",
            "--api",
            "rust,cpp",
            "--sdk",
            &sdk_arg,
            "--messages",
            "2000",
            "--blocks",
            "1",
        ],
        "throughput-api",
    );
    assert_eq!(
        num(&thr["run"], "sdk_install_s"),
        0.0,
        "--sdk installs nothing"
    );
    for api in ["rust", "cpp"] {
        let a = &thr[api];
        assert_eq!(
            num(a, "received_min"),
            2000.0,
            "{api}: reliable updates lost"
        );
        assert!(num(a, "msgs_per_s") > 0.0 && num(a, "sender_msgs_per_s") > 0.0);
    }
    assert!(num(&thr, "ratio") > 0.0);
    assert!(running(&exe).is_empty(), "C++ federates left behind");

    let (time, _) = run(
        &[
            "time",
            "--api",
            "rust,cpp",
            "--sdk",
            &sdk_arg,
            "--federates",
            "2",
            "--steps",
            "50",
            "--blocks",
            "1",
        ],
        "time-api",
    );
    let r = &time["results"][0];
    assert_eq!(num(r, "federates"), 2.0);
    assert_eq!(num(r, "wrong_grants"), 0.0);
    assert!(num(r, "rust_grants_per_s") > 0.0 && num(r, "cpp_grants_per_s") > 0.0);
    assert!(num(r, "ratio") > 0.0);
    assert!(running(&exe).is_empty(), "C++ federates left behind");
}

#[test]
fn ddm_tiny_local_run_compares_regions_with_the_baseline() {
    let (j, svg) = run(
        &[
            "ddm",
            "--publishers",
            "2",
            "--entities",
            "64",
            "--rate",
            "20",
            "--seconds",
            "1",
            "--warmup",
            "0.3",
            "--move-seconds",
            "1",
        ],
        "ddm",
    );
    assert_eq!(j["subcommand"], "ddm");
    machine_is_described(&j);
    assert_eq!(num(&j, "cells_per_dimension"), 4.0);
    assert_eq!(num(&j, "cells"), 16.0);
    let runs = j["runs"].as_array().expect("runs");
    let names: Vec<&str> = runs
        .iter()
        .map(|r| r["name"].as_str().expect("name"))
        .collect();
    assert_eq!(
        names,
        ["regions-aligned", "regions-unaligned", "no-regions"]
    );
    for r in runs {
        // Every publisher sent its share: 64 entities × 20 Hz × 1 s (seed 1 puts some of them in
        // both squares).
        assert_eq!(num(r, "updates_sent"), 1280.0, "{r}");
        assert!(num(r, "relevant_sent") > 0.0, "{r}");
        assert!(num(r, "datagrams_received") >= num(r, "best_effort_datagrams_received"));
        assert!(num(r, "relevant_reflected") <= num(r, "reflected"), "{r}");
        assert!(
            num(r, "relevant_reflected") <= num(r, "relevant_sent"),
            "{r}"
        );
        // Loopback loses (almost) nothing: most relevant updates arrive.
        assert!(
            num(r, "relevant_reflected") >= 0.8 * num(r, "relevant_sent"),
            "{r}"
        );
        assert!(num(r, "cpu_us_per_relevant") > 0.0, "{r}");
        assert_eq!(num(r, "join_failures"), 0.0, "{r}");
        latency_is_plausible(&r["latency"], num(r, "relevant_reflected"));
    }
    let (aligned, unaligned, base) = (&runs[0], &runs[1], &runs[2]);
    // Exact filtering: with regions every reflection is relevant; one cell, or four.
    for (r, cells) in [(aligned, 1.0), (unaligned, 4.0)] {
        assert_eq!(num(r, "reflected"), num(r, "relevant_reflected"), "{r}");
        assert_eq!(num(r, "cells_covered"), cells, "{r}");
        assert_eq!(num(r, "groups_joined_now"), cells, "{r}");
        assert!(
            num(r, "cell_datagrams_sent") >= num(r, "updates_sent"),
            "{r}"
        );
        assert!(num(r, "region_commits") > 0.0, "{r}");
    }
    // Without regions everything reaches the subscriber, on the default group.
    assert_eq!(num(base, "region_commits"), 0.0);
    assert_eq!(num(base, "cell_datagrams_sent"), 0.0);
    assert!(
        num(base, "reflected") >= 0.8 * num(base, "updates_sent"),
        "{base}"
    );
    assert!(
        num(aligned, "best_effort_datagrams_received")
            < num(base, "best_effort_datagrams_received")
    );
    // The socket's per-group counts: the aligned subscriber heard one cell group besides the
    // default group, the unaligned one at most its four, the baseline none.
    let cells_heard = |r: &Value| {
        r["received_by_group"]
            .as_array()
            .expect("received_by_group")
            .iter()
            .filter(|g| g[0].as_str().is_some_and(|n| n.starts_with("cell")))
            .count()
    };
    assert_eq!(cells_heard(aligned), 1, "{aligned}");
    assert!((1..=4).contains(&cells_heard(unaligned)), "{unaligned}");
    assert_eq!(cells_heard(base), 0, "{base}");
    let ratios = j["ratios"].as_array().expect("ratios");
    assert_eq!(ratios.len(), 2);
    let expect = num(aligned, "datagrams_received") / num(base, "datagrams_received");
    assert!((num(&ratios[0], "datagrams") - expect).abs() < 1e-9);
    assert!(j["datagram_target_met"].is_boolean() && j["cpu_target_met"].is_boolean());
    let m = &j["moving"];
    assert_eq!(num(m, "commits"), 20.0, "{m}");
    assert!(num(m, "joins") > 0.0, "{m}");
    assert!(num(m, "exact_joins_per_s") > 0.0, "{m}");
    assert_eq!(num(m, "join_failures"), 0.0, "{m}");
    assert!(svg.starts_with("<svg") && svg.contains("no-regions"));
}
