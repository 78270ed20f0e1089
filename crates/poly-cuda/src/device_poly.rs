//! [`DevicePoly`]: a polynomial in device memory, typed by its representation, and
//! [`DevicePolyBatch`]: several of them in one buffer, transformed by one launch sequence.
//!
//! (Above 800 lines on purpose: both types' entry points share one set of context and length
//! checks, and each fused entry point of the single polynomial has its batch twin next to it.)

use std::marker::PhantomData;
use std::sync::Arc;

use cudarc::driver::CudaSlice;
use poly::{Coeff, Eval, Poly, PolyError, Representation, RingContext, TransformKind};

use crate::context::GpuContext;
use crate::elementwise::{self, BinaryOp};
use crate::error::{GpuError, Result};
use crate::ntt;

/// A polynomial of a [`GpuContext`] in representation `R`, stored on the device as one
/// limb-major buffer `[L][N]` of `u64` (limb `i` at `i * N`), every value canonical.
///
/// The layout and values are exactly those of [`poly::Poly<R>`]: evaluations are in the order
/// of the context's transform (for the NTT, bit-reversed: `out[j] = a(psi^(2 bitrev(j) + 1))`).
/// Operations queue kernels on the device's stream and return at once; [`DevicePoly::download`]
/// waits for them.
#[derive(Debug)]
pub struct DevicePoly<R: Representation> {
    context: GpuContext,
    data: CudaSlice<u64>,
    representation: PhantomData<R>,
}

/// A copy in new device memory, queued on the context's stream (as [`DevicePoly::duplicate`]).
///
/// # Panics
///
/// When the device cannot make the copy (out of memory, or a device already in error), as a
/// `Vec`'s clone aborts when the allocator fails: `Clone` has no error to return. Code that
/// must handle that case calls [`DevicePoly::duplicate`], which returns it.
impl<R: Representation> Clone for DevicePoly<R> {
    #[allow(clippy::panic)]
    fn clone(&self) -> Self {
        match self.duplicate() {
            Ok(copy) => copy,
            Err(error) => {
                panic!("cloning a device polynomial failed (use DevicePoly::duplicate to handle it): {error}")
            }
        }
    }
}

impl<R: Representation> DevicePoly<R> {
    /// Wraps a device buffer of `L * N` canonical values (kernels of this crate, e.g. sampling,
    /// or of crates built on it, e.g. `rns`'s GPU conversions): the values must be canonical
    /// residues of the context's limbs, written on the context's stream. Errors with
    /// [`GpuError::LengthMismatch`] for a wrong length.
    pub fn from_device_buffer(context: &GpuContext, data: CudaSlice<u64>) -> Result<Self> {
        let expected = context.poly_len();
        if data.len() != expected {
            return Err(GpuError::LengthMismatch { expected, actual: data.len() });
        }
        Ok(Self { context: context.clone(), data, representation: PhantomData })
    }

    /// The device buffer of the values (limb-major, `L N` words), given up by the polynomial.
    pub fn into_device_buffer(self) -> CudaSlice<u64> {
        self.data
    }

    /// The device buffer of the values, to be overwritten (e.g. by
    /// [`crate::graph::copy_buffers`]): the caller writes canonical residues of the context's
    /// limbs, on the context's stream.
    pub fn device_buffer_mut(&mut self) -> &mut CudaSlice<u64> {
        &mut self.data
    }

    /// The zero polynomial.
    pub fn zero(context: &GpuContext) -> Result<Self> {
        let len = context.poly_len();
        let bytes = len * size_of::<u64>();
        let data = context.device().stream().alloc_zeros::<u64>(len).map_err(|e| GpuError::alloc(bytes, e))?;
        Self::from_device_buffer(context, data)
    }

    /// Copies `host` to the device. Errors with [`PolyError::ContextMismatch`] unless `host`
    /// belongs to a ring compatible with `context`'s.
    pub fn upload(context: &GpuContext, host: &Poly<R>) -> Result<Self> {
        if !context.ring().is_compatible(host.context()) {
            return Err(PolyError::ContextMismatch.into());
        }
        let data = context.device().upload(&context.to_device_layout(host.as_slice()))?;
        Self::from_device_buffer(context, data)
    }

    /// A polynomial from limb-major host values, validated as [`Poly::from_slice`] does
    /// ([`PolyError::LengthMismatch`], [`PolyError::CoefficientOutOfRange`]).
    pub fn from_limbs(context: &GpuContext, values: &[u64]) -> Result<Self> {
        let host = Poly::<R>::from_slice(context.ring(), values)?;
        Self::upload(context, &host)
    }

    /// The values, copied back to the host once all queued work has finished.
    pub fn download(&self) -> Result<Poly<R>> {
        let values = self.context.device().download_words(&self.data)?;
        Ok(Poly::from_limbs(self.context.ring(), self.context.host_layout(values))?)
    }

    /// The limb-major values as a plain vector (see [`DevicePoly::download`]).
    pub fn to_vec(&self) -> Result<Vec<u64>> {
        Ok(self.context.host_layout(self.context.device().download_words(&self.data)?))
    }

    /// The GPU context.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    /// The host ring context.
    pub fn ring(&self) -> &Arc<RingContext> {
        self.context.ring()
    }

    /// The device buffer (`L * N` values, limb-major).
    pub fn device_buffer(&self) -> &CudaSlice<u64> {
        &self.data
    }

    /// A copy in fresh device memory.
    pub fn duplicate(&self) -> Result<Self> {
        let data = self.context.device().duplicate(&self.data)?;
        Ok(Self { context: self.context.clone(), data, representation: PhantomData })
    }

    fn retag<S: Representation>(self) -> DevicePoly<S> {
        DevicePoly { context: self.context, data: self.data, representation: PhantomData }
    }

    fn binary_assign(&mut self, op: BinaryOp, other: &Self) -> Result<()> {
        self.context.check_compatible(&other.context)?;
        elementwise::binary(&self.context, op, &mut self.data, None, &other.data)
    }

