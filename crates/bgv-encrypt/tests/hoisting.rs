//! Hoisted rotations (`rotate_rows_many`, `rlwe::hoisting`) beyond the API session: hybrid
//! digits of several primes, below the top level, and automorphisms over `Phi_m` through the
//! core, where hoisting gives another valid lift (other words, the same message).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BatchEncoder, BgvContext};
use common::{phi_m, seed, small_params};
use poly::{Backend, CpuBackend};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn words<B: Backend>(backend: &B, polys: &[B::Poly<poly::Eval>]) -> Vec<Vec<u64>> {
    polys.iter().map(|p| backend.download(p).unwrap().as_slice().to_vec()).collect()
}

/// BGV with digits of two primes (4 ciphertext primes, 2 special), at the top and one level
/// down; BFV with the same moduli: every hoisted rotation has the words of the plain one.
#[test]
fn hoisted_rotations_equal_plain_ones_with_hybrid_digits_and_below_the_top() {
    let params = small_params(12, &[50, 45, 45, 45], &[50, 50], 65537);
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let core = context.core();
    let keys = core.rotation_keys_from_seed(&secret, &[1, 2, 8, -1], true, &seed(3)).unwrap();
    let encoder = BatchEncoder::new(&params).unwrap();
    let mut rng = StdRng::seed_from_u64(4);
    let x: Vec<u64> = (0..params.degree()).map(|_| rng.gen_range(0..65537)).collect();
    let top = context.encrypt(&encoder.encode(&x).unwrap(), &public).unwrap();
    let low = context.mod_switch_to_next(&top).unwrap();
    let steps = [1, 2, 3, 8, -1, 11, 0];
    for ct in [&top, &low] {
        let many = context.rotate_rows_many(ct, &steps, &keys).unwrap();
        for (rotated, &step) in many.iter().zip(&steps) {
            let plain = context.rotate_rows(ct, step, &keys).unwrap();
            let what = format!("level {}, step {step}", ct.level());
            assert_eq!(words(&CpuBackend, rotated.polys()), words(&CpuBackend, plain.polys()), "{what}");
            assert_eq!(rotated.state(), plain.state(), "{what}");
            let got = encoder.decode(&context.decrypt(rotated, &secret).unwrap()).unwrap();
            assert_eq!(got, common::api::rotate_rows_by(&x, step), "{what}");
        }
    }

    let bfv_params = common::switching::bfv_twin(&params);
    let bfv = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
    let bfv_secret = bfv.secret_key_from_seed(&seed(1)).unwrap();
    let bfv_public = bfv.public_key_from_seed(&bfv_secret, &seed(2)).unwrap();
    let bfv_keys = bfv.core().rotation_keys_from_seed(&bfv_secret, &[1, 2, 8, -1], true, &seed(3)).unwrap();
    let bfv_encoder = bfv::BatchEncoder::new(&bfv_params).unwrap();
    let ct = bfv.encrypt(&bfv_encoder.encode(&x).unwrap(), &bfv_public).unwrap();
    for (rotated, &step) in bfv.rotate_rows_many(&ct, &steps, &bfv_keys).unwrap().iter().zip(&steps) {
        let plain = bfv.rotate_rows(&ct, step, &bfv_keys).unwrap();
        let (a, b): (Vec<_>, Vec<_>) = (
            rotated.polys().iter().map(|p| p.as_slice().to_vec()).collect(),
            plain.polys().iter().map(|p| p.as_slice().to_vec()).collect(),
        );
        assert_eq!(a, b, "BFV step {step}");
    }
}

/// Over `Phi_m` (m = 1705, phi = 1200) the core's hoisted automorphisms decrypt to the
/// automorphism of the message for several units `g`; over `x^N + 1` with the NTT and the DGT
/// too (the DGT permutes between its transforms).
#[test]
fn hoisted_automorphisms_decrypt_right_on_every_ring_and_transform() {
    let ring = phi_m::PlainRing::new(1705, 257);
    let params = phi_m::params(1705, &[55, 50, 50], &[56], 257);
    common::hoisting::hoisted_automorphisms(CpuBackend, &params, &[2, 4, 16, 1704], |a, g| ring.automorphism(a, g));
    for transform in [poly::TransformKind::Ntt, poly::TransformKind::Dgt] {
        let builder = bgv_encrypt::BgvParametersBuilder::new(1 << 12).transform(transform);
        let params = common::with_moduli(builder, &[50, 45, 45], &[50, 50], 65537);
        common::hoisting::hoisted_automorphisms(CpuBackend, &params, &[3, 9, 8191, 25], |a, g| {
            common::hoisting::negacyclic_automorphism(a, g, 65537)
        });
    }
}
