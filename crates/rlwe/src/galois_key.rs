//! Galois automorphisms: the elements that rotate the batching slots, [`GaloisKeys`], and the
//! automorphism of a two-polynomial ciphertext with its key switch.
//!
//! The automorphism `sigma_g: a(x) -> a(x^g)` (odd `g` below `2N`) maps an encryption of `m`
//! under `s` to an encryption of `sigma_g(m)` under `s(x^g)`; key switching from `s(x^g)` back
//! to `s` with a Galois key for `g` finishes the job. In the batching layout (two rows of `N/2`
//! slots), `g = 3^k mod 2N` rotates both rows left by `k` slots and `g = 2N - 1` swaps the rows.
//!
//! A Galois key for `g` is a [`KeySwitchingKey`] from `s(x^g)` to `s`, with the randomness of
//! indices `g * 2^32 + j` (digit `j`) of its seed.

use core::fmt;
use std::collections::BTreeMap;
use std::sync::Arc;

use poly::{Coeff, Eval, RingKind, Seed};

use crate::backend::{EvalPair, RlweBackend};
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::key_switching_key::KeySwitchingKey;
use crate::keys::{SecretKey, SecretScratch};
use crate::{KeySetId, Result, RlweError, RlweParameters};

/// The generator of the row rotations: `x -> x^3` rotates both rows left by one slot.
const ROW_GENERATOR: u64 = 3;

/// The Galois element that rotates both rows of the batching slots of degree `degree` left
/// by `steps` (`new[i] = old[(i + steps) mod N/2]` within each row; negative `steps` rotate
/// right): `3^steps mod 2N`, with `3^-1 mod 2N` for negative `steps`. As `3` has order `N/2`
/// modulo `2N`, `steps` counts modulo `N/2`; a multiple of `N/2` gives `1`, the identity.
pub fn galois_element_for_row_rotation(degree: usize, steps: i64) -> u64 {
    // A ring of degree below 2 has no rotations: the identity (and no division by zero).
    if degree < 2 {
        return 1;
    }
    let two_n = u128::from((degree as u64).saturating_mul(2));
    let row = i64::try_from(degree / 2).unwrap_or(i64::MAX);
    // 3^(steps mod N/2) = 3^steps, since 3^(N/2) = 1 mod 2N.
    let mut exponent = steps.rem_euclid(row) as u64;
    let (mut base, mut element) = (u128::from(ROW_GENERATOR) % two_n, 1u128);
    while exponent > 0 {
        if exponent & 1 == 1 {
            element = element * base % two_n;
        }
        base = base * base % two_n;
        exponent >>= 1;
    }
    element as u64
}

/// The Galois element `2N - 1` (`x -> x^-1`), which swaps the two rows of the batching slots
/// (the "column rotation" of SEAL).
pub fn galois_element_for_row_swap(degree: usize) -> u64 {
    // 1 (the identity) for degree 0.
    (degree as u64).saturating_mul(2).saturating_sub(1).max(1)
}

/// Errors with [`RlweError::InvalidGaloisElement`] unless `element` is a Galois element of
/// `ring` in the library's form: a unit modulo the ring's index `m`, below `m` (for `x^N + 1`,
/// `m = 2N`: odd and below `2N`). The ring decides ([`poly::RingKind::is_galois_element`]), so
/// every check of an element, whatever the ring, is this one.
pub fn check_galois_element(ring: RingKind, element: u64) -> Result<()> {
    if ring.is_galois_element(element) {
        Ok(())
    } else {
        Err(RlweError::InvalidGaloisElement { element, two_n: ring.index() })
    }
}

/// The first sampling index of the Galois key for element `g`: `g * 2^32`, so the digit
/// indices `g * 2^32 + j` of different elements never meet, nor those of the relinearization
/// key (`j < 2^32`), even under one seed. Elements are below `2N <= 2^18`, so every index stays
/// below the samplers' `2^56`.
pub(crate) fn galois_first_index(element: u64) -> u64 {
    element << 32
}

/// Key-switching keys from `s(x^g)` to `s`, one per Galois element `g` (odd, below `2N`).
pub struct GaloisKeys<B: RlweBackend> {
    params: Arc<RlweParameters>,
    keys: BTreeMap<u64, KeySwitchingKey<B>>,
    key_set: Option<KeySetId>,
}

impl<B: RlweBackend> fmt::Debug for GaloisKeys<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("GaloisKeys")
            .field("degree", &self.params.degree())
            .field("elements", &self.elements())
            .finish_non_exhaustive()
    }
}

