//! Polynomials of a [`RingContext`], typed by representation.

use core::fmt;
use core::marker::PhantomData;
use std::sync::Arc;

use modarith::Modulus;

use crate::context::RingContext;
use crate::representation::{Coeff, Eval, Representation};
use crate::sampling::{self, Seed};
use crate::{PolyError, Result};

/// An element of the ring of `context`, in representation `R` ([`Coeff`] or [`Eval`]).
///
/// Storage is one limb-major `Vec<u64>` of length `L * N`: limb `i` (the residues modulo
/// `q_i`) is `data[i * N..(i + 1) * N]`. Every value is canonical (below its limb's prime);
/// constructors check it and operations keep it. Operations that take two polynomials
/// require compatible contexts ([`RingContext::is_compatible`]) and return
/// [`PolyError::ContextMismatch`] otherwise, changing nothing.
///
/// ```
/// use poly::{Coeff, Poly, RingContext, TransformKind};
///
/// # fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let moduli = modarith::generate_ntt_primes(50, 2 * 1024, 2, &[])?;
/// let ring = RingContext::new(1024, &moduli, TransformKind::Ntt)?;
/// let mut x = vec![0i64; 1024];
/// x[1] = 1; // the polynomial x
/// let x = Poly::<Coeff>::from_signed_coeffs(&ring, &x)?;
/// let x_eval = x.clone().forward()?;
/// let square = x_eval.mul(&x_eval)?.inverse()?; // x^2
/// assert_eq!(square.limb(0).map(|l| l[2]), Some(1));
/// # Ok(())
/// # }
/// ```
///
/// Products exist only in the evaluation representation:
///
/// ```compile_fail
/// # use poly::{Coeff, Poly};
/// fn product(a: &Poly<Coeff>, b: &Poly<Coeff>) {
///     let _ = a.mul(b); // no `mul` on coefficients
/// }
/// ```
#[derive(Clone)]
pub struct Poly<R: Representation> {
    context: Arc<RingContext>,
    data: Vec<u64>,
    representation: PhantomData<R>,
}

impl<R: Representation> fmt::Debug for Poly<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The coefficients can be millions of words; show the shape and a prefix.
        let prefix = &self.data[..self.data.len().min(4)];
        f.debug_struct("Poly")
            .field("representation", &R::NAME)
            .field("context_id", &self.context.id())
            .field("degree", &self.context.degree())
            .field("limbs", &self.context.num_limbs())
            .field("first_values", &prefix)
            .finish()
    }
}

impl<R: Representation> PartialEq for Poly<R> {
    fn eq(&self, other: &Self) -> bool {
        self.context.is_compatible(&other.context) && self.data == other.data
    }
}

impl<R: Representation> Eq for Poly<R> {}

/// Errors with [`PolyError::CoefficientOutOfRange`] at the first value not below its modulus.
fn check_canonical(context: &RingContext, data: &[u64]) -> Result<()> {
    let n = context.degree();
    for (limb, (modulus, values)) in context.moduli().iter().zip(data.chunks_exact(n)).enumerate() {
        let p = modulus.value();
        // Branch-free maximum first: the valid case stays a vectorized scan.
        if values.iter().fold(0, |m, &v| m.max(v)) >= p
            && let Some((index, &value)) = values.iter().enumerate().find(|&(_, &v)| v >= p)
        {
            return Err(PolyError::CoefficientOutOfRange { limb, index, value, modulus: p });
        }
    }
    Ok(())
}

/// The limb-major words of a sampler `sample(degree, out)` for `context`: run at the context's
/// degree, or, for a cyclotomic ring, at its [`RingContext::sampling_degree`] and cut to the
/// first `phi(m)` words of every limb (the samples are coefficients in the power basis
/// `1, x, .., x^(phi(m) - 1)`; `docs/rings.md`).
fn sample_limbs(context: &RingContext, sample: impl FnOnce(usize, &mut [u64]) -> Result<()>) -> Result<Vec<u64>> {
    let (n, degree) = (context.degree(), context.sampling_degree());
    if degree == n {
        let mut data = vec![0; context.poly_len()];
        sample(n, &mut data)?;
        return Ok(data);
    }
    let mut padded = vec![0; context.num_limbs() * degree];
    sample(degree, &mut padded)?;
    Ok(padded.chunks_exact(degree).flat_map(|limb| &limb[..n]).copied().collect())
}

