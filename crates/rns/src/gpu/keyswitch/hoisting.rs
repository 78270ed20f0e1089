//! Hoisted key switching on the device: the extended, transformed digits of one input kept in
//! one batch, and the inner product of their automorphism with a key, for several
//! automorphisms of one ciphertext. Over NTT rings the inner-product kernel reads the digits
//! through the automorphism's permutation (no permuted copy); over `Phi_m` and the DGTs the
//! batch is permuted first ([`DevicePolyBatch::automorphism`]).

use poly::{Coeff, Eval, PolyError, TransformKind};
use poly_cuda::kernel::MAX_GRID_Y;
use poly_cuda::{DevicePoly, DevicePolyBatch, GpuContext, GpuError};

use super::{GpuKeySwitch, is_gaussian};
use crate::gpu::{Result, check_poly};
use crate::{Extension, check_len};

impl GpuKeySwitch {
    /// Every digit of `input` (over `q`) extended to `q u P` and forward transformed, in one
    /// batch `[digits][q u P][N]`: the words the CPU's per-digit
    /// [`KeySwitchContext::mod_up`](crate::KeySwitchContext::mod_up) and forward transform
    /// give. Built in chunks of digits where one transform launch cannot hold them all.
    ///
    /// Errors: [`RnsError::ContextMismatch`](crate::RnsError::ContextMismatch) unless `input`'s
    /// ring is `q` and `q_p`'s is `q u P` at this degree; device errors (out of memory: the
    /// batch holds `digits (k + l) N` words).
    pub fn extended_digits_all(
        &self,
        input: &DevicePoly<Coeff>,
        extension: Extension,
        q_p: &GpuContext,
    ) -> Result<DevicePolyBatch<Eval>> {
        check_poly(&self.kernels, input.context(), &self.q, self.degree, "hoisted key-switching input")?;
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "key-switching ring q u P")?;
        let digits = self.digits.len();
        let input_address = self.kernels.read_address(input.device_buffer())?;
        let chunk = (MAX_GRID_Y / self.q_p.len()).max(1);
        if digits <= chunk {
            return self.extended_digits(input, 0, digits, extension, q_p, input_address);
        }
        let stride = self.stride();
        let mut all = self.kernels.alloc_for_kernels(digits * stride)?;
        let stream = self.kernels.stream();
        let mut start = 0;
        while start < digits {
            let count = chunk.min(digits - start);
            let part = self.extended_digits(input, start, count, extension, q_p, input_address)?;
            let mut destination = all.slice_mut(start * stride..(start + count) * stride);
            stream
                .memcpy_dtod(part.device_buffer(), &mut destination)
                .map_err(|e| GpuError::Driver { call: "cuMemcpyDtoDAsync", reason: e.to_string() })?;
            start += count;
        }
        Ok(DevicePolyBatch::from_device_buffer(q_p, digits, all)?)
    }

    /// With `digits` from [`extended_digits_all`](Self::extended_digits_all) and `key` one pair
    /// `(b_j, a_j)` per digit over `q u P`: `sum_j sigma_g(d_j) b_j` and
    /// `sum_j sigma_g(d_j) a_j` in one batch of two (evaluation representation), `sigma_g`
    /// acting on the evaluations (module docs). The words of the CPU's permuted inner product.
    ///
    /// Errors: [`RnsError::LengthMismatch`](crate::RnsError::LengthMismatch) unless there is one
    /// key pair and one extended polynomial per digit; a context mismatch for polynomials of
    /// another ring or device; [`poly::PolyError::InvalidAutomorphism`] for an invalid `g`.
    pub fn permuted_inner_product(
        &self,
        digits: &DevicePolyBatch<Eval>,
        element: u64,
        key: &[(DevicePoly<Eval>, DevicePoly<Eval>)],
        q_p: &GpuContext,
    ) -> Result<DevicePolyBatch<Eval>> {
        check_poly(&self.kernels, q_p, &self.q_p, self.degree, "key-switching ring q u P")?;
        check_len("hoisted digits", self.digits.len(), digits.len())?;
        check_len("key-switching key digits", self.digits.len(), key.len())?;
        q_p.check_compatible(digits.context())?;
        let keys = self.key_addresses(key, q_p)?;
        // Over an NTT ring the inner product reads the digits permuted (no copy); otherwise
        // the batch is permuted first (Bluestein rows, or the DGT's coefficients).
        let transform = q_p.ring().transform();
        let (permuted, galois) = if transform == TransformKind::Ntt {
            let two_n = 2 * self.row as u64;
            if element.is_multiple_of(2) {
                return Err(
                    GpuError::from(PolyError::InvalidAutomorphism { exponent: element, degree: self.row }).into()
                );
            }
            let galois = u32::try_from(element % two_n)
                .map_err(|_| GpuError::from(PolyError::InvalidAutomorphism { exponent: element, degree: self.row }))?;
            (None, galois)
        } else {
            (Some(digits.automorphism(element)?), 0)
        };
        let source = permuted.as_ref().unwrap_or(digits);
        let extended = self.kernels.read_address(source.device_buffer())?;
        let mut sums = self.kernels.alloc_for_kernels(2 * self.stride())?;
        let output = self.kernels.write_address(&mut sums)?;
        // SAFETY: `source` holds one polynomial over q u P per digit and each key address one
        // (rings checked), `sums` two; device allocations are 256-byte aligned (keys checked),
        // and every polynomial has an even number of words (N >= 2^10 for a ring context);
        // `galois` is odd and below 2N, and only set over an NTT ring. All on this device's
        // stream; a permuted copy lives until the launches are queued and is freed in stream
        // order after them.
        unsafe { self.inner_product_raw(is_gaussian(transform), extended, &keys, false, output, None, galois) }?;
        Ok(DevicePolyBatch::from_device_buffer(q_p, 2, sums)?)
    }
}
