//! Ring contexts: the ring `Z_q[x]/(x^N + 1)` (`N` a power of two) or `Z_q[x]/Phi_m(x)` (`m`
//! odd, degree `phi(m)`) with `q = q_0 ... q_{L-1}` in double-CRT form ([`RingKind`]), and the
//! transform (one plan per RNS prime) that takes its elements to the evaluation representation
//! (NTT, DGT or hierarchical DGT for the first, Bluestein's transform for the second).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use modarith::Modulus;

use crate::bluestein::{CyclotomicPlan, bluestein_length};
use crate::cyclotomic::{MAX_M, euler_phi, gcd};
use crate::dgt::{DgtPlan, gaussian_pointwise_mul_assign};
use crate::hdgt::HdgtPlan;
use crate::ntt::NttPlan;
use crate::{PolyError, Result};

/// Smallest ring degree a [`RingContext`] accepts.
pub const MIN_DEGREE: usize = 1 << 10;
/// Largest ring degree a [`RingContext`] accepts.
pub const MAX_DEGREE: usize = 1 << 17;
/// Largest number of RNS primes in a [`RingContext`]. Schemes use up to 64 primes for
/// `Q*P`; the auxiliary bases of BEHZ (`q u Bsk`) and HPS (`q u P`) roughly double that.
pub const MAX_LIMBS: usize = 128;

/// Which ring a [`RingContext`] is: the quotient of `Z_q[x]` by which cyclotomic polynomial.
///
/// The power-of-two ring is the `2N`-th cyclotomic ring (`Phi_2N = x^N + 1`); it keeps its own
/// kind because its transforms (NTT, DGT, HDGT) and its automorphism index map use the
/// negacyclic structure. A cyclotomic ring of odd index `m` has degree `phi(m)` and Bluestein's
/// transform ([`TransformKind::Bluestein`]); see `docs/rings.md`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RingKind {
    /// `Z_q[x]/(x^N + 1)`, `N = degree` a power of two in `2^10..=2^17`.
    NegacyclicPowerOfTwo {
        /// `N`.
        degree: usize,
    },
    /// `Z_q[x]/Phi_m(x)` for odd `m` in `3..=2^17`, degree `phi(m)`.
    Cyclotomic {
        /// `m`.
        m: usize,
    },
}

impl RingKind {
    /// The cyclotomic index `m` of the ring: `2N` for [`RingKind::NegacyclicPowerOfTwo`]. The
    /// Galois group is `Z_m^*`.
    pub fn index(self) -> u64 {
        match self {
            RingKind::NegacyclicPowerOfTwo { degree } => (degree as u64).saturating_mul(2),
            RingKind::Cyclotomic { m } => m as u64,
        }
    }

    /// The ring's degree: `N`, or `phi(m)`.
    pub fn degree(self) -> usize {
        match self {
            RingKind::NegacyclicPowerOfTwo { degree } => degree,
            RingKind::Cyclotomic { m } => euler_phi(m as u64) as usize,
        }
    }

    /// Whether `transform` is a transform of this ring: NTT, DGT and HDGT of the power-of-two
    /// ring, Bluestein's of the others.
    pub fn supports(self, transform: TransformKind) -> bool {
        matches!(
            (self, transform),
            (
                RingKind::NegacyclicPowerOfTwo { .. },
                TransformKind::Ntt | TransformKind::Dgt | TransformKind::HierarchicalDgt
            ) | (RingKind::Cyclotomic { .. }, TransformKind::Bluestein)
        )
    }

    /// Whether `g` is a Galois element of the ring in the form the library passes them: a unit
    /// modulo the index `m`, below `m` (`x -> x^g` is an automorphism exactly for the units;
    /// for the power-of-two ring, the odd `g < 2N`).
    pub fn is_galois_element(self, g: u64) -> bool {
        let m = self.index();
        g < m && gcd(g as usize, m as usize) == 1
    }

    /// Errors unless `g` is a unit modulo the index (any size: the automorphisms reduce it):
    /// [`PolyError::InvalidAutomorphism`] for an even `g` of the power-of-two ring,
    /// [`PolyError::InvalidGaloisElement`] for a `g` that shares a factor with `m`.
    pub fn check_automorphism(self, g: u64) -> Result<()> {
        match self {
            RingKind::NegacyclicPowerOfTwo { degree } if g.is_multiple_of(2) => {
                Err(PolyError::InvalidAutomorphism { exponent: g, degree })
            }
            // m = 0 (no ring has it) leaves g as it is: gcd(g, 0) = g, so only g = 1 passes.
            RingKind::Cyclotomic { m } if gcd(g.checked_rem(m as u64).unwrap_or(g) as usize, m) != 1 => {
                Err(PolyError::InvalidGaloisElement { element: g, m: m as u64 })
            }
            _ => Ok(()),
        }
    }

