//! The merged FDD: the MIM plus every FOM module merged in order, with handles assigned, every
//! reference resolved and a digest that identifies it.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::error::{FomError, Location, LookupError};
use super::module::*;
use super::parse::STANDARD_MIM_DESIGNATOR;
use super::types::{
    DataTypeTable, ElementFlavor, ResolvedAlternative, ResolvedKind, ResolvedType, TypeId, layout,
};
use crate::encoding::{EncoderError, Value, dynamic};
use crate::handles::*;

/// The attribute every object class has (declared on `HLAobjectRoot` by the MIM).
pub const PRIVILEGE_TO_DELETE: &str = "HLAprivilegeToDeleteObject";

/// Deepest nesting of data types accepted, and the dynamic codec's recursion bound.
///
/// A type's depth counts the references from it down to a basic representation along its
/// longest path: a basic representation is 0 deep, a simple or enumerated type on one is 1, an
/// array of those 2, and so on through array elements, record fields, variant alternatives
/// and discriminants. The loader refuses a deeper type whatever order the module declares its
/// types in, so that no value of a loaded type can nest deeper than this (each level costs the
/// decoder one stack frame, and any joiner can bring a module).
pub const MAX_TYPE_DEPTH: usize = 64;

/// An object class of the merged FDD.
#[derive(Debug, Clone)]
pub struct ObjectClass {
    /// Handle.
    pub handle: ObjectClassHandle,
    /// Unqualified name.
    pub name: String,
    /// Fully qualified name, e.g. `HLAobjectRoot.Food.Drink`.
    pub qualified_name: String,
    /// Superclass (`None` for `HLAobjectRoot`).
    pub parent: Option<ObjectClassHandle>,
    /// Subclasses in handle order.
    pub children: Vec<ObjectClassHandle>,
    /// Sharing, from the first module that gives it.
    pub sharing: Option<Sharing>,
    /// Attributes declared on this class (not inherited), in declaration order.
    pub attributes: Vec<AttributeHandle>,
    /// Where the class first appeared.
    pub first_seen: Location,
    /// Where its attributes were declared (`None` while only scaffolding has been seen).
    pub defined_at: Option<Location>,
}

/// A class attribute.
#[derive(Debug, Clone)]
pub struct Attribute {
    /// Handle (unique across the FDD).
    pub handle: AttributeHandle,
    /// The class that declares it.
    pub class: ObjectClassHandle,
    /// Name.
    pub name: String,
    /// Resolved data type, `None` for `NA`.
    pub data_type: Option<TypeId>,
    /// Resolved dimensions.
    pub dimensions: Vec<DimensionHandle>,
    /// Resolved transportation (default `HLAreliable`).
    pub transportation: TransportationTypeHandle,
    /// Order (default Receive).
    pub order: OrderType,
    /// The declaration as written.
    pub decl: AttributeDecl,
    /// Where.
    pub at: Location,
}

/// An interaction class of the merged FDD.
#[derive(Debug, Clone)]
pub struct InteractionClass {
    /// Handle.
    pub handle: InteractionClassHandle,
    /// Unqualified name.
    pub name: String,
    /// Fully qualified name.
    pub qualified_name: String,
    /// Superclass.
    pub parent: Option<InteractionClassHandle>,
    /// Subclasses.
    pub children: Vec<InteractionClassHandle>,
    /// Sharing.
    pub sharing: Option<Sharing>,
    /// Dimension names as declared (resolved in `dimensions`).
    pub dimension_refs: Vec<NameRef>,
    /// Resolved dimensions.
    pub dimensions: Vec<DimensionHandle>,
    /// Transportation as declared.
    pub transportation_ref: Option<NameRef>,
    /// Resolved transportation (default `HLAreliable`).
    pub transportation: TransportationTypeHandle,
    /// Order (default Receive).
    pub order: OrderType,
    order_decl: Option<OrderType>,
    /// Modules the dimension and transportation references were read from (for errors).
    dimension_refs_file: Arc<str>,
    transportation_ref_file: Arc<str>,
    /// Parameters declared on this class.
    pub parameters: Vec<ParameterHandle>,
    /// Where the class first appeared.
    pub first_seen: Location,
    /// Where its parameters were declared.
    pub defined_at: Option<Location>,
}

/// An interaction parameter.
#[derive(Debug, Clone)]
pub struct Parameter {
    /// Handle (unique across the FDD).
    pub handle: ParameterHandle,
    /// Declaring class.
    pub class: InteractionClassHandle,
    /// Name.
    pub name: String,
    /// Resolved data type, `None` for `NA`.
    pub data_type: Option<TypeId>,
    /// The declaration.
    pub decl: ParameterDecl,
    /// Where.
    pub at: Location,
}

/// A DDM dimension.
#[derive(Debug, Clone)]
pub struct Dimension {
    /// Handle.
    pub handle: DimensionHandle,
    /// The declaration.
    pub decl: DimensionDecl,
    /// Where.
    pub at: Location,
}

/// A transportation type.
#[derive(Debug, Clone)]
pub struct Transportation {
    /// Handle.
    pub handle: TransportationTypeHandle,
    /// The declaration.
    pub decl: TransportationDecl,
    /// Where.
    pub at: Location,
}

/// A named update rate.
#[derive(Debug, Clone)]
pub struct UpdateRate {
    /// Handle.
    pub handle: UpdateRateHandle,
    /// The declaration.
    pub decl: UpdateRateDecl,
    /// Where.
    pub at: Location,
}

#[derive(Debug, Clone)]
struct Defined<T> {
    decl: T,
    at: Location,
}

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

