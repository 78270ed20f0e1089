//! The RNS pieces of HPS-BFV (Halevi, Polyakov, Shoup, "An Improved RNS Variant of the BFV
//! Homomorphic Encryption Scheme", CT-RSA 2019; Sec. 2.3 of Alves et al., spog):
//!
//! - exact basis extensions `q -> P` and `P -> q` ([`HpsContext::extend_q_to_p`],
//!   [`HpsContext::extend_p_to_q`]), giving centered representatives;
//! - decryption's scale-and-round by `t/q` into `Z_t` ([`HpsContext::decrypt_scale_round`]);
//! - multiplication's scale-and-round by `t/q` from `q u P` into `P`
//!   ([`HpsContext::scale_round_to_p`]).
//!
//! HPS evaluate the fractional parts in floating point; a GPU has no long double and a
//! `double` is far too short for 62-bit primes, so every fraction here is a 128-bit fixed-point
//! number handled with integer operations only. `docs/hps-precision.md` gives the error bound:
//! a rounding can differ from the exact one only when the exact value's fractional part is
//! in `[1/2, 1/2 + k 2^-66)`, and it is then one less.
//!
//! A polynomial over `q u P` has the limbs of `q` first, then those of `P`.

use modarith::generate_ntt_primes;
use num_bigint::BigUint;
use num_integer::Integer;

use crate::base::RnsBase;
use crate::convert::BaseConverter;
use crate::word::{FixedPointSum, PlainModulus, biguint_mod, fraction_128};
use crate::{GENERATED_EXTRA_PRIMES, Result, RnsError, check_degree, check_len};

/// The scaling tables of an [`HpsContext`] (`k = |q|`, `l = |P|`). Shoup companions are
/// `floor(w 2^64 / m)` for the modulus the value is reduced by; fractions are
/// `floor(theta 2^128)` split into high and low words.
#[derive(Debug, Clone, Copy)]
pub struct HpsTables<'a> {
    /// `omega_i mod t`, `omega_i = floor(t q~_i / q_i)` (`k` values).
    pub dec_integer: &'a [u64],
    /// Shoup companions of `dec_integer` modulo `t`.
    pub dec_integer_shoup: &'a [u64],
    /// High words of `floor(theta_i 2^128)`, `theta_i = ((t q~_i) mod q_i) / q_i`.
    pub dec_fraction_hi: &'a [u64],
    /// Low words of the same.
    pub dec_fraction_lo: &'a [u64],
    /// `[j * k + i] = omega'_i mod p_j`, `omega'_i = floor(t P Q~_i / q_i)`.
    pub mul_integer: &'a [u64],
    /// Shoup companions of `mul_integer` modulo `p_j`.
    pub mul_integer_shoup: &'a [u64],
    /// High words of `floor(theta'_i 2^128)`, `theta'_i = ((t P Q~_i) mod q_i) / q_i`.
    pub mul_fraction_hi: &'a [u64],
    /// Low words of the same.
    pub mul_fraction_lo: &'a [u64],
    /// `lambda_j = t Q~_j (P / p_j) mod p_j` (`l` values).
    pub mul_own: &'a [u64],
    /// Shoup companions of `mul_own` modulo `p_j`.
    pub mul_own_shoup: &'a [u64],
}

/// Precomputed tables for HPS-BFV with ciphertext base `q` (`k` primes), auxiliary base `P`
/// (`l` primes, `= 1 mod 2N`), plaintext modulus `t` and degree `N`.
///
/// Decryption tables: `t q~_i / q_i = omega_i + theta_i` with `omega_i` an integer (kept mod
/// `t`) and `theta_i in [0, 1)` (kept as `floor(theta_i 2^128)`, two words).
///
/// Multiplication tables, with `Q = qP` and `Q~_i = (Q / q_i)^-1 mod q_i`:
/// `t P Q~_i / q_i = omega'_i + theta'_i` (`omega'_i mod p_j` in a `l x k` table, `theta'_i`
/// in fixed point), and `lambda_j = t Q~_j (P / p_j) mod p_j` for the `P` limbs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HpsContext {
    degree: usize,
    t: PlainModulus,
    q: RnsBase,
    p: RnsBase,
    q_to_p: BaseConverter,
    p_to_q: BaseConverter,
    dec_int: Vec<u64>,
    dec_int_shoup: Vec<u64>,
    dec_frac_hi: Vec<u64>,
    dec_frac_lo: Vec<u64>,
    /// `[j * k + i] = omega'_i mod p_j`.
    mul_int: Vec<u64>,
    mul_int_shoup: Vec<u64>,
    mul_frac_hi: Vec<u64>,
    mul_frac_lo: Vec<u64>,
    /// `[j] = lambda_j`.
    mul_own: Vec<u64>,
    mul_own_shoup: Vec<u64>,
}

