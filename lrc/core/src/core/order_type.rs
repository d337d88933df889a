//! Changing the order type a federate sends with (IEEE 1516-2010 8.23 `changeAttributeOrderType`,
//! 8.24 `changeInteractionOrderType`).
//!
//! The FOM gives each attribute and interaction class an order type; a federate may choose
//! another for what it sends: per instance attribute it owns, per interaction class it
//! publishes. Only the sender's choice changes: a TimeStamp choice still needs a regulating
//! federate and a timestamp to travel in time-stamp order, exactly as a FOM TimeStamp order
//! does. A choice outlives a divestiture (the federate cannot send the attribute then, and a
//! new owner sends with its own choice or the FOM's); it is not kept across a save and restore.

use std::collections::BTreeMap;

use super::{FederateHandle, FederationCore};
use crate::error::RtiError;
use crate::fom::OrderType;
use crate::handles::{AttributeHandle, InteractionClassHandle, ObjectInstanceHandle};

/// A federate's order-type choices.
#[derive(Debug, Clone, Default)]
pub struct OrderOverrides {
    /// Per instance attribute.
    pub attributes: BTreeMap<(ObjectInstanceHandle, AttributeHandle), OrderType>,
    /// Per interaction class.
    pub interactions: BTreeMap<InteractionClassHandle, OrderType>,
}

impl OrderOverrides {
    /// The order type chosen for an instance attribute, if any.
    pub fn attribute(&self, o: ObjectInstanceHandle, a: AttributeHandle) -> Option<OrderType> {
        self.attributes.get(&(o, a)).copied()
    }
}

impl FederationCore {
    /// 8.23: `f` sends these attributes of `object` with `order` from now on
    /// (`ObjectInstanceNotKnown`, `AttributeNotDefined`, `AttributeNotOwned`).
    pub fn change_attribute_order_type(
        &mut self,
        f: FederateHandle,
        object: ObjectInstanceHandle,
        attrs: &[AttributeHandle],
        order: OrderType,
    ) -> Result<(), RtiError> {
        self.refuse_during_save_or_restore(f, "changeAttributeOrderType")?;
        let fdd = self.fdd_ref()?;
        let lf = self.local(f)?;
        let class = match (lf.known.contains_key(&object), self.objects.get(&object)) {
            (true, Some(i)) => i.class,
            _ => {
                return Err(RtiError::ObjectInstanceNotKnown(format!(
                    "federation {}: federate {f} does not know object instance {object}",
                    self.name
                )));
            }
        };
        for a in attrs {
            fdd.attribute(class, *a).map_err(|e| {
                RtiError::AttributeNotDefined(format!("federation {}: {e}", self.name))
            })?;
            if !self.owns_now(f, object, *a) {
                return Err(RtiError::AttributeNotOwned(format!(
                    "federation {}: federate {f} does not own attribute {a} of instance {object}",
                    self.name
                )));
            }
        }
        let lf = self.local_mut(f)?;
        for a in attrs {
            lf.orders.attributes.insert((object, *a), order);
        }
        Ok(())
    }

    /// 8.24: `f` sends interactions of `class` with `order` from now on
    /// (`InteractionClassNotDefined`, `InteractionClassNotPublished`).
    pub fn change_interaction_order_type(
        &mut self,
        f: FederateHandle,
        class: InteractionClassHandle,
        order: OrderType,
    ) -> Result<(), RtiError> {
        self.refuse_during_save_or_restore(f, "changeInteractionOrderType")?;
        let fdd = self.fdd_ref()?;
        let ic = fdd.interaction_class(class).map_err(|e| {
            RtiError::InteractionClassNotDefined(format!("federation {}: {e}", self.name))
        })?;
        if !self.local(f)?.decl.published_interactions.contains(&class) {
            return Err(RtiError::InteractionClassNotPublished(format!(
                "federation {}: federate {f} does not publish interaction class {}",
                self.name, ic.qualified_name
            )));
        }
        self.local_mut(f)?.orders.interactions.insert(class, order);
        Ok(())
    }
}
