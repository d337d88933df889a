//! Every way a FOM can be wrong gives a typed error with `file:line:column`.
#![allow(clippy::unwrap_used)]

mod common;

use common::*;
use hlamesh_core::fom::{Fdd, FomError, FomModule};

/// 1-based (line, column) of the first occurrence of `needle` in `text`.
fn pos_of(text: &str, needle: &str) -> (u32, u32) {
    let off = text.find(needle).expect("needle present");
    let line = text[..off].matches('\n').count() + 1;
    let col = off - text[..off].rfind('\n').map_or(0, |i| i + 1) + 1;
    (line as u32, col as u32)
}

fn wrap(body: &str) -> String {
    format!(
        "<?xml version=\"1.0\"?>\n<objectModel xmlns=\"http://standards.ieee.org/IEEE1516-2010\">\n{body}\n</objectModel>\n"
    )
}

fn load_texts(mods: &[(&str, &str)]) -> Result<Fdd, FomError> {
    let modules = mods
        .iter()
        .map(|(n, t)| FomModule::parse(n, t))
        .collect::<Result<Vec<_>, _>>()?;
    Fdd::load(&modules)
}

fn reading_error(e: FomError) -> (String, u32, u32, String) {
    match e {
        FomError::ErrorReadingFdd { at, msg } => (at.file.to_string(), at.line, at.col, msg),
        other => panic!("expected ErrorReadingFdd, got {other:?}"),
    }
}

#[test]
fn conflicting_attribute_names_both_modules() {
    let processes = text("RestaurantProcesses.xml");
    let food = text("RestaurantFood.xml");
    let conflict = food.replacen(
        "<dataType>DrinkCount</dataType>\n                        <updateType>",
        "<dataType>HLAinteger32BE</dataType>\n                        <updateType>",
        1,
    );
    assert_ne!(conflict, food);
    let err = load_texts(&[
        ("RestaurantProcesses.xml", &processes),
        ("RestaurantFood.xml", &food),
        ("FoodConflict.xml", &conflict),
    ])
    .unwrap_err();
    let text = err.to_string();
    let FomError::InconsistentFdd {
        at, other, element, ..
    } = err
    else {
        panic!("expected InconsistentFdd, got {err:?}")
    };
    assert_eq!(&*at.file, "FoodConflict.xml");
    assert_eq!(&*other.file, "RestaurantFood.xml");
    // The other place is the earlier attribute itself.
    let (other_line, _) = pos_of(
        &food,
        "<attribute>\n                        <name>NumberCups",
    );
    assert_eq!(other.line, other_line);
    assert!(element.contains("NumberCups"), "{element}");
    let (line, _) = pos_of(
        &conflict,
        "<attribute>\n                        <name>NumberCups",
    );
    assert_eq!(at.line, line);
    assert!(
        text.starts_with(&format!("FoodConflict.xml:{line}:")),
        "{text}"
    );
}

#[test]
fn conflicting_data_type() {
    let drinks = text("RestaurantDrinks.xml");
    let changed = drinks.replacen("<value>101</value>", "<value>201</value>", 1);
    let err = load_texts(&[
        ("RestaurantProcesses.xml", &text("RestaurantProcesses.xml")),
        ("RestaurantFood.xml", &text("RestaurantFood.xml")),
        ("Drinks.xml", &changed),
    ])
    .unwrap_err();
    let FomError::InconsistentFdd {
        at, other, element, ..
    } = err
    else {
        panic!("expected InconsistentFdd, got {err:?}")
    };
    assert_eq!(element, "data type FlavorType");
    assert_eq!(&*at.file, "Drinks.xml");
    assert_eq!(&*other.file, "RestaurantProcesses.xml");
    assert_eq!((at.line, at.col), pos_of(&changed, "<enumeratedData>"));
}

#[test]
fn attributes_added_to_a_defined_class_are_refused() {
    let processes = text("RestaurantProcesses.xml");
    let extra = wrap(
        "<objects><objectClass><name>HLAobjectRoot</name><objectClass><name>Employee</name>\
         <attribute><name>Nickname</name><dataType>HLAASCIIstring</dataType></attribute>\
         </objectClass></objectClass></objects>",
    );
    let err = load_texts(&[("P.xml", &processes), ("Extra.xml", &extra)]).unwrap_err();
    assert!(matches!(err, FomError::InconsistentFdd { .. }), "{err}");
    assert!(err.to_string().contains("HLAobjectRoot.Employee"), "{err}");
}

