//! The support services on a built FDD: the merged tables, handles by name (fully qualified,
//! without the root, or a leaf name only one class has) and names by handle, and the FDD-driven
//! codec for values, attributes and parameters.

use std::collections::HashMap;

use crate::encoding::{EncoderError, Value, dynamic};
use crate::fom::error::LookupError;
use crate::fom::parse::STANDARD_MIM_DESIGNATOR;
use crate::fom::types::{DataTypeTable, TypeId};
use crate::handles::*;

use super::{
    Attribute, Dimension, Fdd, InteractionClass, ObjectClass, Parameter, Transportation, UpdateRate,
};

impl Fdd {
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

    pub(super) fn available_attributes_of(&self, class: ObjectClassHandle) -> Vec<AttributeHandle> {
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

    pub(super) fn available_parameters_of(
        &self,
        class: InteractionClassHandle,
    ) -> Vec<ParameterHandle> {
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