    /// `op(self, other)` into fresh device memory (one kernel, no copy of `self` first).
    fn binary_out_of_place(&self, op: BinaryOp, other: &Self) -> Result<Self> {
        self.context.check_compatible(&other.context)?;
        // SAFETY: the element-wise kernel writes every value of `out` (all `out.len() / 2`
        // pairs) before anything reads it.
        let mut out = unsafe { self.context.device().alloc::<u64>(self.data.len()) }?;
        elementwise::binary(&self.context, op, &mut out, Some(&self.data), &other.data)?;
        Ok(Self { context: self.context.clone(), data: out, representation: PhantomData })
    }

    /// `self + other`, value by value, in fresh device memory.
    pub fn add(&self, other: &Self) -> Result<Self> {
        self.binary_out_of_place(BinaryOp::Add, other)
    }

    /// `a[k] <- a[k] + b[k]` for `k < min(a.len(), b.len())`, up to four polynomials per
    /// launch (a ciphertext's at once). Errors as [`add_assign`](Self::add_assign), checked for
    /// every pair before anything is launched (nothing changes then).
    pub fn add_assign_many(a: &mut [Self], b: &[Self]) -> Result<()> {
        let count = a.len().min(b.len());
        if count == 0 {
            return Ok(());
        }
        for (x, y) in a.iter().zip(b) {
            x.context.check_compatible(&y.context)?;
            a[0].context.check_compatible(&x.context)?;
        }
        for (chunk_a, chunk_b) in
            a[..count].chunks_mut(elementwise::MAX_MANY).zip(b[..count].chunks(elementwise::MAX_MANY))
        {
            let context = chunk_a[0].context.clone();
            let sources: Vec<&CudaSlice<u64>> = chunk_b.iter().map(|p| &p.data).collect();
            let mut outs: Vec<&mut CudaSlice<u64>> = chunk_a.iter_mut().map(|p| &mut p.data).collect();
            elementwise::add_sub_many(&context, false, &mut outs, None, &sources)?;
        }
        Ok(())
    }

    /// `a[k] + b[k]` (or `a[k] - b[k]` when `subtract`) for `k < min(a.len(), b.len())`, in
    /// fresh device memory, up to four polynomials per launch. Errors as [`add`](Self::add).
    pub fn add_sub_many(a: &[Self], b: &[Self], subtract: bool) -> Result<Vec<Self>> {
        let count = a.len().min(b.len());
        if count == 0 {
            return Ok(Vec::new());
        }
        for (x, y) in a.iter().zip(b) {
            x.context.check_compatible(&y.context)?;
            a[0].context.check_compatible(&x.context)?;
        }
        let mut out = Vec::with_capacity(count);
        for x in &a[..count] {
            // SAFETY: the kernel below writes every value before anything reads it (on an
            // error the buffers are dropped unread).
            let data = unsafe { x.context.device().alloc::<u64>(x.data.len()) }?;
            out.push(Self { context: x.context.clone(), data, representation: PhantomData });
        }
        for (k, chunk) in out.chunks_mut(elementwise::MAX_MANY).enumerate() {
            let first = k * elementwise::MAX_MANY;
            let context = chunk[0].context.clone();
            let left: Vec<&CudaSlice<u64>> = a[first..first + chunk.len()].iter().map(|p| &p.data).collect();
            let right: Vec<&CudaSlice<u64>> = b[first..first + chunk.len()].iter().map(|p| &p.data).collect();
            let mut outs: Vec<&mut CudaSlice<u64>> = chunk.iter_mut().map(|p| &mut p.data).collect();
            elementwise::add_sub_many(&context, subtract, &mut outs, Some(&left), &right)?;
        }
        Ok(out)
    }

    /// `self - other`, value by value, in fresh device memory.
    pub fn sub(&self, other: &Self) -> Result<Self> {
        self.binary_out_of_place(BinaryOp::Sub, other)
    }

    /// `self <- self + other`, value by value.
    pub fn add_assign(&mut self, other: &Self) -> Result<()> {
        self.binary_assign(BinaryOp::Add, other)
    }

    /// `self <- self - other`, value by value.
    pub fn sub_assign(&mut self, other: &Self) -> Result<()> {
        self.binary_assign(BinaryOp::Sub, other)
    }

    /// `self <- -self`.
    pub fn neg_assign(&mut self) -> Result<()> {
        elementwise::neg_assign(&self.context, &mut self.data)
    }

    /// `self <- scalar * self` for an integer `scalar`, reduced modulo each prime.
    pub fn scalar_mul_assign(&mut self, scalar: u64) -> Result<()> {
        let scalars: Vec<u64> = self.context.ring().moduli().iter().map(|m| m.reduce(scalar)).collect();
        self.scalar_mul_per_limb_assign(&scalars)
    }

    /// `self <- c * self` for the RNS constant with residue `scalars[i]` modulo `q_i`.
    /// Errors with [`PolyError::LengthMismatch`] unless there is one scalar per limb and with
    /// [`PolyError::CoefficientOutOfRange`] (index 0) if `scalars[i] >= q_i`, as
    /// [`Poly::scalar_mul_per_limb`] does.
    pub fn scalar_mul_per_limb_assign(&mut self, scalars: &[u64]) -> Result<()> {
        let moduli = self.context.ring().moduli();
        if scalars.len() != moduli.len() {
            return Err(PolyError::LengthMismatch { expected: moduli.len(), actual: scalars.len() }.into());
        }
        let mut table = Vec::with_capacity(2 * scalars.len());
        for (limb, (&c, m)) in scalars.iter().zip(moduli).enumerate() {
            if c >= m.value() {
                return Err(PolyError::CoefficientOutOfRange { limb, index: 0, value: c, modulus: m.value() }.into());
            }
            table.extend_from_slice(&[c, m.shoup(c)]);
        }
        let table = self.context.device().upload(&table)?;
        elementwise::scalar_mul_assign(&self.context, &mut self.data, &table)
    }
}