#[test]
fn unknown_data_type_reference() {
    let processes = text("RestaurantProcesses.xml")
        .replace("<dataType>Years</dataType>", "<dataType>Yearz</dataType>");
    let (file, line, col, msg) = reading_error(load_texts(&[("P.xml", &processes)]).unwrap_err());
    assert_eq!(file, "P.xml");
    let attr = processes.find("<name>YearsOfService").unwrap();
    let attr_start = processes[..attr].rfind("<attribute").unwrap();
    assert_eq!(
        (line, col),
        pos_of(&processes, &processes[attr_start..attr])
    );
    assert!(msg.contains("unknown data type Yearz"), "{msg}");
}

#[test]
fn unknown_type_inside_a_record_points_at_the_field() {
    let m = wrap(
        "<dataTypes><fixedRecordDataTypes><fixedRecordData><name>R</name>\n\
         <encoding>HLAfixedRecord</encoding>\n<field><name>a</name>\n  <dataType>Nope</dataType></field>\n\
         </fixedRecordData></fixedRecordDataTypes></dataTypes>",
    );
    let (_, line, col, msg) = reading_error(load_texts(&[("R.xml", &m)]).unwrap_err());
    assert_eq!((line, col), pos_of(&m, "<dataType>Nope"));
    assert!(msg.contains("Nope"), "{msg}");
}

#[test]
fn unknown_dimension_and_transportation() {
    let drinks_alone = load_texts(&[("D.xml", &text("RestaurantDrinks.xml"))]).unwrap_err();
    let (_, _, _, msg) = reading_error(drinks_alone);
    assert!(msg.contains("unknown dimension SodaFlavor"), "{msg}");
    let p = text("RestaurantProcesses.xml").replacen(
        "<transportation>HLAreliable</transportation>",
        "<transportation>Carrier</transportation>",
        1,
    );
    let (_, line, col, msg) = reading_error(load_texts(&[("P.xml", &p)]).unwrap_err());
    assert!(msg.contains("unknown transportation type Carrier"), "{msg}");
    assert_eq!((line, col), pos_of(&p, "<transportation>Carrier"));
}

#[test]
fn cyclic_type_definitions() {
    let m = wrap(
        "<dataTypes>\n<arrayDataTypes><arrayData><name>As</name><dataType>A</dataType>\
         <cardinality>Dynamic</cardinality><encoding>HLAvariableArray</encoding></arrayData></arrayDataTypes>\n\
         <fixedRecordDataTypes><fixedRecordData><name>A</name><encoding>HLAfixedRecord</encoding>\
         <field><name>children</name><dataType>As</dataType></field></fixedRecordData></fixedRecordDataTypes>\n\
         </dataTypes>",
    );
    let (_, _, _, msg) = reading_error(load_texts(&[("C.xml", &m)]).unwrap_err());
    assert!(msg.contains("cyclic"), "{msg}");
    let self_simple = wrap(
        "<dataTypes><simpleDataTypes><simpleData><name>S</name><representation>S</representation>\
         </simpleData></simpleDataTypes></dataTypes>",
    );
    let (_, _, _, msg) = reading_error(load_texts(&[("S.xml", &self_simple)]).unwrap_err());
    assert!(msg.contains("cyclic"), "{msg}");
}

#[test]
fn duplicate_names() {
    let cases = [
        (
            "<objects><objectClass><name>HLAobjectRoot</name><objectClass><name>A</name></objectClass>\n\
             <objectClass><name>A</name></objectClass></objectClass></objects>",
            "duplicate object class A",
            "<objectClass><name>A</name></objectClass></objectClass>",
        ),
        (
            "<objects><objectClass><name>HLAobjectRoot</name><objectClass><name>A</name>\
             <attribute><name>x</name><dataType>HLAboolean</dataType></attribute>\n\
             <attribute><name>x</name><dataType>HLAboolean</dataType></attribute></objectClass></objectClass></objects>",
            "duplicate attribute x",
            "<attribute><name>x</name><dataType>HLAboolean</dataType></attribute></objectClass>",
        ),
        (
            "<dataTypes><enumeratedDataTypes><enumeratedData><name>E</name><representation>HLAoctet</representation>\
             <enumerator><name>a</name><value>1</value></enumerator>\n\
             <enumerator><name>a</name><value>2</value></enumerator></enumeratedData></enumeratedDataTypes></dataTypes>",
            "duplicate enumerator a",
            "<enumerator><name>a</name><value>2",
        ),
    ];
    for (body, want, at) in cases {
        let m = wrap(body);
        let (_, line, col, msg) = reading_error(load_texts(&[("Dup.xml", &m)]).unwrap_err());
        assert!(msg.contains(want), "{msg}");
        // The second occurrence is reported.
        let second = m.rfind(at).unwrap();
        let expected_line = m[..second].matches('\n').count() as u32 + 1;
        assert_eq!(line, expected_line, "{msg}");
        assert!(col >= 1);
    }
}

