//! [`GpuBgv`]: BGV over `Z_Q[x]/Phi_m` on the GPU, the words of [`Bgv`](crate::bgv::Bgv) at
//! every step: public-key encryption (Dong's thesis's operation), decryption, addition, the
//! tensor product, relinearization and modulus switching; keys are made on the host and
//! uploaded. A whole circuit runs on the device; only plaintexts go up and `phi(m)` words per
//! decryption come down.
//!
//! Encryption on the device, per plaintext (`n = phi(m)` words modulo `t` uploaded):
//! `u`, `e_0`, `e_1` sampled by poly-cuda's ChaCha20 kernels on the ring `(M, Q)` (the words of
//! `poly::sampling` at every index, so coefficients `0 .. n` are those the CPU draws) ->
//! `cyc_pad_chirp` (`u`; `t e_0 + lift(m)`; `t e_1`) into one batch of three -> one
//! Bluestein convolution (NTT, kernel product, inverse NTT) -> `cyc_gather_chirp` (evaluations
//! at the primitive roots) -> `cyc_encrypt_combine` (`b u + e_0'`, `a u + e_1'`). Nothing waits
//! for the host until a download.
//!
//! Relinearization at level `l` (`k = l + 1` primes; [`Bgv::relinearize`](crate::bgv::Bgv::relinearize)):
//! the inverse transform of `c_2` over `q_0 .. q_l` (digit `i`: its coefficients modulo `q_i`)
//! -> `cyc_digit_spread` (every digit reduced into `q_0 .. q_l, P`) -> one forward batch of `k`
//! polynomials over `q_0 .. q_l, P` -> `cyc_keyswitch_inner` (the inner product with the key's
//! digits) -> ModDown: the inverse transform over `P` alone of the two `P` limbs,
//! `cyc_moddown_lift` (`r = [x_P t^-1]_P` centered, into `q_0 .. q_l`), a forward batch of two,
//! `cyc_moddown_combine` (`(x - t r) P^-1 + c_{0,1}`). Modulus switching is the same ModDown with
//! the last prime `q_l` in place of `P` (no addend), and the correction factor times
//! `q_l^-1 mod t`.
//!
//! Decryption: `cyc_phase` (`c_0 + c_1 s (+ c_2 s^2)`) -> the inverse transform and the
//! reduction modulo `Phi_m` -> rows padded to `phi(m)` rounded up to a power of two (when it is
//! not one) -> `bgv_reduce_phase` of `kernels/bgv.cu` (the power-of-two BGV's exact CRT of the
//! centered phase modulo `t`, queued by bgv-encrypt's `backend::queue_phase_reduction` with
//! the level's [`DecryptionTables`]) -> the
//! `phi(m)` plaintext words downloaded.
//!
//! The rings of the lower levels (`q_0 .. q_l`), of the single primes and of `q_0 .. q_l, P`
//! are made on first use (modulus switching, decryption below the top, relinearization), so
//! encryption alone uploads only the top level's tables.

use std::sync::{Arc, OnceLock};

use bgv_encrypt::DecryptionTables;
use modarith::Modulus;
use poly::{Coeff, Seed};
use poly_cuda::cudarc::driver::CudaSlice;
use poly_cuda::kernel::address;
use poly_cuda::{DevicePoly, GpuDevice};

use poly_cuda::bluestein::{ForwardInput, GpuCyclotomic};
use poly_cuda::cudarc::driver::LaunchConfig;
use poly_cuda::kernel::linear_config;

use crate::bgv::{Bgv, Ciphertext, PublicKey, RelinKey, SecretKey, inverse_mod};
use crate::{CyclotomicError, Result};

fn driver_error(call: &'static str, error: poly_cuda::cudarc::driver::DriverError) -> CyclotomicError {
    poly_cuda::GpuError::driver(call, error).into()
}

poly_cuda::kernel_set! {
    /// The BGV kernels of `kernels/cyclotomic.cu` (the transforms' are the ring layer's,
    /// `poly_cuda::bluestein::BluesteinKernels`).
    pub struct CyclotomicKernels(poly_cuda::hegpu_kernels::CYCLOTOMIC) {
        cyc_encrypt_combine,
        cyc_add,
        cyc_tensor,
        cyc_phase,
        cyc_digit_spread,
        cyc_keyswitch_inner,
        cyc_moddown_lift,
        cyc_moddown_combine,
    }
}