impl DevicePoly<Coeff> {
    /// The forward transform of every limb (NTT contexts: bit-reversed evaluations,
    /// `out[j] = a(psi^(2 bitrev(j) + 1))`, exactly `poly`'s `Poly::forward`).
    pub fn forward(mut self) -> Result<DevicePoly<Eval>> {
        self.context.forward_transform(&mut self.data, 1)?;
        Ok(self.retag())
    }

    /// The forward transform (as [`DevicePoly::forward`]) into fresh device memory; `self` is
    /// untouched. NTT contexts read `self` in the transform's first pass (no device copy
    /// first); DGT and HDGT contexts copy, then transform.
    pub fn forward_to_new(&self) -> Result<DevicePoly<Eval>> {
        let data = self.context.forward_transform_to_new(&self.data, 1)?;
        Ok(DevicePoly { context: self.context.clone(), data, representation: PhantomData })
    }

    /// `a(x) -> a(x^g)` for odd `g` (taken modulo `2N`), as [`Poly::automorphism`]:
    /// coefficient `j` moves to `k = j g mod 2N`, negated if `k >= N`, landing at `k - N`.
    /// Errors with [`PolyError::InvalidAutomorphism`] for even `g`.
    pub fn automorphism(&self, g: u64) -> Result<Self> {
        if self.context.bluestein().is_some() {
            // Z_q[x]/Phi_m: the permutation of the evaluations, between the transforms.
            self.context.ring().ring_kind().check_automorphism(g)?;
            let evaluations = self.forward_to_new()?;
            return evaluations.automorphism_bluestein(g)?.inverse();
        }
        let n = self.context.degree();
        if g.is_multiple_of(2) {
            return Err(PolyError::InvalidAutomorphism { exponent: g, degree: n }.into());
        }
        let two_n = 2 * n as u64;
        let g_inv = inverse_mod_power_of_two(g % two_n, two_n);
        // SAFETY: the automorphism kernel writes every value of `out`.
        let mut out = unsafe { self.context.device().alloc::<u64>(self.data.len()) }?;
        elementwise::automorphism(&self.context, &mut out, &self.data, g_inv)?;
        Ok(Self { context: self.context.clone(), data: out, representation: PhantomData })
    }
}

impl DevicePoly<Eval> {
    /// `a(x) -> a(x^g)` on the evaluations of an NTT context: the permutation of
    /// [`Poly::automorphism_ntt`], one kernel. Errors with [`PolyError::InvalidAutomorphism`]
    /// for even `g`, [`PolyError::ContextMismatch`] for a DGT or HDGT context.
    pub fn automorphism_ntt(&self, g: u64) -> Result<Self> {
        let n = self.context.degree();
        if g.is_multiple_of(2) {
            return Err(PolyError::InvalidAutomorphism { exponent: g, degree: n }.into());
        }
        if self.context.ring().transform() != TransformKind::Ntt || n < 2 {
            return Err(PolyError::ContextMismatch.into());
        }
        // SAFETY: the kernel writes every value of `out`.
        let mut out = unsafe { self.context.device().alloc::<u64>(self.data.len()) }?;
        elementwise::automorphism_eval(&self.context, &mut out, &self.data, g)?;
        Ok(Self { context: self.context.clone(), data: out, representation: PhantomData })
    }

    /// `a(x) -> a(x^g)` on the evaluations of a ring `Z_q[x]/Phi_m` (`g` a unit modulo `m`):
    /// the permutation of [`Poly::automorphism_bluestein`], one kernel. Errors with
    /// [`PolyError::InvalidGaloisElement`] for a `g` that is no unit modulo `m` and
    /// [`PolyError::InvalidTransform`] for a context of the power-of-two ring.
    pub fn automorphism_bluestein(&self, g: u64) -> Result<Self> {
        let ring = self.context.ring();
        ring.ring_kind().check_automorphism(g)?;
        let bluestein = self.context.bluestein().ok_or(PolyError::ContextMismatch)?;
        let sources = || ring.bluestein_automorphism_sources(g);
        let data = bluestein.permute_rows_for(&self.data, g, sources, self.context.degree(), 1)?;
        Ok(Self { context: self.context.clone(), data, representation: PhantomData })
    }

    /// The inverse transform of every limb (`poly`'s `Poly::inverse`).
    pub fn inverse(mut self) -> Result<DevicePoly<Coeff>> {
        self.context.inverse_transform(&mut self.data, 1)?;
        Ok(self.retag())
    }

    /// The inverse transform (as [`DevicePoly::inverse`]) into fresh device memory; `self` is
    /// untouched. NTT contexts read `self` in the transform's first pass (no device copy
    /// first); DGT and HDGT contexts copy, then transform.
    pub fn inverse_to_new(&self) -> Result<DevicePoly<Coeff>> {
        let data = self.context.inverse_transform_to_new(&self.data, 1)?;
        Ok(DevicePoly { context: self.context.clone(), data, representation: PhantomData })
    }

    /// The inverse transform of `self * other`: word for word [`DevicePoly::mul_assign`] then
    /// [`DevicePoly::inverse`]. NTT contexts take the product in the inverse's first pass (no
    /// element-wise kernel); DGT and HDGT contexts run the two steps. Errors as `mul_assign`
    /// ([`GpuError::WrongContext`] for another device, [`PolyError::ContextMismatch`] for an
    /// incompatible ring) before queuing anything; `other` is never changed.
    pub fn inverse_of_product(mut self, other: &Self) -> Result<DevicePoly<Coeff>> {
        self.context.check_compatible(&other.context)?;
        self.context.inverse_transform_of_product(&mut self.data, &other.data, 1)?;
        Ok(self.retag())
    }