impl HpsContext {
    /// Tables for degree `N`, ciphertext primes `q`, auxiliary primes `p` and plaintext
    /// modulus `t`.
    ///
    /// Errors if `N` is not a power of two up to `2^17`; a modulus is not a prime below
    /// `2^62` or appears twice in `q u P`; `t` is not in `[2, 2^62)`; or `P` is too small for
    /// the product of two ciphertexts of degree one: with `c = q/2 + k q 2^-66 + 1` (the
    /// bound after the exact extension) and `X = 2 N c^2`, `qP > 2X` must hold (the tensor
    /// fits `q u P`) and `2 (t X / q + 2) + l P 2^-65 < P` (the scaled result converts back to
    /// `q` exactly).
    pub fn new(degree: usize, q: &[u64], p: &[u64], t: u64) -> Result<Self> {
        check_degree(degree)?;
        let t = PlainModulus::new(t)?;
        let q = RnsBase::new(q)?;
        let p = RnsBase::new(p)?;
        let qp = q.union(&p)?;
        Self::check_multiplication_bounds(degree, &q, &p, t)?;
        let k = q.len();
        let l = p.len();
        let t_big = BigUint::from(t.value());

        let mut dec_int = Vec::with_capacity(k);
        let mut dec_int_shoup = Vec::with_capacity(k);
        let mut dec_frac_hi = Vec::with_capacity(k);
        let mut dec_frac_lo = Vec::with_capacity(k);
        for (m, &q_tilde) in q.moduli().iter().zip(q.punctured_inverses()) {
            let numerator = &t_big * q_tilde;
            let (integer, remainder) = numerator.div_rem(&BigUint::from(m.value()));
            let w = biguint_mod(&integer, t.value());
            dec_int.push(w);
            dec_int_shoup.push(t.shoup(w));
            let (hi, lo) = fraction_128(&remainder, &BigUint::from(m.value()));
            dec_frac_hi.push(hi);
            dec_frac_lo.push(lo);
        }

        let mut omegas = Vec::with_capacity(k);
        let mut mul_frac_hi = Vec::with_capacity(k);
        let mut mul_frac_lo = Vec::with_capacity(k);
        for (i, m) in q.moduli().iter().enumerate() {
            let big_q_tilde = qp.punctured_inverses()[i];
            let numerator = &t_big * p.product() * big_q_tilde;
            let (integer, remainder) = numerator.div_rem(&BigUint::from(m.value()));
            omegas.push(integer);
            let (hi, lo) = fraction_128(&remainder, &BigUint::from(m.value()));
            mul_frac_hi.push(hi);
            mul_frac_lo.push(lo);
        }
        let mut mul_int = Vec::with_capacity(k * l);
        let mut mul_int_shoup = Vec::with_capacity(k * l);
        let mut mul_own = Vec::with_capacity(l);
        let mut mul_own_shoup = Vec::with_capacity(l);
        for (j, pj) in p.moduli().iter().enumerate() {
            for omega in &omegas {
                let w = biguint_mod(omega, pj.value());
                mul_int.push(w);
                mul_int_shoup.push(pj.shoup(w));
            }
            let big_q_tilde = qp.punctured_inverses()[k + j];
            let cofactor = biguint_mod(&p.punctured_products()[j], pj.value());
            let w = pj.mul(pj.mul(pj.reduce(t.value()), big_q_tilde), cofactor);
            mul_own.push(w);
            mul_own_shoup.push(pj.shoup(w));
        }
        Ok(Self {
            degree,
            t,
            q_to_p: BaseConverter::new(&q, &p)?,
            p_to_q: BaseConverter::new(&p, &q)?,
            q,
            p,
            dec_int,
            dec_int_shoup,
            dec_frac_hi,
            dec_frac_lo,
            mul_int,
            mul_int_shoup,
            mul_frac_hi,
            mul_frac_lo,
            mul_own,
            mul_own_shoup,
        })
    }

