//! The cyclic NTT of length `2^k` over the Solinas prime field ([`crate::field`]).
//!
//! Forward: radix-2 decimation in frequency, natural order in, bit-reversed order out. Stage
//! `s` (`s = 0 .. k-1`) works on half-length `h = 2^(k-1-s)`: for every pair `(i, i + h)` with
//! `i mod 2h < h`, `(x, y) -> (x + y, (x - y) w)` with `w = tw[h + (i mod h)] = omega_{2h}^(i mod h)`.
//! Inverse: the same stages undone in reverse order, `(X, Y) -> (X + Y w^-1, X - Y w^-1)`,
//! bit-reversed in, natural out; the factor `n^-1` is left to the caller (the pointwise
//! product folds it in). Values are exact field elements, so any schedule of these stages
//! (the GPU's grouped one too) gives the same words.

use crate::field;

/// Twiddle tables for one transform length.
#[derive(Debug, Clone)]
pub struct NttPlan {
    log_n: u32,
    /// `tw[h + j] = omega_{2h}^j` for `h = 1, 2, .., n/2`, `j < h`; `tw[0]` unused.
    forward: Vec<u64>,
    /// The inverses: `inverse[h + j] = omega_{2h}^-j`.
    inverse: Vec<u64>,
    /// `n^-1 mod p`.
    n_inv: u64,
}

impl NttPlan {
    /// The tables of length `2^log_n`; `None` when `log_n > 32`.
    pub fn new(log_n: u32) -> Option<Self> {
        if log_n > field::MAX_TWO_ADICITY {
            return None;
        }
        let n = 1usize << log_n;
        let mut forward = vec![0u64; n.max(2)];
        let mut inverse = vec![0u64; n.max(2)];
        let mut h = 1usize;
        let mut log_h = 0u32;
        while h < n {
            let w = field::root_of_unity(log_h + 1)?;
            let w_inv = field::inv(w);
            let (mut a, mut b) = (1u64, 1u64);
            for j in 0..h {
                forward[h + j] = a;
                inverse[h + j] = b;
                a = field::mul(a, w);
                b = field::mul(b, w_inv);
            }
            h <<= 1;
            log_h += 1;
        }
        Some(Self { log_n, forward, inverse, n_inv: field::inv(n as u64) })
    }

    /// `log2` of the length.
    pub fn log_n(&self) -> u32 {
        self.log_n
    }

    /// The length.
    pub fn len(&self) -> usize {
        1 << self.log_n
    }

    /// Always false: a transform has at least one point.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The forward twiddle table (`tw[h + j]`, length `max(n, 2)`), as the GPU uploads it.
    pub fn forward_table(&self) -> &[u64] {
        &self.forward
    }

    /// The inverse twiddle table.
    pub fn inverse_table(&self) -> &[u64] {
        &self.inverse
    }

    /// `n^-1 mod p`.
    pub fn n_inv(&self) -> u64 {
        self.n_inv
    }

    /// Forward transform in place (`data.len()` must be the length; callers check).
    pub fn forward(&self, data: &mut [u64]) {
        let n = data.len();
        let mut h = n / 2;
        while h >= 1 {
            for block in data.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    let (a, b) = (*x, *y);
                    *x = field::add(a, b);
                    *y = field::mul(field::sub(a, b), self.forward[h + j]);
                }
            }
            h /= 2;
        }
    }

    /// Inverse transform in place, without the factor `n^-1`.
    pub fn inverse_unscaled(&self, data: &mut [u64]) {
        let n = data.len();
        let mut h = 1;
        while h < n {
            for block in data.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    let a = *x;
                    let b = field::mul(*y, self.inverse[h + j]);
                    *x = field::add(a, b);
                    *y = field::sub(a, b);
                }
            }
            h *= 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn cyclic(a: &[u64], b: &[u64]) -> Vec<u64> {
        let n = a.len();
        let mut out = vec![0u64; n];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                let k = (i + j) % n;
                out[k] = field::add(out[k], field::mul(x, y));
            }
        }
        out
    }

    #[test]
    fn transform_round_trips_and_convolves() {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(7);
        for log_n in 0..=7 {
            let plan = NttPlan::new(log_n).unwrap();
            let n = plan.len();
            let a: Vec<u64> = (0..n).map(|_| rng.gen_range(0..field::P)).collect();
            let b: Vec<u64> = (0..n).map(|_| rng.gen_range(0..field::P)).collect();
            let (mut fa, mut fb) = (a.clone(), b.clone());
            plan.forward(&mut fa);
            plan.forward(&mut fb);
            let mut prod: Vec<u64> =
                fa.iter().zip(&fb).map(|(&x, &y)| field::mul(field::mul(x, y), plan.n_inv())).collect();
            plan.inverse_unscaled(&mut prod);
            assert_eq!(prod, cyclic(&a, &b), "log_n {log_n}");
            let mut back = fa.clone();
            plan.inverse_unscaled(&mut back);
            let back: Vec<u64> = back.iter().map(|&x| field::mul(x, plan.n_inv())).collect();
            assert_eq!(back, a);
        }
        assert!(NttPlan::new(33).is_none());
    }
}
