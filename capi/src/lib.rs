//! # hlamesh-rti1516e: `librti1516e.so`
//!
//! The IEEE 1516-2010 C++ API (`rti1516e::RTIambassador`, `rti1516e::FederateAmbassador`) over
//! the Rust LRC, as the shared library C++ federates link (`-lrti1516e`). Two halves:
//!
//! * **A C ABI in Rust** (this crate): `extern "C"` functions `hlm_*`, declared by hand in
//!   `include/hlamesh/hlm.h`. Each takes the opaque `hlm_rti*` ([`services::HlmRti`]), handles
//!   as numbers, text as UTF-8 pointer and length, values as arrays of `{handle, ptr, len}`,
//!   times as [`ffi::HlmTime`], and returns 0 or the code of the standard exception class
//!   ([`exceptions`]) with its message. Callbacks go the other way through one C function
//!   registered at connect ([`callbacks`]).
//! * **A C++ shim** (`cpp/`, compiled by `build.rs` together with the standard API's C++ in
//!   `../cpp`): `RTIambassadorImplementation` and `RTIambassadorFactory`, which convert
//!   `std::wstring`, handles and times, call the `hlm_*` functions and throw the matching
//!   exception class; its trampoline delivers callbacks to the federate's ambassador inside
//!   `try { } catch (...)`.
//!
//! `capi/README.md` has what works, the designator form and the services not implemented.
//!
//! ## Why unsafe
//!
//! The workspace forbids `unsafe_code`; this crate is the one exception, and only because a C
//! ABI cannot be written without it: C hands us raw pointers (to `hlm_rti`, to strings, arrays
//! and out-parameters) that Rust can only read through `unsafe`, exported functions must be
//! `#[unsafe(no_mangle)]`, and the callback table is a C function pointer plus a `void*`
//! context that must be called and sent across threads. The exception is made in this crate's
//! `Cargo.toml` (`[lints.rust] unsafe_code = "allow"`, instead of the workspace's lints) and
//! bounded: `unsafe_op_in_unsafe_fn` is denied and Clippy's `undocumented_unsafe_blocks` too, so
//! every unsafe operation is a small block with a `// SAFETY:` comment. Raw pointers are turned
//! into owned Rust values at the boundary ([`ffi::FromC`]); nothing else in the crate touches
//! them. Every exported body runs inside `catch_unwind`: a panic becomes `RTIinternalError`,
//! never an unwind into C++; the C++ side catches everything a federate callback throws.
#![deny(unsafe_op_in_unsafe_fn)]

// Everything lives in one module, `abi`: the crate is named `rti1516e` like the C++ namespace,
// and `rti1516e.map` tells the two apart by the mangled length of the first name after
// `rti1516e::` (3, "abi", is no C++ class of the API), so no Rust symbol is exported.
pub mod abi;
pub use abi::{callbacks, designator, exceptions, ffi, services};

/// The directory of the header declaring the C ABI (`hlamesh/hlm.h` under it).
pub const INCLUDE_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/include");

/// The SONAME of the library (`librti1516e.so.1`).
pub const SONAME: &str = "librti1516e.so.1";
