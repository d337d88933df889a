//! Resolution and checks after a merge: every reference (data types, dimensions,
//! transportation types) resolved, every data type resolved into the codec's table within
//! [`MAX_TYPE_DEPTH`] whatever order the modules declare them in, names checked for uniqueness
//! along each class hierarchy, and the digest recomputed.

use std::collections::HashMap;
use std::sync::Arc;

use crate::fom::error::{FomError, Location};
use crate::fom::module::*;
use crate::fom::types::{
    DataTypeTable, ElementFlavor, ResolvedAlternative, ResolvedKind, ResolvedType, TypeId, layout,
};
use crate::handles::*;

use super::{Attribute, Fdd, MAX_TYPE_DEPTH, PRIVILEGE_TO_DELETE, Parameter, R, at, conflict};

/// The state of one resolution of every data type ([`Fdd::resolve_type`]).
struct TypeWalk {
    /// Resolved types by declaration index.
    out: Vec<Option<ResolvedType>>,
    /// Nesting height of each resolved type (0 for a basic representation).
    height: Vec<usize>,
    /// 0 not visited, 1 being resolved (a reference back to it is a cycle), 2 resolved.
    state: Vec<u8>,
}

fn reading(file: &Arc<str>, p: SrcPos, msg: String) -> FomError {
    FomError::ErrorReadingFdd {
        at: at(file, p),
        msg,
    }
}

impl Fdd {
    fn type_ref(&self, file: &Arc<str>, r: &NameRef, what: &str) -> R<TypeId> {
        self.type_by_name.get(&r.name).copied().ok_or_else(|| {
            reading(
                file,
                r.pos,
                format!("{what} refers to unknown data type {}", r.name),
            )
        })
    }

    fn optional_type(&self, loc: &Location, name: &str, what: &str) -> R<Option<TypeId>> {
        if name == "NA" {
            return Ok(None);
        }
        self.type_by_name
            .get(name)
            .copied()
            .map(Some)
            .ok_or_else(|| FomError::ErrorReadingFdd {
                at: loc.clone(),
                msg: format!("{what} refers to unknown data type {name}"),
            })
    }

    fn dimension_ref(&self, file: &Arc<str>, r: &NameRef, what: &str) -> R<DimensionHandle> {
        self.dimension_by_name.get(&r.name).copied().ok_or_else(|| {
            reading(
                file,
                r.pos,
                format!("{what} refers to unknown dimension {}", r.name),
            )
        })
    }

    fn transportation_ref(
        &self,
        file: &Arc<str>,
        r: &Option<NameRef>,
        fallback: &Location,
        what: &str,
    ) -> R<TransportationTypeHandle> {
        let name = r.as_ref().map_or("HLAreliable", |r| r.name.as_str());
        self.transportation_by_name
            .get(name)
            .copied()
            .ok_or_else(|| FomError::ErrorReadingFdd {
                at: r
                    .as_ref()
                    .map_or_else(|| fallback.clone(), |r| at(file, r.pos)),
                msg: format!("{what} refers to unknown transportation type {name}"),
            })
    }

