//! Polynomials over `Z_t` evaluated on ciphertexts (`Evaluator::evaluate_polynomial`,
//! Paterson-Stockmeyer) under BGV and BFV on the CPU, slot by slot against the plaintext
//! polynomial (bodies in `common/polynomial.rs`).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod common;

use bgv_encrypt::BgvContext;
use common::polynomial::polynomial_session;
use poly::CpuBackend;

/// Enough levels for degree 20 (six products deep) with BGV's modulus switching.
fn params() -> std::sync::Arc<bgv_encrypt::BgvParameters> {
    common::small_params(12, &[50, 50, 50, 50, 50, 50, 50, 50], &[58], 65537)
}

#[test]
fn bgv_polynomials_on_the_cpu() {
    let context = BgvContext::new(CpuBackend, &params()).unwrap();
    polynomial_session(&context, 1);
}

#[test]
fn bfv_polynomials_on_the_cpu() {
    for variant in [bfv::MulVariant::Hps, bfv::MulVariant::Behz] {
        let bfv_params = bfv::BfvParameters::from_core(params().core(), 65537, variant).unwrap();
        let context = bfv::BfvContext::new(CpuBackend, &bfv_params).unwrap();
        polynomial_session(&context, 2);
    }
}