/// What one [`Fdd::merge_module`] added.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MergeReport {
    /// New object classes.
    pub object_classes: Vec<ObjectClassHandle>,
    /// New attributes (on new classes or grafted onto scaffolding).
    pub attributes: Vec<AttributeHandle>,
    /// New interaction classes.
    pub interaction_classes: Vec<InteractionClassHandle>,
    /// New parameters.
    pub parameters: Vec<ParameterHandle>,
    /// New dimensions.
    pub dimensions: Vec<DimensionHandle>,
    /// New transportation types.
    pub transportations: Vec<TransportationTypeHandle>,
    /// Names of new data types.
    pub data_types: Vec<String>,
}

/// The merged Federation Object Model.
///
/// # Merge rules (`docs/HLA-SEMANTICS.md`, "FOM module merging")
/// * The MIM comes first (the standard MIM unless [`Fdd::load_with_mim`] gives another), then the
///   modules in the order given, then any join-time modules.
/// * Classes are identified by qualified name. A class given without attributes (parameters) is
///   scaffolding: it places subclasses and merges with a full definition in any order. A class
///   given with attributes in two modules must be given with the same attributes (name, data type,
///   update type, ownership, sharing, dimensions, transportation, order; documentation text is
///   ignored). An interaction class's transportation, order and dimensions must agree wherever
///   two modules give them; class-level sharing only between two full definitions.
/// * Data types, dimensions, transportations, update rates and sync points of the same name must
///   be defined the same way; the first definition stands.
/// * Switches, time representation and tags: the first module that gives one wins; a later
///   different value is kept out and reported in [`Fdd::warnings`] (the standard's rule here is
///   unsettled, and refusing real FOM sets over a switch would help nobody).
/// * Any conflict is [`FomError::InconsistentFdd`] naming both places; a failed merge changes
///   nothing.
///
/// # Handles
/// Handles are assigned in merge order, so they depend only on the sequence of modules:
/// * object classes, interaction classes, dimensions, transportations and update rates are
///   numbered from 1 in order of first appearance (a scaffolding appearance counts);
/// * attributes and parameters are numbered from 1 across the whole FDD, in declaration order,
///   when their class's full definition is merged. An inherited attribute keeps its handle in
///   every subclass.
///
/// Consequences, which the tests check: every LRC that merges the same modules in the same order
/// gets the same handles and digest; the MIM's handles are the same in every federation
/// (`HLAobjectRoot` = 1, `HLAprivilegeToDeleteObject` = 1, `HLAreliable` = 1,
/// `HLAbestEffort` = 2); merging further modules never changes a handle already issued; putting
/// extension modules in another order renumbers only what those modules introduce.
#[derive(Debug, Clone)]
pub struct Fdd {
    modules: Vec<Arc<str>>,
    object_classes: Vec<ObjectClass>,
    attributes: Vec<Attribute>,
    interaction_classes: Vec<InteractionClass>,
    parameters: Vec<Parameter>,
    dimensions: Vec<Dimension>,
    transportations: Vec<Transportation>,
    update_rates: Vec<UpdateRate>,
    sync_points: Vec<Defined<SyncPointDecl>>,
    switches: Vec<Defined<SwitchDecl>>,
    time: Option<Defined<TimeDecl>>,
    tags: Vec<Defined<TagDecl>>,
    data_type_decls: Vec<Defined<DataTypeDecl>>,
    types: DataTypeTable,
    object_by_name: HashMap<String, ObjectClassHandle>,
    object_by_leaf: HashMap<String, Vec<ObjectClassHandle>>,
    interaction_by_name: HashMap<String, InteractionClassHandle>,
    interaction_by_leaf: HashMap<String, Vec<InteractionClassHandle>>,
    dimension_by_name: HashMap<String, DimensionHandle>,
    transportation_by_name: HashMap<String, TransportationTypeHandle>,
    update_rate_by_name: HashMap<String, UpdateRateHandle>,
    type_by_name: HashMap<String, TypeId>,
    warnings: Vec<String>,
    digest: FddDigest,
}

type R<T> = Result<T, FomError>;

/// The state of one resolution of every data type ([`Fdd::resolve_type`]).
struct TypeWalk {
    /// Resolved types by declaration index.
    out: Vec<Option<ResolvedType>>,
    /// Nesting height of each resolved type (0 for a basic representation).
    height: Vec<usize>,
    /// 0 not visited, 1 being resolved (a reference back to it is a cycle), 2 resolved.
    state: Vec<u8>,
}

fn at(file: &Arc<str>, p: SrcPos) -> Location {
    Location {
        file: file.clone(),
        line: p.line,
        col: p.col,
    }
}

fn reading(file: &Arc<str>, p: SrcPos, msg: String) -> FomError {
    FomError::ErrorReadingFdd {
        at: at(file, p),
        msg,
    }
}

fn conflict(
    at: Location,
    other: &Location,
    element: String,
    reason: impl Into<String>,
) -> FomError {
    FomError::InconsistentFdd {
        at,
        other: other.clone(),
        element,
        reason: reason.into(),
    }
}

fn is_standard_mim_designator(d: &str) -> bool {
    std::path::Path::new(d)
        .file_stem()
        .and_then(|s| s.to_str())
        .is_some_and(|s| s == "HLAstandardMIM")
}

impl Fdd {
    fn empty() -> Fdd {
        Fdd {
            modules: Vec::new(),
            object_classes: Vec::new(),
            attributes: Vec::new(),
            interaction_classes: Vec::new(),
            parameters: Vec::new(),
            dimensions: Vec::new(),
            transportations: Vec::new(),
            update_rates: Vec::new(),
            sync_points: Vec::new(),
            switches: Vec::new(),
            time: None,
            tags: Vec::new(),
            data_type_decls: Vec::new(),
            types: DataTypeTable::default(),
            object_by_name: HashMap::new(),
            object_by_leaf: HashMap::new(),
            interaction_by_name: HashMap::new(),
            interaction_by_leaf: HashMap::new(),
            dimension_by_name: HashMap::new(),
            transportation_by_name: HashMap::new(),
            update_rate_by_name: HashMap::new(),
            type_by_name: HashMap::new(),
            warnings: Vec::new(),
            digest: FddDigest([0; 32]),
        }
    }