#[test]
fn attribute_hiding_an_inherited_one() {
    let m = wrap(
        "<objects><objectClass><name>HLAobjectRoot</name><objectClass><name>A</name>\n\
         <attribute><name>HLAprivilegeToDeleteObject</name><dataType>HLAtoken</dataType></attribute>\
         </objectClass></objectClass></objects>",
    );
    let err = load_texts(&[("Hide.xml", &m)]).unwrap_err();
    assert!(matches!(err, FomError::InconsistentFdd { .. }), "{err}");
    assert!(err.to_string().starts_with("Hide.xml:4:1:"), "{err}");
    assert!(err.to_string().contains("HLAstandardMIM.xml:"), "{err}");
}

#[test]
fn malformed_xml() {
    let p = text("RestaurantProcesses.xml");
    let cut = &p[..p.len() / 2];
    let (file, line, col, msg) = reading_error(load_texts(&[("Cut.xml", cut)]).unwrap_err());
    assert_eq!(file, "Cut.xml");
    assert!(line > 1 && col >= 1, "{line}:{col} {msg}");
    assert!(msg.contains("malformed XML"), "{msg}");
    let mismatched = p.replacen("</name>", "</nme>", 3);
    let (_, line, _, _) = reading_error(load_texts(&[("M.xml", &mismatched)]).unwrap_err());
    let first = mismatched.find("</nme>").unwrap();
    assert_eq!(line as usize, mismatched[..first].matches('\n').count() + 1);
}

#[test]
fn structural_errors() {
    let cases = [
        (
            "<objects><objectClass><name>Root</name></objectClass></objects>",
            "must be HLAobjectRoot",
        ),
        (
            "<objects><objectClass><name>HLAobjectRoot</name><objectClass><sharing>Publish</sharing></objectClass></objectClass></objects>",
            "needs a non-empty <name>",
        ),
        (
            "<objects><objectClass><name>HLAobjectRoot</name><objectClass><name>A</name><sharing>Sometimes</sharing></objectClass></objectClass></objects>",
            "<sharing> is \"Sometimes\"",
        ),
        (
            "<dataTypes><arrayDataTypes><arrayData><name>X</name><dataType>HLAoctet</dataType>\
             <cardinality>Dynamic</cardinality><encoding>HLAfixedArray</encoding></arrayData></arrayDataTypes></dataTypes>",
            "HLAfixedArray needs a fixed cardinality",
        ),
        (
            "<dataTypes><variantRecordDataTypes><variantRecordData><name>V</name><discriminant>d</discriminant>\
             <dataType>HLAboolean</dataType><alternative><enumerator>Maybe</enumerator><name>x</name>\
             <dataType>HLAoctet</dataType></alternative><encoding>HLAvariantRecord</encoding>\
             </variantRecordData></variantRecordDataTypes></dataTypes>",
            "Maybe is not an enumerator of HLAboolean",
        ),
        (
            "<dataTypes><simpleDataTypes><simpleData><name>S</name><representation>HLAboolean</representation>\
             </simpleData></simpleDataTypes></dataTypes>",
            "not a basic data representation",
        ),
    ];
    for (body, want) in cases {
        let (_, line, _, msg) = reading_error(load_texts(&[("S.xml", &wrap(body))]).unwrap_err());
        assert!(msg.contains(want), "want {want:?}, got {msg}");
        assert!(line >= 2);
    }
}

#[test]
fn hla4_and_foreign_documents_are_refused_clearly() {
    let hla4 = text("RestaurantProcesses.xml").replace(
        "xmlns=\"http://standards.ieee.org/IEEE1516-2010\"",
        "xmlns=\"http://standards.ieee.org/IEEE1516-2025\"",
    );
    let err = load_texts(&[("Hla4.xml", &hla4)]).unwrap_err();
    assert!(
        matches!(err, FomError::UnsupportedOmtVersion { .. }),
        "{err}"
    );
    let msg = err.to_string();
    assert!(msg.starts_with("Hla4.xml:2:1:"), "{msg}");
    assert!(msg.contains("HLA 4") && msg.contains("1516-2025"), "{msg}");
    let none = "<objectModel><objects/></objectModel>";
    let (_, _, _, msg) = reading_error(load_texts(&[("Old.xml", none)]).unwrap_err());
    assert!(msg.contains("namespace"), "{msg}");
}

