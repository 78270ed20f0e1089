//! Operators on ciphertexts, for every scheme: a [`BoundEvaluator`] holds a scheme's context
//! (any [`Evaluator`]) with the evaluation keys a circuit uses, and the ciphertexts it wraps
//! ([`BoundCiphertext`]) take `&a + &b`, `&a - &b`, `-&a`, `&a * &b` (relinearized with the
//! bound key), and `&a + 3`, `&a - 3`, `&a * 3` with an integer modulo `t`.
//!
//! Every operator returns a `Result`, as the context's methods do: operands of other
//! parameters, key sets or levels, or a product without a bound relinearization key, give the
//! same typed errors, and nothing panics. Chain with `?` (`bfv::prelude`'s docs run an example).

use core::fmt;
use core::ops::{Add, Mul, Neg, Sub};

use crate::evaluator::{Evaluator, SlotSum};
use crate::{GaloisKeys, PublicKey, RelinearizationKey, Result, RlweBackend, RlweError, SecretKey};

/// A scheme's context with the evaluation keys a circuit uses (module docs).
pub struct BoundEvaluator<'k, B: RlweBackend, E: Evaluator<B>> {
    evaluator: &'k E,
    relinearization_key: Option<&'k RelinearizationKey<B>>,
    galois_keys: Option<&'k GaloisKeys<B>>,
}

impl<B: RlweBackend, E: Evaluator<B>> fmt::Debug for BoundEvaluator<'_, B, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BoundEvaluator")
            .field("relinearization_key", &self.relinearization_key.is_some())
            .field("galois_keys", &self.galois_keys.map(GaloisKeys::len))
            .finish_non_exhaustive()
    }
}

impl<'k, B: RlweBackend, E: Evaluator<B>> BoundEvaluator<'k, B, E> {
    /// `evaluator` with no keys bound (sums, differences and products by integers need none).
    pub fn new(evaluator: &'k E) -> Self {
        Self { evaluator, relinearization_key: None, galois_keys: None }
    }

    /// With `key` for the products (`&a * &b`).
    pub fn with_relinearization_key(mut self, key: &'k RelinearizationKey<B>) -> Self {
        self.relinearization_key = Some(key);
        self
    }

    /// With `keys` for the rotations and slot sums.
    pub fn with_galois_keys(mut self, keys: &'k GaloisKeys<B>) -> Self {
        self.galois_keys = Some(keys);
        self
    }

    /// The scheme's context.
    pub fn evaluator(&self) -> &'k E {
        self.evaluator
    }

    /// `ciphertext` wrapped for the operators.
    pub fn bind(&self, ciphertext: E::Ciphertext) -> BoundCiphertext<'_, 'k, B, E> {
        BoundCiphertext { evaluator: self, ciphertext }
    }

    /// Encrypts `plaintext` with `public_key` (fresh OS randomness), wrapped.
    pub fn encrypt(
        &self,
        plaintext: &E::Plaintext,
        public_key: &PublicKey<B>,
    ) -> Result<BoundCiphertext<'_, 'k, B, E>> {
        Ok(self.bind(self.evaluator.encrypt(plaintext, public_key)?))
    }

    fn relinearization_key(&self, operation: &'static str) -> Result<&'k RelinearizationKey<B>> {
        self.relinearization_key.ok_or(RlweError::MissingEvaluationKey { operation, key: "relinearization key" })
    }

    fn galois_keys(&self, operation: &'static str) -> Result<&'k GaloisKeys<B>> {
        self.galois_keys.ok_or(RlweError::MissingEvaluationKey { operation, key: "Galois keys" })
    }
}

/// A ciphertext of a [`BoundEvaluator`], for the operators (module docs).
pub struct BoundCiphertext<'e, 'k, B: RlweBackend, E: Evaluator<B>> {
    evaluator: &'e BoundEvaluator<'k, B, E>,
    ciphertext: E::Ciphertext,
}

impl<B: RlweBackend, E: Evaluator<B>> fmt::Debug for BoundCiphertext<'_, '_, B, E>
where
    E::Ciphertext: fmt::Debug,
{
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.ciphertext.fmt(f)
    }
}

impl<B: RlweBackend, E: Evaluator<B>> Clone for BoundCiphertext<'_, '_, B, E>
where
    E::Ciphertext: Clone,
{
    fn clone(&self) -> Self {
        Self { evaluator: self.evaluator, ciphertext: self.ciphertext.clone() }
    }
}

impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> BoundCiphertext<'e, 'k, B, E> {
    fn wrap(&self, ciphertext: E::Ciphertext) -> Self {
        Self { evaluator: self.evaluator, ciphertext }
    }

    fn context(&self) -> &'k E {
        self.evaluator.evaluator
    }

    /// The ciphertext.
    pub fn ciphertext(&self) -> &E::Ciphertext {
        &self.ciphertext
    }

    /// The ciphertext, unwrapped.
    pub fn into_ciphertext(self) -> E::Ciphertext {
        self.ciphertext
    }

    /// Its level in the modulus chain.
    pub fn level(&self) -> usize {
        self.context().level(&self.ciphertext)
    }

    /// The plaintext ([`Evaluator::decrypt`]).
    pub fn decrypt(&self, secret: &SecretKey<B>) -> Result<E::Plaintext> {
        self.context().decrypt(&self.ciphertext, secret)
    }

    /// The plaintext, refusing a spent noise budget ([`Evaluator::decrypt_checked`]).
    pub fn decrypt_checked(&self, secret: &SecretKey<B>) -> Result<E::Plaintext> {
        self.context().decrypt_checked(&self.ciphertext, secret)
    }

    /// The noise budget in bits ([`Evaluator::noise_budget`]).
    pub fn noise_budget(&self, secret: &SecretKey<B>) -> Result<u32> {
        self.context().noise_budget(&self.ciphertext, secret)
    }

    /// `self + m` for a plaintext `m`.
    pub fn add_plain(&self, plaintext: &E::Plaintext) -> Result<Self> {
        Ok(self.wrap(self.context().add_plain(&self.ciphertext, plaintext)?))
    }

    /// `self * m` for a plaintext `m`.
    pub fn mul_plain(&self, plaintext: &E::Plaintext) -> Result<Self> {
        Ok(self.wrap(self.context().mul_plain(&self.ciphertext, plaintext)?))
    }

    /// Both rows rotated left by `steps` with the bound Galois keys ([`Evaluator::rotate_rows`]).
    pub fn rotate_rows(&self, steps: i64) -> Result<Self> {
        let keys = self.evaluator.galois_keys("rotate_rows")?;
        Ok(self.wrap(self.context().rotate_rows(&self.ciphertext, steps, keys)?))
    }

    /// The rows swapped with the bound Galois keys ([`Evaluator::rotate_columns`]).
    pub fn rotate_columns(&self) -> Result<Self> {
        let keys = self.evaluator.galois_keys("rotate_columns")?;
        Ok(self.wrap(self.context().rotate_columns(&self.ciphertext, keys)?))
    }

    /// The slots summed with the bound Galois keys ([`Evaluator::sum_slots`]).
    pub fn sum_slots(&self, sum: SlotSum) -> Result<Self> {
        let keys = self.evaluator.galois_keys("sum_slots")?;
        Ok(self.wrap(self.context().sum_slots(&self.ciphertext, sum, keys)?))
    }

    /// Every slot set to slot `slot` with the bound Galois keys ([`Evaluator::replicate`]).
    pub fn replicate(&self, slot: usize) -> Result<Self> {
        let keys = self.evaluator.galois_keys("replicate")?;
        Ok(self.wrap(self.context().replicate(&self.ciphertext, slot, keys)?))
    }

    /// One level down the modulus chain ([`Evaluator::mod_switch_to_next`]).
    pub fn mod_switch_to_next(&self) -> Result<Self> {
        Ok(self.wrap(self.context().mod_switch_to_next(&self.ciphertext)?))
    }
}

/// `&a + &b`.
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Add for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn add(self, rhs: Self) -> Self::Output {
        Ok(self.wrap(self.context().add(&self.ciphertext, &rhs.ciphertext)?))
    }
}

/// `&a - &b`.
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Sub for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn sub(self, rhs: Self) -> Self::Output {
        Ok(self.wrap(self.context().sub(&self.ciphertext, &rhs.ciphertext)?))
    }
}

/// `-&a`.
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Neg for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn neg(self) -> Self::Output {
        Ok(self.wrap(self.context().negate(&self.ciphertext)?))
    }
}

/// `&a * &b`, relinearized with the bound key ([`RlweError::MissingEvaluationKey`] without one).
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Mul for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn mul(self, rhs: Self) -> Self::Output {
        let key = self.evaluator.relinearization_key("`*` of two ciphertexts")?;
        Ok(self.wrap(self.context().mul_relin(&self.ciphertext, &rhs.ciphertext, key)?))
    }
}

/// `&a + c` for an integer `c` modulo `t` ([`Evaluator::add_scalar`]).
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Add<u64> for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn add(self, c: u64) -> Self::Output {
        Ok(self.wrap(self.context().add_scalar(&self.ciphertext, c)?))
    }
}

/// `&a - c` for an integer `c` modulo `t` ([`Evaluator::sub_scalar`]).
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Sub<u64> for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn sub(self, c: u64) -> Self::Output {
        Ok(self.wrap(self.context().sub_scalar(&self.ciphertext, c)?))
    }
}

/// `&a * c` for an integer `c` modulo `t` ([`Evaluator::mul_scalar`]).
impl<'e, 'k, B: RlweBackend, E: Evaluator<B>> Mul<u64> for &BoundCiphertext<'e, 'k, B, E> {
    type Output = Result<BoundCiphertext<'e, 'k, B, E>>;

    fn mul(self, c: u64) -> Self::Output {
        Ok(self.wrap(self.context().mul_scalar(&self.ciphertext, c)?))
    }
}
