//! The Bluestein transform on the GPU, over several primes at once (one limb per prime): the
//! length-`m` DFT and its inverse, the same words as [`BluesteinPlan::forward`] and
//! [`BluesteinPlan::inverse`] per prime. The kernels and the tables are the ring layer's
//! ([`GpuCyclotomic::dft`], `poly_cuda::bluestein`); this type keeps the host-side API.
//!
//! [`BluesteinPlan::forward`]: crate::BluesteinPlan::forward
//! [`BluesteinPlan::inverse`]: crate::BluesteinPlan::inverse

use std::sync::Arc;

use poly_cuda::GpuDevice;
use poly_cuda::bluestein::GpuCyclotomic;

use crate::Result;

/// The length-`m` DFT and its inverse modulo each of `primes` on one device (module docs).
#[derive(Debug)]
pub struct GpuBluestein {
    ring: GpuCyclotomic,
}

impl GpuBluestein {
    /// The transform of odd `m` modulo `primes` (each `= 1 mod m` and `= 1 mod 2M`,
    /// [`crate::bluestein_primes`]), its tables uploaded to `device`. `M` must be at least
    /// 2^10 (`m >= 513`), the smallest ring poly-cuda transforms.
    pub fn new(device: &Arc<GpuDevice>, m: usize, primes: &[u64]) -> Result<Self> {
        Ok(Self { ring: GpuCyclotomic::new(device, m, primes)? })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.ring.m()
    }

    /// The forward transform of `x`: `L` limbs of `m` canonical values (limb-major, limb `i`
    /// modulo prime `i`), the result in the same layout; the words of
    /// [`BluesteinPlan::forward`](crate::BluesteinPlan::forward) per prime. Errors for another
    /// length or a value not below its prime.
    pub fn forward(&self, x: &[u64]) -> Result<Vec<u64>> {
        self.check_len(x)?;
        Ok(self.ring.dft(x, false)?)
    }

    /// The inverse transform, the words of
    /// [`BluesteinPlan::inverse`](crate::BluesteinPlan::inverse) per prime. Errors as
    /// [`forward`](Self::forward).
    pub fn inverse(&self, values: &[u64]) -> Result<Vec<u64>> {
        self.check_len(values)?;
        Ok(self.ring.dft(values, true)?)
    }

    /// One vector per prime, exactly (the ring's check accepts any number of vectors).
    fn check_len(&self, x: &[u64]) -> Result<()> {
        let expected = self.ring.m() * self.ring.limbs();
        if x.len() != expected {
            return Err(crate::CyclotomicError::LengthMismatch { what: "transform input", expected, actual: x.len() });
        }
        Ok(())
    }
}