    /// `"x^N + 1"` or `"Phi_m"`, for messages.
    pub fn name(self) -> &'static str {
        match self {
            RingKind::NegacyclicPowerOfTwo { .. } => "x^N + 1",
            RingKind::Cyclotomic { .. } => "Phi_m",
        }
    }
}

/// Which transform takes a polynomial to its evaluation representation.
///
/// [`TransformKind::Dgt`] and [`TransformKind::HierarchicalDgt`] produce identical evaluation
/// vectors; [`TransformKind::Ntt`] produces a different one. A context has exactly one, so
/// evaluation data of different transforms is never mixed. [`TransformKind::Bluestein`] is the
/// transform of the [`RingKind::Cyclotomic`] rings, and only theirs ([`RingKind::supports`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformKind {
    /// Negacyclic NTT ([`NttPlan`]): `N` evaluations per limb in bit-reversed order.
    Ntt,
    /// Discrete Galois transform over Gaussian integers (`crate::dgt`): `N/2` Gaussian
    /// evaluations per limb, interleaved `(re, im)`.
    Dgt,
    /// Hierarchical (four-step) DGT (`crate::hdgt`): the same output as [`TransformKind::Dgt`].
    HierarchicalDgt,
    /// Bluestein's transform of a ring `Z_q[x]/Phi_m` ([`CyclotomicPlan`]): the `phi(m)`
    /// evaluations at the primitive `m`-th roots `w^k`, `gcd(k, m) = 1`, in increasing `k`.
    Bluestein,
}

impl TransformKind {
    /// All transforms of the power-of-two ring, for tests and examples that try each.
    pub const ALL: [TransformKind; 3] = [TransformKind::Ntt, TransformKind::Dgt, TransformKind::HierarchicalDgt];

    /// A short name: `"NTT"`, `"DGT"` or `"HDGT"`.
    pub fn name(self) -> &'static str {
        match self {
            TransformKind::Ntt => "NTT",
            TransformKind::Dgt => "DGT",
            TransformKind::HierarchicalDgt => "HDGT",
            TransformKind::Bluestein => "Bluestein",
        }
    }
}

/// The transform plan of one limb.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum LimbPlan {
    /// A negacyclic NTT.
    Ntt(NttPlan),
    /// A discrete Galois transform.
    Dgt(DgtPlan),
    /// A hierarchical DGT (default split of [`HdgtPlan::new`]).
    HierarchicalDgt(HdgtPlan),
    /// Bluestein's transform and the reduction modulo `Phi_m` of a cyclotomic ring.
    Bluestein(CyclotomicPlan),
}

impl LimbPlan {
    /// The plan of `transform` for one prime of a ring of kind `ring` (the pair checked by the
    /// caller).
    fn new(ring: RingKind, transform: TransformKind, modulus: Modulus) -> Result<Self> {
        match (ring, transform) {
            (RingKind::Cyclotomic { m }, _) => Ok(LimbPlan::Bluestein(CyclotomicPlan::new(modulus, m)?)),
            (RingKind::NegacyclicPowerOfTwo { degree }, TransformKind::Dgt) => {
                Ok(LimbPlan::Dgt(DgtPlan::new(modulus, degree)?))
            }
            (RingKind::NegacyclicPowerOfTwo { degree }, TransformKind::HierarchicalDgt) => {
                Ok(LimbPlan::HierarchicalDgt(HdgtPlan::new(modulus, degree)?))
            }
            (RingKind::NegacyclicPowerOfTwo { degree }, _) => Ok(LimbPlan::Ntt(NttPlan::new(modulus, degree)?)),
        }
    }

    /// The transform this plan implements.
    pub fn kind(&self) -> TransformKind {
        match self {
            LimbPlan::Ntt(_) => TransformKind::Ntt,
            LimbPlan::Dgt(_) => TransformKind::Dgt,
            LimbPlan::HierarchicalDgt(_) => TransformKind::HierarchicalDgt,
            LimbPlan::Bluestein(_) => TransformKind::Bluestein,
        }
    }

    /// The Bluestein plan of a cyclotomic ring, if this is one.
    pub fn as_bluestein(&self) -> Option<&CyclotomicPlan> {
        match self {
            LimbPlan::Bluestein(plan) => Some(plan),
            _ => None,
        }
    }

