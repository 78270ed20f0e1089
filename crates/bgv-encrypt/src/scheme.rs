//! Key generation, encryption, decryption and the noise budget.

use num_bigint::BigUint;
use num_traits::Zero;
use poly::{Coeff, Eval, Seed};
use rlwe::SecretScratch;
use rlwe::{PlaintextEmbedding, PlaintextWords};

use crate::backend::BgvBackend;
use crate::context::{
    BackendResult, BgvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext, inverse_mod,
};
use crate::resident::ResidentPlaintext;
use crate::{BgvError, Plaintext, Result};

/// The secret at a ciphertext's level: the key's own polynomial at the top, its first limbs
/// (zeroized when dropped) below.
pub(crate) enum LevelSecret<'a, B: BgvBackend> {
    Top(&'a B::Poly<Eval>),
    Lower(SecretScratch<'a, B, Eval>),
}

impl<B: BgvBackend> LevelSecret<'_, B> {
    pub(crate) fn poly(&self) -> &B::Poly<Eval> {
        match self {
            LevelSecret::Top(poly) => poly,
            LevelSecret::Lower(scratch) => scratch.poly(),
        }
    }
}

impl<B: BgvBackend> BgvContext<B> {
    /// A secret key from a fresh OS seed (the core's; the same key serves BFV of this ring).
    pub fn generate_secret_key(&self) -> Result<SecretKey<B>> {
        self.core.generate_secret_key()
    }

    /// The secret key of `seed` (the core's ternary polynomial of `(seed, 0)`).
    pub fn secret_key_from_seed(&self, seed: &Seed) -> Result<SecretKey<B>> {
        self.core.secret_key_from_seed(seed)
    }

    /// A public key for `secret` from two fresh OS seeds (the core's: its bytes carry the
    /// uniform seed in place of `a`).
    pub fn generate_public_key(&self, secret: &SecretKey<B>) -> Result<PublicKey<B>> {
        self.core.generate_public_key(secret)
    }

    /// The public key `(-(a s + t e), a)` (the core's, error scale `t`).
    pub fn public_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<PublicKey<B>> {
        self.core.public_key_from_seed(secret, seed)
    }

    /// A relinearization key for `secret` from two fresh OS seeds (the core's: its bytes carry
    /// the uniform seed in place of the `a_j`).
    pub fn generate_relin_key(&self, secret: &SecretKey<B>) -> Result<RelinKey<B>> {
        self.core.generate_relinearization_key(secret)
    }

    /// The relinearization key, digit `j`: `(-(a_j s + t e_j) + g_j s^2, a_j)` over `qP`.
    pub fn relin_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<RelinKey<B>> {
        self.core.relinearization_key_from_seed(secret, seed)
    }

    /// `plaintext` lifted into the primes of `level` (centered: a coefficient above `t/2`
    /// becomes `c - t`), times the factor `scale` modulo `t` first when it is not 1.
    pub(crate) fn lift(&self, plaintext: &Plaintext, level: usize, scale: u64) -> Result<B::Poly<Coeff>> {
        self.check(plaintext.params(), "plaintext")?;
        let tables = self.level_tables(level)?;
        let ring = self.core.context_at_level(level)?;
        let t = u128::from(self.params.plaintext_modulus());
        let scaled;
        let words = if scale == 1 {
            plaintext.coefficients()
        } else {
            scaled = plaintext
                .coefficients()
                .iter()
                .map(|&c| (u128::from(c) * u128::from(scale) % t) as u64)
                .collect::<Vec<_>>();
            &scaled
        };
        self.backend.embed_plaintext(ring, &tables.scaling, PlaintextEmbedding::Lifted, PlaintextWords::Host(words))
    }

    /// Encrypts `plaintext` under `public_key` with a fresh OS seed.
    pub fn encrypt(&self, plaintext: &Plaintext, public_key: &PublicKey<B>) -> Result<Ciphertext<B>> {
        self.encrypt_with_seed(plaintext, public_key, &Seed::from_os()?)
    }

