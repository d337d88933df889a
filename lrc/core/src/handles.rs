//! Typed handles for the things an FDD names (classes, attributes, interactions, parameters,
//! dimensions, transportation types, update rates).
//!
//! HLA handles are opaque but must be encodable to bytes and decodable again, valid across the
//! whole federation (`docs/HLA-SEMANTICS.md`, "Handles and names"). Every handle here is a `u32`
//! assigned deterministically by [`crate::fom::Fdd`]; its byte encoding is the 4-byte big-endian
//! value, so the same handle is the same bytes on every LRC. Value 0 is never assigned, so a zeroed
//! buffer is never a valid handle.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A byte string could not be decoded as a handle.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HandleDecodeError {
    /// Handles are exactly four bytes.
    #[error("a handle is encoded in 4 bytes, got {0}")]
    WrongLength(usize),
    /// Zero is never a valid handle.
    #[error("handle value 0 is never assigned")]
    Zero,
}

macro_rules! handle_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        pub struct $name(pub u32);

        impl $name {
            /// Length of the byte encoding.
            pub const ENCODED_LEN: usize = 4;

            /// The federation-wide byte encoding (4 bytes, big-endian).
            pub fn encode(self) -> [u8; 4] {
                self.0.to_be_bytes()
            }

            /// Decodes bytes produced by [`Self::encode`].
            pub fn decode(bytes: &[u8]) -> Result<Self, HandleDecodeError> {
                let arr: [u8; 4] = bytes
                    .try_into()
                    .map_err(|_| HandleDecodeError::WrongLength(bytes.len()))?;
                match u32::from_be_bytes(arr) {
                    0 => Err(HandleDecodeError::Zero),
                    v => Ok(Self(v)),
                }
            }

            /// Position of this handle in a dense table (handles start at 1).
            #[allow(dead_code)]
            pub(crate) fn index(self) -> usize {
                (self.0 as usize).wrapping_sub(1)
            }

            /// The handle of the `i`-th entry of a dense table.
            #[allow(dead_code)]
            pub(crate) fn from_index(i: usize) -> Self {
                Self(u32::try_from(i + 1).unwrap_or(u32::MAX))
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

handle_type!(
    /// An object class (`HLAobjectRoot` and its subclasses).
    ObjectClassHandle
);
handle_type!(
    /// A class attribute. Attribute handles are unique across the whole FDD, so an inherited
    /// attribute has the same handle in every subclass.
    AttributeHandle
);
handle_type!(
    /// An interaction class (`HLAinteractionRoot` and its subclasses).
    InteractionClassHandle
);
handle_type!(
    /// An interaction parameter; unique across the whole FDD like [`AttributeHandle`].
    ParameterHandle
);
handle_type!(
    /// A DDM dimension.
    DimensionHandle
);
handle_type!(
    /// A transportation type (`HLAreliable` = 1 and `HLAbestEffort` = 2 with the standard MIM).
    TransportationTypeHandle
);
handle_type!(
    /// A named update rate.
    UpdateRateHandle
);

handle_type!(
    /// A joined federate, allocated by the federation's coordinator at join (small integers,
    /// starting at 1, never reused within a federation execution).
    FederateHandle
);

/// The 8 big-endian bytes of a handle made of a federate handle and that federate's counter
/// ([`ObjectInstanceHandle`], [`MessageRetractionHandle`]); zero is no handle.
fn decode_federate_scoped(bytes: &[u8]) -> Result<u64, HandleDecodeError> {
    let arr: [u8; 8] = bytes
        .try_into()
        .map_err(|_| HandleDecodeError::WrongLength(bytes.len()))?;
    match u64::from_be_bytes(arr) {
        0 => Err(HandleDecodeError::Zero),
        v => Ok(v),
    }
}

/// An object instance: the registering federate's handle in the high 32 bits and that
/// federate's local counter in the low 32 bits, so every LRC can allocate handles with no
/// round trip (`docs/DESIGN.md`, "Identities and agreement"). Encoded as 8 big-endian bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct ObjectInstanceHandle(pub u64);

impl ObjectInstanceHandle {
    /// Length of the byte encoding.
    pub const ENCODED_LEN: usize = 8;

    /// The handle of the `counter`-th instance registered by `federate`.
    pub fn new(federate: FederateHandle, counter: u32) -> Self {
        Self((u64::from(federate.0) << 32) | u64::from(counter))
    }

    /// The federate that registered the instance.
    pub fn registrant(self) -> FederateHandle {
        FederateHandle((self.0 >> 32) as u32)
    }

    /// The registrant's local counter.
    pub fn counter(self) -> u32 {
        (self.0 & 0xffff_ffff) as u32
    }

    /// The federation-wide byte encoding (8 bytes, big-endian).
    pub fn encode(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Decodes bytes produced by [`Self::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self, HandleDecodeError> {
        decode_federate_scoped(bytes).map(Self)
    }
}

impl fmt::Display for ObjectInstanceHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.registrant(), self.counter())
    }
}

/// A DDM region (9.2): the creating federate's handle in the high 32 bits and that federate's
/// counter of created regions (1, 2, …) in the low 32 bits, so the creator's LRC allocates it
/// with no round trip and it is unique in the federation execution. Encoded as 8 big-endian
/// bytes, like [`ObjectInstanceHandle`]. Regions live at their creator's LRC (see
/// `core::regions`); other LRCs see only the ranges of the update regions announced for an
/// instance and of the regions an interaction was sent with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RegionHandle(pub u64);

impl RegionHandle {
    /// Length of the byte encoding.
    pub const ENCODED_LEN: usize = 8;

    /// The handle of the `counter`-th region `federate` created.
    pub fn new(federate: FederateHandle, counter: u32) -> Self {
        Self((u64::from(federate.0) << 32) | u64::from(counter))
    }

    /// The federate that created the region.
    pub fn creator(self) -> FederateHandle {
        FederateHandle((self.0 >> 32) as u32)
    }

    /// The creator's counter.
    pub fn counter(self) -> u32 {
        (self.0 & 0xffff_ffff) as u32
    }

    /// The federation-wide byte encoding (8 bytes, big-endian).
    pub fn encode(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Decodes bytes produced by [`Self::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self, HandleDecodeError> {
        decode_federate_scoped(bytes).map(Self)
    }
}

impl fmt::Display for RegionHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.creator(), self.counter())
    }
}

/// A message retraction handle (8.21), returned by the timestamped update, interaction and
/// delete services: the sending federate's handle in the high 32 bits and that federate's
/// serial number of timestamped sends (1, 2, …) in the low 32 bits, so the sender's LRC issues
/// it with no round trip and it is unique in the federation execution (federate handles are
/// never reused). Encoded as 8 big-endian bytes, like [`ObjectInstanceHandle`]. Receivers get
/// it with every message that was sent in time-stamp order (`ReceiveInfo::retraction`) and in
/// `request_retraction` (see `core::retraction`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct MessageRetractionHandle(pub u64);

impl MessageRetractionHandle {
    /// Length of the byte encoding.
    pub const ENCODED_LEN: usize = 8;

    /// The handle of `federate`'s `serial`-th timestamped send.
    pub fn new(federate: FederateHandle, serial: u32) -> Self {
        Self((u64::from(federate.0) << 32) | u64::from(serial))
    }

    /// The federate that sent the message.
    pub fn federate(self) -> FederateHandle {
        FederateHandle((self.0 >> 32) as u32)
    }

    /// The sender's serial number of the message.
    pub fn serial(self) -> u32 {
        (self.0 & 0xffff_ffff) as u32
    }

    /// The federation-wide byte encoding (8 bytes, big-endian).
    pub fn encode(self) -> [u8; 8] {
        self.0.to_be_bytes()
    }

    /// Decodes bytes produced by [`Self::encode`].
    pub fn decode(bytes: &[u8]) -> Result<Self, HandleDecodeError> {
        decode_federate_scoped(bytes).map(Self)
    }
}

impl fmt::Display for MessageRetractionHandle {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.federate(), self.serial())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_decode_round_trip() {
        let h = AttributeHandle(0x0102_0304);
        assert_eq!(h.encode(), [1, 2, 3, 4]);
        assert_eq!(AttributeHandle::decode(&h.encode()), Ok(h));
        let r = MessageRetractionHandle::new(FederateHandle(3), 7);
        assert_eq!(r.encode(), [0, 0, 0, 3, 0, 0, 0, 7]);
        assert_eq!((r.federate(), r.serial()), (FederateHandle(3), 7));
        assert_eq!(MessageRetractionHandle::decode(&r.encode()), Ok(r));
        assert_eq!(
            MessageRetractionHandle::decode(&[0; 8]),
            Err(HandleDecodeError::Zero)
        );
    }

    #[test]
    fn decode_rejects_bad_input() {
        assert_eq!(
            ObjectClassHandle::decode(&[1, 2, 3]),
            Err(HandleDecodeError::WrongLength(3))
        );
        assert_eq!(
            ObjectClassHandle::decode(&[0, 0, 0, 0]),
            Err(HandleDecodeError::Zero)
        );
    }
}
