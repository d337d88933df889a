//! The C ABI's two sides agree: `hlm.h` declares exactly the services Rust exports, with the
//! same parameter types; the exception codes are one table in Rust, in `hlm.h`
//! (`HLM_EXCEPTIONS`, which the C++ shim throws from) and in `RTI/Exception.h`'s order; every
//! `RtiError` variant maps to the exception class of its name, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

use std::collections::BTreeMap;

use hlamesh_lrc::error::RtiError;
use rti1516e::exceptions::{EXCEPTION_CLASSES, class_of, code_and_message, code_of_class};
use rti1516e::services::{HAND_WRITTEN_SIGNATURES, SIGNATURES};

fn header() -> String {
    std::fs::read_to_string(common::root().join("capi/include/hlamesh/hlm.h")).unwrap()
}

/// `int32_t hlm_x (hlm_rti *rti, …, hlm_text *message);` → name → parameter types between
/// the first and the last, spaces removed (`uint32_t*` for an out parameter).
fn declared_services() -> BTreeMap<String, Vec<String>> {
    let h = header();
    let mut out = BTreeMap::new();
    for decl in h.split(';') {
        let decl = decl.trim();
        let Some(rest) = decl
            .rsplit('\n')
            .next()
            .and_then(|l| l.strip_prefix("int32_t hlm_"))
        else {
            continue;
        };
        let (name, params) = rest.split_once('(').unwrap();
        let params = params.trim_end_matches(')');
        let types: Vec<String> = params
            .split(',')
            .map(|p| {
                let p = p.trim();
                let name_len = p
                    .chars()
                    .rev()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .count();
                p[..p.len() - name_len].replace(' ', "")
            })
            .collect();
        out.insert(format!("hlm_{}", name.trim()), types);
    }
    out
}

#[test]
fn header_declares_every_service_with_the_rust_parameter_types() {
    let declared = declared_services();
    let mut rust = BTreeMap::new();
    for (name, args, out) in SIGNATURES.iter().chain(HAND_WRITTEN_SIGNATURES) {
        let mut v = vec!["hlm_rti*".to_string()];
        v.extend(args.iter().map(|a| a.replace(' ', "")));
        if let Some(o) = out {
            v.push(format!("{o}*"));
        }
        v.push("hlm_text*".to_string());
        rust.insert(name.to_string(), v);
    }
    // hlm_rti_new is the one int32_t function that takes no hlm_rti.
    let mut declared = declared;
    assert_eq!(
        declared.remove("hlm_rti_new"),
        Some(vec!["hlm_rti**".to_string(), "hlm_text*".to_string()])
    );
    assert_eq!(declared.len(), 125, "services in hlm.h");
    for (name, types) in &declared {
        assert_eq!(
            rust.get(name),
            Some(types),
            "{name}: hlm.h {types:?} vs Rust"
        );
    }
    for name in rust.keys() {
        assert!(
            declared.contains_key(name),
            "{name} is not declared in hlm.h"
        );
    }
}

#[test]
fn exception_table_matches_exception_h_and_hlm_h() {
    let exc = std::fs::read_to_string(common::root().join("cpp/include/RTI/Exception.h")).unwrap();
    let classes: Vec<&str> = exc
        .lines()
        .filter_map(|l| l.trim().strip_prefix("RTI_EXCEPTION("))
        .map(|l| l.trim_end_matches(')'))
        .collect();
    assert_eq!(classes.len(), 121);
    assert_eq!(classes, EXCEPTION_CLASSES.to_vec());
    let h = header();
    let listed: Vec<(i32, String)> = h
        .lines()
        .filter_map(|l| l.trim().strip_prefix("X("))
        .map(|l| {
            let (n, name) = l.split_once(',').unwrap();
            let name = name
                .trim()
                .trim_end_matches('\\')
                .trim()
                .trim_end_matches(')');
            (n.trim().parse().unwrap(), name.to_string())
        })
        .collect();
    let expected: Vec<(i32, String)> = EXCEPTION_CLASSES
        .iter()
        .enumerate()
        .map(|(i, c)| (i as i32 + 1, c.to_string()))
        .collect();
    assert_eq!(listed, expected);
}

#[test]
fn every_rti_error_variant_maps_to_the_class_of_its_name() {
    let src = std::fs::read_to_string(common::root().join("lrc/core/src/error.rs")).unwrap();
    let variants: Vec<&str> = src
        .lines()
        .filter_map(|l| l.trim().strip_suffix("(String),"))
        .collect();
    assert!(variants.len() >= 75, "{variants:?}");
    for v in variants {
        let e: RtiError =
            serde_json::from_value(serde_json::json!({ v: format!("message of {v}") })).unwrap();
        let (class, message) = class_of(&e);
        let expected = if v == "RtiInternalError" {
            "RTIinternalError"
        } else {
            v
        };
        assert!(
            class.eq_ignore_ascii_case(expected),
            "{v} is thrown as {class}"
        );
        assert_eq!(message, format!("message of {v}"));
        let (code, _) = code_and_message(&e);
        assert_eq!(code, code_of_class(class).unwrap());
        assert_eq!(EXCEPTION_CLASSES[code as usize - 1], class);
    }
}

#[test]
fn every_listed_class_is_a_cpp_exception_class() {
    // The C++ shim throws `rti1516e::Name(msg)` for each X(n, Name); this program catches each
    // as rti1516e::Exception, so a name that is no exception class fails to build.
    let dir = common::lib_dir().join("capi-test-bin");
    std::fs::create_dir_all(&dir).unwrap();
    let src = dir.join("exception_list.cpp");
    std::fs::write(
        &src,
        r#"#include <RTI/Exception.h>
#include <hlamesh/hlm.h>
#include <cstdio>
int main () {
   int n = 0;
#define CHECK(code, Name) try { throw rti1516e::Name(L"x"); } catch (rti1516e::Exception const &) { ++n; if (n != code) return 1; }
   HLM_EXCEPTIONS(CHECK)
   std::printf("%d\n", n);
   return n == 121 ? 0 : 1;
}
"#,
    )
    .unwrap();
    let exe = common::build_cpp(&src, "exception_list", &[]);
    let out = std::process::Command::new(&exe)
        .env("LD_LIBRARY_PATH", common::runtime_dir())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "121");
}
