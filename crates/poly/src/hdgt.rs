//! Hierarchical DGT: the DGT of [`crate::dgt`] computed as a four-step transform over an
//! `Nr x Nc` matrix, `N/2 = Nr * Nc` (Alves et al., "Faster homomorphic encryption over
//! GPGPUs via hierarchical DGT", Section 3.2, Algorithms 4 and 5; after Bailey's four-step
//! FFT). Each sub-transform is short enough for one GPU thread block.
//!
//! Write `K = N/2`, `R = Nr`, `C = Nc`. The folded and twisted vector `y` (as in the DGT) is
//! a row-major `R x C` matrix: element `n = r*C + c` is at row `r`, column `c`. Then:
//! 1. a length-`R` DGT down each of the `C` columns, root `g^C`, output bit-reversed
//!    (row `r` now holds frequency `f1 = bitrev_{log R}(r)`);
//! 2. element `(r, c)` is multiplied by `g^(bitrev_{log R}(r) * c)`. This is the paper's
//!    `g^(bit-reversal(j) * k)` with the exponent made exact: `bitrev` is over `log2 R` bits
//!    and `g` has order `K`, so the exponent is below `K` and no reduction is needed;
//! 3. a length-`C` DGT along each of the `R` rows, root `g^R`, output bit-reversed (column
//!    `c` now holds `f2 = bitrev_{log C}(c)`).
//!
//! Element `(r, c)` then holds `sum_n y_n g^(n (f1 + R f2))`, and because
//! `bitrev_{log K}(r*C + c) = bitrev_{log C}(c) * R + bitrev_{log R}(r)`, that is exactly the
//! DGT's element at position `r*C + c`. So the row-major matrix **is** the DGT evaluation
//! vector (same interleaved layout, `eval[2j] = re`, `eval[2j+1] = im`), bit for bit, with
//! no reindexing.
//!
//! Both sub-transforms use prefixes of the DGT's twiddle table (its entries do not depend on
//! the transform length). Scaling differs from the paper's Algorithm 5, which folds `C^-1`
//! into the step-2 twiddles and `R^-1` into the inverse twist: here all of `K^-1 = (RC)^-1`
//! stays in the DGT's inverse twist, so the two transforms share that table; the result is
//! the same canonical vector.

use crate::dgt::{
    DgtPlan, bit_reverse, check_canonical, forward_butterflies, inverse_butterflies, mul_shoup_lazy, reduce_all_from_2p,
};
use crate::{PolyError, Result};
use modarith::Modulus;

/// Precomputed tables for the hierarchical DGT of degree `N` with an `Nr x Nc` split
/// (`N/2 = Nr * Nc`, both powers of two).
///
/// Besides the tables of its [`DgtPlan`] (twist, inverse twist, twiddles), it holds the
/// step-2 twiddles, row-major `Nr x Nc` (`N/2` entries, canonical, with Shoup companions):
/// - [`HdgtPlan::step_twiddles`]`[r * Nc + c] = g^(bitrev_{log Nr}(r) * c)`;
/// - [`HdgtPlan::inverse_step_twiddles`]`[r * Nc + c] = g^-(bitrev_{log Nr}(r) * c)`.
///
/// Its forward output equals [`DgtPlan::forward_inplace`]'s bit for bit (see the module
/// documentation), and its inverse takes that vector back to coefficients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HdgtPlan {
    dgt: DgtPlan,
    rows: usize,
    cols: usize,
    step_twiddles: Vec<u64>,
    step_twiddles_shoup: Vec<u64>,
    inverse_step_twiddles: Vec<u64>,
    inverse_step_twiddles_shoup: Vec<u64>,
}

impl HdgtPlan {
    /// The plan with the default split: `N/2 = 2^e`, `Nc = 2^ceil(e/2)` columns and
    /// `Nr = 2^floor(e/2)` rows, so the matrix is square or has twice as many columns as
    /// rows (the contiguous row transforms are the longer ones).
    ///
    /// `degree` must be a power of two in `4..=2^17`; `modulus` must be `1 mod 2 * degree`.
    pub fn new(modulus: Modulus, degree: usize) -> Result<Self> {
        let dgt = DgtPlan::new(modulus, degree)?;
        let log_half = (degree / 2).trailing_zeros();
        let rows = 1usize << (log_half / 2);
        let cols = (degree / 2) / rows;
        Self::from_dgt(dgt, rows, cols)
    }

    /// The plan with an explicit split: `rows * cols = degree / 2`, both powers of two
    /// (`1` allowed, which degenerates into the plain DGT).
    ///
    /// Errors with [`PolyError::InvalidSplit`] otherwise, and as [`DgtPlan::new`] for a bad
    /// degree or modulus.
    pub fn with_split(modulus: Modulus, degree: usize, rows: usize, cols: usize) -> Result<Self> {
        let dgt = DgtPlan::new(modulus, degree)?;
        Self::from_dgt(dgt, rows, cols)
    }

