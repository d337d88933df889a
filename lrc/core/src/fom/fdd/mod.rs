//! The merged FDD: the MIM plus every FOM module merged in order, with handles assigned, every
//! reference resolved and a digest that identifies it.
//!
//! Parts: this module holds the FDD's types and how one is built (`load`, `merge_module`);
//! `merge` adds a module's declarations under the merge rules (handles assigned in order,
//! conflicts with both places named), `resolve` resolves every reference and data type and
//! checks what the RTI relies on, `digest` computes and compares the digest joiners check, and
//! `lookup` is the support services on a built FDD (handles by name, names by handle, the
//! FDD-driven codec).

mod digest;
mod lookup;
mod merge;
mod resolve;

pub use digest::FddDigest;

use std::collections::HashMap;
use std::sync::Arc;

use super::error::{FomError, Location};
use super::module::*;
use super::types::{DataTypeTable, TypeId};
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

fn at(file: &Arc<str>, p: SrcPos) -> Location {
    Location {
        file: file.clone(),
        line: p.line,
        col: p.col,
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