    /// The inverse transform of `self + a * b` into a new polynomial: word for word a copy of
    /// `self` after [`DevicePoly::mul_add_assign`], then [`DevicePoly::inverse`]. NTT contexts
    /// load the multiply-add in the inverse's first pass (no copy, no element-wise kernel):
    /// a decryption's phase `c_0 + c_1 s`. Errors as `mul_add_assign` before queuing
    /// anything; the three inputs are never changed.
    pub fn inverse_of_mul_add(&self, a: &Self, b: &Self) -> Result<DevicePoly<Coeff>> {
        self.context.check_compatible(&a.context)?;
        self.context.check_compatible(&b.context)?;
        let data = self.context.inverse_transform_of_mul_add(&self.data, &a.data, &b.data, 1)?;
        Ok(DevicePoly { context: self.context.clone(), data, representation: PhantomData })
    }

    /// [`inverse_of_mul_add`](Self::inverse_of_mul_add) with each limb `i` of the result times
    /// `scale`'s factor `f_i` (canonical: the words of `scalar_mul_per_limb_assign` after
    /// it). NTT contexts fold the factors into the inverse's last stage (no extra pass): a BGV
    /// decryption's `(q/q_i)^{-1}`. Errors as `inverse_of_mul_add`, and with
    /// [`GpuError::WrongContext`] for a scale made for another context; the inputs are never
    /// changed.
    pub fn inverse_of_mul_add_scaled(
        &self,
        a: &Self,
        b: &Self,
        scale: &crate::raw::InverseScale,
    ) -> Result<DevicePoly<Coeff>> {
        self.context.check_compatible(&a.context)?;
        self.context.check_compatible(&b.context)?;
        if scale.context().id() != self.context.id() {
            return Err(GpuError::WrongContext);
        }
        let data = self.context.inverse_transform_of_mul_add_scaled(&self.data, &a.data, &b.data, scale)?;
        Ok(DevicePoly { context: self.context.clone(), data, representation: PhantomData })
    }

    /// [`inverse_of_mul_add_scaled`](Self::inverse_of_mul_add_scaled) into `out` (a
    /// polynomial of this context, overwritten): nothing is allocated on NTT contexts, so the
    /// launches can be recorded into a graph ([`crate::graph::RelocatableGraph`]). The same
    /// errors, and [`GpuError::Unsupported`] for a scale without an NTT table (DGT contexts);
    /// all checked before anything is queued.
    pub fn inverse_of_mul_add_scaled_into(
        &self,
        a: &Self,
        b: &Self,
        scale: &crate::raw::InverseScale,
        out: &mut DevicePoly<Coeff>,
    ) -> Result<()> {
        self.context.check_compatible(&a.context)?;
        self.context.check_compatible(&b.context)?;
        self.context.check_compatible(&out.context)?;
        if scale.context().id() != self.context.id() {
            return Err(GpuError::WrongContext);
        }
        self.context.inverse_transform_of_mul_add_scaled_into(&mut out.data, &self.data, &a.data, &b.data, scale)
    }

    /// The centered lift modulo `t` of `inverse(self + a b)` ([`crate::raw::CenteredLift`]): for
    /// each coefficient `j` of `x = inverse(self + a b)`, `[x_c]_t * factor mod t` with `x_c`
    /// the representative of `x_j` in `(-q/2, q/2]`, as `N` words on the device (BGV's
    /// decryption). Two kernels: the transform's last pass runs in thread block clusters that
    /// lift from their blocks' shared memory and never write `x`. `Ok(None)`, with nothing
    /// queued, where that path does not exist (devices without clusters, DGT rings,
    /// `N > 2^12`, where it was slower than the separate lift): then
    /// [`inverse_of_mul_add_scaled`](Self::inverse_of_mul_add_scaled) with `lift.scale()`
    /// gives the scaled phase to lift separately. Errors as `inverse_of_mul_add_scaled`, and
    /// with [`PolyError::CoefficientOutOfRange`] for `factor >= t`; the inputs are never
    /// changed.
    pub fn inverse_of_mul_add_lifted(
        &self,
        a: &Self,
        b: &Self,
        lift: &crate::raw::CenteredLift,
        factor: u64,
    ) -> Result<Option<CudaSlice<u64>>> {
        let Some(plan) = self.check_lift(a, b, lift, factor)? else {
            return Ok(None);
        };
        let device = self.context.device();
        let n = self.context.degree();
        // SAFETY: the lift kernel writes all N words before anything reads them.
        let mut out = unsafe { device.alloc::<u64>(n) }?;
        let out_address = crate::kernel::address_mut(&mut out, device.stream());
        // SAFETY: the first inverse pass writes every value of `data` before the lift reads it.
        let mut data = unsafe { device.alloc::<u64>(self.data.len()) }?;
        self.queue_lift(&plan, a, b, lift, factor, &mut data, out_address)?;
        Ok(Some(out))
    }

    /// [`inverse_of_mul_add_lifted`](Self::inverse_of_mul_add_lifted) into `out` (`N` words),
    /// with `scratch` (a polynomial of this context, overwritten) holding the transform's first
    /// pass: nothing is allocated, so the launches can be recorded into a graph
    /// ([`crate::graph::RelocatableGraph`]). `Ok(false)`, with nothing queued, where the fused
    /// path does not exist. The same errors, and [`GpuError::LengthMismatch`] for an `out` of
    /// another length or a `scratch` of another ring (checked before anything is queued).
    pub fn inverse_of_mul_add_lifted_into(
        &self,
        a: &Self,
        b: &Self,
        lift: &crate::raw::CenteredLift,
        factor: u64,
        scratch: &mut DevicePoly<Coeff>,
        out: &mut CudaSlice<u64>,
    ) -> Result<bool> {
        let Some(plan) = self.check_lift(a, b, lift, factor)? else {
            return Ok(false);
        };
        self.context.check_compatible(&scratch.context)?;
        let n = self.context.degree();
        if out.len() != n {
            return Err(GpuError::LengthMismatch { expected: n, actual: out.len() });
        }
        let out_address = crate::kernel::address_mut(out, self.context.device().stream());
        self.queue_lift(&plan, a, b, lift, factor, &mut scratch.data, out_address)?;
        Ok(true)
    }

