//! The FDD's dimensions (IEEE 1516.2-2010 Table 8): definitions, default ranges, the
//! attributes' and interaction classes' dimension sets, the merge across modules, and the typed
//! errors of malformed or conflicting definitions. Uses the repository's Restaurant FOMs and the
//! standard MIM.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use hlamesh_core::fom::{DefaultRange, Fdd, FomError, FomModule, LookupError};
use hlamesh_core::handles::DimensionHandle;

fn load_texts(mods: &[(&str, &str)]) -> Result<Fdd, FomError> {
    let modules = mods
        .iter()
        .map(|(n, t)| FomModule::parse(n, t))
        .collect::<Result<Vec<_>, _>>()?;
    Fdd::load(&modules)
}

/// 1-based (line, column) of the first occurrence of `needle` in `text`.
fn pos_of(text: &str, needle: &str) -> (u32, u32) {
    let off = text.find(needle).expect("needle present");
    let line = text[..off].matches('\n').count() + 1;
    let col = off - text[..off].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u32, col as u32)
}

fn restaurant() -> Fdd {
    Fdd::load_files(&RESTAURANT.map(fom)).unwrap()
}

fn dim(fdd: &Fdd, name: &str) -> DimensionHandle {
    fdd.dimension_handle(name).unwrap()
}

#[test]
fn standard_mim_dimensions() {
    let fdd = Fdd::standard();
    let federate = dim(&fdd, "HLAfederate");
    let group = dim(&fdd, "HLAserviceGroup");
    assert_eq!(fdd.dimensions().len(), 2);
    assert_eq!(fdd.dimension_name(federate), Ok("HLAfederate"));
    // No upperBound in the MIM: the RTI's bound.
    assert_eq!(fdd.dimension_upper_bound(federate), Ok(u64::MAX));
    assert_eq!(fdd.dimension_upper_bound(group), Ok(7));
    for h in [federate, group] {
        assert_eq!(
            fdd.dimension(h).unwrap().decl.default_range,
            DefaultRange::Excluded
        );
    }
    // The MOM's interactions list HLAfederate.
    let ic = fdd
        .interaction_class_handle(
            "HLAmanager.HLAfederate.HLAreport.HLAreportObjectClassPublication",
        )
        .unwrap();
    assert_eq!(
        fdd.available_dimensions_for_interaction_class(ic),
        Ok(&[federate][..])
    );
}

#[test]
fn restaurant_dimensions_and_default_ranges() {
    let fdd = restaurant();
    let flavor = dim(&fdd, "SodaFlavor");
    let quantity = dim(&fdd, "BarQuantity");
    let waiter = dim(&fdd, "WaiterId");
    let range = |h| fdd.dimension(h).unwrap().decl.default_range;
    assert_eq!(range(flavor), DefaultRange::Range { lower: 0, upper: 3 });
    // `[0)` is the one-value range [0..1).
    assert_eq!(range(quantity), DefaultRange::Range { lower: 0, upper: 1 });
    assert_eq!(range(waiter), DefaultRange::Excluded);
    assert_eq!(fdd.dimension_upper_bound(flavor), Ok(3));
    assert_eq!(fdd.dimension_upper_bound(quantity), Ok(25));
    assert_eq!(fdd.dimension_upper_bound(waiter), Ok(20));

    let soda = fdd
        .object_class_handle("HLAobjectRoot.Food.Drink.Soda")
        .unwrap();
    let flavor_attr = fdd.attribute_handle(soda, "Flavor").unwrap();
    let cups = fdd.attribute_handle(soda, "NumberCups").unwrap();
    assert_eq!(
        fdd.available_dimensions_for_class_attribute(soda, flavor_attr),
        Ok(&[flavor, quantity][..])
    );
    // Inherited from Drink.
    assert_eq!(
        fdd.available_dimensions_for_class_attribute(soda, cups),
        Ok(&[quantity][..])
    );
    let served = fdd
        .interaction_class_handle(
            "HLAinteractionRoot.CustomerTransactions.FoodServed.MainCourseServed",
        )
        .unwrap();
    assert_eq!(
        fdd.available_dimensions_for_interaction_class(served),
        Ok(&[waiter][..])
    );
    assert_eq!(
        fdd.dimension_handle("Nope"),
        Err(LookupError::NameNotFound("Nope".into()))
    );
    assert_eq!(
        fdd.dimension_name(DimensionHandle(999)),
        Err(LookupError::InvalidDimensionHandle(999))
    );
}