#[test]
fn missing_file() {
    let err = Fdd::load_files(&["/no/such/fom.xml"]).unwrap_err();
    assert!(matches!(err, FomError::CouldNotOpenFdd { .. }), "{err}");
}

#[test]
fn scaffolding_and_identical_repeats_merge_but_switch_conflicts_only_warn() {
    let processes = text("RestaurantProcesses.xml");
    let other_switch = wrap("<switches><autoProvide isEnabled=\"false\"/></switches>");
    let fdd = load_texts(&[
        ("P.xml", &processes),
        ("P-again.xml", &processes),
        ("Sw.xml", &other_switch),
    ])
    .unwrap();
    assert_eq!(fdd.switch("autoProvide"), Some("true"));
    assert_eq!(fdd.warnings().len(), 1);
    assert!(
        fdd.warnings()[0].contains("Sw.xml:3:"),
        "{:?}",
        fdd.warnings()
    );
}

#[test]
fn interaction_class_order_conflict() {
    let p = text("RestaurantProcesses.xml");
    let changed = p.replacen(
        "<semantics>Customer has occupied a table</semantics>",
        "<semantics>x</semantics>",
        1,
    );
    // Documentation differences are not conflicts.
    assert!(load_texts(&[("P.xml", &p), ("P2.xml", &changed)]).is_ok());
    let at = p.find("<name>CustomerSeated</name>").unwrap();
    let order = at + p[at..].find("<order>TimeStamp</order>").unwrap();
    let mut reordered = p.clone();
    reordered.replace_range(
        order..order + "<order>TimeStamp</order>".len(),
        "<order>Receive</order>",
    );
    let err = load_texts(&[("P.xml", &p), ("P2.xml", &reordered)]).unwrap_err();
    let FomError::InconsistentFdd {
        at,
        other,
        element,
        reason,
    } = err
    else {
        panic!("expected InconsistentFdd, got {err:?}")
    };
    assert_eq!(
        element,
        "interaction class HLAinteractionRoot.CustomerTransactions.CustomerSeated"
    );
    assert!(reason.contains("order"), "{reason}");
    assert_eq!(&*at.file, "P2.xml");
    assert_eq!(&*other.file, "P.xml");
}

#[test]
fn errors_in_later_definitions_of_scaffolded_interactions_name_the_later_file() {
    let scaffold = wrap(
        "<interactions><interactionClass><name>HLAinteractionRoot</name>\
         <interactionClass><name>Ping</name></interactionClass></interactionClass></interactions>",
    );
    let full = wrap(
        "<interactions><interactionClass><name>HLAinteractionRoot</name>\
         <interactionClass><name>Ping</name>\n<transportation>Pigeon</transportation>\
         </interactionClass></interactionClass></interactions>",
    );
    let (file, line, col, msg) =
        reading_error(load_texts(&[("A.xml", &scaffold), ("B.xml", &full)]).unwrap_err());
    assert_eq!(file, "B.xml");
    assert_eq!((line, col), pos_of(&full, "<transportation>Pigeon"));
    assert!(msg.contains("Pigeon"), "{msg}");
}

#[test]
fn absurdly_deep_class_nesting_is_an_error_not_a_stack_overflow() {
    let depth = 2000;
    let mut body = String::from("<objects><objectClass><name>HLAobjectRoot</name>");
    for i in 0..depth {
        body.push_str(&format!("<objectClass><name>C{i}</name>"));
    }
    body.push_str(&"</objectClass>".repeat(depth + 1));
    body.push_str("</objects>");
    let err = load_texts(&[("Deep.xml", &wrap(&body))]).unwrap_err();
    assert!(err.to_string().contains("deeper than"), "{err}");
}

#[test]
fn user_defined_record_encodings_load_and_are_reported_by_the_codec() {
    let m = wrap(
        "<dataTypes><fixedRecordDataTypes><fixedRecordData><name>Packed</name>\
         <encoding>BitPacked</encoding><field><name>a</name><dataType>HLAoctet</dataType></field>\
         </fixedRecordData></fixedRecordDataTypes></dataTypes>",
    );
    let fdd = load_texts(&[("U.xml", &m)]).unwrap();
    assert_eq!(
        fdd.decode_value("Packed", &[1]),
        Err(hlamesh_core::encoding::EncoderError::UnsupportedEncoding {
            type_name: "Packed".into(),
            encoding: "BitPacked".into()
        })
    );
}
