//! Where saves live and how the RTI's part of a save is written and read back.
//!
//! Layout: `<root>/<federation>/<label>/` holds one `<federate>.rti` file per federate (the RTI's
//! state for it, [`SavedFederateState`]) and one directory `<federate>/` the federate writes its
//! own state into ([`federate_state_dir`]), so application and RTI state are saved together.
//! The root is `$HLAMESH_SAVE_DIR`, else `$XDG_DATA_HOME/hlamesh/saves`, else
//! `~/.local/share/hlamesh/saves`.
//!
//! File format: the magic `HLAMESH-SAVE`, a little-endian `u16` format version, the SHA-256 of
//! the body, then the body (postcard). Written atomically: a temporary file in the same
//! directory, `fsync`, rename, `fsync` of the directory. A truncated, corrupted or foreign file
//! is a [`SaveFileError`] naming the file, never a panic.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::core::save::SavedFederateState;

/// Leading bytes of every save file.
pub const MAGIC: &[u8; 12] = b"HLAMESH-SAVE";
/// Current format version (5: queued callbacks carry their retraction handle, and
/// `request_retraction` may be among them; 6: the decision log is kept compacted, each
/// decision with its number; 7: subscriptions keep their update rates; 8: each federate's MOM
/// state and the federation's Auto-Provide switch, and ownership transfers the MOM made; 9: each
/// federate's DDM regions, associations and region subscriptions, and the update regions its LRC
/// knew; 10: each federate's conveyed region handles, and the sent regions of the reflections
/// and interactions it holds).
pub const FORMAT_VERSION: u16 = 10;

/// A save file could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SaveFileError {
    /// I/O on the file failed.
    #[error("save file {path}: {source}")]
    Io {
        /// File.
        path: PathBuf,
        /// Cause.
        source: std::io::Error,
    },
    /// Not a save file, another version, a bad checksum or a body that does not decode.
    #[error("save file {path} is corrupt or not an hlamesh save: {reason}")]
    Corrupt {
        /// File.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
}

/// The root directory of saves (see the module docs).
pub fn save_root() -> PathBuf {
    if let Some(d) = std::env::var_os("HLAMESH_SAVE_DIR") {
        return PathBuf::from(d);
    }
    if let Some(d) = std::env::var_os("XDG_DATA_HOME") {
        return PathBuf::from(d).join("hlamesh/saves");
    }
    match std::env::var_os("HOME") {
        Some(h) => PathBuf::from(h).join(".local/share/hlamesh/saves"),
        None => PathBuf::from("hlamesh-saves"),
    }
}

