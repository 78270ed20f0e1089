//! Golden vectors: FNV-1a hashes of the words of keys and ciphertexts made from fixed seeds,
//! on any backend. A refactor must leave every hash as it is (GPU = CPU bit for bit, so both
//! backends check the same table); a deliberate change of sampling order or of what a key
//! holds updates the table in the same commit and says why.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use bfv::{BatchEncoder, BfvBackend, BfvContext, BfvParameters, MulVariant, Preset};
use hegpu_test_support::golden::{FNV_OFFSET, fnv1a};
use poly::{Backend, Coeff, Eval, Representation, Seed, TransformKind};

/// One set: a preset with its variant and transform.
pub struct GoldenSet {
    pub name: &'static str,
    pub preset: Preset,
    pub variant: MulVariant,
    pub transform: TransformKind,
}

/// The sets: both variants, NTT, DGT and hierarchical DGT, one and several special primes.
pub const SETS: [GoldenSet; 4] = [
    GoldenSet {
        name: "phantom-4096-hps-ntt",
        preset: Preset::Phantom { log_degree: 12, hybrid: false },
        variant: MulVariant::Hps,
        transform: TransformKind::Ntt,
    },
    GoldenSet {
        name: "phantom-4096-behz-dgt",
        preset: Preset::Phantom { log_degree: 12, hybrid: false },
        variant: MulVariant::Behz,
        transform: TransformKind::Dgt,
    },
    GoldenSet {
        name: "secure-8192-behz-ntt",
        preset: Preset::Secure { log_degree: 13 },
        variant: MulVariant::Behz,
        transform: TransformKind::Ntt,
    },
    GoldenSet {
        name: "phantom-16384-hybrid-hps-hdgt",
        preset: Preset::Phantom { log_degree: 14, hybrid: true },
        variant: MulVariant::Hps,
        transform: TransformKind::HierarchicalDgt,
    },
];

/// The objects hashed, in the order of [`GoldenSet`]'s hash rows.
pub const OBJECTS: [&str; 9] = [
    "public key",
    "relinearization key",
    "Galois key (rows by 1)",
    "encryption (public key)",
    "encryption (secret key, c0)",
    "mul+relin",
    "rotate rows by 1",
    "square without relinearization",
    "decryption of mul+relin",
];

fn hash_polys<B: Backend, R: Representation>(backend: &B, polys: &[&B::Poly<R>]) -> u64
where
    B::Error: std::fmt::Debug,
{
    polys.iter().fold(FNV_OFFSET, |hash, poly| fnv1a(hash, backend.download(*poly).unwrap().as_slice()))
}

fn seed(tag: u8) -> Seed {
    Seed::from(core::array::from_fn::<u8, 32, _>(|i| tag.wrapping_mul(37).wrapping_add(i as u8)))
}

pub fn params(set: &GoldenSet) -> Arc<BfvParameters> {
    set.preset.builder().unwrap().allow_insecure(true).variant(set.variant).transform(set.transform).build().unwrap()
}

/// The hashes of [`OBJECTS`] for `set` on `backend`.
pub fn hashes<B: BfvBackend>(backend: B, set: &GoldenSet) -> [u64; 9]
where
    B::Error: std::fmt::Debug,
{
    let params = params(set);
    let context = BfvContext::new(backend.clone(), &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let element = context.galois_element_for_row_rotation(1);
    let galois = context.galois_keys_from_seed(&secret, &[element], &seed(4)).unwrap();

    let encoder = BatchEncoder::new(&params).unwrap();
    let t = params.plaintext_modulus();
    let n = params.degree() as u64;
    let x: Vec<u64> = (0..n).map(|i| (i * i + 7) % t).collect();
    let y: Vec<u64> = (0..n).map(|i| (3 * i + 1) % t).collect();
    let (x, y) = (encoder.encode(&x).unwrap(), encoder.encode(&y).unwrap());

    let cx = context.encrypt_with_seed(&x, &public, &seed(5)).unwrap();
    let seeded = context.encrypt_symmetric_with_seeds(&y, &secret, &seed(6), &seed(7)).unwrap();
    let cy = context.expand(&seeded).unwrap();
    let product = context.mul_relin(&cx, &cy, &relin).unwrap();
    let rotated = context.rotate_rows(&cx, 1, &galois).unwrap();
    let square = context.square(&cy).unwrap();
    let decrypted = context.decrypt(&product, &secret).unwrap();

    let (b, a) = public.polys();
    let eval_pairs = |pairs: &[bfv::EvalPair<B>]| -> u64 {
        let polys: Vec<&B::Poly<Eval>> = pairs.iter().flat_map(|(b, a)| [b, a]).collect();
        hash_polys::<B, Eval>(&backend, &polys)
    };
    let coeff = |polys: &[B::Poly<Coeff>]| -> u64 {
        let refs: Vec<&B::Poly<Coeff>> = polys.iter().collect();
        hash_polys::<B, Coeff>(&backend, &refs)
    };
    [
        hash_polys::<B, Eval>(&backend, &[b, a]),
        eval_pairs(relin.digits()),
        eval_pairs(galois.key(element).unwrap()),
        coeff(cx.polys()),
        coeff(std::slice::from_ref(seeded.c0())),
        coeff(product.polys()),
        coeff(rotated.polys()),
        coeff(square.polys()),
        fnv1a(FNV_OFFSET, decrypted.coefficients()),
    ]
}

/// The recorded hashes, one row per [`SETS`] entry (recorded at commit 3d005ab on the CPU).
#[rustfmt::skip]
pub const EXPECTED: [[u64; 9]; 4] = [
    [0x953cc5158c62f3ad, 0xd4ef60e29d2d71f9, 0x9bdbb9adba25d208, 0xa714834ad47b9a6e, 0xd4832f966c988457, 0x8fbdae2c4c9546ea, 0x05e7362b3c4f9ecf, 0x32ca4ccd65de5d0a, 0xfb1b28eb96876872],
    [0x37c7fcbe8ee2209b, 0xc0919bd9bb6a9c87, 0x238534a8d3276e8d, 0xbe33bfe97a360de6, 0xd4832f966c988457, 0x113a20cec01205c8, 0x21c94c742b5a3186, 0xcb952a247e837cfa, 0xfb1b28eb96876872],
    [0xa82811751f361c22, 0xc0d427fdd2ebd623, 0x07f1c46a37bc46ff, 0xe3d6dea6036409bf, 0x2aa6f40927308e38, 0x80edaebdfe12519f, 0xbff9b801b2eac638, 0xc542278dd449b9f3, 0xab4cee4cbab74a01],
    [0xb3e718bf9cc34305, 0x25c925ca63182221, 0xed6401586abe7411, 0xfb4e009f3c4d287e, 0x888f1fa771902f46, 0x205c9f93ccd8b7a1, 0x0abbe5bdb4cc107b, 0x5286ce093a86feb3, 0x4ce0d17c21e2abd5],
];

/// Asserts that `backend` reproduces [`EXPECTED`] at every set, naming each mismatch.
pub fn check<B: BfvBackend>(backend: B)
where
    B::Error: std::fmt::Debug,
{
    let names: Vec<&str> = SETS.iter().map(|set| set.name).collect();
    let got: Vec<_> = SETS.iter().map(|set| hashes(backend.clone(), set)).collect();
    hegpu_test_support::golden::check_table(&names, &OBJECTS, &got, &EXPECTED);
}
