//! The data-plane MAC alone, per datagram size: the candidates for authenticating every data
//! datagram (the whole datagram, a 16-byte tag).
//!
//! - `hmac_sha256`: HMAC-SHA256 truncated to 16 bytes (`ring`; the MAC of wire version 1);
//! - `blake3_keyed`: keyed BLAKE3 truncated to 16 bytes (`blake3`; the MAC of wire version 2,
//!   [`hlamesh_transport::data::auth::DatagramAuth`]);
//! - `aes128_gmac`: AES-128-GCM with the datagram as associated data and nothing encrypted
//!   (`ring`), i.e. GMAC; it needs a nonce never reused under the federation key;
//! - `chacha20_poly1305`: the same with ChaCha20-Poly1305 (`ring`).
//!
//! Run: `cargo bench -p hlamesh-transport --bench mac`

use std::hint::black_box;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use hlamesh_transport::FederationKey;
use hlamesh_transport::data::auth::DatagramAuth;
use ring::aead::{self, Aad, LessSafeKey, Nonce, UnboundKey};
use ring::hmac;

const SIZES: [usize; 3] = [100, 1024, 8192];

fn nonce(counter: u64) -> Nonce {
    let mut n = [0u8; 12];
    n[4..].copy_from_slice(&counter.to_le_bytes());
    Nonce::assume_unique_for_key(n)
}

fn macs(c: &mut Criterion) {
    let hmac_key = hmac::Key::new(hmac::HMAC_SHA256, &[7u8; 32]);
    let blake_key = [7u8; 32];
    let gcm = LessSafeKey::new(UnboundKey::new(&aead::AES_128_GCM, &[7u8; 16]).expect("key"));
    let chacha =
        LessSafeKey::new(UnboundKey::new(&aead::CHACHA20_POLY1305, &[7u8; 32]).expect("key"));
    let auth = DatagramAuth::new(&FederationKey([7; 32]));
    let mut g = c.benchmark_group("datagram_mac");
    for size in SIZES {
        let data: Vec<u8> = (0..size).map(|i| i as u8).collect();
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_with_input(BenchmarkId::new("hmac_sha256", size), &data, |b, d| {
            b.iter(|| {
                let tag = hmac::sign(&hmac_key, black_box(d));
                let mut out = [0u8; 16];
                out.copy_from_slice(&tag.as_ref()[..16]);
                black_box(out)
            })
        });
        g.bench_with_input(BenchmarkId::new("blake3_keyed", size), &data, |b, d| {
            b.iter(|| {
                let h = blake3::keyed_hash(&blake_key, black_box(d));
                let mut out = [0u8; 16];
                out.copy_from_slice(&h.as_bytes()[..16]);
                black_box(out)
            })
        });
        g.bench_with_input(BenchmarkId::new("datagram_auth", size), &data, |b, d| {
            b.iter(|| black_box(auth.mac(black_box(d))))
        });
        let mut counter = 0u64;
        g.bench_with_input(BenchmarkId::new("aes128_gmac", size), &data, |b, d| {
            b.iter(|| {
                counter += 1;
                let tag = gcm
                    .seal_in_place_separate_tag(nonce(counter), Aad::from(black_box(d)), &mut [])
                    .expect("seal");
                black_box(tag)
            })
        });
        g.bench_with_input(
            BenchmarkId::new("chacha20_poly1305", size),
            &data,
            |b, d| {
                b.iter(|| {
                    counter += 1;
                    let tag = chacha
                        .seal_in_place_separate_tag(
                            nonce(counter),
                            Aad::from(black_box(d)),
                            &mut [],
                        )
                        .expect("seal");
                    black_box(tag)
                })
            },
        );
    }
    g.finish();
}

criterion_group!(benches, macs);
criterion_main!(benches);
