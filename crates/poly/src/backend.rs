//! The [`Backend`] trait: the primitive ring operations that scheme code (BFV, BGV) is
//! written against once, and [`CpuBackend`], its reference implementation on the host.
//!
//! A backend owns polynomial storage (host vectors for the CPU, device buffers for the GPU in
//! `poly-cuda`) and the operations on it. Scheme code never touches the values directly: it
//! moves data in and out with [`Backend::upload`] / [`Backend::download`], which use the host
//! [`Poly`] type with its layout (limb-major, canonical values; evaluation order fixed by the
//! context's [`TransformKind`](crate::TransformKind)). Every implementation must produce, for
//! the same inputs, exactly the values `CpuBackend` produces: that is what the bit-exact
//! CPU-vs-GPU tests check.
//!
//! # Contract common to all methods
//!
//! - Operands of one call must belong to compatible contexts
//!   ([`RingContext::is_compatible`]); otherwise the method returns
//!   [`PolyError::ContextMismatch`] (converted into [`Backend::Error`]) and changes nothing.
//! - A method that returns an error leaves its borrowed arguments unchanged. Methods that
//!   consume a polynomial ([`Backend::forward`], [`Backend::inverse`]) can fail only for
//!   reasons outside the caller's data (a device fault); the input is then lost.
//! - Results are canonical; out-of-place methods return fresh storage in the same context.
//! - A backend may run operations asynchronously (GPU streams); [`Backend::download`] and
//!   [`Backend::synchronize`] wait for all preceding work.

use std::sync::Arc;

use crate::context::RingContext;
use crate::poly::Poly;
use crate::representation::{Coeff, Eval, Representation};
use crate::sampling::Seed;
use crate::{PolyError, Result};

/// Primitive operations on polynomials of a [`RingContext`], on some device.
///
/// Out-of-place operations have default implementations through [`Backend::duplicate`] and
/// the in-place ones; a backend overrides them where a fused kernel is faster.
pub trait Backend {
    /// The backend's error type; every [`PolyError`] converts into it.
    type Error: From<PolyError> + std::error::Error + Send + Sync + 'static;

    /// A ring context prepared for this backend (for a GPU: the device copies of the
    /// transform tables). Cheap to clone.
    type Context: Clone + core::fmt::Debug;

    /// A polynomial in representation `R` stored by this backend. It knows its context.
    /// (`Clone` copies into new storage; a device backend's clone can fail only as an
    /// allocation does, and [`Backend::duplicate`] returns that error instead.)
    type Poly<R: Representation>: core::fmt::Debug + Clone;

    /// A short human-readable name, e.g. `"CPU"`.
    fn name(&self) -> &'static str;

    /// Prepares `ring` for this backend.
    fn context(&self, ring: &Arc<RingContext>) -> core::result::Result<Self::Context, Self::Error>;

