//! Reading an IEEE 1516-2010 OMT XML document into a [`FomModule`].
//!
//! A hand-written walk over a roxmltree DOM: the schema is recursive and full of optional
//! elements, and this way every error carries `file:line:column`. Elements the RTI does not need
//! (modelIdentification details, serviceUtilization, notes) are skipped; elements it needs are
//! checked (names present, enumerated values spelled as the schema allows).

use std::collections::HashSet;
use std::sync::Arc;

use roxmltree::{Document, Node};

use super::error::{FomError, Location};
use super::module::*;

/// Namespace of IEEE 1516-2010 OMT documents.
pub const NS_2010: &str = "http://standards.ieee.org/IEEE1516-2010";
/// Namespace of HLA 4 (IEEE 1516-2025) OMT documents.
pub const NS_2025: &str = "http://standards.ieee.org/IEEE1516-2025";

/// Converts byte offsets to 1-based line/column without rescanning the text each time.
///
/// Columns count characters, so a position on a long line would cost a scan from the line's
/// start; machine-written modules can be one line of megabytes, which made every position
/// cost as much as the whole file. Long lines therefore get a mark every [`MARK_STEP`] bytes
/// recording how many characters precede it on its line.
struct LineIndex<'t> {
    text: &'t str,
    starts: Vec<usize>,
    /// `(byte offset, characters from its line's start to it)`, ascending, on char boundaries.
    marks: Vec<(usize, usize)>,
}

/// Bytes between [`LineIndex`] marks on a long line: a position scans at most this many.
const MARK_STEP: usize = 4096;

impl<'t> LineIndex<'t> {
    fn new(text: &'t str) -> Self {
        let mut starts = vec![0];
        starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut marks = Vec::new();
        for (k, &start) in starts.iter().enumerate() {
            let end = starts.get(k + 1).copied().unwrap_or(text.len());
            if end - start <= MARK_STEP {
                continue;
            }
            let mut next = start + MARK_STEP;
            for (chars, (i, _)) in text[start..end].char_indices().enumerate() {
                if start + i >= next {
                    marks.push((start + i, chars));
                    next = start + i + MARK_STEP;
                }
            }
        }
        Self {
            text,
            starts,
            marks,
        }
    }

    fn pos(&self, offset: usize) -> SrcPos {
        let line = self.starts.partition_point(|&s| s <= offset).max(1);
        let start = self.starts[line - 1];
        let k = self.marks.partition_point(|&(b, _)| b <= offset);
        let (from, before) = match k.checked_sub(1).map(|k| self.marks[k]) {
            Some((b, chars)) if b >= start => (b, chars),
            _ => (start, 0),
        };
        let col = self
            .text
            .get(from..offset)
            .map_or(offset - from, |s| s.chars().count())
            + before
            + 1;
        SrcPos {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            col: u32::try_from(col).unwrap_or(u32::MAX),
        }
    }
}

struct Reader<'t> {
    file: Arc<str>,
    lines: LineIndex<'t>,
}

type R<T> = Result<T, FomError>;

