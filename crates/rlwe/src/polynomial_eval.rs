//! Polynomials over `Z_t` evaluated on ciphertexts slot by slot, by Paterson and Stockmeyer's
//! method ("On the number of nonscalar multiplications necessary to evaluate polynomials", SIAM
//! J. Comput. 1973), the form bootstrapping's digit extraction evaluates its polynomials in
//! (Chen and Han, Eurocrypt 2018; Halevi and Shoup, J. Cryptology 2021).
//!
//! For degree `d` the method takes baby steps `x, x^2, .., x^k` (`k` a power of two) and giant
//! steps `x^k, x^2k, x^4k, .., x^(2^(m-1) k)` with `k 2^m > d`, then splits the polynomial at
//! the largest giant step, `f = r + q x^(2^(m-1) k)`, and evaluates `q` and `r` the same way
//! down to chunks of fewer than `k` coefficients, which are linear combinations of the baby
//! steps (products by scalars, no key switching). That is about `k + m + 2^m` ciphertext
//! products where Horner's rule takes `d`, at a depth of about `log2 k + m`, close to
//! `log2 d`. [`PolynomialPlan`] picks `k` with the fewest products (the smaller depth on a tie).
//!
//! The algorithm is written once over [`PolynomialRing`]: [`Evaluator::evaluate_polynomial`]
//! runs it on ciphertexts; the tests also run it on plain residues, where they count its
//! products and its depth.

use crate::evaluator::Evaluator;
use crate::{RelinearizationKey, Result, RlweBackend, RlweError};