    /// The NTT plan, if this is one.
    pub fn as_ntt(&self) -> Option<&NttPlan> {
        match self {
            LimbPlan::Ntt(plan) => Some(plan),
            _ => None,
        }
    }

    /// The DGT plan, if this is one.
    pub fn as_dgt(&self) -> Option<&DgtPlan> {
        match self {
            LimbPlan::Dgt(plan) => Some(plan),
            _ => None,
        }
    }

    /// The hierarchical DGT plan, if this is one.
    pub fn as_hierarchical_dgt(&self) -> Option<&HdgtPlan> {
        match self {
            LimbPlan::HierarchicalDgt(plan) => Some(plan),
            _ => None,
        }
    }

    /// Forward transform of one canonical limb (see the plan type for the output order).
    pub fn forward_inplace(&self, limb: &mut [u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(plan) => plan.forward_inplace(limb),
            LimbPlan::Dgt(plan) => plan.forward_inplace(limb),
            LimbPlan::HierarchicalDgt(plan) => plan.forward_inplace(limb),
            LimbPlan::Bluestein(plan) => copy_into(limb, &plan.forward(limb)?),
        }
    }

    /// Inverse transform of one canonical limb.
    pub fn inverse_inplace(&self, limb: &mut [u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(plan) => plan.inverse_inplace(limb),
            LimbPlan::Dgt(plan) => plan.inverse_inplace(limb),
            LimbPlan::HierarchicalDgt(plan) => plan.inverse_inplace(limb),
            LimbPlan::Bluestein(plan) => copy_into(limb, &plan.inverse(limb)?),
        }
    }

    /// Forward transform of a limb known to be canonical and of the right length (the NTT
    /// skips its input check; the DGTs check anyway).
    pub(crate) fn forward_trusted(&self, limb: &mut [u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(plan) => {
                plan.forward_unchecked(limb);
                Ok(())
            }
            LimbPlan::Dgt(plan) => plan.forward_inplace(limb),
            LimbPlan::HierarchicalDgt(plan) => plan.forward_inplace(limb),
            LimbPlan::Bluestein(plan) => copy_into(limb, &plan.forward(limb)?),
        }
    }

    /// Inverse transform of a limb known to be canonical and of the right length.
    pub(crate) fn inverse_trusted(&self, limb: &mut [u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(plan) => {
                plan.inverse_unchecked(limb);
                Ok(())
            }
            LimbPlan::Dgt(plan) => plan.inverse_inplace(limb),
            LimbPlan::HierarchicalDgt(plan) => plan.inverse_inplace(limb),
            LimbPlan::Bluestein(plan) => copy_into(limb, &plan.inverse(limb)?),
        }
    }

    /// Evaluation-domain product of one limb, `acc <- acc * other`: coordinate-wise for the
    /// NTT and Bluestein's transform, Gaussian-coordinate-wise on `(re, im)` pairs for the DGTs.
    pub(crate) fn mul_eval_assign(&self, modulus: &Modulus, acc: &mut [u64], other: &[u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(_) | LimbPlan::Bluestein(_) => {
                for (a, &b) in acc.iter_mut().zip(other) {
                    *a = modulus.mul(*a, b);
                }
                Ok(())
            }
            LimbPlan::Dgt(_) | LimbPlan::HierarchicalDgt(_) => gaussian_pointwise_mul_assign(modulus, acc, other),
        }
    }
    /// Evaluation-domain multiply-accumulate of one limb, `acc <- acc + a * b` (the product as
    /// in [`LimbPlan::mul_eval_assign`]). `scratch` holds one limb for the Gaussian product.
    pub(crate) fn mul_add_eval_assign(
        &self,
        modulus: &Modulus,
        acc: &mut [u64],
        a: &[u64],
        b: &[u64],
        scratch: &mut Vec<u64>,
    ) -> Result<()> {
        match self {
            LimbPlan::Ntt(_) | LimbPlan::Bluestein(_) => {
                for ((c, &x), &y) in acc.iter_mut().zip(a).zip(b) {
                    // x * y + c < p^2 + p fits a u128: one reduction for both operations.
                    *c = modulus.reduce_u128(x as u128 * y as u128 + *c as u128);
                }
                Ok(())
            }
            LimbPlan::Dgt(_) | LimbPlan::HierarchicalDgt(_) => {
                scratch.clear();
                scratch.extend_from_slice(a);
                gaussian_pointwise_mul_assign(modulus, scratch, b)?;
                for (c, &s) in acc.iter_mut().zip(scratch.iter()) {
                    *c = modulus.add(*c, s);
                }
                Ok(())
            }
        }
    }
}