#[test]
fn a_dimension_defined_identically_in_two_modules_merges() {
    // RestaurantProcesses and RestaurantFood both define the three dimensions.
    let fdd = Fdd::load_files(&[fom(RESTAURANT[0]), fom(RESTAURANT[1])]).unwrap();
    assert_eq!(fdd.dimensions().len(), 5);
}

#[test]
fn a_dimension_defined_differently_is_inconsistent() {
    let food = text("RestaurantFood.xml");
    for (from, to) in [
        ("<upperBound>25</upperBound>", "<upperBound>26</upperBound>"),
        ("<value>[0)</value>", "<value>[0..2)</value>"),
        ("<value>Excluded</value>", "<value>[0..20)</value>"),
    ] {
        let changed = food.replacen(from, to, 1);
        assert_ne!(changed, food, "{from}");
        let err = load_texts(&[
            ("RestaurantProcesses.xml", &text("RestaurantProcesses.xml")),
            ("Food.xml", &changed),
        ])
        .unwrap_err();
        let FomError::InconsistentFdd {
            at, other, element, ..
        } = err
        else {
            panic!("expected InconsistentFdd for {to}, got {err:?}")
        };
        assert!(element.starts_with("dimension "), "{element}");
        assert_eq!(&*at.file, "Food.xml");
        assert_eq!(&*other.file, "RestaurantProcesses.xml");
    }
}

fn reading_error(module: &str) -> (u32, u32, String) {
    match FomModule::parse("D.xml", module).unwrap_err() {
        FomError::ErrorReadingFdd { at, msg } => (at.line, at.col, msg),
        other => panic!("expected ErrorReadingFdd, got {other:?}"),
    }
}

fn one_dimension(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n\
         <dimensions>\n<dimension><name>X</name>\n{body}\n</dimension>\n</dimensions>\n</objectModel>\n"
    )
}

#[test]
fn malformed_upper_bound_is_an_error_at_its_place() {
    for bad in ["-1", "ten", "1.5", "99999999999999999999999"] {
        let m = one_dimension(&format!("  <upperBound>{bad}</upperBound>"));
        let (line, col, msg) = reading_error(&m);
        assert_eq!((line, col), pos_of(&m, "<upperBound>"), "{bad}");
        assert!(msg.contains("upperBound"), "{msg}");
    }
}

#[test]
fn malformed_default_range_is_an_error_at_its_place() {
    for bad in [
        "[0..3]",
        "0..3",
        "[a..3)",
        "[3..3)",
        "[5..2)",
        "[0..11)",
        "Sometimes",
        "[18446744073709551615)",
    ] {
        let m = one_dimension(&format!(
            "  <upperBound>10</upperBound>\n  <value>{bad}</value>"
        ));
        let (line, col, msg) = reading_error(&m);
        assert_eq!((line, col), pos_of(&m, "<value>"), "{bad}");
        assert!(msg.contains("<value>"), "{msg}");
    }
}

#[test]
fn default_range_forms() {
    for (value, want) in [
        (
            "[2..10)",
            DefaultRange::Range {
                lower: 2,
                upper: 10,
            },
        ),
        (
            " [ 2 .. 10 ) ",
            DefaultRange::Range {
                lower: 2,
                upper: 10,
            },
        ),
        (
            "[9)",
            DefaultRange::Range {
                lower: 9,
                upper: 10,
            },
        ),
        ("excluded", DefaultRange::Excluded),
    ] {
        let m = FomModule::parse(
            "D.xml",
            &one_dimension(&format!(
                "  <upperBound>10</upperBound>\n  <value>{value}</value>"
            )),
        )
        .unwrap();
        assert_eq!(m.dimensions[0].default_range, want, "{value}");
    }
    // No value: Excluded; no upper bound: any range of u64.
    let m = FomModule::parse("D.xml", &one_dimension("")).unwrap();
    assert_eq!(m.dimensions[0].default_range, DefaultRange::Excluded);
    let m = FomModule::parse("D.xml", &one_dimension("<value>[0..1000000)</value>")).unwrap();
    assert_eq!(
        m.dimensions[0].default_range,
        DefaultRange::Range {
            lower: 0,
            upper: 1_000_000
        }
    );
}