    /// [`inverse_of_mul_add_lifted`](Self::inverse_of_mul_add_lifted) with the `N` words
    /// returned to the host, written by the kernel straight into mapped host memory (the fused
    /// path's `N <= 2^12` is far below [`crate::raw::STAGING_MAX_WORDS`]); waits for the device.
    /// `Ok(None)`, with nothing queued, where the fused path does not exist. The same errors.
    pub fn inverse_of_mul_add_lifted_to_host(
        &self,
        a: &Self,
        b: &Self,
        lift: &crate::raw::CenteredLift,
        factor: u64,
    ) -> Result<Option<Vec<u64>>> {
        let Some(plan) = self.check_lift(a, b, lift, factor)? else {
            return Ok(None);
        };
        let n = self.context.degree();
        // SAFETY: the first inverse pass writes every value of `data` before the lift reads it.
        let mut data = unsafe { self.context.device().alloc::<u64>(self.data.len()) }?;
        let words = self
            .context
            .device()
            .collect_words(n, |address| self.queue_lift(&plan, a, b, lift, factor, &mut data, address))?;
        Ok(Some(words))
    }

    /// The checks of the lifted inverse (every operand before anything is queued) and its plan.
    fn check_lift(
        &self,
        a: &Self,
        b: &Self,
        lift: &crate::raw::CenteredLift,
        factor: u64,
    ) -> Result<Option<ntt::LiftPlan<'_>>> {
        self.context.check_compatible(&a.context)?;
        self.context.check_compatible(&b.context)?;
        if lift.context().id() != self.context.id() {
            return Err(GpuError::WrongContext);
        }
        let t = lift.plaintext_modulus();
        if factor >= t {
            return Err(PolyError::CoefficientOutOfRange { limb: 0, index: 0, value: factor, modulus: t }.into());
        }
        Ok(ntt::lift_plan(&self.context))
    }

    /// Queues the lifted inverse (checked, with its plan) into the `N` words at `out`, the
    /// first pass into `data` (`L N` words, overwritten).
    #[allow(clippy::too_many_arguments)]
    fn queue_lift(
        &self,
        plan: &ntt::LiftPlan<'_>,
        a: &Self,
        b: &Self,
        lift: &crate::raw::CenteredLift,
        factor: u64,
        data: &mut CudaSlice<u64>,
        out: u64,
    ) -> Result<()> {
        let table = lift
            .scale()
            .table()
            .ok_or_else(|| GpuError::Unsupported { what: "a centered lift without an NTT scale table".to_string() })?;
        ntt::ntt_inverse_of_mul_add_lifted(
            &self.context,
            plan,
            data,
            (&a.data, &b.data, &self.data),
            table,
            &lift.operands(factor, out)?,
        )
    }

    /// The tensor product of the pairs `(c_0, c_1) = (self, c1)` and `(d_0, d_1)`:
    /// `[c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1]`, word for word the products and multiply-add of
    /// [`DevicePoly::mul`] and [`DevicePoly::mul_add_assign`]. NTT contexts run one kernel
    /// reading each input once; DGT and HDGT contexts run those steps. Errors as `mul` (every
    /// operand checked before anything is queued); the inputs are never changed.
    pub fn tensor(&self, c1: &Self, d0: &Self, d1: &Self) -> Result<[Self; 3]> {
        for other in [c1, d0, d1] {
            self.context.check_compatible(&other.context)?;
        }
        if self.context.ring().transform() != TransformKind::Ntt {
            let mut middle = self.mul(d1)?;
            middle.mul_add_assign(c1, d0)?;
            return Ok([self.mul(d0)?, middle, c1.mul(d1)?]);
        }
        let len = self.data.len();
        // SAFETY: ew_tensor writes every value of the three outputs.
        let (mut e0, mut e1, mut e2) = unsafe {
            let device = self.context.device();
            (device.alloc::<u64>(len)?, device.alloc::<u64>(len)?, device.alloc::<u64>(len)?)
        };
        elementwise::tensor(&self.context, [&mut e0, &mut e1, &mut e2], [&self.data, &c1.data], [&d0.data, &d1.data])?;
        let wrap = |data| DevicePoly { context: self.context.clone(), data, representation: PhantomData };
        Ok([wrap(e0), wrap(e1), wrap(e2)])
    }

    fn product_op(&self, accumulate: bool) -> BinaryOp {
        match (self.context.ring().transform(), accumulate) {
            // Bluestein evaluations are single points, as the NTT's.
            (TransformKind::Ntt | TransformKind::Bluestein, false) => BinaryOp::Mul,
            (TransformKind::Ntt | TransformKind::Bluestein, true) => BinaryOp::MulAdd,
            (TransformKind::Dgt | TransformKind::HierarchicalDgt, false) => BinaryOp::GaussMul,
            (TransformKind::Dgt | TransformKind::HierarchicalDgt, true) => BinaryOp::GaussMulAdd,
        }
    }

    /// `self <- self * other`: coordinate-wise under the NTT, Gaussian-coordinate-wise on
    /// `(re, im)` pairs under the DGTs (Barrett products).
    pub fn mul_assign(&mut self, other: &Self) -> Result<()> {
        let op = self.product_op(false);
        self.binary_assign(op, other)
    }

    /// `self * other` (as [`DevicePoly::mul_assign`]) in fresh device memory.
    pub fn mul(&self, other: &Self) -> Result<Self> {
        let op = self.product_op(false);
        self.binary_out_of_place(op, other)
    }

    /// `self <- self + a * b` (fused multiply-accumulate).
    pub fn mul_add_assign(&mut self, a: &Self, b: &Self) -> Result<()> {
        self.context.check_compatible(&a.context)?;
        self.context.check_compatible(&b.context)?;
        let op = self.product_op(true);
        elementwise::binary(&self.context, op, &mut self.data, Some(&a.data), &b.data)
    }
}

