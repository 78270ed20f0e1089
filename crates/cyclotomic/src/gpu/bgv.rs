//! [`GpuBgv`]: BGV over `Z_Q[x]/Phi_m` on the GPU at the top level, the words of
//! [`Bgv`](crate::bgv::Bgv): public-key encryption (the seed thesis's operation), decryption,
//! addition and the tensor product; keys are made on the host and uploaded.
//!
//! Encryption on the device, per plaintext (`n = phi(m)` words modulo `t` uploaded):
//! `u`, `e_0`, `e_1` sampled by poly-cuda's ChaCha20 kernels on the ring `(M, Q)` (the words of
//! `poly::sampling` at every index, so coefficients `0 .. n` are those the CPU draws) ->
//! `cyc_pad_chirp` (`u`; `t e_0 + lift(m)`; `t e_1`) into one batch of three -> one
//! Bluestein convolution (NTT, kernel product, inverse NTT) -> `cyc_gather_chirp` (evaluations
//! at the primitive roots) -> `cyc_encrypt_combine` (`b u + e_0'`, `a u + e_1'`). Nothing waits
//! for the host until a download.
//!
//! Decryption: `cyc_phase` (`c_0 + c_1 s (+ c_2 s^2)`) -> the inverse transform and the
//! reduction modulo `Phi_m` on the device -> the `L n` coefficient words downloaded -> exact CRT
//! and reduction modulo `t` on the host ([`Bgv::crt_centered`](crate::bgv::Bgv::crt_centered)).
//! Relinearization and modulus switching run on the CPU (download, [`Bgv`], upload).

use std::sync::Arc;

use poly::{Coeff, Seed};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::{DevicePoly, GpuDevice};

use super::ring::{ForwardInput, GpuCyclotomic, backend_error, config, driver_error};
use crate::bgv::{Bgv, Ciphertext, PublicKey, SecretKey};
use crate::{CyclotomicError, Result};

/// A ciphertext on the device: `parts` polynomials `[parts][L][n]` (evaluations) at the top
/// level, with its correction factor.
#[derive(Debug)]
pub struct GpuCiphertext {
    data: CudaSlice<u64>,
    parts: usize,
    factor: u64,
}

impl GpuCiphertext {
    /// The device buffer, `[parts][L][n]`.
    pub fn device_buffer(&self) -> &CudaSlice<u64> {
        &self.data
    }

    /// The number of parts (2, or 3 after a product).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The correction factor.
    pub fn factor(&self) -> u64 {
        self.factor
    }
}

/// BGV over `Z_Q[x]/Phi_m` on one device (module docs).
#[derive(Debug)]
pub struct GpuBgv {
    bgv: Bgv,
    ring: GpuCyclotomic,
    /// `[b][a]`, `[2][L][n]`.
    pk: CudaSlice<u64>,
    /// `s` over `Q`, `[L][n]`, when decryption is wanted.
    sk: Option<CudaSlice<u64>>,
}

