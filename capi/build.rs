//! Builds librti1516e.so's C++ half and tells the linker how to make the shared library.
//!
//! The C++ sources are the standard API's implementation in `cpp/` (listed in
//! `cpp/sources.rs`, compiled here by path, unchanged) plus the RTIambassador shim in
//! `capi/cpp/`. They go into one static archive linked whole into the cdylib, so every
//! `RTI_EXPORT` class ends up in the library even where Rust references none of it. rustc's
//! version script exports only the Rust `hlm_*` functions; `rti1516e.map` adds the C++ API
//! (everything else stays hidden: the C++ is compiled with `-fvisibility=hidden`).

// RTI_SOURCES, FEDTIME_SOURCES, CXX_STD (paths relative to cpp/).
include!("../cpp/sources.rs");

/// The shim: the RTIambassador over the C ABI, and the factory.
const SHIM_SOURCES: &[&str] = &["cpp/rti_ambassador.cpp", "cpp/callbacks.cpp"];

fn main() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let cpp = dir.join("../cpp");
    println!("cargo:rerun-if-changed=cpp");
    println!("cargo:rerun-if-changed=include");
    println!("cargo:rerun-if-changed=rti1516e.map");
    println!("cargo:rerun-if-changed=../cpp/include");
    println!("cargo:rerun-if-changed=../cpp/src");
    println!("cargo:rerun-if-changed=../cpp/sources.rs");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=CXXFLAGS");
    let _ = FEDTIME_SOURCES; // the fedtime library is built by the SDK (another crate)

    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std(CXX_STD)
        .include(cpp.join("include"))
        .include(cpp.join("src"))
        .include(dir.join("include"))
        .flag("-fvisibility=hidden")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .link_lib_modifier("+whole-archive");
    for s in RTI_SOURCES {
        build.file(cpp.join(s));
    }
    for s in SHIM_SOURCES {
        build.file(dir.join(s));
    }
    build.compile("rti1516e_cxx");

    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,librti1516e.so.1");
    println!(
        "cargo:rustc-cdylib-link-arg=-Wl,--version-script={}",
        dir.join("rti1516e.map").display()
    );
}
