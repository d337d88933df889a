//! The repository stands alone: nothing in it reads, includes or cites files outside it.
//!
//! The team keeps a reference shelf beside its own checkouts; a user's clone has no such folder,
//! so a path that climbs out of the repository into that folder or a citation of a document that
//! only the shelf has breaks a build, a test or a reader. This test walks every text file of the
//! repository (not `.git`, not build output) and fails on either.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("lrc/ sits in the repository root")
        .to_path_buf()
}

/// Every file of the repository that is text, skipping version control and build output.
fn text_files(root: &Path) -> Vec<(PathBuf, String)> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir)
            .expect("readable directory")
            .flatten()
        {
            let path = entry.path();
            let name = entry.file_name();
            let name = name.to_string_lossy();
            let Ok(kind) = entry.file_type() else {
                continue;
            };
            if kind.is_dir() {
                // A target dir inside the clone (the default) holds build output, not sources.
                if name == ".git" || name == "target" || path.join("CACHEDIR.TAG").exists() {
                    continue;
                }
                stack.push(path);
            } else if kind.is_file()
                && let Ok(bytes) = std::fs::read(&path)
                && let Ok(text) = String::from_utf8(bytes)
            {
                out.push((path, text));
            }
        }
    }
    out
}

/// A path out of the repository to the shelf, and the shelf's FOM folder, spelled in pieces so
/// that this file does not contain what it looks for.
const OUT_TO_SHELF: &str = concat!("..", "/", "shared");
const SHELF_FOMS: &str = concat!("shared", "/", "foms");

/// Names of documents that exist only on the team's shelf; the repository's own design documents
/// live in `docs/` and are cited by that path.
const SHELF_ONLY: [&str; 3] = ["HLA-REFERENCE", "RUST-NOTES", "CPP-API-NOTES"];

/// Problems in one file's text: paths out of the repository, shelf-only documents, and
/// citations of design documents that the repository's `docs/` does not have.
fn problems(text: &str, docs: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = |what: &str| format!("line {}: {what}: {}", n + 1, line.trim());
        if line.contains(OUT_TO_SHELF) || line.contains(SHELF_FOMS) {
            found.push(at("path outside the repository"));
        }
        for name in SHELF_ONLY {
            if line.contains(name) {
                found.push(at(&format!(
                    "cites {name}, which the repository does not have"
                )));
            }
        }
        for name in ["DESIGN", "LAB-NOTES", "TIME-ALGORITHM"] {
            if line.contains(name) && !docs.join(format!("{name}.md")).is_file() {
                found.push(at(&format!(
                    "cites {name}, but docs/{name}.md does not exist"
                )));
            }
        }
    }
    found
}

#[test]
fn nothing_in_the_repository_refers_outside_it() {
    let root = repo_root();
    let docs = root.join("docs");
    let me = Path::new(file!()).file_name().expect("this file's name");
    let files = text_files(&root);
    assert!(
        files.len() > 100,
        "walked only {} files from {}",
        files.len(),
        root.display()
    );
    let mut report = Vec::new();
    for (path, text) in &files {
        // This file names the shelf-only documents it looks for.
        if path.file_name() == Some(me) {
            continue;
        }
        for p in problems(text, &docs) {
            report.push(format!(
                "{}: {p}",
                path.strip_prefix(&root).unwrap_or(path).display()
            ));
        }
    }
    assert!(
        report.is_empty(),
        "{} reference(s) outside the repository:\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_check_sees_each_kind_of_reference() {
    let docs = Path::new("/nonexistent-docs");
    assert_eq!(
        problems(&format!("see {OUT_TO_SHELF}/foms/x.xml"), docs).len(),
        1
    );
    assert_eq!(problems("// HLA-REFERENCE §2", docs).len(), 1);
    assert_eq!(problems("//! (DESIGN.md §6)", docs).len(), 1);
    assert!(problems("shared by two threads; a shared secret", docs).is_empty());
}
