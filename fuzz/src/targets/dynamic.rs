//! The HLA dynamic decoder (`encoding::dynamic::decode`), what monitors and `hlamesh fom show`
//! run on attribute and parameter values received from other federates: the first two bytes
//! pick one of the data types of the demo FOM and the standard MIM, the rest is the value.
//!
//! Invariants: any bytes give a value or a typed error; a decoded value encodes (the encoder
//! accepts what the decoder produces), and that encoding decodes and encodes to itself.

use std::sync::OnceLock;

use hlamesh_lrc::encoding::dynamic;
use hlamesh_lrc::fom::{Fdd, TypeId};

use super::fom::DEMO_FOM;

fn fdd() -> &'static (Fdd, Vec<TypeId>) {
    static FDD: OnceLock<(Fdd, Vec<TypeId>)> = OnceLock::new();
    FDD.get_or_init(|| {
        let m = hlamesh_lrc::fom::FomModule::parse("HlameshDemo.xml", DEMO_FOM)
            .expect("the demo FOM parses");
        let fdd = Fdd::load(&[m]).expect("the demo FOM loads");
        let ids = fdd.data_types().iter().map(|(id, _)| id).collect();
        (fdd, ids)
    })
}

/// See the module docs.
pub fn run(data: &[u8]) {
    let (fdd, ids) = fdd();
    let [a, b, value @ ..] = data else {
        return;
    };
    let ty = ids[usize::from(u16::from_le_bytes([*a, *b])) % ids.len()];
    let types = fdd.data_types();
    match dynamic::decode(types, ty, value) {
        Ok(v) => {
            let _ = v.to_string();
            let enc = dynamic::encode(types, ty, &v).expect("a decoded value encodes");
            let again = dynamic::decode(types, ty, &enc).expect("an encoded value decodes");
            let enc2 = dynamic::encode(types, ty, &again).expect("it encodes again");
            assert_eq!(enc2, enc);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}
