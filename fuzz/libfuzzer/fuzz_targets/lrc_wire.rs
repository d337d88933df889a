#![no_main]
//! libFuzzer entry of the `lrc_wire` target (see `hlamesh_fuzz::targets::lrc_wire`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::lrc_wire::run(data));