impl Reader<'_> {
    fn pos(&self, n: Node) -> SrcPos {
        self.lines.pos(n.range().start)
    }

    fn loc(&self, p: SrcPos) -> Location {
        Location {
            file: self.file.clone(),
            line: p.line,
            col: p.col,
        }
    }

    fn err(&self, n: Node, msg: impl Into<String>) -> FomError {
        FomError::ErrorReadingFdd {
            at: self.loc(self.pos(n)),
            msg: msg.into(),
        }
    }

    fn children<'a, 'i>(n: Node<'a, 'i>, name: &'static str) -> impl Iterator<Item = Node<'a, 'i>> {
        n.children()
            .filter(move |c| c.is_element() && c.tag_name().name() == name)
    }

    fn child<'a, 'i>(n: Node<'a, 'i>, name: &'static str) -> Option<Node<'a, 'i>> {
        Self::children(n, name).next()
    }

    /// Trimmed text of the first child element `name`, `None` if absent or empty.
    fn text(n: Node, name: &'static str) -> Option<String> {
        let c = Self::child(n, name)?;
        let t: String = c
            .children()
            .filter(|t| t.is_text())
            .filter_map(|t| t.text())
            .collect();
        let t = t.trim();
        (!t.is_empty()).then(|| t.to_string())
    }

    fn name_ref(&self, n: Node, name: &'static str) -> Option<NameRef> {
        let c = Self::child(n, name)?;
        Self::text(n, name).map(|t| NameRef {
            name: t,
            pos: self.pos(c),
        })
    }

    fn req_text(&self, n: Node, name: &'static str) -> R<String> {
        Self::text(n, name).ok_or_else(|| {
            self.err(
                n,
                format!("<{}> needs a non-empty <{name}>", n.tag_name().name()),
            )
        })
    }

    fn req_ref(&self, n: Node, name: &'static str) -> R<NameRef> {
        self.name_ref(n, name).ok_or_else(|| {
            self.err(
                n,
                format!("<{}> needs a non-empty <{name}>", n.tag_name().name()),
            )
        })
    }

    fn doc(n: Node) -> Doc {
        Doc(Self::text(n, "semantics").unwrap_or_default())
    }

    fn enum_value<T: Copy>(
        &self,
        n: Node,
        name: &'static str,
        table: &[(&str, T)],
    ) -> R<Option<T>> {
        let Some(c) = Self::child(n, name) else {
            return Ok(None);
        };
        let Some(t) = Self::text(n, name) else {
            return Ok(None);
        };
        table
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(&t))
            .map(|(_, v)| Some(*v))
            .ok_or_else(|| {
                let allowed: Vec<&str> = table.iter().map(|(k, _)| *k).collect();
                self.err(
                    c,
                    format!("<{name}> is {t:?}; expected one of {}", allowed.join(", ")),
                )
            })
    }

    fn sharing(&self, n: Node) -> R<Option<Sharing>> {
        self.enum_value(
            n,
            "sharing",
            &[
                ("Publish", Sharing::Publish),
                ("Subscribe", Sharing::Subscribe),
                ("PublishSubscribe", Sharing::PublishSubscribe),
                ("Neither", Sharing::Neither),
            ],
        )
    }

    fn order(&self, n: Node) -> R<Option<OrderType>> {
        self.enum_value(
            n,
            "order",
            &[
                ("Receive", OrderType::Receive),
                ("TimeStamp", OrderType::TimeStamp),
            ],
        )
    }

    fn dimension_refs(&self, n: Node) -> Vec<NameRef> {
        Self::child(n, "dimensions")
            .map(|d| {
                Self::children(d, "dimension")
                    .filter_map(|x| {
                        let t = x.text().map(str::trim).unwrap_or_default();
                        (!t.is_empty()).then(|| NameRef {
                            name: t.to_string(),
                            pos: self.pos(x),
                        })
                    })
                    .collect()
            })
            .unwrap_or_default()
    }

    fn object_class(&self, n: Node, depth: usize) -> R<ObjectClassDecl> {
        if depth > 256 {
            return Err(self.err(n, "object class hierarchy deeper than 256 levels"));
        }
        let name = self.req_text(n, "name")?;
        let mut attributes = Vec::new();
        let mut seen = HashSet::new();
        for a in Self::children(n, "attribute") {
            let attr = self.attribute(a)?;
            if !seen.insert(attr.name.clone()) {
                return Err(self.err(
                    a,
                    format!("duplicate attribute {} in object class {name}", attr.name),
                ));
            }
            attributes.push(attr);
        }
        let mut children = Vec::new();
        let mut seen = HashSet::new();
        for c in Self::children(n, "objectClass") {
            let child = self.object_class(c, depth + 1)?;
            if !seen.insert(child.name.clone()) {
                return Err(self.err(
                    c,
                    format!("duplicate object class {} under {name}", child.name),
                ));
            }
            children.push(child);
        }
        Ok(ObjectClassDecl {
            name,
            pos: self.pos(n),
            sharing: self.sharing(n)?,
            semantics: Self::doc(n),
            attributes,
            children,
        })
    }

    fn attribute(&self, n: Node) -> R<AttributeDecl> {
        Ok(AttributeDecl {
            name: self.req_text(n, "name")?,
            pos: self.pos(n),
            data_type: Self::text(n, "dataType").unwrap_or_else(|| "NA".into()),
            update_type: self.enum_value(
                n,
                "updateType",
                &[
                    ("Static", UpdateType::Static),
                    ("Periodic", UpdateType::Periodic),
                    ("Conditional", UpdateType::Conditional),
                    ("NA", UpdateType::NotApplicable),
                ],
            )?,
            update_condition: Doc(Self::text(n, "updateCondition").unwrap_or_default()),
            ownership: self.enum_value(
                n,
                "ownership",
                &[
                    ("Divest", Ownership::Divest),
                    ("Acquire", Ownership::Acquire),
                    ("DivestAcquire", Ownership::DivestAcquire),
                    ("NoTransfer", Ownership::NoTransfer),
                ],
            )?,
            sharing: self.sharing(n)?,
            dimensions: self.dimension_refs(n),
            transportation: self.name_ref(n, "transportation"),
            order: self.order(n)?,
            semantics: Self::doc(n),
        })
    }

    fn interaction_class(&self, n: Node, depth: usize) -> R<InteractionClassDecl> {
        if depth > 256 {
            return Err(self.err(n, "interaction class hierarchy deeper than 256 levels"));
        }
        let name = self.req_text(n, "name")?;
        let mut parameters = Vec::new();
        let mut seen = HashSet::new();
        for p in Self::children(n, "parameter") {
            let par = ParameterDecl {
                name: self.req_text(p, "name")?,
                pos: self.pos(p),
                data_type: Self::text(p, "dataType").unwrap_or_else(|| "NA".into()),
                semantics: Self::doc(p),
            };
            if !seen.insert(par.name.clone()) {
                return Err(self.err(
                    p,
                    format!(
                        "duplicate parameter {} in interaction class {name}",
                        par.name
                    ),
                ));
            }
            parameters.push(par);
        }
        let mut children = Vec::new();
        let mut seen = HashSet::new();
        for c in Self::children(n, "interactionClass") {
            let child = self.interaction_class(c, depth + 1)?;
            if !seen.insert(child.name.clone()) {
                return Err(self.err(
                    c,
                    format!("duplicate interaction class {} under {name}", child.name),
                ));
            }
            children.push(child);
        }
        Ok(InteractionClassDecl {
            name,
            pos: self.pos(n),
            sharing: self.sharing(n)?,
            dimensions: self.dimension_refs(n),
            transportation: self.name_ref(n, "transportation"),
            order: self.order(n)?,
            semantics: Self::doc(n),
            parameters,
            children,
        })
    }

    fn single_root<'a, 'i>(
        &self,
        n: Node<'a, 'i>,
        class_tag: &'static str,
    ) -> R<Option<Node<'a, 'i>>> {
        let mut roots = Self::children(n, class_tag);
        let first = roots.next();
        if let Some(second) = roots.next() {
            return Err(self.err(
                second,
                format!("<{}> has more than one root class", n.tag_name().name()),
            ));
        }
        Ok(first)
    }

    fn dimension(&self, n: Node) -> R<DimensionDecl> {
        let upper_bound = match Self::child(n, "upperBound") {
            None => None,
            Some(c) => match Self::text(n, "upperBound") {
                None => None,
                Some(t) => Some(t.parse::<u64>().map_err(|_| {
                    self.err(
                        c,
                        format!("<upperBound> {t:?} is not a non-negative integer"),
                    )
                })?),
            },
        };
        let value = Self::text(n, "value");
        let default_range = match (&value, Self::child(n, "value")) {
            (Some(v), Some(c)) => default_range(v, upper_bound).map_err(|m| self.err(c, m))?,
            _ => DefaultRange::Excluded,
        };
        Ok(DimensionDecl {
            name: self.req_text(n, "name")?,
            pos: self.pos(n),
            data_type: self.name_ref(n, "dataType"),
            upper_bound,
            normalization: Self::text(n, "normalization"),
            value,
            default_range,
        })
    }

    fn data_types(&self, n: Node, out: &mut Vec<DataTypeDecl>) -> R<()> {
        for group in n.children().filter(Node::is_element) {
            #[allow(clippy::type_complexity)]
            let (item_tag, f): (&str, fn(&Self, Node) -> R<DataTypeKind>) =
                match group.tag_name().name() {
                    "basicDataRepresentations" => ("basicData", Self::basic),
                    "simpleDataTypes" => ("simpleData", |r, n| {
                        Ok(DataTypeKind::Simple {
                            representation: r.req_ref(n, "representation")?,
                        })
                    }),
                    "enumeratedDataTypes" => ("enumeratedData", Self::enumerated),
                    "arrayDataTypes" => ("arrayData", Self::array),
                    "fixedRecordDataTypes" => ("fixedRecordData", Self::fixed_record),
                    "variantRecordDataTypes" => ("variantRecordData", Self::variant_record),
                    _ => continue,
                };
            for item in group
                .children()
                .filter(|c| c.is_element() && c.tag_name().name() == item_tag)
            {
                out.push(DataTypeDecl {
                    name: self.req_text(item, "name")?,
                    pos: self.pos(item),
                    kind: f(self, item)?,
                    semantics: Self::doc(item),
                });
            }
        }
        Ok(())
    }

    fn basic(&self, n: Node) -> R<DataTypeKind> {
        let name = self.req_text(n, "name")?;
        let size_text = self.req_text(n, "size")?;
        let size_bits = size_text.parse::<u32>().map_err(|_| {
            self.err(
                n,
                format!("basic data {name}: <size> {size_text:?} is not a number of bits"),
            )
        })?;
        let endian = match Self::text(n, "endian").as_deref() {
            Some(e) if e.eq_ignore_ascii_case("Big") => Endian::Big,
            Some(e) if e.eq_ignore_ascii_case("Little") => Endian::Little,
            None if size_bits <= 8 => Endian::Big,
            other => {
                return Err(self.err(
                    n,
                    format!("basic data {name}: <endian> must be Big or Little, got {other:?}"),
                ));
            }
        };
        let kind = if name.starts_with("HLAinteger") {
            BasicKind::Signed
        } else if name.starts_with("HLAfloat") {
            BasicKind::Float
        } else if name.starts_with("HLAoctet") {
            BasicKind::Unsigned
        } else {
            let prose = format!(
                "{} {}",
                Self::text(n, "interpretation").unwrap_or_default(),
                Self::text(n, "encoding").unwrap_or_default()
            )
            .to_ascii_lowercase();
            if prose.contains("float") || prose.contains("ieee") {
                BasicKind::Float
            } else if prose.contains("unsigned") {
                BasicKind::Unsigned
            } else {
                BasicKind::Signed
            }
        };
        Ok(DataTypeKind::Basic {
            size_bits,
            endian,
            kind,
        })
    }

    fn enumerated(&self, n: Node) -> R<DataTypeKind> {
        let mut enumerators = Vec::new();
        let mut seen = HashSet::new();
        for e in Self::children(n, "enumerator") {
            let name = self.req_text(e, "name")?;
            // Several <value>s may name the same enumerator; the first is its encoding.
            let v = self.req_text(e, "value")?;
            let value = v.parse::<i64>().map_err(|_| {
                self.err(
                    e,
                    format!("enumerator {name}: value {v:?} is not an integer"),
                )
            })?;
            if !seen.insert(name.clone()) {
                return Err(self.err(e, format!("duplicate enumerator {name}")));
            }
            enumerators.push((name, value));
        }
        // The OMT requires at least one enumerator: a value of an enumeration with none could
        // never be valid, so such a module is a mistake, not an empty choice.
        if enumerators.is_empty() {
            let name = self.req_text(n, "name")?;
            return Err(self.err(
                n,
                format!("enumerated data type {name} has no <enumerator>; it needs at least one"),
            ));
        }
        Ok(DataTypeKind::Enumerated {
            representation: self.req_ref(n, "representation")?,
            enumerators,
        })
    }

    fn array(&self, n: Node) -> R<DataTypeKind> {
        let card_text = self.req_text(n, "cardinality")?;
        let mut cardinality = Vec::new();
        for part in card_text.split(',') {
            let dim = cardinality_dim(part.trim()).map_err(|why| {
                self.err(
                    n,
                    format!(
                        "array cardinality {card_text:?}: {why}; expected Dynamic, N, [min..max] \
                         or (min..max) per dimension, dimensions separated by commas"
                    ),
                )
            })?;
            cardinality.push(dim);
        }
        let encoding = match self.req_text(n, "encoding")?.as_str() {
            "HLAfixedArray" => ArrayEncoding::Fixed,
            "HLAvariableArray" => ArrayEncoding::Variable,
            other => ArrayEncoding::Other(other.to_string()),
        };
        if encoding == ArrayEncoding::Fixed
            && cardinality
                .iter()
                .any(|c| !matches!(c, CardinalityDim::Fixed(_)))
        {
            return Err(self.err(
                n,
                format!("HLAfixedArray needs a fixed cardinality, got {card_text:?}"),
            ));
        }
        Ok(DataTypeKind::Array {
            element: self.req_ref(n, "dataType")?,
            cardinality,
            encoding,
        })
    }

    fn fixed_record(&self, n: Node) -> R<DataTypeKind> {
        let mut fields = Vec::new();
        let mut seen = HashSet::new();
        for f in Self::children(n, "field") {
            let name = self.req_text(f, "name")?;
            if !seen.insert(name.clone()) {
                return Err(self.err(f, format!("duplicate field {name}")));
            }
            fields.push(FieldDecl {
                name,
                data_type: self.req_ref(f, "dataType")?,
            });
        }
        let user_encoding = Self::text(n, "encoding").filter(|e| e != "HLAfixedRecord");
        Ok(DataTypeKind::FixedRecord {
            fields,
            user_encoding,
        })
    }

    fn variant_record(&self, n: Node) -> R<DataTypeKind> {
        let mut alternatives = Vec::new();
        for a in Self::children(n, "alternative") {
            let text = self.req_text(a, "enumerator")?;
            let mut enumerators = Vec::new();
            for item in text.split(',') {
                let item = item.trim();
                let set = if item == "HLAother" {
                    EnumeratorSet::Other
                } else if let Some(inner) = item.strip_prefix('[').and_then(|s| s.strip_suffix(']'))
                {
                    let (lo, hi) = inner.split_once("..").ok_or_else(|| {
                        self.err(a, format!("enumerator range {item:?} needs [A .. B]"))
                    })?;
                    EnumeratorSet::Range(lo.trim().to_string(), hi.trim().to_string())
                } else if item.is_empty() {
                    return Err(self.err(a, format!("empty enumerator in {text:?}")));
                } else {
                    EnumeratorSet::Single(item.to_string())
                };
                enumerators.push(set);
            }
            let data_type = self.name_ref(a, "dataType").filter(|r| r.name != "NA");
            alternatives.push(AlternativeDecl {
                enumerators,
                name: Self::text(a, "name"),
                data_type,
                pos: self.pos(a),
            });
        }
        Ok(DataTypeKind::VariantRecord {
            user_encoding: Self::text(n, "encoding").filter(|e| e != "HLAvariantRecord"),
            discriminant: self.req_text(n, "discriminant")?,
            discriminant_type: self.req_ref(n, "dataType")?,
            alternatives,
        })
    }

    fn module(&self, doc: &Document) -> R<FomModule> {
        let root = doc.root_element();
        let root_pos = self.pos(root);
        if root.tag_name().name() != "objectModel" {
            return Err(self.err(
                root,
                format!(
                    "root element is <{}>, expected an IEEE 1516-2010 <objectModel>",
                    root.tag_name().name()
                ),
            ));
        }
        match root.tag_name().namespace() {
            Some(NS_2010) => {}
            Some(NS_2025) => {
                return Err(FomError::UnsupportedOmtVersion {
                    at: self.loc(root_pos),
                    namespace: NS_2025.into(),
                });
            }
            other => {
                return Err(self.err(
                    root,
                    format!(
                        "<objectModel> namespace is {other:?}, expected {NS_2010} (IEEE 1516-2010); \
                         HLA 1.3 and IEEE 1516-2000 documents are not supported"
                    ),
                ));
            }
        }
        let mut m = FomModule {
            designator: self.file.clone(),
            model_name: Self::child(root, "modelIdentification")
                .and_then(|i| Self::text(i, "name")),
            pos: root_pos,
            object_root: None,
            interaction_root: None,
            dimensions: Vec::new(),
            time: None,
            tags: Vec::new(),
            sync_points: Vec::new(),
            transportations: Vec::new(),
            switches: Vec::new(),
            update_rates: Vec::new(),
            data_types: Vec::new(),
        };
        for section in root.children().filter(Node::is_element) {
            if section.tag_name().namespace() != Some(NS_2010) {
                continue;
            }
            match section.tag_name().name() {
                "objects" => {
                    if m.object_root.is_some() {
                        return Err(self.err(section, "more than one <objects> section"));
                    }
                    if let Some(r) = self.single_root(section, "objectClass")? {
                        let decl = self.object_class(r, 0)?;
                        if decl.name != "HLAobjectRoot" {
                            return Err(self.err(
                                r,
                                format!(
                                    "the root object class is {}, must be HLAobjectRoot",
                                    decl.name
                                ),
                            ));
                        }
                        m.object_root = Some(decl);
                    }
                }
                "interactions" => {
                    if m.interaction_root.is_some() {
                        return Err(self.err(section, "more than one <interactions> section"));
                    }
                    if let Some(r) = self.single_root(section, "interactionClass")? {
                        let decl = self.interaction_class(r, 0)?;
                        if decl.name != "HLAinteractionRoot" {
                            return Err(self.err(
                                r,
                                format!(
                                    "the root interaction class is {}, must be HLAinteractionRoot",
                                    decl.name
                                ),
                            ));
                        }
                        m.interaction_root = Some(decl);
                    }
                }
                "dimensions" => {
                    for d in Self::children(section, "dimension") {
                        m.dimensions.push(self.dimension(d)?);
                    }
                }
                "time" => {
                    m.time = Some(TimeDecl {
                        pos: self.pos(section),
                        time_stamp: Self::child(section, "timeStamp")
                            .and_then(|t| Self::text(t, "dataType")),
                        lookahead: Self::child(section, "lookahead")
                            .and_then(|t| Self::text(t, "dataType")),
                    });
                }
                "tags" => {
                    for t in section.children().filter(Node::is_element) {
                        m.tags.push(TagDecl {
                            kind: t.tag_name().name().to_string(),
                            pos: self.pos(t),
                            data_type: Self::text(t, "dataType").unwrap_or_else(|| "NA".into()),
                        });
                    }
                }
                "synchronizations" => {
                    for s in Self::children(section, "synchronizationPoint") {
                        m.sync_points.push(SyncPointDecl {
                            label: self.req_text(s, "label")?,
                            pos: self.pos(s),
                            data_type: Self::text(s, "dataType"),
                            capability: Self::text(s, "capability"),
                            semantics: Self::doc(s),
                        });
                    }
                }
                "transportations" => {
                    for t in Self::children(section, "transportation") {
                        let reliable = match Self::text(t, "reliable").as_deref() {
                            Some("Yes") => true,
                            Some("No") => false,
                            other => {
                                return Err(self.err(
                                    t,
                                    format!("<reliable> must be Yes or No, got {other:?}"),
                                ));
                            }
                        };
                        m.transportations.push(TransportationDecl {
                            name: self.req_text(t, "name")?,
                            pos: self.pos(t),
                            reliable,
                            semantics: Self::doc(t),
                        });
                    }
                }
                "switches" => {
                    for s in section.children().filter(Node::is_element) {
                        let value = s
                            .attribute("isEnabled")
                            .or_else(|| s.attribute("resignAction"))
                            .ok_or_else(|| {
                                self.err(s, "switch needs an isEnabled or resignAction attribute")
                            })?;
                        m.switches.push(SwitchDecl {
                            name: s.tag_name().name().to_string(),
                            pos: self.pos(s),
                            value: value.to_string(),
                        });
                    }
                }
                "updateRates" => {
                    for u in Self::children(section, "updateRate") {
                        let rate_text = self.req_text(u, "rate")?;
                        let rate = rate_text
                            .parse::<f64>()
                            .ok()
                            .filter(|r| r.is_finite() && *r >= 0.0)
                            .ok_or_else(|| {
                                self.err(u, format!("<rate> {rate_text:?} is not a rate in Hz"))
                            })?;
                        m.update_rates.push(UpdateRateDecl {
                            name: self.req_text(u, "name")?,
                            pos: self.pos(u),
                            rate,
                        });
                    }
                }
                "dataTypes" => self.data_types(section, &mut m.data_types)?,
                _ => {}
            }
        }
        Ok(m)
    }
}

