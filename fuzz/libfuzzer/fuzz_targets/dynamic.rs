#![no_main]
//! libFuzzer entry of the `dynamic` target (see `hlamesh_fuzz::targets::dynamic`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::dynamic::run(data));
