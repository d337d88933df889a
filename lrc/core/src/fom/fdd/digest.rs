//! The digest of a merged FDD, which joiners compare with the federation's: SHA-256 over a
//! canonical serialisation of everything the RTI or the codec uses, in handle order.

use std::fmt;

use crate::fom::error::FomError;
use crate::fom::module::*;

use super::{Fdd, R};

/// SHA-256 over a canonical serialisation of the merged FDD (everything the RTI or the codec
/// uses, in handle order; documentation text excluded). Two LRCs with the same digest assign the
/// same handles and encode the same way.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct FddDigest(pub [u8; 32]);

impl fmt::Display for FddDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for b in self.0 {
            write!(f, "{b:02x}")?;
        }
        Ok(())
    }
}

impl Fdd {
    pub(super) fn compute_digest(&self) -> FddDigest {
        use std::fmt::Write;
        let mut s = String::new();
        let _ = writeln!(s, "hlamesh-fdd-v1");
        for c in &self.object_classes {
            let _ = writeln!(s, "O {} {} {:?}", c.handle, c.qualified_name, c.sharing);
            for a in &c.attributes {
                let a = &self.attributes[a.index()];
                let d = &a.decl;
                let dims: Vec<&str> = d.dimensions.iter().map(|x| x.name.as_str()).collect();
                let _ = writeln!(
                    s,
                    " A {} {} {} {:?} {:?} {:?} {:?} {:?} {}",
                    a.handle,
                    a.name,
                    d.data_type,
                    d.update_type,
                    d.ownership,
                    d.sharing,
                    dims,
                    a.transportation,
                    match a.order {
                        OrderType::Receive => "R",
                        OrderType::TimeStamp => "T",
                    }
                );
            }
        }
        for c in &self.interaction_classes {
            let _ = writeln!(
                s,
                "I {} {} {:?} {:?} {} {:?}",
                c.handle, c.qualified_name, c.sharing, c.dimensions, c.transportation, c.order
            );
            for p in &c.parameters {
                let p = &self.parameters[p.index()];
                let _ = writeln!(s, " P {} {} {}", p.handle, p.name, p.decl.data_type);
            }
        }
        for d in &self.dimensions {
            let x = &d.decl;
            let _ = writeln!(
                s,
                "D {} {} {:?} {:?} {:?} {:?}",
                d.handle,
                x.name,
                x.data_type.as_ref().map(|r| &r.name),
                x.upper_bound,
                x.normalization,
                x.value
            );
        }
        for t in &self.transportations {
            let _ = writeln!(s, "T {} {} {}", t.handle, t.decl.name, t.decl.reliable);
        }
        for u in &self.update_rates {
            let _ = writeln!(s, "U {} {} {}", u.handle, u.decl.name, u.decl.rate);
        }
        for sw in &self.switches {
            let _ = writeln!(s, "S {} {}", sw.decl.name, sw.decl.value);
        }
        if let Some(t) = &self.time {
            let _ = writeln!(s, "Z {:?} {:?}", t.decl.time_stamp, t.decl.lookahead);
        }
        for t in &self.tags {
            let _ = writeln!(s, "G {} {}", t.decl.kind, t.decl.data_type);
        }
        for p in &self.sync_points {
            let _ = writeln!(
                s,
                "Y {} {:?} {:?}",
                p.decl.label, p.decl.data_type, p.decl.capability
            );
        }
        for (id, t) in self.types.iter() {
            let _ = writeln!(
                s,
                "X {} {} {} {} {:?}",
                id.0, t.name, t.boundary, t.min_len, t.kind
            );
        }
        let d = ring::digest::digest(&ring::digest::SHA256, s.as_bytes());
        let mut out = [0u8; 32];
        out.copy_from_slice(d.as_ref());
        FddDigest(out)
    }

    /// The digest of the merged FDD.
    pub fn digest(&self) -> FddDigest {
        self.digest
    }

    /// Compares with the digest a federation announced; a mismatch is
    /// [`FomError::InconsistentFddDigest`].
    pub fn check_digest(&self, federation: &FddDigest) -> R<()> {
        if self.digest == *federation {
            Ok(())
        } else {
            Err(FomError::InconsistentFddDigest {
                local: self.digest.to_string(),
                federation: federation.to_string(),
            })
        }
    }
}
