//! [`RelinearizationKey`]: the key-switching key from `s^2` to `s` (randomness: indices `j`
//! of its seed, digit `j`).

use core::fmt;
use std::sync::Arc;

use poly::Seed;

use crate::backend::{EvalPair, RlweBackend};
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::key_switching_key::KeySwitchingKey;
use crate::keys::{SecretKey, SecretScratch};
use crate::{Result, RlweParameters};

/// The relinearization key: a [`KeySwitchingKey`] from `s^2` to `s`.
pub struct RelinearizationKey<B: RlweBackend> {
    key: KeySwitchingKey<B>,
}

impl<B: RlweBackend> fmt::Debug for RelinearizationKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelinearizationKey").field("digits", &self.key.digits().len()).finish_non_exhaustive()
    }
}

impl<B: RlweBackend> RelinearizationKey<B> {
    /// The relinearization key whose key-switching key is `key` (a decoder's constructor).
    pub fn from_key_switching_key(key: KeySwitchingKey<B>) -> Self {
        Self { key }
    }

    /// The key-switching key.
    pub fn key_switching_key(&self) -> &KeySwitchingKey<B> {
        &self.key
    }

    /// The pairs `(b_j, a_j)`, one per digit.
    pub fn digits(&self) -> &[EvalPair<B>] {
        self.key.digits()
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        self.key.params()
    }

    /// The identifier of the secret key's key set ([`crate::KeySetId`]).
    pub fn key_set(&self) -> Option<crate::KeySetId> {
        self.key.key_set()
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// A relinearization key for `secret` from two fresh OS seeds (a uniform seed, which its
    /// byte encoding carries in place of the `a_j`, and an error seed, which nothing keeps).
    pub fn generate_relinearization_key(&self, secret: &SecretKey<B>) -> Result<RelinearizationKey<B>> {
        self.relinearization_key_from_seeds(secret, &Seed::from_os()?, &Seed::from_os()?)
    }

    /// The relinearization key: for digit `j`, `(b_j, a_j) = (-(a_j s + E e_j) + g_j s^2, a_j)`
    /// over `qP` with `a_j` uniform (index `j`) and `e_j` binomial (index `j`) from `seed`.
    pub fn relinearization_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<RelinearizationKey<B>> {
        self.check(secret.params(), "secret key")?;
        let s_squared = SecretScratch::new(&self.backend, self.backend.mul(secret.s_qp(), secret.s_qp()).be()?);
        let key = self.key_switching_key(secret, s_squared.poly(), seed, 0)?;
        s_squared.zeroize()?;
        Ok(RelinearizationKey { key })
    }

    /// [`relinearization_key_from_seed`](Self::relinearization_key_from_seed) with `a_j` from
    /// `uniform_seed` and `e_j` from `error_seed` (`rlwe::key_switching_key`'s module docs): the
    /// key keeps `uniform_seed`, and its byte encoding carries it in place of the `a_j`.
    pub fn relinearization_key_from_seeds(
        &self,
        secret: &SecretKey<B>,
        uniform_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<RelinearizationKey<B>> {
        self.check(secret.params(), "secret key")?;
        let s_squared = SecretScratch::new(&self.backend, self.backend.mul(secret.s_qp(), secret.s_qp()).be()?);
        let key = self.key_switching_key_with_seeds(secret, s_squared.poly(), uniform_seed, error_seed, 0)?;
        s_squared.zeroize()?;
        Ok(RelinearizationKey { key })
    }
}
