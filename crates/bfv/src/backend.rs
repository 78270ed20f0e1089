//! [`BfvBackend`]: what the BFV scheme needs from a backend beyond the core's
//! [`rlwe::RlweBackend`] (which has key switching and zeroization): the RNS steps of
//! multiplication and decryption (from the `rns` crate), and plaintext words on the backend.
//!
//! Every RNS step maps a coefficient-representation polynomial over one basis to one over
//! another, coefficient by coefficient ([`RnsStep`]); a backend runs it where its data lives.
//! The provided methods do it on the host (download, the `rns` crate's CPU code, upload):
//! exact, and bit-identical on every backend, so a new backend is correct before it has the
//! kernels and must stay bit-identical after. [`poly::CpuBackend`] works on its polynomials
//! in place of the copies; `poly_cuda::GpuBackend` (feature `cuda`) runs the `rns` crate's
//! GPU kernels, so BFV data stays on the device.

use poly::{Coeff, CpuBackend, Eval, Poly};
use rlwe::RlweBackend;
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

/// The constants of BFV's plaintext scaling `m -> round(q m / t)` over `q` (SEAL's precise
/// scaling: `floor(q/t) m + floor((q mod t) m / t + 1/2)`), prepared once per context.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaintextScaling {
    /// `t`, `2 <= t < 2^60`.
    plaintext_modulus: u64,
    /// `q mod t`.
    q_mod_t: u64,
    /// Per limb `i`: `[floor(q / t)]_{q_i}` and its Shoup companion, interleaved.
    delta_table: Vec<u64>,
}

impl PlaintextScaling {
    /// The constants for the primes `moduli` of `q`, `delta[i] = floor(q / t) mod q_i`
    /// (one per prime, canonical), `q_mod_t = q mod t` and `t`. Errors (as [`BfvError::Poly`])
    /// with `LengthMismatch` or `CoefficientOutOfRange` on a wrong `delta`, and with
    /// `InvalidParameter` unless `2 <= t < 2^60` and `q_mod_t < t`.
    pub fn new(moduli: &[modarith::Modulus], delta: &[u64], q_mod_t: u64, plaintext_modulus: u64) -> Result<Self> {
        if !(2..1u64 << 60).contains(&plaintext_modulus) {
            return Err(BfvError::Poly(poly::PolyError::InvalidParameter {
                name: "plaintext modulus",
                value: plaintext_modulus,
                reason: "must satisfy 2 <= t < 2^60",
            }));
        }
        if q_mod_t >= plaintext_modulus {
            return Err(BfvError::Poly(poly::PolyError::InvalidParameter {
                name: "q mod t",
                value: q_mod_t,
                reason: "must be below t",
            }));
        }
        if delta.len() != moduli.len() {
            return Err(BfvError::Poly(poly::PolyError::LengthMismatch {
                expected: moduli.len(),
                actual: delta.len(),
            }));
        }
        let mut delta_table = Vec::with_capacity(2 * delta.len());
        for (limb, (&d, m)) in delta.iter().zip(moduli).enumerate() {
            if d >= m.value() {
                return Err(BfvError::Poly(poly::PolyError::CoefficientOutOfRange {
                    limb,
                    index: 0,
                    value: d,
                    modulus: m.value(),
                }));
            }
            delta_table.extend_from_slice(&[d, m.shoup(d)]);
        }
        Ok(Self { plaintext_modulus, q_mod_t, delta_table })
    }

