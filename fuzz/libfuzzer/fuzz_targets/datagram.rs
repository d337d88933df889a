#![no_main]
//! libFuzzer entry of the `datagram` target (see `hlamesh_fuzz::targets::datagram`).

libfuzzer_sys::fuzz_target!(|data: &[u8]| hlamesh_fuzz::targets::datagram::run(data));
