//! [`KeySwitchingKey`]: a key that switches a ciphertext component from a secret `s'` (a
//! function of the secret key: `s^2` for relinearization, `s(x^g)` for a Galois key) to `s`.
//!
//! For digit `j` (`j < ceil(L / k)` for `k` special primes), over `qP`, evaluation
//! representation: `(b_j, a_j)` with `b_j = -(a_j s + E e_j) + g_j s'`,
//! `g_j = P (q / Q_j) [(q / Q_j)^-1]_{Q_j}`, `E` the context's error scale (1 for BFV, `t` for
//! BGV). `a_j` is uniform (sampled directly in the evaluation representation), `e_j` binomial,
//! both of index `first_index + j`: of one seed, or (`key_switching_key_with_seeds`) `a_j` of a
//! public *uniform seed* and `e_j` of a separate error seed. A key made the second way keeps
//! its uniform seed, and its byte encoding carries that seed in place of the `a_j` (about half
//! the bytes): the seed reveals the `a_j` only, which are public anyway. A key made from one
//! seed keeps none (publishing that seed would reveal the errors, and with them the secret).

use core::fmt;
use std::sync::{Arc, OnceLock};

use poly::{Eval, Seed};

use crate::backend::{EvalPair, RlweBackend};
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::keys::{SecretKey, SecretScratch};
use crate::{KeySetId, Result, RlweError, RlweParameters};

/// A key-switching key: one pair `(b_j, a_j)` over `qP` per digit (module docs).
pub struct KeySwitchingKey<B: RlweBackend> {
    params: Arc<RlweParameters>,
    digits: Vec<EvalPair<B>>,
    error_scale: u64,
    key_set: Option<KeySetId>,
    /// The seed and first index the `a_j` were sampled from, when it may travel (module docs).
    uniform_seed: Option<(Seed, u64)>,
    /// The digits of the levels below the top, restricted to `q_l P`, made on first use.
    levels: Vec<OnceLock<Vec<EvalPair<B>>>>,
}

impl<B: RlweBackend> fmt::Debug for KeySwitchingKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("KeySwitchingKey")
            .field("digits", &self.digits.len())
            .field("error_scale", &self.error_scale)
            .finish_non_exhaustive()
    }
}

impl<B: RlweBackend> KeySwitchingKey<B> {
    /// A key of `context` from its digits (a decoder's constructor). Errors with
    /// [`rns::RnsError::LengthMismatch`] unless there is one pair per digit of the parameters.
    /// It carries no key-set identifier until [`with_key_set`](Self::with_key_set) gives it one.
    pub fn from_digits(context: &RlweContext<B>, digits: Vec<EvalPair<B>>) -> Result<Self> {
        check_digit_count(&context.params, digits.len())?;
        Ok(Self::assemble(&context.params, digits, context.error_scale, None, None))
    }

    /// A key of `context` from its `b_j` and the uniform seed of its `a_j` (a decoder's
    /// constructor): `a_j` is sampled again, uniform of index `first_index + j` of `seed`, on
    /// the context's backend. Errors as [`from_digits`](Self::from_digits).
    pub fn from_uniform_seed(
        context: &RlweContext<B>,
        seed: &Seed,
        first_index: u64,
        bs: Vec<B::Poly<Eval>>,
    ) -> Result<Self> {
        check_digit_count(&context.params, bs.len())?;
        let mut digits = Vec::with_capacity(bs.len());
        for (j, b) in bs.into_iter().enumerate() {
            let a = context.backend.sample_uniform(&context.ring_qp, seed, first_index + j as u64).be()?;
            digits.push((b, a));
        }
        let uniform_seed = Some((seed.clone(), first_index));
        Ok(Self::assemble(&context.params, digits, context.error_scale, None, uniform_seed))
    }

    fn assemble(
        params: &Arc<RlweParameters>,
        digits: Vec<EvalPair<B>>,
        error_scale: u64,
        key_set: Option<KeySetId>,
        uniform_seed: Option<(Seed, u64)>,
    ) -> Self {
        let levels = (0..params.max_level()).map(|_| OnceLock::new()).collect();
        Self { params: Arc::clone(params), digits, error_scale, key_set, uniform_seed, levels }
    }

    /// The seed and first index of the `a_j`, when the key was made with a separate uniform
    /// seed (module docs); `None` otherwise.
    pub fn uniform_seed(&self) -> Option<(&Seed, u64)> {
        self.uniform_seed.as_ref().map(|(seed, index)| (seed, *index))
    }

