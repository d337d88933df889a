//! The Management Object Model across processes (across network namespaces when run as root),
//! with `rti-shell` federates: a monitoring federate discovers every federate's
//! `HLAmanager.HLAfederate` instance — its own, those of federates in other processes that
//! joined before it, and a late joiner's — with the MIM's encodings byte for byte (handle,
//! name, and the time state after A enabled regulation with a known lookahead); the
//! `HLAfederation` instance; MOM instances are owned by the RTI (query, update refused); MOM
//! interactions (`HLArequestPublications`, `HLAsetTiming`, `HLAservice` resign) are answered;
//! a resigned federate's instance is removed at every subscriber; a killed federate is
//! reported with `HLAreportFederateLost`. A second federation covers a request/report pair
//! answered by another process's LRC (`HLArequestUpdatesSent`), `HLAservice` actions performed
//! by the target's LRC (subscribe, enable regulation: the target gets its own callbacks; a
//! refused one is an `HLAreportMOMexception`), a federation-level request answered by the
//! voice, service reporting of the target's own calls, and a malformed request. A third
//! covers what is kept per federate and across a restore into new processes: a federate's
//! own FOM modules, `HLAsetSwitches` honoured by another process's LRC (the producing federate
//! hidden from that receiver only; the federation's Auto-Provide), `HLAmodifyAttributeState`
//! taking an attribute from a federate in another process, and after a save, an exit of
//! every process and a restore by new ones, the MOM instances with their saved handles, the
//! counters, switches and modules as saved (not as the new processes would start them). A
//! fourth shows the MIM's conditional updates reaching a monitor with no request: another
//! process's federate's time state as it changes, the federation's federates as one joins and
//! resigns.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use common::lab::{Lab, Ports, serial};
use common::shell::{Shell, T, cmd, failed, next_event, ok, shell, shell_env, shell_with, until};
use common::temp_dir::TempDir;

const FEDERATE: &str = "HLAobjectRoot.HLAmanager.HLAfederate";
const FEDERATION: &str = "HLAobjectRoot.HLAmanager.HLAfederation";
const WATCHED: &str = "HLAfederateHandle,HLAfederateName,HLAfederateType,HLAtimeRegulating,\
                       HLAtimeConstrained,HLAlookahead,HLAlogicalTime,HLAupdatesSent";
const REQUEST_PUBLICATIONS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLArequest.HLArequestPublications";
const REPORT_OBJECT_PUBLICATION: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication";
const REPORT_INTERACTION_PUBLICATION: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportInteractionPublication";
const SET_TIMING: &str = "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAsetTiming";
const RESIGN: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.HLAresignFederationExecution";
const FEDERATE_LOST: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportFederateLost";

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

/// HLAunicodeString.
fn unicode(s: &str) -> String {
    let units: Vec<u16> = s.encode_utf16().collect();
    let mut b = (units.len() as u32).to_be_bytes().to_vec();
    for u in units {
        b.extend_from_slice(&u.to_be_bytes());
    }
    hex(&b)
}

/// HLAhandle of a 4-byte handle (HLAvariableArray of HLAbyte).
fn handle(h: u64) -> String {
    format!("00000004{:08x}", h)
}

/// HLAtimeInterval / HLAlogicalTime of an HLAfloat64 value.
fn float_time(v: f64) -> String {
    format!("00000008{}", hex(&v.to_be_bytes()))
}

const TRUE: &str = "00000001";
const FALSE: &str = "00000000";

/// `name → handle` of a class's attributes (`attr-handles`) or an interaction's parameters.
fn handles(p: &mut Shell, line: &str, event: &str) -> (u64, BTreeMap<String, u64>) {
    ok(p, line);
    let l = next_event(p, event);
    let map = l["map"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.as_u64().unwrap()))
        .collect();
    (l["class"].as_u64().unwrap(), map)
}

/// Discoveries until every name in `names` was discovered: name → instance.
fn discover_all(p: &mut Shell, names: &[&str]) -> BTreeMap<String, u64> {
    let mut found = BTreeMap::new();
    while names.iter().any(|n| !found.contains_key(*n)) {
        let l = next_event(p, "discover");
        found.insert(
            l["label"].as_str().unwrap().to_string(),
            l["object"].as_u64().unwrap(),
        );
    }
    found
}

/// Reflections until `done` holds for the values seen (object → attribute → hex); bounded by
/// [`T`].
fn reflect_until(
    p: &mut Shell,
    mut done: impl FnMut(&BTreeMap<u64, BTreeMap<u64, String>>) -> bool,
) -> BTreeMap<u64, BTreeMap<u64, String>> {
    let mut seen: BTreeMap<u64, BTreeMap<u64, String>> = BTreeMap::new();
    let end = Instant::now() + T;
    while !done(&seen) {
        assert!(Instant::now() < end, "[{}] reflections {seen:?}", p.name);
        let l = next_event(p, "reflect");
        seen.entry(l["object"].as_u64().unwrap())
            .or_default()
            .insert(
                l["attr"].as_u64().unwrap(),
                l["hex"].as_str().unwrap().to_string(),
            );
    }
    seen
}

/// Interactions until one of class `class` arrives (others are skipped); bounded by [`T`].
fn interaction_of(p: &mut Shell, class: u64) -> serde_json::Value {
    let end = Instant::now() + T;
    loop {
        assert!(
            Instant::now() < end,
            "[{}] no interaction of class {class}",
            p.name
        );
        let l = next_event(p, "interaction");
        if l["class"] == class {
            return l;
        }
    }
}

