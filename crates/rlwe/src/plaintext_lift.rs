//! The plaintext lift every scheme shares: a plaintext `m` (`N` coefficients in `[0, t)`) as
//! a polynomial over the ciphertext modulus `q`, scaled (BFV's `round(q m / t)`) or lifted to
//! `(-t/2, t/2]` (the operand of a plaintext product, and BGV's message term), on the host or
//! where the backend keeps its data ([`PlaintextBackend`]), and plaintext words kept on the
//! backend (resident plaintexts: on the GPU the `N` words never cross the bus).
//!
//! [`PlaintextScaling`] holds the constants, prepared once per context (BGV passes ones as
//! `floor(q/t)`: it only lifts). [`PlaintextBackend::embed_plaintext`]'s provided method computes
//! on the host and uploads; the GPU computes where its data is (`kernels/plaintext.cu`), with
//! the same words.

use poly::{Coeff, CpuBackend, Poly};

use crate::backend::RlweBackend;
use crate::{Result, RlweError};

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
    /// (one per prime, canonical), `q_mod_t = q mod t` and `t`. Errors (as [`RlweError::Poly`])
    /// with `LengthMismatch` or `CoefficientOutOfRange` on a wrong `delta`, and with
    /// `InvalidParameter` unless `2 <= t < 2^60` and `q_mod_t < t`.
    pub fn new(moduli: &[modarith::Modulus], delta: &[u64], q_mod_t: u64, plaintext_modulus: u64) -> Result<Self> {
        if !(2..1u64 << 60).contains(&plaintext_modulus) {
            return Err(RlweError::Poly(poly::PolyError::InvalidParameter {
                name: "plaintext modulus",
                value: plaintext_modulus,
                reason: "must satisfy 2 <= t < 2^60",
            }));
        }
        if q_mod_t >= plaintext_modulus {
            return Err(RlweError::Poly(poly::PolyError::InvalidParameter {
                name: "q mod t",
                value: q_mod_t,
                reason: "must be below t",
            }));
        }
        if delta.len() != moduli.len() {
            return Err(RlweError::Poly(poly::PolyError::LengthMismatch {
                expected: moduli.len(),
                actual: delta.len(),
            }));
        }
        let mut delta_table = Vec::with_capacity(2 * delta.len());
        for (limb, (&d, m)) in delta.iter().zip(moduli).enumerate() {
            if d >= m.value() {
                return Err(RlweError::Poly(poly::PolyError::CoefficientOutOfRange {
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
    /// and with [`RlweError::PlaintextOutOfRange`] on a coefficient not below `t`.
    pub fn scale_host(&self, ring: &std::sync::Arc<poly::RingContext>, coefficients: &[u64]) -> Result<Poly<Coeff>> {
        let n = ring.degree();
        if coefficients.len() != n {
            return Err(RlweError::Poly(poly::PolyError::LengthMismatch { expected: n, actual: coefficients.len() }));
        }
        if self.delta_table.len() != 2 * ring.num_limbs() {
            return Err(RlweError::Poly(poly::PolyError::LengthMismatch {
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
    /// coefficients, and with [`RlweError::PlaintextOutOfRange`] on a coefficient not below `t`.
    pub fn lift_host(&self, ring: &std::sync::Arc<poly::RingContext>, coefficients: &[u64]) -> Result<Poly<Coeff>> {
        let t = self.plaintext_modulus;
        if coefficients.len() != ring.degree() {
            return Err(RlweError::Poly(poly::PolyError::LengthMismatch {
                expected: ring.degree(),
                actual: coefficients.len(),
            }));
        }
        check_below_t(coefficients, t)?;
        let centered: Vec<i64> = coefficients.iter().map(|&m| crate::slots::center(m, t)).collect();
        Ok(Poly::from_signed_coeffs(ring, &centered)?)
    }
}

/// Errors with [`RlweError::PlaintextOutOfRange`] naming the first coefficient not below `t`.
fn check_below_t(coefficients: &[u64], t: u64) -> Result<()> {
    match coefficients.iter().position(|&m| m >= t) {
        Some(index) => Err(RlweError::PlaintextOutOfRange { index, value: coefficients[index], modulus: t }),
        None => Ok(()),
    }
}

/// How a plaintext `m` becomes a polynomial over `q` ([`PlaintextBackend::embed_plaintext`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlaintextEmbedding {
    /// `round(q m / t)` (encryption, plaintext addition): [`PlaintextScaling::scale_host`].
    Scaled,
    /// `m` lifted to `(-t/2, t/2]` (plaintext multiplication): [`PlaintextScaling::lift_host`].
    Lifted,
}

/// Where a plaintext's `N` coefficients are: on the host, or on the backend
/// (a resident plaintext's words).
#[derive(Debug)]
pub enum PlaintextWords<'a, B: PlaintextBackend> {
    /// Host coefficients.
    Host(&'a [u64]),
    /// Coefficients on the backend.
    Resident(&'a B::PlainWords),
}

impl<B: PlaintextBackend> Clone for PlaintextWords<'_, B> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<B: PlaintextBackend> Copy for PlaintextWords<'_, B> {}

/// A backend's plaintext words and plaintext embedding: the core's [`RlweBackend`] plus where a
/// plaintext lives on it. The provided methods work on the host (download, compute, upload);
/// a device backend overrides them with code that gives the same words.
pub trait PlaintextBackend: RlweBackend {
    /// The `N` coefficients (in `[0, t)`) of a plaintext kept where the backend keeps its
    /// data, for a resident plaintext: a host vector on the CPU, a
    /// device buffer on the GPU.
    type PlainWords: Send + Sync + Clone;

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
        let host = self.download(&poly).map_err(RlweError::from_backend)?;
        check_one_prime(host.context().num_limbs(), host.context().degree())?;
        self.upload_plain_words(host.as_slice())
    }

    /// A copy of `words` as a polynomial over `context`, a one-prime ring whose prime exceeds
    /// every word (the plaintext ring `Z_t[x]`). Errors on a wrong length, or (on the CPU) a
    /// word not below the prime.
    fn poly_from_plain_words(&self, context: &Self::Context, words: &Self::PlainWords) -> Result<Self::Poly<Coeff>> {
        let host = Poly::from_limbs(self.ring(context), self.download_plain_words(words)?)?;
        self.upload(context, &host).map_err(RlweError::from_backend)
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
        self.upload(context, &host).map_err(RlweError::from_backend)
    }
}

impl PlaintextBackend for CpuBackend {
    type PlainWords = Vec<u64>;

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

/// The GPU keeps plaintext words in device memory and embeds a plaintext with one kernel of
/// `kernels/plaintext.cu`, word for word what the CPU computes.
#[cfg(feature = "cuda")]
impl PlaintextBackend for poly_cuda::GpuBackend {
    type PlainWords = poly_cuda::cudarc::driver::CudaSlice<u64>;

    fn upload_plain_words(&self, coefficients: &[u64]) -> Result<Self::PlainWords> {
        self.device()
            .stream()
            .clone_htod(coefficients)
            .map_err(|e| RlweError::from_backend(poly_cuda::GpuError::driver("cuMemcpyHtoDAsync", e)))
    }

    fn download_plain_words(&self, words: &Self::PlainWords) -> Result<Vec<u64>> {
        let device = self.device();
        if !std::sync::Arc::ptr_eq(words.stream(), device.stream()) {
            return Err(RlweError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        device.download_words(words).map_err(RlweError::from_backend)
    }

    fn plain_words_from_poly(&self, poly: poly_cuda::DevicePoly<Coeff>) -> Result<Self::PlainWords> {
        if !std::sync::Arc::ptr_eq(poly.context().device(), self.device()) {
            return Err(RlweError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        check_one_prime(poly.context().num_limbs(), poly.context().degree())?;
        let context = poly.context().clone();
        context.row_words(poly.into_device_buffer()).map_err(RlweError::from_backend)
    }

    fn poly_from_plain_words(
        &self,
        context: &poly_cuda::GpuContext,
        words: &Self::PlainWords,
    ) -> Result<poly_cuda::DevicePoly<Coeff>> {
        let device = self.device();
        if !std::sync::Arc::ptr_eq(context.device(), device) || !std::sync::Arc::ptr_eq(words.stream(), device.stream())
        {
            return Err(RlweError::from_backend(poly_cuda::GpuError::WrongContext));
        }
        check_one_prime(context.num_limbs(), context.degree())?;
        // The words are below t, the ring's one prime (the caller's ring is the plaintext ring),
        // in the context's row (padded over a ring Z_t[x]/Phi_m).
        let copy = match context.padded_row(words).map_err(RlweError::from_backend)? {
            Some(padded) => padded,
            None => device
                .stream()
                .clone_dtod(words)
                .map_err(|e| RlweError::from_backend(poly_cuda::GpuError::driver("cuMemcpyDtoDAsync", e)))?,
        };
        poly_cuda::DevicePoly::from_device_buffer(context, copy).map_err(RlweError::from_backend)
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
}

/// Launches `plaintext_scale` or `plaintext_lift` of `kernels/plaintext.cu` for `backend`
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
        return Err(RlweError::from_backend(GpuError::WrongContext));
    }

    let ring = context.ring();
    // `n` coefficients in; rows of `row` words out (padded over a ring Z_q[x]/Phi_m, where the
    // kernel reads zeros past `n` and writes their zero embeddings).
    let (n, limbs, row) = (ring.degree(), ring.num_limbs(), context.degree());
    let given = match source {
        PlaintextWords::Host(coefficients) => coefficients.len(),
        PlaintextWords::Resident(words) => words.len(),
    };
    if given != n {
        return Err(RlweError::Poly(poly::PolyError::LengthMismatch { expected: n, actual: given }));
    }
    if scaling.delta_table().len() != 2 * limbs {
        return Err(RlweError::Poly(poly::PolyError::LengthMismatch {
            expected: limbs,
            actual: scaling.delta_table().len() / 2,
        }));
    }
    let device = context.device();
    let stream = device.stream();
    if let PlaintextWords::Resident(words) = source
        && !std::sync::Arc::ptr_eq(words.stream(), stream)
    {
        return Err(RlweError::from_backend(GpuError::WrongContext));
    }
    let t = scaling.plaintext_modulus();
    // floor(2^128 / t) = floor((2^128 - 1) / t), plus one when t divides 2^128 (t a power of two).
    let barrett = u128::MAX / u128::from(t) + u128::from(u128::MAX % u128::from(t) == u128::from(t) - 1);
    let (t_barrett_hi, t_barrett_lo) = ((barrett >> 64) as u64, barrett as u64);
    let (q_mod_t, half_t) = (scaling.q_mod_t(), scaling.half_plaintext_modulus());
    let (log_n, limbs_arg) = (row.trailing_zeros() as i32, limbs as i32);

    let mut upload = Vec::with_capacity(row + 2 * limbs);
    if let PlaintextWords::Host(coefficients) = source {
        upload.extend_from_slice(coefficients);
        upload.resize(row, 0);
    }
    upload.extend_from_slice(scaling.delta_table());
    let uploaded =
        stream.clone_htod(&upload).map_err(|e| RlweError::from_backend(GpuError::driver("cuMemcpyHtoDAsync", e)))?;
    let padded_words = match source {
        PlaintextWords::Resident(words) => context.padded_row(words).map_err(RlweError::from_backend)?,
        PlaintextWords::Host(_) => None,
    };
    let (coefficients, delta) = match (source, &padded_words) {
        (PlaintextWords::Host(_), _) => (uploaded.slice(..row), uploaded.slice(row..)),
        (PlaintextWords::Resident(_), Some(padded)) => (padded.slice(..), uploaded.slice(..)),
        (PlaintextWords::Resident(words), None) => (words.slice(..), uploaded.slice(..)),
    };
    // SAFETY: the kernel writes every one of the L N values (each coefficient in every limb)
    // before anything reads them.
    let mut out = unsafe { stream.alloc::<u64>(row * limbs) }
        .map_err(|e| RlweError::from_backend(GpuError::alloc(row * limbs * size_of::<u64>(), e)))?;
    poly_cuda::kernel_set! {
        /// The kernels of `kernels/plaintext.cu`, loaded once per device.
        struct PlaintextKernels(poly_cuda::hegpu_kernels::PLAINTEXT) { plaintext_scale, plaintext_lift }
    }
    let kernels = device.kernel_set::<PlaintextKernels>().map_err(RlweError::from_backend)?;
    let kernel = match embedding {
        PlaintextEmbedding::Scaled => &kernels.plaintext_scale,
        PlaintextEmbedding::Lifted => &kernels.plaintext_lift,
    };
    let config = poly_cuda::kernel::linear_config(row, u32::MAX as usize);
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
    // SAFETY: matches `plaintext_scale` and `plaintext_lift` (u64* out, const u64*
    // coefficients, const u64* delta, const Modulus* moduli, int log_n, int limbs, u64 t,
    // u64 t_barrett_hi, u64 t_barrett_lo, u64 q_mod_t, u64 half_t) in kernels/plaintext.cu: `out` holds L N words (the most the kernel
    // writes), `coefficients` N words and `delta` the 2 L delta pairs (lengths checked above),
    // the moduli table L triples {p, barrett_hi, barrett_lo}; N = 2^log_n. 2 <= t < 2^60 and
    // q_mod_t < t (PlaintextScaling::new), so every quotient the kernel forms is below 2^64.
    // Every buffer is on the device's single stream (a resident plaintext's was checked above),
    // which the launch uses.
    unsafe { builder.launch(config) }.map_err(RlweError::from_backend)?;
    poly_cuda::DevicePoly::from_device_buffer(context, out).map_err(RlweError::from_backend)
}

/// Errors with `LengthMismatch` (expected `N` words, given `limbs * N`) unless a ring has one
/// prime: the plaintext ring `Z_t[x]` whose polynomials are plaintext words.
fn check_one_prime(limbs: usize, degree: usize) -> Result<()> {
    if limbs == 1 {
        return Ok(());
    }
    Err(RlweError::Poly(poly::PolyError::LengthMismatch { expected: degree, actual: limbs * degree }))
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use num_bigint::BigUint;
    use poly::{RingContext, TransformKind};
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;

    fn biguint_mod(x: &BigUint, m: u64) -> u64 {
        u64::try_from(x % m).unwrap()
    }

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
            let delta: Vec<u64> = primes.iter().map(|&p| biguint_mod(&(&q / t), p)).collect();
            let scaling = PlaintextScaling::new(ring.moduli(), &delta, biguint_mod(&q, t), t).unwrap();
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
                    let expected = biguint_mod(&exact, p);
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
                    Err(RlweError::PlaintextOutOfRange { index: 5, value, modulus: 17 }) => assert_eq!(value, bad),
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
