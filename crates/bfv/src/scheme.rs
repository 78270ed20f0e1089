//! Key generation, encryption, decryption and the noise budget.

use std::sync::Arc;

use num_bigint::BigUint;
use num_traits::Zero;
use poly::{Coeff, Eval, Representation, Seed};

use crate::backend::BfvBackend;
use crate::context::{
    BackendResult, BfvContext, Ciphertext, EvalPair, PublicKey, RelinKey, SecretKey, SeededCiphertext,
};
use crate::resident::PlaintextOperand;
use crate::{BfvError, Plaintext, Result};

/// `c_0` of a ciphertext and `c_1 s + ... + c_k s^k` in the evaluation representation.
type PhaseParts<'a, B> = (&'a <B as poly::Backend>::Poly<Coeff>, <B as poly::Backend>::Poly<Eval>);

/// A polynomial derived from the secret key (`s^2`, `s(x^g)`, their gadget multiples),
/// overwritten with zeros by [`zeroize`](Self::zeroize), which reports a failure, or, on an
/// early return, when dropped.
pub(crate) struct SecretScratch<'a, B: BfvBackend, R: Representation> {
    backend: &'a B,
    poly: B::Poly<R>,
    cleared: bool,
}

impl<'a, B: BfvBackend, R: Representation> SecretScratch<'a, B, R> {
    pub(crate) fn new(backend: &'a B, poly: B::Poly<R>) -> Self {
        Self { backend, poly, cleared: false }
    }

    pub(crate) fn poly(&self) -> &B::Poly<R> {
        &self.poly
    }

    /// Overwrites the polynomial with zeros now.
    pub(crate) fn zeroize(mut self) -> Result<()> {
        let result = self.backend.zeroize(&mut self.poly);
        self.cleared = result.is_ok();
        result
    }
}

