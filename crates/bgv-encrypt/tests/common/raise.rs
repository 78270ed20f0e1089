//! Bootstrapping's first step (`BgvContext::raise_for_bootstrapping`) on any backend: a
//! ciphertext of `t = 3^2` at the bottom of its chain (switched down, so with a correction
//! factor) raised to `3^8` at the top: every coefficient decrypts to `-3^6 (f' m mod 9) + d`
//! with `|d|` below `3^6 / 2`, against the message; bad targets refused. Used by `raise.rs`
//! (CPU) and `gpu_api.rs` (the GPU's words against the CPU's).

use bgv_encrypt::{BgvBackend, BgvContext, BgvError, BgvParameters, Plaintext};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

/// Raises a bottom-level ciphertext and checks every coefficient; returns the raised
/// ciphertext's words and the largest `|d|`.
pub fn raised_to_the_top<B: BgvBackend>(backend: B) -> (Vec<Vec<u64>>, u64) {
    let (p, t, t_top) = (3u64, 9u64, 3u64.pow(8));
    // Primes of 2 modulo t: switching down multiplies the correction factor by 2^-1 = 5 per
    // level, and q_0^-1 mod t enters the raised factor.
    let candidates = modarith::generate_ntt_primes(55, 2 << 12, 60, &[]).unwrap();
    let primes: Vec<u64> = candidates.iter().copied().filter(|q| q % t == 2).take(4).collect();
    assert_eq!(primes.len(), 4);
    let special = modarith::generate_ntt_primes(58, 2 << 12, 1, &primes).unwrap();
    let params = bgv_encrypt::BgvParametersBuilder::new(1 << 12)
        .ciphertext_moduli(&primes)
        .special_moduli(&special)
        .plaintext_modulus(t)
        .allow_insecure(true)
        .build()
        .unwrap();
    let top_params = BgvParameters::from_core(params.core(), t_top).unwrap();
    let context = BgvContext::new(backend.clone(), &params).unwrap();
    let top = BgvContext::new(backend.clone(), &top_params).unwrap();
    let keys = super::keys(&context);
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(11);
    let m: Vec<u64> = (0..n).map(|_| rng.gen_range(0..t)).collect();
    let fresh = context
        .encrypt_with_seed(&Plaintext::from_coefficients(&params, &m).unwrap(), &keys.public, &super::seed(12))
        .unwrap();
    // A scalar and the switches down leave a correction factor; the message is what the
    // bottom ciphertext decrypts to.
    let scaled = context.mul_scalar(&fresh, 5).unwrap();
    let bottom = context.mod_switch_to(&scaled, 0).unwrap();
    assert_ne!(bottom.state().correction_factor(), 1, "no correction factor to carry");
    let m = context.decrypt(&bottom, &keys.secret).unwrap().coefficients().to_vec();

    let raised = context.raise_for_bootstrapping(&bottom, &top, p).unwrap();
    // f' = f q' q_0^-1 mod t, q' = 1 mod t.
    let q_0 = params.core().ciphertext_moduli()[0] % t;
    let q_0_inverse = (1..t).find(|x| x * q_0 % t == 1).unwrap();
    assert_eq!(raised.factor, bottom.state().correction_factor() * q_0_inverse % t);
    assert_eq!((raised.modulus, raised.ciphertext.level()), (t_top + 1, top.top_level()));
    let got = top.decrypt(&raised.ciphertext, &keys.secret).unwrap();
    let largest = high_digits_hold(got.coefficients(), &m, raised.factor, t, t_top, "x^4096 + 1");

    // The target must be a larger power of p over the same core.
    let not_power = BgvContext::new(backend.clone(), &BgvParameters::from_core(params.core(), 2 * t_top).unwrap());
    if let Ok(not_power) = not_power {
        assert!(context.raise_for_bootstrapping(&bottom, &not_power, p).is_err());
    }
    assert!(matches!(context.raise_for_bootstrapping(&bottom, &context, p), Err(BgvError::InvalidParameter { .. })));
    assert!(matches!(context.raise_for_bootstrapping(&bottom, &top, 2), Err(BgvError::InvalidParameter { .. })));
    let other_core = BgvContext::new(backend, &super::small_params(12, &[55, 55, 55], &[58], t_top)).unwrap();
    assert!(matches!(
        context.raise_for_bootstrapping(&bottom, &other_core, p),
        Err(BgvError::ParameterMismatch { .. })
    ));
    let words = top.download(&raised.ciphertext).unwrap().iter().map(|poly| poly.as_slice().to_vec()).collect();
    (words, largest)
}

/// The same over `Phi_1705` (`phi = 1280`, HElib's kind of ring): a bottom-level ciphertext of
/// `t = 2^2` raised to `2^12`; every coefficient (power basis) is `-2^10 (f' m mod 4) + d` with
/// `|d|` below `2^9`. Returns the raised ciphertext's words and the largest `|d|`.
pub fn raised_over_phi_m<B: BgvBackend>(backend: B) -> (Vec<Vec<u64>>, u64) {
    let (p, t, t_top) = (2u64, 4u64, 1u64 << 12);
    let params = super::phi_m::params(1705, &[60, 50, 50, 50], &[60], t);
    let top_params = BgvParameters::from_core(params.core(), t_top).unwrap();
    let context = BgvContext::new(backend.clone(), &params).unwrap();
    let top = BgvContext::new(backend, &top_params).unwrap();
    let secret = context.secret_key_from_seed(&super::seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &super::seed(2)).unwrap();
    let phi = params.core().degree();
    let mut rng = StdRng::seed_from_u64(17);
    let m: Vec<u64> = (0..phi).map(|_| rng.gen_range(0..t)).collect();
    let fresh = context
        .encrypt_with_seed(&Plaintext::from_coefficients(&params, &m).unwrap(), &public, &super::seed(18))
        .unwrap();
    let bottom = context.mod_switch_to(&fresh, 0).unwrap();
    let m = context.decrypt(&bottom, &secret).unwrap().coefficients().to_vec();
    let raised = context.raise_for_bootstrapping(&bottom, &top, p).unwrap();
    let got = top.decrypt(&raised.ciphertext, &secret).unwrap();
    let largest = high_digits_hold(got.coefficients(), &m, raised.factor, t, t_top, "Phi_1705");
    let words = top.download(&raised.ciphertext).unwrap().iter().map(|poly| poly.as_slice().to_vec()).collect();
    (words, largest)
}

/// Checks that every coefficient `word` of a raised ciphertext's decryption (plaintext modulus
/// `t_top`) is `-(t_top / t) (factor m mod t) + d` with `|d|` below `t_top / t / 2`; returns the
/// largest `|d|`.
fn high_digits_hold(words: &[u64], m: &[u64], factor: u64, t: u64, t_top: u64, ring: &str) -> u64 {
    let low_digits = t_top / t;
    let mut largest = 0u64;
    for (j, (&word, &message)) in words.iter().zip(m).enumerate() {
        let high = factor * message % t;
        // d = word + low_digits high (mod t_top), centered.
        let d = (word + low_digits * high) % t_top;
        let d_abs = d.min(t_top - d);
        assert!(d_abs < low_digits / 2, "{ring}, coefficient {j}: |d| = {d_abs}, not below {}", low_digits / 2);
        largest = largest.max(d_abs);
    }
    largest
}
