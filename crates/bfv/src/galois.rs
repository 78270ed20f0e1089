//! Galois automorphisms of ciphertexts: [`GaloisKeys`] and slot rotations.
//!
//! The automorphism `sigma_g: a(x) -> a(x^g)` (odd `g` below `2N`) maps an encryption of `m`
//! under `s` to an encryption of `sigma_g(m)` under `sigma_g(s) = s(x^g)`; key switching from
//! `s(x^g)` back to `s` with a Galois key for `g` finishes the job. In the batching layout of
//! [`BatchEncoder`](crate::BatchEncoder) (two rows of `N/2` slots), `g = 3^k mod 2N` rotates
//! both rows left by `k` slots and `g = 2N - 1` swaps the two rows.
//!
//! A Galois key has the digit structure and formula of the relinearization key, with target
//! `s(x^g)` in place of `s^2` (the core's `rlwe::GaloisKeys`, with its sampling indices).
//!
//! ```
//! use bfv::{BatchEncoder, BfvContext, Preset};
//! use poly::CpuBackend;
//!
//! # fn main() -> Result<(), bfv::BfvError> {
//! let params = Preset::Secure { log_degree: 12 }.build()?;
//! let context = BfvContext::new(CpuBackend, &params)?;
//! let secret = context.generate_secret_key()?;
//! let public = context.generate_public_key(&secret)?;
//! let elements = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()];
//! let keys = context.generate_galois_keys(&secret, &elements)?;
//! let encoder = BatchEncoder::new(&params)?;
//! let x = context.encrypt(&encoder.encode(&[1, 2, 3])?, &public)?;
//! let left = encoder.decode(&context.decrypt(&context.rotate_rows(&x, 1, &keys)?, &secret)?)?;
//! assert_eq!(&left[..3], &[2, 3, 0]);
//! assert_eq!(left[2047], 1); // the first slot wrapped to the end of row 0 (N/2 = 2048 slots)
//! let swapped = encoder.decode(&context.decrypt(&context.rotate_columns(&x, &keys)?, &secret)?)?;
//! assert_eq!(&swapped[2048..2051], &[1, 2, 3]);
//! # Ok(())
//! # }
//! ```

use poly::Seed;

use crate::Result;
use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, SecretKey};

/// Galois keys: the core's, one key-switching key from `s(x^g)` to `s` per element.
pub use rlwe::GaloisKeys;

impl<B: BfvBackend> BfvContext<B> {
    /// The Galois element that rotates both rows of the batching slots left by `steps`
    /// (`new[i] = old[(i + steps) mod N/2]` within each row; negative `steps` rotate right):
    /// `3^steps mod 2N`, with `3^-1 mod 2N` for negative `steps`. As `3` has order `N/2`
    /// modulo `2N`, `steps` counts modulo `N/2`; a multiple of `N/2` gives `1`, the identity.
    pub fn galois_element_for_row_rotation(&self, steps: i64) -> u64 {
        rlwe::galois_key::galois_element_for_row_rotation(self.params.degree(), steps)
    }

    /// The Galois element `2N - 1` (`x -> x^-1`), which swaps the two rows of the batching
    /// slots (the "column rotation" of SEAL).
    pub fn galois_element_for_row_swap(&self) -> u64 {
        rlwe::galois_key::galois_element_for_row_swap(self.params.degree())
    }

    /// Galois keys of `secret` for `elements` from a fresh OS seed (see
    /// [`galois_keys_from_seed`](Self::galois_keys_from_seed)).
    pub fn generate_galois_keys(&self, secret: &SecretKey<B>, elements: &[u64]) -> Result<GaloisKeys<B>> {
        self.core.generate_galois_keys(secret, elements)
    }

