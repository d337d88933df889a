//! The merged FDD's data types, resolved: every reference replaced by a [`TypeId`], every type's
//! octet boundary and smallest encoding computed. This is what the dynamic codec
//! ([`crate::encoding::dynamic`]) walks.

use std::sync::Arc;

use super::module::{ArrayEncoding, BasicKind, CardinalityDim, Endian};

/// Index of a data type in a [`DataTypeTable`]. Stable for a given FDD: types are numbered in
/// first-definition order, so join-time modules only append.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TypeId(pub u32);

/// How arrays of this element type are shown by the dynamic codec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ElementFlavor {
    /// Elements are shown one by one.
    Plain,
    /// `HLAASCIIchar` elements: the array is a string, one byte per char (Latin-1).
    AsciiChar,
    /// `HLAunicodeChar` elements: the array is a UTF-16 string.
    UnicodeChar,
    /// `HLAoctet` / `HLAbyte` elements: the array is a byte string.
    Octet,
}

/// How an array's elements are counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ArrayLayout {
    /// `HLAfixedArray` with this many elements (product of the dimensions).
    Fixed(usize),
    /// `HLAvariableArray`; the declared cardinality bounds are informative only.
    Variable,
    /// `RPRnullTerminatedArray` (SISO RPR FOM): the elements, then a zero element; no count.
    /// Supported for one-byte elements (HLAASCIIchar, HLAoctet, HLAbyte).
    NullTerminated,
    /// `RPRlengthlessArray` (SISO RPR FOM): the elements with no count, up to the end of the
    /// value; only meaningful as the last part of an attribute or parameter.
    Lengthless,
    /// `RPRpaddingTo32Array` / `RPRpaddingTo64Array` (SISO RPR FOM): 0 to 3 (or 7) octets that
    /// bring the offset to a multiple of this many bytes.
    PaddingTo(usize),
    /// A user-defined encoding the codec cannot read.
    UserDefined(String),
}

/// One alternative of a variant record, resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedAlternative {
    /// Name (the enumerator text if the module gave none).
    pub name: Arc<str>,
    /// Type, `None` for an empty alternative.
    pub data_type: Option<TypeId>,
    /// Inclusive discriminant value ranges selecting it.
    pub values: Vec<(i64, i64)>,
    /// Selected by `HLAother`.
    pub other: bool,
}

/// The resolved structure of one data type.
#[derive(Debug, Clone, PartialEq)]
pub enum ResolvedKind {
    /// A basic representation. `bytes` is 0 when its size is not 8, 16, 32 or 64 bits (loads,
    /// but cannot be encoded).
    Basic {
        /// Size in bytes.
        bytes: usize,
        /// Byte order.
        endian: Endian,
        /// How to read it.
        kind: BasicKind,
    },
    /// A simple type: encoded as its representation.
    Simple {
        /// The basic representation.
        representation: TypeId,
    },
    /// An enumeration.
    Enumerated {
        /// The basic representation.
        representation: TypeId,
        /// Enumerators in declaration order.
        enumerators: Vec<(Arc<str>, i64)>,
        /// This is `HLAboolean` (only 0 and 1 decode).
        boolean: bool,
    },
    /// An array.
    Array {
        /// Element type.
        element: TypeId,
        /// Layout.
        layout: ArrayLayout,
        /// How the dynamic codec shows it.
        flavor: ElementFlavor,
    },
    /// A fixed record.
    FixedRecord {
        /// Fields in order.
        fields: Vec<(Arc<str>, TypeId)>,
        /// A user-defined encoding the codec cannot read (`None` for `HLAfixedRecord`).
        user_encoding: Option<String>,
    },
    /// A variant record.
    VariantRecord {
        /// Name of the discriminant.
        discriminant: String,
        /// Its enumerated type.
        discriminant_type: TypeId,
        /// Alternatives in declaration order.
        alternatives: Vec<ResolvedAlternative>,
        /// A user-defined encoding the codec cannot read (`None` for `HLAvariantRecord`).
        user_encoding: Option<String>,
    },
}

/// A resolved data type.
#[derive(Debug, Clone, PartialEq)]
pub struct ResolvedType {
    /// Name.
    pub name: String,
    /// Structure.
    pub kind: ResolvedKind,
    /// Octet boundary (`docs/HLA-SEMANTICS.md`, "Octet boundaries").
    pub boundary: usize,
    /// Smallest possible encoded length; bounds element counts read from untrusted input.
    pub min_len: usize,
}

/// All data types of an FDD, indexed by [`TypeId`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DataTypeTable {
    pub(crate) types: Vec<ResolvedType>,
}

impl DataTypeTable {
    /// The type with this id.
    pub fn get(&self, id: TypeId) -> Option<&ResolvedType> {
        self.types.get(id.0 as usize)
    }

    /// Number of types.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// True if there are none.
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Iterates over `(id, type)`.
    pub fn iter(&self) -> impl Iterator<Item = (TypeId, &ResolvedType)> {
        self.types
            .iter()
            .enumerate()
            .map(|(i, t)| (TypeId(i as u32), t))
    }

    /// Finds a type by name (linear; use [`crate::fom::Fdd::data_type_id`] for the indexed lookup).
    pub fn find(&self, name: &str) -> Option<TypeId> {
        self.iter().find(|(_, t)| t.name == name).map(|(id, _)| id)
    }
}

/// Element count of a fixed array's cardinality (product of its fixed dimensions).
pub(crate) fn fixed_count(card: &[CardinalityDim]) -> Option<usize> {
    card.iter().try_fold(1usize, |acc, d| match d {
        CardinalityDim::Fixed(n) => acc.checked_mul(*n as usize),
        _ => None,
    })
}

/// Layout of an array given its encoding and cardinality.
pub(crate) fn layout(encoding: &ArrayEncoding, card: &[CardinalityDim]) -> Option<ArrayLayout> {
    Some(match encoding {
        ArrayEncoding::Fixed => ArrayLayout::Fixed(fixed_count(card)?),
        ArrayEncoding::Variable => ArrayLayout::Variable,
        ArrayEncoding::Other(s) => match s.as_str() {
            "RPRnullTerminatedArray" => ArrayLayout::NullTerminated,
            "RPRlengthlessArray" => ArrayLayout::Lengthless,
            "RPRpaddingTo32Array" => ArrayLayout::PaddingTo(4),
            "RPRpaddingTo64Array" => ArrayLayout::PaddingTo(8),
            _ => ArrayLayout::UserDefined(s.clone()),
        },
    })
}
