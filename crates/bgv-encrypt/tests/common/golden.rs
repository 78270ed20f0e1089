//! Golden vectors of BGV: FNV-1a hashes of the words of keys and ciphertexts made from fixed
//! seeds, on any backend. A refactor must leave every hash as it is (GPU = CPU bit for bit, so
//! both backends check the same table); a deliberate change of sampling order, of what a key
//! holds or of the byte format updates the table in the same commit and says why.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use bgv_encrypt::{
    BatchEncoder, BgvBackend, BgvContext, BgvParameters, BgvParametersBuilder, CoefficientEncoder, Preset,
};
use hegpu_test_support::golden::{FNV_OFFSET, fnv1a, fnv1a_bytes};
use poly::{Backend, Coeff, Eval, Representation, Seed, TransformKind};

/// One set: parameters and a transform.
pub struct GoldenSet {
    pub name: &'static str,
    pub build: fn() -> Arc<BgvParameters>,
}

fn preset(preset: Preset, transform: TransformKind) -> Arc<BgvParameters> {
    preset.builder().unwrap().allow_insecure(true).transform(transform).build().unwrap()
}

/// The sets: NTT, DGT and hierarchical DGT, one and several special primes, a prime and a
/// power-of-two `t`.
pub const SETS: [GoldenSet; 4] = [
    GoldenSet { name: "secure-4096-ntt", build: || preset(Preset::Secure { log_degree: 12 }, TransformKind::Ntt) },
    GoldenSet { name: "phantom-8192-dgt", build: || preset(Preset::Phantom { log_degree: 13 }, TransformKind::Dgt) },
    GoldenSet {
        name: "phantom-16384-hdgt",
        build: || preset(Preset::Phantom { log_degree: 14 }, TransformKind::HierarchicalDgt),
    },
    GoldenSet {
        name: "4096-t65536-ntt",
        build: || {
            BgvParametersBuilder::new(4096)
                .ciphertext_moduli_bits(&[50, 45, 45])
                .special_moduli_bits(&[55, 55])
                .plaintext_modulus(1 << 16)
                .allow_insecure(true)
                .build()
                .unwrap()
        },
    },
];

/// The objects hashed, in the order of [`EXPECTED`]'s rows.
pub const OBJECTS: [&str; 10] = [
    "public key",
    "relinearization key",
    "Galois key (rows by 1)",
    "encryption (public key)",
    "encryption (secret key, c0)",
    "mul+relin",
    "rotate rows by 1",
    "mul+relin switched one level down",
    "decryption of the switched product",
    "bytes of the switched product",
];

fn hash_polys<B: Backend, R: Representation>(backend: &B, polys: &[&B::Poly<R>]) -> u64
where
    B::Error: std::fmt::Debug,
{
    polys.iter().fold(FNV_OFFSET, |hash, poly| fnv1a(hash, backend.download(*poly).unwrap().as_slice()))
}

fn seed(tag: u8) -> Seed {
    Seed::from(core::array::from_fn::<u8, 32, _>(|i| tag.wrapping_mul(41).wrapping_add(i as u8)))
}

