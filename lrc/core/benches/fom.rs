//! FOM loading and entity-state encoding benchmarks.
//!
//! `cargo bench -p hlamesh-core --bench fom`. Reads the public FOMs from `$HLAMESH_FOM_DIR` or
//! the repository's `foms/`.

use std::hint::black_box;
use std::path::PathBuf;

use criterion::{Criterion, criterion_group, criterion_main};
use hlamesh_core::encoding::{DataElement, Decoder, Encoder, EncoderError, dynamic};
use hlamesh_core::fom::{Fdd, FomModule};

fn fom_dir() -> PathBuf {
    std::env::var("HLAMESH_FOM_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|_| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../foms"))
}

const RPR: [&str; 3] = [
    "RPR-Foundation_v2.0.xml",
    "RPR-Enumerations_v2.0.xml",
    "RPR-Base_v2.0.xml",
];

fn rpr_texts() -> Vec<(String, String)> {
    RPR.iter()
        .map(|f| {
            let t = std::fs::read_to_string(fom_dir().join(f)).expect("RPR FOM readable");
            (f.to_string(), t)
        })
        .collect()
}

fn load(texts: &[(String, String)]) -> Fdd {
    let modules: Vec<FomModule> = texts
        .iter()
        .map(|(n, t)| FomModule::parse(n, t).expect("parses"))
        .collect();
    Fdd::load(&modules).expect("merges")
}

fn bench_load(c: &mut Criterion) {
    let texts = rpr_texts();
    let mut g = c.benchmark_group("fom");
    g.sample_size(30);
    g.bench_function("load_rpr_set(MIM+Foundation+Enumerations+Base)", |b| {
        b.iter(|| load(black_box(&texts)))
    });
    g.bench_function("parse_rpr_enumerations", |b| {
        b.iter(|| FomModule::parse("e", black_box(&texts[1].1)).expect("parses"))
    });
    g.bench_function("parse_standard_mim", |b| b.iter(FomModule::standard_mim));
    g.finish();
}

hlamesh_core::hla_fixed_record! {
    struct WorldLocation { x: f64, y: f64, z: f64 }
}
hlamesh_core::hla_fixed_record! {
    struct Orientation { psi: f32, theta: f32, phi: f32 }
}
hlamesh_core::hla_fixed_record! {
    struct Velocity { x: f32, y: f32, z: f32 }
}
hlamesh_core::hla_fixed_record! {
    /// RPR SpatialFPStruct (IsFrozen is the RPRboolean octet).
    struct SpatialFp { location: WorldLocation, is_frozen: u8, orientation: Orientation, velocity: Velocity }
}

/// RPR SpatialVariantStruct restricted to DRM_FPW (discriminant 2).
struct SpatialFpw(SpatialFp);

impl DataElement for SpatialFpw {
    fn octet_boundary() -> usize {
        8
    }
    fn min_encoded_len() -> usize {
        1
    }
    fn encode_into(&self, enc: &mut Encoder) {
        enc.put(&2u8);
        enc.put(&self.0);
    }
    fn decode_from(dec: &mut Decoder<'_>) -> Result<Self, EncoderError> {
        match dec.get::<u8>()? {
            2 => Ok(SpatialFpw(dec.get()?)),
            d => Err(EncoderError::InvalidDiscriminant(d.into())),
        }
    }
}

fn bench_spatial(c: &mut Criterion) {
    let fdd = load(&rpr_texts());
    let spatial = SpatialFpw(SpatialFp {
        location: WorldLocation {
            x: 4_000_000.5,
            y: 1_000_000.25,
            z: 4_500_000.125,
        },
        is_frozen: 0,
        orientation: Orientation {
            psi: 0.5,
            theta: 0.25,
            phi: 0.125,
        },
        velocity: Velocity {
            x: 10.0,
            y: 20.0,
            z: 30.0,
        },
    });
    let bytes = spatial.encode();
    assert_eq!(bytes.len(), 60);
    let ty = fdd.data_type_id("SpatialVariantStruct").expect("RPR type");
    let value = dynamic::decode(fdd.data_types(), ty, &bytes).expect("decodes");
    assert_eq!(
        dynamic::encode(fdd.data_types(), ty, &value).expect("encodes"),
        bytes
    );

    let mut g = c.benchmark_group("encoding/rpr_spatial_fpw_60B");
    let mut buf = Vec::with_capacity(64);
    g.bench_function("typed_encode", |b| {
        b.iter(|| {
            let mut e = Encoder::with_buffer(std::mem::take(&mut buf));
            e.put(black_box(&spatial));
            buf = e.into_bytes();
        })
    });
    g.bench_function("typed_decode", |b| {
        b.iter(|| SpatialFpw::decode(black_box(&bytes)).expect("decodes"))
    });
    g.bench_function("dynamic_encode", |b| {
        b.iter(|| dynamic::encode(fdd.data_types(), ty, black_box(&value)).expect("encodes"))
    });
    g.bench_function("dynamic_decode", |b| {
        b.iter(|| dynamic::decode(fdd.data_types(), ty, black_box(&bytes)).expect("decodes"))
    });
    g.finish();
}

criterion_group!(benches, bench_load, bench_spatial);
criterion_main!(benches);