    /// Public-key encryption with the randomness of `seed` (keep it secret):
    /// `(c_0, c_1) = (b u + t e_1 + m, a u + t e_2)` over `q`, `m` lifted centered, correction
    /// factor 1 (randomness as the core's encryption of zero). Errors with
    /// [`BgvError::ParameterMismatch`] for a plaintext or key of other parameters (a BFV
    /// public key, whose errors are not multiples of `t`, included).
    pub fn encrypt_with_seed(
        &self,
        plaintext: &Plaintext,
        public_key: &PublicKey<B>,
        seed: &Seed,
    ) -> Result<Ciphertext<B>> {
        self.check_key(public_key.params(), "public key")?;
        let message = self.lift(plaintext, self.top_level(), 1)?;
        let [c0, c1] = self.core.encrypt_with_seed_eval(public_key, Some(&message), seed)?;
        Ok(self.ciphertext(vec![c0, c1], self.top_level(), 1, public_key.key_set()))
    }

    /// Encrypts `plaintext` under the secret key with fresh OS seeds.
    pub fn encrypt_symmetric(&self, plaintext: &Plaintext, secret: &SecretKey<B>) -> Result<SeededCiphertext<B>> {
        self.encrypt_symmetric_with_seeds(plaintext, secret, &Seed::from_os()?, &Seed::from_os()?)
    }

