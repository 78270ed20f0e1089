//! Scheme-switching test bodies, generic over the backend.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bgv_encrypt::{BatchEncoder, BgvBackend, BgvContext, BgvParameters};
use rand::SeedableRng;
use rand::rngs::StdRng;

use super::*;

/// BFV parameters over the ring of `params` (its primes and transform) with its `t`.
pub fn bfv_twin(params: &BgvParameters) -> std::sync::Arc<bfv::BfvParameters> {
    bfv::BfvParametersBuilder::new(params.degree())
        .ciphertext_moduli(params.ciphertext_moduli())
        .special_moduli(params.special_moduli())
        .plaintext_modulus(params.plaintext_modulus())
        .transform(params.transform())
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// (1) BFV: `x * y + z`, switch to BGV, then `* w` with a BGV relinearization key and a
/// rotation; (2) BGV: `x * y`, mod-switched down once, switch to BFV, then `+ z` and decrypt in
/// BFV; (3) a BFV ciphertext below the top level switches too. Every result decrypts to the
/// slot-wise plaintext result under the one secret key.
pub fn bfv_bgv_round_trips<B: BgvBackend>(backend: B, rng_seed: u64) {
    let params = small_params(12, &[55, 55, 55, 55], &[58], 65537);
    let t = params.plaintext_modulus();
    let bgv = BgvContext::new(backend.clone(), &params).unwrap();
    let bfv_params = bfv_twin(&params);
    let bfv_context = bfv::BfvContext::new(backend, &bfv_params).unwrap();
    let k = keys(&bgv);
    let bfv_public = bfv_context.public_key_from_seed(&k.secret, &seed(40)).unwrap();
    let bfv_relin = bfv_context.relin_key_from_seed(&k.secret, &seed(41)).unwrap();
    let bgv_encoder = BatchEncoder::new(&params).unwrap();
    let bfv_encoder = bfv::BatchEncoder::new(&bfv_params).unwrap();
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let [x, y, z, w] = [(); 4].map(|_| random_slots(&mut rng, n, t));

    // (1) BFV first.
    let bx = bfv_context.encrypt(&bfv_encoder.encode(&x).unwrap(), &bfv_public).unwrap();
    let by = bfv_context.encrypt(&bfv_encoder.encode(&y).unwrap(), &bfv_public).unwrap();
    let bz = bfv_context.encrypt(&bfv_encoder.encode(&z).unwrap(), &bfv_public).unwrap();
    let b_xy_z = bfv_context.add(&bfv_context.mul_relin(&bx, &by, &bfv_relin).unwrap(), &bz).unwrap();
    let switched = bgv.from_bfv(&bfv_context, &b_xy_z).unwrap();
    let want_xy_z = slot_op(&slot_op(&x, &y, t, mul_mod), &z, t, add_mod);
    assert_eq!(bgv_encoder.decode(&bgv.decrypt(&switched, &k.secret).unwrap()).unwrap(), want_xy_z);
    let gw = bgv.encrypt(&bgv_encoder.encode(&w).unwrap(), &k.public).unwrap();
    let product = bgv.mul_relin(&switched, &gw, &k.relin).unwrap();
    let rotated = bgv.rotate_rows(&product, 1, &k.galois).unwrap();
    let want = rotate_rows_left(&slot_op(&want_xy_z, &w, t, mul_mod));
    assert_eq!(bgv_encoder.decode(&bgv.decrypt(&rotated, &k.secret).unwrap()).unwrap(), want);

    // (2) BGV first, below the top level, then BFV.
    let gx = bgv.encrypt(&bgv_encoder.encode(&x).unwrap(), &k.public).unwrap();
    let gy = bgv.encrypt(&bgv_encoder.encode(&y).unwrap(), &k.public).unwrap();
    let g_xy = bgv.mod_switch_to_next(&bgv.mul_relin(&gx, &gy, &k.relin).unwrap()).unwrap();
    let back = bgv.to_bfv(&bfv_context, &g_xy).unwrap();
    assert_eq!(back.level(), g_xy.level());
    let bz_low = bfv_context.mod_switch_to(&bz, back.level()).unwrap();
    let sum = bfv_context.add(&back, &bz_low).unwrap();
    let got = bfv_encoder.decode(&bfv_context.decrypt(&sum, &k.secret).unwrap()).unwrap();
    assert_eq!(got, want_xy_z);

    // (3) A BFV ciphertext at a lower level, and the round trip BGV -> BFV -> BGV.
    let low = bfv_context.mod_switch_to(&bx, 1).unwrap();
    let g_low = bgv.from_bfv(&bfv_context, &low).unwrap();
    assert_eq!(g_low.level(), 1);
    assert_eq!(bgv_encoder.decode(&bgv.decrypt(&g_low, &k.secret).unwrap()).unwrap(), x);
    let again = bgv.from_bfv(&bfv_context, &bgv.to_bfv(&bfv_context, &gx).unwrap()).unwrap();
    assert_eq!(bgv_encoder.decode(&bgv.decrypt(&again, &k.secret).unwrap()).unwrap(), x);
}