    /// `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus
    }

    /// `q mod t`.
    pub fn q_mod_t(&self) -> u64 {
        self.q_mod_t
    }

    /// Per limb `i`: `[floor(q / t)]_{q_i}` and `shoup` of it, interleaved (`2 L` words).
    pub fn delta_table(&self) -> &[u64] {
        &self.delta_table
    }

    /// `ceil(t / 2)`: the rounding offset of `floor((q mod t) m / t + 1/2)`.
    pub fn half_plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus.div_ceil(2)
    }

    /// `floor(((q mod t) m + ceil(t/2)) / t)`.
    fn rounding_term(&self, m: u64) -> u64 {
        // (q mod t) m + ceil(t/2) < 2^121 for m < 2^60: the sum in u128; the quotient is below
        // 2^64 for any m since q mod t < t.
        ((u128::from(self.q_mod_t) * u128::from(m) + u128::from(self.half_plaintext_modulus()))
            / u128::from(self.plaintext_modulus)) as u64
    }

    /// `round(q m / t)` over `ring` (the primes given to [`PlaintextScaling::new`]), limb-major,
    /// coefficient representation, on the host: limb `i`, coefficient `j` is
    /// `[floor(q/t)]_{q_i} m_j + floor(((q mod t) m_j + ceil(t/2)) / t) mod q_i` (SEAL's
    /// formula: exactly `round(q m / t)` for even `t`; for odd `t` it rounds up from a
    /// fraction of `(t - 1) / 2t`, so at most one above `round(q m / t)`). Errors with
    /// [`poly::PolyError::LengthMismatch`] unless there are `N` coefficients and one delta per limb,
    /// and with [`BfvError::PlaintextOutOfRange`] on a coefficient not below `t`.
    pub fn scale_host(&self, ring: &std::sync::Arc<poly::RingContext>, coefficients: &[u64]) -> Result<Poly<Coeff>> {
        let n = ring.degree();
        if coefficients.len() != n {
            return Err(BfvError::Poly(poly::PolyError::LengthMismatch { expected: n, actual: coefficients.len() }));
        }
        if self.delta_table.len() != 2 * ring.num_limbs() {
            return Err(BfvError::Poly(poly::PolyError::LengthMismatch {
                expected: ring.num_limbs(),
                actual: self.delta_table.len() / 2,
            }));
        }
        check_below_t(coefficients, self.plaintext_modulus)?;
        let fixes: Vec<u64> = coefficients.iter().map(|&m| self.rounding_term(m)).collect();
        let mut data = Vec::with_capacity(ring.poly_len());
        for (modulus, delta) in ring.moduli().iter().zip(self.delta_table.chunks_exact(2)) {
            let (delta, delta_shoup) = (delta[0], delta[1]);
            data.extend(coefficients.iter().zip(&fixes).map(|(&m, &fix)| {
                modulus.add(modulus.mul_shoup(modulus.reduce(m), delta, delta_shoup), modulus.reduce(fix))
            }));
        }
        Ok(Poly::from_limbs(ring, data)?)
    }

    /// [`scale_host`](Self::scale_host) or [`lift_host`](Self::lift_host), by `embedding`.
    pub fn embed_host(
        &self,
        ring: &std::sync::Arc<poly::RingContext>,
        embedding: PlaintextEmbedding,
        coefficients: &[u64],
    ) -> Result<Poly<Coeff>> {
        match embedding {
            PlaintextEmbedding::Scaled => self.scale_host(ring, coefficients),
            PlaintextEmbedding::Lifted => self.lift_host(ring, coefficients),
        }
    }

    /// The plaintext `m` lifted to `(-t/2, t/2]` over `ring`, limb-major, coefficient
    /// representation, on the host: limb `i`, coefficient `j` is `m_j mod q_i` for
    /// `m_j <= floor(t/2)` and `-(t - m_j) mod q_i` above (the operand of a plaintext
    /// multiplication). Errors with [`poly::PolyError::LengthMismatch`] unless there are `N`
    /// coefficients, and with [`BfvError::PlaintextOutOfRange`] on a coefficient not below `t`.
    pub fn lift_host(&self, ring: &std::sync::Arc<poly::RingContext>, coefficients: &[u64]) -> Result<Poly<Coeff>> {
        let t = self.plaintext_modulus;
        if coefficients.len() != ring.degree() {
            return Err(BfvError::Poly(poly::PolyError::LengthMismatch {
                expected: ring.degree(),
                actual: coefficients.len(),
            }));
        }
        check_below_t(coefficients, t)?;
        let centered: Vec<i64> = coefficients.iter().map(|&m| crate::encoding::center(m, t)).collect();
        Ok(Poly::from_signed_coeffs(ring, &centered)?)
    }
}

