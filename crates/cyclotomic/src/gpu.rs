//! The Bluestein transform on the GPU, over several primes at once (one limb per prime), built
//! from poly-cuda's negacyclic NTT of length `M` and its element-wise products; the same words
//! as [`BluesteinPlan::forward`] per prime.
//!
//! Data flow (`[L][M]` device buffers of the ring `(M, primes)`, NTT):
//! `x` padded to `M` -> times the chirp `c_j` (element-wise) -> forward NTT -> times the
//! precomputed NTT of `b` -> inverse NTT -> times `c_k` placed at `k + m - 1` -> the `m` values
//! at `k + m - 1` (on the host). The element-wise products run on buffers tagged as evaluation
//! vectors, where poly-cuda's product is the element-wise one (NTT rings).

use std::sync::Arc;

use modarith::Modulus;
use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};

use crate::bluestein::{BluesteinPlan, bluestein_length};
use crate::{CyclotomicError, Result};

fn backend_error(error: poly_cuda::GpuError) -> CyclotomicError {
    CyclotomicError::Backend(Box::new(error))
}

/// The same device buffer under another representation tag (no copy): the element-wise and
/// transform steps alternate on one vector.
fn retag<R: poly::Representation, S: poly::Representation>(poly: DevicePoly<R>) -> Result<DevicePoly<S>> {
    let context = poly.context().clone();
    DevicePoly::from_device_buffer(&context, poly.into_device_buffer()).map_err(backend_error)
}

/// The length-`m` DFT modulo each of `primes` on one device (module docs).
#[derive(Debug)]
pub struct GpuBluestein {
    m: usize,
    plans: Vec<BluesteinPlan>,
    context: GpuContext,
    chirp: DevicePoly<Eval>,
    kernel: DevicePoly<Eval>,
    chirp_out: DevicePoly<Eval>,
}

impl GpuBluestein {
    /// The transform of odd `m` modulo `primes` (each `= 1 mod m` and `= 1 mod 2M`,
    /// [`crate::bluestein_primes`]), its tables uploaded to `device`. `M` must be at least
    /// 2^10 (`m >= 513`), the smallest ring poly-cuda transforms.
    pub fn new(device: &Arc<GpuDevice>, m: usize, primes: &[u64]) -> Result<Self> {
        let big_m = bluestein_length(m);
        let plans = primes.iter().map(|&p| BluesteinPlan::new(Modulus::new(p)?, m)).collect::<Result<Vec<_>>>()?;
        let ring = RingContext::new(big_m, primes, TransformKind::Ntt)?;
        let context = GpuContext::new(device, &ring).map_err(backend_error)?;
        let (mut chirp, mut kernel, mut chirp_out) = (Vec::new(), Vec::new(), Vec::new());
        for plan in &plans {
            let mut limb = vec![0u64; big_m];
            limb[..m].copy_from_slice(plan.chirp());
            chirp.extend_from_slice(&limb);
            kernel.extend_from_slice(plan.kernel());
            let mut out = vec![0u64; big_m];
            out[m - 1..2 * m - 1].copy_from_slice(plan.chirp());
            chirp_out.extend_from_slice(&out);
        }
        let upload = |words: Vec<u64>| -> Result<DevicePoly<Eval>> {
            let host = Poly::<Eval>::from_limbs(&ring, words)?;
            DevicePoly::upload(&context, &host).map_err(backend_error)
        };
        let (chirp, kernel, chirp_out) = (upload(chirp)?, upload(kernel)?, upload(chirp_out)?);
        Ok(Self { m, plans, context, chirp, kernel, chirp_out })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The forward transform of `x`: `L` limbs of `m` canonical values (limb-major, limb `i`
    /// modulo prime `i`), the result in the same layout. Errors with
    /// [`CyclotomicError::LengthMismatch`] for another length and
    /// [`CyclotomicError::InvalidParameter`] for a value not below its prime.
    pub fn forward(&self, x: &[u64]) -> Result<Vec<u64>> {
        let (m, limbs) = (self.m, self.plans.len());
        if x.len() != m * limbs {
            return Err(CyclotomicError::LengthMismatch {
                what: "transform input",
                expected: m * limbs,
                actual: x.len(),
            });
        }
        let ring = self.context.ring();
        let big_m = ring.degree();
        let mut padded = vec![0u64; big_m * limbs];
        for (i, plan) in self.plans.iter().enumerate() {
            let p = plan.modulus().value();
            let limb = &x[i * m..(i + 1) * m];
            if let Some(&bad) = limb.iter().find(|&&v| v >= p) {
                return Err(CyclotomicError::InvalidParameter {
                    name: "transform input value",
                    value: bad,
                    requirement: format!("must be below p = {p}"),
                });
            }
            padded[i * big_m..i * big_m + m].copy_from_slice(limb);
        }
        let host = Poly::<Eval>::from_limbs(ring, padded)?;
        let mut a = DevicePoly::upload(&self.context, &host).map_err(backend_error)?;
        a.mul_assign(&self.chirp).map_err(backend_error)?;
        let mut a = retag::<Eval, Coeff>(a)?.forward().map_err(backend_error)?;
        a.mul_assign(&self.kernel).map_err(backend_error)?;
        let mut a = retag::<Coeff, Eval>(a.inverse().map_err(backend_error)?)?;
        a.mul_assign(&self.chirp_out).map_err(backend_error)?;
        let words = a.download().map_err(backend_error)?.into_vec();
        let mut out = Vec::with_capacity(m * limbs);
        for i in 0..limbs {
            out.extend_from_slice(&words[i * big_m + m - 1..i * big_m + 2 * m - 1]);
        }
        Ok(out)
    }
}
