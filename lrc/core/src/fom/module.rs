//! One FOM module as written in its file, before merging: the declarations of an IEEE 1516-2010
//! OMT document, with the source position of each.
//!
//! Equality on these types is *definition* equality, used to decide whether two modules define an
//! element the same way: source positions ([`SrcPos`]) and documentation text ([`Doc`]) never take
//! part in it.

use std::sync::Arc;

/// A 1-based line and column in the module's file. Always equal to any other `SrcPos`, so that
/// derived equality of declarations ignores where they are written.
#[derive(Debug, Clone, Copy, Default, Eq)]
pub struct SrcPos {
    /// 1-based line.
    pub line: u32,
    /// 1-based column (characters).
    pub col: u32,
}

impl PartialEq for SrcPos {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// Documentation text (semantics, update conditions, …). Always equal to any other `Doc`.
#[derive(Debug, Clone, Default, Eq)]
pub struct Doc(pub String);

impl PartialEq for Doc {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// One parsed module.
#[derive(Debug, Clone)]
pub struct FomModule {
    /// How the user named it (its path for files).
    pub designator: Arc<str>,
    /// `modelIdentification/name`, if present.
    pub model_name: Option<String>,
    /// Position of the root element.
    pub pos: SrcPos,
    /// The `HLAobjectRoot` tree, if the module has `<objects>`.
    pub object_root: Option<ObjectClassDecl>,
    /// The `HLAinteractionRoot` tree, if the module has `<interactions>`.
    pub interaction_root: Option<InteractionClassDecl>,
    /// Dimensions.
    pub dimensions: Vec<DimensionDecl>,
    /// Time representation.
    pub time: Option<TimeDecl>,
    /// User-supplied tag types.
    pub tags: Vec<TagDecl>,
    /// Synchronization points (documentation only).
    pub sync_points: Vec<SyncPointDecl>,
    /// Transportation types.
    pub transportations: Vec<TransportationDecl>,
    /// Switches.
    pub switches: Vec<SwitchDecl>,
    /// Update rates.
    pub update_rates: Vec<UpdateRateDecl>,
    /// Data types, in file order.
    pub data_types: Vec<DataTypeDecl>,
}

/// `Publish | Subscribe | PublishSubscribe | Neither`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Sharing {
    /// Publish only.
    Publish,
    /// Subscribe only.
    Subscribe,
    /// Both.
    PublishSubscribe,
    /// Neither.
    Neither,
}

/// `Static | Periodic | Conditional | NA`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum UpdateType {
    /// Static.
    Static,
    /// Periodic.
    Periodic,
    /// Conditional.
    Conditional,
    /// NA.
    NotApplicable,
}

/// `Divest | Acquire | DivestAcquire | NoTransfer`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Ownership {
    /// Divest.
    Divest,
    /// Acquire.
    Acquire,
    /// DivestAcquire.
    DivestAcquire,
    /// NoTransfer.
    NoTransfer,
}

/// Message order type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum OrderType {
    /// Receive order (the default when a module gives none).
    Receive,
    /// Timestamp order.
    TimeStamp,
}

impl OrderType {
    /// The OMT name (HLA `getOrderName`).
    pub fn name(self) -> &'static str {
        match self {
            OrderType::Receive => "Receive",
            OrderType::TimeStamp => "TimeStamp",
        }
    }

    /// From the OMT name (HLA `getOrderType`); case-insensitive.
    pub fn from_name(name: &str) -> Option<OrderType> {
        [OrderType::Receive, OrderType::TimeStamp]
            .into_iter()
            .find(|o| o.name().eq_ignore_ascii_case(name))
    }
}

/// An `objectClass` element.
#[derive(Debug, Clone, PartialEq)]
pub struct ObjectClassDecl {
    /// Unqualified name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Sharing, if given.
    pub sharing: Option<Sharing>,
    /// Semantics.
    pub semantics: Doc,
    /// Attributes declared here.
    pub attributes: Vec<AttributeDecl>,
    /// Subclasses.
    pub children: Vec<ObjectClassDecl>,
}