    /// The standard MIM alone.
    pub fn standard() -> Fdd {
        // The embedded MIM is covered by tests; failing here is a build defect.
        #[allow(clippy::expect_used)]
        Self::load(&[]).expect("the embedded standard MIM merges")
    }

    /// The standard MIM followed by `modules`, in order. Giving the standard MIM's file again as
    /// a module is harmless (identical definitions merge).
    pub fn load(modules: &[FomModule]) -> R<Fdd> {
        Self::load_all(FomModule::standard_mim(), modules)
    }

    /// A replacement MIM followed by `modules`. Rejects the standard MIM's own designator with
    /// [`FomError::DesignatorIsHlaStandardMim`], as the standard requires.
    pub fn load_with_mim(mim: FomModule, modules: &[FomModule]) -> R<Fdd> {
        if is_standard_mim_designator(&mim.designator) {
            return Err(FomError::DesignatorIsHlaStandardMim(
                mim.designator.to_string(),
            ));
        }
        Self::load_all(mim, modules)
    }

    /// Reads and merges module files after the standard MIM.
    pub fn load_files<P: AsRef<std::path::Path>>(paths: &[P]) -> R<Fdd> {
        let modules = paths
            .iter()
            .map(FomModule::from_file)
            .collect::<R<Vec<_>>>()?;
        Self::load(&modules)
    }

    fn load_all(mim: FomModule, modules: &[FomModule]) -> R<Fdd> {
        let mut fdd = Fdd::empty();
        fdd.merge_raw(&mim)?;
        for m in modules {
            fdd.merge_raw(m)?;
        }
        fdd.resolve()?;
        Ok(fdd)
    }

    /// Merges one more module (a join-time extension). Returns what it added. On error the FDD
    /// is left exactly as it was.
    pub fn merge_module(&mut self, module: &FomModule) -> R<MergeReport> {
        let mut next = self.clone();
        let before = Counts::of(&next);
        next.merge_raw(module)?;
        next.resolve()?;
        let report = before.report(&next);
        *self = next;
        Ok(report)
    }

    // ---- merging -------------------------------------------------------------------------

    fn merge_raw(&mut self, m: &FomModule) -> R<()> {
        let file = &m.designator;
        self.modules.push(file.clone());
        for t in &m.transportations {
            self.merge_named_transportation(file, t)?;
        }
        for d in &m.dimensions {
            let loc = at(file, d.pos);
            if let Some(h) = self.dimension_by_name.get(&d.name) {
                let existing = &self.dimensions[h.index()];
                if existing.decl != *d {
                    return Err(conflict(
                        loc,
                        &existing.at,
                        format!("dimension {}", d.name),
                        "defined differently (data type, upper bound, normalization or value)",
                    ));
                }
            } else {
                let h = DimensionHandle::from_index(self.dimensions.len());
                self.dimension_by_name.insert(d.name.clone(), h);
                self.dimensions.push(Dimension {
                    handle: h,
                    decl: d.clone(),
                    at: loc,
                });
            }
        }
        for u in &m.update_rates {
            let loc = at(file, u.pos);
            if let Some(h) = self.update_rate_by_name.get(&u.name) {
                let existing = &self.update_rates[h.index()];
                if existing.decl != *u {
                    return Err(conflict(
                        loc,
                        &existing.at,
                        format!("update rate {}", u.name),
                        format!("rate {} Hz differs from {} Hz", u.rate, existing.decl.rate),
                    ));
                }
            } else {
                let h = UpdateRateHandle::from_index(self.update_rates.len());
                self.update_rate_by_name.insert(u.name.clone(), h);
                self.update_rates.push(UpdateRate {
                    handle: h,
                    decl: u.clone(),
                    at: loc,
                });
            }
        }
        for s in &m.sync_points {
            let loc = at(file, s.pos);
            match self.sync_points.iter().find(|x| x.decl.label == s.label) {
                Some(existing) if existing.decl != *s => {
                    return Err(conflict(
                        loc,
                        &existing.at,
                        format!("synchronization point {}", s.label),
                        "data type or capability differs",
                    ));
                }
                Some(_) => {}
                None => self.sync_points.push(Defined {
                    decl: s.clone(),
                    at: loc,
                }),
            }
        }
        for s in &m.switches {
            let loc = at(file, s.pos);
            match self.switches.iter().find(|x| x.decl.name == s.name) {
                Some(existing) if existing.decl.value != s.value => self.warnings.push(format!(
                    "{loc}: switch {} = {} ignored; {} set it to {} first",
                    s.name, s.value, existing.at, existing.decl.value
                )),
                Some(_) => {}
                None => self.switches.push(Defined {
                    decl: s.clone(),
                    at: loc,
                }),
            }
        }
        if let Some(t) = &m.time {
            let loc = at(file, t.pos);
            match &self.time {
                Some(existing) if existing.decl != *t => self.warnings.push(format!(
                    "{loc}: time representation ignored; {} defined it first",
                    existing.at
                )),
                Some(_) => {}
                None => {
                    self.time = Some(Defined {
                        decl: t.clone(),
                        at: loc,
                    })
                }
            }
        }
        for t in &m.tags {
            let loc = at(file, t.pos);
            match self.tags.iter().find(|x| x.decl.kind == t.kind) {
                Some(existing) if existing.decl != *t => self.warnings.push(format!(
                    "{loc}: {} data type {} ignored; {} gave {} first",
                    t.kind, t.data_type, existing.at, existing.decl.data_type
                )),
                Some(_) => {}
                None => self.tags.push(Defined {
                    decl: t.clone(),
                    at: loc,
                }),
            }
        }
        for d in &m.data_types {
            let loc = at(file, d.pos);
            if let Some(id) = self.type_by_name.get(&d.name) {
                let existing = &self.data_type_decls[id.0 as usize];
                if existing.decl.kind != d.kind {
                    return Err(conflict(
                        loc,
                        &existing.at,
                        format!("data type {}", d.name),
                        "defined differently",
                    ));
                }
            } else {
                let id = TypeId(self.data_type_decls.len() as u32);
                self.type_by_name.insert(d.name.clone(), id);
                self.data_type_decls.push(Defined {
                    decl: d.clone(),
                    at: loc,
                });
            }
        }
        if let Some(root) = &m.object_root {
            self.merge_object_class(file, root, None)?;
        }
        if let Some(root) = &m.interaction_root {
            self.merge_interaction_class(file, root, None)?;
        }
        Ok(())
    }