/// One dimension of an array's cardinality as the 2010 OMT writes it: `Dynamic`, a count `N`,
/// or a range of counts written `[min..max]` or `(min..max)` (both bounds included; the two
/// spellings occur in published FOMs and mean the same).
/// A dimension's `value`: `Excluded`, `[lower..upper)` or `[v)` (= `[v..v+1)`), with
/// `lower < upper <= upper_bound` (when the dimension has one). Spaces around the numbers are
/// allowed; `Excluded` is matched without regard to case.
fn default_range(text: &str, upper_bound: Option<u64>) -> Result<DefaultRange, String> {
    let t = text.trim();
    if t.eq_ignore_ascii_case("Excluded") {
        return Ok(DefaultRange::Excluded);
    }
    let bad = || {
        format!(
            "<value> {text:?} is not a default range: expected [lower..upper), [value) or Excluded"
        )
    };
    let inner = t
        .strip_prefix('[')
        .and_then(|r| r.strip_suffix(')'))
        .ok_or_else(bad)?;
    let num = |s: &str| s.trim().parse::<u64>().map_err(|_| bad());
    let (lower, upper) = match inner.split_once("..") {
        Some((lo, hi)) => (num(lo)?, num(hi)?),
        None => {
            let v = num(inner)?;
            let next = v
                .checked_add(1)
                .ok_or_else(|| format!("<value> {text:?}: the range [{v}) has no upper end"))?;
            (v, next)
        }
    };
    if lower >= upper {
        return Err(format!(
            "<value> {text:?}: the lower bound must be below the upper bound"
        ));
    }
    if let Some(ub) = upper_bound
        && upper > ub
    {
        return Err(format!(
            "<value> {text:?}: the range ends beyond the dimension's upper bound {ub}"
        ));
    }
    Ok(DefaultRange::Range { lower, upper })
}

