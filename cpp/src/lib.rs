//! # hlamesh-cpp
//!
//! The IEEE 1516-2010 ("HLA Evolved") C++ API for hlamesh, so that C++ federates written against
//! the standard's headers build against hlamesh. This crate holds the headers
//! (`cpp/include/RTI/…`, the standard's text with the attribution IEEE asks for, edited to build
//! under C++17 and C++20) and the C++ implementation of everything in them that needs no RTI:
//! the 121 exception classes, `VariableLengthData`, the handle classes, the encoding helpers,
//! and the `HLAfloat64Time` / `HLAinteger64Time` logical times. The build script compiles them
//! with the `cc` crate into two static archives in `OUT_DIR`, `librti1516e.a` and
//! `libfedtime1516e.a`.
//!
//! The `RTIambassador` over the Rust LRC (an `extern "C"` layer plus a C++ shim) and the shared
//! library `librti1516e.so.1` are the `hlamesh-rti1516e` crate (`capi/`), which compiles these
//! sources into itself; `deploy/install-sdk.sh` installs the SDK.
//!
//! The Rust side only tells tests (and later the SDK installer) where things are.
#![forbid(unsafe_code)]

use std::path::PathBuf;

include!("../sources.rs");

/// The directory that holds `RTI/RTI1516.h` and the rest of the standard's headers.
pub fn include_dir() -> PathBuf {
    crate_dir().join("include")
}

/// The crate's directory (C++ sources are [`RTI_SOURCES`] and [`FEDTIME_SOURCES`], relative
/// to it).
pub fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The directory that holds `librti1516e.a` and `libfedtime1516e.a`, as built for this crate.
pub fn lib_dir() -> PathBuf {
    PathBuf::from(env!("OUT_DIR"))
}

/// Link name of the RTI library (`-lrti1516e`).
pub const RTI_LIB: &str = "rti1516e";

/// Link name of the logical time library (`-lfedtime1516e`).
pub const FEDTIME_LIB: &str = "fedtime1516e";