/// Errors with [`BfvError::PlaintextOutOfRange`] naming the first coefficient not below `t`.
fn check_below_t(coefficients: &[u64], t: u64) -> Result<()> {
    match coefficients.iter().position(|&m| m >= t) {
        Some(index) => Err(BfvError::PlaintextOutOfRange { index, value: coefficients[index], modulus: t }),
        None => Ok(()),
    }
}

/// How a plaintext `m` becomes a polynomial over `q` ([`BfvBackend::embed_plaintext`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaintextEmbedding {
    /// `round(q m / t)` (encryption, plaintext addition): [`PlaintextScaling::scale_host`].
    Scaled,
    /// `m` lifted to `(-t/2, t/2]` (plaintext multiplication): [`PlaintextScaling::lift_host`].
    Lifted,
}

/// Where a plaintext's `N` coefficients are: on the host, or on the backend
/// ([`ResidentPlaintext`](crate::ResidentPlaintext)'s words).
#[derive(Debug)]
pub enum PlaintextWords<'a, B: BfvBackend> {
    /// Host coefficients.
    Host(&'a [u64]),
    /// Coefficients on the backend.
    Resident(&'a B::PlainWords),
}

impl<B: BfvBackend> Clone for PlaintextWords<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: BfvBackend> Copy for PlaintextWords<'_, B> {}

/// A backend the BFV scheme runs on: the core's [`RlweBackend`] (ring operations, key
/// switching, zeroization) plus BFV's RNS steps, decryption's scale-and-round and the
/// plaintext words. The provided methods run the RNS steps on the host; a backend overrides
/// them with device code that gives the same values.
pub trait BfvBackend: RlweBackend {
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
    /// `factor = s`). The provided method runs [`RlweBackend::inverse_of_product`],
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

    /// The `N` coefficients (in `[0, t)`) of a plaintext kept where the backend keeps its
    /// data, for [`ResidentPlaintext`](crate::ResidentPlaintext): a host vector on the CPU, a
    /// device buffer on the GPU.
    type PlainWords: Send + Sync;

    /// `coefficients` (the caller has checked that they are `N` values in `[0, t)`) copied to
    /// the backend.
    fn upload_plain_words(&self, coefficients: &[u64]) -> Result<Self::PlainWords>;

    /// The words back on the host, after the work queued before them has finished. Errors
    /// (`poly_cuda::GpuError::WrongContext` on the GPU) for words of another device.
    fn download_plain_words(&self, words: &Self::PlainWords) -> Result<Vec<u64>>;

    /// The `N` words of `poly`, a polynomial over a one-prime ring (the plaintext ring
    /// `Z_t[x]` of the batch encoder), as plaintext words, taking over its storage where the
    /// backend can. Errors (`LengthMismatch`) for a ring of several primes.
    fn plain_words_from_poly(&self, poly: Self::Poly<Coeff>) -> Result<Self::PlainWords> {
        let host = self.download(&poly).map_err(BfvError::from_backend)?;
        check_one_prime(host.context().num_limbs(), host.context().degree())?;
        self.upload_plain_words(host.as_slice())
    }

    /// A copy of `words` as a polynomial over `context`, a one-prime ring whose prime exceeds
    /// every word (the plaintext ring `Z_t[x]`). Errors on a wrong length, or (on the CPU) a
    /// word not below the prime.
    fn poly_from_plain_words(&self, context: &Self::Context, words: &Self::PlainWords) -> Result<Self::Poly<Coeff>> {
        let host = Poly::from_limbs(self.ring(context), self.download_plain_words(words)?)?;
        self.upload(context, &host).map_err(BfvError::from_backend)
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

    /// The plaintext `m` (`N` coefficients in `[0, t)`, on the host or on this backend) as a
    /// polynomial over `context` (the ring `q`), coefficient representation, by `embedding`:
    /// [`PlaintextScaling::scale_host`]'s or [`PlaintextScaling::lift_host`]'s values. The
    /// provided method computes them on the host (downloading resident words first) and
    /// uploads the `L N` words; a device backend moves at most the `N` coefficients and
    /// computes the rest where its data is.
    fn embed_plaintext(
        &self,
        context: &Self::Context,
        scaling: &PlaintextScaling,
        embedding: PlaintextEmbedding,
        words: PlaintextWords<'_, Self>,
    ) -> Result<Self::Poly<Coeff>> {
        let downloaded;
        let coefficients = match words {
            PlaintextWords::Host(coefficients) => coefficients,
            PlaintextWords::Resident(words) => {
                downloaded = self.download_plain_words(words)?;
                &downloaded
            }
        };
        let host = scaling.embed_host(self.ring(context), embedding, coefficients)?;
        self.upload(context, &host).map_err(BfvError::from_backend)
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

impl BfvBackend for CpuBackend {
    type MulTables = ();
    type PlainWords = Vec<u64>;

    fn prepare_mul(&self, _tables: &MulTables) -> Result<()> {
        Ok(())
    }

    fn upload_plain_words(&self, coefficients: &[u64]) -> Result<Vec<u64>> {
        Ok(coefficients.to_vec())
    }

    fn download_plain_words(&self, words: &Vec<u64>) -> Result<Vec<u64>> {
        Ok(words.clone())
    }

    fn plain_words_from_poly(&self, poly: Poly<Coeff>) -> Result<Vec<u64>> {
        check_one_prime(poly.context().num_limbs(), poly.context().degree())?;
        Ok(poly.into_vec())
    }

    fn poly_from_plain_words(&self, context: &Self::Context, words: &Vec<u64>) -> Result<Poly<Coeff>> {
        Ok(Poly::from_limbs(context, words.clone())?)
    }

    fn decrypt_scale_sum_resident(
        &self,
        tables: &MulTables,
        prepared: &(),
        c0: &Poly<Coeff>,
        value: Poly<Eval>,
        factor: &Poly<Eval>,
    ) -> Result<Vec<u64>> {
        // The host is where this backend keeps its data: no copy.
        self.decrypt_scale_sum(tables, prepared, c0, value, factor)
    }

    fn rns_step(
        &self,
        step: RnsStep<'_>,
        _prepared: &(),
        input: &Poly<Coeff>,
        target: &Self::Context,
    ) -> Result<Poly<Coeff>> {
        step.apply_poly(input, target)
    }

    fn decrypt_scale(&self, tables: &MulTables, _prepared: &(), input: &Poly<Coeff>) -> Result<Vec<u64>> {
        decrypt_scale_host(tables, input.context().degree(), input.as_slice())
    }

    fn embed_plaintext(
        &self,
        context: &Self::Context,
        scaling: &PlaintextScaling,
        embedding: PlaintextEmbedding,
        words: PlaintextWords<'_, Self>,
    ) -> Result<Poly<Coeff>> {
        // The host values are the polynomial: no upload copy.
        let coefficients = match words {
            PlaintextWords::Host(coefficients) => coefficients,
            PlaintextWords::Resident(words) => words.as_slice(),
        };
        scaling.embed_host(context, embedding, coefficients)
    }
}

/// The GPU runs every RNS step with the kernels of `rns::gpu` (tables uploaded once per
/// context, [`GpuMulTables`]), word for word what the CPU computes; the data
/// never leaves the device except for decryption's `N` plaintext words.
#[cfg(feature = "cuda")]
impl BfvBackend for poly_cuda::GpuBackend {
    type MulTables = GpuMulTables;
    type PlainWords = poly_cuda::cudarc::driver::CudaSlice<u64>;

    fn prepare_mul(&self, tables: &MulTables) -> Result<GpuMulTables> {
        let device = self.device();
        let prepared = match tables {
            MulTables::Hps(hps) => rns::gpu::GpuHps::new(device, hps).map(|g| GpuMulTables::Hps(Box::new(g))),
            MulTables::Behz(behz) => rns::gpu::GpuBehz::new(device, behz).map(|g| GpuMulTables::Behz(Box::new(g))),
        };
        prepared.map_err(gpu_rns_error)
    }

    fn upload_plain_words(&self, coefficients: &[u64]) -> Result<Self::PlainWords> {
        self.device()
            .stream()
            .clone_htod(coefficients)
            .map_err(|e| BfvError::from_backend(poly_cuda::GpuError::driver("cuMemcpyHtoDAsync", e)))
    }

    fn download_plain_words(&self, words: &Self::PlainWords) -> Result<Vec<u64>> {
        let device = self.device();
        if !std::sync::Arc::ptr_eq(words.stream(), device.stream()) {
            return Err(BfvError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        device.download_words(words).map_err(BfvError::from_backend)
    }

    fn plain_words_from_poly(&self, poly: poly_cuda::DevicePoly<Coeff>) -> Result<Self::PlainWords> {
        if !std::sync::Arc::ptr_eq(poly.context().device(), self.device()) {
            return Err(BfvError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        check_one_prime(poly.context().num_limbs(), poly.context().degree())?;
        Ok(poly.into_device_buffer())
    }

    fn poly_from_plain_words(
        &self,
        context: &poly_cuda::GpuContext,
        words: &Self::PlainWords,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        let device = self.device();
        if !std::sync::Arc::ptr_eq(context.device(), device) || !std::sync::Arc::ptr_eq(words.stream(), device.stream())
        {
            return Err(BfvError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        check_one_prime(context.num_limbs(), context.degree())?;
        // The words are below t, the ring's one prime (the caller's ring is the plaintext ring).
        let copy = device
            .stream()
            .clone_dtod(words)
            .map_err(|e| BfvError::from_backend(poly_cuda::GpuError::driver("cuMemcpyDtoDAsync", e)))?;
        poly_cuda::DevicePoly::from_device_buffer(context, copy).map_err(BfvError::from_backend)
    }

    fn decrypt_scale_sum_resident(
        &self,
        _tables: &MulTables,
        prepared: &GpuMulTables,
        c0: &poly_cuda::DevicePoly<Coeff>,
        value: poly_cuda::DevicePoly<Eval>,
        factor: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<Self::PlainWords> {
        let x = self.inverse_of_product(value, factor)?;
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

    fn embed_plaintext(
        &self,
        context: &poly_cuda::GpuContext,
        scaling: &PlaintextScaling,
        embedding: PlaintextEmbedding,
        words: PlaintextWords<'_, Self>,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        gpu_embed_plaintext(self, context, scaling, embedding, words)
    }

    fn decrypt_scale_sum(
        &self,
        _tables: &MulTables,
        prepared: &GpuMulTables,
        c0: &poly_cuda::DevicePoly<Coeff>,
        value: poly_cuda::DevicePoly<Eval>,
        factor: &poly_cuda::DevicePoly<Eval>,
    ) -> Result<Vec<u64>> {
        let x = self.inverse_of_product(value, factor)?;
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

/// Launches `bfv_scale_plaintext` or `bfv_lift_plaintext` of `kernels/bfv.cu` for `backend`
/// (errors with `WrongContext` for a context or words of another device): one upload (of the `N` coefficients and the `2 L`
/// delta words, or of the delta words alone for coefficients already on the device), one
/// kernel writing the `L N` values.
#[cfg(feature = "cuda")]
fn gpu_embed_plaintext(
    backend: &poly_cuda::GpuBackend,
    context: &poly_cuda::GpuContext,
    scaling: &PlaintextScaling,
    embedding: PlaintextEmbedding,
    source: PlaintextWords<'_, poly_cuda::GpuBackend>,
) -> Result<poly_cuda::DevicePoly<Coeff>> {
    use poly_cuda::GpuError;

    if !std::sync::Arc::ptr_eq(context.device(), backend.device()) {
        return Err(BfvError::from_backend(GpuError::WrongContext));
    }

    let ring = context.ring();
    let (n, limbs) = (ring.degree(), ring.num_limbs());
    let given = match source {
        PlaintextWords::Host(coefficients) => coefficients.len(),
        PlaintextWords::Resident(words) => words.len(),
    };
    if given != n {
        return Err(BfvError::Poly(poly::PolyError::LengthMismatch { expected: n, actual: given }));
    }
    if scaling.delta_table().len() != 2 * limbs {
        return Err(BfvError::Poly(poly::PolyError::LengthMismatch {
            expected: limbs,
            actual: scaling.delta_table().len() / 2,
        }));
    }
    let device = context.device();
    let stream = device.stream();
    if let PlaintextWords::Resident(words) = source
        && !std::sync::Arc::ptr_eq(words.stream(), stream)
    {
        return Err(BfvError::from_backend(GpuError::WrongContext));
    }
    let t = scaling.plaintext_modulus();
    // floor(2^128 / t) = floor((2^128 - 1) / t), plus one when t divides 2^128 (t a power of two).
    let barrett = u128::MAX / u128::from(t) + u128::from(u128::MAX % u128::from(t) == u128::from(t) - 1);
    let (t_barrett_hi, t_barrett_lo) = ((barrett >> 64) as u64, barrett as u64);
    let (q_mod_t, half_t) = (scaling.q_mod_t(), scaling.half_plaintext_modulus());
    let (log_n, limbs_arg) = (n.trailing_zeros() as i32, limbs as i32);

    let mut upload = Vec::with_capacity(n + 2 * limbs);
    if let PlaintextWords::Host(coefficients) = source {
        upload.extend_from_slice(coefficients);
    }
    upload.extend_from_slice(scaling.delta_table());
    let uploaded =
        stream.clone_htod(&upload).map_err(|e| BfvError::from_backend(GpuError::driver("cuMemcpyHtoDAsync", e)))?;
    let (coefficients, delta) = match source {
        PlaintextWords::Host(_) => (uploaded.slice(..n), uploaded.slice(n..)),
        PlaintextWords::Resident(words) => (words.slice(..), uploaded.slice(..)),
    };
    // SAFETY: the kernel writes every one of the L N values (each coefficient in every limb)
    // before anything reads them.
    let mut out = unsafe { stream.alloc::<u64>(n * limbs) }
        .map_err(|e| BfvError::from_backend(GpuError::alloc(n * limbs * size_of::<u64>(), e)))?;
    poly_cuda::kernel_set! {
        /// The kernels of `kernels/bfv.cu`, loaded once per device.
        struct BfvKernels(poly_cuda::hegpu_kernels::BFV) { bfv_scale_plaintext, bfv_lift_plaintext }
    }
    let kernels = device.kernel_set::<BfvKernels>().map_err(BfvError::from_backend)?;
    let kernel = match embedding {
        PlaintextEmbedding::Scaled => &kernels.bfv_scale_plaintext,
        PlaintextEmbedding::Lifted => &kernels.bfv_lift_plaintext,
    };
    let config = poly_cuda::kernel::linear_config(n, u32::MAX as usize);
    let mut builder = kernel.builder(stream);
    builder
        .arg(&mut out)
        .arg(&coefficients)
        .arg(&delta)
        .arg(context.moduli_table())
        .arg(&log_n)
        .arg(&limbs_arg)
        .arg(&t)
        .arg(&t_barrett_hi)
        .arg(&t_barrett_lo)
        .arg(&q_mod_t)
        .arg(&half_t);
    // SAFETY: matches `bfv_scale_plaintext` and `bfv_lift_plaintext` (u64* out, const u64*
    // coefficients, const u64* delta, const Modulus* moduli, int log_n, int limbs, u64 t,
    // u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t, u64 half_t) in kernels/bfv.cu: `out` holds L N words (the most the kernel
    // writes), `coefficients` N words and `delta` the 2 L delta pairs (lengths checked above),
    // the moduli table L triples {p, barrett_hi, barrett_lo}; N = 2^log_n. 2 <= t < 2^60 and
    // q_mod_t < t (PlaintextScaling::new), so every quotient the kernel forms is below 2^64.
    // Every buffer is on the device's single stream (a resident plaintext's was checked above),
    // which the launch uses.
    unsafe { builder.launch(config) }.map_err(BfvError::from_backend)?;
    poly_cuda::DevicePoly::from_device_buffer(context, out).map_err(BfvError::from_backend)
}

/// Errors with `LengthMismatch` (expected `N` words, given `limbs * N`) unless a ring has one
/// prime: the plaintext ring `Z_t[x]` whose polynomials are plaintext words.
fn check_one_prime(limbs: usize, degree: usize) -> Result<()> {
    if limbs == 1 {
        return Ok(());
    }
    Err(BfvError::Poly(poly::PolyError::LengthMismatch { expected: degree, actual: limbs * degree }))
}

/// The multiplication's tables on a GPU (uploaded once per context): HPS or BEHZ.
#[cfg(feature = "cuda")]
#[derive(Debug)]
pub enum GpuMulTables {
    /// HPS (both variants boxed: their tables differ in size).
    Hps(Box<rns::gpu::GpuHps>),
    /// BEHZ.
    Behz(Box<rns::gpu::GpuBehz>),
}

#[cfg(feature = "cuda")]
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
#[cfg(feature = "cuda")]
fn gpu_rns_error(error: rns::gpu::GpuRnsError) -> BfvError {
    match error {
        rns::gpu::GpuRnsError::Rns(rns_error) => BfvError::Rns(rns_error),
        other => BfvError::from_backend(other),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use num_bigint::BigUint;
    use poly::{RingContext, TransformKind};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;

    /// `scale_host` equals SEAL's scaling computed with big integers (and so `round(q m / t)`
    /// for even `t`, at most one above it for odd `t`), for odd,
    /// even, power-of-two and near-2^60 `t`, at the edges `m = 0, t - 1` and at random `m`.
    #[test]
    fn scale_host_is_seals_scaling_exactly() {
        let degree = 1024;
        let primes = modarith::generate_ntt_primes(61, 2 * degree as u64, 3, &[]).unwrap();
        let ring = RingContext::new(degree, &primes, TransformKind::Ntt).unwrap();
        let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
        let mut rng = StdRng::seed_from_u64(7);
        for t in [2u64, 3, 256, 65_537, 1 << 40, (1 << 60) - 1, (1 << 59) + 1] {
            let delta: Vec<u64> = primes.iter().map(|&p| crate::context::biguint_mod(&(&q / t), p)).collect();
            let scaling = PlaintextScaling::new(ring.moduli(), &delta, crate::context::biguint_mod(&q, t), t).unwrap();
            let mut m: Vec<u64> = (0..degree).map(|_| rng.gen_range(0..t)).collect();
            m[0] = 0;
            m[1] = t - 1;
            let scaled = scaling.scale_host(&ring, &m).unwrap();
            for (j, &mj) in m.iter().enumerate() {
                // SEAL's formula in big integers: floor(q/t) m + floor(((q mod t) m + ceil(t/2)) / t).
                let exact = (&q / t) * mj + ((&q % t) * mj + t.div_ceil(2)) / t;
                // Within one of round(q m / t) = floor((2 q m + t) / (2 t)), and equal to it for even t.
                let rounded = (BigUint::from(2u8) * &q * mj + t) / (BigUint::from(2u8) * t);
                let difference = if exact >= rounded { &exact - &rounded } else { &rounded - &exact };
                assert!(difference <= BigUint::from(t % 2), "t {t}, coefficient {j}");
                for (i, &p) in primes.iter().enumerate() {
                    let expected = crate::context::biguint_mod(&exact, p);
                    assert_eq!(scaled.as_slice()[i * degree + j], expected, "t {t}, limb {i}, coefficient {j}");
                }
            }
        }
    }

    /// `lift_host` is the centered value `m` (or `m - t` above `t/2`) modulo each prime, by
    /// `i128` arithmetic, for primes above and below `t`, at the edges around `t/2` and at random.
    #[test]
    fn lift_host_is_the_centered_value_modulo_each_prime() {
        let degree = 1024;
        let mut rng = StdRng::seed_from_u64(9);
        for bits in [30u32, 61] {
            let primes = modarith::generate_ntt_primes(bits, 2 * degree as u64, 2, &[]).unwrap();
            let ring = RingContext::new(degree, &primes, TransformKind::Ntt).unwrap();
            for t in [2u64, 3, 65_537, 1 << 40, (1 << 60) - 1] {
                let scaling = PlaintextScaling::new(ring.moduli(), &[1, 1], 0, t).unwrap();
                let mut m: Vec<u64> = (0..degree).map(|_| rng.gen_range(0..t)).collect();
                m[..4].copy_from_slice(&[0, t - 1, t / 2, (t / 2 + 1).min(t - 1)]);
                let lifted = scaling.lift_host(&ring, &m).unwrap();
                for (i, &p) in primes.iter().enumerate() {
                    for (j, &mj) in m.iter().enumerate() {
                        let centered = if mj > t / 2 { i128::from(mj) - i128::from(t) } else { i128::from(mj) };
                        let expected = centered.rem_euclid(i128::from(p)) as u64;
                        assert_eq!(lifted.as_slice()[i * degree + j], expected, "{bits}-bit primes, t {t}, m {mj}");
                    }
                }
            }
        }
    }

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

    /// A coefficient not below `t` is refused by `lift_host` and `scale_host` with
    /// `PlaintextOutOfRange` naming it (`lift_host` underflowed in `center`: a panic with
    /// overflow checks, garbage without).
    #[test]
    fn lift_and_scale_refuse_coefficients_not_below_t() {
        let primes = modarith::generate_ntt_primes(50, 2048, 2, &[]).unwrap();
        let ring = RingContext::new(1024, &primes, TransformKind::Ntt).unwrap();
        let scaling = PlaintextScaling::new(ring.moduli(), &[1, 1], 0, 17).unwrap();
        for bad in [17u64, 18, 1 << 63, u64::MAX] {
            let mut m = vec![3u64; 1024];
            m[5] = bad;
            for embedding in [PlaintextEmbedding::Lifted, PlaintextEmbedding::Scaled] {
                match scaling.embed_host(&ring, embedding, &m) {
                    Err(BfvError::PlaintextOutOfRange { index: 5, value, modulus: 17 }) => assert_eq!(value, bad),
                    other => panic!("{embedding:?} of {bad}: {other:?}"),
                }
            }
        }
        assert!(scaling.lift_host(&ring, &[0; 1023]).is_err());
        assert!(scaling.lift_host(&ring, &[16; 1024]).is_ok());
    }

    #[test]
    fn plaintext_scaling_rejects_bad_constants() {
        let primes = modarith::generate_ntt_primes(50, 2048, 2, &[]).unwrap();
        let ring = RingContext::new(1024, &primes, TransformKind::Ntt).unwrap();
        let moduli = ring.moduli();
        assert!(PlaintextScaling::new(moduli, &[1, 1], 0, 1).is_err());
        assert!(PlaintextScaling::new(moduli, &[1, 1], 0, 1 << 60).is_err());
        assert!(PlaintextScaling::new(moduli, &[1, 1], 17, 17).is_err());
        assert!(PlaintextScaling::new(moduli, &[1], 0, 17).is_err());
        assert!(PlaintextScaling::new(moduli, &[1, primes[1]], 0, 17).is_err());
        let scaling = PlaintextScaling::new(moduli, &[1, 1], 0, 17).unwrap();
        assert!(scaling.scale_host(&ring, &[0; 1023]).is_err());
        let other = RingContext::new(1024, &primes[..1], TransformKind::Ntt).unwrap();
        assert!(scaling.scale_host(&Arc::clone(&other), &[0; 1024]).is_err());
    }
}