/// What the evaluation needs of the values it computes on: products, sums, products by a
/// scalar of `Z_t`, and adding a scalar.
pub trait PolynomialRing {
    /// A value (a ciphertext, or a plain residue in tests).
    type Element;
    /// `a * b` (for ciphertexts: the product, relinearized).
    fn multiply(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element>;
    /// `a + b`.
    fn add(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element>;
    /// `c a` for a scalar `c` in `[1, t)`.
    fn scale(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element>;
    /// `a + c` for a scalar `c` in `[0, t)`.
    fn add_scalar(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element>;
    /// The constant `c` in `[0, t)`, made from any element `like` (for ciphertexts: `like - like
    /// + c`, under the same key and at its level).
    fn constant(&mut self, like: &Self::Element, c: u64) -> Result<Self::Element>;
}

/// A polynomial over `Z_t` with the shape of its Paterson-Stockmeyer evaluation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PolynomialPlan {
    /// Coefficients reduced modulo `t`, lowest degree first, without zero leading terms.
    coefficients: Vec<u64>,
    /// `t`.
    modulus: u64,
    /// The baby steps' bound `k` (a power of two; chunks have fewer than `k` coefficients).
    baby: usize,
    /// The number `m` of giant steps (`k 2^m` exceeds the degree).
    giant: u32,
}

impl PolynomialPlan {
    /// The polynomial `sum_i coefficients[i] x^i` over `Z_modulus` (each coefficient reduced
    /// modulo `modulus`). Errors on a modulus below 2.
    pub fn new(coefficients: &[u64], modulus: u64) -> Result<Self> {
        if modulus < 2 {
            return Err(RlweError::InvalidParameter {
                name: "polynomial modulus",
                value: modulus,
                requirement: "the plaintext modulus t, at least 2".into(),
            });
        }
        let mut reduced: Vec<u64> = coefficients.iter().map(|&c| c % modulus).collect();
        while reduced.len() > 1 && reduced.last() == Some(&0) {
            reduced.pop();
        }
        if reduced.is_empty() {
            reduced.push(0);
        }
        let (baby, giant) = Self::shape(reduced.len() - 1);
        Ok(Self { coefficients: reduced, modulus, baby, giant })
    }

    /// The degree (0 for a constant).
    pub fn degree(&self) -> usize {
        self.coefficients.len() - 1
    }

    /// The coefficients, reduced, lowest degree first.
    pub fn coefficients(&self) -> &[u64] {
        &self.coefficients
    }

    /// `(k, m)`: the baby steps' bound and the number of giant steps.
    pub fn shape_of_evaluation(&self) -> (usize, u32) {
        (self.baby, self.giant)
    }

    /// The value at `x` in `Z_t` (Horner's rule on plain residues).
    pub fn evaluate_plain(&self, x: u64) -> u64 {
        let t = u128::from(self.modulus);
        let x = u128::from(x) % t;
        let value = self.coefficients.iter().rev().fold(0u128, |acc, &c| (acc * x + u128::from(c)) % t);
        value as u64
    }

    /// The products of an evaluation of degree `d` with baby steps up to `k` and `m` giant
    /// steps (an upper bound: chunks that are constant need none): `k - 1` baby steps, `m - 1`
    /// squarings, one product per split (`2^m - 1` splits).
    fn cost(k: usize, m: u32) -> usize {
        (k - 1) + (m.saturating_sub(1) as usize) + ((1usize << m) - 1)
    }

    /// The `(k, m)` with the fewest products for degree `d` (the smaller `log2 k + m` on a tie).
    fn shape(d: usize) -> (usize, u32) {
        if d < 2 {
            return (2, 0);
        }
        let mut best = (usize::MAX, u32::MAX, 2usize, 0u32);
        let mut k = 2usize;
        while k <= d.next_power_of_two() {
            // The fewest giant steps with k 2^m > d.
            let mut m = 0u32;
            while (k << m) <= d {
                m += 1;
            }
            let (cost, depth) = (Self::cost(k, m), k.trailing_zeros() + m);
            if (cost, depth) < (best.0, best.1) {
                best = (cost, depth, k, m);
            }
            k *= 2;
        }
        (best.2, best.3)
    }

    /// The polynomial evaluated at `x` in `ring`.
    pub fn evaluate<R: PolynomialRing>(&self, ring: &mut R, x: &R::Element) -> Result<R::Element> {
        let d = self.degree();
        // Baby steps x^1 .. x^min(k, d): x^i = x^(2^floor(log2 i)) x^(i - 2^floor(log2 i)), so
        // x^i sits at depth ceil(log2 i). powers[i - 2] holds x^i.
        let top = self.baby.min(d.max(1));
        let mut powers: Vec<R::Element> = Vec::with_capacity(top.saturating_sub(1));
        for i in 2..=top {
            let high = 1usize << i.ilog2();
            let low = i - high;
            let value = if low == 0 {
                let half = power(x, &powers, high / 2);
                ring.multiply(half, half)?
            } else {
                ring.multiply(power(x, &powers, high), power(x, &powers, low))?
            };
            powers.push(value);
        }
        // Giant steps x^k (the last baby step: k <= d whenever m > 0), then x^2k, ..,
        // x^(2^(m-1) k) by squaring; giants[j - 1] holds x^(2^j k).
        let mut giants: Vec<R::Element> = Vec::with_capacity(self.giant.saturating_sub(1) as usize);
        for j in 1..self.giant {
            let previous = if j == 1 { power(x, &powers, self.baby) } else { &giants[j as usize - 2] };
            let value = ring.multiply(previous, previous)?;
            giants.push(value);
        }
        let steps = Steps { x, powers: &powers, giants: &giants, baby: self.baby };
        match self.chunk(ring, &steps, &self.coefficients, self.giant)? {
            Term::Value(value) => Ok(value),
            Term::Constant(c) => ring.constant(x, c),
        }
    }

    /// `coefficients` (fewer than `k 2^m`) evaluated with the giant steps below `m`.
    fn chunk<R: PolynomialRing>(
        &self,
        ring: &mut R,
        steps: &Steps<'_, R::Element>,
        coefficients: &[u64],
        m: u32,
    ) -> Result<Term<R::Element>> {
        let coefficients = trim(coefficients);
        if coefficients.len() <= 1 {
            return Ok(Term::Constant(coefficients.first().copied().unwrap_or(0)));
        }
        if m == 0 || coefficients.len() <= steps.baby {
            return self.linear_combination(ring, steps, coefficients);
        }
        let split = steps.baby << (m - 1);
        if coefficients.len() <= split {
            return self.chunk(ring, steps, coefficients, m - 1);
        }
        let (low, high) = coefficients.split_at(split);
        let giant = if m == 1 { power(steps.x, steps.powers, steps.baby) } else { &steps.giants[m as usize - 2] };
        // high x^split: a product, or a scalar times the giant step when high is a constant.
        let high_term = match self.chunk(ring, steps, high, m - 1)? {
            Term::Constant(0) => None,
            Term::Constant(c) => Some(ring.scale(giant, c)?),
            Term::Value(value) => Some(ring.multiply(&value, giant)?),
        };
        let low_term = self.chunk(ring, steps, low, m - 1)?;
        Ok(match (high_term, low_term) {
            (None, low) => low,
            (Some(high), Term::Constant(c)) => {
                if c == 0 {
                    Term::Value(high)
                } else {
                    Term::Value(ring.add_scalar(&high, c)?)
                }
            }
            (Some(high), Term::Value(low)) => Term::Value(ring.add(&high, &low)?),
        })
    }

    /// `sum_i c_i x^i` over the baby steps (`c` shorter than `k`, or than `d + 1`).
    fn linear_combination<R: PolynomialRing>(
        &self,
        ring: &mut R,
        steps: &Steps<'_, R::Element>,
        coefficients: &[u64],
    ) -> Result<Term<R::Element>> {
        let mut sum: Option<R::Element> = None;
        for (i, &c) in coefficients.iter().enumerate().skip(1) {
            if c == 0 {
                continue;
            }
            let term = ring.scale(power(steps.x, steps.powers, i), c)?;
            sum = Some(match sum {
                None => term,
                Some(acc) => ring.add(&acc, &term)?,
            });
        }
        let constant = coefficients[0];
        Ok(match sum {
            None => Term::Constant(constant),
            Some(value) if constant == 0 => Term::Value(value),
            Some(value) => Term::Value(ring.add_scalar(&value, constant)?),
        })
    }
}

/// The baby and giant steps of one evaluation: `x`, `powers[i - 2] = x^i` for `2 <= i <= k`,
/// `giants[j - 1] = x^(2^j k)`.
struct Steps<'a, E> {
    x: &'a E,
    powers: &'a [E],
    giants: &'a [E],
    baby: usize,
}

/// A partial result: a value, or a constant not yet made into one.
enum Term<E> {
    Value(E),
    Constant(u64),
}

/// `x^i` from the baby steps (`x` itself for `i = 1`; `powers[i - 2]` above).
fn power<'a, E>(x: &'a E, powers: &'a [E], i: usize) -> &'a E {
    if i <= 1 { x } else { &powers[i - 2] }
}

/// The coefficients without zero leading terms.
fn trim(coefficients: &[u64]) -> &[u64] {
    let len = coefficients.iter().rposition(|&c| c != 0).map_or(0, |i| i + 1);
    &coefficients[..len]
}

/// Ciphertexts of a scheme as a [`PolynomialRing`]: products relinearized with one key.
pub struct CiphertextRing<'a, B: RlweBackend, E: Evaluator<B>> {
    evaluator: &'a E,
    key: &'a RelinearizationKey<B>,
}

impl<B: RlweBackend, E: Evaluator<B>> std::fmt::Debug for CiphertextRing<'_, B, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CiphertextRing").finish_non_exhaustive()
    }
}