    fn merge_named_transportation(&mut self, file: &Arc<str>, t: &TransportationDecl) -> R<()> {
        let loc = at(file, t.pos);
        if let Some(h) = self.transportation_by_name.get(&t.name) {
            let existing = &self.transportations[h.index()];
            if existing.decl != *t {
                return Err(conflict(
                    loc,
                    &existing.at,
                    format!("transportation {}", t.name),
                    "reliable differs",
                ));
            }
        } else {
            let h = TransportationTypeHandle::from_index(self.transportations.len());
            self.transportation_by_name.insert(t.name.clone(), h);
            self.transportations.push(Transportation {
                handle: h,
                decl: t.clone(),
                at: loc,
            });
        }
        Ok(())
    }

    fn merge_object_class(
        &mut self,
        file: &Arc<str>,
        decl: &ObjectClassDecl,
        parent: Option<ObjectClassHandle>,
    ) -> R<()> {
        let qualified = match parent {
            Some(p) => format!(
                "{}.{}",
                self.object_classes[p.index()].qualified_name,
                decl.name
            ),
            None => decl.name.clone(),
        };
        let loc = at(file, decl.pos);
        let handle = match self.object_by_name.get(&qualified).copied() {
            None => {
                let h = ObjectClassHandle::from_index(self.object_classes.len());
                self.object_classes.push(ObjectClass {
                    handle: h,
                    name: decl.name.clone(),
                    qualified_name: qualified.clone(),
                    parent,
                    children: Vec::new(),
                    sharing: decl.sharing,
                    attributes: Vec::new(),
                    first_seen: loc.clone(),
                    defined_at: None,
                });
                if let Some(p) = parent {
                    self.object_classes[p.index()].children.push(h);
                }
                self.object_by_name.insert(qualified.clone(), h);
                self.object_by_leaf
                    .entry(decl.name.clone())
                    .or_default()
                    .push(h);
                h
            }
            Some(h) => {
                let existing = &mut self.object_classes[h.index()];
                match (existing.sharing, decl.sharing) {
                    (Some(a), Some(b))
                        if a != b
                            && !existing.attributes.is_empty()
                            && !decl.attributes.is_empty() =>
                    {
                        return Err(conflict(
                            loc,
                            existing.defined_at.as_ref().unwrap_or(&existing.first_seen),
                            format!("object class {qualified}"),
                            format!("sharing {b:?} differs from {a:?}"),
                        ));
                    }
                    (None, Some(b)) => existing.sharing = Some(b),
                    _ => {}
                }
                h
            }
        };
        if !decl.attributes.is_empty() {
            let class = &self.object_classes[handle.index()];
            if let Some(def) = &class.defined_at {
                let existing: Vec<&Attribute> = class
                    .attributes
                    .iter()
                    .map(|a| &self.attributes[a.index()])
                    .collect();
                if existing.len() != decl.attributes.len() {
                    return Err(conflict(
                        loc,
                        def,
                        format!("object class {qualified}"),
                        format!(
                            "declares {} attributes where the earlier definition has {} (an \
                             IEEE 1516-2010 module cannot add attributes to a class another \
                             module defines)",
                            decl.attributes.len(),
                            existing.len()
                        ),
                    ));
                }
                for a in &decl.attributes {
                    match existing.iter().find(|e| e.name == a.name) {
                        None => {
                            return Err(conflict(
                                at(file, a.pos),
                                def,
                                format!("attribute {qualified}.{}", a.name),
                                "is not in the earlier definition of the class",
                            ));
                        }
                        Some(e) if e.decl != *a => {
                            return Err(conflict(
                                at(file, a.pos),
                                &e.at,
                                format!("attribute {qualified}.{}", a.name),
                                "defined differently (data type, update type, ownership, sharing, \
                                 dimensions, transportation or order)",
                            ));
                        }
                        Some(_) => {}
                    }
                }
            } else {
                for a in &decl.attributes {
                    let ah = AttributeHandle::from_index(self.attributes.len());
                    self.attributes.push(Attribute {
                        handle: ah,
                        class: handle,
                        name: a.name.clone(),
                        data_type: None,
                        dimensions: Vec::new(),
                        transportation: TransportationTypeHandle(1),
                        order: a.order.unwrap_or(OrderType::Receive),
                        decl: a.clone(),
                        at: at(file, a.pos),
                    });
                    self.object_classes[handle.index()].attributes.push(ah);
                }
                self.object_classes[handle.index()].defined_at = Some(loc);
            }
        }
        for c in &decl.children {
            self.merge_object_class(file, c, Some(handle))?;
        }
        Ok(())
    }

