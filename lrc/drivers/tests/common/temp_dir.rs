//! A directory of this test process under the system temp dir, emptied on creation and removed
//! on drop (save and restore tests point `HLAMESH_SAVE_DIR` at one).
#![allow(dead_code)]

use std::path::PathBuf;

pub struct TempDir(pub PathBuf);

impl TempDir {
    pub fn new(tag: &str) -> TempDir {
        let d = std::env::temp_dir().join(format!("hlamesh-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).expect("create the test's temporary directory");
        TempDir(d)
    }

    pub fn path(&self) -> &str {
        self.0.to_str().expect("temporary directory path is UTF-8")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
