//! The standard's headers: all 30 are there, each keeps IEEE's attribution line, and they
//! build cleanly (`-Wall -Wextra -Werror -pedantic`) as C++17 and C++20; the factory results
//! go into `std::auto_ptr` and `std::unique_ptr` alike; a federate's ambassador class builds
//! and links.

mod common;

use std::path::{Path, PathBuf};

const ATTRIBUTION: &str = "Reprinted with permission from IEEE 1516.1(TM)-2010";

fn headers() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("read the include directory") {
            let path = entry.expect("directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "h") {
                out.push(path);
            }
        }
    }
    let mut out = Vec::new();
    walk(&hlamesh_cpp::include_dir(), &mut out);
    out.sort();
    out
}

#[test]
fn the_thirty_headers_are_there_with_the_attribution() {
    let all = headers();
    let names: Vec<String> = all
        .iter()
        .map(|p| {
            p.strip_prefix(hlamesh_cpp::include_dir())
                .expect("under include/")
                .display()
                .to_string()
        })
        .collect();
    assert_eq!(all.len(), 30, "{names:#?}");
    for expected in [
        "RTI/RTI1516.h",
        "RTI/RTIambassador.h",
        "RTI/FederateAmbassador.h",
        "RTI/encoding/HLAvariantRecord.h",
        "RTI/time/HLAinteger64TimeFactory.h",
    ] {
        assert!(names.iter().any(|n| n == expected), "{expected} missing");
    }
    for path in &all {
        let text = std::fs::read_to_string(path).expect("read header");
        assert!(
            text.contains(ATTRIBUTION),
            "{} lacks the IEEE attribution line",
            path.display()
        );
        // Only OwnedPtr's conversions (in SpecificConfig.h) may name std::auto_ptr; no API
        // function returns one.
        if !path.ends_with("SpecificConfig.h") {
            assert!(
                !text.contains("auto_ptr"),
                "{} still returns std::auto_ptr",
                path.display()
            );
        }
    }
}

fn compile_all_headers(std: &str) {
    let dir = common::work_dir("headers");
    let tu = dir.join(format!("all-headers-{std}.cpp"));
    let mut text: String = headers()
        .iter()
        .map(|p| {
            format!(
                "#include <{}>\n",
                p.strip_prefix(hlamesh_cpp::include_dir())
                    .expect("under include/")
                    .display()
            )
        })
        .collect();
    text.push_str("int main() { return 0; }\n");
    std::fs::write(&tu, text).expect("write the translation unit");
    let args: Vec<String> = vec![
        format!("-std={std}"),
        "-fsyntax-only".into(),
        "-Wall".into(),
        "-Wextra".into(),
        "-Wpedantic".into(),
        "-Wnon-virtual-dtor".into(),
        "-Werror".into(),
        "-I".into(),
        hlamesh_cpp::include_dir().display().to_string(),
        tu.display().to_string(),
    ];
    common::compile(&args).unwrap_or_else(|e| panic!("the headers do not build as {std}:\n{e}"));
}

#[test]
fn headers_build_cleanly_as_cxx17() {
    compile_all_headers("c++17");
}

#[test]
fn headers_build_cleanly_as_cxx20() {
    compile_all_headers("c++20");
}

#[test]
fn factory_results_go_into_auto_ptr_and_unique_ptr() {
    for std in ["c++17", "c++20"] {
        let exe = common::build_program("owned_ptr", std);
        assert_eq!(common::run_program(&exe, &[], "").trim(), "ok", "{std}");
    }
}

#[test]
fn without_auto_ptr_the_unique_ptr_forms_still_build() {
    let exe = common::work_dir("owned_ptr").join("owned_ptr-no-auto-ptr");
    let mut args: Vec<String> = vec![
        "-std=c++20".into(),
        "-DRTI_NO_AUTO_PTR".into(),
        "-DHLAMESH_TEST_NO_AUTO_PTR".into(),
        "-Wall".into(),
        "-Wextra".into(),
        "-Werror".into(),
        "-I".into(),
        hlamesh_cpp::include_dir().display().to_string(),
        common::program_dir()
            .join("owned_ptr.cpp")
            .display()
            .to_string(),
        "-o".into(),
        exe.display().to_string(),
    ];
    args.extend(common::link_args());
    common::compile(&args).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(common::run_program(&exe, &[], "").trim(), "ok");
}

#[test]
fn a_federate_ambassador_builds_and_links() {
    let exe = common::build_program("federate_skeleton", "c++17");
    assert_eq!(common::run_program(&exe, &[], "").trim(), "ok");
}
