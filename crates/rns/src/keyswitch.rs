//! Key-switching building blocks for hybrid key switching with special primes `P`
//! (Han and Ki, "Better Bootstrapping for Approximate Homomorphic Encryption", CT-RSA 2020;
//! the RNS digits of BEHZ Sec. 4.3 are the case of one prime per digit):
//!
//! - the RNS digits: the primes of `q` are split into consecutive groups `D_0, D_1, ...` of
//!   `primes_per_digit` primes (the last may be shorter), `Q_j = prod D_j`, and digit `j` of
//!   `a` is `[a]_{Q_j}`, i.e. the limbs of `D_j` ([`KeySwitchContext::digit`]);
//! - ModUp: each digit extended from `Q_j` to `q u P` ([`KeySwitchContext::mod_up`]);
//! - the gadget factors `g_j = P (q / Q_j) [(q / Q_j)^-1]_{Q_j} mod qP`, with
//!   `sum_j ModUp(d_j) g_j = P a mod qP` ([`KeySwitchContext::gadget_factor`]);
//! - ModDown: the rounded division by `P` from `q u P` to `q` ([`KeySwitchContext::mod_down`]).
//!
//! A polynomial over `q u P` has the limbs of `q` first, then those of `P`.

use core::ops::Range;

use num_bigint::BigUint;

use crate::base::RnsBase;
use crate::convert::BaseConverter;
use crate::{Result, RnsError, check_any_degree, check_len};

/// How ModUp extends a digit from `Q_j` to the other primes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Extension {
    /// Fast base conversion (BEHZ): the extended digit is `[a]_{Q_j} + u Q_j` with
    /// `0 <= u < |D_j|`. Cheapest; the overflow vanishes in `g_j` modulo `qP` and only adds
    /// to the key-switching noise.
    Fast,
    /// Exact conversion (HPS) to the centered `[a]_{Q_j}` in `(-Q_j/2, Q_j/2)` (up to the
    /// `2^-66` window of [`BaseConverter::exact_convert`]): the smallest digit, hence the
    /// least noise, for one fixed-point sum more per coefficient.
    Exact,
}

/// Precomputed tables for digit decomposition, ModUp and ModDown over ciphertext primes `q`
/// and special primes `P`, at degree `N`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeySwitchContext {
    degree: usize,
    q: RnsBase,
    p: RnsBase,
    digits: Vec<Range<usize>>,
    /// Per digit: `D_j -> (q \ D_j) u P` (target limbs: the other primes of `q` in order,
    /// then `P`).
    mod_up: Vec<BaseConverter>,
    p_to_q: BaseConverter,
    p_inv_q: Vec<u64>,
    p_inv_q_shoup: Vec<u64>,
}

