//! Test bodies of scheme switching, generic over the backend (the CPU tests and the GPU tests
//! run them).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use bgv_encrypt::{BatchEncoder, BgvBackend, BgvContext, BgvParameters, BgvParametersBuilder, GaloisKeys, RelinKey};
use poly::Seed;
use rand::SeedableRng;
use rand::rngs::StdRng;
use scheme_switching::SchemeSwitching;

pub use hegpu_test_support::slots::{add_mod, mul_mod, random_slots, rotate_rows_left, slot_op};

pub fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// Small parameters: `N = 2^log_n`, ciphertext primes of `bits`, special primes of `special`, `t`.
pub fn small_params(log_n: u32, bits: &[u32], special: &[u32], t: u64) -> Arc<BgvParameters> {
    BgvParametersBuilder::new(1 << log_n)
        .ciphertext_moduli_bits(bits)
        .special_moduli_bits(special)
        .plaintext_modulus(t)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// BFV parameters over the ring of `params` (its primes and transform) with its `t`.
pub fn bfv_twin(params: &BgvParameters) -> Arc<bfv::BfvParameters> {
    bfv::BfvParametersBuilder::new(params.degree())
        .ciphertext_moduli(params.ciphertext_moduli())
        .special_moduli(params.special_moduli())
        .plaintext_modulus(params.plaintext_modulus())
        .transform(params.transform())
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// A BGV context's keys from fixed seeds.
pub struct Keys<B: BgvBackend> {
    pub secret: bgv_encrypt::SecretKey<B>,
    pub public: bgv_encrypt::PublicKey<B>,
    pub relin: RelinKey<B>,
    pub galois: GaloisKeys<B>,
}

pub fn keys<B: BgvBackend>(context: &BgvContext<B>) -> Keys<B> {
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let galois =
        context.galois_keys_from_seed(&secret, &[context.galois_element_for_row_rotation(1)], &seed(4)).unwrap();
    Keys { secret, public, relin, galois }
}

/// (1) BFV: `x * y + z`, switch to BGV, then `* w` with a BGV relinearization key and a
/// rotation; (2) BGV: `x * y`, mod-switched down once, switch to BFV, then `+ z` and decrypt in
/// BFV; (3) a BFV ciphertext below the top level switches too. Every result decrypts to the
/// slot-wise plaintext result under the one secret key.
pub fn bfv_bgv_round_trips<B: bfv::BfvBackend + BgvBackend>(backend: B, rng_seed: u64) {
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

/// Switched ciphertexts from fixed seeds, downloaded: a BGV product switched to BFV (below the
/// top level) and back, and a BFV product switched to BGV. The GPU test compares them with the
/// CPU's, word for word.
pub fn switching_session<B: bfv::BfvBackend + BgvBackend>(backend: B, params: &Arc<BgvParameters>) -> Vec<Vec<u64>> {
    let bgv = BgvContext::new(backend.clone(), params).unwrap();
    let bfv_context = bfv::BfvContext::new(backend, &bfv_twin(params)).unwrap();
    let k = keys(&bgv);
    let bfv_public = bfv_context.public_key_from_seed(&k.secret, &seed(40)).unwrap();
    let bfv_relin = bfv_context.relin_key_from_seed(&k.secret, &seed(41)).unwrap();
    let encoder = bgv_encrypt::CoefficientEncoder::new(params);
    let t = params.plaintext_modulus();
    let values: Vec<u64> = (0..params.degree() as u64).map(|i| (i * 31 + 5) % t).collect();
    let plain = encoder.encode(&values).unwrap();
    let gx = bgv.encrypt_with_seed(&plain, &k.public, &seed(5)).unwrap();
    let product = bgv.mod_switch_to_next(&bgv.mul_relin(&gx, &gx, &k.relin).unwrap()).unwrap();
    let to_bfv = bgv.to_bfv(&bfv_context, &product).unwrap();
    let back = bgv.from_bfv(&bfv_context, &to_bfv).unwrap();
    let bfv_plain = bfv::CoefficientEncoder::new(bfv_context.params()).encode(&values).unwrap();
    let bx = bfv_context.encrypt_with_seed(&bfv_plain, &bfv_public, &seed(6)).unwrap();
    let from_bfv = bgv.from_bfv(&bfv_context, &bfv_context.mul_relin(&bx, &bx, &bfv_relin).unwrap()).unwrap();
    let mut out = Vec::new();
    for p in bfv_context.download(&to_bfv).unwrap() {
        out.push(p.into_vec());
    }
    for ct in [&back, &from_bfv] {
        out.push(vec![ct.level() as u64, ct.state().correction_factor()]);
        for p in bgv.download(ct).unwrap() {
            out.push(p.into_vec());
        }
        out.push(bgv.decrypt(ct, &k.secret).unwrap().coefficients().to_vec());
    }
    out
}

/// One circuit, either scheme: `((x * y + z) rotated left by one) * w + x` with `w` a
/// plaintext, then one level down, evaluated through [`rlwe::Evaluator`] alone (keys from the
/// scheme's core, fixed seeds), checked slot by slot against plaintext arithmetic. Returns the
/// decrypted slots.
pub fn one_circuit<B: rlwe::RlweBackend, S: rlwe::Evaluator<B>>(scheme: &S, t: u64, rng_seed: u64) -> Vec<u64> {
    use rlwe::SlotEncoding;

    let core = scheme.core();
    let secret = core.secret_key_from_seed(&seed(11)).unwrap();
    let public = core.public_key_from_seed(&secret, &seed(12)).unwrap();
    let relin = core.relinearization_key_from_seed(&secret, &seed(13)).unwrap();
    let rotation = rlwe::galois_key::galois_element_for_row_rotation(core.params().degree(), 1);
    let galois = core.galois_keys_from_seed(&secret, &[rotation], &seed(14)).unwrap();
    let encoder = scheme.batch_encoder().unwrap();
    let n = encoder.slot_count();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let [x, y, z, w] = [(); 4].map(|_| random_slots(&mut rng, n, t));
    let encrypt = |values: &[u64]| scheme.encrypt(&encoder.encode_slots(values).unwrap(), &public).unwrap();
    let (cx, cy, cz) = (encrypt(&x), encrypt(&y), encrypt(&z));
    let xy_z = scheme.add(&scheme.mul_relin(&cx, &cy, &relin).unwrap(), &cz).unwrap();
    let rotated = scheme.rotate_rows(&xy_z, 1, &galois).unwrap();
    let times_w = scheme.mul_plain(&rotated, &encoder.encode_slots(&w).unwrap()).unwrap();
    let result = scheme.mod_switch_to_next(&scheme.add(&times_w, &cx).unwrap()).unwrap();
    // One level down, or two under BGV's automatic switching (the product by a general
    // plaintext switches the product it multiplies down first).
    let drop = scheme.level(&cx) - scheme.level(&result);
    assert!(drop == 1 || drop == 2, "dropped {drop} levels");
    let want_xy_z = slot_op(&slot_op(&x, &y, t, mul_mod), &z, t, add_mod);
    let want = slot_op(&slot_op(&rotate_rows_left(&want_xy_z), &w, t, mul_mod), &x, t, add_mod);
    assert!(scheme.noise_budget(&result, &secret).unwrap() > 0);
    let got = encoder.decode_slots(&scheme.decrypt(&result, &secret).unwrap()).unwrap();
    assert_eq!(got, want);
    got
}