impl<'a, B: RlweBackend, E: Evaluator<B>> CiphertextRing<'a, B, E> {
    /// The ciphertexts of `evaluator`, multiplied with `key`.
    pub fn new(evaluator: &'a E, key: &'a RelinearizationKey<B>) -> Self {
        Self { evaluator, key }
    }
}

impl<B: RlweBackend, E: Evaluator<B>> PolynomialRing for CiphertextRing<'_, B, E> {
    type Element = E::Ciphertext;

    fn multiply(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element> {
        self.evaluator.mul_relin(a, b, self.key)
    }

    fn add(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element> {
        self.evaluator.add(a, b)
    }

    fn scale(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element> {
        self.evaluator.mul_scalar(a, c)
    }

    fn add_scalar(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element> {
        self.evaluator.add_scalar(a, c)
    }

    fn constant(&mut self, like: &Self::Element, c: u64) -> Result<Self::Element> {
        let zero = self.evaluator.sub(like, like)?;
        self.evaluator.add_scalar(&zero, c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain residues modulo `t` with the depth of each value, counting products.
    struct Plain {
        t: u64,
        products: usize,
    }

    impl PolynomialRing for Plain {
        type Element = (u64, u32);

        fn multiply(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element> {
            self.products += 1;
            let value = (u128::from(a.0) * u128::from(b.0) % u128::from(self.t)) as u64;
            Ok((value, a.1.max(b.1) + 1))
        }

        fn add(&mut self, a: &Self::Element, b: &Self::Element) -> Result<Self::Element> {
            Ok((((u128::from(a.0) + u128::from(b.0)) % u128::from(self.t)) as u64, a.1.max(b.1)))
        }

        fn scale(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element> {
            assert!((1..self.t).contains(&c), "scalars are reduced and nonzero");
            Ok(((u128::from(a.0) * u128::from(c) % u128::from(self.t)) as u64, a.1))
        }

        fn add_scalar(&mut self, a: &Self::Element, c: u64) -> Result<Self::Element> {
            assert!(c < self.t);
            Ok((((u128::from(a.0) + u128::from(c)) % u128::from(self.t)) as u64, a.1))
        }

        fn constant(&mut self, like: &Self::Element, c: u64) -> Result<Self::Element> {
            Ok((c, like.1))
        }
    }

    fn lcg(state: &mut u64) -> u64 {
        *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        *state >> 11
    }

    /// Every degree up to 80 with random coefficients (some zero), at random points and moduli:
    /// the value equals Horner's; the products stay within the plan's bound and far below the
    /// degree; the depth is at most `ceil(log2(d + 1)) + 1`.
    #[test]
    fn paterson_stockmeyer_equals_horner_with_few_products_and_small_depth() {
        let mut state = 7u64;
        for d in 0..=80usize {
            for &t in &[2u64, 3, 257, 65537, (1 << 40) + 15, u64::MAX - 58] {
                let coefficients: Vec<u64> = (0..=d)
                    .map(|i| if i == d || !lcg(&mut state).is_multiple_of(4) { lcg(&mut state) } else { 0 })
                    .collect();
                let plan = PolynomialPlan::new(&coefficients, t).unwrap();
                for _ in 0..3 {
                    let x = lcg(&mut state) % t;
                    let mut ring = Plain { t, products: 0 };
                    let (value, depth) = plan.evaluate(&mut ring, &(x, 0)).unwrap();
                    assert_eq!(value, plan.evaluate_plain(x), "d = {d}, t = {t}, x = {x}");
                    let degree = plan.degree();
                    let (k, m) = plan.shape_of_evaluation();
                    assert!(ring.products <= PolynomialPlan::cost(k, m), "d = {degree}: {} products", ring.products);
                    if degree >= 8 {
                        // About 2 sqrt(2d) + log2 d, against Horner's d.
                        let sqrt = (1..).find(|r: &usize| r * r >= 2 * degree).unwrap();
                        let bound = (2 * sqrt + degree.next_power_of_two().ilog2() as usize).min(degree - 1);
                        assert!(ring.products <= bound, "d = {degree}: {} products", ring.products);
                    }
                    let bound = if degree == 0 { 0 } else { (degree + 1).next_power_of_two().ilog2() + 1 };
                    assert!(depth <= bound, "d = {degree}: depth {depth} above {bound}");
                }
            }
        }
    }

    /// Horner's rule itself against exact big-integer arithmetic (the oracle the test above
    /// relies on).
    #[test]
    fn plain_evaluation_matches_big_integers() {
        use num_bigint::BigUint;
        let mut state = 11u64;
        for d in [0usize, 1, 5, 33] {
            let t = u64::MAX - 58;
            let coefficients: Vec<u64> = (0..=d).map(|_| lcg(&mut state)).collect();
            let plan = PolynomialPlan::new(&coefficients, t).unwrap();
            let x = lcg(&mut state);
            let mut exact = BigUint::from(0u32);
            for (i, &c) in coefficients.iter().enumerate() {
                exact += BigUint::from(c) * BigUint::from(x).pow(i as u32);
            }
            let expected = (exact % BigUint::from(t)).to_u64_digits().first().copied().unwrap_or(0);
            assert_eq!(plan.evaluate_plain(x), expected);
        }
    }

    #[test]
    fn plans_reduce_and_trim() {
        let plan = PolynomialPlan::new(&[5, 7, 0, 10, 0, 0], 5).unwrap();
        assert_eq!(plan.coefficients(), &[0, 2]);
        assert_eq!(plan.degree(), 1);
        assert_eq!(PolynomialPlan::new(&[], 7).unwrap().coefficients(), &[0]);
        assert!(matches!(PolynomialPlan::new(&[1], 1), Err(RlweError::InvalidParameter { .. })));
        // Degree 31: baby steps up to x^8 and giant steps x^8, x^16: 7 + 1 + 3 = 11 products
        // (k = 4 would take 3 + 2 + 7 = 12), against Horner's 31.
        let plan = PolynomialPlan::new(&[1; 32], 17).unwrap();
        assert_eq!(plan.shape_of_evaluation(), (8, 2));
        let mut ring = Plain { t: 17, products: 0 };
        assert_eq!(plan.evaluate(&mut ring, &(3, 0)).unwrap(), (plan.evaluate_plain(3), 5));
        assert_eq!(ring.products, 11);
    }
}
