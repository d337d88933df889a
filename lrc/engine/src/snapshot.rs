//! The engine's save format: what one federate writes when it saves, and reads when it
//! restores — its frame counter, logical time, mirrored objects and the application's own bytes
//! (from `Simulation::on_save`, given back to `Simulation::on_restore`).
//!
//! Layout: the magic `HLMSNAP3`, then a little-endian u32 length and the postcard encoding of
//! [`SnapshotHeader`], then a u32 length and the application section. Each length is checked
//! against [`MAX_SECTION`] before anything is allocated, so a corrupt file is an error, not an
//! out-of-memory.

use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::reconstruction::Mirror;

const MAGIC: &[u8; 8] = b"HLMSNAP3";
/// Largest section accepted when reading (256 MiB).
pub const MAX_SECTION: u32 = 256 << 20;

/// A snapshot that could not be written or read.
#[derive(Debug, thiserror::Error)]
pub enum SnapshotError {
    /// I/O failed.
    #[error("snapshot I/O: {0}")]
    Io(#[from] std::io::Error),
    /// Not a snapshot, or a damaged one.
    #[error("bad snapshot: {0}")]
    Format(String),
}

/// The engine part of a snapshot.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SnapshotHeader {
    /// The save label.
    pub label: String,
    /// Frames run when saved.
    pub frame: u64,
    /// Logical time when saved.
    pub time: f64,
    /// The frame at `time` had run (an untimed save at the end of a frame or while waiting
    /// for a grant) rather than not yet (a timed save, taken at the grant): a restore resumes
    /// after it instead of running it again.
    pub frame_done: bool,
    /// The advance requested and not yet granted when saved (a save while waiting for a grant):
    /// the RTI restores the request with the rest of the federate's time state, so after a
    /// restore the engine waits for its grant instead of asking again.
    pub pending_advance: Option<f64>,
    /// Sends refused because the save was in progress: sent after the save, and after a
    /// restore of it.
    pub deferred: Vec<super::Deferred>,
    /// The mirrored objects.
    pub mirror: Mirror,
}

/// Writes a snapshot: the header, then `app` (the application's bytes).
pub fn write(w: &mut dyn Write, header: &SnapshotHeader, app: &[u8]) -> Result<(), SnapshotError> {
    let h = postcard::to_stdvec(header).map_err(|e| SnapshotError::Format(e.to_string()))?;
    w.write_all(MAGIC)?;
    for section in [h.as_slice(), app] {
        let len = u32::try_from(section.len())
            .ok()
            .filter(|l| *l <= MAX_SECTION)
            .ok_or_else(|| SnapshotError::Format("section too large".into()))?;
        w.write_all(&len.to_le_bytes())?;
        w.write_all(section)?;
    }
    w.flush()?;
    Ok(())
}

fn section(r: &mut dyn Read) -> Result<Vec<u8>, SnapshotError> {
    let mut len = [0u8; 4];
    r.read_exact(&mut len)?;
    let len = u32::from_le_bytes(len);
    if len > MAX_SECTION {
        return Err(SnapshotError::Format(format!("section of {len} bytes")));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    Ok(buf)
}

/// Reads a snapshot: the header and the application's bytes.
pub fn read(r: &mut dyn Read) -> Result<(SnapshotHeader, Vec<u8>), SnapshotError> {
    let mut magic = [0u8; 8];
    r.read_exact(&mut magic)?;
    if &magic != MAGIC {
        return Err(SnapshotError::Format(
            "not an hlamesh engine snapshot".into(),
        ));
    }
    let h = section(r)?;
    let header: SnapshotHeader =
        postcard::from_bytes(&h).map_err(|e| SnapshotError::Format(e.to_string()))?;
    let app = section(r)?;
    Ok((header, app))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::reconstruction::HlaEvent;
    use hlamesh_lrc::handles::*;

    #[test]
    fn a_snapshot_round_trips_mirror_and_application_bytes() {
        let mut mirror = Mirror::new();
        mirror.apply(
            vec![
                HlaEvent::Discovered {
                    object: ObjectInstanceHandle(5),
                    class: ObjectClassHandle(2),
                    name: "car-1".into(),
                    producer: FederateHandle(3),
                },
                HlaEvent::Reflected {
                    object: ObjectInstanceHandle(5),
                    values: vec![(AttributeHandle(1), vec![1, 2, 3])],
                    tag: vec![],
                    time: None,
                    producer: FederateHandle(3),
                    received: std::time::Instant::now(),
                },
            ],
            |_| {},
        );
        let header = SnapshotHeader {
            label: "s1".into(),
            frame: 42,
            time: 4.2,
            frame_done: true,
            pending_advance: Some(2.5),
            deferred: Vec::new(),
            mirror,
        };
        let mut buf = Vec::new();
        write(&mut buf, &header, b"app state").unwrap();
        let (h, app) = read(&mut buf.as_slice()).unwrap();
        assert_eq!(h, header);
        assert_eq!(app, b"app state");
    }

    #[test]
    fn damaged_snapshots_are_errors() {
        assert!(matches!(
            read(&mut &b"nonsense"[..]),
            Err(SnapshotError::Format(_))
        ));
        let mut buf = MAGIC.to_vec();
        buf.extend_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            read(&mut buf.as_slice()),
            Err(SnapshotError::Format(_))
        ));
        let mut buf = MAGIC.to_vec();
        buf.extend_from_slice(&10u32.to_le_bytes());
        assert!(matches!(
            read(&mut buf.as_slice()),
            Err(SnapshotError::Io(_))
        ));
    }
}