#[test]
fn a_monitor_discovers_every_federate_through_the_mom_and_sees_it_leave() {
    let _g = serial();
    let lab = Lab::new(4);
    let ports = Ports::unique();
    let fed = format!("mom{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");
    // A regulates with lookahead 2.5, B publishes something for the publication report.
    ok(&mut a, "regulate 2.5");
    next_event(&mut a, "regulating");
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "publish-interaction CustomerTransactions");

    let (mut c, hc) = shell(&lab, 3, &ports, &fed, "C");
    let (_, attrs) = handles(&mut c, &format!("attr-handles {FEDERATE}"), "attrs");
    let at = |n: &str| attrs[n];
    ok(&mut c, &format!("subscribe {FEDERATE} {WATCHED}"));
    let names = ["HLAfederate.A", "HLAfederate.B", "HLAfederate.C"];
    let found = discover_all(&mut c, &names);
    let (oa, ob, oc) = (found[names[0]], found[names[1]], found[names[2]]);
    // Handles (federate, 0): the instance says whose it is.
    assert_eq!((oa >> 32, ob >> 32, oc >> 32), (ha, hb, hc));

    ok(&mut c, &format!("request-class {FEDERATE} {WATCHED}"));
    // Every attribute asked for, of each: a conditional update (A's regulating changed since
    // its join's values) may come first with one attribute only.
    let want_all = |s: &BTreeMap<u64, BTreeMap<u64, String>>| {
        [oa, ob, oc].iter().all(|o| {
            s.get(o)
                .is_some_and(|v| WATCHED.split(',').all(|n| v.contains_key(&at(n))))
        })
    };
    let seen = reflect_until(&mut c, want_all);
    for (o, h, n) in [(oa, ha, "A"), (ob, hb, "B"), (oc, hc, "C")] {
        let v = &seen[&o];
        assert_eq!(v[&at("HLAfederateHandle")], handle(h), "{n}'s handle");
        assert_eq!(v[&at("HLAfederateName")], unicode(n), "{n}'s name");
        assert_eq!(v[&at("HLAfederateType")], unicode("shell"), "{n}'s type");
        assert_eq!(
            v[&at("HLAtimeConstrained")],
            FALSE,
            "{n} is not constrained"
        );
        assert_eq!(v[&at("HLAlogicalTime")], float_time(0.0), "{n}'s time");
    }
    assert_eq!(seen[&oa][&at("HLAtimeRegulating")], TRUE, "A regulates");
    assert_eq!(
        seen[&oa][&at("HLAlookahead")],
        float_time(2.5),
        "A's lookahead"
    );
    assert_eq!(
        seen[&ob][&at("HLAtimeRegulating")],
        FALSE,
        "B does not regulate"
    );
    assert_eq!(
        seen[&ob][&at("HLAlookahead")],
        "00000000",
        "B has no lookahead"
    );

    // Owned by the RTI: queries say so, updates and acquisitions are refused.
    ok(&mut c, &format!("query {oa} HLAfederateName"));
    let owner = next_event(&mut c, "owner");
    assert_eq!(
        (owner["object"].as_u64(), &owner["owner"]),
        (Some(oa), &serde_json::json!("rti"))
    );
    ok(&mut c, &format!("owned {oa} HLAfederateName"));
    assert_eq!(next_event(&mut c, "owned")["owned"], false);
    let e = failed(&mut c, &format!("update {oa} HLAfederateName x"));
    assert!(e.starts_with("AttributeNotOwned"), "{e}");
    ok(&mut c, &format!("publish {FEDERATE} HLAfederateName"));
    let e = failed(&mut c, &format!("acquire-if {oa} HLAfederateName"));
    assert!(e.starts_with("AttributeNotPublished"), "{e}");

    // The federation's instance.
    let (_, fattrs) = handles(&mut c, &format!("attr-handles {FEDERATION}"), "attrs");
    ok(
        &mut c,
        &format!("subscribe {FEDERATION} HLAfederationName,HLAfederatesInFederation"),
    );
    let of = discover_all(&mut c, &["HLAfederation"])["HLAfederation"];
    ok(
        &mut c,
        &format!("request-class {FEDERATION} HLAfederationName,HLAfederatesInFederation"),
    );
    let fv = reflect_until(&mut c, |s| {
        s.get(&of).is_some_and(|v| {
            v.contains_key(&fattrs["HLAfederatesInFederation"])
                && v.contains_key(&fattrs["HLAfederationName"])
        })
    });
    assert_eq!(fv[&of][&fattrs["HLAfederationName"]], unicode(&fed));
    let mut list = [ha, hb, hc];
    list.sort();
    let expect = format!(
        "{:08x}{}",
        list.len(),
        list.iter().map(|h| handle(*h)).collect::<String>()
    );
    assert_eq!(fv[&of][&fattrs["HLAfederatesInFederation"]], expect);

    // HLArequestPublications about B → B's LRC reports B's publications.
    let (rop, rop_params) = handles(
        &mut c,
        &format!("param-handles {REPORT_OBJECT_PUBLICATION}"),
        "params",
    );
    let (rip, rip_params) = handles(
        &mut c,
        &format!("param-handles {REPORT_INTERACTION_PUBLICATION}"),
        "params",
    );
    ok(
        &mut c,
        &format!("subscribe-interaction {REPORT_OBJECT_PUBLICATION}"),
    );
    ok(
        &mut c,
        &format!("subscribe-interaction {REPORT_INTERACTION_PUBLICATION}"),
    );
    ok(
        &mut c,
        &format!("publish-interaction {REQUEST_PUBLICATIONS}"),
    );
    ok(&mut c, &format!("send-mom {REQUEST_PUBLICATIONS} {hb}"));
    let r = interaction_of(&mut c, rop);
    assert_eq!(r["producer"], hb);
    let p = |r: &serde_json::Value, params: &BTreeMap<String, u64>, n: &str| {
        r["params"][params[n].to_string()]
            .as_str()
            .unwrap()
            .to_string()
    };
    assert_eq!(p(&r, &rop_params, "HLAfederate"), handle(hb));
    assert_eq!(p(&r, &rop_params, "HLAnumberOfClasses"), "00000001");
    let r = interaction_of(&mut c, rip);
    assert_eq!(p(&r, &rip_params, "HLAfederate"), handle(hb));
    assert!(
        p(&r, &rip_params, "HLAinteractionClassList").starts_with("00000001"),
        "one interaction class published: {r}"
    );

    // HLAsetTiming: B's instance is updated every second without being asked.
    ok(&mut c, &format!("publish-interaction {SET_TIMING}"));
    ok(
        &mut c,
        &format!("send-mom {SET_TIMING} {hb} HLAreportPeriod=00000001"),
    );
    let start = Instant::now();
    let mut periodic = 0;
    while periodic < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "no periodic updates of B"
        );
        let l = next_event(&mut c, "reflect");
        if l["object"] == ob && l["attr"] == at("HLAfederateName") {
            periodic += 1;
        }
    }
    assert!(
        start.elapsed() >= Duration::from_millis(900),
        "{:?}",
        start.elapsed()
    );

    // A late joiner discovers every instance, its own too.
    let (mut d, hd) = shell(&lab, 4, &ports, &fed, "D");
    ok(&mut d, &format!("subscribe {FEDERATE} {WATCHED}"));
    let late = discover_all(
        &mut d,
        &[
            "HLAfederate.A",
            "HLAfederate.B",
            "HLAfederate.C",
            "HLAfederate.D",
        ],
    );
    assert_eq!(late["HLAfederate.A"], oa);
    assert_eq!(late["HLAfederate.D"] >> 32, hd);
    let od = discover_all(&mut c, &["HLAfederate.D"])["HLAfederate.D"];
    assert_eq!(od, late["HLAfederate.D"]);

    // A resigns: its instance is removed at both subscribers.
    a.send("resign");
    for s in [&mut c, &mut d] {
        let end = Instant::now() + T;
        loop {
            assert!(
                Instant::now() < end,
                "[{}] A's instance not removed",
                s.name
            );
            if next_event(s, "remove")["object"] == oa {
                break;
            }
        }
    }

    // A's LRC coordinated and left with it: the next coordinator's voice answers for the
    // federation's instance, under the same handle, without A. (The voice may apply A's
    // resignation after C did: asked again until it has, at most 50 times.)
    let mut rest = [hb, hc, hd];
    rest.sort();
    let expect = format!(
        "{:08x}{}",
        rest.len(),
        rest.iter().map(|h| handle(*h)).collect::<String>()
    );
    let members = fattrs["HLAfederatesInFederation"];
    let mut got = String::new();
    for _ in 0..50 {
        ok(
            &mut c,
            &format!("request-class {FEDERATION} HLAfederatesInFederation"),
        );
        got = reflect_until(&mut c, |s| {
            s.get(&of).is_some_and(|v| v.contains_key(&members))
        })[&of][&members]
            .clone();
        if got == expect {
            break;
        }
    }
    assert_eq!(got, expect, "the federation's instance after the takeover");

    // HLAservice resign: D is resigned by C's request.
    ok(&mut c, &format!("publish-interaction {RESIGN}"));
    ok(
        &mut c,
        &format!("send-mom {RESIGN} {hd} HLAresignAction=00000002"),
    );
    let end = Instant::now() + T;
    loop {
        assert!(
            Instant::now() < end,
            "D's instance not removed after the MOM resign"
        );
        if next_event(&mut c, "remove")["object"] == od {
            break;
        }
    }
    // D's LRC applies the resignation when the coordinator's decision reaches it, which may be
    // after C's did: D gets no callback, so its calls are polled (at most 100, 20 ms apart).
    let mut l = serde_json::Value::Null;
    for _ in 0..100 {
        l = cmd(&mut d, "publish Employee PayRate");
        if l["event"] == "failed" {
            break;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert_eq!(l["event"], "failed", "D was resigned: {l}");
    assert!(
        l["error"]
            .as_str()
            .unwrap_or_default()
            .starts_with("FederateNotExecutionMember"),
        "{l}"
    );

    // B is killed: the federation's voice reports it lost.
    let (lost, lost_params) = handles(&mut c, &format!("param-handles {FEDERATE_LOST}"), "params");
    ok(&mut c, &format!("subscribe-interaction {FEDERATE_LOST}"));
    b.kill9();
    let r = interaction_of(&mut c, lost);
    assert_eq!(p(&r, &lost_params, "HLAfederateName"), unicode("B"));
    assert_eq!(p(&r, &lost_params, "HLAfederate"), handle(hb));
    let end = Instant::now() + T;
    loop {
        assert!(
            Instant::now() < end,
            "B's instance not removed after its loss"
        );
        if next_event(&mut c, "remove")["object"] == ob {
            break;
        }
    }
}

/// `hlamesh mom FEDERATION --json`: federates, their time state and publications from the MOM
/// alone, in a process of its own.
#[test]
fn hlamesh_mom_lists_federates_time_state_and_publications() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("momcli{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");
    ok(&mut a, "regulate 1.5");
    next_event(&mut a, "regulating");
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "publish-interaction CustomerTransactions");
    let config = std::env::temp_dir().join(format!("hlamesh-mom-{}.toml", std::process::id()));
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
    let out = lab
        .command(3, &common::hlamesh().to_string_lossy())
        .args([
            "mom",
            &fed,
            "--json",
            "--wait-ms",
            "1500",
            "--name",
            "monitor",
        ])
        .arg("--config")
        .arg(&config)
        .args(["--interface", &lab.addr(3).to_string()])
        .args(["--discovery-port", &ports.discovery.to_string()])
        .args(["--data-port", &ports.data.to_string()])
        .args(["--discovery-group", &ports.group.to_string()])
        .output()
        .expect("run hlamesh mom");
    let _ = std::fs::remove_file(&config);
    assert!(
        out.status.success(),
        "hlamesh mom failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let r: serde_json::Value = serde_json::from_str(text.trim())
        .unwrap_or_else(|e| panic!("mom --json is not one JSON object ({e}): {text}"));
    assert_eq!(r["federation"], fed.as_str());
    assert_eq!(r["time_implementation"], "HLAfloat64Time");
    let feds = r["federates"].as_array().unwrap();
    let by = |n: &str| {
        feds.iter()
            .find(|f| f["name"] == n)
            .unwrap_or_else(|| panic!("{n} listed: {r}"))
    };
    let (fa, fb) = (by("A"), by("B"));
    by("monitor");
    assert_eq!(feds.len(), 3, "{r}");
    assert_eq!(fa["handle"], ha);
    assert_eq!(fa["regulating"], true);
    assert_eq!(fa["constrained"], false);
    assert_eq!(fa["lookahead"], "1.5");
    assert_eq!(fa["time"], "0");
    assert_eq!(fa["state"], 1);
    assert_eq!(fb["handle"], hb);
    assert_eq!(fb["regulating"], false);
    let pubs = fb["publishes"].as_object().unwrap();
    let (class, attrs) = pubs
        .iter()
        .next()
        .unwrap_or_else(|| panic!("B publishes: {r}"));
    assert!(class.ends_with("Employee"), "{class}");
    assert_eq!(attrs, &serde_json::json!(["PayRate"]));
    let sends = fb["sends"].as_array().unwrap();
    assert_eq!(sends.len(), 1, "{r}");
    assert!(
        sends[0].as_str().unwrap().ends_with("CustomerTransactions"),
        "{r}"
    );
}

