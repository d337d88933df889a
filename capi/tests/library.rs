//! `librti1516e.so` is the library C++ federates link: SONAME `librti1516e.so.1`, linked
//! against libstdc++, exporting the standard's C++ API (the factory, the classes' methods,
//! vtables and the typeinfo of all 121 exception classes, which a federate needs to catch
//! them) and exactly the `hlm_*` functions `hlm.h` declares; no Rust internals.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use rti1516e::exceptions::EXCEPTION_CLASSES;

fn tool(cmd: &str, args: &[&str]) -> String {
    let out = Command::new(cmd)
        .args(args)
        .arg(common::library())
        .output()
        .unwrap_or_else(|e| panic!("{cmd}: {e}"));
    assert!(out.status.success(), "{cmd} {args:?}: {out:?}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn soname_and_libstdcxx() {
    let d = tool("readelf", &["-d"]);
    assert!(d.contains("Library soname: [librti1516e.so.1]"), "{d}");
    assert!(d.contains("Shared library: [libstdc++.so.6]"), "{d}");
}

#[test]
fn exports_the_cpp_api_and_the_declared_hlm_functions_only() {
    let nm = tool("nm", &["-DC", "--defined-only"]);
    let names: BTreeSet<&str> = nm.lines().filter_map(|l| l.splitn(3, ' ').nth(2)).collect();
    for needed in [
        "rti1516e::RTIambassadorFactory::createRTIambassador()",
        "rti1516e::RTIambassadorFactory::RTIambassadorFactory()",
        "typeinfo for rti1516e::RTIambassador",
        "typeinfo for rti1516e::FederateAmbassador",
        "vtable for rti1516e::HLAfloat64Time",
        "rti1516e::HLAinteger64TimeFactory::makeInitial()",
        "rti1516e::VariableLengthData::VariableLengthData()",
        "rti1516e::HLAopaqueData::HLAopaqueData()",
    ] {
        assert!(names.contains(needed), "{needed} is not exported");
    }
    for class in EXCEPTION_CLASSES {
        let ti = format!("typeinfo for rti1516e::{class}");
        assert!(names.contains(ti.as_str()), "{ti} is not exported");
    }
    // The hlm_* functions: exactly those the header declares.
    let header =
        std::fs::read_to_string(common::root().join("capi/include/hlamesh/hlm.h")).unwrap();
    let declared: BTreeSet<String> = header
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .filter(|w| w.starts_with("hlm_") && header.contains(&format!("{w} (")))
        .map(str::to_string)
        .collect();
    let exported: BTreeSet<String> = names
        .iter()
        .filter(|n| n.starts_with("hlm_"))
        .map(|n| n.to_string())
        .collect();
    assert_eq!(exported, declared);
    // Nothing of the Rust side but the hlm_* functions (the crate shares the name rti1516e).
    let rust: Vec<&&str> = names
        .iter()
        .filter(|n| {
            n.contains("rti1516e::abi")
                || n.contains("hlamesh_lrc")
                || n.contains("hlamesh_core")
                || n.contains("::h0")
        })
        .collect();
    assert!(rust.is_empty(), "Rust internals exported: {rust:?}");
    // The shim's own class and helpers stay hidden.
    assert!(
        !names.iter().any(|n| n.contains("hlamesh::capi")),
        "shim exported"
    );
}