/// Blocks of a grid-stride launch over `items` words.
fn config(items: usize) -> LaunchConfig {
    linear_config(items, 1 << 16)
}

/// A fresh device buffer of `len` words on `ring`'s device that the caller's next kernel writes
/// in full (every call site here queues such a kernel at once).
fn alloc(ring: &GpuCyclotomic, len: usize) -> Result<CudaSlice<u64>> {
    // SAFETY: every caller in this module queues a kernel writing all `len` words before
    // anything reads them (each call site says which).
    Ok(unsafe { ring.alloc(len) }?)
}

fn invalid(name: &'static str, value: u64, requirement: impl Into<String>) -> CyclotomicError {
    CyclotomicError::InvalidParameter { name, value, requirement: requirement.into() }
}

fn mul_mod(a: u64, b: u64, t: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(t)) as u64
}

/// Decryption at one level: bgv-encrypt's tables of `q_0 .. q_l` and `t`, and their per-limb
/// words on the device.
#[derive(Debug)]
struct Decryption {
    tables: DecryptionTables,
    per_limb: CudaSlice<u64>,
}

/// The rings below the top level and of single primes, with the ModDown constants (built on
/// first use).
#[derive(Debug)]
struct Lower {
    /// `levels[l]`: `q_0 .. q_l`, `l < L - 1` (the top level is [`GpuBgv::ring`]).
    levels: Vec<GpuCyclotomic>,
    /// The rings of `q_1 .. q_{L-1}` and `P` alone: index `r - 1` for ring `r` (`L`: `P`).
    singles: Vec<GpuCyclotomic>,
    /// `switch[l - 1]` (`1 <= l < L`): `[l][2]` = `{t mod q_j, q_l^-1 mod q_j}`, `j < l`.
    switch: Vec<CudaSlice<u64>>,
    /// `down[l]`: `[l + 1][2]` = `{t mod q_j, P^-1 mod q_j}`, `j <= l`.
    down: Vec<CudaSlice<u64>>,
}

/// The relinearization key on the device and the rings `q_0 .. q_l, P` of every level.
#[derive(Debug)]
struct KeySwitch {
    /// `extended[l]`: `q_0 .. q_l, P`.
    extended: Vec<GpuCyclotomic>,
    /// `[L][2][L + 1][n]`: digit `i`'s `(k_0, k_1)`.
    key: CudaSlice<u64>,
}

/// A ciphertext on the device: `parts` polynomials `[parts][level + 1][n]` (evaluations over
/// `q_0 .. q_level`), with its correction factor.
#[derive(Debug)]
pub struct GpuCiphertext {
    data: CudaSlice<u64>,
    parts: usize,
    level: usize,
    factor: u64,
}

impl GpuCiphertext {
    /// The device buffer, `[parts][level + 1][n]`.
    pub fn device_buffer(&self) -> &CudaSlice<u64> {
        &self.data
    }

    /// The number of parts (2, or 3 after a product).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The index of the last prime.
    pub fn level(&self) -> usize {
        self.level
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
    kernels: Arc<CyclotomicKernels>,
    /// `[b][a]`, `[2][L][n]`.
    pk: CudaSlice<u64>,
    /// `s` over `Q`, `[L][n]`, when decryption is wanted.
    sk: Option<CudaSlice<u64>>,
    /// Per level `l`: the decryption tables of `q_0 .. q_l`.
    decryption: Vec<Decryption>,
    lower: OnceLock<Lower>,
    keyswitch: Option<KeySwitch>,
}

impl GpuBgv {
    /// The scheme of `bgv`'s parameters on `device` with the public key `pk` (and the secret
    /// key, for decryption), uploaded. `M` must be at least 2^10 (`m >= 513`). Relinearization
    /// needs [`set_relin_key`](Self::set_relin_key) as well.
    pub fn new(device: &Arc<GpuDevice>, bgv: &Bgv, pk: &PublicKey, sk: Option<&SecretKey>) -> Result<Self> {
        let l = bgv.limbs();
        let ring = GpuCyclotomic::from_rings(device, bgv.params().m(), bgv.rings()[..l].to_vec())?;
        let kernels = device.kernel_set::<CyclotomicKernels>()?;
        let len = l * bgv.degree();
        if pk.a.len() != len || pk.b.len() != len {
            return Err(CyclotomicError::LengthMismatch { what: "public key", expected: len, actual: pk.a.len() });
        }
        let stream = device.stream();
        let upload = |words: &[u64]| stream.clone_htod(words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e));
        let pk = upload(&[pk.b.as_slice(), pk.a.as_slice()].concat())?;
        let sk = sk.map(|sk| upload(&sk.evaluations()[..len])).transpose()?;
        let primes = bgv.params().primes();
        let decryption = (0..l)
            .map(|level| {
                let tables = DecryptionTables::new(&primes[..=level], bgv.params().t())
                    .map_err(|e| CyclotomicError::Backend(Box::new(e)))?;
                let per_limb = upload(tables.per_limb())?;
                Ok(Decryption { tables, per_limb })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { bgv: bgv.clone(), ring, kernels, pk, sk, decryption, lower: OnceLock::new(), keyswitch: None })
    }

