//! Ring contexts: the ring `Z_q[x]/(x^N + 1)` with `q = q_0 ... q_{L-1}` in double-CRT form,
//! and the transform (one plan per RNS prime) that takes its elements to the evaluation
//! representation.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use modarith::Modulus;

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

/// Which transform takes a polynomial to its evaluation representation.
///
/// [`TransformKind::Dgt`] and [`TransformKind::HierarchicalDgt`] produce identical evaluation
/// vectors; [`TransformKind::Ntt`] produces a different one. A context has exactly one, so
/// evaluation data of different transforms is never mixed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TransformKind {
    /// Negacyclic NTT ([`NttPlan`]): `N` evaluations per limb in bit-reversed order.
    Ntt,
    /// Discrete Galois transform over Gaussian integers (`crate::dgt`): `N/2` Gaussian
    /// evaluations per limb, interleaved `(re, im)`.
    Dgt,
    /// Hierarchical (four-step) DGT (`crate::hdgt`): the same output as [`TransformKind::Dgt`].
    HierarchicalDgt,
}

impl TransformKind {
    /// All transforms, for tests and examples that try each.
    pub const ALL: [TransformKind; 3] = [TransformKind::Ntt, TransformKind::Dgt, TransformKind::HierarchicalDgt];

    /// A short name: `"NTT"`, `"DGT"` or `"HDGT"`.
    pub fn name(self) -> &'static str {
        match self {
            TransformKind::Ntt => "NTT",
            TransformKind::Dgt => "DGT",
            TransformKind::HierarchicalDgt => "HDGT",
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
}

impl LimbPlan {
    fn new(kind: TransformKind, modulus: Modulus, degree: usize) -> Result<Self> {
        match kind {
            TransformKind::Ntt => Ok(LimbPlan::Ntt(NttPlan::new(modulus, degree)?)),
            TransformKind::Dgt => Ok(LimbPlan::Dgt(DgtPlan::new(modulus, degree)?)),
            TransformKind::HierarchicalDgt => Ok(LimbPlan::HierarchicalDgt(HdgtPlan::new(modulus, degree)?)),
        }
    }

    /// The transform this plan implements.
    pub fn kind(&self) -> TransformKind {
        match self {
            LimbPlan::Ntt(_) => TransformKind::Ntt,
            LimbPlan::Dgt(_) => TransformKind::Dgt,
            LimbPlan::HierarchicalDgt(_) => TransformKind::HierarchicalDgt,
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
        }
    }

    /// Inverse transform of one canonical limb.
    pub fn inverse_inplace(&self, limb: &mut [u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(plan) => plan.inverse_inplace(limb),
            LimbPlan::Dgt(plan) => plan.inverse_inplace(limb),
            LimbPlan::HierarchicalDgt(plan) => plan.inverse_inplace(limb),
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
        }
    }

    /// Evaluation-domain product of one limb, `acc <- acc * other`: coordinate-wise for the
    /// NTT, Gaussian-coordinate-wise on `(re, im)` pairs for the DGTs.
    pub(crate) fn mul_eval_assign(&self, modulus: &Modulus, acc: &mut [u64], other: &[u64]) -> Result<()> {
        match self {
            LimbPlan::Ntt(_) => {
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
            LimbPlan::Ntt(_) => {
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

/// Source of context ids: each constructed context gets a fresh one.
static NEXT_CONTEXT_ID: AtomicU64 = AtomicU64::new(0);

/// The ring `Z_q[x]/(x^N + 1)` in double-CRT form: degree `N`, RNS primes `q_0, ..., q_{L-1}`
/// and one transform plan per prime. Shared through an [`Arc`]; polynomials hold a clone.
#[derive(Debug)]
pub struct RingContext {
    id: u64,
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
    /// primes, each below `2^62` and `= 1 mod 2 * degree`. Errors name the offending value.
    pub fn new(degree: usize, moduli: &[u64], transform: TransformKind) -> Result<Arc<Self>> {
        if !degree.is_power_of_two() || !(MIN_DEGREE..=MAX_DEGREE).contains(&degree) {
            return Err(PolyError::InvalidDegree { degree, reason: "must be a power of two in 2^10..=2^17" });
        }
        if moduli.is_empty() || moduli.len() > MAX_LIMBS {
            return Err(PolyError::InvalidModulusCount { count: moduli.len(), max: MAX_LIMBS });
        }
        for (i, &p) in moduli.iter().enumerate() {
            if moduli[..i].contains(&p) {
                return Err(PolyError::DuplicateModulus { modulus: p });
            }
        }
        let two_n = 2 * degree as u64;
        let mut checked = Vec::with_capacity(moduli.len());
        for &p in moduli {
            // Cheap congruence check first, so that a wrong basis fails before any prime test.
            if p % two_n != 1 {
                return Err(PolyError::InvalidModulus { modulus: p, degree, reason: "must be 1 mod 2N" });
            }
            checked.push(Modulus::new(p)?);
        }
        let plans = checked.iter().map(|&m| LimbPlan::new(transform, m, degree)).collect::<Result<Vec<_>>>()?;
        Ok(Arc::new(Self {
            id: NEXT_CONTEXT_ID.fetch_add(1, Ordering::Relaxed),
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

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
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
    /// one with equal degree, moduli (in order) and transform. Data of one is valid in the other.
    pub fn is_compatible(&self, other: &RingContext) -> bool {
        self.id == other.id
            || (self.degree == other.degree && self.transform == other.transform && self.moduli == other.moduli)
    }
}