    /// The host ring context behind `context`.
    fn ring<'a>(&self, context: &'a Self::Context) -> &'a Arc<RingContext>;

    /// Waits until all work submitted so far has finished (a no-op on synchronous backends).
    fn synchronize(&self) -> core::result::Result<(), Self::Error> {
        Ok(())
    }

    /// The zero polynomial of `context` in representation `R`.
    fn zero<R: Representation>(&self, context: &Self::Context) -> core::result::Result<Self::Poly<R>, Self::Error>;

    /// Copies the host polynomial `host` into this backend's storage. Errors with
    /// [`PolyError::ContextMismatch`] unless `host`'s context is compatible with `context`.
    fn upload<R: Representation>(
        &self,
        context: &Self::Context,
        host: &Poly<R>,
    ) -> core::result::Result<Self::Poly<R>, Self::Error>;

    /// Copies `poly` back to the host, after all work on it has finished. The result has the
    /// layout of [`Poly`] (limb-major, canonical) and equals what [`CpuBackend`] computes.
    fn download<R: Representation>(&self, poly: &Self::Poly<R>) -> core::result::Result<Poly<R>, Self::Error>;

    /// A copy of `poly` in fresh storage.
    fn duplicate<R: Representation>(&self, poly: &Self::Poly<R>) -> core::result::Result<Self::Poly<R>, Self::Error>;

    /// `a <- a + b`, value by value (valid in both representations).
    fn add_assign<R: Representation>(
        &self,
        a: &mut Self::Poly<R>,
        b: &Self::Poly<R>,
    ) -> core::result::Result<(), Self::Error>;

    /// `a <- a - b`, value by value.
    fn sub_assign<R: Representation>(
        &self,
        a: &mut Self::Poly<R>,
        b: &Self::Poly<R>,
    ) -> core::result::Result<(), Self::Error>;

    /// `a <- -a`.
    fn neg_assign<R: Representation>(&self, a: &mut Self::Poly<R>) -> core::result::Result<(), Self::Error>;

    /// `a <- scalar * a`, with `scalar` reduced modulo each prime.
    fn scalar_mul_assign<R: Representation>(
        &self,
        a: &mut Self::Poly<R>,
        scalar: u64,
    ) -> core::result::Result<(), Self::Error>;

    /// `a <- c * a` for the RNS constant `c` with residue `scalars[i]` modulo `q_i`. Errors with
    /// [`PolyError::LengthMismatch`] unless there is one scalar per limb, and with
    /// [`PolyError::CoefficientOutOfRange`] if `scalars[i] >= q_i`.
    fn scalar_mul_per_limb_assign<R: Representation>(
        &self,
        a: &mut Self::Poly<R>,
        scalars: &[u64],
    ) -> core::result::Result<(), Self::Error>;

    /// `a <- a * b`, the ring product in the evaluation representation (coordinate-wise under
    /// the NTT, Gaussian-coordinate-wise on `(re, im)` pairs under the DGTs).
    fn mul_assign(&self, a: &mut Self::Poly<Eval>, b: &Self::Poly<Eval>) -> core::result::Result<(), Self::Error>;

    /// `acc <- acc + a * b` in the evaluation representation.
    fn mul_add_assign(
        &self,
        acc: &mut Self::Poly<Eval>,
        a: &Self::Poly<Eval>,
        b: &Self::Poly<Eval>,
    ) -> core::result::Result<(), Self::Error> {
        let mut product = self.duplicate(a)?;
        self.mul_assign(&mut product, b)?;
        self.add_assign(acc, &product)
    }

    /// The forward transform of the context, limb by limb (in place where the backend can).
    fn forward(&self, a: Self::Poly<Coeff>) -> core::result::Result<Self::Poly<Eval>, Self::Error>;

    /// The inverse transform of the context, limb by limb.
    fn inverse(&self, a: Self::Poly<Eval>) -> core::result::Result<Self::Poly<Coeff>, Self::Error>;

    /// `a(x) -> a(x^g)` for odd `g` (see [`Poly::automorphism`] for the index map; in a ring
    /// `Z_q[x]/Phi_m`, `g` a unit modulo `m` and the result reduced modulo `Phi_m`). Errors with
    /// [`PolyError::InvalidAutomorphism`] for even `g` ([`PolyError::InvalidGaloisElement`] for
    /// a `g` that is no unit modulo `m`).
    fn automorphism(&self, a: &Self::Poly<Coeff>, g: u64) -> core::result::Result<Self::Poly<Coeff>, Self::Error>;

    /// The automorphism of [`automorphism`](Self::automorphism) on evaluations: the
    /// evaluations of `a(x^g)`. The provided method transforms a copy, maps the coefficients
    /// and transforms back; NTT and Bluestein contexts only permute the evaluations
    /// ([`Poly::automorphism_ntt`], [`Poly::automorphism_bluestein`]), which the CPU and GPU
    /// backends do.
    fn automorphism_eval(&self, a: &Self::Poly<Eval>, g: u64) -> core::result::Result<Self::Poly<Eval>, Self::Error> {
        let coefficients = self.inverse(self.duplicate(a)?)?;
        self.forward(self.automorphism(&coefficients, g)?)
    }

    /// A polynomial uniform modulo each prime, a pure function of `(seed, poly_index)` as
    /// [`crate::sampling::sample_uniform`] defines it; the values are taken as representation `R`.
    fn sample_uniform<R: Representation>(
        &self,
        context: &Self::Context,
        seed: &Seed,
        poly_index: u64,
    ) -> core::result::Result<Self::Poly<R>, Self::Error>;

    /// A ternary polynomial as [`crate::sampling::sample_ternary`] defines it.
    fn sample_ternary(
        &self,
        context: &Self::Context,
        seed: &Seed,
        poly_index: u64,
    ) -> core::result::Result<Self::Poly<Coeff>, Self::Error>;

    /// A centered-binomial (eta = 21) polynomial as [`crate::sampling::sample_cbd`] defines it.
    fn sample_cbd(
        &self,
        context: &Self::Context,
        seed: &Seed,
        poly_index: u64,
    ) -> core::result::Result<Self::Poly<Coeff>, Self::Error>;

    /// `a + b`.
    fn add<R: Representation>(
        &self,
        a: &Self::Poly<R>,
        b: &Self::Poly<R>,
    ) -> core::result::Result<Self::Poly<R>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.add_assign(&mut out, b)?;
        Ok(out)
    }

    /// `a - b`.
    fn sub<R: Representation>(
        &self,
        a: &Self::Poly<R>,
        b: &Self::Poly<R>,
    ) -> core::result::Result<Self::Poly<R>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.sub_assign(&mut out, b)?;
        Ok(out)
    }

    /// `a[k] <- a[k] + b[k]` for every `k` (`b` at least as long as `a`; extra entries of `b`
    /// are ignored): a ciphertext's polynomials at once. The provided method adds them one by
    /// one; a device backend adds several in one launch. On an error the entries before the
    /// failing one may have been added.
    fn add_assign_many<R: Representation>(
        &self,
        a: &mut [Self::Poly<R>],
        b: &[Self::Poly<R>],
    ) -> core::result::Result<(), Self::Error> {
        for (x, y) in a.iter_mut().zip(b) {
            self.add_assign(x, y)?;
        }
        Ok(())
    }

    /// `a[k] + b[k]` (or `a[k] - b[k]` when `subtract`) for every `k < min(a.len(), b.len())`,
    /// in fresh polynomials. The provided method computes them one by one; a device backend
    /// computes several in one launch.
    fn add_sub_many<R: Representation>(
        &self,
        a: &[Self::Poly<R>],
        b: &[Self::Poly<R>],
        subtract: bool,
    ) -> core::result::Result<Vec<Self::Poly<R>>, Self::Error> {
        a.iter().zip(b).map(|(x, y)| if subtract { self.sub(x, y) } else { self.add(x, y) }).collect()
    }

    /// `-a`.
    fn neg<R: Representation>(&self, a: &Self::Poly<R>) -> core::result::Result<Self::Poly<R>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.neg_assign(&mut out)?;
        Ok(out)
    }

    /// `scalar * a`.
    fn scalar_mul<R: Representation>(
        &self,
        a: &Self::Poly<R>,
        scalar: u64,
    ) -> core::result::Result<Self::Poly<R>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.scalar_mul_assign(&mut out, scalar)?;
        Ok(out)
    }

    /// `c * a` for the RNS constant `c` given by its residues (see
    /// [`Backend::scalar_mul_per_limb_assign`]).
    fn scalar_mul_per_limb<R: Representation>(
        &self,
        a: &Self::Poly<R>,
        scalars: &[u64],
    ) -> core::result::Result<Self::Poly<R>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.scalar_mul_per_limb_assign(&mut out, scalars)?;
        Ok(out)
    }

    /// `a * b` in the evaluation representation.
    fn mul(&self, a: &Self::Poly<Eval>, b: &Self::Poly<Eval>) -> core::result::Result<Self::Poly<Eval>, Self::Error> {
        let mut out = self.duplicate(a)?;
        self.mul_assign(&mut out, b)?;
        Ok(out)
    }
}