/// `x^-1 mod m` for odd `x` and a power of two `m` (Newton iteration: each step doubles the
/// number of correct low bits, and `x` is its own inverse modulo 8).
fn inverse_mod_power_of_two(x: u64, m: u64) -> u64 {
    let mut inv = x;
    for _ in 0..6 {
        inv = inv.wrapping_mul(2u64.wrapping_sub(x.wrapping_mul(inv)));
    }
    inv & (m - 1)
}

/// `count` polynomials of one [`GpuContext`] in one device buffer `[count][L][N]`, so that a
/// transform of all of them is one launch sequence (the kernels' grid covers every limb of
/// every polynomial).
#[derive(Debug)]
pub struct DevicePolyBatch<R: Representation> {
    context: GpuContext,
    count: usize,
    data: CudaSlice<u64>,
    representation: PhantomData<R>,
}

impl<R: Representation> DevicePolyBatch<R> {
    /// Copies `polys` (all of rings compatible with `context`, at least one) to the device.
    pub fn upload(context: &GpuContext, polys: &[Poly<R>]) -> Result<Self> {
        if polys.is_empty() {
            return Err(
                PolyError::InvalidParameter { name: "batch size", value: 0, reason: "must be at least 1" }.into()
            );
        }
        let mut values = Vec::with_capacity(polys.len() * context.poly_len());
        for host in polys {
            if !context.ring().is_compatible(host.context()) {
                return Err(PolyError::ContextMismatch.into());
            }
            values.extend_from_slice(&context.to_device_layout(host.as_slice()));
        }
        let data = context.device().upload(&values)?;
        Ok(Self { context: context.clone(), count: polys.len(), data, representation: PhantomData })
    }

    /// Wraps a device buffer of `count * L * N` canonical values (`count >= 1` polynomials,
    /// one after the other) written by kernels on the context's stream, as
    /// [`DevicePoly::from_device_buffer`]. Errors with [`PolyError::InvalidParameter`] for
    /// `count == 0` and [`GpuError::LengthMismatch`] for a wrong length.
    pub fn from_device_buffer(context: &GpuContext, count: usize, data: CudaSlice<u64>) -> Result<Self> {
        if count == 0 {
            return Err(
                PolyError::InvalidParameter { name: "batch size", value: 0, reason: "must be at least 1" }.into()
            );
        }
        let expected = count * context.poly_len();
        if data.len() != expected {
            return Err(GpuError::LengthMismatch { expected, actual: data.len() });
        }
        Ok(Self { context: context.clone(), count, data, representation: PhantomData })
    }

    /// The device buffer (`count * L * N` values, polynomial after polynomial).
    pub fn device_buffer(&self) -> &CudaSlice<u64> {
        &self.data
    }

    /// The polynomials, copied back once all queued work has finished.
    pub fn download(&self) -> Result<Vec<Poly<R>>> {
        let values = self.context.host_layout(self.context.device().download_words(&self.data)?);
        let len = self.context.ring().poly_len();
        values.chunks_exact(len).map(|chunk| Ok(Poly::from_slice(self.context.ring(), chunk)?)).collect()
    }

    /// The number of polynomials.
    pub fn len(&self) -> usize {
        self.count
    }

    /// Always false: a batch holds at least one polynomial.
    pub fn is_empty(&self) -> bool {
        self.count == 0
    }

    /// The GPU context.
    pub fn context(&self) -> &GpuContext {
        &self.context
    }

    fn retag<S: Representation>(self) -> DevicePolyBatch<S> {
        DevicePolyBatch { context: self.context, count: self.count, data: self.data, representation: PhantomData }
    }
}

impl<R: Representation> DevicePolyBatch<R> {
    /// Multiplies limb `i` of every polynomial by `scalars[i]` (one scalar per limb of the
    /// context, each below its prime), as [`DevicePoly::scalar_mul_per_limb_assign`]; one
    /// launch for the whole batch.
    pub fn scalar_mul_per_limb_assign(&mut self, scalars: &[u64]) -> Result<()> {
        let moduli = self.context.ring().moduli();
        if scalars.len() != moduli.len() {
            return Err(PolyError::LengthMismatch { expected: moduli.len(), actual: scalars.len() }.into());
        }
        let mut table = Vec::with_capacity(2 * scalars.len());
        for (limb, (&c, m)) in scalars.iter().zip(moduli).enumerate() {
            if c >= m.value() {
                return Err(PolyError::CoefficientOutOfRange { limb, index: 0, value: c, modulus: m.value() }.into());
            }
            table.extend_from_slice(&[c, m.shoup(c)]);
        }
        let table = self.context.device().upload(&table)?;
        // The kernel finds each value's limb modulo the context's limb count: the batch's
        // polynomials follow one another.
        elementwise::scalar_mul_assign(&self.context, &mut self.data, &table)
    }
}

impl DevicePolyBatch<Coeff> {
    /// The forward transform of every polynomial (see [`DevicePoly::forward`]).
    pub fn forward(mut self) -> Result<DevicePolyBatch<Eval>> {
        self.context.forward_transform(&mut self.data, self.count)?;
        Ok(self.retag())
    }

    /// Whether the fused transform-and-inner-product methods
    /// ([`forward_inner_product`](Self::forward_inner_product),
    /// [`DevicePolyBatch::forward_extending_limbs_inner_product`]) run for `polys` polynomials of
    /// `context`: an NTT ring transformed in two passes whose last pass exists fused, with at
    /// least 256 blocks of 1024 coefficients over its limbs (fewer leave the GPU idle).
    pub fn forward_inner_product_supported(context: &GpuContext, polys: usize) -> bool {
        context.ring().transform() == TransformKind::Ntt && ntt::forward_inner_product_supported(context, polys)
    }