impl<R: Representation> Poly<R> {
    /// The zero polynomial.
    pub fn zero(context: &Arc<RingContext>) -> Self {
        Self { context: Arc::clone(context), data: vec![0; context.poly_len()], representation: PhantomData }
    }

    /// A polynomial from its limb-major values (`L * N` of them, limb `i` canonical modulo
    /// `q_i`), taken as representation `R` without any transform.
    ///
    /// Errors with [`PolyError::LengthMismatch`] or [`PolyError::CoefficientOutOfRange`]
    /// (naming limb, index, value and modulus of the first bad value).
    pub fn from_limbs(context: &Arc<RingContext>, data: Vec<u64>) -> Result<Self> {
        if data.len() != context.poly_len() {
            return Err(PolyError::LengthMismatch { expected: context.poly_len(), actual: data.len() });
        }
        check_canonical(context, &data)?;
        Ok(Self { context: Arc::clone(context), data, representation: PhantomData })
    }

    /// [`Poly::from_limbs`] from a borrowed slice.
    pub fn from_slice(context: &Arc<RingContext>, data: &[u64]) -> Result<Self> {
        if data.len() != context.poly_len() {
            return Err(PolyError::LengthMismatch { expected: context.poly_len(), actual: data.len() });
        }
        check_canonical(context, data)?;
        Ok(Self { context: Arc::clone(context), data: data.to_vec(), representation: PhantomData })
    }

    /// A polynomial sampled uniformly modulo each `q_i` from `(seed, poly_index)` by
    /// [`sampling::sample_uniform`]. The uniform distribution is the same in both
    /// representations, so the words are taken as representation `R` directly.
    pub fn sample_uniform(context: &Arc<RingContext>, seed: &Seed, poly_index: u64) -> Result<Self> {
        let data = sample_limbs(context, |degree, out| {
            sampling::sample_uniform(context.moduli(), degree, seed, poly_index, out)
        })?;
        Ok(Self { context: Arc::clone(context), data, representation: PhantomData })
    }

    /// The context this polynomial belongs to.
    pub fn context(&self) -> &Arc<RingContext> {
        &self.context
    }

    /// All values, limb-major (`L * N`).
    pub fn as_slice(&self) -> &[u64] {
        &self.data
    }

    /// Limb `i` (`N` values modulo `q_i`), or `None` past the last limb.
    pub fn limb(&self, i: usize) -> Option<&[u64]> {
        let n = self.context.degree();
        self.data.get(i * n..(i + 1) * n)
    }