    /// Uploads the relinearization key (and makes the rings `q_0 .. q_l, P` of every level).
    /// Errors with [`CyclotomicError::LengthMismatch`] for a key of other parameters.
    pub fn set_relin_key(&mut self, rk: &RelinKey) -> Result<()> {
        let (l, n, m) = (self.bgv.limbs(), self.bgv.degree(), self.bgv.params().m());
        let per_part = (l + 1) * n;
        if rk.digits.len() != l {
            return Err(CyclotomicError::LengthMismatch {
                what: "relinearization key digits",
                expected: l,
                actual: rk.digits.len(),
            });
        }
        if let Some((k0, k1)) = rk.digits.iter().find(|(k0, k1)| k0.len() != per_part || k1.len() != per_part) {
            return Err(CyclotomicError::LengthMismatch {
                what: "relinearization key part",
                expected: per_part,
                actual: k0.len().min(k1.len()),
            });
        }
        let words: Vec<u64> = rk.digits.iter().flat_map(|(k0, k1)| k0.iter().chain(k1).copied()).collect();
        let device = self.ring.device();
        let key = device.stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
        let rings = self.bgv.rings();
        let extended = (0..l)
            .map(|level| {
                let chosen = rings[..=level].iter().chain([&rings[l]]).cloned().collect();
                Ok(GpuCyclotomic::from_rings(device, m, chosen)?)
            })
            .collect::<Result<Vec<_>>>()?;
        self.keyswitch = Some(KeySwitch { extended, key });
        Ok(())
    }

    /// The lower rings and ModDown tables, made on first use.
    fn lower(&self) -> Result<&Lower> {
        if let Some(lower) = self.lower.get() {
            return Ok(lower);
        }
        let (l, m, t) = (self.bgv.limbs(), self.bgv.params().m(), self.bgv.params().t());
        let device = self.ring.device();
        let rings = self.bgv.rings();
        let levels = (0..l - 1)
            .map(|level| Ok(GpuCyclotomic::from_rings(device, m, rings[..=level].to_vec())?))
            .collect::<Result<Vec<_>>>()?;
        let singles = (1..=l)
            .map(|r| Ok(GpuCyclotomic::from_rings(device, m, vec![rings[r].clone()])?))
            .collect::<Result<Vec<_>>>()?;
        // {t mod q_j, p^-1 mod q_j} for j < keep, p the prime of ring `last`.
        let table = |keep: usize, last: usize| -> Result<CudaSlice<u64>> {
            let p = rings[last].modulus().value();
            let mut words = Vec::with_capacity(2 * keep);
            for ring in &rings[..keep] {
                let q = ring.modulus();
                words.extend([q.reduce(t), q.inv(q.reduce(p))?]);
            }
            device.stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
        };
        let switch = (1..l).map(|level| table(level, level)).collect::<Result<Vec<_>>>()?;
        let down = (0..l).map(|level| table(level + 1, l)).collect::<Result<Vec<_>>>()?;
        let built = Lower { levels, singles, switch, down };
        Ok(self.lower.get_or_init(|| built))
    }

    /// The ring `q_0 .. q_level`.
    fn ring_at(&self, level: usize) -> Result<&GpuCyclotomic> {
        let top = self.bgv.limbs() - 1;
        if level > top {
            return Err(invalid("level", level as u64, format!("must be at most {top}")));
        }
        if level == top { Ok(&self.ring) } else { Ok(&self.lower()?.levels[level]) }
    }

    /// The CPU scheme of the same parameters.
    pub fn cpu(&self) -> &Bgv {
        &self.bgv
    }

    /// The ring on the device.
    pub fn ring(&self) -> &GpuCyclotomic {
        &self.ring
    }

