//! Galois automorphisms of ciphertexts and slot rotations, at any level: the automorphism of
//! both polynomials, then key switching of `sigma_g(c_1)` from `s(x^g)` back to `s` with the
//! core's Galois key for `g` (error scale `t`), restricted to the ciphertext's level. The
//! correction factor is unchanged. In the batching layout `g = 3^k mod 2N` rotates both rows
//! left by `k` and `2N - 1` swaps them (as bfv). Over `Phi_m` the elements are the units of
//! `Z_m^*` (the ring decides, `rlwe::galois_key::check_galois_element`), and `x -> x^g` moves
//! slot `g k` to slot `k` (`rlwe::slots::CyclotomicSlots`); there are no rows to rotate.

use poly::Seed;

use crate::backend::BgvBackend;
use crate::context::{BgvContext, Ciphertext, SecretKey};
use crate::{GaloisKeys, Result};

impl<B: BgvBackend> BgvContext<B> {
    /// The element that rotates both rows left by `steps` (`3^steps mod 2N`; the layout of
    /// `x^N + 1`, which [`rotate_rows`](Self::rotate_rows) refuses over `Phi_m`).
    pub fn galois_element_for_row_rotation(&self, steps: i64) -> u64 {
        rlwe::galois_key::galois_element_for_row_rotation(self.params.degree(), steps)
    }

    /// The element `2N - 1`, which swaps the two rows.
    pub fn galois_element_for_row_swap(&self) -> u64 {
        rlwe::galois_key::galois_element_for_row_swap(self.params.degree())
    }

    /// Galois keys of `secret` for `elements` from a fresh OS seed.
    pub fn generate_galois_keys(&self, secret: &SecretKey<B>, elements: &[u64]) -> Result<GaloisKeys<B>> {
        self.core.generate_galois_keys(secret, elements)
    }

    /// Galois keys of `secret` for `elements` from `seed` (the core's sampling indices).
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

    /// `sigma_g` of a two-polynomial ciphertext at its level (`g = 1`: a copy). Errors:
    /// [`BgvError::ParameterMismatch`](crate::BgvError::ParameterMismatch), an invalid element (the core's error),
    /// [`BgvError::InvalidCiphertextSize`](crate::BgvError::InvalidCiphertextSize) unless two polynomials, [`BgvError::MissingGaloisKey`](crate::BgvError::MissingGaloisKey).
    pub fn apply_galois(
        &self,
        ciphertext: &Ciphertext<B>,
        element: u64,
        keys: &GaloisKeys<B>,
    ) -> Result<Ciphertext<B>> {
        self.galois_with(ciphertext, element, keys, "apply_galois")
    }

    /// Rotates both rows of the batching slots left by `steps` (right for negative `steps`),
    /// with the step's own key or composed from the fewest keys held
    /// ([`rlwe::RlweContext::row_rotation_plan`]; error naming the step and its element when
    /// none make it). Over `Phi_m` there are no rows:
    /// [`BgvError::InvalidParameter`](crate::BgvError::InvalidParameter)
    /// ([`apply_galois`](Self::apply_galois) with a unit `g` of `Z_m^*` moves slot `g k` to slot `k`).
    pub fn rotate_rows(&self, ciphertext: &Ciphertext<B>, steps: i64, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        let plan = self.core.row_rotation_plan(keys, steps, "rotate_rows")?;
        rlwe::rotation::apply_plan(ciphertext, &plan, |c, g| self.galois_with(c, g, keys, "rotate_rows"))
    }

    /// `ciphertext` rotated by each of `steps` (each as [`rotate_rows`](Self::rotate_rows)
    /// would), with one decomposition and ModUp of its `c_1` shared by the first key switch of
    /// every step where the backend gains from it ([`rlwe::hoisting`]: the same words as
    /// `rotate_rows` over `x^N + 1`). Every
    /// step is checked before any work; errors as `rotate_rows`.
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
            |c, pair, key_set| self.galois_result(c, pair, key_set),
            |c, g| self.galois_with(c, g, keys, operation),
        )
    }

    /// Swaps the two rows of the batching slots. Over `Phi_m`, as
    /// [`rotate_rows`](Self::rotate_rows).
    pub fn rotate_columns(&self, ciphertext: &Ciphertext<B>, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        self.core.check_rows("rotate_columns")?;
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
            let mut copy = self.duplicate(ciphertext)?;
            copy.set_key_set(key_set);
            return Ok(copy);
        };
        let pair = self.core.apply_galois_pair_eval(c0, c1, element, key, ciphertext.level())?;
        Ok(self.galois_result(ciphertext, pair, key_set))
    }

    /// The rotated ciphertext of `pair`: `ciphertext`'s level, factor and product flag, the
    /// key switch's noise added to its estimate.
    fn galois_result(
        &self,
        ciphertext: &Ciphertext<B>,
        pair: [B::Poly<poly::Eval>; 2],
        key_set: Option<rlwe::KeySetId>,
    ) -> Ciphertext<B> {
        let state = crate::context::BgvCiphertextState {
            noise_bits: self.params.noise_model().key_switched(ciphertext.state().noise_bits),
            ..*ciphertext.state()
        };
        self.ciphertext_with_state(pair.into(), ciphertext.level(), key_set, state)
    }
}