    /// The limbs in order.
    pub fn limbs(&self) -> core::slice::ChunksExact<'_, u64> {
        self.data.chunks_exact(self.context.degree())
    }

    /// The limb-major values, consuming the polynomial.
    pub fn into_vec(self) -> Vec<u64> {
        self.data
    }

    fn check_context(&self, other: &Self) -> Result<()> {
        if self.context.is_compatible(&other.context) { Ok(()) } else { Err(PolyError::ContextMismatch) }
    }

    /// Applies `op(modulus, &mut self_value, other_value)` to every value, limb by limb.
    fn zip_assign(&mut self, other: &Self, op: impl Fn(&Modulus, &mut u64, u64)) -> Result<()> {
        self.check_context(other)?;
        let n = self.context.degree();
        let limbs = self.data.chunks_exact_mut(n).zip(other.data.chunks_exact(n));
        for (modulus, (mine, theirs)) in self.context.moduli().iter().zip(limbs) {
            for (a, &b) in mine.iter_mut().zip(theirs) {
                op(modulus, a, b);
            }
        }
        Ok(())
    }

    /// `self + other`, value by value (the same in both representations).
    pub fn add(&self, other: &Self) -> Result<Self> {
        let mut out = self.clone();
        out.add_assign(other)?;
        Ok(out)
    }

    /// `self <- self + other`. On error `self` is unchanged.
    pub fn add_assign(&mut self, other: &Self) -> Result<()> {
        self.zip_assign(other, |m, a, b| *a = m.add(*a, b))
    }

    /// `self - other`, value by value.
    pub fn sub(&self, other: &Self) -> Result<Self> {
        let mut out = self.clone();
        out.sub_assign(other)?;
        Ok(out)
    }

    /// `self <- self - other`. On error `self` is unchanged.
    pub fn sub_assign(&mut self, other: &Self) -> Result<()> {
        self.zip_assign(other, |m, a, b| *a = m.sub(*a, b))
    }

    /// `-self`.
    pub fn neg(&self) -> Self {
        let mut out = self.clone();
        out.neg_assign();
        out
    }

    /// `self <- -self`.
    pub fn neg_assign(&mut self) {
        let n = self.context.degree();
        for (modulus, limb) in self.context.moduli().iter().zip(self.data.chunks_exact_mut(n)) {
            for a in limb {
                *a = modulus.neg(*a);
            }
        }
    }

    /// `scalar * self` for an integer `scalar` (reduced modulo each `q_i`).
    pub fn scalar_mul(&self, scalar: u64) -> Self {
        let mut out = self.clone();
        out.scalar_mul_assign(scalar);
        out
    }

    /// `self <- scalar * self`.
    pub fn scalar_mul_assign(&mut self, scalar: u64) {
        let n = self.context.degree();
        for (modulus, limb) in self.context.moduli().iter().zip(self.data.chunks_exact_mut(n)) {
            let w = modulus.reduce(scalar);
            let w_shoup = modulus.shoup(w);
            for a in limb {
                *a = modulus.mul_shoup(*a, w, w_shoup);
            }
        }
    }

    /// `self` times the RNS constant whose residue modulo `q_i` is `scalars[i]`.
    ///
    /// Errors with [`PolyError::LengthMismatch`] unless there is one scalar per limb, and
    /// with [`PolyError::CoefficientOutOfRange`] (index 0) if `scalars[i] >= q_i`.
    pub fn scalar_mul_per_limb(&self, scalars: &[u64]) -> Result<Self> {
        let mut out = self.clone();
        out.scalar_mul_per_limb_assign(scalars)?;
        Ok(out)
    }

    /// `self <- self * scalars` (see [`Poly::scalar_mul_per_limb`]). On error `self` is unchanged.
    pub fn scalar_mul_per_limb_assign(&mut self, scalars: &[u64]) -> Result<()> {
        let moduli = self.context.moduli();
        if scalars.len() != moduli.len() {
            return Err(PolyError::LengthMismatch { expected: moduli.len(), actual: scalars.len() });
        }
        for (limb, (modulus, &s)) in moduli.iter().zip(scalars).enumerate() {
            if s >= modulus.value() {
                return Err(PolyError::CoefficientOutOfRange { limb, index: 0, value: s, modulus: modulus.value() });
            }
        }
        let n = self.context.degree();
        for ((modulus, &w), limb) in moduli.iter().zip(scalars).zip(self.data.chunks_exact_mut(n)) {
            let w_shoup = modulus.shoup(w);
            for a in limb {
                *a = modulus.mul_shoup(*a, w, w_shoup);
            }
        }
        Ok(())
    }

    fn retag<S: Representation>(self) -> Poly<S> {
        Poly { context: self.context, data: self.data, representation: PhantomData }
    }
}

impl Poly<Coeff> {
    /// The integer polynomial `sum_j coeffs[j] x^j` reduced into every limb.
    ///
    /// Errors with [`PolyError::LengthMismatch`] unless `coeffs.len() == N`.
    pub fn from_signed_coeffs(context: &Arc<RingContext>, coeffs: &[i64]) -> Result<Self> {
        let n = context.degree();
        if coeffs.len() != n {
            return Err(PolyError::LengthMismatch { expected: n, actual: coeffs.len() });
        }
        let mut data = Vec::with_capacity(context.poly_len());
        for modulus in context.moduli() {
            data.extend(coeffs.iter().map(|&c| modulus.from_i64(c)));
        }
        Ok(Self { context: Arc::clone(context), data, representation: PhantomData })
    }

    /// A ternary polynomial (coefficients in `{-1, 0, 1}`) from `(seed, poly_index)` by
    /// [`sampling::sample_ternary`], the same integer polynomial in every limb.
    pub fn sample_ternary(context: &Arc<RingContext>, seed: &Seed, poly_index: u64) -> Result<Self> {
        let data = sample_limbs(context, |degree, out| {
            sampling::sample_ternary(context.moduli(), degree, seed, poly_index, out)
        })?;
        Ok(Self { context: Arc::clone(context), data, representation: PhantomData })
    }

