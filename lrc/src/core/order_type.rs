//! Changing the order type a federate sends with (IEEE 1516-2010 8.23 `changeAttributeOrderType`).
//!
//! The FOM gives each attribute an order type; a federate may choose another for the instance
//! attributes it owns. (8.24 `changeInteractionOrderType` is not offered yet: receive-order
//! interactions from a regulating federate did not reach a constrained one in its test, which
//! needs diagnosing first.) Only the sender's choice changes: a TimeStamp choice still needs a regulating
//! federate and a timestamp to travel in time-stamp order, exactly as a FOM TimeStamp order
//! does. A choice outlives a divestiture (the federate cannot send the attribute then, and a
//! new owner sends with its own choice or the FOM's); it is not kept across a save and restore.

use std::collections::BTreeMap;

use super::{FederateHandle, FederationCore};
use crate::error::RtiError;
use crate::fom::OrderType;
use crate::handles::{AttributeHandle, ObjectInstanceHandle};

/// A federate's order-type choices.
#[derive(Debug, Clone, Default)]
pub struct OrderOverrides {
    /// Per instance attribute.
    pub attributes: BTreeMap<(ObjectInstanceHandle, AttributeHandle), OrderType>,
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
}