fn cardinality_dim(p: &str) -> Result<CardinalityDim, String> {
    if p.eq_ignore_ascii_case("Dynamic") {
        return Ok(CardinalityDim::Dynamic);
    }
    let range = p
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .or_else(|| p.strip_prefix('(').and_then(|s| s.strip_suffix(')')));
    if let Some(inner) = range {
        let (lo, hi) = inner
            .split_once("..")
            .ok_or_else(|| format!("range {p:?} needs two bounds separated by \"..\""))?;
        let bound = |b: &str| {
            b.trim()
                .parse::<u64>()
                .map_err(|_| format!("range {p:?}: {:?} is not a non-negative count", b.trim()))
        };
        let (lo, hi) = (bound(lo)?, bound(hi)?);
        if lo > hi {
            return Err(format!(
                "range {p:?} has its lower bound above its upper bound"
            ));
        }
        return Ok(CardinalityDim::Range(lo, hi));
    }
    if p.is_empty() {
        return Err("a dimension is empty".into());
    }
    p.parse::<u32>()
        .map(CardinalityDim::Fixed)
        .map_err(|_| format!("{p:?} is not a count, a range or Dynamic"))
}

impl FomModule {
    /// Parses a module from its XML text; `designator` names it in errors (usually its path).
    pub fn parse(designator: &str, xml: &str) -> Result<FomModule, FomError> {
        Self::parse_limited(designator, xml, MAX_XML_NODES)
    }