impl<B: RlweBackend> GaloisKeys<B> {
    /// Galois keys of `context` from one key per element (a decoder's constructor). Errors
    /// with [`RlweError::InvalidGaloisElement`] for an element that is even or not below `2N`,
    /// [`RlweError::ParameterMismatch`] for a key of other parameters and
    /// [`RlweError::KeySetMismatch`] for keys of different key sets.
    pub fn from_keys(context: &RlweContext<B>, keys: BTreeMap<u64, KeySwitchingKey<B>>) -> Result<Self> {
        let mut key_set = None;
        for (&element, key) in &keys {
            check_galois_element(context.params.ring_kind(), element)?;
            context.check(key.params(), "Galois key")?;
            key_set = KeySetId::combine(key_set, key.key_set(), "Galois key")?;
        }
        Ok(Self { params: Arc::clone(&context.params), keys, key_set })
    }

    /// The keys with the key-set identifier `key_set`, every element's key included (a
    /// decoder's).
    pub fn with_key_set(mut self, key_set: Option<KeySetId>) -> Self {
        self.keys =
            core::mem::take(&mut self.keys).into_iter().map(|(g, key)| (g, key.with_key_set(key_set))).collect();
        self.key_set = key_set;
        self
    }

    /// The identifier of the secret key's key set ([`KeySetId`]).
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The Galois elements that have a key, in increasing order.
    pub fn elements(&self) -> Vec<u64> {
        self.keys.keys().copied().collect()
    }

    /// Whether there is a key for `element`.
    pub fn contains(&self, element: u64) -> bool {
        self.keys.contains_key(&element)
    }

    /// The pairs `(b_j, a_j)` of the key for `element`, one per digit.
    pub fn key(&self, element: u64) -> Option<&[EvalPair<B>]> {
        self.keys.get(&element).map(KeySwitchingKey::digits)
    }

    /// The key-switching key for `element`.
    pub fn switching_key(&self, element: u64) -> Option<&KeySwitchingKey<B>> {
        self.keys.get(&element)
    }

    /// The number of elements with a key.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// Whether there is no key.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        &self.params
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// Galois keys of `secret` for `elements` from a fresh OS seed.
    /// (Two seeds: a uniform one, which the keys' byte encoding carries in place of the
    /// `a_j`, and an error one, which nothing keeps.)
    pub fn generate_galois_keys(&self, secret: &SecretKey<B>, elements: &[u64]) -> Result<GaloisKeys<B>> {
        self.galois_keys_from_seeds(secret, elements, &Seed::from_os()?, &Seed::from_os()?)
    }

    /// Galois keys of `secret` for each of `elements` (duplicates give one key), from `seed`:
    /// for element `g` and digit `j`, `(b_j, a_j) = (-(a_j s + E e_j) + g_j s(x^g), a_j)` over
    /// `qP` with `a_j` uniform and `e_j` binomial of index `g * 2^32 + j`. The key for `g`
    /// depends only on `(secret, g, seed)`, not on the other elements asked for, and never
    /// shares randomness with another element's key or with the relinearization key.
    /// `s(x^g)` comes from the secret's inverse transform over `qP` (exact); every polynomial
    /// derived from the secret is overwritten with zeros before this returns.
    ///
    /// Errors with [`RlweError::InvalidGaloisElement`] for an element that is even or not below
    /// `2N` (before any work), with [`RlweError::ParameterMismatch`] for a secret key of other
    /// parameters.
    pub fn galois_keys_from_seed(&self, secret: &SecretKey<B>, elements: &[u64], seed: &Seed) -> Result<GaloisKeys<B>> {
        self.galois_keys_from_seeds(secret, elements, seed, seed)
    }

