#![no_main]
//! libFuzzer entry of the `receiver` target (see `hlamesh_fuzz::targets::receiver`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::receiver::run(data));
