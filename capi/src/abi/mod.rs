//! The C ABI's modules (see the crate docs).

pub mod callbacks;
pub mod designator;
pub mod exceptions;
pub mod ffi;
pub mod log;
pub mod services;
