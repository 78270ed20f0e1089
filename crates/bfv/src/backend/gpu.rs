//! [`BfvBackend`] on the GPU (feature `cuda`): the RNS steps, the batched product step and
//! decryption's scale-and-round with the kernels of `rns::gpu`, tables uploaded once per
//! context ([`GpuMulTables`]).

use poly::{Coeff, Eval};

use super::{BfvBackend, RnsStep, tensor_and_scale_by_steps};
use crate::params::MulTables;
use crate::{BfvError, Result};

/// The GPU runs every RNS step with the kernels of `rns::gpu` (tables uploaded once per
/// context, [`GpuMulTables`]), word for word what the CPU computes; the data
/// never leaves the device except for decryption's `N` plaintext words.
impl BfvBackend for poly_cuda::GpuBackend {
    type MulTables = GpuMulTables;

    fn prepare_mul(&self, tables: &MulTables) -> Result<GpuMulTables> {
        let device = self.device();
        let prepared = match tables {
            MulTables::Hps(hps) => rns::gpu::GpuHps::new(device, hps).map(|g| GpuMulTables::Hps(Box::new(g))),
            MulTables::Behz(behz) => rns::gpu::GpuBehz::new(device, behz).map(|g| GpuMulTables::Behz(Box::new(g))),
        };
        prepared.map_err(gpu_rns_error)
    }

    fn decrypt_scale_sum_resident(
        &self,
        _tables: &MulTables,
        prepared: &GpuMulTables,
        c0: &poly_cuda::DevicePoly<Coeff>,
        value: poly_cuda::DevicePoly<Eval>,
        factor: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<Self::PlainWords> {
        let x = rlwe::RlweBackend::inverse_of_product(self, value, factor)?;
        prepared.decryption().decrypt_sum_resident(&x, c0).map_err(gpu_rns_error)
    }

    fn rns_step(
        &self,
        step: RnsStep<'_>,
        prepared: &GpuMulTables,
        input: &poly_cuda::DevicePoly<Coeff>,
        target: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        let output = match (step, prepared) {
            (RnsStep::HpsExtend(_), GpuMulTables::Hps(g)) => g.extend_poly(input, target),
            (RnsStep::HpsScaleDown(_), GpuMulTables::Hps(g)) => g.scale_down_poly(input, target),
            (RnsStep::BehzExtend(_), GpuMulTables::Behz(g)) => g.extend_poly(input, target),
            (RnsStep::BehzScaleDown(_), GpuMulTables::Behz(g)) => g.scale_down_poly(input, target),
            // The prepared tables are those of the context's variant: a step of the other one
            // runs on the host (exact, slower).
            (step, _) => {
                let host = poly::Backend::download(self, input).map_err(BfvError::from_backend)?;
                let output = step.apply_poly(&host, poly::Backend::ring(self, target))?;
                return poly::Backend::upload(self, target, &output).map_err(BfvError::from_backend);
            }
        };
        output.map_err(gpu_rns_error)
    }

    /// NTT rings (HPS or BEHZ): the input polynomials extended in one launch into one batch,
    /// one transform of the batch, one tensor kernel into a batch of three, one inverse
    /// transform, then one launch per scaling step for the three parts (eight or nine launches
    /// where the steps take about twenty-five). The DGT rings take the steps one by one.
    fn tensor_and_scale(
        &self,
        tables: &MulTables,
        prepared: &GpuMulTables,
        a: [&poly_cuda::DevicePoly<Coeff>; 2],
        b: Option<[&poly_cuda::DevicePoly<Coeff>; 2]>,
        ring_mul: &poly_cuda::GpuContext,
        ring_q: &poly_cuda::GpuContext,
    ) -> Result<[poly_cuda::DevicePoly<Coeff>; 3]> {
        let matching = matches!(
            (prepared, tables),
            (GpuMulTables::Hps(_), MulTables::Hps(_)) | (GpuMulTables::Behz(_), MulTables::Behz(_))
        );
        if !matching || ring_mul.ring().transform() != poly::TransformKind::Ntt {
            return tensor_and_scale_by_steps(self, tables, prepared, a, b, ring_mul, ring_q);
        }
        let mut inputs = vec![a[0], a[1]];
        if let Some(b) = b {
            inputs.extend_from_slice(&b);
        }
        let extended = match prepared {
            GpuMulTables::Hps(hps) => hps.extend_batch(&inputs, ring_mul),
            GpuMulTables::Behz(behz) => behz.extend_batch(&inputs, ring_mul),
        }
        .map_err(gpu_rns_error)?;
        let tensor = extended.forward().map_err(BfvError::from_backend)?.tensor().map_err(BfvError::from_backend)?;
        let coefficients = tensor.inverse().map_err(BfvError::from_backend)?;
        let parts = match prepared {
            GpuMulTables::Hps(hps) => hps.scale_down_batch(&coefficients, ring_q),
            GpuMulTables::Behz(behz) => behz.scale_down_batch(&coefficients, ring_q),
        };
        let parts = parts.map_err(gpu_rns_error)?;
        let actual = parts.len();
        <[_; 3]>::try_from(parts)
            .map_err(|_| BfvError::from_backend(poly_cuda::GpuError::LengthMismatch { expected: 3, actual }))
    }

    fn decrypt_scale_sum(
        &self,
        _tables: &MulTables,
        prepared: &GpuMulTables,
        c0: &poly_cuda::DevicePoly<Coeff>,
        value: poly_cuda::DevicePoly<Eval>,
        factor: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<Vec<u64>> {
        let x = rlwe::RlweBackend::inverse_of_product(self, value, factor)?;
        prepared.decryption().decrypt_sum_poly(&x, c0).map_err(gpu_rns_error)
    }

    fn decrypt_scale(
        &self,
        _tables: &MulTables,
        prepared: &GpuMulTables,
        input: &poly_cuda::DevicePoly<Coeff>,
    ) -> Result<Vec<u64>> {
        prepared.decryption().decrypt_poly(input).map_err(gpu_rns_error)
    }
}

/// The multiplication's tables on a GPU (uploaded once per context): HPS or BEHZ.
#[derive(Debug)]
pub enum GpuMulTables {
    /// HPS (both variants boxed: their tables differ in size).
    Hps(Box<rns::gpu::GpuHps>),
    /// BEHZ.
    Behz(Box<rns::gpu::GpuBehz>),
}

impl GpuMulTables {
    /// Decryption's scale-and-round of the variant.
    fn decryption(&self) -> &dyn rns::gpu::GpuDecryption {
        match self {
            GpuMulTables::Hps(hps) => hps.as_ref(),
            GpuMulTables::Behz(behz) => behz.as_ref(),
        }
    }
}

/// The RNS layer's own errors as [`BfvError::Rns`], device errors as [`BfvError::Backend`].
fn gpu_rns_error(error: rns::gpu::GpuRnsError) -> BfvError {
    match error {
        rns::gpu::GpuRnsError::Rns(rns_error) => BfvError::Rns(rns_error),
        other => BfvError::from_backend(other),
    }
}