/// The values follow what the federates did: counts after N updates and a registration, the
/// logical time after a grant, the federation's last save name after a save.
#[test]
fn mom_values_follow_updates_grants_and_saves() {
    let _g = serial();
    let lab = Lab::new(2);
    let ports = Ports::unique();
    let fed = format!("momvals{}", std::process::id());
    let dir = common::temp_dir::TempDir::new("momsave");
    let env = [("HLAMESH_SAVE_DIR", dir.0.to_str().unwrap())];
    let (mut a, _) = common::shell::shell_env(&lab, 1, &ports, &fed, "A", &env);
    let (mut c, _) = common::shell::shell_env(&lab, 2, &ports, &fed, "C", &env);
    ok(&mut a, "publish Employee PayRate");
    ok(&mut a, "register-object Employee");
    let o = next_event(&mut a, "registered_object")["object"]
        .as_u64()
        .unwrap();
    for n in 1..=5 {
        ok(&mut a, &format!("update {o} PayRate {n}"));
    }
    ok(&mut a, "tar 3");
    common::shell::until(&mut a, "grant", "3");
    ok(&mut c, "save mom-save");
    for s in [&mut a, &mut c] {
        common::shell::until(s, "initiate_save", "mom-save");
        ok(s, "save-begun");
        ok(s, "save-complete");
    }
    for s in [&mut a, &mut c] {
        next_event(s, "saved");
    }

    let (_, attrs) = handles(&mut c, &format!("attr-handles {FEDERATE}"), "attrs");
    let watched = "HLAfederateName,HLAupdatesSent,HLAobjectInstancesRegistered,\
                   HLAobjectInstancesUpdated,HLAlogicalTime,HLAtimeManagerState";
    ok(&mut c, &format!("subscribe {FEDERATE} {watched}"));
    let oa = discover_all(&mut c, &["HLAfederate.A"])["HLAfederate.A"];
    ok(&mut c, &format!("request-class {FEDERATE} {watched}"));
    let seen = reflect_until(&mut c, |s| {
        s.get(&oa)
            .is_some_and(|v| watched.split(',').all(|n| v.contains_key(&attrs[n])))
    });
    let v = &seen[&oa];
    assert_eq!(v[&attrs["HLAupdatesSent"]], "00000005", "five updates");
    assert_eq!(v[&attrs["HLAobjectInstancesRegistered"]], "00000001");
    assert_eq!(v[&attrs["HLAobjectInstancesUpdated"]], "00000001");
    assert_eq!(v[&attrs["HLAlogicalTime"]], float_time(3.0), "granted 3");
    assert_eq!(v[&attrs["HLAtimeManagerState"]], "00000000", "TimeGranted");

    let (_, fattrs) = handles(&mut c, &format!("attr-handles {FEDERATION}"), "attrs");
    ok(&mut c, &format!("subscribe {FEDERATION} HLAlastSaveName"));
    let of = discover_all(&mut c, &["HLAfederation"])["HLAfederation"];
    ok(
        &mut c,
        &format!("request-class {FEDERATION} HLAlastSaveName"),
    );
    let fv = reflect_until(&mut c, |s| s.get(&of).is_some());
    assert_eq!(fv[&of][&fattrs["HLAlastSaveName"]], unicode("mom-save"));
}

