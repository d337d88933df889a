//! FOM modules: reading IEEE 1516-2010 OMT XML ([`FomModule`]), merging modules with the MIM
//! into one FDD ([`Fdd`]), and the support services on it (handles by name, names by handle).
//!
//! Users bring FOMs written by others (RPR-FOM, NETN, their own), so the loader is strict about
//! what the RTI relies on — every reference resolved, conflicts between modules reported with
//! both places — and lenient about documentation. Every error names `file:line:column`.
//! HLA 4 (IEEE 1516-2025) modules are refused with [`FomError::UnsupportedOmtVersion`] rather
//! than merged under the 2010 rules. See [`Fdd`] for the merge rules and how handles are
//! assigned.
//!
//! Any joiner can bring a module, so the loader also bounds what a module can make the RTI do:
//! no DTDs or entities, at most 4,000,000 XML nodes, class hierarchies at most 256 deep, and
//! data types at most [`MAX_TYPE_DEPTH`] deep, counted along the real nesting (array elements,
//! record fields, variant alternatives and discriminants, representations) whatever order the
//! module declares them in and across join-time merges. The dynamic codec
//! ([`crate::encoding::dynamic`]) keeps its own bounds, so no value can overflow its stack or
//! make it allocate out of proportion to the bytes it is given.
//!
//! The 2010 OMT's forms are accepted as written: array cardinalities `Dynamic`, `N`,
//! `[min..max]` or `(min..max)`, comma-separated per dimension (`HLAfixedArray` needs a count
//! in every dimension; its element count is their product); an enumerated type needs at least
//! one enumerator.
//!
//! Data Distribution Management: the loader reads the `dimensions` (upper bound, normalization
//! text, default range as a typed [`DefaultRange`], a malformed one refused at its place), merges
//! them across modules (a dimension defined in two modules must be defined identically, else
//! `InconsistentFDD`), and resolves each attribute's and interaction class's dimension set to
//! [`DimensionHandle`](crate::handles::DimensionHandle)s, which the support services
//! ([`Fdd::dimension_handle`], [`Fdd::available_dimensions_for_class_attribute`], …) answer
//! from. A dimension with no `upperBound` (the standard MIM's `HLAfederate`) has the bound
//! `u64::MAX`. Regions, the region-based services and the overlap test that uses the default
//! ranges are in [`crate::core::regions`].

mod error;
mod fdd;
pub mod module;
mod parse;
pub mod types;

pub use error::{FomError, Location, LookupError};
pub use fdd::{
    Attribute, Dimension, Fdd, FddDigest, InteractionClass, MAX_TYPE_DEPTH, MergeReport,
    ObjectClass, PRIVILEGE_TO_DELETE, Parameter, Transportation, UpdateRate,
};
pub use module::*;
pub use parse::{NS_2010, NS_2025, STANDARD_MIM_DESIGNATOR, STANDARD_MIM_XML};
pub use types::{DataTypeTable, ResolvedKind, ResolvedType, TypeId};
