//! Negacyclic number-theoretic transform over one RNS prime.
//!
//! The forward transform evaluates `a(x) mod (x^N + 1)` at the `N` primitive `2N`-th roots
//! of unity `psi^(2k+1)`. It is the Cooley-Tukey transform with the negacyclic twist merged
//! into the twiddles (Longa and Naehrig, "Speeding up the NTT ...", 2016; also the GPU papers
//! of docs/anchors.md), lazy butterflies with values in `[0, 4p)` and Shoup multiplications
//! (Harvey, "Faster arithmetic for number-theoretic transforms", 2014). It needs no
//! bit-reversal pass: the output is in bit-reversed order,
//!
//! `out[j] = a(psi^(2 * bitrev_{log N}(j) + 1))`,
//!
//! and the inverse (Gentleman-Sande) takes exactly that order back to coefficients, with
//! the factor `N^-1` folded into its last stage.

use crate::{PolyError, Result};
use modarith::{Modulus, primitive_root_of_unity};

/// Largest degree a plan supports (the largest ring degree of the library).
pub const MAX_PLAN_DEGREE: usize = 1 << 17;

/// `x - m` if `x >= m`, else `x`. Written as a `min` so it compiles to a conditional move:
/// the transform's timing does not depend on the data.
#[inline(always)]
fn reduce_once(x: u64, m: u64) -> u64 {
    x.min(x.wrapping_sub(m))
}

/// Returns `x` unchanged, opaquely to the optimizer. Used once per butterfly so that LLVM does
/// not auto-vectorize the loop: on x86-64 without AVX-512 it emulates the 64 x 64-bit products
/// with 32-bit SSE multiplies, which made the forward transform about 1.7 times slower than
/// the scalar code (measured at N = 2^16). Correctness never depends on it.
#[inline(always)]
fn scalar_only(x: u64) -> u64 {
    core::hint::black_box(x)
}

/// `a * w mod p` in `[0, 2p)` for any `a < 2^64`, `w < p`, `w_shoup = floor(w 2^64 / p)`.
#[inline(always)]
fn mul_shoup_lazy(a: u64, w: u64, w_shoup: u64, p: u64) -> u64 {
    let q = ((a as u128 * w_shoup as u128) >> 64) as u64;
    a.wrapping_mul(w).wrapping_sub(q.wrapping_mul(p))
}

/// `floor(w 2^52 / p)` for `w < p`: Shoup's companion for the 52-bit products of the wide
/// stages.
fn shoup52(w: u64, p: u64) -> u64 {
    ((u128::from(w) << 52) / u128::from(p)) as u64
}

/// Whether plans for the prime `p` run the wide stages (`ntt_ifma`): x86-64 with AVX-512F and
/// IFMA, `p < 2^50`.
fn wide_path_available(p: u64) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        p < crate::ntt_ifma::MAX_PRIME && crate::ntt_ifma::available()
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = p;
        false
    }
}

/// `k` with its lowest `bits` bits reversed.
#[inline]
pub fn bit_reverse(k: usize, bits: u32) -> usize {
    if bits == 0 { 0 } else { k.reverse_bits() >> (usize::BITS - bits) }
}

/// Precomputed tables for the negacyclic NTT of size `N` modulo one prime `p = 1 mod 2N`.
///
/// Tables (all of length `N`, canonical, each with its Shoup companion
/// `floor(w * 2^64 / p)`):
/// - `twiddles()[k] = psi^bitrev(k)` (entry 0 is 1 and unused), where `psi` is
///   [`primitive_root_of_unity`]`(p, 2N)`. Stage `m` (`m = 1, 2, 4, ..., N/2`) of the
///   forward transform uses entries `m..2m`.
/// - `inverse_twiddles()[k] = psi^-bitrev(k)`. Stage `h` (`h = N/2, ..., 2, 1`) of the
///   inverse uses entries `h..2h`.
///
/// Orderings: [`NttPlan::forward_inplace`] maps coefficients in natural order to
/// evaluations in bit-reversed order, `out[j] = a(psi^(2 bitrev(j) + 1))`;
/// [`NttPlan::inverse_inplace`] maps that order back to coefficients.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NttPlan {
    modulus: Modulus,
    degree: usize,
    psi: u64,
    twid: Vec<u64>,
    twid_shoup: Vec<u64>,
    inv_twid: Vec<u64>,
    inv_twid_shoup: Vec<u64>,
    degree_inv: u64,
    degree_inv_shoup: u64,
    /// `inv_twid[1] * N^-1`: the last inverse stage multiplies its difference by it.
    last_inv_twid_scaled: u64,
    last_inv_twid_scaled_shoup: u64,
    /// The 52-bit Shoup companions of the wide stages on CPUs with AVX-512 IFMA, for primes
    /// below 2^50 (`ntt_ifma`); `None` elsewhere (the scalar code throughout). Boxed: plans sit
    /// in enums beside small variants.
    wide: Option<Box<WideTables>>,
}

