//! `EncoderError`: why a value could not be encoded or bytes could not be decoded.

/// Encoding or decoding failed (HLA `EncoderException`). Decoding untrusted bytes returns one of
/// these; it never panics.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum EncoderError {
    /// The buffer ends before the value does.
    #[error("truncated: need {needed} bytes at offset {offset}, {available} left")]
    Truncated {
        /// Offset of the read.
        offset: usize,
        /// Bytes needed.
        needed: usize,
        /// Bytes left.
        available: usize,
    },
    /// Bytes are left over after the value.
    #[error("{0} trailing bytes after the value")]
    TrailingBytes(usize),
    /// An HLAboolean other than 0 or 1.
    #[error("invalid HLAboolean value {0}")]
    InvalidBoolean(i64),
    /// A variable array count below zero.
    #[error("negative element count {0}")]
    NegativeLength(i64),
    /// A variable array count larger than the remaining bytes can hold.
    #[error("element count {count} cannot fit in the {remaining} bytes left")]
    LengthTooLarge {
        /// The count read.
        count: usize,
        /// Bytes left.
        remaining: usize,
    },
    /// A discriminant value no alternative accepts.
    #[error("discriminant {0} selects no alternative")]
    InvalidDiscriminant(i64),
    /// An enumeration value the type does not define.
    #[error("value {0} is not an enumerator of this type")]
    InvalidEnumerator(i64),
    /// A string that cannot be represented (non-Latin-1 in HLAASCIIstring, unpaired surrogate in
    /// HLAunicodeString).
    #[error("invalid string: {0}")]
    InvalidString(String),
    /// A number too large for its representation.
    #[error("value {value} does not fit in {type_name}")]
    ValueOutOfRange {
        /// The value.
        value: String,
        /// The type.
        type_name: String,
    },
    /// A fixed array given the wrong number of elements.
    #[error("{type_name} has {expected} elements, got {got}")]
    WrongElementCount {
        /// The type.
        type_name: String,
        /// Cardinality.
        expected: usize,
        /// Given.
        got: usize,
    },
    /// A dynamic value whose shape does not match the data type.
    #[error("{type_name} cannot hold {value_kind}")]
    TypeMismatch {
        /// The type.
        type_name: String,
        /// What was given.
        value_kind: String,
    },
    /// A user-defined encoding (described in prose in the FOM) or an unusual basic size.
    #[error("{type_name} uses encoding {encoding}, which the dynamic codec cannot handle")]
    UnsupportedEncoding {
        /// The type.
        type_name: String,
        /// The encoding.
        encoding: String,
    },
    /// The data type nests deeper than the codec follows
    /// ([`MAX_TYPE_DEPTH`](crate::fom::MAX_TYPE_DEPTH)). The FDD loader refuses such types, so
    /// this means a type table that did not come from it; the codec refuses rather than recurse
    /// without bound.
    #[error("{type_name} is nested more than {limit} data types deep")]
    TooDeep {
        /// The type reached past the limit.
        type_name: String,
        /// The limit.
        limit: usize,
    },
    /// The bytes would decode into more values than their length justifies (see
    /// [`MAX_VALUES_PER_BYTE`](crate::encoding::dynamic::MAX_VALUES_PER_BYTE)): for example huge
    /// fixed counts of elements that encode in zero bytes.
    #[error("the value would decode into more than {limit} values")]
    TooManyValues {
        /// The budget this input had.
        limit: usize,
    },
    /// No data type of that name, or the attribute/parameter has data type `NA`.
    #[error("unknown data type {0}")]
    UnknownDataType(String),
}
