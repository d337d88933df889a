//! The FOM loader: `FomModule::parse` on any text (the XML a joiner brings), `Fdd::load` of
//! the module after the standard MIM, and the join-time merge of the module into a running
//! federation's FDD (`Fdd::merge_module`, here the demo federation's).
//!
//! Invariants: any text gives a module or a typed error with a place; a merge that fails leaves
//! the federation's FDD exactly as it was (same digest); a merge that succeeds keeps every data
//! type the federation had under the same id.

use std::sync::OnceLock;

use hlamesh_lrc::fom::{Fdd, FomModule};

/// The demo federation's FOM, the base of the merge.
pub const DEMO_FOM: &str = include_str!("../../../fed-examples/foms/HlameshDemo.xml");

fn base() -> &'static Fdd {
    static BASE: OnceLock<Fdd> = OnceLock::new();
    BASE.get_or_init(|| {
        let m = FomModule::parse("HlameshDemo.xml", DEMO_FOM).expect("the demo FOM parses");
        Fdd::load(&[m]).expect("the demo FOM loads")
    })
}

/// See the module docs.
pub fn run(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let module = match FomModule::parse("fuzz.xml", &text) {
        Ok(m) => m,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    match Fdd::load(std::slice::from_ref(&module)) {
        Ok(fdd) => {
            let _ = fdd.digest();
            let _ = fdd.data_types().len();
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
    let mut fdd = base().clone();
    let before = fdd.digest();
    match fdd.merge_module(&module) {
        Ok(_) => {
            for (id, t) in base().data_types().iter() {
                assert_eq!(fdd.data_type_id(&t.name), Some(id), "type {} moved", t.name);
            }
        }
        Err(e) => {
            let _ = e.to_string();
            assert_eq!(fdd.digest(), before, "a failed merge changed the FDD");
        }
    }
}
