//! [`GpuBackend`]: the [`poly::Backend`] trait on one CUDA device.

use std::sync::Arc;

use poly::{Backend, Coeff, Eval, Poly, Representation, RingContext, Seed, TransformKind};

use crate::context::GpuContext;
use crate::device::GpuDevice;
use crate::device_poly::DevicePoly;
use crate::error::{GpuError, Result};

/// The GPU implementation of [`poly::Backend`]: polynomials live in device memory
/// ([`DevicePoly`]), contexts hold the device tables ([`GpuContext`]), and every operation
/// returns exactly what [`poly::CpuBackend`] returns on the same input.
///
/// Sampling: `sample_*` run the device kernels of `kernels/sampling.cu` (see
/// [`crate::sampling`]), which produce exactly the CPU backend's values for the same seed.
#[derive(Debug, Clone)]
pub struct GpuBackend {
    device: Arc<GpuDevice>,
}

impl GpuBackend {
    /// A backend on device `ordinal` (see [`GpuDevice::new`] for the errors).
    pub fn new(ordinal: usize) -> Result<Self> {
        Ok(Self { device: GpuDevice::new(ordinal)? })
    }

    /// A backend on an already opened device.
    pub fn from_device(device: Arc<GpuDevice>) -> Self {
        Self { device }
    }

    /// The device.
    pub fn device(&self) -> &Arc<GpuDevice> {
        &self.device
    }

    fn check_device(&self, context: &GpuContext) -> Result<()> {
        if Arc::ptr_eq(context.device(), &self.device) { Ok(()) } else { Err(GpuError::WrongContext) }
    }
}

impl Backend for GpuBackend {
    type Error = GpuError;
    type Context = GpuContext;
    type Poly<R: Representation> = DevicePoly<R>;

    fn name(&self) -> &'static str {
        "CUDA"
    }

    fn context(&self, ring: &Arc<RingContext>) -> Result<GpuContext> {
        GpuContext::new(&self.device, ring)
    }

    fn ring<'a>(&self, context: &'a GpuContext) -> &'a Arc<RingContext> {
        context.ring()
    }

    fn synchronize(&self) -> Result<()> {
        self.device.synchronize()
    }

    fn zero<R: Representation>(&self, context: &GpuContext) -> Result<DevicePoly<R>> {
        self.check_device(context)?;
        DevicePoly::zero(context)
    }

    fn upload<R: Representation>(&self, context: &GpuContext, host: &Poly<R>) -> Result<DevicePoly<R>> {
        self.check_device(context)?;
        DevicePoly::upload(context, host)
    }

    fn download<R: Representation>(&self, poly: &DevicePoly<R>) -> Result<Poly<R>> {
        poly.download()
    }

    fn duplicate<R: Representation>(&self, poly: &DevicePoly<R>) -> Result<DevicePoly<R>> {
        poly.duplicate()
    }

    fn add_assign<R: Representation>(&self, a: &mut DevicePoly<R>, b: &DevicePoly<R>) -> Result<()> {
        a.add_assign(b)
    }

    fn sub_assign<R: Representation>(&self, a: &mut DevicePoly<R>, b: &DevicePoly<R>) -> Result<()> {
        a.sub_assign(b)
    }

    fn add_assign_many<R: Representation>(&self, a: &mut [DevicePoly<R>], b: &[DevicePoly<R>]) -> Result<()> {
        DevicePoly::add_assign_many(a, b)
    }

    fn add_sub_many<R: Representation>(
        &self,
        a: &[DevicePoly<R>],
        b: &[DevicePoly<R>],
        subtract: bool,
    ) -> Result<Vec<DevicePoly<R>>> {
        DevicePoly::add_sub_many(a, b, subtract)
    }

    fn neg_assign<R: Representation>(&self, a: &mut DevicePoly<R>) -> Result<()> {
        a.neg_assign()
    }

    fn scalar_mul_assign<R: Representation>(&self, a: &mut DevicePoly<R>, scalar: u64) -> Result<()> {
        a.scalar_mul_assign(scalar)
    }

    fn scalar_mul_per_limb_assign<R: Representation>(&self, a: &mut DevicePoly<R>, scalars: &[u64]) -> Result<()> {
        a.scalar_mul_per_limb_assign(scalars)
    }

    fn mul_assign(&self, a: &mut DevicePoly<Eval>, b: &DevicePoly<Eval>) -> Result<()> {
        a.mul_assign(b)
    }

    fn mul_add_assign(&self, acc: &mut DevicePoly<Eval>, a: &DevicePoly<Eval>, b: &DevicePoly<Eval>) -> Result<()> {
        acc.mul_add_assign(a, b)
    }

    // Out of place in one kernel each (the provided methods copy `a` first, then run in place).
    fn add<R: Representation>(&self, a: &DevicePoly<R>, b: &DevicePoly<R>) -> Result<DevicePoly<R>> {
        a.add(b)
    }

    fn sub<R: Representation>(&self, a: &DevicePoly<R>, b: &DevicePoly<R>) -> Result<DevicePoly<R>> {
        a.sub(b)
    }

    fn mul(&self, a: &DevicePoly<Eval>, b: &DevicePoly<Eval>) -> Result<DevicePoly<Eval>> {
        a.mul(b)
    }

    fn forward(&self, a: DevicePoly<Coeff>) -> Result<DevicePoly<Eval>> {
        a.forward()
    }

    fn inverse(&self, a: DevicePoly<Eval>) -> Result<DevicePoly<Coeff>> {
        a.inverse()
    }

    fn automorphism(&self, a: &DevicePoly<Coeff>, g: u64) -> Result<DevicePoly<Coeff>> {
        a.automorphism(g)
    }

    fn automorphism_eval(&self, a: &DevicePoly<Eval>, g: u64) -> Result<DevicePoly<Eval>> {
        match a.context().ring().transform() {
            TransformKind::Ntt => a.automorphism_ntt(g),
            TransformKind::Bluestein => a.automorphism_bluestein(g),
            TransformKind::Dgt | TransformKind::HierarchicalDgt => a.duplicate()?.inverse()?.automorphism(g)?.forward(),
        }
    }

    fn sample_uniform<R: Representation>(
        &self,
        context: &GpuContext,
        seed: &Seed,
        poly_index: u64,
    ) -> Result<DevicePoly<R>> {
        self.check_device(context)?;
        DevicePoly::sample_uniform(context, seed, poly_index)
    }

    fn sample_ternary(&self, context: &GpuContext, seed: &Seed, poly_index: u64) -> Result<DevicePoly<Coeff>> {
        self.check_device(context)?;
        DevicePoly::sample_ternary(context, seed, poly_index)
    }

    fn sample_cbd(&self, context: &GpuContext, seed: &Seed, poly_index: u64) -> Result<DevicePoly<Coeff>> {
        self.check_device(context)?;
        DevicePoly::sample_cbd(context, seed, poly_index)
    }
}
