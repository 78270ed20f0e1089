//! [`BfvBackend`]: what the BFV scheme needs from a backend beyond the core's
//! [`rlwe::PlaintextBackend`] (key switching, zeroization, plaintext words and the plaintext
//! lift): the RNS steps of multiplication and decryption (from the `rns` crate).
//!
//! Every RNS step maps a coefficient-representation polynomial over one basis to one over
//! another, coefficient by coefficient ([`RnsStep`]); a backend runs it where its data lives.
//! The provided methods do it on the host (download, the `rns` crate's CPU code, upload):
//! exact, and bit-identical on every backend, so a new backend is correct before it has the
//! kernels and must stay bit-identical after. [`poly::CpuBackend`] works on its polynomials
//! in place of the copies; `poly_cuda::GpuBackend` (feature `cuda`) runs the `rns` crate's
//! GPU kernels, so BFV data stays on the device.

use poly::{Coeff, Eval, Poly};
use rlwe::PlaintextBackend;
use rns::{BehzContext, HpsContext};

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
        }
    }

    /// Runs the step on host slices (limb-major, `N` values per limb): `input` over the
    /// input basis, `output` over the output basis. Errors (from `rns`) on wrong lengths or
    /// non-canonical values; `output` is untouched then. `degree` must be the tables' degree
    /// (checked first, with the lengths: nothing is allocated for another degree).
    pub fn apply(&self, degree: usize, input: &[u64], output: &mut [u64]) -> Result<()> {
        let (table_degree, input_limbs, output_limbs) = match self {
            RnsStep::HpsExtend(hps) => (hps.degree(), hps.q().len(), hps.q().len() + hps.p().len()),
            RnsStep::HpsScaleDown(hps) => (hps.degree(), hps.q().len() + hps.p().len(), hps.q().len()),
            RnsStep::BehzExtend(behz) => (behz.degree(), behz.q().len(), behz.q().len() + behz.bsk().len()),
            RnsStep::BehzScaleDown(behz) => (behz.degree(), behz.q().len() + behz.bsk().len(), behz.q().len()),
        };
        check_degree("RNS step degree", table_degree, degree)?;
        check_input_len("RNS step input", input_limbs, degree, input.len())?;
        check_input_len("RNS step output", output_limbs, degree, output.len())?;
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

/// Errors with [`rns::RnsError::LengthMismatch`] unless `degree` is the tables' degree.
fn check_degree(what: &'static str, expected: usize, degree: usize) -> Result<()> {
    if degree == expected {
        return Ok(());
    }
    Err(BfvError::Rns(rns::RnsError::LengthMismatch { what, expected, actual: degree }))
}

/// Errors with [`rns::RnsError::LengthMismatch`] unless `actual == limbs * degree` (the
/// product computed without overflow: a degree near `usize::MAX` is an error, not a wrap).
fn check_input_len(what: &'static str, limbs: usize, degree: usize, actual: usize) -> Result<()> {
    match limbs.checked_mul(degree) {
        Some(expected) if expected == actual => Ok(()),
        Some(expected) => Err(BfvError::Rns(rns::RnsError::LengthMismatch { what, expected, actual })),
        None => Err(BfvError::Rns(rns::RnsError::LengthMismatch { what, expected: usize::MAX, actual })),
    }
}

fn length_error(what: &'static str, input: usize, output: usize) -> BfvError {
    BfvError::Rns(rns::RnsError::LengthMismatch { what, expected: input, actual: output })
}

/// Decryption's scale-and-round on host values: `N` values `round(t x / q) mod t` (HPS) or
/// BEHZ's `gamma` variant of it, for `input` over `q`.
///
/// Errors (as [`BfvError::Rns`]) before allocating anything unless `degree` is the tables'
/// degree and `input` holds `q`'s limbs of `degree` values each.
pub fn decrypt_scale_host(tables: &MulTables, degree: usize, input: &[u64]) -> Result<Vec<u64>> {
    let (table_degree, q_limbs) = match tables {
        MulTables::Hps(hps) => (hps.degree(), hps.q().len()),
        MulTables::Behz(behz) => (behz.degree(), behz.q().len()),
    };
    check_degree("decryption scale-and-round", table_degree, degree)?;
    check_input_len("decryption scale-and-round input", q_limbs, degree, input.len())?;
    let mut output = vec![0u64; degree];
    match tables {
        MulTables::Hps(hps) => hps.decrypt_scale_round(input, &mut output)?,
        MulTables::Behz(behz) => behz.decrypt_scale_round(input, &mut output)?,
    }
    Ok(output)
}

/// A backend the BFV scheme runs on: the core's [`PlaintextBackend`] (ring operations, key
/// switching, zeroization) plus BFV's RNS steps, decryption's scale-and-round and the
/// plaintext words. The provided methods run the RNS steps on the host; a backend overrides
/// them with device code that gives the same values.
pub trait BfvBackend: PlaintextBackend {
    /// The multiplication's tables ([`MulTables`]) as this backend uses them, prepared once
    /// per context.
    type MulTables: Send + Sync;

    /// Prepares `tables` for this backend (uploads them on a device).
    fn prepare_mul(&self, tables: &MulTables) -> Result<Self::MulTables>;

    /// Runs `step` on `input` (over the step's input basis), giving a polynomial of `target`
    /// (the output basis).
    fn rns_step(
        &self,
        step: RnsStep<'_>,
        _prepared: &Self::MulTables,
        input: &Self::Poly<Coeff>,
        target: &Self::Context,
    ) -> Result<Self::Poly<Coeff>> {
        let host = self.download(input).map_err(BfvError::from_backend)?;
        let output = step.apply_poly(&host, self.ring(target))?;
        self.upload(target, &output).map_err(BfvError::from_backend)
    }

    /// A multiplication's product step: `a` and `b` (each a ciphertext's two polynomials over
    /// `q`; `None`: `a` again, a square) extended to the multiplication ring `ring_mul`, their
    /// tensor product formed there, and each of its three parts scaled by `t/q` back to
    /// `ring_q` (the extension and scaling [`RnsStep`]s of `tables`' variant). The provided method
    /// ([`tensor_and_scale_by_steps`]) runs the steps polynomial by polynomial; a device backend
    /// batches them. Same values either way.
    fn tensor_and_scale(
        &self,
        tables: &MulTables,
        prepared: &Self::MulTables,
        a: [&Self::Poly<Coeff>; 2],
        b: Option<[&Self::Poly<Coeff>; 2]>,
        ring_mul: &Self::Context,
        ring_q: &Self::Context,
    ) -> Result<[Self::Poly<Coeff>; 3]> {
        tensor_and_scale_by_steps(self, tables, prepared, a, b, ring_mul, ring_q)
    }

    /// Decryption's scale-and-round: the `N` plaintext coefficients of `input` (over `q`,
    /// in BFV `[c_0 + c_1 s + ...]_q`), in `[0, t)`, on the host.
    fn decrypt_scale(
        &self,
        tables: &MulTables,
        _prepared: &Self::MulTables,
        input: &Self::Poly<Coeff>,
    ) -> Result<Vec<u64>> {
        let host = self.download(input).map_err(BfvError::from_backend)?;
        decrypt_scale_host(tables, host.context().degree(), host.as_slice())
    }

    /// Decryption's end: the `N` plaintext coefficients, each in `[0, t)` (decryption trusts
    /// this range: implementations must reduce modulo `t`), of `[c_0 + x]_q` where `x` is
    /// `value * factor` in the evaluation representation (`value = c_1 + c_2 s + ...` by Horner,
    /// `factor = s`). The provided method runs [`rlwe::RlweBackend::inverse_of_product`],
    /// adds `c_0` and calls [`decrypt_scale`](Self::decrypt_scale); a device backend adds `c_0`
    /// inside its scale-and-round kernel. Same values either way.
    fn decrypt_scale_sum(
        &self,
        tables: &MulTables,
        prepared: &Self::MulTables,
        c0: &Self::Poly<Coeff>,
        value: Self::Poly<Eval>,
        factor: &Self::Poly<Eval>,
    ) -> Result<Vec<u64>> {
        let mut phase = self.inverse_of_product(value, factor)?;
        self.add_assign(&mut phase, c0).map_err(BfvError::from_backend)?;
        self.decrypt_scale(tables, prepared, &phase)
    }

    /// [`decrypt_scale_sum`](Self::decrypt_scale_sum)'s `N` words left on the backend (a
    /// device backend queues the work and waits for nothing). The provided method uploads
    /// `decrypt_scale_sum`'s output.
    fn decrypt_scale_sum_resident(
        &self,
        tables: &MulTables,
        prepared: &Self::MulTables,
        c0: &Self::Poly<Coeff>,
        value: Self::Poly<Eval>,
        factor: &Self::Poly<Eval>,
    ) -> Result<Self::PlainWords> {
        let coefficients = self.decrypt_scale_sum(tables, prepared, c0, value, factor)?;
        self.upload_plain_words(&coefficients)
    }
}

/// [`BfvBackend::tensor_and_scale`] step by step: each polynomial extended and transformed,
/// the core's tensor product, then each part transformed back and scaled down.
pub fn tensor_and_scale_by_steps<B: BfvBackend>(
    backend: &B,
    tables: &MulTables,
    prepared: &B::MulTables,
    a: [&B::Poly<Coeff>; 2],
    b: Option<[&B::Poly<Coeff>; 2]>,
    ring_mul: &B::Context,
    ring_q: &B::Context,
) -> Result<[B::Poly<Coeff>; 3]> {
    let extend = |c: &B::Poly<Coeff>| -> Result<B::Poly<Eval>> {
        let extended = backend.rns_step(extend_step(tables), prepared, c, ring_mul)?;
        backend.forward(extended).map_err(BfvError::from_backend)
    };
    let (a0, a1) = (extend(a[0])?, extend(a[1])?);
    let [d0, d1, d2] = match b {
        Some(b) => {
            let (b0, b1) = (extend(b[0])?, extend(b[1])?);
            backend.tensor_product([&a0, &a1], [&b0, &b1])?
        }
        None => backend.tensor_product([&a0, &a1], [&a0, &a1])?,
    };
    let scale_down = |d: B::Poly<Eval>| -> Result<B::Poly<Coeff>> {
        let coefficients = backend.inverse(d).map_err(BfvError::from_backend)?;
        backend.rns_step(scale_down_step(tables), prepared, &coefficients, ring_q)
    };
    Ok([scale_down(d0)?, scale_down(d1)?, scale_down(d2)?])
}

mod cpu;
#[cfg(feature = "cuda")]
mod gpu;

#[cfg(feature = "cuda")]
pub use gpu::GpuMulTables;

#[cfg(test)]
mod tests {
    use super::*;

    /// Both variants' tables, `N = 1024`, two 50-bit primes, `t = 65537`.
    fn tables() -> [MulTables; 2] {
        let primes = modarith::generate_ntt_primes(50, 2048, 2, &[]).unwrap();
        [
            MulTables::Hps(Box::new(HpsContext::with_generated_moduli(1024, &primes, 65_537).unwrap())),
            MulTables::Behz(Box::new(BehzContext::with_generated_moduli(1024, &primes, 65_537).unwrap())),
        ]
    }

    /// A declared degree that is not the tables' (the issue's `1 << 40`: the process aborted
    /// allocating 8 TiB; `usize::MAX`: "capacity overflow") is a typed error, before anything
    /// is allocated, and quickly.
    #[test]
    fn decrypt_scale_host_checks_the_degree_before_allocating() {
        for tables in tables() {
            let start = std::time::Instant::now();
            for degree in [1usize << 40, usize::MAX, usize::MAX / 2 + 1, 0, 512, 2048] {
                assert!(matches!(decrypt_scale_host(&tables, degree, &[]), Err(BfvError::Rns(_))), "degree {degree}");
            }
            assert!(decrypt_scale_host(&tables, 1024, &[0; 1024]).is_err());
            assert!(decrypt_scale_host(&tables, 1024, &[0; 2049]).is_err());
            assert_eq!(decrypt_scale_host(&tables, 1024, &[0; 2048]).unwrap(), vec![0; 1024]);
            assert!(start.elapsed() < std::time::Duration::from_secs(5));
        }
    }

    /// Every RNS step refuses a degree other than its tables' (huge ones included) and wrong
    /// lengths with a typed error, leaving the output untouched.
    #[test]
    fn rns_steps_check_degree_and_lengths_before_allocating() {
        for tables in tables() {
            for step in [extend_step(&tables), scale_down_step(&tables)] {
                let mut output = [7u64; 4];
                for degree in [1usize << 40, usize::MAX, 0, 1] {
                    assert!(matches!(step.apply(degree, &[], &mut output), Err(BfvError::Rns(_))), "degree {degree}");
                }
                assert_eq!(output, [7; 4]);
                let input_limbs = match step {
                    RnsStep::HpsExtend(_) | RnsStep::BehzExtend(_) => 2,
                    _ => 2 + tables.auxiliary_moduli().len(),
                };
                let input = vec![0u64; input_limbs * 1024];
                let mut output = vec![0u64; step.output_limbs() * 1024];
                assert!(step.apply(1024, &input[1..], &mut output).is_err());
                assert!(step.apply(1024, &input, &mut output[1..]).is_err());
                step.apply(1024, &input, &mut output).unwrap();
                assert!(output.iter().all(|&v| v == 0));
            }
        }
    }
}
