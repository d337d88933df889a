//! C++ federates built from the installed SDK (`deploy/install-sdk.sh`, then pkg-config or
//! CMake's `find_package`, as a user builds them) in one federation with a Rust federate: each a
//! separate process on loopback multicast (TTL 0) with a development secret. Issue 21's list:
//!
//! 1. `objects_and_interactions_are_byte_identical_everywhere` — publish/subscribe with class
//!    promotion, register, update/reflect, interactions, request attribute value update,
//!    delete/remove, both directions between C++ and Rust;
//! 2. `time_lockstep_and_ner_with_tso_order` — exact grants, TSO order;
//! 3. `sync_save_restore_and_ownership_driven_from_cpp` (one C++ federate built with CMake);
//! 4. `misuse_throws_the_standard_class_and_the_federate_goes_on`;
//! 5. `callbacks_that_call_the_rti_in_both_models`;
//! 7. `a_killed_cpp_federate_is_removed_without_stalling_the_others`.
//!
//! (6, the encoding vectors, is `tests/encoding.rs`.)
//!
//! Run: `cargo test --release -p hlamesh-cpp --test sdk_federation` (needs a C++ compiler,
//! pkg-config and cmake; the first test installs the SDK, which builds librti1516e).

mod common;
mod sdk;

use std::time::{Duration, Instant};

use sdk::{Fed, Model, Net, hex};
use serde_json::{Value, json};

fn join_all(net: &Net, creator: &mut Fed, others: &mut [&mut Fed]) {
    let fom = sdk::demo_fom();
    creator.ok(&format!("create {} {}", net.federation, fom.display()));
    let name = creator.name.clone();
    creator.ok(&format!("join {} {name}", net.federation));
    for f in others.iter_mut() {
        let name = f.name.clone();
        f.ok(&format!("join {} {name}", net.federation));
    }
}

fn values(v: &Value) -> Value {
    v["values"].clone()
}

/// A value of `n` bytes with every byte value in it (0x00 and 0xff included).
fn pattern(n: usize, seed: u8) -> Vec<u8> {
    (0..n)
        .map(|i| (i as u8).wrapping_mul(37).wrapping_add(seed))
        .collect()
}

fn discover(f: &mut Fed, object: &str) -> Value {
    let object = object.to_string();
    f.next_where(&format!("discover {object}"), move |v| {
        v["event"] == "discover" && v["object"] == object.as_str()
    })
}

fn reflect_of(f: &mut Fed, object: &str) -> Value {
    let object = object.to_string();
    f.next_where(&format!("reflect of {object}"), move |v| {
        v["event"] == "reflect" && v["object"] == object.as_str()
    })
}

fn remove_of(f: &mut Fed, object: &str) -> Value {
    let object = object.to_string();
    f.next_where(&format!("remove of {object}"), move |v| {
        v["event"] == "remove" && v["object"] == object.as_str()
    })
}

fn object(v: &Value) -> String {
    v["object"].as_str().expect("object handle").to_string()
}

