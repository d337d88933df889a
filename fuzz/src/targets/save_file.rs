//! The save-file reader (`save_file::decode`, what `save_file::read` runs on a file's bytes):
//! on the raw bytes, and on the same bytes as the body of a file with a valid header and
//! checksum, so that hostile bodies reach the postcard decoder.
//!
//! Invariants: any bytes give a state or a typed error; a state that decodes is written back
//! by the real encoder to a file that decodes to a state written identically.

use hlamesh_lrc::save_file::{self, FORMAT_VERSION, MAGIC};

/// See the module docs.
pub fn run(data: &[u8]) {
    check(data);
    let sum = ring_sha256(data);
    let mut file = Vec::with_capacity(MAGIC.len() + 2 + 32 + data.len());
    file.extend_from_slice(MAGIC);
    file.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    file.extend_from_slice(&sum);
    file.extend_from_slice(data);
    check(&file);
}

fn check(bytes: &[u8]) {
    match save_file::decode(bytes) {
        Ok(state) => {
            let enc = save_file::encode(&state).expect("a decoded state encodes");
            let again = save_file::decode(&enc).expect("an encoded state decodes");
            assert_eq!(save_file::encode(&again).ok(), Some(enc));
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

fn ring_sha256(body: &[u8]) -> [u8; 32] {
    let mut out = [0u8; 32];
    out.copy_from_slice(ring::digest::digest(&ring::digest::SHA256, body).as_ref());
    out
}