    fn merge_interaction_class(
        &mut self,
        file: &Arc<str>,
        decl: &InteractionClassDecl,
        parent: Option<InteractionClassHandle>,
    ) -> R<()> {
        let qualified = match parent {
            Some(p) => format!(
                "{}.{}",
                self.interaction_classes[p.index()].qualified_name,
                decl.name
            ),
            None => decl.name.clone(),
        };
        let loc = at(file, decl.pos);
        let handle = match self.interaction_by_name.get(&qualified).copied() {
            None => {
                let h = InteractionClassHandle::from_index(self.interaction_classes.len());
                self.interaction_classes.push(InteractionClass {
                    handle: h,
                    name: decl.name.clone(),
                    qualified_name: qualified.clone(),
                    parent,
                    children: Vec::new(),
                    sharing: decl.sharing,
                    dimension_refs: decl.dimensions.clone(),
                    dimension_refs_file: file.clone(),
                    transportation_ref_file: file.clone(),
                    dimensions: Vec::new(),
                    transportation_ref: decl.transportation.clone(),
                    transportation: TransportationTypeHandle(1),
                    order: decl.order.unwrap_or(OrderType::Receive),
                    order_decl: decl.order,
                    parameters: Vec::new(),
                    first_seen: loc.clone(),
                    defined_at: None,
                });
                if let Some(p) = parent {
                    self.interaction_classes[p.index()].children.push(h);
                }
                self.interaction_by_name.insert(qualified.clone(), h);
                self.interaction_by_leaf
                    .entry(decl.name.clone())
                    .or_default()
                    .push(h);
                h
            }
            Some(h) => {
                let existing = &mut self.interaction_classes[h.index()];
                let other = existing.first_seen.clone();
                let element = || format!("interaction class {qualified}");
                // As for object classes, sharing (documentation to the RTI) must agree only
                // between two full definitions.
                match (existing.sharing, decl.sharing) {
                    (Some(a), Some(b))
                        if a != b
                            && !existing.parameters.is_empty()
                            && !decl.parameters.is_empty() =>
                    {
                        return Err(conflict(
                            loc,
                            &other,
                            element(),
                            format!("sharing {b:?} differs from {a:?}"),
                        ));
                    }
                    (None, Some(b)) => existing.sharing = Some(b),
                    _ => {}
                }
                match (&existing.transportation_ref, &decl.transportation) {
                    (Some(a), Some(b)) if a.name != b.name => {
                        return Err(conflict(
                            loc,
                            &other,
                            element(),
                            format!("transportation {} differs from {}", b.name, a.name),
                        ));
                    }
                    (None, Some(b)) => {
                        existing.transportation_ref = Some(b.clone());
                        existing.transportation_ref_file = file.clone();
                    }
                    _ => {}
                }
                match (existing.order_decl, decl.order) {
                    (Some(a), Some(b)) if a != b => {
                        return Err(conflict(
                            loc,
                            &other,
                            element(),
                            format!("order {b:?} differs from {a:?}"),
                        ));
                    }
                    (None, Some(b)) => {
                        existing.order_decl = Some(b);
                        existing.order = b;
                    }
                    _ => {}
                }
                if !existing.dimension_refs.is_empty()
                    && !decl.dimensions.is_empty()
                    && existing.dimension_refs != decl.dimensions
                {
                    return Err(conflict(loc, &other, element(), "dimensions differ"));
                }
                if existing.dimension_refs.is_empty() && !decl.dimensions.is_empty() {
                    existing.dimension_refs = decl.dimensions.clone();
                    existing.dimension_refs_file = file.clone();
                }
                h
            }
        };
        if !decl.parameters.is_empty() {
            let class = &self.interaction_classes[handle.index()];
            if let Some(def) = &class.defined_at {
                let existing: Vec<&ParameterDecl> = class
                    .parameters
                    .iter()
                    .map(|p| &self.parameters[p.index()].decl)
                    .collect();
                let same = existing.len() == decl.parameters.len()
                    && decl.parameters.iter().all(|p| existing.contains(&p));
                if !same {
                    return Err(conflict(
                        loc,
                        def,
                        format!("interaction class {qualified}"),
                        "declares different parameters than the earlier definition",
                    ));
                }
            } else {
                for p in &decl.parameters {
                    let ph = ParameterHandle::from_index(self.parameters.len());
                    self.parameters.push(Parameter {
                        handle: ph,
                        class: handle,
                        name: p.name.clone(),
                        data_type: None,
                        decl: p.clone(),
                        at: at(file, p.pos),
                    });
                    self.interaction_classes[handle.index()].parameters.push(ph);
                }
                self.interaction_classes[handle.index()].defined_at = Some(loc);
            }
        }
        for c in &decl.children {
            self.merge_interaction_class(file, c, Some(handle))?;
        }
        Ok(())
    }

    // ---- resolution and checks -----------------------------------------------------------

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