    /// [`galois_keys_from_seed`](Self::galois_keys_from_seed) with the `a_j` from
    /// `uniform_seed` and the `e_j` from `error_seed` (`rlwe::key_switching_key`'s module docs):
    /// with two different seeds each key keeps `uniform_seed`, and the byte encoding carries it
    /// in place of the `a_j`.
    pub fn galois_keys_from_seeds(
        &self,
        secret: &SecretKey<B>,
        elements: &[u64],
        uniform_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<GaloisKeys<B>> {
        self.check(secret.params(), "secret key")?;
        for &element in elements {
            check_galois_element(self.params.ring_kind(), element)?;
        }
        let backend = &self.backend;
        let mut keys = BTreeMap::new();
        if !elements.is_empty() {
            let secret_coefficients =
                SecretScratch::new(backend, backend.inverse(backend.duplicate(secret.s_qp()).be()?).be()?);
            for &element in elements {
                if keys.contains_key(&element) {
                    continue;
                }
                let permuted = backend.automorphism(secret_coefficients.poly(), element).be()?;
                let permuted = SecretScratch::new(backend, backend.forward(permuted).be()?);
                let key = self.key_switching_key_with_seeds(
                    secret,
                    permuted.poly(),
                    uniform_seed,
                    error_seed,
                    galois_first_index(element),
                )?;
                permuted.zeroize()?;
                keys.insert(element, key);
            }
            secret_coefficients.zeroize()?;
        }
        Ok(GaloisKeys { params: Arc::clone(&self.params), keys, key_set: secret.key_set() })
    }

    /// What every scheme checks before an automorphism of a ciphertext, in one order, so the
    /// schemes refuse the same inputs the same way: the keys' parameters, the element (odd,
    /// below `2N`), a ciphertext of two polynomials, the key sets of the ciphertext and the
    /// keys; then the identity `g = 1` needs no key (`None`: the caller copies the ciphertext),
    /// any other element the key for it. Returns the key set of the result and the key.
    ///
    /// Errors with [`RlweError::ParameterMismatch`], [`RlweError::InvalidGaloisElement`],
    /// [`RlweError::InvalidCiphertextSize`], [`RlweError::KeySetMismatch`] or
    /// [`RlweError::MissingGaloisKey`] (naming `operation`).
    pub fn galois_key_for<'k>(
        &self,
        keys: &'k GaloisKeys<B>,
        element: u64,
        ciphertext_size: usize,
        ciphertext_key_set: Option<KeySetId>,
        operation: &'static str,
    ) -> Result<(Option<KeySetId>, Option<&'k KeySwitchingKey<B>>)> {
        self.check(keys.params(), "Galois keys")?;
        check_galois_element(self.params.ring_kind(), element)?;
        if ciphertext_size != 2 {
            return Err(RlweError::InvalidCiphertextSize { operation, expected: "2", actual: ciphertext_size });
        }
        let key_set = KeySetId::combine(ciphertext_key_set, keys.key_set(), "Galois keys")?;
        if element == 1 {
            return Ok((key_set, None));
        }
        let key = keys.switching_key(element).ok_or(RlweError::MissingGaloisKey { operation, element })?;
        Ok((key_set, Some(key)))
    }

    /// `sigma_g` of a two-polynomial ciphertext `(c_0, c_1)` over `q` (coefficient
    /// representation): `(sigma_g(c_0) + ks_b, ks_a)` with `[ks_b, ks_a]` the key switching
    /// ([`switch_key`](Self::switch_key)) of `sigma_g(c_1)` from `s(x^g)` to `s` with `key`
    /// (the caller picks the key for `g` and checks `g`), the pair being at level `level`.
    pub fn apply_galois_pair(
        &self,
        c0: &B::Poly<Coeff>,
        c1: &B::Poly<Coeff>,
        element: u64,
        key: &KeySwitchingKey<B>,
        level: usize,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        let backend = &self.backend;
        let permuted_c1 = backend.automorphism(c1, element).be()?;
        let [switched_b, switched_a] = self.switch_key_at_level(&permuted_c1, key, level)?;
        let mut out_c0 = backend.automorphism(c0, element).be()?;
        backend.add_assign(&mut out_c0, &switched_b).be()?;
        Ok([out_c0, switched_a])
    }

    /// [`apply_galois_pair`](Self::apply_galois_pair) for a pair in the evaluation
    /// representation, with the result in it: the automorphisms act on the evaluations (a
    /// permutation in NTT contexts, `Backend::automorphism_eval`), `sigma_g(c_1)` goes to
    /// coefficients for the key switching, and the switched pair comes back transformed. The
    /// same values as transforming around [`apply_galois_pair`](Self::apply_galois_pair).
    pub fn apply_galois_pair_eval(
        &self,
        c0: &B::Poly<Eval>,
        c1: &B::Poly<Eval>,
        element: u64,
        key: &KeySwitchingKey<B>,
        level: usize,
    ) -> Result<[B::Poly<Eval>; 2]> {
        let backend = &self.backend;
        let permuted_c1 = backend.automorphism_eval(c1, element).be()?;
        let permuted_c0 = backend.automorphism_eval(c0, element).be()?;
        self.switch_key_at_level_eval_of(&permuted_c1, key, level, [Some(&permuted_c0), None])
    }
}