/// An `attribute` element.
#[derive(Debug, Clone, PartialEq)]
pub struct AttributeDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Data type name, or `NA`.
    pub data_type: String,
    /// Update type.
    pub update_type: Option<UpdateType>,
    /// Update condition.
    pub update_condition: Doc,
    /// Ownership.
    pub ownership: Option<Ownership>,
    /// Sharing.
    pub sharing: Option<Sharing>,
    /// Dimension names, with the position of each reference.
    pub dimensions: Vec<NameRef>,
    /// Transportation name (default `HLAreliable`).
    pub transportation: Option<NameRef>,
    /// Order (default Receive).
    pub order: Option<OrderType>,
    /// Semantics.
    pub semantics: Doc,
}

/// A reference by name to another element, with where it is written.
#[derive(Debug, Clone, PartialEq)]
pub struct NameRef {
    /// The name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
}

/// An `interactionClass` element.
#[derive(Debug, Clone, PartialEq)]
pub struct InteractionClassDecl {
    /// Unqualified name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Sharing.
    pub sharing: Option<Sharing>,
    /// Dimension names.
    pub dimensions: Vec<NameRef>,
    /// Transportation name.
    pub transportation: Option<NameRef>,
    /// Order.
    pub order: Option<OrderType>,
    /// Semantics.
    pub semantics: Doc,
    /// Parameters declared here.
    pub parameters: Vec<ParameterDecl>,
    /// Subclasses.
    pub children: Vec<InteractionClassDecl>,
}

/// A `parameter` element.
#[derive(Debug, Clone, PartialEq)]
pub struct ParameterDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Data type name, or `NA`.
    pub data_type: String,
    /// Semantics.
    pub semantics: Doc,
}

/// A `dimension` element.
#[derive(Debug, Clone, PartialEq)]
pub struct DimensionDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Data type name.
    pub data_type: Option<NameRef>,
    /// Upper bound of the normalised range.
    pub upper_bound: Option<u64>,
    /// Normalization function (text).
    pub normalization: Option<String>,
    /// Default range as written (`[a..b)`, `[a)` or `Excluded`); kept as text because the FDD
    /// digest covers it in this form.
    pub value: Option<String>,
    /// The default range [`value`](Self::value) denotes (derived from it, so equality and the
    /// digest are unchanged by this field).
    pub default_range: DefaultRange,
}

/// A dimension's `value` (its "value when unspecified", IEEE 1516.2-2010 Table 8): the range a
/// region takes on this dimension when it does not specify one, or `Excluded`, which leaves the
/// dimension out of the overlap test for such a region (see `crate::core::regions::overlap`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DefaultRange {
    /// `Excluded`, or no `value` given (the standard's default).
    Excluded,
    /// `[lower..upper)` — `[v)` is the one-value range `[v..v+1)`. `lower < upper`, and
    /// `upper` is at most the dimension's upper bound when it has one.
    Range {
        /// Inclusive lower bound.
        lower: u64,
        /// Exclusive upper bound.
        upper: u64,
    },
}

/// The `time` element.
#[derive(Debug, Clone, PartialEq)]
pub struct TimeDecl {
    /// Where.
    pub pos: SrcPos,
    /// Timestamp data type.
    pub time_stamp: Option<String>,
    /// Lookahead data type.
    pub lookahead: Option<String>,
}

/// One of the `tags` children, e.g. `updateReflectTag`.
#[derive(Debug, Clone, PartialEq)]
pub struct TagDecl {
    /// Element name, e.g. `updateReflectTag`.
    pub kind: String,
    /// Where.
    pub pos: SrcPos,
    /// Data type name or `NA`.
    pub data_type: String,
}

/// A `synchronizationPoint` element.
#[derive(Debug, Clone, PartialEq)]
pub struct SyncPointDecl {
    /// Label.
    pub label: String,
    /// Where.
    pub pos: SrcPos,
    /// Tag data type or `NA`.
    pub data_type: Option<String>,
    /// Capability.
    pub capability: Option<String>,
    /// Semantics.
    pub semantics: Doc,
}

/// A `transportation` element.
#[derive(Debug, Clone, PartialEq)]
pub struct TransportationDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// `reliable` = Yes.
    pub reliable: bool,
    /// Semantics.
    pub semantics: Doc,
}

/// One switch: element name and its value (`true`/`false`, or a resign action).
#[derive(Debug, Clone, PartialEq)]
pub struct SwitchDecl {
    /// Element name, e.g. `autoProvide`.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// The `isEnabled` or `resignAction` attribute value.
    pub value: String,
}