    /// Secret-key encryption: `(c_0, c_1) = (m + t e - a s, a)` with `a` uniform from
    /// `public_seed` and `e` from `error_seed` (keep it secret); `c_1` travels as its seed.
    pub fn encrypt_symmetric_with_seeds(
        &self,
        plaintext: &Plaintext,
        secret: &SecretKey<B>,
        public_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<SeededCiphertext<B>> {
        self.check_key(secret.params(), "secret key")?;
        let message = self.lift(plaintext, self.top_level(), 1)?;
        let c0 = self.core.encrypt_symmetric(secret, Some(message), public_seed, error_seed)?;
        Ok(SeededCiphertext::new(&self.params, c0, public_seed.clone(), secret.key_set()))
    }

    /// The secret at `level`.
    pub(crate) fn secret_at_level<'a>(&'a self, secret: &'a SecretKey<B>, level: usize) -> Result<LevelSecret<'a, B>> {
        self.check_key(secret.params(), "secret key")?;
        if level == self.top_level() {
            return Ok(LevelSecret::Top(secret.s_q()));
        }
        let lower = self.core.drop_to_level(secret.s_q(), level)?;
        Ok(LevelSecret::Lower(SecretScratch::new(&self.backend, lower)))
    }

    /// `[c_0 + c_1 s + ... + c_k s^k]_{q_l}`, coefficient representation, on the backend (Horner
    /// in the evaluation representation).
    pub(crate) fn phase(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<B::Poly<Coeff>> {
        self.with_phase_operands(ciphertext, secret, |c0, acc, s| self.backend.inverse_of_mul_add(c0, acc, s))
    }

    /// `f(c_0, acc, s)` with the phase `c_0 + acc s` (evaluations at the ciphertext's level):
    /// `acc = c_1` for two polynomials, else `c_1 + c_2 s + ... + c_k s^(k-1)` by Horner. Errors
    /// (before `f` runs) for a ciphertext or key of other parameters or key set, and a
    /// ciphertext of fewer than two polynomials.
    fn with_phase_operands<T>(
        &self,
        ciphertext: &Ciphertext<B>,
        secret: &SecretKey<B>,
        f: impl FnOnce(&B::Poly<Eval>, &B::Poly<Eval>, &B::Poly<Eval>) -> Result<T>,
    ) -> Result<T> {
        self.check(ciphertext.params(), "ciphertext")?;
        Self::key_set_of(ciphertext.key_set(), secret.key_set(), "secret key")?;
        let s = self.secret_at_level(secret, ciphertext.level())?;
        let backend = &self.backend;
        let polys = ciphertext.polys();
        let (c0, rest) = match polys.split_first() {
            Some((c0, rest)) if !rest.is_empty() => (c0, rest),
            _ => {
                return Err(BgvError::InvalidCiphertextSize {
                    operation: "decryption",
                    expected: "at least 2",
                    actual: polys.len(),
                });
            }
        };
        // A two-polynomial ciphertext borrows c_1; the caller's inverse transform loads
        // c_0 + acc s in its first pass.
        let horner;
        let acc = match rest {
            [c1] => c1,
            [.., last] => {
                let mut value = backend.duplicate(last).be()?;
                for c in rest[..rest.len() - 1].iter().rev() {
                    backend.mul_assign(&mut value, s.poly()).be()?;
                    backend.add_assign(&mut value, c).be()?;
                }
                horner = value;
                &horner
            }
            [] => unreachable_size(polys.len())?,
        };
        f(c0, acc, s.poly())
    }

    /// Decrypts at the ciphertext's level: `m = [c_0 + c_1 s + ...]_{q_l} f^{-1} mod t`, the
    /// centered phase reduced modulo `t` exactly ([`crate::backend::DecryptionTables::reduce_host`], on
    /// the backend: [`BgvBackend::decrypt_words`]). Any size `>= 2`. A ciphertext whose noise
    /// budget is spent decrypts to garbage without an error: ask
    /// [`noise_budget`](Self::noise_budget). [`decrypt_resident`](Self::decrypt_resident) leaves
    /// the plaintext on the backend.
    pub fn decrypt(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<Plaintext> {
        let coefficients = self.with_phase_operands(ciphertext, secret, |c0, acc, s| {
            let (tables, correction_inv) = self.decryption_constants(ciphertext)?;
            // On a device the kernel writes straight into host memory (no separate copy back).
            self.backend.decrypt_words(&tables.decryption, &tables.prepared, [c0, acc, s], correction_inv)
        })?;
        if coefficients.len() != self.params.degree() {
            return Err(
                poly::PolyError::LengthMismatch { expected: self.params.degree(), actual: coefficients.len() }.into()
            );
        }
        Plaintext::from_reduced_coefficients(&self.params, coefficients)
    }

    /// [`decrypt`](Self::decrypt) with the plaintext left on the backend: on the GPU the work
    /// is queued and nothing waits; the `N` words stay in device memory until
    /// [`ResidentPlaintext::to_plaintext`]. The same coefficients as `decrypt`; the same errors.
    pub fn decrypt_resident(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<ResidentPlaintext<B>> {
        let words = self.with_phase_operands(ciphertext, secret, |c0, acc, s| {
            let (tables, correction_inv) = self.decryption_constants(ciphertext)?;
            self.backend.decrypt_words_resident(&tables.decryption, &tables.prepared, [c0, acc, s], correction_inv)
        })?;
        Ok(ResidentPlaintext::from_reduced_words(&self.params, &self.backend, words))
    }

    /// The tables of `ciphertext`'s level and `f^{-1} mod t` (`f` its correction factor):
    /// what both decryptions reduce with.
    fn decryption_constants(&self, ciphertext: &Ciphertext<B>) -> Result<(&crate::context::LevelTables<B>, u64)> {
        let tables = self.level_tables(ciphertext.level())?;
        let t = self.params.plaintext_modulus();
        let correction_inv = inverse_mod(ciphertext.state().correction, t).ok_or(BgvError::InvalidParameter {
            name: "correction factor",
            value: ciphertext.state().correction,
            requirement: "must be invertible modulo t".to_string(),
        })?;
        Ok((tables, correction_inv))
    }

    /// The noise budget in bits, exactly (big integers, on the host): with `v` the centered
    /// phase `[c_0 + c_1 s + ...]_{q_l} = f m + t e`, `budget = floor(log2(q_l / (2 ||v||)))`:
    /// decryption is correct while `||v|| < q_l / 2`, and each bit of budget halves the room
    /// left. Errors with [`BgvError::NoiseBudgetExhausted`] at 0.
    pub fn noise_budget(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<u32> {
        let phase = self.backend.download(&self.phase(ciphertext, secret)?).be()?;
        let base = rns::RnsBase::new(&self.params.ciphertext_moduli()[..=ciphertext.level()])?;
        let q = base.product();
        let mut norm = BigUint::zero();
        for x in base.reconstruct_poly_centered(phase.as_slice())? {
            let magnitude = x.magnitude().clone();
            if magnitude > norm {
                norm = magnitude;
            }
        }
        let budget = if norm.is_zero() {
            q.bits().saturating_sub(1) as u32
        } else {
            // floor(log2(q / (2 norm))): the largest b with 2^b * 2 norm <= q.
            let doubled = norm.clone() << 1u32;
            let mut b = q.bits().saturating_sub(doubled.bits()) as u32;
            while b > 0 && (doubled.clone() << b) > *q {
                b -= 1;
            }
            if (doubled << b) > *q { 0 } else { b }
        };
        if budget == 0 {
            return Err(BgvError::NoiseBudgetExhausted { noise_bits: norm.bits(), modulus_bits: q.bits() });
        }
        Ok(budget)
    }
}

/// The size error of a ciphertext with fewer than two polynomials (checked before; kept as an
/// error rather than a panic).
fn unreachable_size<T>(actual: usize) -> Result<T> {
    Err(BgvError::InvalidCiphertextSize { operation: "decryption", expected: "at least 2", actual })
}
