#![no_main]
//! libFuzzer entry of the `save_file` target (see `hlamesh_fuzz::targets::save_file`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::save_file::run(data));
