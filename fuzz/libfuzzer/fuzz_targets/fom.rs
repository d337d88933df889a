#![no_main]
//! libFuzzer entry of the `fom` target (see `hlamesh_fuzz::targets::fom`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::fom::run(data));