    /// A context whose `P` is generated: the largest 62-bit primes `= 1 mod 2N` not in `q`
    /// (nor equal to `t`), as few as pass the bounds of [`new`](Self::new).
    pub fn with_generated_moduli(degree: usize, q: &[u64], t: u64) -> Result<Self> {
        check_degree(degree)?;
        let plain = PlainModulus::new(t)?;
        let q_base = RnsBase::new(q)?;
        let mut exclude = q.to_vec();
        exclude.push(t);
        let max_len = q.len() + GENERATED_EXTRA_PRIMES;
        let primes = generate_ntt_primes(62, 2 * degree as u64, max_len, &exclude)?;
        let mut last_error = None;
        for p_len in 1..=max_len {
            let p = RnsBase::new(&primes[..p_len])?;
            match Self::check_multiplication_bounds(degree, &q_base, &p, plain) {
                Err(error) => last_error = Some(error),
                Ok(()) => return Self::new(degree, q, &primes[..p_len], t),
            }
        }
        Err(last_error.unwrap_or(RnsError::InvalidParameter {
            name: "number of q primes",
            value: q.len() as u64,
            reason: "no auxiliary base found",
        }))
    }

    fn check_multiplication_bounds(degree: usize, q: &RnsBase, p: &RnsBase, t: PlainModulus) -> Result<()> {
        let k = q.len() as u64;
        let l = p.len() as u64;
        let q_value = q.product();
        let p_value = p.product();
        let c_max: BigUint = (q_value >> 1u32) + ((q_value * k) >> 66u32) + 2u32;
        let tensor_max: BigUint = &c_max * &c_max * (2 * degree as u64);
        let full: BigUint = q_value * p_value;
        let twice_tensor: BigUint = &tensor_max * 2u32;
        if full <= twice_tensor {
            return Err(RnsError::BaseTooSmall {
                operation: "HPS multiplication: the tensor product must fit q u P",
                required_bits: twice_tensor.bits() + 1,
                actual_bits: full.bits(),
            });
        }
        let scaled_max: BigUint = (&tensor_max * t.value()) / q_value + 2u32;
        let needed: BigUint = &scaled_max * 2u32 + ((p_value * l) >> 65u32) + 1u32;
        if *p_value <= needed {
            return Err(RnsError::BaseTooSmall {
                operation: "HPS multiplication: the scaled product must convert exactly from P to q",
                required_bits: needed.bits() + 1,
                actual_bits: p_value.bits(),
            });
        }
        Ok(())
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The plaintext modulus `t`.
    pub fn plain_modulus(&self) -> PlainModulus {
        self.t
    }

    /// The ciphertext base `q`.
    pub fn q(&self) -> &RnsBase {
        &self.q
    }

    /// The auxiliary base `P`.
    pub fn p(&self) -> &RnsBase {
        &self.p
    }

    /// `q u P` (limbs of `q` first).
    pub fn q_p(&self) -> Result<RnsBase> {
        self.q.union(&self.p)
    }

    /// The converter `q -> P` (its exact conversion is [`extend_q_to_p`](Self::extend_q_to_p)).
    pub fn q_to_p(&self) -> &BaseConverter {
        &self.q_to_p
    }

    /// The converter `P -> q`.
    pub fn p_to_q(&self) -> &BaseConverter {
        &self.p_to_q
    }

    /// The scaling tables, for kernels that take them as they are (the conversions' tables
    /// are in [`q_to_p`](Self::q_to_p) and [`p_to_q`](Self::p_to_q)).
    pub fn tables(&self) -> HpsTables<'_> {
        HpsTables {
            dec_integer: &self.dec_int,
            dec_integer_shoup: &self.dec_int_shoup,
            dec_fraction_hi: &self.dec_frac_hi,
            dec_fraction_lo: &self.dec_frac_lo,
            mul_integer: &self.mul_int,
            mul_integer_shoup: &self.mul_int_shoup,
            mul_fraction_hi: &self.mul_frac_hi,
            mul_fraction_lo: &self.mul_frac_lo,
            mul_own: &self.mul_own,
            mul_own_shoup: &self.mul_own_shoup,
        }
    }

    /// Exact extension of `input` (over `q`) to `output` (over `P`): each coefficient's
    /// centered representative `[x]_q` modulo each `p_j` (see
    /// [`BaseConverter::exact_convert`] for the `2^-66` window). Errors on wrong lengths or
    /// non-canonical residues; `output` is untouched then.
    pub fn extend_q_to_p(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        self.q.check_poly(input, self.degree, "HPS extension input")?;
        check_len("HPS extension output", self.p.len() * self.degree, output.len())?;
        self.q_to_p.exact_convert(input, output)
    }