    pub(super) fn resolve(&mut self) -> R<()> {
        self.resolve_types()?;
        // Attributes.
        for i in 0..self.attributes.len() {
            let a = &self.attributes[i];
            let file = a.at.file.clone();
            let what = format!(
                "attribute {}.{}",
                self.object_classes[a.class.index()].qualified_name,
                a.name
            );
            let data_type = self.optional_type(&a.at, &a.decl.data_type, &what)?;
            let dimensions = a
                .decl
                .dimensions
                .iter()
                .map(|d| self.dimension_ref(&file, d, &what))
                .collect::<R<Vec<_>>>()?;
            let transportation =
                self.transportation_ref(&file, &a.decl.transportation, &a.at, &what)?;
            let a = &mut self.attributes[i];
            a.data_type = data_type;
            a.dimensions = dimensions;
            a.transportation = transportation;
        }
        for i in 0..self.parameters.len() {
            let p = &self.parameters[i];
            let what = format!(
                "parameter {}.{}",
                self.interaction_classes[p.class.index()].qualified_name,
                p.name
            );
            let data_type = self.optional_type(&p.at, &p.decl.data_type, &what)?;
            self.parameters[i].data_type = data_type;
        }
        for i in 0..self.interaction_classes.len() {
            let c = &self.interaction_classes[i];
            let what = format!("interaction class {}", c.qualified_name);
            let dims = c
                .dimension_refs
                .iter()
                .map(|d| self.dimension_ref(&c.dimension_refs_file, d, &what))
                .collect::<R<Vec<_>>>()?;
            let tr = self.transportation_ref(
                &c.transportation_ref_file,
                &c.transportation_ref,
                &c.first_seen,
                &what,
            )?;
            let c = &mut self.interaction_classes[i];
            c.dimensions = dims;
            c.transportation = tr;
        }
        for d in &self.dimensions {
            if let Some(r) = &d.decl.data_type {
                self.type_ref(&d.at.file, r, &format!("dimension {}", d.decl.name))?;
            }
        }
        for t in &self.tags {
            self.optional_type(&t.at, &t.decl.data_type, &t.decl.kind)?;
        }
        for s in &self.sync_points {
            if let Some(dt) = &s.decl.data_type {
                self.optional_type(
                    &s.at,
                    dt,
                    &format!("synchronization point {}", s.decl.label),
                )?;
            }
        }
        if let Some(t) = &self.time {
            for dt in [&t.decl.time_stamp, &t.decl.lookahead]
                .into_iter()
                .flatten()
            {
                self.optional_type(&t.at, dt, "time representation")?;
            }
        }
        self.check_attribute_names()?;
        self.check_parameter_names()?;
        let root = self.object_classes.first();
        let has_privilege = root.is_some_and(|r| {
            r.attributes
                .iter()
                .any(|a| self.attributes[a.index()].name == PRIVILEGE_TO_DELETE)
        });
        if !has_privilege {
            let file = self
                .modules
                .first()
                .cloned()
                .unwrap_or_else(|| Arc::from("?"));
            return Err(reading(
                &file,
                SrcPos { line: 1, col: 1 },
                format!("the MIM must declare {PRIVILEGE_TO_DELETE} on HLAobjectRoot"),
            ));
        }
        if self.interaction_classes.is_empty() {
            let file = self
                .modules
                .first()
                .cloned()
                .unwrap_or_else(|| Arc::from("?"));
            return Err(reading(
                &file,
                SrcPos { line: 1, col: 1 },
                "the MIM must declare HLAinteractionRoot".into(),
            ));
        }
        self.digest = self.compute_digest();
        Ok(())
    }

    fn check_attribute_names(&self) -> R<()> {
        for c in &self.object_classes {
            let mut seen: HashMap<&str, &Attribute> = HashMap::new();
            for a in self.available_attributes_of(c.handle) {
                let attr = &self.attributes[a.index()];
                if let Some(prev) = seen.insert(&attr.name, attr) {
                    return Err(conflict(
                        attr.at.clone(),
                        &prev.at,
                        format!("attribute {}.{}", c.qualified_name, attr.name),
                        "has the same name as an attribute of a superclass",
                    ));
                }
            }
        }
        Ok(())
    }

    fn check_parameter_names(&self) -> R<()> {
        for c in &self.interaction_classes {
            let mut seen: HashMap<&str, &Parameter> = HashMap::new();
            for p in self.available_parameters_of(c.handle) {
                let par = &self.parameters[p.index()];
                if let Some(prev) = seen.insert(&par.name, par) {
                    return Err(conflict(
                        par.at.clone(),
                        &prev.at,
                        format!("parameter {}.{}", c.qualified_name, par.name),
                        "has the same name as a parameter of a superclass",
                    ));
                }
            }
        }
        Ok(())
    }

    fn resolve_types(&mut self) -> R<()> {
        let n = self.data_type_decls.len();
        let mut walk = TypeWalk {
            out: vec![None; n],
            height: vec![0; n],
            state: vec![0u8; n],
        };
        for i in 0..n {
            self.resolve_type(i, &mut walk, i, 0)?;
        }
        self.types = DataTypeTable {
            types: walk.out.into_iter().flatten().collect(),
        };
        Ok(())
    }