    /// Galois keys of `secret` for each of `elements` (duplicates give one key), from `seed`:
    /// for element `g` and digit `j`, `(b_j, a_j) = (-(a_j s + e_j) + g_j s(x^g), a_j)` over
    /// `qP` with `a_j` uniform and `e_j` binomial of index `g * 2^32 + j`. The key for `g`
    /// depends only on `(secret, g, seed)`, not on the other elements asked for, and never
    /// shares randomness with another element's key or with the relinearization key.
    /// `s(x^g)` comes from the secret's inverse transform over `qP` (exact); every polynomial
    /// derived from the secret is overwritten with zeros before this returns.
    ///
    /// Errors with [`BfvError::InvalidGaloisElement`](crate::BfvError::InvalidGaloisElement) for an element that is even or not below
    /// `2N` (before any work), with [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a secret key of other
    /// parameters.
    pub fn galois_keys_from_seed(&self, secret: &SecretKey<B>, elements: &[u64], seed: &Seed) -> Result<GaloisKeys<B>> {
        self.core.galois_keys_from_seed(secret, elements, seed)
    }

    /// Galois keys of `secret` for the row rotations by `steps`, with the row swap when
    /// `row_swap` is set (fresh OS seed; the core's
    /// [`generate_rotation_keys`](rlwe::RlweContext::generate_rotation_keys)): any other step
    /// is composed from them by [`rotate_rows`](Self::rotate_rows).
    pub fn generate_rotation_keys(
        &self,
        secret: &SecretKey<B>,
        steps: &[i64],
        row_swap: bool,
    ) -> Result<GaloisKeys<B>> {
        self.core.generate_rotation_keys(secret, steps, row_swap)
    }

    /// The compact default rotation keys: the steps `2^k` and `-2^k` and the row swap
    /// ([`rlwe::RlweContext::generate_default_rotation_keys`]), enough for every rotation,
    /// slot sums and replication.
    pub fn generate_default_rotation_keys(&self, secret: &SecretKey<B>) -> Result<GaloisKeys<B>> {
        self.core.generate_default_rotation_keys(secret)
    }

