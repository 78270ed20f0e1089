//! [`BfvBackend`]: what the BFV scheme needs from a backend beyond [`poly::Backend`]: the RNS
//! steps of multiplication, key switching and decryption (from the `rns` crate), and the
//! zeroization of secret polynomials.
//!
//! Every RNS step maps a coefficient-representation polynomial over one basis to one over
//! another, coefficient by coefficient ([`RnsStep`]); a backend runs it where its data lives.
//! The provided methods do it on the host (download, the `rns` crate's CPU code, upload):
//! exact, and bit-identical on every backend, so a new backend is correct before it has the
//! kernels and must stay bit-identical after. [`poly::CpuBackend`] works on its polynomials
//! in place of the copies; `poly_cuda::GpuBackend` (feature `cuda`) runs the `rns` crate's
//! GPU kernels, so BFV data stays on the device.

use poly::{Backend, Coeff, CpuBackend, Poly, Representation};
use rns::{BehzContext, HpsContext, KeySwitchContext};
use zeroize::Zeroize;

use crate::params::MulTables;
use crate::{BfvError, Result};

/// One RNS step between bases, coefficient-wise, with the tables it uses. Input and output
/// bases (limb order as in `rns`: `q` first, then the other base):
///
/// | step | input | output |
/// |---|---|---|
/// | `HpsExtend` | `q` | `q u P_mul` (`q` limbs copied, `P_mul` by exact extension of the centered value) |
/// | `HpsScaleDown` | `q u P_mul` | `q`: `round(t x / q)` in `P_mul`, then exactly to `q` |
/// | `BehzExtend` | `q` | `q u B_sk` (`q` limbs copied, `B_sk` by fast conversion with the `m~` correction) |
/// | `BehzScaleDown` | `q u B_sk` | `q`: the fast floor `floor(t x / q) - u` in `B_sk`, then Shenoy-Kumaresan to `q` |
/// | `ModUp` | `q` | `q u P` (digit `digit`, extended exactly to the other primes) |
/// | `ModDown` | `q u P` | `q`: `round(x / P)` |
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub enum RnsStep<'a> {
    /// HPS: `q -> q u P_mul`.
    HpsExtend(&'a HpsContext),
    /// HPS: `q u P_mul -> q`, scaling by `t / q` with rounding.
    HpsScaleDown(&'a HpsContext),
    /// BEHZ: `q -> q u B_sk`.
    BehzExtend(&'a BehzContext),
    /// BEHZ: `q u B_sk -> q`, scaling by `t / q` with the fast floor.
    BehzScaleDown(&'a BehzContext),
    /// Key switching: digit `digit` of a polynomial over `q`, extended to `q u P`.
    ModUp {
        /// The key-switching tables.
        tables: &'a KeySwitchContext,
        /// The digit.
        digit: usize,
    },
    /// Key switching: `round(x / P)` from `q u P` to `q`.
    ModDown(&'a KeySwitchContext),
}

/// The extension step of the multiplication for these tables.
pub(crate) fn extend_step(tables: &MulTables) -> RnsStep<'_> {
    match tables {
        MulTables::Hps(hps) => RnsStep::HpsExtend(hps),
        MulTables::Behz(behz) => RnsStep::BehzExtend(behz),
    }
}

/// The scale-down step of the multiplication for these tables.
pub(crate) fn scale_down_step(tables: &MulTables) -> RnsStep<'_> {
    match tables {
        MulTables::Hps(hps) => RnsStep::HpsScaleDown(hps),
        MulTables::Behz(behz) => RnsStep::BehzScaleDown(behz),
    }
}

impl RnsStep<'_> {
    /// Number of limbs of the output.
    pub fn output_limbs(&self) -> usize {
        match self {
            RnsStep::HpsExtend(hps) => hps.q().len() + hps.p().len(),
            RnsStep::HpsScaleDown(hps) => hps.q().len(),
            RnsStep::BehzExtend(behz) => behz.q().len() + behz.bsk().len(),
            RnsStep::BehzScaleDown(behz) => behz.q().len(),
            RnsStep::ModUp { tables, .. } => tables.q().len() + tables.p().len(),
            RnsStep::ModDown(tables) => tables.q().len(),
        }
    }

    /// Runs the step on host slices (limb-major, `N` values per limb): `input` over the
    /// input basis, `output` over the output basis. Errors (from `rns`) on wrong lengths or
    /// non-canonical values; `output` is untouched then.
    pub fn apply(&self, degree: usize, input: &[u64], output: &mut [u64]) -> Result<()> {
        match self {
            RnsStep::HpsExtend(hps) => {
                let q_len = hps.q().len() * degree;
                if input.len() != q_len || output.len() != q_len + hps.p().len() * degree {
                    return Err(length_error("HPS extension", input.len(), output.len()));
                }
                let (q_part, p_part) = output.split_at_mut(q_len);
                hps.extend_q_to_p(input, p_part)?;
                q_part.copy_from_slice(input);
            }
            RnsStep::HpsScaleDown(hps) => {
                let mut scaled = vec![0u64; hps.p().len() * degree];
                hps.scale_round_to_p(input, &mut scaled)?;
                hps.extend_p_to_q(&scaled, output)?;
            }
            RnsStep::BehzExtend(behz) => {
                let q_len = behz.q().len() * degree;
                if input.len() != q_len || output.len() != q_len + behz.bsk().len() * degree {
                    return Err(length_error("BEHZ extension", input.len(), output.len()));
                }
                let (q_part, bsk_part) = output.split_at_mut(q_len);
                behz.extend_to_bsk(input, bsk_part)?;
                q_part.copy_from_slice(input);
            }
            RnsStep::BehzScaleDown(behz) => {
                let mut floored = vec![0u64; behz.bsk().len() * degree];
                behz.fast_floor(input, &mut floored)?;
                behz.bsk_to_q(&floored, output)?;
            }
            RnsStep::ModUp { tables, digit } => tables.mod_up(input, *digit, rns::Extension::Exact, output)?,
            RnsStep::ModDown(tables) => tables.mod_down(input, output)?,
        }
        Ok(())
    }

    /// Runs the step on a host polynomial, giving a polynomial of `target` (whose primes must
    /// be the output basis).
    pub fn apply_poly(&self, input: &Poly<Coeff>, target: &std::sync::Arc<poly::RingContext>) -> Result<Poly<Coeff>> {
        let degree = input.context().degree();
        if target.num_limbs() != self.output_limbs() || target.degree() != degree {
            return Err(BfvError::Poly(poly::PolyError::ContextMismatch));
        }
        let mut output = vec![0u64; target.poly_len()];
        self.apply(degree, input.as_slice(), &mut output)?;
        Ok(Poly::from_limbs(target, output)?)
    }
}

fn length_error(what: &'static str, input: usize, output: usize) -> BfvError {
    BfvError::Rns(rns::RnsError::LengthMismatch { what, expected: input, actual: output })
}

/// Decryption's scale-and-round on host values: `N` values `round(t x / q) mod t` (HPS) or
/// BEHZ's `gamma` variant of it, for `input` over `q`.
pub fn decrypt_scale_host(tables: &MulTables, degree: usize, input: &[u64]) -> Result<Vec<u64>> {
    let mut output = vec![0u64; degree];
    match tables {
        MulTables::Hps(hps) => hps.decrypt_scale_round(input, &mut output)?,
        MulTables::Behz(behz) => behz.decrypt_scale_round(input, &mut output)?,
    }
    Ok(output)
}

/// A [`Backend`] the BFV scheme runs on: the ring operations of [`Backend`] plus the RNS
/// steps and zeroization. The provided methods run the RNS steps on the host; a backend
/// overrides them with device code that gives the same values.
pub trait BfvBackend: Backend + Clone {
    /// Runs `step` on `input` (over the step's input basis), giving a polynomial of `target`
    /// (the output basis).
    fn rns_step(
        &self,
        step: RnsStep<'_>,
        input: &Self::Poly<Coeff>,
        target: &Self::Context,
    ) -> Result<Self::Poly<Coeff>> {
        let host = self.download(input).map_err(BfvError::from_backend)?;
        let output = step.apply_poly(&host, self.ring(target))?;
        self.upload(target, &output).map_err(BfvError::from_backend)
    }

    /// Decryption's scale-and-round: the `N` plaintext coefficients of `input` (over `q`,
    /// in BFV `[c_0 + c_1 s + ...]_q`), in `[0, t)`, on the host.
    fn decrypt_scale(&self, tables: &MulTables, input: &Self::Poly<Coeff>) -> Result<Vec<u64>> {
        let host = self.download(input).map_err(BfvError::from_backend)?;
        decrypt_scale_host(tables, host.context().degree(), host.as_slice())
    }

    /// Overwrites `poly` with zeros in a way the compiler cannot elide (secret keys call it
    /// when dropped). The provided method multiplies by zero through the backend, which on a
    /// device is a kernel write.
    fn zeroize<R: Representation>(&self, poly: &mut Self::Poly<R>) -> Result<()> {
        self.scalar_mul_assign(poly, 0).map_err(BfvError::from_backend)?;
        self.synchronize().map_err(BfvError::from_backend)
    }
}

impl BfvBackend for CpuBackend {
    fn rns_step(&self, step: RnsStep<'_>, input: &Poly<Coeff>, target: &Self::Context) -> Result<Poly<Coeff>> {
        step.apply_poly(input, target)
    }

    fn decrypt_scale(&self, tables: &MulTables, input: &Poly<Coeff>) -> Result<Vec<u64>> {
        decrypt_scale_host(tables, input.context().degree(), input.as_slice())
    }

    fn zeroize<R: Representation>(&self, poly: &mut Poly<R>) -> Result<()> {
        // Take the storage out and clear it with volatile writes (the zeroize crate).
        let context = std::sync::Arc::clone(poly.context());
        let mut words = core::mem::replace(poly, Poly::zero(&context)).into_vec();
        words.zeroize();
        Ok(())
    }
}

/// The GPU runs every RNS step with the kernels of `rns::gpu` (tables uploaded once per
/// device and kept in that crate's cache), word for word what the CPU computes; the data
/// never leaves the device except for decryption's `N` plaintext words.
#[cfg(feature = "cuda")]
impl BfvBackend for poly_cuda::GpuBackend {
    fn rns_step(
        &self,
        step: RnsStep<'_>,
        input: &poly_cuda::DevicePoly<Coeff>,
        target: &poly_cuda::GpuContext,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        use rns::gpu::{GpuBehz, GpuHps, GpuKeySwitch};
        let device = self.device();
        let output = match step {
            RnsStep::HpsExtend(hps) => GpuHps::cached(device, hps).and_then(|g| g.extend_poly(input, target)),
            RnsStep::HpsScaleDown(hps) => GpuHps::cached(device, hps).and_then(|g| g.scale_down_poly(input, target)),
            RnsStep::BehzExtend(behz) => GpuBehz::cached(device, behz).and_then(|g| g.extend_poly(input, target)),
            RnsStep::BehzScaleDown(behz) => {
                GpuBehz::cached(device, behz).and_then(|g| g.scale_down_poly(input, target))
            }
            RnsStep::ModUp { tables, digit } => GpuKeySwitch::cached(device, tables)
                .and_then(|g| g.mod_up_poly(input, digit, rns::Extension::Exact, target)),
            RnsStep::ModDown(tables) => {
                GpuKeySwitch::cached(device, tables).and_then(|g| g.mod_down_poly(input, target))
            }
        };
        output.map_err(gpu_rns_error)
    }

    fn decrypt_scale(&self, tables: &MulTables, input: &poly_cuda::DevicePoly<Coeff>) -> Result<Vec<u64>> {
        use rns::gpu::{GpuBehz, GpuHps};
        let device = self.device();
        let output = match tables {
            MulTables::Hps(hps) => GpuHps::cached(device, hps).and_then(|g| g.decrypt_poly(input)),
            MulTables::Behz(behz) => GpuBehz::cached(device, behz).and_then(|g| g.decrypt_poly(input)),
        };
        output.map_err(gpu_rns_error)
    }
}

/// The RNS layer's own errors as [`BfvError::Rns`], device errors as [`BfvError::Backend`].
#[cfg(feature = "cuda")]
fn gpu_rns_error(error: rns::gpu::GpuRnsError) -> BfvError {
    match error {
        rns::gpu::GpuRnsError::Rns(rns_error) => BfvError::Rns(rns_error),
        other => BfvError::from_backend(other),
    }
}
