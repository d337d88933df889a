//! Loading and merging the real FOM files the tests use (found by `common::fom_dir`).
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use hlamesh_core::fom::{Fdd, FomModule, PRIVILEGE_TO_DELETE};
use hlamesh_core::handles::*;

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
        fdd.available_dimensions_for_class_attribute(soda, flavor)
            .unwrap(),
        [
            fdd.dimension_handle("SodaFlavor").unwrap(),
            fdd.dimension_handle("BarQuantity").unwrap()
        ]
    );
    assert_eq!(a.order.name(), "TimeStamp");
    assert_eq!(
        hlamesh_core::fom::OrderType::from_name("receive"),
        Some(hlamesh_core::fom::OrderType::Receive)
    );
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

fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut out = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut p in permutations(&rest) {
            p.insert(0, first.clone());
            out.push(p);
        }
    }
    out
}

/// Names of all classes and, per class, the names of its available attributes.
fn shape(fdd: &Fdd) -> Vec<(String, Vec<String>)> {
    let mut v: Vec<(String, Vec<String>)> = fdd
        .object_classes()
        .iter()
        .map(|c| {
            let mut attrs: Vec<String> = fdd
                .available_attributes(c.handle)
                .unwrap()
                .into_iter()
                .map(|a| fdd.attribute_name(c.handle, a).unwrap().to_string())
                .collect();
            attrs.sort();
            (c.qualified_name.clone(), attrs)
        })
        .collect();
    v.sort();
    v
}

#[test]
fn restaurant_modules_load_in_every_order_with_the_same_classes() {
    let reference = load(&RESTAURANT);
    let reference_shape = shape(&reference);
    let mim = Fdd::standard();
    for order in permutations(&RESTAURANT) {
        let fdd = load(&order);
        assert_eq!(shape(&fdd), reference_shape, "order {order:?}");
        // The MIM's handles never depend on the modules after it.
        for c in mim.object_classes() {
            assert_eq!(
                fdd.object_class_handle(&c.qualified_name).unwrap(),
                c.handle
            );
        }
        for c in mim.interaction_classes() {
            assert_eq!(
                fdd.interaction_class_handle(&c.qualified_name).unwrap(),
                c.handle
            );
        }
        for a in mim.attributes() {
            assert_eq!(fdd.attributes()[a.handle.0 as usize - 1].name, a.name);
        }
        // Same order twice: identical handles and digest.
        let again = load(&order);
        assert_eq!(again.digest(), fdd.digest());
    }
}

#[test]
fn rpr_modules_load_in_every_order() {
    let reference = load(&RPR);
    for order in permutations(&RPR) {
        let fdd = load(&order);
        assert_eq!(shape(&fdd), shape(&reference), "order {order:?}");
        assert_eq!(fdd.data_types().len(), reference.data_types().len());
    }
}

#[test]
fn extension_order_only_renumbers_what_the_extensions_introduce() {
    let base = load(&RESTAURANT[..2]);
    for ext in [
        ["RestaurantDrinks.xml", "RestaurantSoup.xml"],
        ["RestaurantSoup.xml", "RestaurantDrinks.xml"],
    ] {
        let mut names = RESTAURANT[..2].to_vec();
        names.extend(ext);
        let fdd = load(&names);
        for c in base.object_classes() {
            assert_eq!(
                fdd.object_class_handle(&c.qualified_name).unwrap(),
                c.handle
            );
            for a in &c.attributes {
                assert_eq!(
                    fdd.attributes()[a.0 as usize - 1].name,
                    base.attributes()[a.0 as usize - 1].name
                );
            }
        }
        for d in base.dimensions() {
            assert_eq!(fdd.dimension_handle(&d.decl.name).unwrap(), d.handle);
        }
    }
}

#[test]
fn join_time_merge_appends_handles_and_equals_batch_load() {
    let mut fdd = load(&RESTAURANT[..2]);
    let before: Vec<(String, ObjectClassHandle)> = fdd
        .object_classes()
        .iter()
        .map(|c| (c.qualified_name.clone(), c.handle))
        .collect();
    let attrs_before = fdd.attributes().len();
    let digest_before = fdd.digest();
    let report = fdd.merge_module(&module("RestaurantDrinks.xml")).unwrap();
    let new_names: Vec<&str> = report
        .object_classes
        .iter()
        .map(|h| fdd.object_class(*h).unwrap().name.as_str())
        .collect();
    assert_eq!(new_names, ["Water", "Coffee", "Soda"]);
    assert_eq!(report.attributes.len(), 1);
    assert_eq!(report.attributes[0].0 as usize, attrs_before + 1);
    assert_eq!(report.data_types, Vec::<String>::new()); // FlavorType was already there
    for (name, h) in before {
        assert_eq!(fdd.object_class_handle(&name).unwrap(), h);
    }
    assert_ne!(fdd.digest(), digest_before);
    // Incremental merge and batch load agree exactly.
    assert_eq!(fdd.digest(), load(&RESTAURANT[..3]).digest());
}