    /// [`FomModule::parse`] with a limit on XML nodes (tests use small ones).
    fn parse_limited(designator: &str, xml: &str, nodes_limit: u32) -> Result<FomModule, FomError> {
        // Some editors write a byte-order mark; it is not part of the document.
        let xml = xml.strip_prefix('\u{feff}').unwrap_or(xml);
        let file: Arc<str> = Arc::from(designator);
        let reader = Reader {
            file: file.clone(),
            lines: LineIndex::new(xml),
        };
        let opts = roxmltree::ParsingOptions {
            allow_dtd: false,
            nodes_limit,
            ..Default::default()
        };
        let doc = Document::parse_with_options(xml, opts).map_err(|e| {
            let (line, col) = match e {
                // These two report 1:1; the end of the text is where the reader has to look.
                roxmltree::Error::UnclosedRootNode | roxmltree::Error::UnexpectedEndOfStream => {
                    let end = reader.lines.pos(xml.len());
                    (end.line, end.col)
                }
                // So does this one; the node that went past the limit is the place to show.
                roxmltree::Error::NodesLimitReached => {
                    let at = node_offset(xml, nodes_limit as usize)
                        .map_or(SrcPos { line: 1, col: 1 }, |o| reader.lines.pos(o));
                    return FomError::ErrorReadingFdd {
                        at: Location {
                            file: file.clone(),
                            line: at.line,
                            col: at.col,
                        },
                        msg: format!(
                            "the document has more than {nodes_limit} XML nodes (elements, text \
                             runs, comments); this is where it passes the limit"
                        ),
                    };
                }
                _ => (e.pos().row, e.pos().col),
            };
            FomError::ErrorReadingFdd {
                at: Location { file, line, col },
                msg: format!("malformed XML: {e}"),
            }
        })?;
        reader.module(&doc)
    }

