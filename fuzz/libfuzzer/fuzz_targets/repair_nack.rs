#![no_main]
//! libFuzzer entry of the `repair_nack` target (see `hlamesh_fuzz::targets::repair_nack`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::repair_nack::run(data));