    fn resolve(&mut self) -> R<()> {
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
                    super::types::ArrayLayout::Fixed(n) => (b, m.saturating_mul(*n)),
                    super::types::ArrayLayout::Variable => (b.max(4), 4),
                    super::types::ArrayLayout::NullTerminated => (b, m.max(1)),
                    super::types::ArrayLayout::Lengthless
                    | super::types::ArrayLayout::PaddingTo(_)
                    | super::types::ArrayLayout::UserDefined(_) => (b, 0),
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

    fn compute_digest(&self) -> FddDigest {
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

    // ---- queries -------------------------------------------------------------------------

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

    /// Designators of the merged modules, MIM first.
    pub fn module_designators(&self) -> impl Iterator<Item = &str> {
        self.modules.iter().map(|m| &**m)
    }

    /// True if the standard MIM (rather than a replacement) is in use.
    pub fn uses_standard_mim(&self) -> bool {
        self.modules
            .first()
            .is_some_and(|m| &**m == STANDARD_MIM_DESIGNATOR)
    }

    /// Non-fatal merge remarks (later switches/time/tags that were ignored).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// All object classes in handle order.
    pub fn object_classes(&self) -> &[ObjectClass] {
        &self.object_classes
    }

    /// All attributes in handle order.
    pub fn attributes(&self) -> &[Attribute] {
        &self.attributes
    }

    /// All interaction classes in handle order.
    pub fn interaction_classes(&self) -> &[InteractionClass] {
        &self.interaction_classes
    }

    /// All parameters in handle order.
    pub fn parameters(&self) -> &[Parameter] {
        &self.parameters
    }

    /// All dimensions in handle order.
    pub fn dimensions(&self) -> &[Dimension] {
        &self.dimensions
    }

    /// All transportation types in handle order.
    pub fn transportations(&self) -> &[Transportation] {
        &self.transportations
    }

    /// All update rates in handle order.
    pub fn update_rates(&self) -> &[UpdateRate] {
        &self.update_rates
    }

    /// Synchronization point labels declared by the modules.
    pub fn sync_point_labels(&self) -> impl Iterator<Item = &str> {
        self.sync_points.iter().map(|s| s.decl.label.as_str())
    }

    /// The value of a switch (`isEnabled` or `resignAction`), if any module set it.
    pub fn switch(&self, name: &str) -> Option<&str> {
        self.switches
            .iter()
            .find(|s| s.decl.name == name)
            .map(|s| s.decl.value.as_str())
    }

    /// Time representation data type names `(timeStamp, lookahead)`.
    pub fn time_representation(&self) -> Option<(Option<&str>, Option<&str>)> {
        self.time
            .as_ref()
            .map(|t| (t.decl.time_stamp.as_deref(), t.decl.lookahead.as_deref()))
    }

    /// The data type of a user-supplied tag (`updateReflectTag`, …), if declared and not `NA`.
    pub fn tag_data_type(&self, kind: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|t| t.decl.kind == kind && t.decl.data_type != "NA")
            .map(|t| t.decl.data_type.as_str())
    }

    /// The resolved data types.
    pub fn data_types(&self) -> &DataTypeTable {
        &self.types
    }

    /// A data type by name.
    pub fn data_type_id(&self, name: &str) -> Option<TypeId> {
        self.type_by_name.get(name).copied()
    }

    /// The object class `HLAobjectRoot`.
    pub fn object_root(&self) -> ObjectClassHandle {
        ObjectClassHandle(1)
    }

    /// The interaction class `HLAinteractionRoot`.
    pub fn interaction_root(&self) -> InteractionClassHandle {
        InteractionClassHandle(1)
    }

    fn resolve_class_name<H: Copy>(
        name: &str,
        root: &str,
        by_name: &HashMap<String, H>,
        by_leaf: &HashMap<String, Vec<H>>,
        qualified: impl Fn(H) -> String,
    ) -> Result<H, LookupError> {
        if let Some(h) = by_name.get(name) {
            return Ok(*h);
        }
        if let Some(h) = by_name.get(&format!("{root}.{name}")) {
            return Ok(*h);
        }
        if !name.contains('.') {
            match by_leaf.get(name).map(Vec::as_slice) {
                Some([h]) => return Ok(*h),
                Some(many) if many.len() > 1 => {
                    let candidates: Vec<String> = many.iter().map(|h| qualified(*h)).collect();
                    return Err(LookupError::AmbiguousName {
                        name: name.to_string(),
                        candidates: candidates.join(", "),
                    });
                }
                _ => {}
            }
        }
        Err(LookupError::NameNotFound(name.to_string()))
    }

    /// Object class by name: fully qualified (`HLAobjectRoot.A.B`), qualified without the root
    /// (`A.B`), or unqualified (`B`) when only one class has that name.
    pub fn object_class_handle(&self, name: &str) -> Result<ObjectClassHandle, LookupError> {
        Self::resolve_class_name(
            name,
            "HLAobjectRoot",
            &self.object_by_name,
            &self.object_by_leaf,
            |h| self.object_classes[h.index()].qualified_name.clone(),
        )
    }

    /// An object class.
    pub fn object_class(&self, h: ObjectClassHandle) -> Result<&ObjectClass, LookupError> {
        self.object_classes
            .get(h.index())
            .ok_or(LookupError::InvalidObjectClassHandle(h.0))
    }

    /// Fully qualified name of an object class.
    pub fn object_class_name(&self, h: ObjectClassHandle) -> Result<&str, LookupError> {
        self.object_class(h).map(|c| c.qualified_name.as_str())
    }

    fn available_attributes_of(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
        let mut chain = Vec::new();
        let mut cur = Some(class);
        while let Some(c) = cur {
            let Some(oc) = self.object_classes.get(c.index()) else {
                break;
            };
            chain.push(oc);
            cur = oc.parent;
        }
        chain
            .iter()
            .rev()
            .flat_map(|c| c.attributes.iter().copied())
            .collect()
    }

    /// Every attribute available in a class, inherited ones first (root first), in handle order
    /// within each class.
    pub fn available_attributes(
        &self,
        class: ObjectClassHandle,
    ) -> Result<Vec<AttributeHandle>, LookupError> {
        self.object_class(class)?;
        Ok(self.available_attributes_of(class))
    }

    /// Attribute by name, searched in the class and its superclasses.
    pub fn attribute_handle(
        &self,
        class: ObjectClassHandle,
        name: &str,
    ) -> Result<AttributeHandle, LookupError> {
        self.object_class(class)?;
        self.available_attributes_of(class)
            .into_iter()
            .find(|a| self.attributes[a.index()].name == name)
            .ok_or_else(|| LookupError::NameNotFound(name.to_string()))
    }

    /// An attribute, checked to be available in `class`.
    pub fn attribute(
        &self,
        class: ObjectClassHandle,
        attr: AttributeHandle,
    ) -> Result<&Attribute, LookupError> {
        let a = self
            .attributes
            .get(attr.index())
            .ok_or(LookupError::InvalidAttributeHandle(attr.0))?;
        self.object_class(class)?;
        let mut cur = Some(class);
        while let Some(c) = cur {
            if c == a.class {
                return Ok(a);
            }
            cur = self.object_classes[c.index()].parent;
        }
        Err(LookupError::AttributeNotDefined {
            class: class.0,
            attribute: attr.0,
        })
    }

    /// Name of an attribute available in `class`.
    pub fn attribute_name(
        &self,
        class: ObjectClassHandle,
        attr: AttributeHandle,
    ) -> Result<&str, LookupError> {
        self.attribute(class, attr).map(|a| a.name.as_str())
    }

    /// Interaction class by name (same naming rules as object classes).
    pub fn interaction_class_handle(
        &self,
        name: &str,
    ) -> Result<InteractionClassHandle, LookupError> {
        Self::resolve_class_name(
            name,
            "HLAinteractionRoot",
            &self.interaction_by_name,
            &self.interaction_by_leaf,
            |h| self.interaction_classes[h.index()].qualified_name.clone(),
        )
    }

    /// An interaction class.
    pub fn interaction_class(
        &self,
        h: InteractionClassHandle,
    ) -> Result<&InteractionClass, LookupError> {
        self.interaction_classes
            .get(h.index())
            .ok_or(LookupError::InvalidInteractionClassHandle(h.0))
    }

    /// Fully qualified name of an interaction class.
    pub fn interaction_class_name(&self, h: InteractionClassHandle) -> Result<&str, LookupError> {
        self.interaction_class(h).map(|c| c.qualified_name.as_str())
    }

    fn available_parameters_of(&self, class: InteractionClassHandle) -> Vec<ParameterHandle> {
        let mut chain = Vec::new();
        let mut cur = Some(class);
        while let Some(c) = cur {
            let Some(ic) = self.interaction_classes.get(c.index()) else {
                break;
            };
            chain.push(ic);
            cur = ic.parent;
        }
        chain
            .iter()
            .rev()
            .flat_map(|c| c.parameters.iter().copied())
            .collect()
    }

    /// Every parameter available in an interaction class, inherited first.
    pub fn available_parameters(
        &self,
        class: InteractionClassHandle,
    ) -> Result<Vec<ParameterHandle>, LookupError> {
        self.interaction_class(class)?;
        Ok(self.available_parameters_of(class))
    }

    /// Parameter by name, searched in the class and its superclasses.
    pub fn parameter_handle(
        &self,
        class: InteractionClassHandle,
        name: &str,
    ) -> Result<ParameterHandle, LookupError> {
        self.interaction_class(class)?;
        self.available_parameters_of(class)
            .into_iter()
            .find(|p| self.parameters[p.index()].name == name)
            .ok_or_else(|| LookupError::NameNotFound(name.to_string()))
    }

    /// A parameter, checked to be available in `class`.
    pub fn parameter(
        &self,
        class: InteractionClassHandle,
        p: ParameterHandle,
    ) -> Result<&Parameter, LookupError> {
        let par = self
            .parameters
            .get(p.index())
            .ok_or(LookupError::InvalidParameterHandle(p.0))?;
        self.interaction_class(class)?;
        let mut cur = Some(class);
        while let Some(c) = cur {
            if c == par.class {
                return Ok(par);
            }
            cur = self.interaction_classes[c.index()].parent;
        }
        Err(LookupError::InteractionParameterNotDefined {
            class: class.0,
            parameter: p.0,
        })
    }

    /// Name of a parameter available in `class`.
    pub fn parameter_name(
        &self,
        class: InteractionClassHandle,
        p: ParameterHandle,
    ) -> Result<&str, LookupError> {
        self.parameter(class, p).map(|x| x.name.as_str())
    }

    /// Dimensions an attribute may use for DDM (HLA `getAvailableDimensionsForClassAttribute`).
    pub fn available_dimensions_for_class_attribute(
        &self,
        class: ObjectClassHandle,
        attr: AttributeHandle,
    ) -> Result<&[DimensionHandle], LookupError> {
        self.attribute(class, attr).map(|a| a.dimensions.as_slice())
    }

    /// Dimensions an interaction class may use (HLA `getAvailableDimensionsForInteractionClass`).
    pub fn available_dimensions_for_interaction_class(
        &self,
        class: InteractionClassHandle,
    ) -> Result<&[DimensionHandle], LookupError> {
        self.interaction_class(class)
            .map(|c| c.dimensions.as_slice())
    }

    /// Dimension by name.
    pub fn dimension_handle(&self, name: &str) -> Result<DimensionHandle, LookupError> {
        self.dimension_by_name
            .get(name)
            .copied()
            .ok_or_else(|| LookupError::NameNotFound(name.to_string()))
    }

    /// A dimension.
    pub fn dimension(&self, h: DimensionHandle) -> Result<&Dimension, LookupError> {
        self.dimensions
            .get(h.index())
            .ok_or(LookupError::InvalidDimensionHandle(h.0))
    }

    /// Name of a dimension.
    pub fn dimension_name(&self, h: DimensionHandle) -> Result<&str, LookupError> {
        self.dimension(h).map(|d| d.decl.name.as_str())
    }

    /// Upper bound of a dimension (`u64::MAX` if the module gives none).
    pub fn dimension_upper_bound(&self, h: DimensionHandle) -> Result<u64, LookupError> {
        self.dimension(h)
            .map(|d| d.decl.upper_bound.unwrap_or(u64::MAX))
    }

    /// Transportation type by name.
    pub fn transportation_type_handle(
        &self,
        name: &str,
    ) -> Result<TransportationTypeHandle, LookupError> {
        self.transportation_by_name
            .get(name)
            .copied()
            .ok_or_else(|| LookupError::NameNotFound(name.to_string()))
    }

    /// A transportation type.
    pub fn transportation(
        &self,
        h: TransportationTypeHandle,
    ) -> Result<&Transportation, LookupError> {
        self.transportations
            .get(h.index())
            .ok_or(LookupError::InvalidTransportationType(h.0))
    }

    /// Name of a transportation type.
    pub fn transportation_type_name(
        &self,
        h: TransportationTypeHandle,
    ) -> Result<&str, LookupError> {
        self.transportation(h).map(|t| t.decl.name.as_str())
    }

    /// Decodes bytes as a value of the named data type (dynamic API).
    pub fn decode_value(&self, type_name: &str, bytes: &[u8]) -> Result<Value, EncoderError> {
        let id = self
            .data_type_id(type_name)
            .ok_or_else(|| EncoderError::UnknownDataType(type_name.to_string()))?;
        dynamic::decode(&self.types, id, bytes)
    }

    /// Encodes a value of the named data type (dynamic API).
    pub fn encode_value(&self, type_name: &str, value: &Value) -> Result<Vec<u8>, EncoderError> {
        let id = self
            .data_type_id(type_name)
            .ok_or_else(|| EncoderError::UnknownDataType(type_name.to_string()))?;
        dynamic::encode(&self.types, id, value)
    }

    /// Decodes an attribute value of `class` with the attribute's FDD data type.
    pub fn decode_attribute(
        &self,
        class: ObjectClassHandle,
        attr: AttributeHandle,
        bytes: &[u8],
    ) -> Result<Value, EncoderError> {
        let a = self
            .attribute(class, attr)
            .map_err(|e| EncoderError::UnknownDataType(e.to_string()))?;
        let id = a
            .data_type
            .ok_or_else(|| EncoderError::UnknownDataType(format!("NA (attribute {})", a.name)))?;
        dynamic::decode(&self.types, id, bytes)
    }

    /// Encodes an attribute value of `class` with the attribute's FDD data type.
    pub fn encode_attribute(
        &self,
        class: ObjectClassHandle,
        attr: AttributeHandle,
        value: &Value,
    ) -> Result<Vec<u8>, EncoderError> {
        let a = self
            .attribute(class, attr)
            .map_err(|e| EncoderError::UnknownDataType(e.to_string()))?;
        let id = a
            .data_type
            .ok_or_else(|| EncoderError::UnknownDataType(format!("NA (attribute {})", a.name)))?;
        dynamic::encode(&self.types, id, value)
    }

    /// Encodes a parameter value of `class` with the parameter's FDD data type.
    pub fn encode_parameter(
        &self,
        class: InteractionClassHandle,
        p: ParameterHandle,
        value: &Value,
    ) -> Result<Vec<u8>, EncoderError> {
        let par = self
            .parameter(class, p)
            .map_err(|e| EncoderError::UnknownDataType(e.to_string()))?;
        let id = par
            .data_type
            .ok_or_else(|| EncoderError::UnknownDataType(format!("NA (parameter {})", par.name)))?;
        dynamic::encode(&self.types, id, value)
    }

    /// Decodes a parameter value of `class` with the parameter's FDD data type.
    pub fn decode_parameter(
        &self,
        class: InteractionClassHandle,
        p: ParameterHandle,
        bytes: &[u8],
    ) -> Result<Value, EncoderError> {
        let par = self
            .parameter(class, p)
            .map_err(|e| EncoderError::UnknownDataType(e.to_string()))?;
        let id = par
            .data_type
            .ok_or_else(|| EncoderError::UnknownDataType(format!("NA (parameter {})", par.name)))?;
        dynamic::decode(&self.types, id, bytes)
    }

    /// Rate in Hz of a named update rate (HLA `getUpdateRateValue`).
    pub fn update_rate_value(&self, name: &str) -> Result<f64, LookupError> {
        self.update_rate_by_name
            .get(name)
            .map(|h| self.update_rates[h.index()].decl.rate)
            .ok_or_else(|| LookupError::NameNotFound(name.to_string()))
    }
}

struct Counts {
    oc: usize,
    at: usize,
    ic: usize,
    pa: usize,
    di: usize,
    tr: usize,
    ty: usize,
}

impl Counts {
    fn of(f: &Fdd) -> Self {
        Counts {
            oc: f.object_classes.len(),
            at: f.attributes.len(),
            ic: f.interaction_classes.len(),
            pa: f.parameters.len(),
            di: f.dimensions.len(),
            tr: f.transportations.len(),
            ty: f.data_type_decls.len(),
        }
    }

