//! Galois automorphisms of ciphertexts and slot rotations, at any level: the automorphism of
//! both polynomials, then key switching of `sigma_g(c_1)` from `s(x^g)` back to `s` with the
//! core's Galois key for `g` (error scale `t`), restricted to the ciphertext's level. The
//! correction factor is unchanged. In the batching layout `g = 3^k mod 2N` rotates both rows
//! left by `k` and `2N - 1` swaps them (as bfv).

use poly::Seed;

use crate::backend::BgvBackend;
use crate::context::{BgvContext, Ciphertext, SecretKey};
use crate::{GaloisKeys, Result};

impl<B: BgvBackend> BgvContext<B> {
    /// The element that rotates both rows left by `steps` (`3^steps mod 2N`).
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

    /// Rotates both rows of the batching slots left by `steps` (right for negative `steps`).
    pub fn rotate_rows(&self, ciphertext: &Ciphertext<B>, steps: i64, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        self.galois_with(ciphertext, self.galois_element_for_row_rotation(steps), keys, "rotate_rows")
    }

    /// Swaps the two rows of the batching slots.
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
            self.core.galois_key_for(keys, element, ciphertext.polys.len(), ciphertext.key_set, operation)?;
        let (Some(key), [c0, c1]) = (key, ciphertext.polys.as_slice()) else {
            let mut copy = self.duplicate(ciphertext)?;
            copy.key_set = key_set;
            return Ok(copy);
        };
        let [out_c0, switched_a] = self.core.apply_galois_pair_eval(c0, c1, element, key, ciphertext.level)?;
        let mut out = self.ciphertext(vec![out_c0, switched_a], ciphertext.level, ciphertext.correction, key_set);
        out.product = ciphertext.product;
        Ok(out)
    }
}
