#![no_main]
//! libFuzzer entry of the `control_frame` target (see `hlamesh_fuzz::targets::control_frame`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::control_frame::run(data));
