//! Key generation, encryption, decryption and the noise budget.

use num_bigint::BigUint;
use num_traits::Zero;
use poly::{Coeff, Eval, Seed};

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::levels::LevelSecret;
use crate::resident::PlaintextOperand;
use crate::{BfvError, Plaintext, Result};

/// `c_0` of a ciphertext and `c_1 s + ... + c_k s^k` in the evaluation representation.
type PhaseParts<'a, B> = (&'a <B as poly::Backend>::Poly<Coeff>, <B as poly::Backend>::Poly<Eval>);

impl<B: BfvBackend> BfvContext<B> {
    /// A secret key from a fresh OS seed.
    pub fn generate_secret_key(&self) -> Result<SecretKey<B>> {
        self.core.generate_secret_key()
    }

    /// The secret key of `seed`: the ternary polynomial of `(seed, 0)` (the core's).
    pub fn secret_key_from_seed(&self, seed: &Seed) -> Result<SecretKey<B>> {
        self.core.secret_key_from_seed(seed)
    }

    /// A public key for `secret` from two fresh OS seeds (the core's: its bytes carry the
    /// uniform seed in place of `a`).
    pub fn generate_public_key(&self, secret: &SecretKey<B>) -> Result<PublicKey<B>> {
        self.core.generate_public_key(secret)
    }

    /// The public key `(b, a) = (-(a s + e), a)` with `a` uniform (index 0, sampled directly
    /// in the evaluation representation) and `e` binomial (index 0) from `seed` (the core's).
    pub fn public_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<PublicKey<B>> {
        self.core.public_key_from_seed(secret, seed)
    }

    /// A relinearization key for `secret` from two fresh OS seeds (the core's: its bytes carry
    /// the uniform seed in place of the `a_j`).
    pub fn generate_relin_key(&self, secret: &SecretKey<B>) -> Result<RelinKey<B>> {
        self.core.generate_relinearization_key(secret)
    }

    /// The relinearization key: for digit `j`, `(b_j, a_j) = (-(a_j s + e_j) + g_j s^2, a_j)`
    /// over `qP` with `a_j` uniform (index `j`) and `e_j` binomial (index `j`) from `seed` (the
    /// core's [`rlwe::RlweContext::relinearization_key_from_seed`]).
    pub fn relin_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<RelinKey<B>> {
        self.core.relinearization_key_from_seed(secret, seed)
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
        self.check_key(public_key.params(), "public key")?;
        let scaled = plaintext.scaled_on(self, self.top_level())?;
        let [c0, c1] = self.core.encrypt_with_seed(public_key, Some(&scaled), seed)?;
        Ok(Ciphertext::from_parts(&self.params, vec![c0, c1], self.top_level(), public_key.key_set(), ()))
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
        self.check_key(secret.params(), "secret key")?;
        let scaled = plaintext.scaled_on(self, self.top_level())?;
        let c0 = self.core.encrypt_symmetric(secret, Some(scaled), public_seed, error_seed)?;
        Ok(SeededCiphertext::new(&self.params, c0, public_seed.clone(), secret.key_set()))
    }

    /// `(c_0, v)` with `v = c_1 + c_2 s + ... + c_k s^(k-1)` over the ciphertext's level in the
    /// evaluation representation (Horner), `s` being `secret` at that level: the phase is
    /// `c_0 + v s`.
    pub(crate) fn phase_parts<'a>(
        &self,
        ciphertext: &'a Ciphertext<B>,
        secret: &B::Poly<Eval>,
    ) -> Result<PhaseParts<'a, B>> {
        let polys = ciphertext.polys();
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
                    backend.mul_assign(&mut value, secret).be()?;
                    backend.add_assign(&mut value, &c_eval).be()?;
                    value
                }
            });
        }
        Ok((c0, acc.ok_or_else(size_error)?))
    }

    /// Checks a ciphertext and a secret key for decryption: the secret at the ciphertext's level.
    pub(crate) fn decryption_secret<'a>(
        &'a self,
        ciphertext: &Ciphertext<B>,
        secret: &'a SecretKey<B>,
    ) -> Result<LevelSecret<'a, B>> {
        self.check(ciphertext.params(), "ciphertext")?;
        self.check_key(secret.params(), "secret key")?;
        Self::key_set_of(ciphertext.key_set(), secret.key_set(), "secret key")?;
        self.secret_at_level(secret, ciphertext.level())
    }

    /// `[c_0 + c_1 s + ... + c_k s^k]_q` over the ciphertext's level, coefficient
    /// representation, on the backend.
    fn phase(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<B::Poly<Coeff>> {
        let s = self.decryption_secret(ciphertext, secret)?;
        let (c0, value) = self.phase_parts(ciphertext, s.poly())?;
        let mut phase = self.backend.inverse_of_product(value, s.poly())?;
        self.backend.add_assign(&mut phase, c0).be()?;
        Ok(phase)
    }

    /// Decrypts: `m = round(t [c_0 + c_1 s + ...]_q / q) mod t` by the variant's RNS
    /// scale-and-round (HPS: fixed point into `Z_t`; BEHZ: with `gamma`), at the ciphertext's
    /// level (`q` being that level's primes). Accepts any ciphertext size `>= 2`. A ciphertext
    /// whose noise budget is exhausted decrypts to garbage without an error: ask
    /// [`noise_budget`](Self::noise_budget).
    pub fn decrypt(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<Plaintext> {
        let s = self.decryption_secret(ciphertext, secret)?;
        let (tables, prepared) = self.decryption_tables(ciphertext.level())?;
        let (c0, value) = self.phase_parts(ciphertext, s.poly())?;
        let coefficients = self.backend.decrypt_scale_sum(tables, prepared, c0, value, s.poly())?;
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
        let base = rns::RnsBase::new(self.level_primes(ciphertext.level()))?;
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