/// The reference backend: host memory, single thread, the [`Poly`] type itself as storage.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CpuBackend;

impl Backend for CpuBackend {
    type Error = PolyError;
    type Context = Arc<RingContext>;
    type Poly<R: Representation> = Poly<R>;

    fn name(&self) -> &'static str {
        "CPU"
    }

    fn context(&self, ring: &Arc<RingContext>) -> Result<Self::Context> {
        Ok(Arc::clone(ring))
    }

    fn ring<'a>(&self, context: &'a Self::Context) -> &'a Arc<RingContext> {
        context
    }

    fn zero<R: Representation>(&self, context: &Self::Context) -> Result<Poly<R>> {
        Ok(Poly::zero(context))
    }

    fn upload<R: Representation>(&self, context: &Self::Context, host: &Poly<R>) -> Result<Poly<R>> {
        if !context.is_compatible(host.context()) {
            return Err(PolyError::ContextMismatch);
        }
        Ok(host.clone())
    }

    fn download<R: Representation>(&self, poly: &Poly<R>) -> Result<Poly<R>> {
        Ok(poly.clone())
    }

    fn duplicate<R: Representation>(&self, poly: &Poly<R>) -> Result<Poly<R>> {
        Ok(poly.clone())
    }

    fn add_assign<R: Representation>(&self, a: &mut Poly<R>, b: &Poly<R>) -> Result<()> {
        a.add_assign(b)
    }

    fn sub_assign<R: Representation>(&self, a: &mut Poly<R>, b: &Poly<R>) -> Result<()> {
        a.sub_assign(b)
    }

    fn neg_assign<R: Representation>(&self, a: &mut Poly<R>) -> Result<()> {
        a.neg_assign();
        Ok(())
    }

    fn scalar_mul_assign<R: Representation>(&self, a: &mut Poly<R>, scalar: u64) -> Result<()> {
        a.scalar_mul_assign(scalar);
        Ok(())
    }

    fn scalar_mul_per_limb_assign<R: Representation>(&self, a: &mut Poly<R>, scalars: &[u64]) -> Result<()> {
        a.scalar_mul_per_limb_assign(scalars)
    }

    fn mul_assign(&self, a: &mut Poly<Eval>, b: &Poly<Eval>) -> Result<()> {
        a.mul_assign(b)
    }

    fn mul_add_assign(&self, acc: &mut Poly<Eval>, a: &Poly<Eval>, b: &Poly<Eval>) -> Result<()> {
        acc.mul_add_assign(a, b)
    }

    fn forward(&self, a: Poly<Coeff>) -> Result<Poly<Eval>> {
        a.forward()
    }

    fn inverse(&self, a: Poly<Eval>) -> Result<Poly<Coeff>> {
        a.inverse()
    }

    fn automorphism(&self, a: &Poly<Coeff>, g: u64) -> Result<Poly<Coeff>> {
        a.automorphism(g)
    }

    fn automorphism_eval(&self, a: &Poly<Eval>, g: u64) -> Result<Poly<Eval>> {
        match a.context().transform() {
            crate::TransformKind::Ntt => a.automorphism_ntt(g),
            crate::TransformKind::Bluestein => a.automorphism_bluestein(g),
            crate::TransformKind::Dgt | crate::TransformKind::HierarchicalDgt => {
                a.clone().inverse()?.automorphism(g)?.forward()
            }
        }
    }

    fn sample_uniform<R: Representation>(
        &self,
        context: &Self::Context,
        seed: &Seed,
        poly_index: u64,
    ) -> Result<Poly<R>> {
        Poly::sample_uniform(context, seed, poly_index)
    }

    fn sample_ternary(&self, context: &Self::Context, seed: &Seed, poly_index: u64) -> Result<Poly<Coeff>> {
        Poly::sample_ternary(context, seed, poly_index)
    }

    fn sample_cbd(&self, context: &Self::Context, seed: &Seed, poly_index: u64) -> Result<Poly<Coeff>> {
        Poly::sample_cbd(context, seed, poly_index)
    }

    fn add<R: Representation>(&self, a: &Poly<R>, b: &Poly<R>) -> Result<Poly<R>> {
        a.add(b)
    }

    fn sub<R: Representation>(&self, a: &Poly<R>, b: &Poly<R>) -> Result<Poly<R>> {
        a.sub(b)
    }

    fn mul(&self, a: &Poly<Eval>, b: &Poly<Eval>) -> Result<Poly<Eval>> {
        a.mul(b)
    }
}