    /// A centered-binomial polynomial (eta = 21) from `(seed, poly_index)` by
    /// [`sampling::sample_cbd`], the same integer polynomial in every limb.
    pub fn sample_cbd(context: &Arc<RingContext>, seed: &Seed, poly_index: u64) -> Result<Self> {
        let data =
            sample_limbs(context, |degree, out| sampling::sample_cbd(context.moduli(), degree, seed, poly_index, out))?;
        Ok(Self { context: Arc::clone(context), data, representation: PhantomData })
    }

    /// The evaluation representation: each limb through its plan's forward transform
    /// (for the NTT, evaluations in bit-reversed order; for the DGTs, interleaved Gaussian
    /// evaluations; see the plans).
    pub fn forward(mut self) -> Result<Poly<Eval>> {
        let n = self.context.degree();
        let context = Arc::clone(&self.context);
        for (plan, limb) in context.plans().iter().zip(self.data.chunks_exact_mut(n)) {
            plan.forward_trusted(limb)?;
        }
        Ok(self.retag())
    }

    /// The automorphism `a(x) -> a(x^g)` for odd `g` (taken modulo `2N`): coefficient `j`
    /// moves to `k = j g mod 2N`, negated if `k >= N` (as `x^N = -1`), landing at `k - N`.
    /// In a ring `Z_q[x]/Phi_m`, `g` is a unit modulo `m` (taken modulo `m`): coefficient `j`
    /// moves to `j g mod m`, and the result, of degree below `m`, is reduced modulo `Phi_m`.
    ///
    /// Errors with [`PolyError::InvalidAutomorphism`] for even `g`
    /// ([`PolyError::InvalidGaloisElement`] for a `g` not a unit modulo `m`).
    pub fn automorphism(&self, g: u64) -> Result<Self> {
        let n = self.context.degree();
        let two_n = 2 * n as u64;
        self.context.ring_kind().check_automorphism(g)?;
        if let crate::RingKind::Cyclotomic { m } = self.context.ring_kind() {
            return self.automorphism_cyclotomic(g, m);
        }
        let step = (g % two_n) as usize;
        let mut out = vec![0u64; self.data.len()];
        let limbs = self.data.chunks_exact(n).zip(out.chunks_exact_mut(n));
        for (modulus, (src, dst)) in self.context.moduli().iter().zip(limbs) {
            let mut k = 0usize; // j * g mod 2N, updated incrementally
            for &value in src {
                if k < n {
                    if let Some(slot) = dst.get_mut(k) {
                        *slot = value;
                    }
                } else if let Some(slot) = dst.get_mut(k - n) {
                    *slot = modulus.neg(value);
                }
                k += step;
                if k >= 2 * n {
                    k -= 2 * n;
                }
            }
        }
        Ok(Self { context: Arc::clone(&self.context), data: out, representation: PhantomData })
    }

    /// [`Poly::automorphism`] of a ring `Z_q[x]/Phi_m` (`g` checked): `x^j -> x^(j g mod m)`,
    /// then the reduction modulo `Phi_m` of each limb's plan.
    fn automorphism_cyclotomic(&self, g: u64, m: usize) -> Result<Self> {
        let n = self.context.degree();
        let g = (g % m as u64) as usize;
        let mut out = Vec::with_capacity(self.data.len());
        let mut spread = vec![0u64; m];
        for (plan, src) in self.context.plans().iter().zip(self.data.chunks_exact(n)) {
            let plan = plan.as_bluestein().ok_or(PolyError::ContextMismatch)?;
            spread.fill(0);
            // j -> j g mod m is injective (g a unit): no two coefficients meet.
            for (j, &value) in src.iter().enumerate() {
                spread[j * g % m] = value;
            }
            out.extend(plan.reduce_fast(&spread)?);
        }
        Ok(Self { context: Arc::clone(&self.context), data: out, representation: PhantomData })
    }
}

impl Poly<Eval> {
    /// The automorphism `a(x) -> a(x^g)` (`g` a unit modulo `m`) on the evaluations of a ring
    /// `Z_q[x]/Phi_m`, where it permutes them: the value of `a(x^g)` at `w^k` is the value of
    /// `a` at `w^(k g)` ([`RingContext::bluestein_automorphism_sources`]). Equals
    /// `forward(automorphism(inverse(self), g))`.
    ///
    /// Errors with [`PolyError::InvalidGaloisElement`] for a `g` not a unit modulo `m` and
    /// [`PolyError::InvalidTransform`] for a context of the power-of-two ring.
    pub fn automorphism_bluestein(&self, g: u64) -> Result<Self> {
        let sources = self.context.bluestein_automorphism_sources(g)?;
        let n = self.context.degree();
        let mut out = Vec::with_capacity(self.data.len());
        for src in self.data.chunks_exact(n) {
            out.extend(sources.iter().map(|&k| src.get(k).copied().unwrap_or(0)));
        }
        Ok(Self { context: Arc::clone(&self.context), data: out, representation: PhantomData })
    }