    fn report(&self, f: &Fdd) -> MergeReport {
        MergeReport {
            object_classes: (self.oc..f.object_classes.len())
                .map(ObjectClassHandle::from_index)
                .collect(),
            attributes: (self.at..f.attributes.len())
                .map(AttributeHandle::from_index)
                .collect(),
            interaction_classes: (self.ic..f.interaction_classes.len())
                .map(InteractionClassHandle::from_index)
                .collect(),
            parameters: (self.pa..f.parameters.len())
                .map(ParameterHandle::from_index)
                .collect(),
            dimensions: (self.di..f.dimensions.len())
                .map(DimensionHandle::from_index)
                .collect(),
            transportations: (self.tr..f.transportations.len())
                .map(TransportationTypeHandle::from_index)
                .collect(),
            data_types: f.data_type_decls[self.ty..]
                .iter()
                .map(|d| d.decl.name.clone())
                .collect(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fdd_can_be_shared_between_threads() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Fdd>();
        assert_send_sync::<FomError>();
    }

    #[test]
    fn standard_mim_alone() {
        let fdd = Fdd::standard();
        assert_eq!(fdd.object_classes().len(), 4);
        assert_eq!(
            fdd.object_class_name(ObjectClassHandle(1)),
            Ok("HLAobjectRoot")
        );
        assert_eq!(
            fdd.transportation_type_name(TransportationTypeHandle(2)),
            Ok("HLAbestEffort")
        );
        assert_eq!(fdd.digest(), Fdd::standard().digest());
    }
}