    fn from_dgt(dgt: DgtPlan, rows: usize, cols: usize) -> Result<Self> {
        let degree = dgt.degree();
        let invalid = |reason| PolyError::InvalidSplit { rows, cols, degree, reason };
        if !rows.is_power_of_two() || !cols.is_power_of_two() {
            return Err(invalid("rows and columns must be powers of two"));
        }
        if rows.checked_mul(cols) != Some(degree / 2) {
            return Err(invalid("rows * columns must equal N/2"));
        }
        let modulus = *dgt.modulus();
        let g = dgt.root_of_unity();
        let g_inv = modulus.inv(g)?;
        let log_rows = rows.trailing_zeros();
        let table = |root: u64| {
            let mut values = Vec::with_capacity(rows * cols);
            for r in 0..rows {
                let row_root = modulus.pow(root, bit_reverse(r, log_rows) as u64);
                let mut acc = 1u64;
                for _ in 0..cols {
                    values.push(acc);
                    acc = modulus.mul(acc, row_root);
                }
            }
            let shoup = values.iter().map(|&w| modulus.shoup(w)).collect::<Vec<_>>();
            (values, shoup)
        };
        let (step_twiddles, step_twiddles_shoup) = table(g);
        let (inverse_step_twiddles, inverse_step_twiddles_shoup) = table(g_inv);
        Ok(Self {
            dgt,
            rows,
            cols,
            step_twiddles,
            step_twiddles_shoup,
            inverse_step_twiddles,
            inverse_step_twiddles_shoup,
        })
    }

    /// The underlying DGT plan: modulus, degree, roots, twist and twiddle tables.
    pub fn dgt(&self) -> &DgtPlan {
        &self.dgt
    }

    /// The prime `p`.
    pub fn modulus(&self) -> &Modulus {
        self.dgt.modulus()
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.dgt.degree()
    }

    /// `Nr`, the number of rows (the length of the column transforms of step 1).
    pub fn rows(&self) -> usize {
        self.rows
    }

    /// `Nc`, the number of columns (the length of the row transforms of step 3).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// Step-2 twiddles, row-major: `[r * Nc + c] = g^(bitrev_{log Nr}(r) * c)`.
    pub fn step_twiddles(&self) -> &[u64] {
        &self.step_twiddles
    }

    /// Shoup companions of [`HdgtPlan::step_twiddles`].
    pub fn step_twiddles_shoup(&self) -> &[u64] {
        &self.step_twiddles_shoup
    }

    /// Inverse step-2 twiddles, row-major: `[r * Nc + c] = g^-(bitrev_{log Nr}(r) * c)`.
    pub fn inverse_step_twiddles(&self) -> &[u64] {
        &self.inverse_step_twiddles
    }

    /// Shoup companions of [`HdgtPlan::inverse_step_twiddles`].
    pub fn inverse_step_twiddles_shoup(&self) -> &[u64] {
        &self.inverse_step_twiddles_shoup
    }

    /// Forward hierarchical DGT in place (Algorithm 4): canonical coefficients in natural
    /// order become the canonical DGT evaluation vector, identical to
    /// [`DgtPlan::forward_inplace`]'s output.
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`.
    pub fn forward_inplace(&self, a: &mut [u64]) -> Result<()> {
        let p = self.modulus().value();
        check_canonical(a, self.degree(), p)?;
        let coefficients = a.to_vec();
        self.dgt.fold_and_twist(&coefficients, a);
        let (twiddles, twiddles_shoup) = (self.dgt.twiddles(), self.dgt.twiddles_shoup());
        // Step 1: column transforms; an element of the length-R transform is a whole row
        // (C Gaussian integers, 2C words), so the butterflies run along contiguous rows.
        forward_butterflies(a, 2 * self.cols, twiddles, twiddles_shoup, p);
        // Step 2: values stay in [0, 2p).
        for ((pair, &w), &w_shoup) in a.chunks_exact_mut(2).zip(&self.step_twiddles).zip(&self.step_twiddles_shoup) {
            pair[0] = mul_shoup_lazy(pair[0], w, w_shoup, p);
            pair[1] = mul_shoup_lazy(pair[1], w, w_shoup, p);
        }
        // Step 3: row transforms.
        for row in a.chunks_exact_mut(2 * self.cols) {
            forward_butterflies(row, 2, twiddles, twiddles_shoup, p);
        }
        reduce_all_from_2p(a, p);
        Ok(())
    }

    /// Inverse hierarchical DGT in place (Algorithm 5): the canonical DGT evaluation vector
    /// becomes canonical coefficients in natural order.
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`.
    pub fn inverse_inplace(&self, a: &mut [u64]) -> Result<()> {
        let p = self.modulus().value();
        check_canonical(a, self.degree(), p)?;
        let mut evaluations = a.to_vec();
        let (twiddles, twiddles_shoup) = (self.dgt.inverse_twiddles(), self.dgt.inverse_twiddles_shoup());
        // Step 3 undone: inverse row transforms, values in [0, 4p).
        for row in evaluations.chunks_exact_mut(2 * self.cols) {
            inverse_butterflies(row, 2, twiddles, twiddles_shoup, p);
        }
        // Step 2 undone: values back in [0, 2p).
        for ((pair, &w), &w_shoup) in
            evaluations.chunks_exact_mut(2).zip(&self.inverse_step_twiddles).zip(&self.inverse_step_twiddles_shoup)
        {
            pair[0] = mul_shoup_lazy(pair[0], w, w_shoup, p);
            pair[1] = mul_shoup_lazy(pair[1], w, w_shoup, p);
        }
        // Step 1 undone: inverse column transforms.
        inverse_butterflies(&mut evaluations, 2 * self.cols, twiddles, twiddles_shoup, p);
        // Inverse twist with K^-1 folded in, and unfold.
        self.dgt.untwist_and_unfold(&evaluations, a);
        Ok(())
    }

    /// Gaussian element-wise product of two evaluation vectors (see
    /// [`crate::dgt::gaussian_pointwise_mul`]); the same as [`DgtPlan::pointwise_mul`].
    pub fn pointwise_mul(&self, a: &[u64], b: &[u64], out: &mut [u64]) -> Result<()> {
        self.dgt.pointwise_mul(a, b, out)
    }
}