/// `limb <- values` (equal lengths: a plan's output for its own limb).
fn copy_into(limb: &mut [u64], values: &[u64]) -> Result<()> {
    if limb.len() != values.len() {
        return Err(PolyError::LengthMismatch { expected: limb.len(), actual: values.len() });
    }
    limb.copy_from_slice(values);
    Ok(())
}

/// Source of context ids: each constructed context gets a fresh one.
static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(0);

/// The ring `Z_q[x]/(x^N + 1)` or `Z_q[x]/Phi_m(x)` ([`RingKind`]) in double-CRT form: degree
/// `N` (or `phi(m)`), RNS primes `q_0, ..., q_{L-1}` and one transform plan per prime. Shared
/// through an [`Arc`]; polynomials hold a clone.
#[derive(Debug)]
pub struct RingContext {
    id: u64,
    ring: RingKind,
    degree: usize,
    moduli: Vec<Modulus>,
    transform: TransformKind,
    plans: Vec<LimbPlan>,
}

impl RingContext {
    /// A ring of degree `degree` over the RNS basis `moduli`, with evaluation representation
    /// given by `transform`.
    ///
    /// Requirements: `degree` a power of two in `2^10..=2^17`; between 1 and 64 distinct
    /// primes, each below `2^62` and `= 1 mod 2 * degree`; `transform` one of the power-of-two
    /// ring ([`PolyError::InvalidTransform`] for [`TransformKind::Bluestein`]: see
    /// [`RingContext::new_cyclotomic`]). Errors name the offending value.
    pub fn new(degree: usize, moduli: &[u64], transform: TransformKind) -> Result<Arc<Self>> {
        Self::with_kind(RingKind::NegacyclicPowerOfTwo { degree }, moduli, transform)
    }

    /// The ring `Z_q[x]/Phi_m(x)` for odd `m` in `3..=2^17` (degree `phi(m)`) with Bluestein's
    /// transform: every prime `= 1 mod m` (the `m`-th roots) and `= 1 mod 2M`, `M` the
    /// power-of-two length of the transform's convolution
    /// ([`bluestein_primes`](crate::bluestein::bluestein_primes) finds them). Errors name the
    /// offending value.
    pub fn new_cyclotomic(m: usize, moduli: &[u64]) -> Result<Arc<Self>> {
        Self::with_kind(RingKind::Cyclotomic { m }, moduli, TransformKind::Bluestein)
    }