/// The hashes of [`OBJECTS`] for `set` on `backend`.
pub fn hashes<B: BgvBackend>(backend: B, set: &GoldenSet) -> [u64; 10]
where
    B::Error: std::fmt::Debug,
{
    let params = (set.build)();
    let context = BgvContext::new(backend.clone(), &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let element = context.galois_element_for_row_rotation(1);
    let galois = context.galois_keys_from_seed(&secret, &[element], &seed(4)).unwrap();

    // Batch encoding where `t` allows it, coefficients otherwise (a power-of-two `t`).
    let encode = |values: &[u64]| match BatchEncoder::new(&params) {
        Ok(encoder) => encoder.encode(values).unwrap(),
        Err(_) => CoefficientEncoder::new(&params).encode(values).unwrap(),
    };
    let t = params.plaintext_modulus();
    let n = params.degree() as u64;
    let x: Vec<u64> = (0..n).map(|i| (i * i + 7) % t).collect();
    let y: Vec<u64> = (0..n).map(|i| (3 * i + 1) % t).collect();
    let (x, y) = (encode(&x), encode(&y));

    let cx = context.encrypt_with_seed(&x, &public, &seed(5)).unwrap();
    let seeded = context.encrypt_symmetric_with_seeds(&y, &secret, &seed(6), &seed(7)).unwrap();
    let cy = context.expand(&seeded).unwrap();
    let product = context.mul_relin(&cx, &cy, &relin).unwrap();
    let rotated = context.rotate_rows(&cx, 1, &galois).unwrap();
    let switched = context.mod_switch_to_next(&product).unwrap();
    let decrypted = context.decrypt(&switched, &secret).unwrap();
    let bytes = context.ciphertext_to_bytes(&switched).unwrap();

    let (b, a) = public.polys();
    let eval_pairs = |pairs: &[rlwe::EvalPair<B>]| -> u64 {
        let polys: Vec<&B::Poly<Eval>> = pairs.iter().flat_map(|(b, a)| [b, a]).collect();
        hash_polys::<B, Eval>(&backend, &polys)
    };
    let ciphertext = |polys: &[B::Poly<Eval>]| -> u64 {
        let refs: Vec<&B::Poly<Eval>> = polys.iter().collect();
        hash_polys::<B, Eval>(&backend, &refs)
    };
    [
        hash_polys::<B, Eval>(&backend, &[b, a]),
        eval_pairs(relin.digits()),
        eval_pairs(galois.key(element).unwrap()),
        ciphertext(cx.polys()),
        hash_polys::<B, Coeff>(&backend, &[seeded.c0()]),
        ciphertext(product.polys()),
        ciphertext(rotated.polys()),
        fnv1a(ciphertext(switched.polys()), &[switched.level() as u64, switched.state().correction_factor()]),
        fnv1a(FNV_OFFSET, decrypted.coefficients()),
        fnv1a_bytes(FNV_OFFSET, bytes),
    ]
}

/// The recorded hashes, one row per [`SETS`] entry (recorded on the CPU before the schemes
/// moved onto the shared core, at commit 8302ff1). The last column, the bytes of the switched
/// product, was recorded again for byte-format version 3 (packed words; in version 2 it was
/// 0xde02d85f9bfab088, 0xe143e6ad4eafb80b, 0x71a4dbf7c8a86d10, 0x03dc61e496c00c9f); every key
/// and ciphertext column is unchanged.
#[rustfmt::skip]
pub const EXPECTED: [[u64; 10]; 4] = [
    [0xbb6a4eac1c18ef85, 0xf8ee1b07b6ddbe7f, 0x3a12ee36bf7ccabb, 0x56d465f47e9cd980, 0xf5833e1bcfc918f1, 0x7766cfed8cfc32f0, 0xcd0b8d9d789cd210, 0x7c0a69821999dda5, 0xfb1b28eb96876872, 0x0a3136bc08cdb539],
    [0x60146c193c12f8f1, 0x4878841e5d9a76a3, 0x6dcc1b8b2dada289, 0x6dcf73985fa98bc9, 0x9dc76bbe9e5b0c4b, 0x167f60bf931998e6, 0x4cb175dcff486439, 0x34868a1badd3b7f3, 0xab4cee4cbab74a01, 0x1074d75c9a4d4d10],
    [0x989a09d7419a4148, 0xe76c3367cb9645b6, 0x2d833c6506916f7a, 0x992c2483c9212761, 0x486101f8efe4373b, 0x13cb5cf9b6865fbf, 0xd78918302228492c, 0x82e6edd685c6b8a5, 0x4ce0d17c21e2abd5, 0x2d07ccc49ade399a],
    [0x65fe95cb2a267959, 0x92f959df303b184b, 0x38c398ff8c64da9a, 0xefb95a4c5fa12186, 0x7e8e5783a7f1706b, 0xc535f02b49ea4448, 0x2e8e277fc53b8cef, 0x42132fc49ee7187c, 0x4b66ef19513d3425, 0x50201e47099f6626],
];

/// Asserts that `backend` reproduces [`EXPECTED`] at every set, naming each mismatch.
pub fn check<B: BgvBackend>(backend: B)
where
    B::Error: std::fmt::Debug,
{
    let names: Vec<&str> = SETS.iter().map(|set| set.name).collect();
    let got: Vec<_> = SETS.iter().map(|set| hashes(backend.clone(), set)).collect();
    hegpu_test_support::golden::check_table(&names, &OBJECTS, &got, &EXPECTED);
}