/// An `updateRate` element.
#[derive(Debug, Clone, PartialEq)]
pub struct UpdateRateDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// Rate in Hz.
    pub rate: f64,
}

/// A data type definition.
#[derive(Debug, Clone, PartialEq)]
pub struct DataTypeDecl {
    /// Name.
    pub name: String,
    /// Where.
    pub pos: SrcPos,
    /// What it is.
    pub kind: DataTypeKind,
    /// Semantics.
    pub semantics: Doc,
}

/// Byte order of a basic data representation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Endian {
    /// Big-endian.
    Big,
    /// Little-endian.
    Little,
}

/// How the bits of a basic data representation are read. The OMT only describes this in prose,
/// so it is inferred: the standard names (`HLAinteger…`, `HLAfloat…`, `HLAoctet…`) are known;
/// for other names, interpretation/encoding text mentioning "float" or "IEEE" means a float,
/// "unsigned" means unsigned, anything else a two's-complement integer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BasicKind {
    /// Two's-complement signed integer.
    Signed,
    /// Unsigned integer (also HLAoctet and the octet pairs).
    Unsigned,
    /// IEEE-754 float (32 or 64 bits).
    Float,
}

/// One dimension of an array's cardinality.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CardinalityDim {
    /// `Dynamic`.
    Dynamic,
    /// A fixed count.
    Fixed(u32),
    /// A range of counts, written `[min..max]` or `(min..max)` (bounds included).
    Range(u64, u64),
}

/// `encoding` of an array type.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum ArrayEncoding {
    /// `HLAfixedArray`.
    Fixed,
    /// `HLAvariableArray`.
    Variable,
    /// Anything else: a user-defined encoding described in prose (e.g. `RPRlengthlessArray`).
    /// Such values load fine but the dynamic codec cannot read or write them.
    Other(String),
}

/// One enumerator set of a variant record alternative.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum EnumeratorSet {
    /// One enumerator.
    Single(String),
    /// `[A .. B]`: every enumerator whose value lies between those of A and B.
    Range(String, String),
    /// `HLAother`: every value no other alternative names.
    Other,
}

/// A variant record alternative.
#[derive(Debug, Clone, PartialEq)]
pub struct AlternativeDecl {
    /// Enumerators selecting it.
    pub enumerators: Vec<EnumeratorSet>,
    /// Name, if given.
    pub name: Option<String>,
    /// Data type, `None` for an empty alternative (`NA` or absent).
    pub data_type: Option<NameRef>,
    /// Where.
    pub pos: SrcPos,
}

/// A fixed record field.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldDecl {
    /// Name.
    pub name: String,
    /// Data type.
    pub data_type: NameRef,
}

/// The structure of a data type.
#[derive(Debug, Clone, PartialEq)]
pub enum DataTypeKind {
    /// `basicData`.
    Basic {
        /// Size in bits.
        size_bits: u32,
        /// Byte order.
        endian: Endian,
        /// How to read the bits.
        kind: BasicKind,
    },
    /// `simpleData`.
    Simple {
        /// The basic representation.
        representation: NameRef,
    },
    /// `enumeratedData`.
    Enumerated {
        /// The basic representation.
        representation: NameRef,
        /// Enumerators in declaration order.
        enumerators: Vec<(String, i64)>,
    },
    /// `arrayData`.
    Array {
        /// Element type.
        element: NameRef,
        /// Cardinality, one entry per dimension.
        cardinality: Vec<CardinalityDim>,
        /// Encoding.
        encoding: ArrayEncoding,
    },
    /// `fixedRecordData`.
    FixedRecord {
        /// Fields in order.
        fields: Vec<FieldDecl>,
        /// A user-defined encoding named instead of `HLAfixedRecord`.
        user_encoding: Option<String>,
    },
    /// `variantRecordData`.
    VariantRecord {
        /// Name of the discriminant.
        discriminant: String,
        /// Enumerated type of the discriminant.
        discriminant_type: NameRef,
        /// Alternatives.
        alternatives: Vec<AlternativeDecl>,
        /// A user-defined encoding named instead of `HLAvariantRecord`.
        user_encoding: Option<String>,
    },
}
