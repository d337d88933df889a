//! Merging one module into the FDD: its declarations are added in order under the merge rules
//! of [`Fdd`] (handles assigned as they first appear, identical redefinitions accepted,
//! conflicting ones refused with both places), before anything is resolved.

use std::sync::Arc;

use crate::fom::module::*;
use crate::fom::types::TypeId;
use crate::handles::*;

use super::{
    Attribute, Defined, Dimension, Fdd, InteractionClass, ObjectClass, Parameter, R,
    Transportation, UpdateRate, at, conflict,
};

impl Fdd {
    pub(super) fn merge_raw(&mut self, m: &FomModule) -> R<()> {
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
}