/// A path component from a user-chosen name: anything but `[A-Za-z0-9._-]` becomes `_`, and a
/// leading dot too, so a label can never climb out of the save directory.
fn component(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// `<root>/<federation>/<label>`.
pub fn save_dir(root: &Path, federation: &str, label: &str) -> PathBuf {
    root.join(component(federation)).join(component(label))
}

/// Where federate `name` writes (and on restore reads) its own state for this save.
pub fn federate_state_dir(root: &Path, federation: &str, label: &str, name: &str) -> PathBuf {
    save_dir(root, federation, label).join(component(name))
}

/// The RTI's file for federate `name`.
pub fn rti_file(root: &Path, federation: &str, label: &str, name: &str) -> PathBuf {
    save_dir(root, federation, label).join(format!("{}.rti", component(name)))
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> SaveFileError + '_ {
    move |source| SaveFileError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// What is wrong with the bytes of a save file (see [`decode`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SaveFormatError {
    /// Shorter than magic, version and checksum.
    #[error("truncated header")]
    TruncatedHeader,
    /// Another magic: not an hlamesh save.
    #[error("bad magic")]
    BadMagic,
    /// Written by another format version.
    #[error("format version {0}, this build reads {FORMAT_VERSION}")]
    Version(u16),
    /// The body is not the one the checksum was computed over.
    #[error("checksum mismatch (truncated or modified)")]
    Checksum,
    /// The checksum matches but the body is not a saved state of this version.
    #[error("body does not decode: {0}")]
    Body(String),
    /// The state could not be encoded (on write).
    #[error("cannot encode: {0}")]
    Encode(String),
}

/// The bytes of a save file holding `state`: magic, version, SHA-256 of the body, body.
pub fn encode(state: &SavedFederateState) -> Result<Vec<u8>, SaveFormatError> {
    let body = postcard::to_allocvec(state).map_err(|e| SaveFormatError::Encode(e.to_string()))?;
    let digest = ring::digest::digest(&ring::digest::SHA256, &body);
    let mut out = Vec::with_capacity(MAGIC.len() + 2 + 32 + body.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    out.extend_from_slice(digest.as_ref());
    out.extend_from_slice(&body);
    Ok(out)
}

/// Checks and decodes the bytes of a save file (inverse of [`encode`]); never panics on
/// arbitrary bytes, and a length inside the body cannot make it allocate more than the body's
/// size.
pub fn decode(bytes: &[u8]) -> Result<SavedFederateState, SaveFormatError> {
    let header = MAGIC.len() + 2 + 32;
    if bytes.len() < header {
        return Err(SaveFormatError::TruncatedHeader);
    }
    if &bytes[..MAGIC.len()] != MAGIC {
        return Err(SaveFormatError::BadMagic);
    }
    let version = u16::from_le_bytes([bytes[MAGIC.len()], bytes[MAGIC.len() + 1]]);
    if version != FORMAT_VERSION {
        return Err(SaveFormatError::Version(version));
    }
    let (sum, body) = bytes[MAGIC.len() + 2..].split_at(32);
    if ring::digest::digest(&ring::digest::SHA256, body).as_ref() != sum {
        return Err(SaveFormatError::Checksum);
    }
    postcard::from_bytes(body).map_err(|e| SaveFormatError::Body(e.to_string()))
}

/// Writes `state` to `path` atomically (see the module docs).
pub fn write(path: &Path, state: &SavedFederateState) -> Result<(), SaveFileError> {
    let bytes = encode(state).map_err(|e| SaveFileError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    std::fs::create_dir_all(dir).map_err(io(dir))?;
    let tmp = path.with_extension("rti.tmp");
    {
        let mut f = std::fs::File::create(&tmp).map_err(io(&tmp))?;
        f.write_all(&bytes).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
    }
    std::fs::rename(&tmp, path).map_err(io(path))?;
    if let Ok(d) = std::fs::File::open(dir) {
        // Persist the rename; a directory that cannot be opened for sync is not fatal.
        let _ = d.sync_all();
    }
    Ok(())
}

/// Reads and verifies a file written by [`write()`].
pub fn read(path: &Path) -> Result<SavedFederateState, SaveFileError> {
    let bytes = std::fs::read(path).map_err(io(path))?;
    decode(&bytes).map_err(|e| SaveFileError::Corrupt {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

/// The federation as saved under `label`, read from this machine's save files of it (every
/// `.rti` file in [`save_dir`] must read cleanly and agree; they all carry the same
/// federation-wide part). The error is for the restore requester: no such save, or which file
/// is unusable and why.
pub fn read_membership(
    root: &Path,
    federation: &str,
    label: &str,
) -> Result<crate::core::restore::SavedMembership, String> {
    let dir = save_dir(root, federation, label);
    let entries = std::fs::read_dir(&dir).map_err(|e| {
        format!(
            "no save \"{label}\" of federation {federation} here ({}: {e})",
            dir.display()
        )
    })?;
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "rti"))
        .collect();
    files.sort();
    let mut membership = None;
    for f in &files {
        let st = read(f).map_err(|e| e.to_string())?;
        if st.federation != federation || st.label != label {
            return Err(format!(
                "save file {} is for federation {} label {}",
                f.display(),
                st.federation,
                st.label
            ));
        }
        match &membership {
            None => membership = Some(st.membership),
            Some(m) if *m != st.membership => {
                return Err(format!(
                    "save file {} is from another save of \"{label}\" than the other files (a later save of the label failed part-way?) or disagrees with them about the federation",
                    f.display()
                ));
            }
            Some(_) => {}
        }
    }
    membership.ok_or_else(|| {
        format!(
            "no save \"{label}\" of federation {federation} here ({} holds no .rti file)",
            dir.display()
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::core::wire::ResignAction;
    use crate::handles::FederateHandle;

    fn state() -> SavedFederateState {
        SavedFederateState {
            federation: "F".into(),
            label: "L".into(),
            federate: FederateHandle(3),
            federate_name: "car".into(),
            federate_type: "Car".into(),
            log: Vec::new(),
            modules: vec![("m.xml".into(), "<x/>".into())],
            instances: Vec::new(),
            published_objects: Vec::new(),
            published_interactions: Vec::new(),
            subscribed_objects: Vec::new(),
            subscribed_interactions: Vec::new(),
            subscribed_rates: Vec::new(),
            next_counter: 7,
            auto_resign: ResignAction::DeleteObjects,
            switches: Default::default(),
            time_kind: Default::default(),
            logical_time: hlamesh_timesync::DynTime::new(50.0),
            lookahead: hlamesh_timesync::DynInterval::new(1.0),
            regulating: true,
            constrained: true,
            membership: crate::core::restore::SavedMembership {
                save_id: 9,
                federates: vec![crate::core::restore::SavedMember {
                    handle: FederateHandle(3),
                    name: "car".into(),
                    federate_type: "Car".into(),
                }],
                reserved: Vec::new(),
                next_handle: 4,
                sync: Vec::new(),
                auto_provide: None,
            },
            time_state: None,
            held: Vec::new(),
            requests: Vec::new(),
            mom: Default::default(),
            regions: Default::default(),
            conveyed: Default::default(),
        }
    }

    fn temp(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("hlamesh-savefile-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn round_trip_and_every_corruption_is_a_named_error() {
        let root = temp("rt");
        let path = rti_file(&root, "F", "L", "car");
        write(&path, &state()).unwrap();
        assert_eq!(read(&path).unwrap(), state());
        assert!(
            !path.with_extension("rti.tmp").exists(),
            "temporary file left behind"
        );
        let good = std::fs::read(&path).unwrap();
        let cases: Vec<(&str, Vec<u8>)> = vec![
            ("truncated header", good[..10].to_vec()),
            ("truncated body", good[..good.len() - 3].to_vec()),
            ("flipped body byte", {
                let mut b = good.clone();
                let n = b.len() - 1;
                b[n] ^= 0x55;
                b
            }),
            ("bad magic", {
                let mut b = good.clone();
                b[0] = b'X';
                b
            }),
            ("other version", {
                let mut b = good.clone();
                b[MAGIC.len()] = 99;
                b
            }),
        ];
        for (what, bytes) in cases {
            std::fs::write(&path, bytes).unwrap();
            let e = read(&path).expect_err(what);
            assert!(matches!(e, SaveFileError::Corrupt { .. }), "{what}: {e}");
            assert!(
                e.to_string().contains(&path.display().to_string()),
                "{what}: {e}"
            );
        }
        std::fs::remove_file(&path).unwrap();
        let e = read(&path).expect_err("missing");
        assert!(matches!(e, SaveFileError::Io { .. }) && e.to_string().contains("car.rti"));
        let _ = std::fs::remove_dir_all(&root);
    }

    /// An `HLAinteger64Time` federate's save keeps every time exactly, also those no `f64`
    /// holds (2^53 + 1 and `i64::MAX` would round).
    #[test]
    fn integer_times_round_trip_exactly() {
        use hlamesh_timesync::{Bound, DynInterval, DynTime, RequestKind, TimeKind};
        let big = (1_i64 << 53) + 1;
        let mut st = state();
        st.time_kind = TimeKind::Integer64;
        st.logical_time = Some(DynTime::integer(big));
        st.lookahead = Some(DynInterval::integer(1));
        st.time_state = Some(crate::core::save::SavedTime {
            time: DynTime::integer(big),
            lookahead: DynInterval::integer(1),
            bound: Bound::incl(DynTime::integer(big + 1)),
            regulating: true,
            constrained: true,
            async_delivery: false,
            last_grant_strict: false,
            advance: Some((RequestKind::Tar, DynTime::integer(i64::MAX))),
            queued_tso: Vec::new(),
            held_ro: Vec::new(),
        });
        let root = temp("int");
        let path = rti_file(&root, "F", "L", "car");
        write(&path, &st).unwrap();
        let back = read(&path).unwrap();
        assert_eq!(back.time_kind, TimeKind::Integer64);
        assert_eq!(back.logical_time.and_then(DynTime::as_integer), Some(big));
        let t = back.time_state.expect("time state");
        assert_eq!(t.time.as_integer(), Some(big));
        assert_eq!(t.lookahead.as_integer(), Some(1));
        assert_eq!(t.advance.map(|(_, t)| t.as_integer()), Some(Some(i64::MAX)));
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn labels_cannot_climb_out_of_the_save_root() {
        let root = Path::new("/saves");
        let p = rti_file(root, "../etc", "../../x", "a/b");
        assert!(p.starts_with(root));
        assert!(
            p.components()
                .all(|c| !matches!(c, std::path::Component::ParentDir)),
            "{}",
            p.display()
        );
        assert_eq!(p.components().count(), 5, "{}", p.display());
    }
}
