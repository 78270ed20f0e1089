//! Bootstrapping's first step under BFV (`BfvContext::raise_for_bootstrapping`) on any
//! backend: a ciphertext of `t = 3^2` after a product (its noise grown) raised with the
//! bootstrapping key to `3^8`: every coefficient decrypts to `3^6 m + d` with `|d|` below
//! `3^6 / 2`, against the message; bad targets refused. Used by `raise.rs` (CPU) and `gpu.rs`
//! (the GPU's words against the CPU's).

use bfv::{BfvBackend, BfvContext, BfvError, BfvParameters, BfvParametersBuilder, MulVariant, Plaintext};
use poly::{Coeff, Poly, Seed};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// Raises a ciphertext and checks every coefficient; returns the raised ciphertext's
/// polynomials and the largest `|d|`.
pub fn raised_with_the_key<B: BfvBackend>(backend: B, variant: MulVariant) -> (Vec<Poly<Coeff>>, u64) {
    let (p, t, t_top) = (3u64, 9u64, 3u64.pow(8));
    let low = t_top / t;
    let params = BfvParametersBuilder::new(4096)
        .ciphertext_moduli_bits(&[55, 55, 55, 55])
        .special_moduli_bits(&[58])
        .plaintext_modulus(t)
        .variant(variant)
        .allow_insecure(true)
        .build()
        .unwrap();
    let top_params = BfvParameters::from_core(params.core(), t_top, variant).unwrap();
    let context = BfvContext::new(backend.clone(), &params).unwrap();
    let top = BfvContext::new(backend.clone(), &top_params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(13);
    let mut random = || -> Vec<u64> { (0..n).map(|_| rng.gen_range(0..t)).collect() };
    let (x, y) = (random(), random());
    let encrypt = |m: &[u64], byte| {
        context.encrypt_with_seed(&Plaintext::from_coefficients(&params, m).unwrap(), &public, &seed(byte)).unwrap()
    };
    let product = context.mul_relin(&encrypt(&x, 4), &encrypt(&y, 5), &relin).unwrap();
    let m = context.decrypt(&product, &secret).unwrap().coefficients().to_vec();

    let key = top.bootstrapping_key_from_seed(&secret, &public, &seed(6)).unwrap();
    let raised = context.raise_for_bootstrapping(&product, &top, &key, p).unwrap();
    let got = top.decrypt(&raised, &secret).unwrap();
    let mut largest = 0u64;
    for (j, (&word, &message)) in got.coefficients().iter().zip(&m).enumerate() {
        // word = 3^6 m + d (mod 3^8): d centered.
        let d = (word + t_top - low * message % t_top) % t_top;
        let d_abs = d.min(t_top - d);
        assert!(d_abs < low / 2, "{variant:?}, coefficient {j}: |d| = {d_abs}, not below 3^6 / 2");
        largest = largest.max(d_abs);
    }

    // The target must be a larger power of p over the same core.
    assert!(matches!(
        context.raise_for_bootstrapping(&product, &context, &key, p),
        Err(BfvError::InvalidParameter { .. })
    ));
    assert!(matches!(context.raise_for_bootstrapping(&product, &top, &key, 2), Err(BfvError::InvalidParameter { .. })));
    let other_params = BfvParametersBuilder::new(4096)
        .ciphertext_moduli_bits(&[55, 55, 55])
        .special_moduli_bits(&[58])
        .plaintext_modulus(t_top)
        .variant(variant)
        .allow_insecure(true)
        .build()
        .unwrap();
    let other_core = BfvContext::new(backend, &other_params).unwrap();
    assert!(matches!(
        context.raise_for_bootstrapping(&product, &other_core, &key, p),
        Err(BfvError::ParameterMismatch { .. })
    ));
    (top.download(&raised).unwrap(), largest)
}