    /// The forward transform of every polynomial with key switching's inner product in its last
    /// pass (see [`DevicePolyBatch::forward_extending_limbs_inner_product`]); the batch is
    /// scratch memory for it. Errors with [`GpuError::Unsupported`] where
    /// [`forward_inner_product_supported`](Self::forward_inner_product_supported) is false.
    ///
    /// # Safety
    /// As `forward_extending_limbs_inner_product`, with one key pair per polynomial of the batch.
    pub unsafe fn forward_inner_product(mut self, keys: crate::raw::InnerProductKeys<'_>) -> Result<()> {
        let (context, polys) = (self.context.clone(), self.count);
        // SAFETY: the batch holds `polys` polynomials; the caller vouches for the keys and output.
        unsafe { ntt::ntt_forward_inner_product(&context, &mut self.data, ntt::ForwardInput::InPlace, polys, keys) }
    }

    /// Whether [`forward_mod_down`](Self::forward_mod_down) runs a batch of `polys`
    /// polynomials of `context`: two polynomials of an NTT ring whose transform runs in two
    /// passes (the fused pass is the contiguous one).
    pub fn forward_mod_down_supported(context: &GpuContext, polys: usize) -> bool {
        context.ring().transform() == TransformKind::Ntt && ntt::forward_mod_down_supported(context, polys)
    }

    /// The forward transform of both polynomials `r_0, r_1` of the batch with ModDown's last
    /// step in its last pass ([`crate::raw::ModDownTarget`]): `out_k = addend_k + (s_k - E F(r_k))
    /// P^-1`, written to the target's outputs instead of the transform (the batch is scratch
    /// memory for it): word for word the forward transform then the element-wise steps. Errors
    /// with [`GpuError::Unsupported`] where
    /// [`forward_mod_down_supported`](Self::forward_mod_down_supported) is false (nothing
    /// queued).
    ///
    /// # Safety
    /// The target's addresses are device memory of this batch's device, live until the queued
    /// work has run (see `ModDownTarget` for their shapes: the sums, addends and outputs are
    /// polynomials over at least this context's primes, `p_inv` and `p_inv_shoup` one word
    /// per limb); the outputs overlap no other buffer.
    pub unsafe fn forward_mod_down(mut self, target: &crate::raw::ModDownTarget) -> Result<()> {
        if !Self::forward_mod_down_supported(&self.context, self.count) {
            return Err(GpuError::Unsupported { what: "ModDown's epilogue on this transform".to_string() });
        }
        let context = self.context.clone();
        // SAFETY: two polynomials in the batch (checked); the caller vouches for the target.
        unsafe { ntt::ntt_forward_mod_down(&context, &mut self.data, target) }
    }
}

/// The checks of the extending transforms: `source`'s primes a prefix of `context`'s at the same
/// degree on the same device, `1 <= count` digits among its limbs from `first_limb`.
fn check_extension_source(
    context: &GpuContext,
    source: &DevicePoly<Coeff>,
    first_limb: usize,
    count: usize,
) -> Result<()> {
    let (ring, from) = (context.ring(), source.context.ring());
    let prefix = from.num_limbs() <= ring.num_limbs()
        && from.degree() == ring.degree()
        && from.moduli().iter().zip(ring.moduli()).all(|(a, b)| a.value() == b.value());
    if !prefix || !Arc::ptr_eq(context.device(), source.context.device()) {
        return Err(PolyError::ContextMismatch.into());
    }
    if count == 0 || first_limb + count > from.num_limbs() {
        return Err(PolyError::InvalidParameter {
            name: "one-prime digits",
            value: (first_limb + count) as u64,
            reason: "need 1 or more digits among the source's limbs",
        }
        .into());
    }
    Ok(())
}

impl DevicePolyBatch<Eval> {
    /// The forward transforms of the ModUp of `count` one-prime digits, in one launch sequence
    /// whose first pass loads the extension (no separate ModUp kernel, no extended polynomials
    /// in coefficient form): polynomial `t` of the batch (over `context`) is the forward
    /// transform of limb `s = first_limb + t` of `source` extended to every limb of `context`:
    /// limb `s` itself, every other limb `i` the residue modulo `p_i` of that limb's value `x`
    /// (`centered`: of `x - p_s` when `x > p_s / 2`). `source` is over a ring whose primes are
    /// `context`'s first ones (key switching's `q` inside `q u P`).
    ///
    /// Errors: [`PolyError::ContextMismatch`] unless `source`'s primes are a prefix of
    /// `context`'s at the same degree on the same device, [`PolyError::InvalidParameter`] for
    /// `count == 0` or limbs past `source`'s, [`GpuError::Unsupported`] for a DGT ring.
    pub fn forward_extending_limbs(
        context: &GpuContext,
        source: &DevicePoly<Coeff>,
        first_limb: usize,
        count: usize,
        centered: bool,
    ) -> Result<Self> {
        check_extension_source(context, source, first_limb, count)?;
        let ring = context.ring();
        if ring.transform() != TransformKind::Ntt {
            return Err(GpuError::Unsupported { what: "an extending forward transform over a DGT ring".to_string() });
        }
        // SAFETY: the transform's first pass writes every value of the `count` polynomials.
        let mut data = unsafe { context.device().alloc::<u64>(count * context.poly_len()) }?;
        ntt::ntt_forward_extending(context, &mut data, &source.data, first_limb, centered, count)?;
        DevicePolyBatch::from_device_buffer(context, count, data)
    }