    /// Reads and parses a module file.
    pub fn from_file(path: impl AsRef<std::path::Path>) -> Result<FomModule, FomError> {
        let path = path.as_ref();
        let shown = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|e| FomError::CouldNotOpenFdd {
            path: shown.clone(),
            reason: e.to_string(),
        })?;
        let xml = decode_text(&bytes).ok_or_else(|| FomError::CouldNotOpenFdd {
            path: shown.clone(),
            reason: "not UTF-8 or UTF-16 text".into(),
        })?;
        Self::parse(&shown, &xml)
    }

    /// The standard MIM (`HLAstandardMIM.xml`), embedded in the crate.
    pub fn standard_mim() -> FomModule {
        // The embedded file is tested to parse; a failure here is a build defect.
        #[allow(clippy::expect_used)]
        Self::parse(STANDARD_MIM_DESIGNATOR, STANDARD_MIM_XML)
            .expect("embedded standard MIM parses")
    }
}

/// Most XML nodes a module may have (elements, text runs, comments, processing instructions):
/// far above any real FOM (the whole RPR FOM has about 60,000), and it bounds the memory a
/// hostile module costs before anything is checked (about 400 MB at the limit).
const MAX_XML_NODES: u32 = 4_000_000;

/// Byte offset of node number `index` (0 is the document itself) of a well-formed document,
/// counted the way roxmltree counts them when it enforces its node limit: each element, each
/// run of text inside the root element (CDATA and entity references included), each comment
/// and processing instruction. roxmltree says the limit was reached but not where; this scan
/// finds the place so the user can see what outgrew it. `None` if the document has fewer nodes.
fn node_offset(xml: &str, index: usize) -> Option<usize> {
    let bytes = xml.as_bytes();
    let find = |from: usize, pat: &str| xml.get(from..)?.find(pat).map(|i| from + i);
    let mut count = 0usize; // nodes before the one being looked at; the document is node 0
    let mut depth = 0usize;
    let mut in_text = false;
    let mut i = 0;
    // Counts a node starting at `at`; true when it is the one asked for.
    let node = |count: &mut usize| {
        *count += 1;
        *count == index
    };
    while i < bytes.len() {
        if bytes[i] != b'<' {
            let next = find(i, "<").unwrap_or(bytes.len());
            if depth > 0 && !in_text {
                if node(&mut count) {
                    return Some(i);
                }
                in_text = true;
            }
            i = next;
            continue;
        }
        let rest = &xml[i..];
        if rest.starts_with("<!--") {
            if node(&mut count) {
                return Some(i);
            }
            in_text = false;
            i = find(i + 4, "-->")? + 3;
        } else if rest.starts_with("<![CDATA[") {
            if depth > 0 && !in_text {
                if node(&mut count) {
                    return Some(i);
                }
                in_text = true;
            }
            i = find(i + 9, "]]>")? + 3;
        } else if rest.starts_with("<?") {
            // The XML declaration is not a node; other processing instructions are.
            let declaration = i == 0 && rest.starts_with("<?xml") && {
                let after = rest.as_bytes().get(5).copied().unwrap_or(b'?');
                after.is_ascii_whitespace() || after == b'?'
            };
            if !declaration && node(&mut count) {
                return Some(i);
            }
            in_text = false;
            i = find(i + 2, "?>")? + 2;
        } else if rest.starts_with("</") {
            depth = depth.saturating_sub(1);
            in_text = false;
            i = find(i, ">")? + 1;
        } else if rest.starts_with("<!") {
            i = find(i, ">")? + 1;
        } else {
            if node(&mut count) {
                return Some(i);
            }
            in_text = false;
            // The tag ends at the first '>' outside a quoted attribute value.
            let mut j = i + 1;
            let mut quote = None;
            while j < bytes.len() {
                match (quote, bytes[j]) {
                    (None, b'"' | b'\'') => quote = Some(bytes[j]),
                    (Some(q), c) if c == q => quote = None,
                    (None, b'>') => break,
                    _ => {}
                }
                j += 1;
            }
            if bytes.get(j.wrapping_sub(1)) != Some(&b'/') {
                depth += 1;
            }
            i = j + 1;
        }
    }
    None
}

