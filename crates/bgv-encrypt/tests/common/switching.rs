//! BFV twins of BGV parameters (the tests that compare the schemes).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use bgv_encrypt::BgvParameters;

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