/// `floor(w 2^52 / p)` for every twiddle and the last inverse stage's two factors.
#[derive(Debug, Clone, PartialEq, Eq)]
struct WideTables {
    twid52: Vec<u64>,
    inv_twid52: Vec<u64>,
    degree_inv52: u64,
    last_inv_twid_scaled52: u64,
}

impl NttPlan {
    /// Tables for size `degree` modulo `modulus`.
    ///
    /// `degree` must be a power of two in `2..=2^17`; `modulus` must be `1 mod 2 * degree`.
    pub fn new(modulus: Modulus, degree: usize) -> Result<Self> {
        if !degree.is_power_of_two() || !(2..=MAX_PLAN_DEGREE).contains(&degree) {
            return Err(PolyError::InvalidDegree { degree, reason: "an NTT plan needs a power of two in 2..=2^17" });
        }
        let p = modulus.value();
        let two_n = 2 * degree as u64;
        if p % two_n != 1 {
            return Err(PolyError::InvalidModulus { modulus: p, degree, reason: "must be 1 mod 2N" });
        }
        let psi = primitive_root_of_unity(&modulus, two_n)?;
        let psi_inv = modulus.inv(psi)?;
        let log_n = degree.trailing_zeros();

        let powers = |base: u64| {
            let mut acc = 1u64;
            let mut v = Vec::with_capacity(degree);
            for _ in 0..degree {
                v.push(acc);
                acc = modulus.mul(acc, base);
            }
            v
        };
        let psi_powers = powers(psi);
        let psi_inv_powers = powers(psi_inv);
        let twid: Vec<u64> = (0..degree).map(|k| psi_powers[bit_reverse(k, log_n)]).collect();
        let inv_twid: Vec<u64> = (0..degree).map(|k| psi_inv_powers[bit_reverse(k, log_n)]).collect();
        let twid_shoup = twid.iter().map(|&w| modulus.shoup(w)).collect();
        let inv_twid_shoup = inv_twid.iter().map(|&w| modulus.shoup(w)).collect();

        let degree_inv = modulus.inv(degree as u64)?;
        let last_inv_twid_scaled = modulus.mul(inv_twid[1], degree_inv);
        let wide = wide_path_available(p).then(|| {
            Box::new(WideTables {
                twid52: twid.iter().map(|&w| shoup52(w, p)).collect(),
                inv_twid52: inv_twid.iter().map(|&w| shoup52(w, p)).collect(),
                degree_inv52: shoup52(degree_inv, p),
                last_inv_twid_scaled52: shoup52(last_inv_twid_scaled, p),
            })
        });
        Ok(Self {
            modulus,
            degree,
            psi,
            twid,
            twid_shoup,
            inv_twid,
            inv_twid_shoup,
            degree_inv,
            degree_inv_shoup: modulus.shoup(degree_inv),
            last_inv_twid_scaled,
            last_inv_twid_scaled_shoup: modulus.shoup(last_inv_twid_scaled),
            wide,
        })
    }

    /// Whether this plan's transforms run their wide stages with AVX-512 IFMA (x86-64 CPUs
    /// that have it, primes below 2^50). The words are the same either way.
    pub fn uses_wide_stages(&self) -> bool {
        self.wide.is_some()
    }

    /// The prime `p`.
    pub fn modulus(&self) -> &Modulus {
        &self.modulus
    }

    /// The transform size `N`.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The primitive `2N`-th root of unity `psi` the plan is built on.
    pub fn psi(&self) -> u64 {
        self.psi
    }