/// The MIM's conditional attributes reach a monitor in another process when they change, with
/// no request and no `HLAsetTiming`: A's time regulation and constraint as A enables them, and
/// the federation's `HLAfederatesInFederation` (sent by the voice, A's LRC) as B joins in a
/// third process and resigns.
#[test]
fn conditional_mom_values_reach_a_monitor_in_another_process_without_asking() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("momcond{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut c, hc) = shell(&lab, 2, &ports, &fed, "C");
    let (_, attrs) = handles(&mut c, &format!("attr-handles {FEDERATE}"), "attrs");
    let (_, fattrs) = handles(&mut c, &format!("attr-handles {FEDERATION}"), "attrs");
    let (regulating, constrained) = (attrs["HLAtimeRegulating"], attrs["HLAtimeConstrained"]);
    let federates = fattrs["HLAfederatesInFederation"];
    ok(
        &mut c,
        &format!("subscribe {FEDERATE} HLAtimeRegulating,HLAtimeConstrained"),
    );
    ok(
        &mut c,
        &format!("subscribe {FEDERATION} HLAfederatesInFederation"),
    );
    let found = discover_all(&mut c, &["HLAfederate.A", "HLAfederation"]);
    let (oa, of) = (found["HLAfederate.A"], found["HLAfederation"]);
    ok(&mut a, "regulate 1");
    next_event(&mut a, "regulating");
    ok(&mut a, "constrain");
    next_event(&mut a, "constrained");
    let seen = reflect_until(&mut c, |s| {
        s.get(&oa).is_some_and(|v| {
            v.get(&regulating).map(String::as_str) == Some(TRUE)
                && v.get(&constrained).map(String::as_str) == Some(TRUE)
        })
    });
    assert_eq!(seen[&oa][&regulating], TRUE);
    // HLAhandleList: the count, then each federate's HLAhandle, in handle order.
    let list = |hs: &[u64]| {
        let mut hs = hs.to_vec();
        hs.sort_unstable();
        let mut s = format!("{:08x}", hs.len());
        for h in hs {
            s.push_str(&handle(h));
        }
        s
    };
    let (mut b, hb) = shell(&lab, 3, &ports, &fed, "B");
    let three = list(&[ha, hb, hc]);
    reflect_until(&mut c, |s| {
        s.get(&of).and_then(|v| v.get(&federates)) == Some(&three)
    });
    b.send("resign");
    assert_eq!(next_event(&mut b, "resigned")["ok"], true);
    let two = list(&[ha, hc]);
    reflect_until(&mut c, |s| {
        s.get(&of).and_then(|v| v.get(&federates)) == Some(&two)
    });
}

