#![no_main]
//! libFuzzer entry of the `beacon` target (see `hlamesh_fuzz::targets::beacon`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::beacon::run(data));