    /// The automorphism `a(x) -> a(x^g)` (odd `g`, taken modulo `2N`) on the evaluations of an
    /// NTT context, where it only permutes them: with `out[j] = a(psi^(2 bitrev(j) + 1))`,
    /// `sigma_g(a)` at that point is `a(psi^e)`, `e = (2 bitrev(j) + 1) g mod 2N`, which is
    /// evaluation `bitrev((e - 1) / 2)`. Equals `forward(automorphism(inverse(self), g))`.
    ///
    /// Errors with [`PolyError::InvalidAutomorphism`] for even `g` and
    /// [`PolyError::ContextMismatch`] for a DGT or HDGT context (whose evaluations are not
    /// single points).
    pub fn automorphism_ntt(&self, g: u64) -> Result<Self> {
        let n = self.context.degree();
        if g.is_multiple_of(2) {
            return Err(PolyError::InvalidAutomorphism { exponent: g, degree: n });
        }
        if self.context.transform() != crate::TransformKind::Ntt {
            return Err(PolyError::ContextMismatch);
        }
        let log_n = n.trailing_zeros();
        let two_n_mask = 2 * n as u64 - 1;
        let bitrev = |x: u64| if log_n == 0 { 0 } else { (x.reverse_bits() >> (64 - log_n)) as usize };
        let sources: Vec<usize> = (0..n as u64)
            .map(|j| {
                let e = ((2 * bitrev(j) as u64 + 1) * (g & two_n_mask)) & two_n_mask;
                bitrev((e - 1) / 2)
            })
            .collect();
        let mut out = vec![0u64; self.data.len()];
        for (src, dst) in self.data.chunks_exact(n).zip(out.chunks_exact_mut(n)) {
            for (slot, &k) in dst.iter_mut().zip(&sources) {
                *slot = src.get(k).copied().unwrap_or(0);
            }
        }
        Ok(Self { context: Arc::clone(&self.context), data: out, representation: PhantomData })
    }

    /// The coefficient representation: each limb through its plan's inverse transform.
    pub fn inverse(mut self) -> Result<Poly<Coeff>> {
        let n = self.context.degree();
        let context = Arc::clone(&self.context);
        for (plan, limb) in context.plans().iter().zip(self.data.chunks_exact_mut(n)) {
            plan.inverse_trusted(limb)?;
        }
        Ok(self.retag())
    }

    /// The ring product `self * other` in the evaluation representation: coordinate-wise
    /// under the NTT and Bluestein's transform, Gaussian-coordinate-wise on `(re, im)` pairs under the DGTs.
    pub fn mul(&self, other: &Self) -> Result<Self> {
        let mut out = self.clone();
        out.mul_assign(other)?;
        Ok(out)
    }

    /// `self <- self * other`. On error `self` is unchanged.
    pub fn mul_assign(&mut self, other: &Self) -> Result<()> {
        self.check_context(other)?;
        let n = self.context.degree();
        let context = Arc::clone(&self.context);
        let limbs = self.data.chunks_exact_mut(n).zip(other.data.chunks_exact(n));
        for ((plan, modulus), (mine, theirs)) in context.plans().iter().zip(context.moduli()).zip(limbs) {
            plan.mul_eval_assign(modulus, mine, theirs)?;
        }
        Ok(())
    }

    /// `self <- self + a * b` (a fused multiply-accumulate). On error `self` is unchanged.
    pub fn mul_add_assign(&mut self, a: &Self, b: &Self) -> Result<()> {
        self.check_context(a)?;
        self.check_context(b)?;
        let n = self.context.degree();
        let context = Arc::clone(&self.context);
        let mut scratch = Vec::new();
        let limbs = self.data.chunks_exact_mut(n).zip(a.data.chunks_exact(n).zip(b.data.chunks_exact(n)));
        for ((plan, modulus), (acc, (la, lb))) in context.plans().iter().zip(context.moduli()).zip(limbs) {
            plan.mul_add_eval_assign(modulus, acc, la, lb, &mut scratch)?;
        }
        Ok(())
    }
}
