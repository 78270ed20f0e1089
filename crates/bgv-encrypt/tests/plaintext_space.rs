//! Division of the plaintext space (`BgvContext::divide_plaintext_space`, bootstrapping's
//! division by `p`): a ciphertext of `d m` under `t` becomes one of `m` under `t / d`, after
//! products, scalars and modulus switching (correction factors other than 1), in coefficient
//! and slot encodings; one step of digit extraction on extension-field slots (the lowest
//! digit removed by its polynomial, then the division: the slots' next digits); bad targets
//! refused. BFV's division (a reinterpretation of the same polynomials) after scalars and sums.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::{BgvContext, BgvError, BgvParameters, Plaintext};
use poly::CpuBackend;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

#[test]
fn division_by_p_after_products_and_modulus_switching() {
    let (p, t) = (17u64, 17u64.pow(3));
    let params = common::small_params(12, &[55, 55, 55, 55], &[58], t);
    let target_params = BgvParameters::from_core(params.core(), t / p).unwrap();
    let context = BgvContext::new(CpuBackend, &params).unwrap();
    let target = BgvContext::new(CpuBackend, &target_params).unwrap();
    let keys = common::keys(&context);
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(1);
    // m = p x and a constant c: (m * c) mod t is p (x c) mod t.
    let x: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t / p)).collect();
    let m: Vec<u64> = x.iter().map(|&v| v * p % t).collect();
    let ct = context
        .encrypt_with_seed(&Plaintext::from_coefficients(&params, &m).unwrap(), &keys.public, &common::seed(9))
        .unwrap();
    let c = rng.gen_range(1..t);
    let scaled = context.mul_scalar(&ct, c).unwrap();
    let switched = context.mod_switch_to_next(&scaled).unwrap();
    assert_ne!(switched.state().correction_factor(), 1, "modulus switching left no correction factor");
    for (label, input, factor) in [("fresh", &ct, 1u64), ("scaled and switched", &switched, c)] {
        let divided = context.divide_plaintext_space(input, &target).unwrap();
        assert_eq!(divided.level(), input.level());
        let got = target.decrypt(&divided, &keys.secret).unwrap();
        let want: Vec<u64> = x.iter().map(|&v| v * factor % (t / p)).collect();
        assert_eq!(got.coefficients(), &want[..], "{label}");
        // The noise estimate shrinks by p with the phase.
        assert!(divided.state().estimated_noise_bits() < input.state().estimated_noise_bits() - 4.0);
    }
    // A target that does not divide t, or of another core, is refused.
    let other_t = BgvContext::new(CpuBackend, &BgvParameters::from_core(params.core(), 13 * 13).unwrap()).unwrap();
    assert!(matches!(context.divide_plaintext_space(&ct, &other_t), Err(BgvError::InvalidParameter { .. })));
    assert!(matches!(context.divide_plaintext_space(&ct, &context), Err(BgvError::InvalidParameter { .. })));
    let other_core = BgvContext::new(CpuBackend, &common::small_params(12, &[55, 55, 55], &[58], t / p)).unwrap();
    assert!(matches!(context.divide_plaintext_space(&ct, &other_core), Err(BgvError::ParameterMismatch { .. })));
}

/// One step of digit extraction: slots holding constants `y` of `Z_{2^8}` (over `Phi_1705`),
/// the lowest digit removed by its polynomial (`y - F(y)`, a multiple of 2), then divided by
/// 2 into `Z_{2^7}`: every slot holds `floor(y / 2)`.
#[test]
fn one_digit_removed_and_divided_out_on_extension_field_slots() {
    common::extension::digit_step_on_constant_slots(CpuBackend, 1);
}

#[test]
fn bfv_division_by_p_after_scalars_and_sums() {
    let (p, t) = (17u64, 17u64.pow(3));
    let bgv = common::small_params(12, &[55, 55, 55, 55], &[58], t);
    for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
        let params = bfv::BfvParameters::from_core(bgv.core(), t, variant).unwrap();
        let target_params = bfv::BfvParameters::from_core(bgv.core(), t / p, variant).unwrap();
        let context = bfv::BfvContext::new(CpuBackend, &params).unwrap();
        let target = bfv::BfvContext::new(CpuBackend, &target_params).unwrap();
        let secret = context.secret_key_from_seed(&common::seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &common::seed(2)).unwrap();
        let n = params.degree();
        let mut rng = StdRng::seed_from_u64(2);
        let x: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t / p)).collect();
        let y: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t / p)).collect();
        let encrypt = |v: &[u64], s: u8| {
            let m: Vec<u64> = v.iter().map(|&e| e * p % t).collect();
            let plain = bfv::Plaintext::from_coefficients(&params, &m).unwrap();
            context.encrypt_with_seed(&plain, &public, &common::seed(s)).unwrap()
        };
        let c = rng.gen_range(1..t);
        let combined = context.add(&context.mul_scalar(&encrypt(&x, 3), c).unwrap(), &encrypt(&y, 4)).unwrap();
        let divided = context.divide_plaintext_space(&combined, &target).unwrap();
        let got = target.decrypt(&divided, &secret).unwrap();
        let want: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| (a * c + b) % (t / p)).collect();
        assert_eq!(got.coefficients(), &want[..], "{variant:?}");
        assert!(target.noise_budget(&divided, &secret).unwrap() > 0);
        let other =
            bfv::BfvContext::new(CpuBackend, &bfv::BfvParameters::from_core(bgv.core(), 13, variant).unwrap()).unwrap();
        assert!(matches!(context.divide_plaintext_space(&combined, &other), Err(BgvError::InvalidParameter { .. })));
    }
}

/// Three rounds of digit removal (`DigitRemoval`): `y` in `Z_{2^8}` to `floor(y / 8)` in
/// `Z_{2^5}` in every slot (`common::extension::digits_removed_from_constant_slots`).
#[test]
fn three_digits_removed_on_extension_field_slots() {
    common::extension::digits_removed_from_constant_slots(CpuBackend, 4);
}