    /// [`forward_extending_limbs`](Self::forward_extending_limbs) with key switching's inner
    /// product in the transform's last pass: the transformed digits are never stored; each is
    /// multiplied by its key digit and summed into `keys.output` (see
    /// [`InnerProductKeys`](crate::raw::InnerProductKeys)). The same words as the transform followed
    /// by the inner product. Errors as `forward_extending_limbs`, and with
    /// [`GpuError::Unsupported`] where [`DevicePolyBatch::forward_inner_product_supported`] is
    /// false (nothing is queued then).
    ///
    /// # Safety
    /// `keys.keys` holds `count` pairs of addresses of polynomials over `context` and
    /// `keys.output` two, all on `context`'s device, 16-byte aligned, live until the queued
    /// work has run, the output overlapping neither the keys nor `source`.
    pub unsafe fn forward_extending_limbs_inner_product(
        context: &GpuContext,
        source: &DevicePoly<Coeff>,
        first_limb: usize,
        count: usize,
        centered: bool,
        keys: crate::raw::InnerProductKeys<'_>,
    ) -> Result<()> {
        check_extension_source(context, source, first_limb, count)?;
        // Checked before the allocation: nothing is allocated or queued where it cannot run.
        if !ntt::forward_inner_product_supported(context, count) {
            return Err(GpuError::Unsupported {
                what: "a forward transform fused with the inner product here".to_string(),
            });
        }
        // SAFETY: the transform's first pass writes every value of the `count` polynomials.
        let mut data = unsafe { context.device().alloc::<u64>(count * context.poly_len()) }?;
        let input = ntt::ForwardInput::Extending { source: &source.data, first_source: first_limb, centered };
        // SAFETY: `data` holds `count` polynomials; the caller vouches for the keys and output.
        unsafe { ntt::ntt_forward_inner_product(context, &mut data, input, count, keys) }
    }

    /// `a(x) -> a(x^g)` of every polynomial, on the evaluations, into fresh device memory (the
    /// batch stays as it is): the values of [`DevicePoly::automorphism_ntt`] (NTT contexts: one
    /// permutation kernel over the whole batch) and [`DevicePoly::automorphism_bluestein`]
    /// (rings `Z_q[x]/Phi_m`: one permutation of every row); DGT and HDGT contexts take the
    /// inverse transform, the coefficient automorphism and the forward transform, as
    /// `Backend::automorphism_eval` does. Errors with [`PolyError::InvalidAutomorphism`] for an
    /// even `g` (a `g` that is no unit modulo `m` over `Phi_m`).
    pub fn automorphism(&self, g: u64) -> Result<Self> {
        let n = self.context.degree();
        if let Some(bluestein) = self.context.bluestein() {
            let ring = self.context.ring();
            ring.ring_kind().check_automorphism(g)?;
            let sources = || ring.bluestein_automorphism_sources(g);
            let data = bluestein.permute_rows_for(&self.data, g, sources, n, self.count)?;
            return Ok(Self { context: self.context.clone(), count: self.count, data, representation: PhantomData });
        }
        if g.is_multiple_of(2) || n < 2 {
            return Err(PolyError::InvalidAutomorphism { exponent: g, degree: n }.into());
        }
        // SAFETY: the automorphism kernels write every value of `out`.
        let mut out = unsafe { self.context.device().alloc::<u64>(self.data.len()) }?;
        if self.context.ring().transform() == TransformKind::Ntt {
            elementwise::automorphism_eval(&self.context, &mut out, &self.data, g)?;
        } else {
            let mut coefficients = self.context.device().duplicate(&self.data)?;
            self.context.inverse_transform(&mut coefficients, self.count)?;
            let two_n = 2 * n as u64;
            let g_inv = inverse_mod_power_of_two(g % two_n, two_n);
            elementwise::automorphism(&self.context, &mut out, &coefficients, g_inv)?;
            self.context.forward_transform(&mut out, self.count)?;
        }
        Ok(Self { context: self.context.clone(), count: self.count, data: out, representation: PhantomData })
    }

    /// The inverse transform of every polynomial (see [`DevicePoly::inverse`]).
    pub fn inverse(mut self) -> Result<DevicePolyBatch<Coeff>> {
        self.context.inverse_transform(&mut self.data, self.count)?;
        Ok(self.retag())
    }

    /// The tensor product of the batch's pairs, as [`DevicePoly::tensor`], into a batch of
    /// three: `[c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1]` for a batch `[c_0, c_1, d_0, d_1]`, and
    /// the square of `c` for a batch `[c_0, c_1]`, in one kernel. Errors with
    /// [`PolyError::InvalidParameter`] for a batch of another size and
    /// [`GpuError::Unsupported`] for a DGT ring (take [`DevicePoly::tensor`] there).
    pub fn tensor(&self) -> Result<DevicePolyBatch<Eval>> {
        let (c, d) = match self.count {
            4 => ([0, 1], [2, 3]),
            2 => ([0, 1], [0, 1]),
            count => {
                return Err(PolyError::InvalidParameter {
                    name: "tensor batch size",
                    value: count as u64,
                    reason: "must be 4 (two pairs) or 2 (a square)",
                }
                .into());
            }
        };
        if self.context.ring().transform() != TransformKind::Ntt {
            return Err(GpuError::Unsupported { what: "a batch tensor product over a DGT ring".to_string() });
        }
        let len = self.context.poly_len();
        let device = self.context.device();
        // SAFETY: ew_tensor writes every value of its three outputs.
        let mut out = unsafe { device.alloc::<u64>(3 * len) }?;
        let stream = device.stream();
        let input = crate::kernel::address(&self.data, stream);
        let output = crate::kernel::address_mut(&mut out, stream);
        let at = |base: u64, i: usize| base + 8 * (i * len) as u64;
        // SAFETY: the three outputs are the thirds of the fresh `out`; the inputs are
        // polynomials of this batch (one context, `len` words each), on this device's stream.
        unsafe {
            elementwise::tensor_raw(
                &self.context,
                [at(output, 0), at(output, 1), at(output, 2)],
                [at(input, c[0]), at(input, c[1])],
                [at(input, d[0]), at(input, d[1])],
                len,
            )
        }?;
        DevicePolyBatch::from_device_buffer(&self.context, 3, out)
    }
}

#[cfg(test)]
mod tests {
    use super::inverse_mod_power_of_two;

    #[test]
    fn inverse_mod_power_of_two_is_an_inverse() {
        for log_m in 1..=20u32 {
            let m = 1u64 << log_m;
            for x in (1..m.min(5000)).step_by(2) {
                assert_eq!((x * inverse_mod_power_of_two(x, m)) % m, 1, "x = {x}, m = {m}");
            }
        }
    }
}