const REQUEST_UPDATES_SENT: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLArequest.HLArequestUpdatesSent";
const REPORT_UPDATES_SENT: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportUpdatesSent";
const SUBSCRIBE_CLASS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.HLAsubscribeObjectClassAttributes";
const DISABLE_CONSTRAINED: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.HLAdisableTimeConstrained";
const ENABLE_REGULATION: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAservice.HLAenableTimeRegulation";
const MOM_EXCEPTION: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportMOMexception";
const SET_SERVICE_REPORTING: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAsetServiceReporting";
const SERVICE_INVOCATION: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAreport.HLAreportServiceInvocation";
const REQUEST_SYNC_POINTS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederation.HLArequest.HLArequestSynchronizationPoints";
const REPORT_SYNC_POINTS: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederation.HLAreport.HLAreportSynchronizationPoints";

/// A monitor M in its own process asks B's LRC for B's update counts (one report per
/// transportation), has A's LRC subscribe and regulate A (A gets the callbacks it would get
/// from its own calls) and refuse a service whose precondition fails
/// (`HLAreportMOMexception`), asks the federation's voice for the pending synchronization
/// points, and turns A's service reporting on: A's next call is reported by A's LRC.
#[test]
fn mom_requests_services_and_service_reporting_across_processes() {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("mom2{}", std::process::id());
    let (mut a, ha) = shell(&lab, 1, &ports, &fed, "A");
    let (mut b, hb) = shell(&lab, 2, &ports, &fed, "B");
    let (mut m, _) = shell(&lab, 3, &ports, &fed, "M");
    // B publishes Employee and updates one instance twice.
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "register-object Employee");
    let o = next_event(&mut b, "registered_object")["object"]
        .as_u64()
        .unwrap();
    ok(&mut b, &format!("update {o} PayRate 1"));
    ok(&mut b, &format!("update {o} PayRate 2"));
    let (employee, payrate) = handles(&mut m, "attr-handles Employee", "attrs");
    let payrate = payrate["PayRate"];

    let (report, params) = handles(
        &mut m,
        &format!("param-handles {REPORT_UPDATES_SENT}"),
        "params",
    );
    let p = |r: &serde_json::Value, params: &BTreeMap<String, u64>, n: &str| {
        r["params"][params[n].to_string()]
            .as_str()
            .unwrap_or_default()
            .to_string()
    };
    for class in [
        REPORT_UPDATES_SENT,
        MOM_EXCEPTION,
        SERVICE_INVOCATION,
        REPORT_SYNC_POINTS,
    ] {
        ok(&mut m, &format!("subscribe-interaction {class}"));
    }
    for class in [
        REQUEST_UPDATES_SENT,
        SUBSCRIBE_CLASS,
        DISABLE_CONSTRAINED,
        ENABLE_REGULATION,
        SET_SERVICE_REPORTING,
        REQUEST_SYNC_POINTS,
    ] {
        ok(&mut m, &format!("publish-interaction {class}"));
    }

    // Request → report, answered by B's LRC: HLAreliable {Employee: 2}, HLAbestEffort none.
    ok(&mut m, &format!("send-mom {REQUEST_UPDATES_SENT} {hb}"));
    let mut by_transport = BTreeMap::new();
    for _ in 0..2 {
        let r = interaction_of(&mut m, report);
        assert_eq!(r["producer"], hb);
        assert_eq!(p(&r, &params, "HLAfederate"), handle(hb));
        by_transport.insert(
            p(&r, &params, "HLAtransportation"),
            p(&r, &params, "HLAupdateCounts"),
        );
    }
    assert_eq!(
        by_transport[&unicode("HLAreliable")],
        format!("00000001{}00000002", handle(employee)),
        "{by_transport:?}"
    );
    assert_eq!(by_transport[&unicode("HLAbestEffort")], "00000000");

    // HLAservice actions on A, performed by A's LRC: A discovers B's instance and becomes
    // regulating, through the callbacks its own calls bring.
    ok(
        &mut m,
        &format!(
            "send-mom {SUBSCRIBE_CLASS} {ha} HLAobjectClass={} HLAattributeList=00000001{} \
             HLAactive={TRUE}",
            handle(employee),
            handle(payrate)
        ),
    );
    assert_eq!(next_event(&mut a, "discover")["object"], o);
    ok(
        &mut m,
        &format!(
            "send-mom {ENABLE_REGULATION} {ha} HLAlookahead={}",
            float_time(1.5)
        ),
    );
    next_event(&mut a, "regulating");
    // A precondition fails: A is not constrained.
    let (exc, exc_params) = handles(&mut m, &format!("param-handles {MOM_EXCEPTION}"), "params");
    ok(&mut m, &format!("send-mom {DISABLE_CONSTRAINED} {ha}"));
    let r = interaction_of(&mut m, exc);
    assert_eq!(r["producer"], ha);
    assert_eq!(p(&r, &exc_params, "HLAparameterError"), FALSE);
    assert_eq!(
        p(&r, &exc_params, "HLAservice"),
        unicode(DISABLE_CONSTRAINED)
    );
    let text = p(&r, &exc_params, "HLAexception");
    assert!(
        text[8..].starts_with(&unicode("TimeConstrainedIsNotEnabled")[8..]),
        "{text}"
    );

    // The federation's voice answers the federation-level request.
    ok(&mut a, "register p1");
    next_event(&mut a, "registered");
    let (points, points_params) = handles(
        &mut m,
        &format!("param-handles {REPORT_SYNC_POINTS}"),
        "params",
    );
    ok(
        &mut m,
        &format!("send-mom-federation {REQUEST_SYNC_POINTS}"),
    );
    let r = interaction_of(&mut m, points);
    assert_eq!(
        p(&r, &points_params, "HLAsyncPoints"),
        format!("00000001{}", unicode("p1"))
    );

    // Service reporting on for A. A request sent after it in M's stream is answered once A's
    // LRC applied it; then A's own call is reported by A's LRC.
    ok(
        &mut m,
        &format!("send-mom {SET_SERVICE_REPORTING} {ha} HLAreportingState={TRUE}"),
    );
    ok(&mut m, &format!("send-mom {DISABLE_CONSTRAINED} {ha}"));
    interaction_of(&mut m, exc);
    let (inv, inv_params) = handles(
        &mut m,
        &format!("param-handles {SERVICE_INVOCATION}"),
        "params",
    );
    // That refused MOM service was itself reported (the RTI invoked it at A).
    let r = interaction_of(&mut m, inv);
    assert_eq!(
        p(&r, &inv_params, "HLAservice"),
        unicode("disableTimeConstrained")
    );
    assert_eq!(p(&r, &inv_params, "HLAsuccessIndicator"), FALSE);
    ok(&mut a, "publish Employee PayRate");
    let end = Instant::now() + T;
    loop {
        assert!(Instant::now() < end, "A's publish was not reported");
        let r = interaction_of(&mut m, inv);
        assert_eq!(r["producer"], ha);
        assert_eq!(p(&r, &inv_params, "HLAfederate"), handle(ha));
        if p(&r, &inv_params, "HLAservice") == unicode("publishObjectClassAttributes") {
            assert_eq!(p(&r, &inv_params, "HLAsuccessIndicator"), TRUE);
            break;
        }
    }

    // A request without its HLAfederate: no LRC hosts its target, the voice answers it.
    ok(
        &mut m,
        &format!("send-mom-federation {REQUEST_UPDATES_SENT}"),
    );
    let r = interaction_of(&mut m, exc);
    assert_eq!(p(&r, &exc_params, "HLAparameterError"), TRUE);
    assert_eq!(
        p(&r, &exc_params, "HLAservice"),
        unicode(REQUEST_UPDATES_SENT)
    );
    // Every LRC is still up and answering.
    for s in [&mut a, &mut b, &mut m] {
        ok(s, "handle");
    }
}