impl GpuBgv {
    /// The scheme of `bgv`'s parameters on `device` with the public key `pk` (and the secret
    /// key, for decryption), uploaded. `M` must be at least 2^10 (`m >= 513`).
    pub fn new(device: &Arc<GpuDevice>, bgv: &Bgv, pk: &PublicKey, sk: Option<&SecretKey>) -> Result<Self> {
        let ring = GpuCyclotomic::new(device, bgv.params().m(), bgv.params().primes())?;
        let len = bgv.limbs() * bgv.degree();
        if pk.a.len() != len || pk.b.len() != len {
            return Err(CyclotomicError::LengthMismatch { what: "public key", expected: len, actual: pk.a.len() });
        }
        let stream = device.stream();
        let upload = |words: &[u64]| stream.clone_htod(words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        let pk = upload(&[pk.b.as_slice(), pk.a.as_slice()].concat())?;
        let sk = sk.map(|sk| upload(&sk.evaluations()[..len])).transpose()?;
        Ok(Self { bgv: bgv.clone(), ring, pk, sk })
    }

    /// The CPU scheme of the same parameters.
    pub fn cpu(&self) -> &Bgv {
        &self.bgv
    }

    /// The ring on the device.
    pub fn ring(&self) -> &GpuCyclotomic {
        &self.ring
    }

    fn len(&self) -> usize {
        self.ring.limbs() * self.ring.degree()
    }

    /// `plain` (`phi(m)` values below `t`) copied to the device.
    pub fn upload_plaintext(&self, plain: &[u64]) -> Result<CudaSlice<u64>> {
        let (n, t) = (self.ring.degree(), self.bgv.params().t());
        if plain.len() != n {
            return Err(CyclotomicError::LengthMismatch { what: "plaintext", expected: n, actual: plain.len() });
        }
        if let Some(&bad) = plain.iter().find(|&&v| v >= t) {
            return Err(CyclotomicError::InvalidParameter {
                name: "plaintext value",
                value: bad,
                requirement: format!("must be below t = {t}"),
            });
        }
        self.ring.device().stream().clone_htod(plain).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
    }

    /// Public-key encryption of a plaintext already on the device (`n` words below `t`, not
    /// checked again), with the randomness of `(seed, counter)`: the words of
    /// [`Bgv::encrypt`](crate::bgv::Bgv::encrypt). Only queues work.
    pub fn encrypt_device(&self, plain: &CudaSlice<u64>, seed: &Seed, counter: u64) -> Result<GpuCiphertext> {
        let (n, big_m, t) = (self.ring.degree(), self.ring.convolution_length(), self.bgv.params().t());
        if plain.len() != n {
            return Err(CyclotomicError::LengthMismatch { what: "plaintext", expected: n, actual: plain.len() });
        }
        let context = self.ring.context();
        let u = DevicePoly::<Coeff>::sample_ternary(context, seed, 3 * counter).map_err(backend_error)?;
        let e0 = DevicePoly::<Coeff>::sample_cbd(context, seed, 3 * counter + 1).map_err(backend_error)?;
        let e1 = DevicePoly::<Coeff>::sample_cbd(context, seed, 3 * counter + 2).map_err(backend_error)?;
        let inputs = [
            ForwardInput { x: u.device_buffer(), stride: big_m, scale: 1, msg: None },
            ForwardInput { x: e0.device_buffer(), stride: big_m, scale: t, msg: Some((plain, t)) },
            ForwardInput { x: e1.device_buffer(), stride: big_m, scale: t, msg: None },
        ];
        let values = self.ring.forward_batch(&inputs)?;
        let len = self.len();
        let mut data = self.ring.alloc(2 * len)?;
        let stream = self.ring.device().stream();
        let (n64, limbs) = (n as u64, self.ring.limbs() as u64);
        let mut launch = self.ring.kernels().cyc_encrypt_combine.builder(stream);
        launch.arg(&mut data).arg(&self.pk).arg(&values).arg(self.ring.context().moduli_table()).arg(&n64).arg(&limbs);
        // SAFETY: matches `cyc_encrypt_combine(u64* c, const u64* pk, const u64* v, const Modulus*
        // moduli, u64 n, u64 limbs)`: `data` and `pk` hold 2 L n words, `values` 3 L n (the
        // batch of three), the moduli table L triples; the kernel writes all of `data`.
        unsafe { launch.launch(config(len)) }.map_err(backend_error)?;
        Ok(GpuCiphertext { data, parts: 2, factor: 1 })
    }

    /// [`encrypt_device`](Self::encrypt_device) of a host plaintext (checked, then uploaded).
    pub fn encrypt(&self, plain: &[u64], seed: &Seed, counter: u64) -> Result<GpuCiphertext> {
        let plain = self.upload_plaintext(plain)?;
        self.encrypt_device(&plain, seed, counter)
    }

    /// The ciphertext on the host (top level).
    pub fn download(&self, ct: &GpuCiphertext) -> Result<Ciphertext> {
        let words = self.ring.device().download_words(&ct.data).map_err(backend_error)?;
        let parts = words.chunks_exact(self.len()).map(<[u64]>::to_vec).collect();
        Ok(Ciphertext { parts, level: self.bgv.limbs() - 1, factor: ct.factor })
    }

    /// A host ciphertext of the top level on the device.
    pub fn upload(&self, ct: &Ciphertext) -> Result<GpuCiphertext> {
        let len = self.len();
        if ct.level + 1 != self.bgv.limbs() || ct.parts.iter().any(|p| p.len() != len) || ct.parts.is_empty() {
            return Err(CyclotomicError::InvalidParameter {
                name: "level",
                value: ct.level as u64,
                requirement: format!("the GPU holds top-level ciphertexts of {len} words per part"),
            });
        }
        let words = ct.parts.concat();
        let data = self.ring.device().stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
        Ok(GpuCiphertext { data, parts: ct.parts.len(), factor: ct.factor })
    }

    /// `a + b` (the same number of parts and the same correction factor).
    pub fn add(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        if a.parts != b.parts || a.factor != b.factor {
            return Err(CyclotomicError::InvalidParameter {
                name: "parts or factor",
                value: b.factor,
                requirement: "the GPU adds ciphertexts of equal parts and correction factors".to_string(),
            });
        }
        let len = a.parts * self.len();
        let mut data = self.ring.alloc(len)?;
        let stream = self.ring.device().stream();
        let (n, limbs, count) = (self.ring.degree() as u64, self.ring.limbs() as u64, a.parts as u64);
        let mut launch = self.ring.kernels().cyc_add.builder(stream);
        launch
            .arg(&mut data)
            .arg(&a.data)
            .arg(&b.data)
            .arg(self.ring.context().moduli_table())
            .arg(&n)
            .arg(&limbs)
            .arg(&count);
        // SAFETY: matches `cyc_add(u64* out, const u64* a, const u64* b, const Modulus* moduli,
        // u64 n, u64 limbs, u64 count)`: all three buffers hold parts L n words (equal parts
        // checked), the moduli table L triples.
        unsafe { launch.launch(config(len)) }.map_err(backend_error)?;
        Ok(GpuCiphertext { data, parts: a.parts, factor: a.factor })
    }

    /// The tensor product of two 2-part ciphertexts (3 parts, factor `f_a f_b mod t`): the words
    /// of [`Bgv::mul`](crate::bgv::Bgv::mul) at the top level.
    pub fn mul(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        if a.parts != 2 || b.parts != 2 {
            return Err(CyclotomicError::InvalidParameter {
                name: "ciphertext parts",
                value: a.parts.max(b.parts) as u64,
                requirement: "must be 2".to_string(),
            });
        }
        let len = self.len();
        let mut data = self.ring.alloc(3 * len)?;
        let stream = self.ring.device().stream();
        let (n, limbs) = (self.ring.degree() as u64, self.ring.limbs() as u64);
        let mut launch = self.ring.kernels().cyc_tensor.builder(stream);
        launch.arg(&mut data).arg(&a.data).arg(&b.data).arg(self.ring.context().moduli_table()).arg(&n).arg(&limbs);
        // SAFETY: matches `cyc_tensor(u64* out, const u64* c, const u64* d, const Modulus* moduli,
        // u64 n, u64 limbs)`: `a` and `b` hold 2 L n words (2 parts checked), `data` 3 L n, which
        // the kernel writes in full.
        unsafe { launch.launch(config(len)) }.map_err(backend_error)?;
        let t = self.bgv.params().t();
        let factor = (u128::from(a.factor) * u128::from(b.factor) % u128::from(t)) as u64;
        Ok(GpuCiphertext { data, parts: 3, factor })
    }

    /// The phase's coefficients modulo each `q_i` (`[L][n]`), computed on the device.
    pub fn phase_coefficients(&self, ct: &GpuCiphertext) -> Result<Vec<u64>> {
        let Some(sk) = &self.sk else {
            return Err(CyclotomicError::InvalidParameter {
                name: "secret key",
                value: 0,
                requirement: "decryption needs the secret key given to GpuBgv::new".to_string(),
            });
        };
        let len = self.len();
        let mut phase = self.ring.alloc(len)?;
        let stream = self.ring.device().stream();
        let (n, limbs, parts) = (self.ring.degree() as u64, self.ring.limbs() as u64, ct.parts as u64);
        let mut launch = self.ring.kernels().cyc_phase.builder(stream);
        launch
            .arg(&mut phase)
            .arg(&ct.data)
            .arg(sk)
            .arg(self.ring.context().moduli_table())
            .arg(&n)
            .arg(&limbs)
            .arg(&parts);
        // SAFETY: matches `cyc_phase(u64* out, const u64* c, const u64* s, const Modulus* moduli,
        // u64 n, u64 limbs, u64 parts)`: `ct` holds parts L n words (made so by this type), `sk`
        // and `phase` L n; the kernel writes all of `phase`.
        unsafe { launch.launch(config(len)) }.map_err(backend_error)?;
        let coefficients = self.ring.inverse_device(&phase, 1)?;
        self.ring.device().download_words(&coefficients).map_err(backend_error)
    }

    /// Decryption: `phi(m)` values modulo `t` (module docs).
    pub fn decrypt(&self, ct: &GpuCiphertext) -> Result<Vec<u64>> {
        let coefficients = self.phase_coefficients(ct)?;
        let phase = self.bgv.crt_centered(&coefficients, self.bgv.limbs() - 1);
        self.bgv.phase_to_plain(&phase, ct.factor)
    }
}