    /// Exact extension of `input` (over `P`) to `output` (over `q`), centered. Errors as
    /// [`extend_q_to_p`](Self::extend_q_to_p).
    pub fn extend_p_to_q(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        self.p.check_poly(input, self.degree, "HPS extension input")?;
        check_len("HPS extension output", self.q.len() * self.degree, output.len())?;
        self.p_to_q.exact_convert(input, output)
    }

    /// Decryption's scale-and-round: for each coefficient `x` of `input` (over `q`; the
    /// integer in `[0, q)`, in BFV `[c_0 + c_1 s]_q`) writes `round(t x / q) mod t` to
    /// `output` (`N` values in `[0, t)`; `round` takes halves up). Because
    /// `t x / q = sum_i x_i (omega_i + theta_i) - v t`, this is
    /// `sum_i x_i omega_i + round(sum_i x_i theta_i) mod t`.
    ///
    /// With `theta_i` truncated to 128 bits the sum is low by less than `k 2^-66`; the output
    /// is `round(t x / q) - 1` exactly when the fractional part of `t x / q` is in
    /// `[1/2, 1/2 + k 2^-66)` (impossible when `q < 2^65 / k`, since that fractional part
    /// is a multiple of `1/q` and `q` is odd). See `docs/hps-precision.md`.
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn decrypt_scale_round(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        self.q.check_poly(input, n, "HPS decryption input")?;
        check_len("HPS decryption output", n, output.len())?;
        let t = &self.t;
        for (index, out) in output.iter_mut().enumerate() {
            let mut integer = 0u128;
            let mut fraction = FixedPointSum::default();
            for i in 0..self.q.len() {
                let x = input[i * n + index];
                integer += t.mul_shoup_lazy(x, self.dec_int[i], self.dec_int_shoup[i]) as u128;
                fraction.add_product(x, self.dec_frac_hi[i], self.dec_frac_lo[i]);
            }
            *out = t.reduce_u128(integer + fraction.rounded());
        }
        Ok(())
    }

    /// Multiplication's scale-and-round: for each coefficient `x` of `input` (over `q u P`,
    /// limbs of `q` first; any integer with these residues) writes `round(t x / q) mod p_j`
    /// to `output` (over `P`). Because `t x / q = sum_i x_i (omega'_i + theta'_i) +
    /// sum_j x_j t Q~_j P / p_j - v t P`, this is
    /// `sum_i x_i omega'_i + round(sum_i x_i theta'_i) + x_j lambda_j mod p_j`.
    ///
    /// The rounding has the same `k 2^-66` window as
    /// [`decrypt_scale_round`](Self::decrypt_scale_round) (one less inside it).
    ///
    /// Errors on wrong lengths or non-canonical residues; `output` is untouched then.
    pub fn scale_round_to_p(&self, input: &[u64], output: &mut [u64]) -> Result<()> {
        let n = self.degree;
        let k = self.q.len();
        check_len("HPS scaling input", (k + self.p.len()) * n, input.len())?;
        self.q.check_poly(&input[..k * n], n, "HPS scaling input (q limbs)")?;
        self.p.check_poly(&input[k * n..], n, "HPS scaling input (P limbs)")?;
        check_len("HPS scaling output", self.p.len() * n, output.len())?;
        let mut x = vec![0u64; k];
        for index in 0..n {
            let mut fraction = FixedPointSum::default();
            for (i, xi) in x.iter_mut().enumerate() {
                *xi = input[i * n + index];
                fraction.add_product(*xi, self.mul_frac_hi[i], self.mul_frac_lo[i]);
            }
            let rounded = fraction.rounded();
            for (j, pj) in self.p.moduli().iter().enumerate() {
                let row = j * k..(j + 1) * k;
                let mut acc = rounded;
                for ((&xi, &w), &ws) in x.iter().zip(&self.mul_int[row.clone()]).zip(&self.mul_int_shoup[row]) {
                    acc += pj.mul_shoup_lazy(xi, w, ws) as u128;
                }
                let own = input[(k + j) * n + index];
                acc += pj.mul_shoup_lazy(own, self.mul_own[j], self.mul_own_shoup[j]) as u128;
                output[j * n + index] = pj.reduce_u128(acc);
            }
        }
        Ok(())
    }
}