#[test]
fn objects_and_interactions_are_byte_identical_everywhere() {
    let net = Net::new("objects");
    let mut a = net.cpp("cpp-a", Model::Evoked);
    let mut b = net.cpp("cpp-b", Model::Immediate);
    let mut r = net.rust("rust-r");
    join_all(&net, &mut a, &mut [&mut b, &mut r]);

    a.ok("publish Vehicle.Car Position,Velocity,Sequence,Fuel");
    a.ok("subscribe Vehicle.Car Position,Range");
    a.ok("publish-ia Refuel");
    a.ok("subscribe-ia ChangeWeather Wind");
    // B subscribes the base class: A's cars are discovered as Vehicles (class promotion) and
    // reflect only the Vehicle attributes B asked for.
    b.ok("subscribe Vehicle Position,Velocity");
    b.ok("subscribe-ia Refuel Car,Litres");
    r.ok("subscribe Vehicle.Car Position,Fuel,Sequence");
    r.ok("subscribe-ia Refuel Car,Litres");
    r.ok("publish-ia ChangeWeather");
    r.ok("publish Vehicle.Car Position,Range");

    let obj = object(&a.ok("register Vehicle.Car"));
    assert_eq!(discover(&mut b, &obj)["class"], "Vehicle");
    assert_eq!(discover(&mut r, &obj)["class"], "Vehicle.Car");

    // C++ → C++ and Rust: 16, 16, 8 and 1000 bytes.
    let (pos, vel, seq, fuel) = (
        pattern(16, 0),
        pattern(16, 200),
        vec![0, 0, 0, 0, 0, 0, 0, 1],
        pattern(1000, 7),
    );
    a.ok(&format!(
        "update {obj} Position={},Velocity={},Sequence={},Fuel={}",
        hex(&pos),
        hex(&vel),
        hex(&seq),
        hex(&fuel)
    ));
    let rb = reflect_of(&mut b, &obj);
    assert_eq!(
        values(&rb),
        json!({"Position": hex(&pos), "Velocity": hex(&vel)})
    );
    assert_eq!(rb["tag"], hex(b"cpp"));
    let rr = reflect_of(&mut r, &obj);
    assert_eq!(
        values(&rr),
        json!({"Position": hex(&pos), "Sequence": hex(&seq), "Fuel": hex(&fuel)})
    );
    assert_eq!(rr["tag"], hex(b"cpp"));

    // Interactions, C++ → C++ and Rust, and Rust → C++.
    let (car, litres) = (b"car-1\0\xff".to_vec(), pattern(8, 99));
    a.ok(&format!(
        "send Refuel Car={},Litres={}",
        hex(&car),
        hex(&litres)
    ));
    let want = json!({"Car": hex(&car), "Litres": hex(&litres)});
    for f in [&mut b, &mut r] {
        let i = f.next("interaction");
        assert_eq!(i["class"], "Refuel", "[{}] {i}", f.name);
        assert_eq!(i["params"], want, "[{}] {i}", f.name);
        assert_eq!(i["tag"], hex(b"cpp"));
    }
    let wind = pattern(24, 3);
    r.ok(&format!("send ChangeWeather Wind={}", hex(&wind)));
    let i = a.next("interaction");
    assert_eq!(i["class"], "ChangeWeather");
    assert_eq!(i["params"], json!({"Wind": hex(&wind)}));
    assert_eq!(i["tag"], hex(b"rust"));

    // Request attribute value update: A is asked and answers from inside the callback.
    b.ok(&format!("request-update {obj} Position"));
    let p = a.next("provide");
    assert_eq!(p["object"], obj.as_str());
    assert_eq!(p["attrs"], json!(["Position"]));
    let again = b.next_where("provided reflect", |v| {
        v["event"] == "reflect" && v["tag"] == hex(b"provided")
    });
    assert_eq!(values(&again), json!({"Position": hex(&pos)}));
    assert!(a.set_aside("provide_failed").is_empty());

    // Rust → both C++ federates.
    let robj = object(&r.ok("register Vehicle.Car"));
    assert_eq!(discover(&mut a, &robj)["class"], "Vehicle.Car");
    assert_eq!(discover(&mut b, &robj)["class"], "Vehicle");
    let (rpos, range) = (pattern(16, 77), pattern(8, 1));
    r.ok(&format!(
        "update {robj} Position={},Range={}",
        hex(&rpos),
        hex(&range)
    ));
    let ra = reflect_of(&mut a, &robj);
    assert_eq!(
        values(&ra),
        json!({"Position": hex(&rpos), "Range": hex(&range)})
    );
    assert_eq!(ra["tag"], hex(b"rust"));
    assert_eq!(
        values(&reflect_of(&mut b, &robj)),
        json!({"Position": hex(&rpos)})
    );

    // Delete → remove on every side, with the tag.
    a.ok(&format!("delete {obj}"));
    assert_eq!(remove_of(&mut b, &obj)["tag"], hex(b"bye"));
    assert_eq!(remove_of(&mut r, &obj)["tag"], hex(b"bye"));
    r.ok(&format!("delete {robj}"));
    assert_eq!(remove_of(&mut a, &robj)["tag"], hex(b"bye"));
    assert_eq!(remove_of(&mut b, &robj)["tag"], hex(b"bye"));

    for f in [&mut b, &mut r, &mut a] {
        f.ok("resign");
    }
    a.ok(&format!("destroy {}", net.federation));
}