    /// The key with the key-set identifier `key_set` (a decoder's).
    pub fn with_key_set(mut self, key_set: Option<KeySetId>) -> Self {
        self.key_set = key_set;
        self
    }

    /// The identifier of the key set of the secret key it switches to ([`KeySetId`]).
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The pairs of level `level`: the first `ceil((level + 1) / digit_size)` digits with their
    /// limbs of `q_l P` (the top level's are [`digits`](Self::digits)). Made on first use with
    /// `context`'s backend and kept: a lower level costs its share of the key's memory once.
    pub fn digits_at_level(&self, context: &RlweContext<B>, level: usize) -> Result<&[EvalPair<B>]> {
        context.check(&self.params, "key-switching key")?;
        self.params.check_level(level)?;
        if level == self.params.max_level() {
            return Ok(&self.digits);
        }
        let cell = &self.levels[level];
        if cell.get().is_none() {
            let (_, ring_qp) = context.key_switch_at_level(level)?;
            let count = self.params.digit_count_at_level(level);
            let backend = context.backend();
            let restricted = self.digits[..count]
                .iter()
                .map(|(b, a)| Ok((backend.select_limbs(b, ring_qp)?, backend.select_limbs(a, ring_qp)?)))
                .collect::<Result<Vec<_>>>()?;
            let _ = cell.set(restricted);
        }
        cell.get().map(Vec::as_slice).ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "the key's digits there could not be made".to_string(),
        })
    }

    /// The pairs `(b_j, a_j)`, one per digit.
    pub fn digits(&self) -> &[EvalPair<B>] {
        &self.digits
    }

    /// The factor of the key's error terms (1 for BFV, `t` for BGV).
    pub fn error_scale(&self) -> u64 {
        self.error_scale
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        &self.params
    }
}

/// Errors with [`rns::RnsError::LengthMismatch`] unless `digits` is the digit count of `params`.
pub(crate) fn check_digit_count(params: &RlweParameters, digits: usize) -> Result<()> {
    let expected = params.key_switch_tables().num_digits();
    if digits == expected {
        return Ok(());
    }
    Err(RlweError::Rns(rns::RnsError::LengthMismatch { what: "key-switching key digits", expected, actual: digits }))
}

impl<B: RlweBackend> RlweContext<B> {
    /// The key-switching key from `target` (a function of the secret over `qP`, evaluation
    /// representation) to `secret`, with the randomness of indices `first_index + j` of `seed`
    /// (module docs). Every polynomial derived from the secret is zeroized before this returns.
    pub fn key_switching_key(
        &self,
        secret: &SecretKey<B>,
        target: &B::Poly<Eval>,
        seed: &Seed,
        first_index: u64,
    ) -> Result<KeySwitchingKey<B>> {
        self.key_switching_key_with_seeds(secret, target, seed, seed, first_index)
    }

    /// [`key_switching_key`](Self::key_switching_key) with `a_j` from `uniform_seed` and `e_j`
    /// from `error_seed`. With two different seeds the key keeps `uniform_seed` (it may travel:
    /// module docs); with one seed it keeps none, and the key is
    /// [`key_switching_key`](Self::key_switching_key)'s.
    pub fn key_switching_key_with_seeds(
        &self,
        secret: &SecretKey<B>,
        target: &B::Poly<Eval>,
        uniform_seed: &Seed,
        error_seed: &Seed,
        first_index: u64,
    ) -> Result<KeySwitchingKey<B>> {
        self.check(secret.params(), "secret key")?;
        let backend = &self.backend;
        let mut digits = Vec::with_capacity(self.gadgets.len());
        for (j, gadget) in self.gadgets.iter().enumerate() {
            let index = first_index + j as u64;
            let a: B::Poly<Eval> = backend.sample_uniform(&self.ring_qp, uniform_seed, index).be()?;
            let e = backend.forward(self.sample_error(&self.ring_qp, error_seed, index)?).be()?;
            let mut b = backend.mul(&a, secret.s_qp()).be()?;
            backend.add_assign(&mut b, &e).be()?;
            backend.neg_assign(&mut b).be()?;
            let scaled_target = SecretScratch::new(backend, backend.scalar_mul_per_limb(target, gadget).be()?);
            backend.add_assign(&mut b, scaled_target.poly()).be()?;
            scaled_target.zeroize()?;
            digits.push((b, a));
        }
        let travels = (uniform_seed.as_bytes() != error_seed.as_bytes()).then(|| (uniform_seed.clone(), first_index));
        Ok(KeySwitchingKey::assemble(&self.params, digits, self.error_scale, secret.key_set(), travels))
    }
}
