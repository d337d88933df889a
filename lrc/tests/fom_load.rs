//! Loading and merging the real FOM files in shared/foms.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use hlamesh_lrc::fom::{Fdd, FomModule, PRIVILEGE_TO_DELETE};
use hlamesh_lrc::handles::*;

fn load(names: &[&str]) -> Fdd {
    let modules: Vec<FomModule> = names.iter().map(|n| module(n)).collect();
    match Fdd::load(&modules) {
        Ok(f) => f,
        Err(e) => panic!("{names:?}: {e}"),
    }
}

#[test]
fn restaurant_set_loads_with_explicit_mim() {
    let mut names = vec!["HLAstandardMIM.xml"];
    names.extend(RESTAURANT);
    let fdd = load(&names);
    let soda = fdd
        .object_class_handle("HLAobjectRoot.Food.Drink.Soda")
        .unwrap();
    let flavor = fdd.attribute_handle(soda, "Flavor").unwrap();
    let cups = fdd.attribute_handle(soda, "NumberCups").unwrap();
    let priv_ = fdd.attribute_handle(soda, PRIVILEGE_TO_DELETE).unwrap();
    assert_eq!(priv_, AttributeHandle(1));
    assert_ne!(flavor, cups);
    let a = fdd.attribute(soda, flavor).unwrap();
    assert_eq!(a.dimensions.len(), 2);
    assert_eq!(
        fdd.transportation_type_name(a.transportation).unwrap(),
        "HLAreliable"
    );
}

#[test]
fn rpr_set_loads() {
    let mut names = vec!["HLAstandardMIM.xml"];
    names.extend(RPR);
    let fdd = load(&names);
    let be = fdd.object_class_handle("BaseEntity").unwrap();
    let spatial = fdd.attribute_handle(be, "Spatial").unwrap();
    assert!(fdd.attribute(be, spatial).unwrap().data_type.is_some());
}