impl KeySwitchContext {
    /// Tables for degree `N`, ciphertext primes `q`, special primes `p` and digits of
    /// `primes_per_digit` primes of `q` each.
    ///
    /// Errors if `N` is not a power of two up to `2^17`; a modulus is not a prime below `2^62`
    /// or appears twice in `q u P`; or `primes_per_digit` is not in `1..=k`. (For the usual
    /// noise bound choose `P >= max_j Q_j`; that is the caller's trade-off and is not checked.)
    pub fn new(degree: usize, q: &[u64], p: &[u64], primes_per_digit: usize) -> Result<Self> {
        check_any_degree(degree)?;
        let q = RnsBase::new(q)?;
        let p = RnsBase::new(p)?;
        q.check_disjoint(&p, "in q and the special primes P")?;
        let k = q.len();
        if primes_per_digit == 0 || primes_per_digit > k {
            return Err(RnsError::InvalidParameter {
                name: "primes per digit",
                value: primes_per_digit as u64,
                reason: "must be between 1 and the number of primes of q",
            });
        }
        let digits: Vec<Range<usize>> =
            (0..k).step_by(primes_per_digit).map(|start| start..(start + primes_per_digit).min(k)).collect();
        let mut mod_up = Vec::with_capacity(digits.len());
        for range in &digits {
            let digit_base = q.sub_base(range.clone())?;
            let others: Vec<_> =
                q.moduli()[..range.start].iter().chain(&q.moduli()[range.end..]).chain(p.moduli()).copied().collect();
            mod_up.push(BaseConverter::new(&digit_base, &RnsBase::from_moduli(others)?)?);
        }
        let mut p_inv_q = Vec::with_capacity(k);
        let mut p_inv_q_shoup = Vec::with_capacity(k);
        for m in q.moduli() {
            let w = p.product_inverse_mod(m)?;
            p_inv_q.push(w);
            p_inv_q_shoup.push(m.shoup(w));
        }
        Ok(Self { degree, p_to_q: BaseConverter::new(&p, &q)?, q, p, digits, mod_up, p_inv_q, p_inv_q_shoup })
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The ciphertext base `q`.
    pub fn q(&self) -> &RnsBase {
        &self.q
    }

    /// The special primes `P`.
    pub fn p(&self) -> &RnsBase {
        &self.p
    }

    /// `q u P` (limbs of `q` first).
    pub fn q_p(&self) -> Result<RnsBase> {
        self.q.union(&self.p)
    }

    /// Number of digits.
    pub fn num_digits(&self) -> usize {
        self.digits.len()
    }

    /// The limbs of `q` that form digit `j`.
    pub fn digit_range(&self, digit: usize) -> Result<Range<usize>> {
        self.digits.get(digit).cloned().ok_or(RnsError::DigitOutOfRange { digit, count: self.digits.len() })
    }

    /// The converter `D_j -> (q \ D_j) u P` used by ModUp.
    pub fn mod_up_converter(&self, digit: usize) -> Result<&BaseConverter> {
        self.mod_up.get(digit).ok_or(RnsError::DigitOutOfRange { digit, count: self.digits.len() })
    }

    /// The converter `P -> q` used by ModDown, and `P^-1 mod q_i` with Shoup companions.
    pub fn mod_down_tables(&self) -> (&BaseConverter, &[u64], &[u64]) {
        (&self.p_to_q, &self.p_inv_q, &self.p_inv_q_shoup)
    }

    /// Digit `j` of `input` (over `q`): `[a]_{Q_j}` over the base `D_j`, which is the limbs
    /// of `D_j` (a sub-slice, no copy). Errors on a wrong length, a non-canonical residue or
    /// a digit out of range.
    pub fn digit<'a>(&self, input: &'a [u64], digit: usize) -> Result<&'a [u64]> {
        let range = self.digit_range(digit)?;
        self.q.check_poly(input, self.degree, "key-switching input")?;
        Ok(&input[range.start * self.degree..range.end * self.degree])
    }

    /// ModUp of digit `j` of `input` (over `q`) into `output` (over `q u P`): the limbs of
    /// `D_j` are copied, the others are the chosen [`Extension`] of `[a]_{Q_j}`. As integers,
    /// the output coefficients are `[a]_{Q_j} + u Q_j` with `0 <= u < |D_j|` (fast) or the
    /// centered `[a]_{Q_j}` (exact).
    ///
    /// Errors on wrong lengths, non-canonical residues or a digit out of range; `output` is
    /// untouched then.
    pub fn mod_up(&self, input: &[u64], digit: usize, extension: Extension, output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        let k = self.q.len();
        let l = self.p.len();
        let range = self.digit_range(digit)?;
        self.q.check_poly(input, n, "ModUp input")?;
        check_len("ModUp output", (k + l) * n, output.len())?;
        let converter = &self.mod_up[digit];
        let source = &input[range.start * n..range.end * n];
        let mut extended = vec![0u64; converter.to_base().len() * n];
        match extension {
            Extension::Fast => converter.fast_convert(source, &mut extended)?,
            Extension::Exact => converter.exact_convert(source, &mut extended)?,
        }
        // The target limbs are q's limbs before D_j, those after D_j, then P.
        let before = range.start * n;
        output[..before].copy_from_slice(&extended[..before]);
        output[before..range.end * n].copy_from_slice(source);
        output[range.end * n..].copy_from_slice(&extended[before..]);
        Ok(())
    }

    /// ModUp of every digit: `output` holds `num_digits` polynomials over `q u P`, one after
    /// the other (digit `j` at `[j (k + l) N, (j + 1) (k + l) N)`). Errors as
    /// [`mod_up`](Self::mod_up).
    pub fn mod_up_all(&self, input: &[u64], extension: Extension, output: &mut [u64]) -> Result<()> {
        let stride = (self.q.len() + self.p.len()) * self.degree;
        check_len("ModUp output (all digits)", stride * self.digits.len(), output.len())?;
        self.q.check_poly(input, self.degree, "ModUp input")?;
        for (digit, chunk) in output.chunks_exact_mut(stride).enumerate() {
            self.mod_up(input, digit, extension, chunk)?;
        }
        Ok(())
    }

    /// The gadget factor `g_j = P (q / Q_j) [(q / Q_j)^-1]_{Q_j} mod qP` as residues over
    /// `q u P` (it is `P mod q_i` on the limbs of `D_j` and 0 elsewhere). Key-switching keys
    /// encrypt `g_j s'`; then `sum_j ModUp(d_j) g_j = P a mod qP`.
    pub fn gadget_factor(&self, digit: usize) -> Result<Vec<u64>> {
        let range = self.digit_range(digit)?;
        let mut factor = vec![0u64; self.q.len() + self.p.len()];
        for i in range {
            factor[i] = self.p.product_mod(self.q.moduli()[i].value());
        }
        Ok(factor)
    }

    /// `P` as a big integer.
    pub fn special_product(&self) -> &BigUint {
        self.p.product()
    }

    /// ModDown: for each coefficient `x` of `input` (over `q u P`, limbs of `q` first; any
    /// integer with these residues) writes `round(x / P) mod q_i` to `output` (over `q`),
    /// computed as `(x - [x]_P) P^-1` with `[x]_P` the centered remainder from the exact
    /// conversion `P -> q`. `P` is odd, so there are no ties; the result is
    /// `round(x / P) - 1` (that is, `floor(x / P)`) exactly when `x mod P` is in
    /// `[P/2, P/2 + l P 2^-66)` (the exact conversion's window).
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn mod_down(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        let k = self.q.len();
        check_len("ModDown input", (k + self.p.len()) * n, input.len())?;
        self.q.check_poly(&input[..k * n], n, "ModDown input (q limbs)")?;
        self.p.check_poly(&input[k * n..], n, "ModDown input (P limbs)")?;
        check_len("ModDown output", k * n, output.len())?;
        let mut remainder = vec![0u64; k * n];
        self.p_to_q.exact_convert_unchecked(&input[k * n..], n, &mut remainder);
        for (i, m) in self.q.moduli().iter().enumerate() {
            let limb = i * n..(i + 1) * n;
            for ((out, &x), &r) in output[limb.clone()].iter_mut().zip(&input[limb.clone()]).zip(&remainder[limb]) {
                *out = m.mul_shoup(m.sub(x, r), self.p_inv_q[i], self.p_inv_q_shoup[i]);
            }
        }
        Ok(())
    }
}
