//! Shoup companions of a fixed factor: for each canonical word `w` of a polynomial over
//! `q_0 .. q_{L-1}`, `floor(w 2^64 / q_i)` (`modarith::Modulus::shoup`). A product by `w` then
//! takes one high and two low 64-bit multiplies (`mul_shoup`) where a Barrett reduction of the
//! full product takes two and two more, plus its shifts: the first inverse pass of a decryption
//! (`c_0 + c_1 s`, kernels/ntt.cu) reads the secret key's companion beside it.
//!
//! A companion is as secret as its factor: it is overwritten with zeros when dropped.

use cudarc::driver::CudaSlice;
use poly::Eval;

use crate::{DevicePoly, GpuContext, GpuError, Result};

/// The Shoup companions of one polynomial's words ([`DevicePoly::shoup_companion`]), on its
/// device; zeroed when dropped.
pub struct ShoupCompanion {
    context: GpuContext,
    data: CudaSlice<u64>,
}

impl core::fmt::Debug for ShoupCompanion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ShoupCompanion").field("words", &self.data.len()).finish_non_exhaustive()
    }
}

impl ShoupCompanion {
    /// The context of the polynomial it was made from.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// The companion words, limb-major as the polynomial's.
    pub fn device_buffer(&self) -> &CudaSlice<u64> {
        &self.data
    }
}

impl Drop for ShoupCompanion {
    fn drop(&mut self) {
        // Nothing to report to: a failing device is beyond help here. The memset is queued on
        // the device's stream, after every kernel that reads the words.
        let stream = self.context.device().stream();
        let _ = stream.memset_zeros(&mut self.data);
    }
}

impl DevicePoly<Eval> {
    /// The Shoup companions of this polynomial's words, for a factor of many products:
    /// [`inverse_of_mul_add_scaled`](Self::inverse_of_mul_add_scaled) takes them for its `b`.
    /// One element-wise kernel; the words are as secret as the polynomial's.
    pub fn shoup_companion(&self) -> Result<ShoupCompanion> {
        let data = crate::launch::shoup_companion(self.context(), self.device_buffer())?;
        Ok(ShoupCompanion { context: self.context().clone(), data })
    }
}

/// The companion's words where it is `factor`'s: of the same context (the same primes and
/// length). Errors with [`GpuError::WrongContext`] otherwise.
pub(crate) fn words_for<'a>(
    companion: Option<&'a ShoupCompanion>,
    factor: &DevicePoly<Eval>,
) -> Result<Option<&'a CudaSlice<u64>>> {
    match companion {
        None => Ok(None),
        Some(c) if c.context.id() == factor.context().id() && c.data.len() == factor.device_buffer().len() => {
            Ok(Some(&c.data))
        }
        Some(_) => Err(GpuError::WrongContext),
    }
}