    /// `L n`, the words of one part at the top level.
    fn len(&self) -> usize {
        self.ring.limbs() * self.ring.degree()
    }

    fn stream(&self) -> &Arc<poly_cuda::cudarc::driver::CudaStream> {
        self.ring.device().stream()
    }

    /// `plain` (`phi(m)` values below `t`) copied to the device.
    pub fn upload_plaintext(&self, plain: &[u64]) -> Result<CudaSlice<u64>> {
        let (n, t) = (self.ring.degree(), self.bgv.params().t());
        if plain.len() != n {
            return Err(CyclotomicError::LengthMismatch { what: "plaintext", expected: n, actual: plain.len() });
        }
        if let Some(&bad) = plain.iter().find(|&&v| v >= t) {
            return Err(invalid("plaintext value", bad, format!("must be below t = {t}")));
        }
        self.stream().clone_htod(plain).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))
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
        let u = DevicePoly::<Coeff>::sample_ternary(context, seed, 3 * counter)?;
        let e0 = DevicePoly::<Coeff>::sample_cbd(context, seed, 3 * counter + 1)?;
        let e1 = DevicePoly::<Coeff>::sample_cbd(context, seed, 3 * counter + 2)?;
        let inputs = [
            ForwardInput { x: u.device_buffer(), stride: big_m, scale: 1, msg: None },
            ForwardInput { x: e0.device_buffer(), stride: big_m, scale: t, msg: Some((plain, t)) },
            ForwardInput { x: e1.device_buffer(), stride: big_m, scale: t, msg: None },
        ];
        let values = self.ring.forward_batch(&inputs)?;
        let len = self.len();
        let mut data = alloc(&self.ring, 2 * len)?;
        let (n64, limbs) = (n as u64, self.ring.limbs() as u64);
        let mut launch = self.kernels.cyc_encrypt_combine.builder(self.stream());
        launch.arg(&mut data).arg(&self.pk).arg(&values).arg(self.ring.context().moduli_table()).arg(&n64).arg(&limbs);
        // SAFETY: matches `cyc_encrypt_combine(u64* c, const u64* pk, const u64* v, const Modulus*
        // moduli, u64 n, u64 limbs)`: `data` and `pk` hold 2 L n words, `values` 3 L n (the
        // batch of three), the moduli table L triples; the kernel writes all of `data`.
        unsafe { launch.launch(config(len)) }?;
        Ok(GpuCiphertext { data, parts: 2, level: self.bgv.limbs() - 1, factor: 1 })
    }

    /// [`encrypt_device`](Self::encrypt_device) of a host plaintext (checked, then uploaded).
    pub fn encrypt(&self, plain: &[u64], seed: &Seed, counter: u64) -> Result<GpuCiphertext> {
        let plain = self.upload_plaintext(plain)?;
        self.encrypt_device(&plain, seed, counter)
    }

    /// The ciphertext on the host.
    pub fn download(&self, ct: &GpuCiphertext) -> Result<Ciphertext> {
        let words = self.ring.device().download_words(&ct.data)?;
        let per_part = (ct.level + 1) * self.ring.degree();
        let parts = words.chunks_exact(per_part).map(<[u64]>::to_vec).collect();
        Ok(Ciphertext { parts, level: ct.level, factor: ct.factor })
    }

    /// A host ciphertext (any level, 2 or 3 parts) on the device.
    pub fn upload(&self, ct: &Ciphertext) -> Result<GpuCiphertext> {
        let top = self.bgv.limbs() - 1;
        if ct.level > top {
            return Err(invalid("level", ct.level as u64, format!("must be at most {top}")));
        }
        let per_part = (ct.level + 1) * self.ring.degree();
        if !(2..=3).contains(&ct.parts.len()) {
            return Err(invalid("ciphertext parts", ct.parts.len() as u64, "must be 2 or 3"));
        }
        if let Some(part) = ct.parts.iter().find(|p| p.len() != per_part) {
            return Err(CyclotomicError::LengthMismatch {
                what: "ciphertext part",
                expected: per_part,
                actual: part.len(),
            });
        }
        let words = ct.parts.concat();
        let data = self.stream().clone_htod(&words).map_err(|e| driver_error("cuMemcpyHtoDAsync", e))?;
        Ok(GpuCiphertext { data, parts: ct.parts.len(), level: ct.level, factor: ct.factor })
    }

    /// A device copy of `ct`.
    fn duplicate(&self, ct: &GpuCiphertext) -> Result<GpuCiphertext> {
        let mut data = alloc(&self.ring, ct.data.len())?;
        self.stream().memcpy_dtod(&ct.data, &mut data).map_err(|e| driver_error("cuMemcpyDtoDAsync", e))?;
        Ok(GpuCiphertext { data, parts: ct.parts, level: ct.level, factor: ct.factor })
    }

    /// The two operands at the lower of their levels (the higher one switched down, as
    /// [`Bgv`] does).
    fn same_level(
        &self,
        a: &GpuCiphertext,
        b: &GpuCiphertext,
    ) -> Result<(Option<GpuCiphertext>, Option<GpuCiphertext>)> {
        let level = a.level.min(b.level);
        let down = |c: &GpuCiphertext| if c.level > level { self.mod_switch_to(c, level).map(Some) } else { Ok(None) };
        Ok((down(a)?, down(b)?))
    }

    /// `a + b` (the same number of parts; at the lower level; a factor that differs is matched
    /// by scaling `b` by `f_a f_b^-1 mod t`): the words of [`Bgv::add`](crate::bgv::Bgv::add).
    pub fn add(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        if a.parts != b.parts {
            return Err(invalid(
                "ciphertext parts",
                b.parts as u64,
                format!("the GPU adds ciphertexts of equal parts ({})", a.parts),
            ));
        }
        let (a_low, b_low) = self.same_level(a, b)?;
        let (a, b) = (a_low.as_ref().unwrap_or(a), b_low.as_ref().unwrap_or(b));
        let t = self.bgv.params().t();
        let scale = if a.factor == b.factor { 1 } else { mul_mod(a.factor, inverse_mod(b.factor, t)?, t) };
        let limbs = a.level + 1;
        let len = a.parts * limbs * self.ring.degree();
        let mut data = alloc(&self.ring, len)?;
        let (n, limbs, count) = (self.ring.degree() as u64, limbs as u64, a.parts as u64);
        let mut launch = self.kernels.cyc_add.builder(self.stream());
        launch
            .arg(&mut data)
            .arg(&a.data)
            .arg(&b.data)
            .arg(self.ring.context().moduli_table())
            .arg(&n)
            .arg(&limbs)
            .arg(&count)
            .arg(&scale);
        // SAFETY: matches `cyc_add(u64* out, const u64* a, const u64* b, const Modulus* moduli,
        // u64 n, u64 limbs, u64 count, u64 scale)`: all three buffers hold parts (level + 1) n
        // words (equal parts checked, equal levels made), the top moduli table L >= level + 1
        // triples whose first ones are q_0 .. q_level; the kernel writes all of `data`.
        unsafe { launch.launch(config(len)) }?;
        Ok(GpuCiphertext { data, parts: a.parts, level: a.level, factor: a.factor })
    }

    /// The tensor product of two 2-part ciphertexts (3 parts at the lower level, factor
    /// `f_a f_b mod t`): the words of [`Bgv::mul`](crate::bgv::Bgv::mul).
    pub fn mul(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        if a.parts != 2 || b.parts != 2 {
            return Err(invalid("ciphertext parts", a.parts.max(b.parts) as u64, "must be 2 (relinearize first)"));
        }
        let (a_low, b_low) = self.same_level(a, b)?;
        let (a, b) = (a_low.as_ref().unwrap_or(a), b_low.as_ref().unwrap_or(b));
        let len = (a.level + 1) * self.ring.degree();
        let mut data = alloc(&self.ring, 3 * len)?;
        let (n, limbs) = (self.ring.degree() as u64, (a.level + 1) as u64);
        let mut launch = self.kernels.cyc_tensor.builder(self.stream());
        launch.arg(&mut data).arg(&a.data).arg(&b.data).arg(self.ring.context().moduli_table()).arg(&n).arg(&limbs);
        // SAFETY: matches `cyc_tensor(u64* out, const u64* c, const u64* d, const Modulus* moduli,
        // u64 n, u64 limbs)`: `a` and `b` hold 2 (level + 1) n words (2 parts checked, equal
        // levels made), `data` 3 (level + 1) n, which the kernel writes in full; the top moduli
        // table begins with q_0 .. q_level.
        unsafe { launch.launch(config(len)) }?;
        let factor = mul_mod(a.factor, b.factor, self.bgv.params().t());
        Ok(GpuCiphertext { data, parts: 3, level: a.level, factor })
    }

    /// `a b` relinearized.
    pub fn mul_relin(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        self.relinearize(&self.mul(a, b)?)
    }

    /// `count` polynomials `x` (`[count][keep + 1][n]` evaluations; its last limb modulo the
    /// prime of `last_ring`, `p`) to `(x - t r) p^-1 (+ addend)` over `keep_ring` (`q_0 ..
    /// q_{keep-1}`), `r = [x_p t^-1]_p` centered: [`Bgv`]'s `divide_by_last` on the device.
    /// `table`: `[keep][2]` = `{t mod q_j, p^-1 mod q_j}`; `addend`: `[count][keep][n]`.
    #[allow(clippy::too_many_arguments)]
    fn divide_by_last(
        &self,
        x: &CudaSlice<u64>,
        count: usize,
        keep: usize,
        last_ring: &GpuCyclotomic,
        keep_ring: &GpuCyclotomic,
        table: &CudaSlice<u64>,
        addend: Option<&CudaSlice<u64>>,
    ) -> Result<CudaSlice<u64>> {
        let n = self.ring.degree();
        let stream = self.stream();
        if x.len() != count * (keep + 1) * n || keep_ring.limbs() != keep || table.len() != 2 * keep {
            return Err(CyclotomicError::LengthMismatch {
                what: "ModDown input",
                expected: count * (keep + 1) * n,
                actual: x.len(),
            });
        }
        if let Some(addend) = addend
            && addend.len() < count * keep * n
        {
            return Err(CyclotomicError::LengthMismatch {
                what: "ModDown addend",
                expected: count * keep * n,
                actual: addend.len(),
            });
        }
        // The last limb of each polynomial, [count][n].
        let mut last = alloc(&self.ring, count * n)?;
        for c in 0..count {
            let from = (c * (keep + 1) + keep) * n;
            stream
                .memcpy_dtod(&x.slice(from..from + n), &mut last.slice_mut(c * n..(c + 1) * n))
                .map_err(|e| driver_error("cuMemcpyDtoDAsync", e))?;
        }
        let coefficients = last_ring.inverse_device(&last, count)?;
        let p: &Modulus = last_ring.rings()[0].modulus();
        let t_inv = p.inv(p.reduce(self.bgv.params().t()))?;
        let (p_hi, p_lo) = p.barrett_constant();
        let mut lifted = alloc(&self.ring, count * keep * n)?;
        let geometry = [p.value(), p_hi, p_lo, t_inv, n as u64, keep as u64, count as u64];
        let mut launch = self.kernels.cyc_moddown_lift.builder(stream);
        launch.arg(&mut lifted).arg(&coefficients).arg(keep_ring.context().moduli_table());
        for value in &geometry {
            launch.arg(value);
        }
        // SAFETY: matches `cyc_moddown_lift(u64* out, const u64* x, const Modulus* moduli, u64 p,
        // u64 p_barrett_hi, u64 p_barrett_lo, u64 t_inv, u64 n, u64 keep, u64 count)`:
        // `coefficients` holds count n words (the inverse of count one-limb polynomials),
        // `lifted` count keep n, which the kernel writes in full; `keep_ring`'s moduli table
        // holds keep triples (its limbs, checked); t_inv < p.
        unsafe { launch.launch(config(count * keep * n)) }?;
        let r = keep_ring.forward_device(&ForwardInput { x: &lifted, stride: n, scale: 1, msg: None }, count)?;
        let mut out = alloc(&self.ring, count * keep * n)?;
        let addend_address = addend.map_or(0, |a| address(a, stream));
        let (n64, keep64, count64) = (n as u64, keep as u64, count as u64);
        let mut launch = self.kernels.cyc_moddown_combine.builder(stream);
        launch
            .arg(&mut out)
            .arg(x)
            .arg(&r)
            .arg(table)
            .arg(&addend_address)
            .arg(keep_ring.context().moduli_table())
            .arg(&n64)
            .arg(&keep64)
            .arg(&count64);
        // SAFETY: matches `cyc_moddown_combine(u64* out, const u64* x, const u64* r, const u64*
        // tables, const u64* addend, const Modulus* moduli, u64 n, u64 keep, u64 count)`: `x`
        // holds count (keep + 1) n words and `r`, `out` count keep n (checked or allocated so),
        // `table` 2 keep words, `addend` null or at least count keep n words of a live buffer
        // (checked), the moduli table keep triples; the kernel writes every word of `out`.
        unsafe { launch.launch(config(count * keep * n)) }?;
        Ok(out)
    }

    /// `c_2` switched from `s^2` to `s` (module docs): the words of
    /// [`Bgv::relinearize`](crate::bgv::Bgv::relinearize) (a copy for 2 parts). Errors without
    /// a relinearization key ([`set_relin_key`](Self::set_relin_key)).
    pub fn relinearize(&self, ct: &GpuCiphertext) -> Result<GpuCiphertext> {
        if ct.parts == 2 {
            return self.duplicate(ct);
        }
        let Some(ks) = &self.keyswitch else {
            return Err(invalid("relinearization key", 0, "relinearization needs GpuBgv::set_relin_key"));
        };
        if ct.parts != 3 {
            return Err(invalid("ciphertext parts", ct.parts as u64, "must be 2 or 3"));
        }
        let (n, l, level) = (self.ring.degree(), self.bgv.limbs(), ct.level);
        let k = level + 1;
        let ring = self.ring_at(level)?;
        let lower = self.lower()?;
        let extended = &ks.extended[level];
        let stream = self.stream();
        let mut c2 = alloc(&self.ring, k * n)?;
        stream
            .memcpy_dtod(&ct.data.slice(2 * k * n..3 * k * n), &mut c2)
            .map_err(|e| driver_error("cuMemcpyDtoDAsync", e))?;
        let digits = ring.inverse_device(&c2, 1)?;
        let mut spread = alloc(&self.ring, k * (k + 1) * n)?;
        let (n64, k64, targets) = (n as u64, k as u64, (k + 1) as u64);
        let mut launch = self.kernels.cyc_digit_spread.builder(stream);
        launch.arg(&mut spread).arg(&digits).arg(extended.context().moduli_table()).arg(&n64).arg(&k64).arg(&targets);
        // SAFETY: matches `cyc_digit_spread(u64* out, const u64* digits, const Modulus* moduli, u64
        // n, u64 digit_count, u64 targets)`: `digits` holds k n words (the inverse over the k
        // primes), `spread` k (k + 1) n, which the kernel writes in full; the extended ring's
        // moduli table holds k + 1 triples (q_0 .. q_level, P).
        unsafe { launch.launch(config(k * (k + 1) * n)) }?;
        let d = extended.forward_device(&ForwardInput { x: &spread, stride: n, scale: 1, msg: None }, k)?;
        let mut acc = alloc(&self.ring, 2 * (k + 1) * n)?;
        let key_limbs = (l + 1) as u64;
        let mut launch = self.kernels.cyc_keyswitch_inner.builder(stream);
        launch
            .arg(&mut acc)
            .arg(&d)
            .arg(&ks.key)
            .arg(extended.context().moduli_table())
            .arg(&n64)
            .arg(&k64)
            .arg(&targets)
            .arg(&key_limbs);
        // SAFETY: matches `cyc_keyswitch_inner(u64* acc, const u64* d, const u64* key, const
        // Modulus* moduli, u64 n, u64 digit_count, u64 targets, u64 key_limbs)`: `d` holds k
        // (k + 1) n words (the forward batch of k over k + 1 primes), `key` L 2 (L + 1) n
        // (checked by set_relin_key) with k <= L, `acc` 2 (k + 1) n, which the kernel writes in
        // full; the moduli table holds k + 1 triples.
        unsafe { launch.launch(config((k + 1) * n)) }?;
        let special = &lower.singles[l - 1];
        let data = self.divide_by_last(&acc, 2, k, special, ring, &lower.down[level], Some(&ct.data))?;
        Ok(GpuCiphertext { data, parts: 2, level, factor: ct.factor })
    }

    /// Drops the last prime `q_level` (the words of [`Bgv::mod_switch`](crate::bgv::Bgv::mod_switch));
    /// the factor is multiplied by `q_level^-1 mod t`. Errors at level 0.
    pub fn mod_switch(&self, ct: &GpuCiphertext) -> Result<GpuCiphertext> {
        let level = ct.level;
        if level == 0 {
            return Err(invalid("level", 0, "must be above 0 to switch down"));
        }
        let lower = self.lower()?;
        let keep_ring = self.ring_at(level - 1)?;
        let last_ring = &lower.singles[level - 1];
        let data =
            self.divide_by_last(&ct.data, ct.parts, level, last_ring, keep_ring, &lower.switch[level - 1], None)?;
        let t = self.bgv.params().t();
        let q_inv = inverse_mod(self.bgv.params().primes()[level] % t, t)?;
        Ok(GpuCiphertext { data, parts: ct.parts, level: level - 1, factor: mul_mod(ct.factor, q_inv, t) })
    }

    /// [`mod_switch`](Self::mod_switch) down to `level` (a copy at its own level; an error
    /// above it).
    pub fn mod_switch_to(&self, ct: &GpuCiphertext, level: usize) -> Result<GpuCiphertext> {
        if level > ct.level {
            return Err(invalid("level", level as u64, format!("must be at most the ciphertext's level {}", ct.level)));
        }
        let mut out = self.duplicate(ct)?;
        while out.level > level {
            out = self.mod_switch(&out)?;
        }
        Ok(out)
    }

    /// The phase's coefficients on the device, `[level + 1][n]`.
    fn phase_device(&self, ct: &GpuCiphertext) -> Result<CudaSlice<u64>> {
        let Some(sk) = &self.sk else {
            return Err(invalid("secret key", 0, "decryption needs the secret key given to GpuBgv::new"));
        };
        let limbs = ct.level + 1;
        let ring = self.ring_at(ct.level)?;
        let len = limbs * self.ring.degree();
        let mut phase = alloc(&self.ring, len)?;
        let (n, limbs, parts) = (self.ring.degree() as u64, limbs as u64, ct.parts as u64);
        let mut launch = self.kernels.cyc_phase.builder(self.stream());
        launch
            .arg(&mut phase)
            .arg(&ct.data)
            .arg(sk)
            .arg(self.ring.context().moduli_table())
            .arg(&n)
            .arg(&limbs)
            .arg(&parts);
        // SAFETY: matches `cyc_phase(u64* out, const u64* c, const u64* s, const Modulus* moduli,
        // u64 n, u64 limbs, u64 parts)`: `ct` holds parts (level + 1) n words (made so by this
        // type), `sk` L n >= (level + 1) n with limb i modulo q_i, `phase` (level + 1) n; the
        // kernel writes all of `phase`.
        unsafe { launch.launch(config(len)) }?;
        Ok(ring.inverse_device(&phase, 1)?)
    }

    /// The phase's coefficients modulo each `q_i` (`[level + 1][n]`), computed on the device.
    pub fn phase_coefficients(&self, ct: &GpuCiphertext) -> Result<Vec<u64>> {
        let coefficients = self.phase_device(ct)?;
        Ok(self.ring.device().download_words(&coefficients)?)
    }

    /// Decryption, all on the device (module docs): the `phi(m)` plaintext values modulo `t`
    /// are the only words downloaded.
    pub fn decrypt(&self, ct: &GpuCiphertext) -> Result<Vec<u64>> {
        let coefficients = self.phase_device(ct)?;
        let (n, limbs) = (self.ring.degree(), ct.level + 1);
        let ring = self.ring_at(ct.level)?;
        let width = n.next_power_of_two();
        let input = if width == n {
            coefficients
        } else {
            let mut padded = alloc(&self.ring, limbs * width)?;
            ring.fold_window(&mut padded, &coefficients, n, 0, n, n, width, 1)?;
            padded
        };
        let Decryption { tables, per_limb } = &self.decryption[ct.level];
        let correction_inv = inverse_mod(ct.factor, tables.plaintext_modulus())?;
        let mut out = alloc(&self.ring, width)?;
        // SAFETY: `input` holds (level + 1) width canonical words over q_0 .. q_level (rows
        // padded with zeros), the moduli table is that ring's (level + 1 triples), `per_limb` the
        // level's DecryptionTables uploaded (3 (level + 1) words), `out` width words; all on
        // this ring's device.
        unsafe {
            bgv_encrypt::backend::queue_phase_reduction(
                self.ring.device(),
                tables,
                per_limb,
                (&input, ring.context().moduli_table()),
                width,
                correction_inv,
                false,
                bgv_encrypt::backend::ReduceOutput::Device(&mut out),
            )
        }
        .map_err(|e| CyclotomicError::Backend(Box::new(e)))?;
        let stream = self.stream();
        let plain = stream.clone_dtoh(&out.slice(0..n)).map_err(|e| driver_error("cuMemcpyDtoHAsync", e))?;
        self.ring.device().synchronize()?;
        Ok(plain)
    }
}
