//! Runs the built `hlamesh` binary: exit codes and `file:line:column` diagnostics.
#![allow(clippy::unwrap_used)]

mod common;

use std::process::Command;

fn hlamesh(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_hlamesh"))
        .args(args)
        .output()
        .expect("run hlamesh");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn path(name: &str) -> String {
    common::fom(name).display().to_string()
}

#[test]
fn check_good_files() {
    let files: Vec<String> = common::RESTAURANT.iter().map(|f| path(f)).collect();
    let mut args = vec!["fom", "check"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = hlamesh(&args);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("object classes: 42, attributes: 54"), "{out}");
    assert!(
        out.contains("interaction classes: 99, parameters: 104"),
        "{out}"
    );
    let digest = out
        .lines()
        .find_map(|l| l.strip_prefix("FDD digest: "))
        .unwrap();
    assert_eq!(digest.len(), 64);
    // Same modules, same digest, from the library.
    let fdd = hlamesh_lrc::fom::Fdd::load_files(&files).unwrap();
    assert_eq!(digest, fdd.digest().to_string());
}

#[test]
fn check_bad_file_reports_file_line_column() {
    let dir = std::env::temp_dir().join(format!("hlamesh-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("Bad.xml");
    let text = common::text("RestaurantProcesses.xml")
        .replace("<dataType>Years</dataType>", "<dataType>Yearz</dataType>");
    std::fs::write(&bad, &text).unwrap();
    let bad = bad.display().to_string();
    let (code, out, err) = hlamesh(&["fom", "check", &bad]);
    assert_ne!(code, 0);
    assert!(out.is_empty(), "{out}");
    let attr = text.find("<name>YearsOfService").unwrap();
    let attr = text[..attr].rfind("<attribute").unwrap();
    let line = text[..attr].matches('\n').count() + 1;
    assert!(err.starts_with(&format!("{bad}:{line}:")), "{err}");
    assert!(err.contains("unknown data type Yearz"), "{err}");

    let cut = dir.join("Cut.xml");
    std::fs::write(&cut, &text[..text.len() / 3]).unwrap();
    let cut = cut.display().to_string();
    let (code, _, err) = hlamesh(&["fom", "check", &cut]);
    assert_ne!(code, 0);
    let rest = err
        .strip_prefix(&format!("{cut}:"))
        .unwrap_or_else(|| panic!("{err}"));
    let mut parts = rest.splitn(3, ':');
    let l: u32 = parts.next().unwrap().parse().unwrap();
    let c: u32 = parts.next().unwrap().parse().unwrap();
    assert!(l > 1 && c >= 1, "{err}");

    let (code, _, err) = hlamesh(&["fom", "check", "/no/such/file.xml"]);
    assert_ne!(code, 0);
    assert!(err.contains("could not open FDD"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn show_tree_and_class() {
    let files: Vec<String> = common::RPR.iter().map(|f| path(f)).collect();
    let mut args = vec!["fom", "show"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, _) = hlamesh(&args);
    assert_eq!(code, 0);
    assert!(
        out.contains("object classes:\n  HLAobjectRoot (1)"),
        "{out}"
    );
    assert!(out.contains("    BaseEntity ("), "{out}");
    args.extend(["--class", "BaseEntity"]);
    let (code, out, _) = hlamesh(&args);
    assert_eq!(code, 0);
    assert!(
        out.contains("object class HLAobjectRoot.BaseEntity"),
        "{out}"
    );
    assert!(out.contains("HLAprivilegeToDeleteObject"), "{out}");
    assert!(
        out.contains("Spatial") && out.contains("SpatialVariantStruct"),
        "{out}"
    );
    let mut args2 = vec!["fom", "show"];
    args2.extend(files.iter().map(String::as_str));
    args2.extend(["--class", "NoSuchClass"]);
    let (code, _, err) = hlamesh(&args2);
    assert_ne!(code, 0);
    assert!(err.contains("NoSuchClass"), "{err}");
}

#[test]
fn usage_errors() {
    let (code, _, _) = hlamesh(&["fom", "check"]);
    assert_eq!(code, 2);
    let (code, _, _) = hlamesh(&["nonsense"]);
    assert_eq!(code, 2);
}

#[test]
fn standard_mim_cannot_replace_itself() {
    let mim = path("HLAstandardMIM.xml");
    let p = path("RestaurantProcesses.xml");
    let (code, _, err) = hlamesh(&["fom", "check", "--mim", &mim, &p]);
    assert_eq!(code, 1);
    assert!(err.contains("standard MIM"), "{err}");
}

#[test]
fn show_interaction_class() {
    let p = path("RestaurantProcesses.xml");
    let (code, out, err) = hlamesh(&["fom", "show", &p, "--class", "MainCourseServed"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains(
            "interaction class HLAinteractionRoot.CustomerTransactions.FoodServed.MainCourseServed"
        ),
        "{out}"
    );
    assert!(
        out.contains("TemperatureOk") && out.contains("ServiceStat"),
        "{out}"
    );
}

#[test]
fn show_lists_dimensions_and_dimension_sets() {
    let files: Vec<String> = common::RESTAURANT.iter().map(|f| path(f)).collect();
    let mut args = vec!["fom", "show"];
    args.extend(files.iter().map(String::as_str));
    let (code, out, err) = hlamesh(&args);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.contains("  HLAserviceGroup (2) upper bound 7, default range Excluded"),
        "{out}"
    );
    assert!(
        out.contains(&format!(
            "  HLAfederate (1) upper bound none given (RTI bound {})",
            u64::MAX
        )),
        "{out}"
    );
    assert!(
        out.contains("  SodaFlavor (3) upper bound 3, default range [0..3)"),
        "{out}"
    );
    assert!(
        out.contains("  BarQuantity (4) upper bound 25, default range [0..1)"),
        "{out}"
    );
    assert!(
        out.contains("  attribute HLAobjectRoot.Food.Drink.Soda.Flavor {SodaFlavor, BarQuantity}"),
        "{out}"
    );
    assert!(
        out.contains(
            "  interaction HLAinteractionRoot.CustomerTransactions.FoodServed.MainCourseServed \
             {WaiterId}"
        ),
        "{out}"
    );
    args.extend(["--class", "MainCourseServed"]);
    let (code, out, err) = hlamesh(&args);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("dimensions {WaiterId}"), "{out}");
}
