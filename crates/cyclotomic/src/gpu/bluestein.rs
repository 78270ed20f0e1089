//! The Bluestein transform on the GPU, over several primes at once (one limb per prime), built
//! from poly-cuda's negacyclic NTT of length `M` and its element-wise products; the same words
//! as [`BluesteinPlan::forward`] per prime.
//!
//! Data flow (`[L][M]` device buffers of the ring `(M, primes)`, NTT):
//! `x` padded to `M` -> times the chirp `c_j` (element-wise) -> forward NTT -> times the
//! precomputed NTT of `b` -> inverse NTT -> times `c_k` placed at `k + m - 1` -> the `m` values
//! at `k + m - 1` (on the host). The inverse is the same with `c^-1`, its kernel, and `m^-1`
//! folded into the output chirp. The element-wise products run on buffers tagged as evaluation
//! vectors, where poly-cuda's product is the element-wise one (NTT rings).

use std::sync::Arc;

use modarith::Modulus;
use poly::{Coeff, Eval, Poly, RingContext, TransformKind};
use poly_cuda::{DevicePoly, GpuContext, GpuDevice};

use crate::{BluesteinPlan, bluestein_length};
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

/// The device tables of one direction: the chirp on `j < m`, the NTT of the convolution's
/// second operand, and the chirp placed at `k + m - 1` (times `m^-1` for the inverse).
#[derive(Debug)]
struct Direction {
    chirp: DevicePoly<Eval>,
    kernel: DevicePoly<Eval>,
    chirp_out: DevicePoly<Eval>,
}

/// The length-`m` DFT and its inverse modulo each of `primes` on one device (module docs).
#[derive(Debug)]
pub struct GpuBluestein {
    m: usize,
    plans: Vec<BluesteinPlan>,
    context: GpuContext,
    forward: Direction,
    inverse: Direction,
}

impl GpuBluestein {
    /// The transform of odd `m` modulo `primes` (each `= 1 mod m` and `= 1 mod 2M`,
    /// [`crate::bluestein_primes`]), its tables uploaded to `device`. `M` must be at least
    /// 2^10 (`m >= 513`), the smallest ring poly-cuda transforms.
    pub fn new(device: &Arc<GpuDevice>, m: usize, primes: &[u64]) -> Result<Self> {
        let big_m = bluestein_length(m);
        let plans = primes.iter().map(|&p| Ok(BluesteinPlan::new(Modulus::new(p)?, m)?)).collect::<Result<Vec<_>>>()?;
        let ring = RingContext::new(big_m, primes, TransformKind::Ntt)?;
        let context = GpuContext::new(device, &ring).map_err(backend_error)?;
        let upload = |words: Vec<u64>| -> Result<DevicePoly<Eval>> {
            let host = Poly::<Eval>::from_limbs(&ring, words)?;
            DevicePoly::upload(&context, &host).map_err(backend_error)
        };
        // The inverse folds m^-1 into its output chirp.
        let direction = |chirp_of: &dyn Fn(&BluesteinPlan) -> Vec<u64>,
                         kernel_of: &dyn Fn(&BluesteinPlan) -> Vec<u64>|
         -> Result<Direction> {
            let (mut chirp, mut kernel, mut chirp_out) = (Vec::new(), Vec::new(), Vec::new());
            for plan in &plans {
                let c = chirp_of(plan);
                let mut limb = vec![0u64; big_m];
                limb[..m].copy_from_slice(&c[..m]);
                chirp.extend_from_slice(&limb);
                kernel.extend_from_slice(&kernel_of(plan));
                let mut out = vec![0u64; big_m];
                out[m - 1..2 * m - 1].copy_from_slice(&c[m..]);
                chirp_out.extend_from_slice(&out);
            }
            Ok(Direction { chirp: upload(chirp)?, kernel: upload(kernel)?, chirp_out: upload(chirp_out)? })
        };
        // chirp_of returns the input chirp (m values) then the output chirp (m values).
        let forward = direction(&|plan| [plan.chirp(), plan.chirp()].concat(), &|plan| plan.kernel().to_vec())?;
        let inverse = direction(
            &|plan| {
                let q = plan.modulus();
                let out: Vec<u64> = plan.chirp_inv().iter().map(|&c| q.mul(c, plan.m_inv())).collect();
                [plan.chirp_inv(), &out].concat()
            },
            &|plan| plan.kernel_inv().to_vec(),
        )?;
        Ok(Self { m, plans, context, forward, inverse })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// The forward transform of `x`: `L` limbs of `m` canonical values (limb-major, limb `i`
    /// modulo prime `i`), the result in the same layout; the words of
    /// [`BluesteinPlan::forward`] per prime. Errors with [`CyclotomicError::LengthMismatch`] for
    /// another length and [`CyclotomicError::InvalidParameter`] for a value not below its prime.
    pub fn forward(&self, x: &[u64]) -> Result<Vec<u64>> {
        self.transform(x, &self.forward)
    }

    /// The inverse transform, the words of [`BluesteinPlan::inverse`] per prime (the product by
    /// `m^-1` folded into the output chirp, which gives the same residues). Errors as
    /// [`forward`](Self::forward).
    pub fn inverse(&self, values: &[u64]) -> Result<Vec<u64>> {
        self.transform(values, &self.inverse)
    }

    fn transform(&self, x: &[u64], direction: &Direction) -> Result<Vec<u64>> {
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
        a.mul_assign(&direction.chirp).map_err(backend_error)?;
        let mut a = retag::<Eval, Coeff>(a)?.forward().map_err(backend_error)?;
        a.mul_assign(&direction.kernel).map_err(backend_error)?;
        let mut a = retag::<Coeff, Eval>(a.inverse().map_err(backend_error)?)?;
        a.mul_assign(&direction.chirp_out).map_err(backend_error)?;
        let words = a.download().map_err(backend_error)?.into_vec();
        let mut out = Vec::with_capacity(m * limbs);
        for i in 0..limbs {
            out.extend_from_slice(&words[i * big_m + m - 1..i * big_m + 2 * m - 1]);
        }
        Ok(out)
    }
}