#[test]
fn failed_join_time_merge_changes_nothing() {
    let mut fdd = load(&RESTAURANT);
    let digest = fdd.digest();
    let classes = fdd.object_classes().len();
    let bad = text("RestaurantFood.xml").replace(
        "<dataType>DrinkCount</dataType>",
        "<dataType>HLAinteger32BE</dataType>",
    );
    let bad = FomModule::parse("FoodConflict.xml", &bad).unwrap();
    assert!(fdd.merge_module(&bad).is_err());
    assert_eq!(fdd.digest(), digest);
    assert_eq!(fdd.object_classes().len(), classes);
    assert_eq!(fdd.module_designators().count(), 5);
}

#[test]
fn standard_handles_and_names() {
    let fdd = load(&RESTAURANT);
    assert_eq!(
        fdd.object_class_handle("HLAobjectRoot").unwrap(),
        ObjectClassHandle(1)
    );
    assert_eq!(
        fdd.transportation_type_handle("HLAreliable").unwrap(),
        TransportationTypeHandle(1)
    );
    assert_eq!(
        fdd.transportation_type_handle("HLAbestEffort").unwrap(),
        TransportationTypeHandle(2)
    );
    assert_eq!(
        fdd.transportation_type_name(TransportationTypeHandle(3))
            .unwrap(),
        "LowLatency"
    );
    // Qualified, root-less and unqualified names.
    let soup = fdd
        .object_class_handle("HLAobjectRoot.Food.Appetizers.Soup")
        .unwrap();
    assert_eq!(
        fdd.object_class_handle("Food.Appetizers.Soup").unwrap(),
        soup
    );
    assert_eq!(fdd.object_class_handle("Soup").unwrap(), soup);
    assert_eq!(
        fdd.object_class_name(soup).unwrap(),
        "HLAobjectRoot.Food.Appetizers.Soup"
    );
    assert!(matches!(
        fdd.object_class_handle("NoSuchClass"),
        Err(hlamesh_core::fom::LookupError::NameNotFound(_))
    ));
    // HLAadjust exists under HLAfederate and HLAfederation: unqualified is ambiguous.
    assert!(matches!(
        fdd.interaction_class_handle("HLAadjust"),
        Err(hlamesh_core::fom::LookupError::AmbiguousName { .. })
    ));
    let served = fdd.interaction_class_handle("MainCourseServed").unwrap();
    let p = fdd.parameter_handle(served, "TimlinessOk").unwrap();
    assert_eq!(fdd.parameter_name(served, p).unwrap(), "TimlinessOk");
    let ic = fdd.interaction_class(served).unwrap();
    assert_eq!(
        ic.dimensions,
        vec![fdd.dimension_handle("WaiterId").unwrap()]
    );
    // Parameters of a subclass are not available in the superclass.
    let parent = ic.parent.unwrap();
    assert!(fdd.parameter(parent, p).is_err());
    // Every name round-trips through its handle.
    for c in fdd.object_classes() {
        assert_eq!(
            fdd.object_class_handle(&c.qualified_name).unwrap(),
            c.handle
        );
        for a in fdd.available_attributes(c.handle).unwrap() {
            let n = fdd.attribute_name(c.handle, a).unwrap();
            assert_eq!(fdd.attribute_handle(c.handle, n).unwrap(), a);
        }
        assert_eq!(
            fdd.attribute_handle(c.handle, PRIVILEGE_TO_DELETE).unwrap(),
            AttributeHandle(1)
        );
    }
    for c in fdd.interaction_classes() {
        assert_eq!(
            fdd.interaction_class_handle(&c.qualified_name).unwrap(),
            c.handle
        );
        for p in fdd.available_parameters(c.handle).unwrap() {
            let n = fdd.parameter_name(c.handle, p).unwrap();
            assert_eq!(fdd.parameter_handle(c.handle, n).unwrap(), p);
        }
    }
    for d in fdd.dimensions() {
        assert_eq!(
            fdd.dimension_handle(fdd.dimension_name(d.handle).unwrap())
                .unwrap(),
            d.handle
        );
    }
    assert_eq!(
        fdd.dimension_upper_bound(fdd.dimension_handle("WaiterId").unwrap())
            .unwrap(),
        20
    );
    // An attribute of a subclass is not defined in its superclass.
    let employee = fdd.object_class_handle("Employee").unwrap();
    let waiter = fdd.object_class_handle("Waiter").unwrap();
    let eff = fdd.attribute_handle(waiter, "Efficiency").unwrap();
    assert!(matches!(
        fdd.attribute(employee, eff),
        Err(hlamesh_core::fom::LookupError::AttributeNotDefined { .. })
    ));
    assert!(fdd.attribute_handle(waiter, "PayRate").is_ok());
    assert!(fdd.object_class(ObjectClassHandle(9999)).is_err());
}