impl<B: BfvBackend, R: Representation> Drop for SecretScratch<'_, B, R> {
    fn drop(&mut self) {
        if !self.cleared {
            // An error path reports its own error; a failing device is beyond help here.
            let _ = self.backend.zeroize(&mut self.poly);
        }
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// A secret key from a fresh OS seed.
    pub fn generate_secret_key(&self) -> Result<SecretKey<B>> {
        self.secret_key_from_seed(&Seed::from_os()?)
    }

    /// The secret key of `seed`: the ternary polynomial of `(seed, 0)`.
    pub fn secret_key_from_seed(&self, seed: &Seed) -> Result<SecretKey<B>> {
        let backend = &self.backend;
        let s_q = backend.forward(backend.sample_ternary(&self.ring_q, seed, 0).be()?).be()?;
        let s_qp = backend.forward(backend.sample_ternary(&self.ring_qp, seed, 0).be()?).be()?;
        Ok(SecretKey { params: Arc::clone(&self.params), backend: backend.clone(), s_q, s_qp })
    }

    /// A public key for `secret` from a fresh OS seed.
    pub fn generate_public_key(&self, secret: &SecretKey<B>) -> Result<PublicKey<B>> {
        self.public_key_from_seed(secret, &Seed::from_os()?)
    }

    /// The public key `(b, a) = (-(a s + e), a)` with `a` uniform (index 0, sampled directly
    /// in the evaluation representation) and `e` binomial (index 0) from `seed`.
    pub fn public_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<PublicKey<B>> {
        self.check(&secret.params, "secret key")?;
        let backend = &self.backend;
        let a: B::Poly<Eval> = backend.sample_uniform(&self.ring_q, seed, 0).be()?;
        let e = backend.forward(backend.sample_cbd(&self.ring_q, seed, 0).be()?).be()?;
        let mut b = backend.mul(&a, &secret.s_q).be()?;
        backend.add_assign(&mut b, &e).be()?;
        backend.neg_assign(&mut b).be()?;
        Ok(PublicKey { params: Arc::clone(&self.params), b, a })
    }

    /// A relinearization key for `secret` from a fresh OS seed.
    pub fn generate_relin_key(&self, secret: &SecretKey<B>) -> Result<RelinKey<B>> {
        self.relin_key_from_seed(secret, &Seed::from_os()?)
    }

    /// The relinearization key: for digit `j`, `(b_j, a_j) = (-(a_j s + e_j) + g_j s^2, a_j)`
    /// over `qP` with `a_j` uniform (index `j`) and `e_j` binomial (index `j`) from `seed`.
    pub fn relin_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<RelinKey<B>> {
        self.check(&secret.params, "secret key")?;
        let s_squared = SecretScratch::new(&self.backend, self.backend.mul(&secret.s_qp, &secret.s_qp).be()?);
        let digits = self.key_switching_key(secret, s_squared.poly(), seed, 0)?;
        s_squared.zeroize()?;
        Ok(RelinKey { params: Arc::clone(&self.params), digits })
    }

    /// A key-switching key from `target` (a function of the secret over `qP`, evaluation
    /// representation: `s^2` for relinearization, `s(x^g)` for a Galois key) to `s`: for digit
    /// `j`, `(b_j, a_j) = (-(a_j s + e_j) + g_j target, a_j)` over `qP`, with `a_j` uniform
    /// (sampled directly in the evaluation representation) and `e_j` binomial, both of index
    /// `first_index + j` from `seed`. The caller checks that `secret` belongs to this context.
    pub(crate) fn key_switching_key(
        &self,
        secret: &SecretKey<B>,
        target: &B::Poly<Eval>,
        seed: &Seed,
        first_index: u64,
    ) -> Result<Vec<EvalPair<B>>> {
        let backend = &self.backend;
        let mut digits = Vec::with_capacity(self.gadgets.len());
        for (j, gadget) in self.gadgets.iter().enumerate() {
            let index = first_index + j as u64;
            let a: B::Poly<Eval> = backend.sample_uniform(&self.ring_qp, seed, index).be()?;
            let e = backend.forward(backend.sample_cbd(&self.ring_qp, seed, index).be()?).be()?;
            let mut b = backend.mul(&a, &secret.s_qp).be()?;
            backend.add_assign(&mut b, &e).be()?;
            backend.neg_assign(&mut b).be()?;
            let scaled_target = SecretScratch::new(backend, backend.scalar_mul_per_limb(target, gadget).be()?);
            backend.add_assign(&mut b, scaled_target.poly()).be()?;
            scaled_target.zeroize()?;
            digits.push((b, a));
        }
        Ok(digits)
    }

    /// Encrypts `plaintext` under `public_key` with a fresh OS seed.
    pub fn encrypt(&self, plaintext: &impl PlaintextOperand<B>, public_key: &PublicKey<B>) -> Result<Ciphertext<B>> {
        self.encrypt_with_seed(plaintext, public_key, &Seed::from_os()?)
    }

    /// Public-key encryption with the randomness of `seed` (keep it secret):
    /// `(c_0, c_1) = (b u + e_1 + round(q m / t), a u + e_2)` with `u` ternary (index 0),
    /// `e_1`, `e_2` binomial (indices 0 and 1).
    pub fn encrypt_with_seed(
        &self,
        plaintext: &impl PlaintextOperand<B>,
        public_key: &PublicKey<B>,
        seed: &Seed,
    ) -> Result<Ciphertext<B>> {
        self.check(plaintext.params(), "plaintext")?;
        self.check(&public_key.params, "public key")?;
        let scaled = plaintext.scaled_on(self)?;
        let backend = &self.backend;
        let u = backend.forward(backend.sample_ternary(&self.ring_q, seed, 0).be()?).be()?;
        let mut c0 = backend.inverse(backend.mul(&public_key.b, &u).be()?).be()?;
        backend.add_assign(&mut c0, &backend.sample_cbd(&self.ring_q, seed, 0).be()?).be()?;
        backend.add_assign(&mut c0, &scaled).be()?;
        let mut c1 = backend.inverse(backend.mul(&public_key.a, &u).be()?).be()?;
        backend.add_assign(&mut c1, &backend.sample_cbd(&self.ring_q, seed, 1).be()?).be()?;
        Ok(Ciphertext { params: Arc::clone(&self.params), polys: vec![c0, c1] })
    }

    /// Encrypts `plaintext` under the secret key with fresh OS seeds.
    pub fn encrypt_symmetric(
        &self,
        plaintext: &impl PlaintextOperand<B>,
        secret: &SecretKey<B>,
    ) -> Result<SeededCiphertext<B>> {
        self.encrypt_symmetric_with_seeds(plaintext, secret, &Seed::from_os()?, &Seed::from_os()?)
    }

    /// Secret-key encryption: `(c_0, c_1) = (round(q m / t) + e - a s, a)` with `a` uniform
    /// from `public_seed` (index 0, coefficient representation) and `e` binomial from
    /// `error_seed` (index 0; keep it secret). The result carries `c_0` and `public_seed`
    /// only; [`BfvContext::expand`] regenerates `a`.
    pub fn encrypt_symmetric_with_seeds(
        &self,
        plaintext: &impl PlaintextOperand<B>,
        secret: &SecretKey<B>,
        public_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<SeededCiphertext<B>> {
        self.check(plaintext.params(), "plaintext")?;
        self.check(&secret.params, "secret key")?;
        let backend = &self.backend;
        let a: B::Poly<Coeff> = backend.sample_uniform(&self.ring_q, public_seed, 0).be()?;
        let a_eval = backend.forward(a).be()?;
        let a_s = backend.inverse_of_product(a_eval, &secret.s_q)?;
        let mut c0 = plaintext.scaled_on(self)?;
        backend.add_assign(&mut c0, &backend.sample_cbd(&self.ring_q, error_seed, 0).be()?).be()?;
        backend.sub_assign(&mut c0, &a_s).be()?;
        Ok(SeededCiphertext { params: Arc::clone(&self.params), c0, public_seed: public_seed.clone() })
    }

    /// `(c_0, v)` with `v = c_1 + c_2 s + ... + c_k s^(k-1)` over `q` in the evaluation
    /// representation (Horner): the phase is `c_0 + v s`.
    pub(crate) fn phase_parts<'a>(
        &self,
        ciphertext: &'a Ciphertext<B>,
        secret: &SecretKey<B>,
    ) -> Result<PhaseParts<'a, B>> {
        self.check(&ciphertext.params, "ciphertext")?;
        self.check(&secret.params, "secret key")?;
        let polys = &ciphertext.polys;
        let backend = &self.backend;
        let size_error =
            || BfvError::InvalidCiphertextSize { operation: "decryption", expected: "at least 2", actual: polys.len() };
        let (c0, rest) = match polys.split_first() {
            Some((c0, rest)) if !rest.is_empty() => (c0, rest),
            _ => return Err(size_error()),
        };
        // Horner in the evaluation domain: (c_k s + c_{k-1}) s + ... + c_1.
        let mut acc: Option<B::Poly<Eval>> = None;
        for c in rest.iter().rev() {
            let c_eval = backend.forward_copy(c)?;
            acc = Some(match acc {
                None => c_eval,
                Some(mut value) => {
                    backend.mul_assign(&mut value, &secret.s_q).be()?;
                    backend.add_assign(&mut value, &c_eval).be()?;
                    value
                }
            });
        }
        Ok((c0, acc.ok_or_else(size_error)?))
    }

    /// `[c_0 + c_1 s + ... + c_k s^k]_q` over `q`, coefficient representation, on the backend.
    fn phase(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<B::Poly<Coeff>> {
        let (c0, value) = self.phase_parts(ciphertext, secret)?;
        let mut phase = self.backend.inverse_of_product(value, &secret.s_q)?;
        self.backend.add_assign(&mut phase, c0).be()?;
        Ok(phase)
    }

    /// Decrypts: `m = round(t [c_0 + c_1 s + ...]_q / q) mod t` by the variant's RNS
    /// scale-and-round (HPS: fixed point into `Z_t`; BEHZ: with `gamma`). Accepts any
    /// ciphertext size `>= 2`. A ciphertext whose noise budget is exhausted decrypts to
    /// garbage without an error: ask [`noise_budget`](Self::noise_budget).
    pub fn decrypt(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<Plaintext> {
        let (c0, value) = self.phase_parts(ciphertext, secret)?;
        let coefficients =
            self.backend.decrypt_scale_sum(self.params.multiplication_tables(), c0, value, &secret.s_q)?;
        Plaintext::from_reduced_coefficients(&self.params, coefficients)
    }

    /// The invariant noise budget in bits, exactly (big integers, on the host):
    ///
    /// `budget = floor(log2(q / (2 ||w||)))`, `w = [t (c_0 + c_1 s + ... + c_k s^k)]_q`
    /// (centered, infinity norm), as SEAL's invariant noise budget. `w / q` is the invariant
    /// noise `v` of `t/q (c_0 + c_1 s + ...) = m + v + t r`, and decryption is correct while
    /// `||v|| < 1/2`; each bit of budget halves the noise that is left to spend. For `w = 0`
    /// the budget is `floor(log2 q)`.
    ///
    /// Errors with [`BfvError::NoiseBudgetExhausted`] when the budget is 0 (`||v|| > 1/4`):
    /// decryption is no longer reliable. Since `w` is reduced modulo `q`, a ciphertext whose
    /// noise has wrapped past `q/2` also lands there (its `w` looks uniform, with norm close
    /// to `q/2`).
    pub fn noise_budget(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<u32> {
        let phase = self.backend.download(&self.phase(ciphertext, secret)?).be()?;
        let base = self.params.key_switch_tables().q();
        let q = base.product();
        let half_q = q >> 1u32;
        let t = self.params.plaintext_modulus();
        let mut norm = BigUint::zero();
        for x in base.reconstruct_poly(phase.as_slice())? {
            let w = (x * t) % q;
            let magnitude = if w > half_q { q - w } else { w };
            if magnitude > norm {
                norm = magnitude;
            }
        }
        let budget = budget_bits(q, &norm);
        if budget == 0 {
            return Err(BfvError::NoiseBudgetExhausted { noise_bits: norm.bits(), modulus_bits: q.bits() });
        }
        Ok(budget)
    }
}

/// `floor(log2(q / (2 norm)))` for `0 < 2 norm <= q`, and `floor(log2 q)` for `norm = 0`.
pub(crate) fn budget_bits(q: &BigUint, norm: &BigUint) -> u32 {
    let twice: BigUint = if norm.is_zero() { BigUint::from(1u8) } else { norm << 1u32 };
    if &twice > q {
        return 0;
    }
    // The largest b with twice * 2^b <= q; start from the bit-length estimate and adjust.
    let mut b = q.bits().saturating_sub(twice.bits());
    while b > 0 && (&twice << b) > *q {
        b -= 1;
    }
    while (&twice << (b + 1)) <= *q {
        b += 1;
    }
    b as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn budget_bits_is_floor_log2_of_q_over_twice_the_norm() {
        let q = BigUint::from(1000u32);
        let cases = [(0u32, 9u32), (1, 8), (2, 7), (250, 1), (251, 0), (499, 0), (31, 4), (32, 3)];
        for (norm, expected) in cases {
            assert_eq!(budget_bits(&q, &BigUint::from(norm)), expected, "norm {norm}");
        }
        // Against the definition on a large modulus.
        let q = BigUint::from(3u32).pow(200);
        for shift in [0u32, 1, 100, 250, 300, 312] {
            let norm = BigUint::from(7u32) << shift;
            let b = budget_bits(&q, &norm);
            assert!((&norm << (b + 1)) <= q && (&norm << (b + 2)) > q, "shift {shift}");
        }
        // 2 * 7 * 2^315 > 3^200: nothing left.
        assert_eq!(budget_bits(&q, &(BigUint::from(7u32) << 315u32)), 0);
    }
}
