//! Compiles the C++ implementation of the standard's API into two static archives in
//! `OUT_DIR`: `librti1516e.a` and `libfedtime1516e.a`. Nothing Rust links them yet (the
//! `extern "C"` layer over the LRC is the next step); the tests build C++ programs against
//! them, as a federate would.

include!("sources.rs");

fn archive(name: &str, sources: &[&str]) {
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std(CXX_STD)
        .include("include")
        .files(sources)
        .flag("-fvisibility=hidden")
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .cargo_metadata(false);
    build.compile(name);
}

fn main() {
    println!("cargo:rerun-if-changed=include");
    println!("cargo:rerun-if-changed=src");
    println!("cargo:rerun-if-changed=sources.rs");
    println!("cargo:rerun-if-env-changed=CXX");
    println!("cargo:rerun-if-env-changed=CXXFLAGS");
    archive("rti1516e", RTI_SOURCES);
    archive("fedtime1516e", FEDTIME_SOURCES);
}