    /// `sigma_g` of a ciphertext of size 2: `(sigma_g(c_0) + ks_b, ks_a)` with
    /// `[ks_b, ks_a]` the key switching ([`rlwe::RlweContext::switch_key`]) of `sigma_g(c_1)` from
    /// `s(x^g)` to `s` with the key for `g`. It decrypts to `m(x^g)`; in the batching slots,
    /// see [`rotate_rows`](Self::rotate_rows) and [`rotate_columns`](Self::rotate_columns).
    /// The noise grows by the key switching's additive term (as relinearization). `g = 1` is
    /// the identity: a copy, no key needed, no noise added.
    ///
    /// Errors (the inputs are never changed): [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch) for a
    /// ciphertext or keys of other parameters, [`BfvError::InvalidGaloisElement`](crate::BfvError::InvalidGaloisElement) unless `g` is
    /// odd and below `2N`, [`BfvError::InvalidCiphertextSize`](crate::BfvError::InvalidCiphertextSize) unless the ciphertext has two
    /// polynomials (relinearize first), [`BfvError::MissingGaloisKey`](crate::BfvError::MissingGaloisKey) when `keys` has no key
    /// for `g`.
    pub fn apply_galois(
        &self,
        ciphertext: &Ciphertext<B>,
        element: u64,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<B>> {
        self.galois_with(ciphertext, element, keys, "apply_galois")
    }

    /// Rotates both rows of the batching slots left by `steps` (right for negative `steps`):
    /// slot `i` of each row receives slot `(i + steps) mod N/2` of the same row. Applies the
    /// element [`galois_element_for_row_rotation(steps)`](Self::galois_element_for_row_rotation)
    /// when `keys` hold it, else the fewest held rotations whose steps add up to `steps`
    /// ([`rlwe::RlweContext::row_rotation_plan`]); a multiple of `N/2` is a copy. Errors as
    /// [`apply_galois`](Self::apply_galois), and with
    /// [`BfvError::MissingRotationKey`](crate::BfvError::MissingRotationKey) (the step and its
    /// element) when no composition of the keys held makes the step.
    pub fn rotate_rows(&self, ciphertext: &Ciphertext<B>, steps: i64, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        let plan = self.core.row_rotation_plan(keys, steps, "rotate_rows")?;
        rlwe::rotation::apply_plan(ciphertext, &plan, |c, g| self.galois_with(c, g, keys, "rotate_rows"))
    }

    /// `ciphertext` rotated by each of `steps` (each as [`rotate_rows`](Self::rotate_rows)
    /// would), with one decomposition and ModUp of its `c_1` shared by the first key switch of
    /// every step where the backend gains from it ([`rlwe::hoisting`]: the same words as
    /// `rotate_rows`). Every step is checked
    /// before any work; errors as `rotate_rows`.
    pub fn rotate_rows_many(
        &self,
        ciphertext: &Ciphertext<B>,
        steps: &[i64],
        keys: &GaloisKeys<B>,
    ) -> Result<Vec<Ciphertext<B>>> {
        let plans = self.core.row_rotation_plans(keys, steps, "rotate_rows_many")?;
        self.galois_many(ciphertext, &plans, keys, "rotate_rows_many")
    }

    /// `a(x^g)` for each of `elements` (each as [`apply_galois`](Self::apply_galois) would),
    /// the ModUp of `c_1` shared where the backend gains from it ([`rlwe::hoisting`]). Every
    /// element is checked (a unit, a key held) before any work.
    pub fn apply_galois_many(
        &self,
        ciphertext: &Ciphertext<B>,
        elements: &[u64],
        keys: &GaloisKeys<B>,
    ) -> Result<Vec<Ciphertext<B>>> {
        let size = ciphertext.polys().len();
        let plans = self.core.galois_plans(keys, elements, size, ciphertext.key_set(), "apply_galois_many")?;
        self.galois_many(ciphertext, &plans, keys, "apply_galois_many")
    }

    /// The automorphisms of `plans` (Galois elements, each plan's first from the hoisted
    /// digits of `ciphertext`'s `c_1`).
    fn galois_many(
        &self,
        ciphertext: &Ciphertext<B>,
        plans: &[Vec<u64>],
        keys: &GaloisKeys<B>,
        operation: &'static str,
    ) -> Result<Vec<Ciphertext<B>>> {
        self.check_ciphertext(ciphertext)?;
        self.core.galois_many(
            ciphertext,
            plans,
            keys,
            operation,
            |c, pair, key_set| Ciphertext::from_parts(&self.params, pair.into(), c.level(), key_set, ()),
            |c, g| self.galois_with(c, g, keys, operation),
        )
    }

    /// Swaps the two rows of the batching slots (slot `i` and slot `N/2 + i` trade places):
    /// applies the element [`galois_element_for_row_swap`](Self::galois_element_for_row_swap)
    /// (`2N - 1`), which `keys` must hold. Errors as [`apply_galois`](Self::apply_galois).
    pub fn rotate_columns(&self, ciphertext: &Ciphertext<B>, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        self.galois_with(ciphertext, self.galois_element_for_row_swap(), keys, "rotate_columns")
    }

    fn galois_with(
        &self,
        ciphertext: &Ciphertext<B>,
        element: u64,
        keys: &GaloisKeys<B>,
        operation: &'static str,
    ) -> Result<Ciphertext<B>> {
        self.check_ciphertext(ciphertext)?;
        let (key_set, key) =
            self.core.galois_key_for(keys, element, ciphertext.polys().len(), ciphertext.key_set(), operation)?;
        let (Some(key), [c0, c1]) = (key, ciphertext.polys()) else {
            return self.duplicate(ciphertext).map(|copy| copy.with_key_set(key_set));
        };
        let [out_c0, switched_a] = self.core.apply_galois_pair(c0, c1, element, key, ciphertext.level())?;
        Ok(Ciphertext::from_parts(&self.params, vec![out_c0, switched_a], ciphertext.level(), key_set, ()))
    }
}
