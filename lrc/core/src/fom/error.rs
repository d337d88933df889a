//! Errors of FOM loading and merging, named after the HLA exceptions they become.

use std::fmt;
use std::sync::Arc;

/// A place in a FOM module: `file:line:column` (1-based, column in characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Location {
    /// The module's designator (usually its path).
    pub file: Arc<str>,
    /// 1-based line.
    pub line: u32,
    /// 1-based column.
    pub col: u32,
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// Why a set of FOM modules could not be loaded or merged.
///
/// Every variant that concerns a place in a file displays as `file:line:column: what is wrong`.
#[derive(Debug, thiserror::Error)]
pub enum FomError {
    /// The file could not be read (HLA `CouldNotOpenFDD`).
    #[error("{path}: could not open FDD: {reason}")]
    CouldNotOpenFdd {
        /// The designator given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The file is not well-formed XML or not a valid OMT module (HLA `ErrorReadingFDD`).
    #[error("{at}: {msg}")]
    ErrorReadingFdd {
        /// Where.
        at: Location,
        /// What is wrong.
        msg: String,
    },
    /// The module is an HLA 4 (IEEE 1516-2025) module, which this loader does not merge: the 2025
    /// merge rules differ (attributes may be added to existing classes), so loading it under the
    /// 2010 rules could silently build a different FDD than an HLA 4 RTI would.
    #[error(
        "{at}: this is an HLA 4 (IEEE 1516-2025) module (namespace {namespace}); hlamesh loads \
         IEEE 1516-2010 modules only — use the module's HLA Evolved (2010) edition"
    )]
    UnsupportedOmtVersion {
        /// Where the root element is.
        at: Location,
        /// The namespace found.
        namespace: String,
    },
    /// Two modules define the same element differently (HLA `InconsistentFDD`).
    #[error("{at}: inconsistent FDD: {element} conflicts with its definition at {other}: {reason}")]
    InconsistentFdd {
        /// The later definition.
        at: Location,
        /// The earlier definition it conflicts with.
        other: Location,
        /// The element, e.g. `object class HLAobjectRoot.Food` or `data type DrinkCount`.
        element: String,
        /// What differs.
        reason: String,
    },
    /// A joining federate's merged FDD differs from the federation's (HLA `InconsistentFDD`).
    #[error(
        "inconsistent FDD: the federation's FDD digest is {federation} but the modules given \
         here merge to {local}"
    )]
    InconsistentFddDigest {
        /// Digest of this LRC's merged FDD.
        local: String,
        /// Digest the federation announced.
        federation: String,
    },
    /// The standard MIM's designator was given as a replacement MIM (HLA
    /// `DesignatorIsHLAstandardMIM`).
    #[error("{0}: the standard MIM is always loaded; it cannot be given as a replacement MIM")]
    DesignatorIsHlaStandardMim(String),
}

impl FomError {
    /// True for the errors HLA reports as `InconsistentFDD` (a module conflict, or a joiner's
    /// FDD digest differing from the federation's).
    pub fn is_inconsistent_fdd(&self) -> bool {
        matches!(
            self,
            FomError::InconsistentFdd { .. } | FomError::InconsistentFddDigest { .. }
        )
    }

    /// The location the error concerns, if any.
    pub fn location(&self) -> Option<&Location> {
        match self {
            FomError::ErrorReadingFdd { at, .. }
            | FomError::UnsupportedOmtVersion { at, .. }
            | FomError::InconsistentFdd { at, .. } => Some(at),
            _ => None,
        }
    }
}

/// A name or handle lookup on a loaded FDD failed; variants mirror the HLA support-service
/// exceptions.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LookupError {
    /// No element of that kind has that name (HLA `NameNotFound`).
    #[error("name not found: {0}")]
    NameNotFound(String),
    /// An unqualified class name matches several classes.
    #[error("class name {name} is ambiguous: qualify it (one of {candidates})")]
    AmbiguousName {
        /// The name asked for.
        name: String,
        /// The qualified names it matches.
        candidates: String,
    },
    /// HLA `InvalidObjectClassHandle`.
    #[error("invalid object class handle {0}")]
    InvalidObjectClassHandle(u32),
    /// HLA `InvalidAttributeHandle`.
    #[error("invalid attribute handle {0}")]
    InvalidAttributeHandle(u32),
    /// HLA `AttributeNotDefined`: valid handle, but not available in this class.
    #[error("attribute {attribute} is not defined in object class {class}")]
    AttributeNotDefined {
        /// The class.
        class: u32,
        /// The attribute.
        attribute: u32,
    },
    /// HLA `InvalidInteractionClassHandle`.
    #[error("invalid interaction class handle {0}")]
    InvalidInteractionClassHandle(u32),
    /// HLA `InvalidParameterHandle`.
    #[error("invalid parameter handle {0}")]
    InvalidParameterHandle(u32),
    /// HLA `InteractionParameterNotDefined`.
    #[error("parameter {parameter} is not defined in interaction class {class}")]
    InteractionParameterNotDefined {
        /// The class.
        class: u32,
        /// The parameter.
        parameter: u32,
    },
    /// HLA `InvalidDimensionHandle`.
    #[error("invalid dimension handle {0}")]
    InvalidDimensionHandle(u32),
    /// HLA `InvalidTransportationType`.
    #[error("invalid transportation type handle {0}")]
    InvalidTransportationType(u32),
}