#[test]
fn switches_rates_time_tags_and_sync_points() {
    let fdd = load(&RESTAURANT);
    assert_eq!(fdd.switch("autoProvide"), Some("true"));
    assert_eq!(
        fdd.switch("automaticResignAction"),
        Some("CancelThenDeleteThenDivest")
    );
    assert_eq!(fdd.update_rate_value("Low").unwrap(), 10.56);
    assert_eq!(
        fdd.time_representation(),
        Some((Some("TimeType"), Some("LAType")))
    );
    assert_eq!(fdd.tag_data_type("deleteRemoveTag"), Some("HLAASCIIstring"));
    let labels: Vec<&str> = fdd.sync_point_labels().collect();
    assert_eq!(
        labels,
        [
            "InitialPublish",
            "InitialUpdate",
            "BeginTimeAdvance",
            "PauseExecution"
        ]
    );
}

#[test]
fn digest_detects_a_different_fom() {
    let a = load(&RESTAURANT);
    let b = load(&RESTAURANT[..3]);
    assert!(a.check_digest(&a.digest()).is_ok());
    let err = b.check_digest(&a.digest()).unwrap_err();
    assert!(matches!(
        err,
        hlamesh_core::fom::FomError::InconsistentFddDigest { .. }
    ));
    assert!(err.to_string().contains("inconsistent FDD"), "{err}");
}

#[test]
fn replacement_mim() {
    let standard_named =
        FomModule::parse("/x/HLAstandardMIM.xml", hlamesh_core::fom::STANDARD_MIM_XML).unwrap();
    assert!(matches!(
        Fdd::load_with_mim(standard_named, &[]),
        Err(hlamesh_core::fom::FomError::DesignatorIsHlaStandardMim(_))
    ));
    let custom = FomModule::parse("MyMIM.xml", hlamesh_core::fom::STANDARD_MIM_XML).unwrap();
    let fdd = Fdd::load_with_mim(custom, &[module("RestaurantProcesses.xml")]).unwrap();
    assert!(!fdd.uses_standard_mim());
    assert_eq!(fdd.module_designators().next(), Some("MyMIM.xml"));
    assert!(Fdd::standard().uses_standard_mim());
}

#[test]
fn embedded_mim_is_the_shared_standard_mim() {
    assert_eq!(
        hlamesh_core::fom::STANDARD_MIM_XML,
        text("HLAstandardMIM.xml")
    );
    let fdd = Fdd::standard();
    assert_eq!(
        fdd.object_class_name(ObjectClassHandle(3)).unwrap(),
        "HLAobjectRoot.HLAmanager.HLAfederate"
    );
    assert_eq!(
        fdd.object_class(ObjectClassHandle(3))
            .unwrap()
            .attributes
            .len(),
        32
    );
    assert_eq!(
        fdd.object_class(ObjectClassHandle(4))
            .unwrap()
            .attributes
            .len(),
        12
    );
    assert!(fdd.warnings().is_empty());
}

#[test]
fn digest_ignores_paths_and_documentation() {
    let from_files = load(&RESTAURANT);
    let renamed: Vec<FomModule> = RESTAURANT
        .iter()
        .map(|n| {
            let t = text(n).replace("Principal dish", "Main dish");
            FomModule::parse(&format!("/elsewhere/{n}"), &t).unwrap()
        })
        .collect();
    assert_eq!(Fdd::load(&renamed).unwrap().digest(), from_files.digest());
    // …but not what the RTI uses.
    let changed: Vec<FomModule> = RESTAURANT
        .iter()
        .map(|n| {
            let t = text(n).replace("<upperBound>20</upperBound>", "<upperBound>21</upperBound>");
            FomModule::parse(n, &t).unwrap()
        })
        .collect();
    assert_ne!(Fdd::load(&changed).unwrap().digest(), from_files.digest());
}

#[test]
fn utf16_and_bom_files_load() {
    let dir = std::env::temp_dir().join(format!("hlamesh-enc-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let t = text("RestaurantProcesses.xml");
    let mut le = vec![0xff, 0xfe];
    le.extend(t.encode_utf16().flat_map(u16::to_le_bytes));
    let mut be = vec![0xfe, 0xff];
    be.extend(t.encode_utf16().flat_map(u16::to_be_bytes));
    let mut bom = vec![0xef, 0xbb, 0xbf];
    bom.extend(t.as_bytes());
    let reference = load(&["RestaurantProcesses.xml"]).digest();
    for (name, bytes) in [("le.xml", le), ("be.xml", be), ("bom.xml", bom)] {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        assert_eq!(
            Fdd::load_files(&[&p]).unwrap().digest(),
            reference,
            "{name}"
        );
    }
    let p = dir.join("latin1.xml");
    std::fs::write(&p, [b'<', 0xe9, b'>']).unwrap();
    assert!(matches!(
        FomModule::from_file(&p),
        Err(hlamesh_core::fom::FomError::CouldNotOpenFdd { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}