    /// Forward twiddles `psi^bitrev(k)`, `k = 0..N` (see the type's documentation).
    pub fn twiddles(&self) -> &[u64] {
        &self.twid
    }

    /// Shoup companions of [`NttPlan::twiddles`].
    pub fn twiddles_shoup(&self) -> &[u64] {
        &self.twid_shoup
    }

    /// Inverse twiddles `psi^-bitrev(k)`, `k = 0..N` (see the type's documentation).
    pub fn inverse_twiddles(&self) -> &[u64] {
        &self.inv_twid
    }

    /// Shoup companions of [`NttPlan::inverse_twiddles`].
    pub fn inverse_twiddles_shoup(&self) -> &[u64] {
        &self.inv_twid_shoup
    }

    /// `N^-1 mod p`.
    pub fn degree_inverse(&self) -> u64 {
        self.degree_inv
    }

    /// Shoup companion of [`NttPlan::degree_inverse`].
    pub fn degree_inverse_shoup(&self) -> u64 {
        self.degree_inv_shoup
    }

    fn check_input(&self, a: &[u64]) -> Result<()> {
        if a.len() != self.degree {
            return Err(PolyError::LengthMismatch { expected: self.degree, actual: a.len() });
        }
        let p = self.modulus.value();
        // A branch-free maximum first keeps the common (valid) case vectorized.
        if a.iter().fold(0, |m, &v| m.max(v)) >= p
            && let Some((index, &value)) = a.iter().enumerate().find(|&(_, &v)| v >= p)
        {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus: p });
        }
        Ok(())
    }

    /// Forward negacyclic NTT in place: canonical coefficients in natural order become
    /// canonical evaluations in bit-reversed order, `a[j] <- a(psi^(2 bitrev(j) + 1))`.
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`
    /// (reported as limb 0: a plan sees a single limb).
    pub fn forward_inplace(&self, a: &mut [u64]) -> Result<()> {
        self.check_input(a)?;
        self.forward_unchecked(a);
        Ok(())
    }

    /// Inverse of [`NttPlan::forward_inplace`]: canonical evaluations in bit-reversed
    /// order become canonical coefficients in natural order.
    ///
    /// Errors (leaving `a` untouched) if `a.len() != N` or a value is not below `p`.
    pub fn inverse_inplace(&self, a: &mut [u64]) -> Result<()> {
        self.check_input(a)?;
        self.inverse_unchecked(a);
        Ok(())
    }

    /// The forward transform for `a` of length `N` with values in `[0, 4p)`. A slice of
    /// another length is left with meaningless values but nothing panics; callers check.
    pub(crate) fn forward_unchecked(&self, a: &mut [u64]) {
        let (mut m, mut half) = (1, self.degree);
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = &self.wide
            && a.len() == self.degree
        {
            // SAFETY: `wide` exists only where the CPU has AVX-512F and IFMA and p < 2^50
            // (wide_path_available); a and both tables have length N, a power of two.
            (m, half) = unsafe { crate::ntt_ifma::forward_wide(a, &self.twid, &wide.twid52, self.modulus.value()) };
        }
        self.forward_scalar_from(a, m, half);
    }

    /// The forward transform on the scalar code alone (the reference the wide stages are
    /// tested against).
    #[cfg(test)]
    pub(crate) fn forward_scalar(&self, a: &mut [u64]) {
        self.forward_scalar_from(a, 1, self.degree);
    }

    /// The forward stages after the one of `m` blocks with partners `half` apart, then the
    /// last stage.
    fn forward_scalar_from(&self, a: &mut [u64], mut m: usize, mut half: usize) {
        let n = self.degree;
        let p = self.modulus.value();
        let two_p = 2 * p;
        while m < n / 2 {
            half >>= 1;
            let twiddles = self.twid[m..2 * m].iter().zip(&self.twid_shoup[m..2 * m]);
            for (block, (&w, &w_shoup)) in a.chunks_exact_mut(2 * half).zip(twiddles) {
                let (xs, ys) = block.split_at_mut(half);
                for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
                    // Inputs in [0, 4p), outputs in [0, 4p).
                    let u = reduce_once(*x, two_p);
                    let v = mul_shoup_lazy(*y, scalar_only(w), w_shoup, p);
                    *x = u + v;
                    *y = u + two_p - v;
                }
            }
            m <<= 1;
        }
        // Last stage (partners adjacent), fused with the reduction to [0, p).
        let twiddles = self.twid[m..2 * m].iter().zip(&self.twid_shoup[m..2 * m]);
        for (pair, (&w, &w_shoup)) in a.chunks_exact_mut(2).zip(twiddles) {
            let u = reduce_once(pair[0], two_p);
            let v = mul_shoup_lazy(pair[1], scalar_only(w), w_shoup, p);
            pair[0] = reduce_once(reduce_once(u + v, two_p), p);
            pair[1] = reduce_once(reduce_once(u + two_p - v, two_p), p);
        }
    }

    /// The inverse transform for `a` of length `N` with values in `[0, 2p)`.
    pub(crate) fn inverse_unchecked(&self, a: &mut [u64]) {
        #[cfg(target_arch = "x86_64")]
        if let Some(wide) = &self.wide
            && a.len() == self.degree
            && self.degree >= 16
        {
            // The stages with partners 1, 2 and 4 apart on the scalar code, the rest wide.
            self.inverse_scalar_stages(a, 8);
            // SAFETY: as in forward_unchecked; half = 8 is below N >= 16.
            unsafe {
                crate::ntt_ifma::inverse_wide(
                    a,
                    &self.inv_twid,
                    &wide.inv_twid52,
                    self.modulus.value(),
                    8,
                    (self.degree_inv, wide.degree_inv52),
                    (self.last_inv_twid_scaled, wide.last_inv_twid_scaled52),
                );
            }
            return;
        }
        self.inverse_scalar(a);
    }

    /// The inverse transform on the scalar code alone.
    pub(crate) fn inverse_scalar(&self, a: &mut [u64]) {
        self.inverse_scalar_stages(a, self.degree / 2);
        self.inverse_scalar_last(a);
    }

    /// The inverse stages with partners fewer than `until` apart (at most `N / 2`: all but the
    /// last).
    fn inverse_scalar_stages(&self, a: &mut [u64], until: usize) {
        let n = self.degree;
        let p = self.modulus.value();
        let two_p = 2 * p;
        let mut half = 1;
        let mut h = n / 2; // number of blocks in this stage
        while h > 1 && half < until {
            let twiddles = self.inv_twid[h..2 * h].iter().zip(&self.inv_twid_shoup[h..2 * h]);
            for (block, (&w, &w_shoup)) in a.chunks_exact_mut(2 * half).zip(twiddles) {
                let (xs, ys) = block.split_at_mut(half);
                for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
                    // Inputs in [0, 2p), outputs in [0, 2p).
                    let (u, v) = (*x, *y);
                    *x = reduce_once(u + v, two_p);
                    *y = mul_shoup_lazy(u + two_p - v, scalar_only(w), w_shoup, p);
                }
            }
            half <<= 1;
            h >>= 1;
        }
    }

    /// The last inverse stage (one block) with `N^-1` folded in, reduced to `[0, p)`.
    fn inverse_scalar_last(&self, a: &mut [u64]) {
        let n = self.degree;
        let p = self.modulus.value();
        let two_p = 2 * p;
        let (xs, ys) = a.split_at_mut(n / 2);
        let (ni, ni_shoup) = (self.degree_inv, self.degree_inv_shoup);
        let (w, w_shoup) = (self.last_inv_twid_scaled, self.last_inv_twid_scaled_shoup);
        for (x, y) in xs.iter_mut().zip(ys.iter_mut()) {
            let (u, v) = (*x, *y);
            *x = reduce_once(mul_shoup_lazy(u + v, ni, ni_shoup, p), p);
            *y = reduce_once(mul_shoup_lazy(u + two_p - v, scalar_only(w), w_shoup, p), p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use modarith::generate_ntt_primes;

    #[test]
    fn rejects_bad_parameters() {
        let m = Modulus::new(generate_ntt_primes(40, 1 << 11, 1, &[]).unwrap()[0]).unwrap();
        assert!(matches!(NttPlan::new(m, 1000), Err(PolyError::InvalidDegree { degree: 1000, .. })));
        assert!(matches!(NttPlan::new(m, 1), Err(PolyError::InvalidDegree { .. })));
        assert!(matches!(NttPlan::new(m, 1 << 18), Err(PolyError::InvalidDegree { .. })));
        // 1 mod 2^11 but not 1 mod 2^12 for N = 2048 unless lucky: check the rule itself.
        let q = m.value();
        if q % (1 << 12) != 1 {
            assert!(matches!(NttPlan::new(m, 2048), Err(PolyError::InvalidModulus { modulus, .. }) if modulus == q));
        }
        assert!(NttPlan::new(m, 1024).is_ok());
    }

    /// The wide stages (AVX-512 IFMA, primes below 2^50) against the scalar code, word for
    /// word, forward and inverse, for primes of 20 to 50 bits (and 51 and 62, which keep the
    /// scalar code), degrees 2 to 2^13, random residues and the extremes 0 and p - 1. On a CPU
    /// without IFMA both sides are the scalar code, which the test says.
    #[test]
    fn wide_stages_equal_the_scalar_code() {
        let mut state = 0x5eed_u64;
        let mut next = || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            state >> 1
        };
        let mut wide_runs = 0;
        for log_n in 1..=13u32 {
            let n = 1usize << log_n;
            for bits in [20u32, 36, 49, 50, 51, 62] {
                let p = generate_ntt_primes(bits, 2 * n as u64, 1, &[]).unwrap()[0];
                let plan = NttPlan::new(Modulus::new(p).unwrap(), n).unwrap();
                assert_eq!(plan.uses_wide_stages(), wide_path_available(p));
                #[cfg(target_arch = "x86_64")]
                if p < crate::ntt_ifma::MAX_PRIME && crate::ntt_ifma::available() {
                    assert!(plan.uses_wide_stages());
                }
                wide_runs += usize::from(plan.uses_wide_stages());
                let mut input: Vec<u64> = (0..n).map(|_| next() % p).collect();
                input[0] = p - 1;
                input[n - 1] = 0;
                let (mut wide, mut scalar) = (input.clone(), input.clone());
                plan.forward_unchecked(&mut wide);
                plan.forward_scalar(&mut scalar);
                assert_eq!(wide, scalar, "forward, N = {n}, {bits}-bit p");
                assert!(wide.iter().all(|&v| v < p));
                plan.inverse_unchecked(&mut wide);
                plan.inverse_scalar(&mut scalar);
                assert_eq!(wide, scalar, "inverse, N = {n}, {bits}-bit p");
                assert_eq!(wide, input, "round trip, N = {n}, {bits}-bit p");
            }
        }
        eprintln!("wide stages ran in {wide_runs} of 78 plans (0: this CPU has no AVX-512 IFMA)");
    }

    #[test]
    fn tables_are_consistent() {
        let n = 64;
        let m = Modulus::new(generate_ntt_primes(50, 2 * n as u64, 1, &[]).unwrap()[0]).unwrap();
        let plan = NttPlan::new(m, n).unwrap();
        for k in 0..n {
            assert_eq!(m.mul(plan.twiddles()[k], plan.inverse_twiddles()[k]), 1);
            assert_eq!(plan.twiddles()[k], m.pow(plan.psi(), bit_reverse(k, 6) as u64));
            assert_eq!(plan.twiddles_shoup()[k], m.shoup(plan.twiddles()[k]));
            assert_eq!(plan.inverse_twiddles_shoup()[k], m.shoup(plan.inverse_twiddles()[k]));
        }
        assert_eq!(m.mul(plan.degree_inverse(), n as u64), 1);
    }

    #[test]
    fn bad_input_is_left_untouched() {
        let n = 16;
        let m = Modulus::new(generate_ntt_primes(30, 32, 1, &[]).unwrap()[0]).unwrap();
        let plan = NttPlan::new(m, n).unwrap();
        let mut a: Vec<u64> = (0..n as u64).collect();
        a[5] = m.value();
        let before = a.clone();
        assert_eq!(
            plan.forward_inplace(&mut a),
            Err(PolyError::CoefficientOutOfRange { limb: 0, index: 5, value: m.value(), modulus: m.value() })
        );
        assert_eq!(a, before);
        assert!(plan.inverse_inplace(&mut a).is_err());
        assert_eq!(a, before);
        let mut short = vec![0u64; n - 1];
        assert_eq!(plan.forward_inplace(&mut short), Err(PolyError::LengthMismatch { expected: n, actual: n - 1 }));
    }
}