/// Designator of the embedded standard MIM.
pub const STANDARD_MIM_DESIGNATOR: &str = "HLAstandardMIM.xml";
/// Text of the embedded standard MIM.
pub const STANDARD_MIM_XML: &str = include_str!("HLAstandardMIM.xml");

/// FOM files come from many tools: UTF-8 (with or without a byte-order mark) or UTF-16 with a
/// byte-order mark, as some Windows editors save them.
fn decode_text(bytes: &[u8]) -> Option<String> {
    let utf16 = |rest: &[u8], be: bool| -> Option<String> {
        let units = rest.chunks_exact(2).map(|c| {
            if be {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .collect::<Result<String, _>>()
            .ok()
    };
    match bytes {
        [0xff, 0xfe, rest @ ..] => utf16(rest, false),
        [0xfe, 0xff, rest @ ..] => utf16(rest, true),
        _ => String::from_utf8(bytes.to_vec()).ok(),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    const SAMPLE: &str = "<?xml version=\"1.0\"?>\n<!-- before the root -->\n\
        <objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\" note='a > b'>\n  \
        <dataTypes>text &amp; more<![CDATA[raw <x>]]>tail<?note data?><empty a=\"/>\"/>\n  \
        <!-- inside --><x><![CDATA[]]></x></dataTypes>\n</objectModel>\n<!-- after -->\n";

    /// The scan that finds where a document passes the node limit counts nodes as roxmltree
    /// does: every element, comment and processing instruction is found at the offset
    /// roxmltree gives it, and the count ends where roxmltree's does.
    #[test]
    fn node_scan_agrees_with_roxmltree() {
        for (xml, step) in [(SAMPLE, 1), (STANDARD_MIM_XML, 101)] {
            let doc = Document::parse(xml).unwrap();
            let nodes: Vec<_> = doc.root().descendants().collect();
            for (i, n) in nodes.iter().enumerate().skip(1).step_by(step) {
                let at = node_offset(xml, i).unwrap_or_else(|| panic!("node {i} not found"));
                if !n.is_text() {
                    assert_eq!(at, n.range().start, "node {i}: {n:?}");
                }
            }
            assert!(node_offset(xml, nodes.len() - 1).is_some());
            assert_eq!(node_offset(xml, nodes.len()), None);
        }
    }

    /// Positions on long lines (with marks) equal a plain character count from the line start,
    /// for ASCII and multi-byte text.
    #[test]
    fn line_index_marks_give_the_same_columns() {
        let long: String = (0..3 * MARK_STEP)
            .map(|i| if i % 7 == 0 { 'é' } else { 'a' })
            .collect();
        let text = format!("short\n{long}\n{long}x\nend");
        let index = LineIndex::new(&text);
        assert!(!index.marks.is_empty());
        for (offset, _) in text.char_indices().step_by(13).chain([(text.len(), ' ')]) {
            let line_start = text[..offset].rfind('\n').map_or(0, |i| i + 1);
            let line = text[..offset].matches('\n').count() + 1;
            let col = text[line_start..offset].chars().count() + 1;
            let p = index.pos(offset);
            assert_eq!(
                (p.line as usize, p.col as usize),
                (line, col),
                "offset {offset}"
            );
        }
    }

    #[test]
    fn passing_the_node_limit_names_the_place() {
        let doc = Document::parse(SAMPLE).unwrap();
        let element = doc.descendants().find(|n| n.has_tag_name("empty")).unwrap();
        let index = doc.descendants().position(|n| n == element).unwrap();
        let err = FomModule::parse_limited("big.xml", SAMPLE, index as u32).unwrap_err();
        let FomError::ErrorReadingFdd { at, msg } = err else {
            panic!("{err:?}")
        };
        let want = LineIndex::new(SAMPLE).pos(element.range().start);
        assert_eq!((at.line, at.col), (want.line, want.col));
        assert!(
            msg.contains(&format!("more than {index} XML nodes")),
            "{msg}"
        );
    }
}