    /// The ring of kind `ring` over `moduli` with `transform`, which must be one of the ring's
    /// ([`RingKind::supports`], else [`PolyError::InvalidTransform`]); the requirements of
    /// [`RingContext::new`] or [`RingContext::new_cyclotomic`].
    pub fn with_kind(ring: RingKind, moduli: &[u64], transform: TransformKind) -> Result<Arc<Self>> {
        if !ring.supports(transform) {
            return Err(PolyError::InvalidTransform { transform, ring });
        }
        // The congruence every prime meets: 1 mod 2N, or 1 mod m and 1 mod 2M.
        let (degree, step) = match ring {
            RingKind::NegacyclicPowerOfTwo { degree } => {
                if !degree.is_power_of_two() || !(MIN_DEGREE..=MAX_DEGREE).contains(&degree) {
                    return Err(PolyError::InvalidDegree { degree, reason: "must be a power of two in 2^10..=2^17" });
                }
                (degree, 2 * degree as u64)
            }
            RingKind::Cyclotomic { m } => {
                if m < 3 || m.is_multiple_of(2) || m as u64 > MAX_M {
                    return Err(PolyError::InvalidParameter {
                        name: "m",
                        value: m as u64,
                        reason: "must be odd, in 3..=2^17",
                    });
                }
                // m odd and 2M a power of two: coprime, so both congruences are one.
                (ring.degree(), m as u64 * 2 * bluestein_length(m) as u64)
            }
        };
        if moduli.is_empty() || moduli.len() > MAX_LIMBS {
            return Err(PolyError::InvalidModulusCount { count: moduli.len(), max: MAX_LIMBS });
        }
        for (i, &p) in moduli.iter().enumerate() {
            if moduli[..i].contains(&p) {
                return Err(PolyError::DuplicateModulus { modulus: p });
            }
        }
        let mut checked = Vec::with_capacity(moduli.len());
        for &p in moduli {
            // Cheap congruence check first, so that a wrong basis fails before any prime test.
            if p % step != 1 {
                let reason = match ring {
                    RingKind::NegacyclicPowerOfTwo { .. } => "must be 1 mod 2N",
                    RingKind::Cyclotomic { .. } => "must be 1 mod m and 1 mod 2M (M the Bluestein length)",
                };
                return Err(PolyError::InvalidModulus { modulus: p, degree, reason });
            }
            checked.push(Modulus::new(p)?);
        }
        let plans = checked.iter().map(|&q| LimbPlan::new(ring, transform, q)).collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(Self {
            id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
            ring,
            degree,
            moduli: checked,
            transform,
            plans,
        }))
    }

    /// A number unique to this context among all contexts built by this process.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// Which ring this is.
    pub fn ring_kind(&self) -> RingKind {
        self.ring
    }

    /// The ring degree `N` (`phi(m)` for a cyclotomic ring).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The cyclotomic index `m` (`2N` for the power-of-two ring): Galois elements are units
    /// modulo it ([`RingKind::index`]).
    pub fn cyclotomic_index(&self) -> u64 {
        self.ring.index()
    }

    /// Whether `g` is a Galois element of this ring: a unit below the index
    /// ([`RingKind::is_galois_element`]).
    pub fn is_galois_element(&self, g: u64) -> bool {
        self.ring.is_galois_element(g)
    }

    /// The degree the samplers of [`crate::sampling`] run at: `N`, or `phi(m)` rounded up to a
    /// power of two (at least [`crate::sampling::MIN_SAMPLING_DEGREE`]), of whose words limb by
    /// limb the first `phi(m)` are the ring's (so the power-basis coefficients of a sample
    /// are a prefix of the power-of-two sampler's; `docs/rings.md`).
    pub fn sampling_degree(&self) -> usize {
        match self.ring {
            RingKind::NegacyclicPowerOfTwo { degree } => degree,
            RingKind::Cyclotomic { .. } => crate::sampling::padded_sampling_degree(self.degree),
        }
    }

    /// For an evaluation-form automorphism `x -> x^g` of a cyclotomic ring, the source of each
    /// evaluation: evaluation `s` (at `w^(k_s)`) of `a(x^g)` is evaluation `sources[s]` of `a`,
    /// the one at `w^(k_s g mod m)`. Errors with [`PolyError::InvalidGaloisElement`] unless `g`
    /// is a unit modulo `m`, and with [`PolyError::InvalidTransform`] for the power-of-two ring
    /// (its NTT permutation is [`crate::Poly::automorphism_ntt`]'s).
    pub fn bluestein_automorphism_sources(&self, g: u64) -> Result<Vec<usize>> {
        let RingKind::Cyclotomic { m } = self.ring else {
            return Err(PolyError::InvalidTransform { transform: self.transform, ring: self.ring });
        };
        self.ring.check_automorphism(g)?;
        let g = (g % m as u64) as usize;
        // slot[k] = s for the primitive k = k_s (units are increasing in s).
        let mut slot = vec![usize::MAX; m];
        let units: Vec<usize> = (1..m).filter(|&k| gcd(k, m) == 1).collect();
        for (s, &k) in units.iter().enumerate() {
            slot[k] = s;
        }
        Ok(units.iter().map(|&k| slot[k * g % m]).collect())
    }

    /// The RNS primes `q_0, ..., q_{L-1}`.
    pub fn moduli(&self) -> &[Modulus] {
        &self.moduli
    }

    /// The number of limbs `L`.
    pub fn num_limbs(&self) -> usize {
        self.moduli.len()
    }

    /// `L * N`: the number of `u64` in one polynomial.
    pub fn poly_len(&self) -> usize {
        self.moduli.len() * self.degree
    }

    /// The transform behind the evaluation representation.
    pub fn transform(&self) -> TransformKind {
        self.transform
    }

    /// The transform plans, one per limb.
    pub fn plans(&self) -> &[LimbPlan] {
        &self.plans
    }

    /// The transform plan of limb `limb`, or `None` past the last limb.
    pub fn plan(&self, limb: usize) -> Option<&LimbPlan> {
        self.plans.get(limb)
    }

    /// Whether `other` describes the same ring with the same transform: the same context, or
    /// one with equal ring kind, degree, moduli (in order) and transform. Data of one is valid in
    /// the other.
    pub fn is_compatible(&self, other: &RingContext) -> bool {
        self.id == other.id
            || (self.ring == other.ring
                && self.degree == other.degree
                && self.transform == other.transform
                && self.moduli == other.moduli)
    }
}