const SET_SWITCHES: &str = "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAsetSwitches";
const SET_FEDERATION_SWITCHES: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederation.HLAadjust.HLAsetSwitches";
const MODIFY_ATTRIBUTE_STATE: &str =
    "HLAinteractionRoot.HLAmanager.HLAfederate.HLAadjust.HLAmodifyAttributeState";
const KEPT: &str =
    "HLAfederateName,HLAFOMmoduleDesignatorList,HLAupdatesSent,HLAconveyProducingFederate";

/// A FOM module with one interaction class of its own, for a federate to bring at its join.
fn extra_module(fed: &str) -> std::path::PathBuf {
    let text = r#"<?xml version="1.0" encoding="UTF-8"?>
<objectModel xmlns="http://standards.ieee.org/IEEE1516-2010">
    <modelIdentification><name>Extra</name><type>FOM</type><version>1</version></modelIdentification>
    <interactions>
        <interactionClass>
            <name>HLAinteractionRoot</name>
            <interactionClass>
                <name>Ping</name>
                <sharing>PublishSubscribe</sharing>
                <transportation>HLAreliable</transportation>
                <order>Receive</order>
            </interactionClass>
        </interactionClass>
    </interactions>
</objectModel>
"#;
    let path = std::env::temp_dir().join(format!("{fed}-Extra.xml"));
    std::fs::write(&path, text).unwrap();
    path
}