    /// Resolves data type `i` and returns its octet boundary, smallest encoding and nesting
    /// height (a basic representation is 0, anything else one more than the deepest type it
    /// refers to). The height is remembered with the resolved type, so the depth limit holds
    /// whatever order the types are declared in: a type met already resolved still adds its
    /// whole height to the type that refers to it. `depth` counts the references followed from
    /// `root` (the type whose resolution started this walk); it bounds the recursion itself, so a
    /// chain of unresolved types cannot exhaust the stack before its height is known.
    fn resolve_type(
        &self,
        i: usize,
        walk: &mut TypeWalk,
        root: usize,
        depth: usize,
    ) -> R<(usize, usize, usize)> {
        let d = &self.data_type_decls[i];
        let file = &d.at.file;
        let name = &d.decl.name;
        if let Some(t) = &walk.out[i] {
            return Ok((t.boundary, t.min_len, walk.height[i]));
        }
        if walk.state[i] == 1 {
            return Err(reading(
                file,
                d.decl.pos,
                format!("data type {name} is defined in terms of itself (cyclic definition)"),
            ));
        }
        if depth > MAX_TYPE_DEPTH {
            let r = &self.data_type_decls[root];
            return Err(reading(
                &r.at.file,
                r.decl.pos,
                format!(
                    "data type {} nests more than {MAX_TYPE_DEPTH} levels deep (data type {name} \
                     is {depth} levels down)",
                    r.decl.name
                ),
            ));
        }
        walk.state[i] = 1;
        // The height of this type: one more than the highest type it refers to.
        let mut height = 0usize;
        macro_rules! sub {
            ($r:expr, $what:expr) => {{
                let r: &NameRef = $r;
                let id = self.type_ref(file, r, &format!("{} of data type {name}", $what))?;
                let (b, m, h) = self.resolve_type(id.0 as usize, walk, root, depth + 1)?;
                height = height.max(h + 1);
                (id, b, m)
            }};
        }
        let (kind, boundary, min_len) = match &d.decl.kind {
            DataTypeKind::Basic {
                size_bits,
                endian,
                kind,
            } => {
                let bytes = if matches!(size_bits, 8 | 16 | 32 | 64) {
                    (*size_bits / 8) as usize
                } else {
                    0
                };
                if *kind == BasicKind::Float && !matches!(size_bits, 32 | 64) {
                    return Err(reading(
                        file,
                        d.decl.pos,
                        format!(
                            "basic data {name}: a float must be 32 or 64 bits, not {size_bits}"
                        ),
                    ));
                }
                let b = (size_bits.div_ceil(8) as usize).max(1);
                (
                    ResolvedKind::Basic {
                        bytes,
                        endian: *endian,
                        kind: *kind,
                    },
                    b,
                    b,
                )
            }
            DataTypeKind::Simple { representation } => {
                let (id, b, m) = sub!(representation, "representation");
                self.require_basic(id, file, representation)?;
                (ResolvedKind::Simple { representation: id }, b, m)
            }
            DataTypeKind::Enumerated {
                representation,
                enumerators,
            } => {
                let (id, b, m) = sub!(representation, "representation");
                self.require_basic(id, file, representation)?;
                (
                    ResolvedKind::Enumerated {
                        representation: id,
                        enumerators: enumerators
                            .iter()
                            .map(|(n, v)| (Arc::from(n.as_str()), *v))
                            .collect(),
                        boolean: name == "HLAboolean",
                    },
                    b,
                    m,
                )
            }
            DataTypeKind::Array {
                element,
                cardinality,
                encoding,
            } => {
                let (id, b, m) = sub!(element, "element type");
                let lay = layout(encoding, cardinality).ok_or_else(|| {
                    reading(
                        file,
                        d.decl.pos,
                        format!("array {name}: element count overflows"),
                    )
                })?;
                let flavor = match element.name.as_str() {
                    "HLAASCIIchar" => ElementFlavor::AsciiChar,
                    "HLAunicodeChar" => ElementFlavor::UnicodeChar,
                    "HLAoctet" | "HLAbyte" => ElementFlavor::Octet,
                    _ => ElementFlavor::Plain,
                };
                let (boundary, min_len) = match &lay {
                    crate::fom::types::ArrayLayout::Fixed(n) => (b, m.saturating_mul(*n)),
                    crate::fom::types::ArrayLayout::Variable => (b.max(4), 4),
                    crate::fom::types::ArrayLayout::NullTerminated => (b, m.max(1)),
                    crate::fom::types::ArrayLayout::Lengthless
                    | crate::fom::types::ArrayLayout::PaddingTo(_)
                    | crate::fom::types::ArrayLayout::UserDefined(_) => (b, 0),
                };
                (
                    ResolvedKind::Array {
                        element: id,
                        layout: lay,
                        flavor,
                    },
                    boundary,
                    min_len,
                )
            }
            DataTypeKind::FixedRecord {
                fields,
                user_encoding,
            } => {
                let mut resolved = Vec::with_capacity(fields.len());
                let (mut b, mut m) = (1usize, 0usize);
                for f in fields {
                    let (id, fb, fm) = sub!(&f.data_type, &format!("field {}", f.name));
                    b = b.max(fb);
                    m = m.saturating_add(fm);
                    resolved.push((Arc::from(f.name.as_str()), id));
                }
                (
                    ResolvedKind::FixedRecord {
                        fields: resolved,
                        user_encoding: user_encoding.clone(),
                    },
                    b,
                    m,
                )
            }
            DataTypeKind::VariantRecord {
                discriminant,
                discriminant_type,
                alternatives,
                user_encoding,
            } => {
                let (disc, db, dm) = sub!(discriminant_type, "discriminant type");
                let Some(ResolvedType {
                    kind: ResolvedKind::Enumerated { enumerators, .. },
                    ..
                }) = walk.out[disc.0 as usize].as_ref()
                else {
                    return Err(reading(
                        file,
                        discriminant_type.pos,
                        format!(
                            "variant record {name}: discriminant type {} is not an enumeration",
                            discriminant_type.name
                        ),
                    ));
                };
                let enumerators = enumerators.clone();
                let value_of = |e: &str, pos: SrcPos| -> R<i64> {
                    enumerators
                        .iter()
                        .find(|(n, _)| **n == *e)
                        .map(|(_, v)| *v)
                        .ok_or_else(|| {
                            reading(
                                file,
                                pos,
                                format!(
                                    "variant record {name}: {e} is not an enumerator of {}",
                                    discriminant_type.name
                                ),
                            )
                        })
                };
                let mut alts = Vec::new();
                let mut b = db;
                for a in alternatives {
                    let mut values = Vec::new();
                    let mut other = false;
                    for set in &a.enumerators {
                        match set {
                            EnumeratorSet::Single(e) => {
                                let v = value_of(e, a.pos)?;
                                values.push((v, v));
                            }
                            EnumeratorSet::Range(lo, hi) => {
                                values.push((value_of(lo, a.pos)?, value_of(hi, a.pos)?));
                            }
                            EnumeratorSet::Other => other = true,
                        }
                    }
                    let data_type = match &a.data_type {
                        Some(r) => {
                            let (id, ab, _) = sub!(r, "alternative");
                            b = b.max(ab);
                            Some(id)
                        }
                        None => None,
                    };
                    alts.push(ResolvedAlternative {
                        name: a
                            .name
                            .clone()
                            .unwrap_or_else(|| format!("{:?}", a.enumerators))
                            .into(),
                        data_type,
                        values,
                        other,
                    });
                }
                (
                    ResolvedKind::VariantRecord {
                        discriminant: discriminant.clone(),
                        discriminant_type: disc,
                        alternatives: alts,
                        user_encoding: user_encoding.clone(),
                    },
                    b,
                    dm,
                )
            }
        };
        if height > MAX_TYPE_DEPTH {
            return Err(reading(
                file,
                d.decl.pos,
                format!(
                    "data type {name} nests more than {MAX_TYPE_DEPTH} levels deep (its \
                     element, field, alternative or representation types go {height} levels down)"
                ),
            ));
        }
        walk.state[i] = 2;
        walk.height[i] = height;
        walk.out[i] = Some(ResolvedType {
            name: name.clone(),
            kind,
            boundary,
            min_len,
        });
        Ok((boundary, min_len, height))
    }

    fn require_basic(&self, id: TypeId, file: &Arc<str>, r: &NameRef) -> R<()> {
        match self.data_type_decls[id.0 as usize].decl.kind {
            DataTypeKind::Basic { .. } => Ok(()),
            _ => Err(reading(
                file,
                r.pos,
                format!(
                    "representation {} is not a basic data representation",
                    r.name
                ),
            )),
        }
    }
}