fn time_managed(f: &mut Fed) {
    f.ok("regulate 1");
    assert_eq!(f.next("regulation_enabled")["time"].as_f64(), Some(0.0));
    f.ok("constrain");
    assert_eq!(f.next("constrained_enabled")["time"].as_f64(), Some(0.0));
}

#[test]
fn time_lockstep_and_ner_with_tso_order() {
    let net = Net::new("time");
    let mut a = net.cpp("cpp-a", Model::Evoked);
    let mut b = net.cpp("cpp-b", Model::Immediate);
    let mut r = net.rust("rust-r");
    join_all(&net, &mut a, &mut [&mut b, &mut r]);
    a.ok("publish Vehicle.Car Position");
    r.ok("publish Vehicle.Car Position");
    b.ok("subscribe Vehicle Position");
    let aobj = object(&a.ok("register Vehicle.Car"));
    let robj = object(&r.ok("register Vehicle.Car"));
    discover(&mut b, &aobj);
    discover(&mut b, &robj);
    // The demo FOM's Position is receive order; these updates are to go in time-stamp order.
    a.ok(&format!("tso {aobj} Position"));
    r.ok(&format!("tso {robj} Position"));
    for f in [&mut a, &mut b, &mut r] {
        time_managed(f);
    }

    // Lockstep: at time k-1 A sends at k+0.5 and Rust at k+0.25 (lookahead 1), everyone asks
    // for k and is granted exactly k.
    for k in 1..=5u32 {
        let now = f64::from(k - 1);
        if k <= 4 {
            a.ok(&format!("update {aobj} Position={:016x} {}", k, now + 1.5));
            r.ok(&format!(
                "update {robj} Position={:016x} {}",
                100 + k,
                now + 1.25
            ));
        }
        for f in [&mut a, &mut b, &mut r] {
            f.ok(&format!("tar {k}"));
        }
        a.granted(f64::from(k));
        r.granted(f64::from(k));
    }
    // B saw, in this order: each grant, then that step's two messages in time-stamp order.
    let seen: Vec<(String, f64, String)> = b
        .until("grant 5", |v| v["event"] == "grant" && v["time"] == 5.0)
        .into_iter()
        .filter(|v| v["event"] == "grant" || v["event"] == "reflect")
        .map(|v| {
            if v["event"] == "reflect" {
                assert_eq!(v["order"], "TSO", "{v}");
                assert_eq!(v["sent"], "TSO", "{v}");
            }
            (
                v["event"].as_str().unwrap_or_default().to_string(),
                v["time"].as_f64().unwrap_or(f64::NAN),
                v["values"]["Position"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        })
        .collect();
    let mut want = Vec::new();
    for k in 1..=5u32 {
        want.push(("grant".to_string(), f64::from(k), String::new()));
        if k <= 4 {
            let t = f64::from(k);
            want.push(("reflect".into(), t + 0.25, format!("{:016x}", 100 + k)));
            want.push(("reflect".into(), t + 0.5, format!("{k:016x}")));
        }
    }
    assert_eq!(seen, want);

    // NER: B is granted at each message's time, in order; the others' TAR(10) waits for B.
    a.ok(&format!("update {aobj} Position={:016x} 7.25", 7));
    r.ok(&format!("update {robj} Position={:016x} 8.5", 8));
    a.ok("tar 10");
    r.ok("tar 10");
    b.ok("ner 20");
    let first = b.until("grant", |v| v["event"] == "grant");
    let reflects: Vec<&Value> = first.iter().filter(|v| v["event"] == "reflect").collect();
    assert_eq!(reflects.len(), 1, "{first:?}");
    assert_eq!(reflects[0]["time"].as_f64(), Some(7.25));
    assert_eq!(reflects[0]["object"], aobj.as_str());
    assert_eq!(first.last().map(|g| g["time"].as_f64()), Some(Some(7.25)));
    b.ok("ner 20");
    let second = b.until("grant", |v| v["event"] == "grant");
    let reflects: Vec<&Value> = second.iter().filter(|v| v["event"] == "reflect").collect();
    assert_eq!(reflects.len(), 1, "{second:?}");
    assert_eq!(reflects[0]["time"].as_f64(), Some(8.5));
    assert_eq!(reflects[0]["object"], robj.as_str());
    assert_eq!(second.last().map(|g| g["time"].as_f64()), Some(Some(8.5)));
    b.ok("ner 20");
    a.granted(10.0);
    r.granted(10.0);
    assert_eq!(b.ok("query-time")["time"].as_f64(), Some(8.5));
}

#[test]
fn callbacks_that_call_the_rti_in_both_models() {
    let net = Net::new("callbacks");
    let mut a = net.cpp("cpp-evoked", Model::Evoked);
    let mut b = net.cpp("cpp-immediate", Model::Immediate);
    let mut r = net.rust("rust-r");
    join_all(&net, &mut a, &mut [&mut b, &mut r]);
    let mut objs = Vec::new();
    for f in [&mut a, &mut b, &mut r] {
        f.ok("publish Vehicle.Car Position");
        f.ok("subscribe Vehicle.Car Position");
        objs.push(object(&f.ok("register Vehicle.Car")));
    }
    let (aobj, bobj, robj) = (objs[0].clone(), objs[1].clone(), objs[2].clone());
    for (f, others) in [
        (&mut a, [&bobj, &robj]),
        (&mut b, [&aobj, &robj]),
        (&mut r, [&aobj, &bobj]),
    ] {
        for o in others {
            discover(f, o);
        }
    }

    // Each C++ federate sends every reflection of Rust's object on as an update of its own,
    // from inside reflectAttributeValues.
    a.ok(&format!("echo {robj} {aobj}"));
    b.ok(&format!("echo {robj} {bobj}"));
    for n in 0..3u8 {
        let v = pattern(32, n);
        r.ok(&format!("update {robj} Position={}", hex(&v)));
        for (f, own) in [(&mut a, &aobj), (&mut b, &bobj)] {
            assert_eq!(values(&reflect_of(f, &robj)), json!({"Position": hex(&v)}));
            let e = f.next_where("echo", |v| {
                v["event"] == "echoed" || v["event"] == "echo_failed"
            });
            assert_eq!(e["event"], "echoed", "[{}] {e}", f.name);
            assert_eq!(e["object"], own.as_str());
        }
        for own in [&aobj, &bobj] {
            let got = reflect_of(&mut r, own);
            assert_eq!(values(&got), json!({"Position": hex(&v)}), "{own}");
            assert_eq!(got["tag"], hex(b"rust"));
        }
    }

    // Each C++ federate requests its next advance from inside timeAdvanceGrant; the test only
    // asks for the first. Rust steps in lockstep beside them.
    for f in [&mut a, &mut b, &mut r] {
        time_managed(f);
    }
    a.ok("auto-advance 1 10");
    b.ok("auto-advance 1 10");
    a.ok("tar 1");
    b.ok("tar 1");
    for k in 1..=10 {
        r.ok(&format!("tar {k}"));
        r.granted(f64::from(k));
    }
    for f in [&mut a, &mut b] {
        for k in 1..=10 {
            f.granted(f64::from(k));
        }
        assert!(
            f.set_aside("advance_failed").is_empty(),
            "[{}] {:?}",
            f.name,
            f.set_aside("advance_failed")
        );
        assert_eq!(f.ok("query-time")["time"].as_f64(), Some(10.0));
    }
}

#[test]
fn misuse_throws_the_standard_class_and_the_federate_goes_on() {
    let net = Net::new("misuse");
    let mut a = net.cpp("cpp-a", Model::Evoked);
    let mut r = net.rust("rust-r");

    a.fails_with(
        &format!("join {}-nonexistent cpp-a", net.federation),
        "FederationExecutionDoesNotExist",
    );
    join_all(&net, &mut a, &mut [&mut r]);

    a.fails_with("register Vehicle.Car", "ObjectClassNotPublished");
    a.ok("publish Vehicle.Car Position");
    a.ok("subscribe Vehicle.Car Position");
    let aobj = object(&a.ok("register Vehicle.Car"));

    r.ok("publish Vehicle.Car Position");
    r.ok("subscribe Vehicle.Car Position");
    let robj = object(&r.ok("register Vehicle.Car"));
    discover(&mut a, &robj);
    discover(&mut r, &aobj);
    a.fails_with(&format!("update {robj} Position=01"), "AttributeNotOwned");
    a.ok(&format!("update {aobj} Position=02"));
    assert_eq!(
        values(&reflect_of(&mut r, &aobj)),
        json!({"Position": "02"})
    );

    // evokeCallback from inside a callback.
    a.ok("evoke-in-callback");
    r.ok(&format!("update {robj} Position=03"));
    assert_eq!(
        values(&reflect_of(&mut a, &robj)),
        json!({"Position": "03"})
    );
    let c = a.next("callback_call");
    assert_eq!(c["exception"], "CallNotAllowedFromWithinCallback", "{c}");
    r.ok(&format!("update {robj} Position=04"));
    assert_eq!(
        values(&reflect_of(&mut a, &robj)),
        json!({"Position": "04"})
    );

    // A second request while one is pending; Rust (regulating at 0) holds A's grant back.
    time_managed(&mut a);
    r.ok("regulate 1");
    r.next("regulation_enabled");
    a.ok("tar 5");
    a.fails_with("tar 6", "InTimeAdvancingState");
    r.ok("tar 10");
    a.granted(5.0);
    r.granted(10.0);

    a.fails_with(
        &format!("destroy {}", net.federation),
        "FederatesCurrentlyJoined",
    );
    a.ok(&format!("update {aobj} Position=05 7"));
    r.ok("resign");
    a.ok("resign");
    a.ok(&format!("destroy {}", net.federation));
}

#[test]
fn sync_save_restore_and_ownership_driven_from_cpp() {
    let net = Net::new("syncsave");
    let mut a = net.cpp("cpp-a", Model::Evoked);
    // Built with CMake's find_package(RTI1516e) where CMake is installed.
    let mut b = if sdk::cmake_available("sync_save_restore_and_ownership_driven_from_cpp") {
        net.cpp_cmake("cpp-cmake", Model::Immediate)
    } else {
        net.cpp("cpp-b", Model::Immediate)
    };
    let mut r = net.rust("rust-r");
    join_all(&net, &mut a, &mut [&mut b, &mut r]);

    a.ok("sync ready");
    assert_eq!(a.next("sync_registered")["label"], "ready");
    for f in [&mut a, &mut b, &mut r] {
        assert_eq!(f.next("announce")["label"], "ready", "[{}]", f.name);
    }
    for f in [&mut a, &mut b, &mut r] {
        f.ok("achieve ready");
    }
    for f in [&mut a, &mut b, &mut r] {
        let s = f.next("synchronized");
        assert_eq!(s["label"], "ready");
        assert_eq!(s["failed"], 0);
    }

    // Save at time 3, go on to 6, restore: both C++ federates are back at 3.
    time_managed(&mut a);
    time_managed(&mut b);
    a.ok("tar 3");
    b.ok("tar 3");
    a.granted(3.0);
    b.granted(3.0);
    a.ok("save s1");
    for f in [&mut a, &mut b, &mut r] {
        assert_eq!(f.next("initiate_save")["label"], "s1", "[{}]", f.name);
        f.ok("save-begun");
        f.ok("save-complete");
    }
    for f in [&mut a, &mut b, &mut r] {
        f.next("saved");
    }
    a.ok("tar 6");
    b.ok("tar 6");
    a.granted(6.0);
    b.granted(6.0);
    a.ok("restore s1");
    assert_eq!(a.next("restore_request_succeeded")["label"], "s1");
    for f in [&mut a, &mut b, &mut r] {
        f.next("restore_begun");
        let i = f.next("initiate_restore");
        assert_eq!(i["label"], "s1");
        assert_eq!(i["name"], f.name.as_str());
        f.ok("restore-complete");
    }
    for f in [&mut a, &mut b, &mut r] {
        f.next("restored");
    }
    assert_eq!(a.ok("query-time")["time"].as_f64(), Some(3.0));
    assert_eq!(b.ok("query-time")["time"].as_f64(), Some(3.0));

    // Negotiated ownership transfer of Position from A to B, driven from C++.
    a.ok("publish Vehicle.Car Position,Fuel");
    b.ok("publish Vehicle.Car Position,Fuel");
    b.ok("subscribe Vehicle.Car Position,Fuel");
    r.ok("subscribe Vehicle.Car Position");
    let obj = object(&a.ok("register Vehicle.Car"));
    discover(&mut b, &obj);
    discover(&mut r, &obj);
    a.ok(&format!("negotiate {obj} Position"));
    let offer = b.next("assumption_request");
    assert_eq!(offer["object"], obj.as_str());
    assert_eq!(offer["attrs"], json!(["Position"]));
    b.ok(&format!("acquire {obj} Position"));
    let c = a.next("confirm_request");
    assert_eq!(c["attrs"], json!(["Position"]));
    a.ok(&format!("confirm {obj} Position"));
    let got = b.next("acquired");
    assert_eq!(got["object"], obj.as_str());
    assert_eq!(got["attrs"], json!(["Position"]));
    assert_eq!(b.ok(&format!("owned {obj} Position"))["owned"], true);
    assert_eq!(a.ok(&format!("owned {obj} Position"))["owned"], false);
    assert_eq!(a.ok(&format!("owned {obj} Fuel"))["owned"], true);
    a.fails_with(&format!("update {obj} Position=aa"), "AttributeNotOwned");
    b.ok(&format!("update {obj} Position=bb"));
    assert_eq!(values(&reflect_of(&mut r, &obj)), json!({"Position": "bb"}));
}

#[test]
fn a_killed_cpp_federate_is_removed_without_stalling_the_others() {
    let net = Net::new("kill");
    let mut a = net.cpp("cpp-a", Model::Evoked);
    let mut b = net.cpp("cpp-b", Model::Immediate);
    let mut r = net.rust("rust-r");
    join_all(&net, &mut a, &mut [&mut b, &mut r]);
    a.ok("publish Vehicle.Car Position");
    r.ok("publish Vehicle.Car Position");
    b.ok("subscribe Vehicle Position");
    r.ok("subscribe Vehicle Position");
    let aobj = object(&a.ok("register Vehicle.Car"));
    discover(&mut b, &aobj);
    discover(&mut r, &aobj);
    time_managed(&mut a);
    time_managed(&mut r);
    a.ok(&format!("update {aobj} Position=0a"));
    assert_eq!(
        values(&reflect_of(&mut b, &aobj)),
        json!({"Position": "0a"})
    );

    // A (regulating at 0, lookahead 1) holds Rust's TAR(5) back until it is gone.
    r.ok("tar 5");
    // Rust is constrained without asynchronous delivery: the receive-order update reaches it
    // once it is advancing.
    assert_eq!(
        values(&reflect_of(&mut r, &aobj)),
        json!({"Position": "0a"})
    );
    assert!(
        r.set_aside("grant").is_empty(),
        "granted while A held it back"
    );
    let killed = Instant::now();
    a.kill9();
    let gone_at_b = {
        remove_of(&mut b, &aobj);
        killed.elapsed()
    };
    r.granted(5.0);
    let granted = killed.elapsed();
    remove_of(&mut r, &aobj);
    let gone_at_r = killed.elapsed();
    eprintln!(
        "kill -9 of a C++ federate: removed at the C++ federate after {gone_at_b:?}, \
         Rust granted after {granted:?}, removed at Rust after {gone_at_r:?}"
    );
    for d in [gone_at_b, granted, gone_at_r] {
        assert!(d < Duration::from_millis(2500), "{d:?}");
    }
    // The others go on.
    let robj = object(&r.ok("register Vehicle.Car"));
    discover(&mut b, &robj);
    r.ok(&format!("update {robj} Position=0b 7"));
    assert_eq!(
        values(&reflect_of(&mut b, &robj)),
        json!({"Position": "0b"})
    );
    r.ok("tar 8");
    r.granted(8.0);
}

/// The C++ example federate (`fed-examples/cpp`), built with its own CMakeLists.txt from the
/// installed SDK, joins a federation of the demo's FOM, decodes a Rust car's values with the
/// standard encoding helpers, and resigns when the car is gone.
#[test]
fn the_cpp_example_viewer_decodes_a_rust_car() {
    let net = Net::new("viewer");
    let source = sdk::repo_root().join("fed-examples/cpp");
    // With its own CMakeLists.txt where CMake is installed, else as the README's pkg-config
    // line builds it.
    let viewer_exe = if sdk::cmake_available("the_cpp_example_viewer_decodes_a_rust_car") {
        sdk::cmake_build(&source, "sdk-cpp-viewer").map(|b| b.join("cpp_viewer"))
    } else {
        sdk::build_with_pkg_config(
            &source.join("viewer.cpp"),
            "sdk-cpp-viewer-pc",
            "cpp_viewer",
        )
    }
    .unwrap_or_else(|e| panic!("{e}"));
    let mut r = net.rust("rust-car");
    r.ok(&format!(
        "create {} {}",
        net.federation,
        sdk::demo_fom().display()
    ));
    r.ok(&format!("join {} rust-car", net.federation));
    r.ok("publish Vehicle.Car Position,Velocity,Sequence,Fuel,Range");
    let car = object(&r.ok("register Vehicle.Car"));
    let mut viewer = net.spawn_plain(&viewer_exe, &[&net.federation, "60"], "cpp-viewer");
    viewer.next_where("discovered", |v| {
        v.as_str().is_some_and(|l| l.starts_with("discovered "))
    });
    // Vector2D (1.5, -2.0), (0.25, 0); Sequence 1; Fuel 40; Range 123456.5 — big endian.
    let f = |x: f64| hex(&x.to_be_bytes());
    r.ok(&format!(
        "update {car} Position={}{},Velocity={}{},Sequence={},Fuel={},Range={}",
        f(1.5),
        f(-2.0),
        f(0.25),
        f(0.0),
        hex(&1i64.to_be_bytes()),
        f(40.0),
        f(123_456.5)
    ));
    r.ok(&format!(
        "update {car} Sequence={}",
        hex(&2i64.to_be_bytes())
    ));
    r.ok(&format!("delete {car}"));
    let summary = viewer.until("summary", |v| {
        v.as_str().is_some_and(|l| l.contains("reflections"))
    });
    let line = summary
        .last()
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    assert!(
        line.contains(
            "2 reflections, last sequence 2, 0 out of order, position (1.5, -2), \
             velocity (0.25, 0), fuel 40, range 123456.5"
        ),
        "{summary:?}"
    );
}