/// HLAhandle of an object instance (8 bytes).
fn instance(o: u64) -> String {
    format!("00000008{o:016x}")
}

/// Saves `label` with every shell writing `state-of-NAME`.
fn save_all(shells: &mut [&mut Shell], label: &str) {
    ok(shells[0], &format!("save {label}"));
    for s in shells.iter_mut() {
        until(s, "initiate_save", label);
        ok(s, "save-begun");
        let n = s.name.clone();
        ok(s, &format!("write-state state-of-{n}"));
        ok(s, "save-complete");
    }
    for s in shells.iter_mut() {
        next_event(s, "saved");
    }
}

/// `owned O PayRate` until it answers `want` (ownership moves at a decision every LRC applies
/// in its own time); bounded by [`T`].
fn owned_becomes(p: &mut Shell, o: u64, want: bool) {
    let end = Instant::now() + T;
    loop {
        ok(p, &format!("owned {o} PayRate"));
        if next_event(p, "owned")["owned"] == want {
            return;
        }
        assert!(
            Instant::now() < end,
            "[{}] owned never became {want}",
            p.name
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn mom_state_per_federate_switches_and_attribute_state_across_processes_and_a_restore_into_new_ones()
 {
    let _g = serial();
    let lab = Lab::new(3);
    let ports = Ports::unique();
    let fed = format!("mom3{}", std::process::id());
    let dirs: Vec<TempDir> = (0..3).map(|i| TempDir::new(&format!("mom3{i}"))).collect();
    let env = |i: usize| [("HLAMESH_SAVE_DIR", dirs[i].path())];
    let module = extra_module(&fed).display().to_string();
    let (mut a, ha) = shell_env(&lab, 1, &ports, &fed, "A", &env(0));
    let (mut b, hb) = shell_with(
        &lab,
        2,
        &ports,
        &fed,
        "B",
        &env(1),
        &["--join-fom", &module],
    );
    let (mut m, _) = shell_env(&lab, 3, &ports, &fed, "M", &env(2));
    let (_, fa) = handles(&mut m, &format!("attr-handles {FEDERATE}"), "attrs");
    let (_, fna) = handles(&mut m, &format!("attr-handles {FEDERATION}"), "attrs");
    let (name, modules, sent, producer, auto) = (
        fa["HLAfederateName"],
        fa["HLAFOMmoduleDesignatorList"],
        fa["HLAupdatesSent"],
        fa["HLAconveyProducingFederate"],
        fna["HLAautoProvide"],
    );
    ok(&mut m, &format!("subscribe {FEDERATE} {KEPT}"));
    ok(&mut m, &format!("subscribe {FEDERATION} HLAautoProvide"));
    let mom = discover_all(
        &mut m,
        &[
            "HLAfederate.A",
            "HLAfederate.B",
            "HLAfederate.M",
            "HLAfederation",
        ],
    );
    let (ia, ib, federation) = (
        mom["HLAfederate.A"],
        mom["HLAfederate.B"],
        mom["HLAfederation"],
    );
    for c in [
        SET_SWITCHES,
        SET_FEDERATION_SWITCHES,
        MODIFY_ATTRIBUTE_STATE,
    ] {
        ok(&mut m, &format!("publish-interaction {c}"));
    }
    // A registers an Employee; B and M subscribe, B publishes PayRate too.
    ok(&mut a, "publish Employee PayRate");
    ok(&mut b, "publish Employee PayRate");
    ok(&mut b, "subscribe Employee PayRate");
    ok(&mut m, "subscribe Employee PayRate");
    ok(&mut a, "register-object Employee");
    let o = next_event(&mut a, "registered_object")["object"]
        .as_u64()
        .unwrap();
    assert_eq!(next_event(&mut b, "discover")["object"], o);

    // B's Convey Producing Federate off, applied by B's LRC: its HLAfederate says so at once
    // (the MIM's update condition), and from then on B gets A's update without its producer,
    // M with it.
    ok(
        &mut m,
        &format!("send-mom {SET_SWITCHES} {hb} HLAconveyProducingFederate={FALSE}"),
    );
    reflect_until(&mut m, |s| {
        s.get(&ib)
            .and_then(|v| v.get(&producer))
            .map(String::as_str)
            == Some(FALSE)
    });
    ok(&mut a, &format!("update {o} PayRate 5"));
    assert_eq!(next_event(&mut b, "reflect")["producer"], 0);
    let end = Instant::now() + T;
    loop {
        assert!(Instant::now() < end, "M never reflected A's update");
        let l = next_event(&mut m, "reflect");
        if l["object"] == o {
            assert_eq!(l["producer"], ha);
            break;
        }
    }

    // HLAmodifyAttributeState gives B the attribute A owns, A's LRC in another process handing
    // it over: A's updates are refused from then on, B's reach M.
    let payrate = handles(&mut m, "attr-handles Employee", "attrs").1["PayRate"];
    ok(
        &mut m,
        &format!(
            "send-mom {MODIFY_ATTRIBUTE_STATE} {hb} HLAobjectInstance={} HLAattribute={} \
             HLAattributeState={TRUE}",
            instance(o),
            handle(payrate),
        ),
    );
    owned_becomes(&mut b, o, true);
    owned_becomes(&mut a, o, false);
    assert!(failed(&mut a, &format!("update {o} PayRate 6")).starts_with("AttributeNotOwned"));
    ok(&mut b, &format!("update {o} PayRate 7"));
    let end = Instant::now() + T;
    loop {
        assert!(Instant::now() < end, "M never reflected B's update");
        let l = next_event(&mut m, "reflect");
        if l["object"] == o {
            assert_eq!(l["value"], "7");
            assert_eq!(l["producer"], hb);
            break;
        }
    }

    // The federation's Auto-Provide, decided in the log, reported by the voice.
    ok(
        &mut m,
        &format!("send-mom-federation {SET_FEDERATION_SWITCHES} HLAautoProvide={TRUE}"),
    );
    reflect_until(&mut m, |s| {
        s.get(&federation)
            .and_then(|v| v.get(&auto))
            .map(String::as_str)
            == Some(TRUE)
    });

    // Per federate, from each federate's own LRC: B lists the module it brought, A none.
    let b_modules = format!("00000001{}", unicode(&module));
    let expected = |s: &BTreeMap<u64, BTreeMap<u64, String>>| {
        let v = |o: u64, a: u64| s.get(&o).and_then(|x| x.get(&a)).cloned();
        v(ia, name) == Some(unicode("A"))
            && v(ia, modules).as_deref() == Some("00000000")
            && v(ia, sent).as_deref() == Some("00000001")
            && v(ib, modules) == Some(b_modules.clone())
            && v(ib, sent).as_deref() == Some("00000001")
            && v(ib, producer).as_deref() == Some(FALSE)
    };
    ok(&mut m, &format!("request-class {FEDERATE} {KEPT}"));
    reflect_until(&mut m, expected);

    // Save; then the run changes B's switch, and every process exits.
    save_all(&mut [&mut a, &mut b, &mut m], "s");
    ok(
        &mut m,
        &format!("send-mom {SET_SWITCHES} {hb} HLAconveyProducingFederate={TRUE}"),
    );
    reflect_until(&mut m, |s| {
        s.get(&ib)
            .and_then(|v| v.get(&producer))
            .map(String::as_str)
            == Some(TRUE)
    });
    for mut s in [a, b, m] {
        s.send("resign");
        assert_eq!(next_event(&mut s, "resigned")["ok"], true, "[{}]", s.name);
        assert_eq!(s.wait_exit(T), Some(0), "[{}]", s.name);
    }

    // New processes restore the save (a restore needs the federation's modules as saved, so
    // the module comes again, and this time A brings it too): each federate's MOM state is
    // the saved one, kept by its new LRC under its saved handle — A lists no module.
    let join = ["--join-fom", module.as_str()];
    let (mut a, _) = shell_with(&lab, 1, &ports, &fed, "A", &env(0), &join);
    let (mut b, _) = shell_with(&lab, 2, &ports, &fed, "B", &env(1), &join);
    let (mut m, _) = shell_env(&lab, 3, &ports, &fed, "M", &env(2));
    ok(&mut m, "restore s");
    for (s, h) in [(&mut a, ha), (&mut b, hb)] {
        assert_eq!(next_event(s, "initiate_restore")["handle"], h);
    }
    next_event(&mut m, "initiate_restore");
    for s in [&mut a, &mut b, &mut m] {
        ok(s, "restore-complete");
    }
    for s in [&mut a, &mut b, &mut m] {
        next_event(s, "restored");
    }
    ok(&mut m, &format!("request-class {FEDERATE} {KEPT}"));
    reflect_until(&mut m, expected);
    ok(
        &mut m,
        &format!("request-class {FEDERATION} HLAautoProvide"),
    );
    reflect_until(&mut m, |s| {
        s.get(&federation)
            .and_then(|v| v.get(&auto))
            .map(String::as_str)
            == Some(TRUE)
    });
    // B owns the attribute as saved (the MOM took it), and its updates reach M.
    owned_becomes(&mut b, o, true);
    ok(&mut b, &format!("update {o} PayRate 8"));
    let end = Instant::now() + T;
    loop {
        assert!(
            Instant::now() < end,
            "M never reflected B's update after the restore"
        );
        let l = next_event(&mut m, "reflect");
        if l["object"] == o && l["value"] == "8" {
            assert_eq!(l["producer"], hb);
            break;
        }
    }
    for s in [&mut a, &mut b, &mut m] {
        ok(s, "handle");
    }
}
