//! [`BgvParameters`]: the RLWE core's parameters (degree, ciphertext and special primes,
//! transform) with the plaintext modulus `t`, and the [`Preset`]s.
//!
//! BGV needs no auxiliary base: the tensor product is computed over `q_l` itself. What it asks
//! of the primes: `t` coprime to every prime of `q` and `P` (it scales the errors and must be
//! invertible modulo each), and `q` large enough for a fresh ciphertext; each prime dropped by
//! modulus switching should exceed the noise growth of one multiplication (about
//! `log2(t) + log2(N)` bits plus a few), which is what gives the presets their depth.

use std::sync::Arc;

use num_bigint::BigUint;
use poly::{RingContext, RingKind, TransformKind};
use rlwe::slots::batching_prime;
use rlwe::{ModuliChoice, RlweParameters, RlweParametersBuilder};

use crate::{BgvError, Result};

/// `t < 2^60`: the largest plaintext modulus (the kernels reduce products modulo `t` by
/// Barrett with 64-bit words).
pub const MAX_PLAINTEXT_BITS: u32 = 60;

/// Named parameter sets, within the HE Standard's 128-bit table except Phantom's `N = 65536`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// 128-bit classical security (HE Standard table): `N = 2^12..2^17`, 20-bit batching `t`,
    /// NTT. Ciphertext primes `36 x 2` / `54 x 3` / `54 x 7` / `55 x 15` / `58 x 26` / `58 x 56`
    /// bits and special primes `37` / `56` / `60` / `56` / `59 x 4` / `60 x 4`.
    Secure {
        /// `log2 N`, 12..=17.
        log_degree: u32,
    },
    /// Phantom's BGV sets (its `bgv_bench`; docs/anchors.md): `N = 4096`: `35 x 2` + special
    /// `38`; `N = 8192`: `54 x 3` + `56`; `N = 16384`: `36 x 8` + `37, 37, 38, 38`;
    /// `N = 32768`: `36 x 16` + `38 x 7, 39`; `N = 65536`: `36 x 32` + `39 x 15, 40`. 20-bit
    /// batching `t`, NTT. The `N = 65536` set (1777 bits) exceeds the 128-bit table (1747
    /// bits): it builds as Phantom runs it, marked insecure ([`BgvParameters::is_secure_128`]).
    Phantom {
        /// `log2 N`, 12..=16.
        log_degree: u32,
    },
}

impl Preset {
    /// Every preset, smallest rings first within each family.
    pub fn all() -> Vec<Preset> {
        let mut out: Vec<Preset> = (12..=17).map(|log_degree| Preset::Secure { log_degree }).collect();
        out.extend((12..=16).map(|log_degree| Preset::Phantom { log_degree }));
        out
    }

    /// A short name, e.g. `secure-N4096`.
    pub fn name(&self) -> String {
        let (family, log_degree) = match *self {
            Preset::Secure { log_degree } => ("secure", log_degree),
            Preset::Phantom { log_degree } => ("phantom", log_degree),
        };
        match 1u64.checked_shl(log_degree) {
            Some(n) if log_degree < 63 => format!("{family}-N{n}"),
            _ => format!("{family}-N2^{log_degree}"),
        }
    }

    /// `(ciphertext bits, special bits)` of the preset, or an error for an unknown degree.
    fn bits(&self) -> Result<(Vec<u32>, Vec<u32>)> {
        let unknown = |log_degree: u32, range: &str| BgvError::InvalidParameter {
            name: "preset log_degree",
            value: u64::from(log_degree),
            requirement: format!("must be in {range}"),
        };
        Ok(match *self {
            Preset::Secure { log_degree } => match log_degree {
                12 => (vec![36; 2], vec![37]),
                13 => (vec![54; 3], vec![56]),
                14 => (vec![54; 7], vec![60]),
                15 => (vec![55; 15], vec![56]),
                16 => (vec![58; 26], vec![59; 4]),
                17 => (vec![58; 56], vec![60; 4]),
                other => return Err(unknown(other, "12..=17")),
            },
            Preset::Phantom { log_degree } => match log_degree {
                12 => (vec![35; 2], vec![38]),
                13 => (vec![54; 3], vec![56]),
                14 => (vec![36; 8], vec![37, 37, 38, 38]),
                15 => (vec![36; 16], [vec![38; 7], vec![39]].concat()),
                16 => (vec![36; 32], [vec![39; 15], vec![40]].concat()),
                other => return Err(unknown(other, "12..=16")),
            },
        })
    }

    /// The builder of this preset (to change a field before building).
    pub fn builder(&self) -> Result<BgvParametersBuilder> {
        let (ciphertext, special) = self.bits()?;
        let log_degree = match *self {
            Preset::Secure { log_degree } | Preset::Phantom { log_degree } => log_degree,
        };
        let degree = 1usize << log_degree;
        let beyond_the_table = matches!(self, Preset::Phantom { log_degree: 16 });
        Ok(BgvParametersBuilder::new(degree)
            .ciphertext_moduli_bits(&ciphertext)
            .special_moduli_bits(&special)
            .plaintext_modulus(batching_prime(20, degree)?)
            .allow_insecure(beyond_the_table))
    }

    /// The parameters of this preset.
    pub fn build(&self) -> Result<Arc<BgvParameters>> {
        self.builder()?.build()
    }
}

/// Builds and validates [`BgvParameters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgvParametersBuilder {
    core: RlweParametersBuilder,
    plaintext_modulus: u64,
}

impl BgvParametersBuilder {
    /// A builder for degree `N` (NTT, `t = 2`, no primes yet).
    pub fn new(degree: usize) -> Self {
        Self { core: RlweParametersBuilder::new(degree).transform(TransformKind::Ntt), plaintext_modulus: 2 }
    }

    /// A builder for the ring `Z_q[x]/Phi_m` (odd `m` in `3..=2^17`, degree `phi(m)`,
    /// Bluestein's transform, `t = 2`, no primes yet): the core's
    /// [`RlweParametersBuilder::new_cyclotomic`], whose primes are `1 mod m` and `1 mod 2M`
    /// (`M` Bluestein's convolution length) and whose security check reads the table at
    /// dimension `phi(m)`. An `m` outside the range is the core's typed error at `build`.
    pub fn new_cyclotomic(m: usize) -> Self {
        Self { core: RlweParametersBuilder::new_cyclotomic(m), plaintext_modulus: 2 }
    }

    /// Ciphertext primes generated by size (bits each, `1 mod 2N`; over `Phi_m`, the core's
    /// congruence of that ring).
    pub fn ciphertext_moduli_bits(mut self, bits: &[u32]) -> Self {
        self.core = self.core.ciphertext(ModuliChoice::Bits(bits.to_vec()));
        self
    }

    /// Explicit ciphertext primes.
    pub fn ciphertext_moduli(mut self, primes: &[u64]) -> Self {
        self.core = self.core.ciphertext(ModuliChoice::Explicit(primes.to_vec()));
        self
    }

    /// Special primes generated by size (one: SEAL-style key switching; several: hybrid).
    pub fn special_moduli_bits(mut self, bits: &[u32]) -> Self {
        self.core = self.core.special(ModuliChoice::Bits(bits.to_vec()));
        self
    }

    /// Explicit special primes.
    pub fn special_moduli(mut self, primes: &[u64]) -> Self {
        self.core = self.core.special(ModuliChoice::Explicit(primes.to_vec()));
        self
    }

    /// The plaintext modulus `t` (a prime `1 mod 2N` for batching; any `2 <= t < 2^60`
    /// coprime to the primes for coefficient encoding).
    pub fn plaintext_modulus(mut self, t: u64) -> Self {
        self.plaintext_modulus = t;
        self
    }

    /// The transform (NTT, DGT, hierarchical DGT).
    pub fn transform(mut self, transform: TransformKind) -> Self {
        self.core = self.core.transform(transform);
        self
    }

    /// Allows sets beyond the HE Standard's 128-bit table (research and tests only).
    pub fn allow_insecure(mut self, allow: bool) -> Self {
        self.core = self.core.allow_insecure(allow);
        self
    }

    /// Validates and builds. Errors (typed, naming the parameter): the core's checks (degree,
    /// primes, security); `t` outside `2..2^60`; `t` sharing a factor with a ciphertext or
    /// special prime; `q <= 2 t (21 m + 22)` with `m` the ring's index (`2N` for `x^N + 1`:
    /// `2 t (42 N + 22)`), below which a fresh ciphertext might not decrypt (its phase
    /// `x + t (e u + e_1 + e_2 s)`, `x` the message, is at most `t/2 + 21 t (2N + 1)` in absolute value over
    /// `x^N + 1`; over `Phi_m` the same count with `m` in place of `2N`, the length of the
    /// products in `Z[x]/(x^m - 1)` before their reduction modulo `Phi_m`, is the heuristic).
    pub fn build(&self) -> Result<Arc<BgvParameters>> {
        let t = self.plaintext_modulus;
        let moduli = self.core.moduli()?;
        check_plaintext_modulus(t, self.core.ring_kind(), &moduli.ciphertext, &moduli.special)?;
        let core = self.core.assemble(moduli)?;
        Ok(Arc::new(BgvParameters { core, plaintext_modulus: t, noise: std::sync::OnceLock::new() }))
    }
}

/// The checks of `t` against the ring ([`BgvParametersBuilder::build`]).
/// What [`BgvParameters::estimated_depth`] adds to an operand's noise before each product.
const LINEAR_MARGIN_BITS: f64 = 1.0;

fn check_plaintext_modulus(t: u64, ring: RingKind, ciphertext: &[u64], special: &[u64]) -> Result<()> {
    if !(2..1u64 << MAX_PLAINTEXT_BITS).contains(&t) {
        return Err(BgvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!("must satisfy 2 <= t < 2^{MAX_PLAINTEXT_BITS}"),
        });
    }
    if let Some(&p) = ciphertext.iter().chain(special).find(|&&p| num_integer_gcd(t, p) != 1) {
        return Err(BgvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!("must be coprime to every ciphertext and special prime; {p} divides it"),
        });
    }
    let q: BigUint = ciphertext.iter().map(|&p| BigUint::from(p)).product();
    // 21 (2N) + 22 = 42 N + 22 for x^N + 1 (the bound the presets were checked against).
    let fresh_bound = BigUint::from(t) * 2u32 * BigUint::from(21 * ring.index() + 22);
    if q <= fresh_bound {
        return Err(BgvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!(
                "q ({} bits) must exceed 2 t (21 m + 22) ({} bits, m = {}) for fresh ciphertexts to decrypt",
                q.bits(),
                fresh_bound.bits(),
                ring.index()
            ),
        });
    }
    Ok(())
}

fn num_integer_gcd(mut a: u64, mut b: u64) -> u64 {
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}

/// Validated BGV parameters: the RLWE core's parameters and `t`. Two parameter objects are
/// equal when their defining values are; keys check the core's equality only (a key belongs
/// to the ring, and serves BFV too: scheme switching).
#[derive(Debug)]
pub struct BgvParameters {
    core: Arc<RlweParameters>,
    plaintext_modulus: u64,
    /// The noise model of these parameters (`crate::noise`), made on first use and shared by
    /// every context over them (over `Phi_m` it costs `O((m - phi) phi)`: 30 ms at
    /// `m = 21845`); not part of the value.
    noise: std::sync::OnceLock<crate::noise::NoiseModel>,
}

impl PartialEq for BgvParameters {
    fn eq(&self, other: &Self) -> bool {
        self.core == other.core && self.plaintext_modulus == other.plaintext_modulus
    }
}

impl Eq for BgvParameters {}

/// What the core's shared code (plaintexts, encoders, the codec) needs: the core's parameters,
/// `t` and the tag "BGV".
impl rlwe::SchemeParameters for BgvParameters {
    const SCHEME: rlwe::framing::Scheme = rlwe::framing::Scheme::Bgv;

    /// BGV keeps its ciphertexts in evaluations (element-wise products, permutations for
    /// rotations).
    type Form = poly::Eval;
    type CiphertextState = crate::context::BgvCiphertextState;

    fn core(&self) -> &Arc<RlweParameters> {
        &self.core
    }

    fn plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus
    }
}

impl BgvParameters {
    /// BGV parameters over an existing core (the ring of a BFV parameter set, to switch
    /// between the schemes under one key) with plaintext modulus `t`. Errors as
    /// [`BgvParametersBuilder::build`] for `t`.
    pub fn from_core(core: &Arc<RlweParameters>, t: u64) -> Result<Arc<Self>> {
        check_plaintext_modulus(t, core.ring_kind(), core.ciphertext_moduli(), core.special_moduli())?;
        Ok(Arc::new(BgvParameters { core: Arc::clone(core), plaintext_modulus: t, noise: std::sync::OnceLock::new() }))
    }

    /// The RLWE core's parameters (what keys belong to).
    pub fn core(&self) -> &Arc<RlweParameters> {
        &self.core
    }

    /// The ring degree `N` (`phi(m)` for a ring `Z_q[x]/Phi_m`).
    pub fn degree(&self) -> usize {
        self.core.degree()
    }

    /// The ring kind: `x^N + 1`, or `Phi_m`.
    pub fn ring_kind(&self) -> RingKind {
        self.core.ring_kind()
    }

    /// The ciphertext primes `q_0 .. q_{L-1}`.
    pub fn ciphertext_moduli(&self) -> &[u64] {
        self.core.ciphertext_moduli()
    }

    /// The special primes.
    pub fn special_moduli(&self) -> &[u64] {
        self.core.special_moduli()
    }

    /// The plaintext modulus `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus
    }

    /// The transform.
    pub fn transform(&self) -> TransformKind {
        self.core.transform()
    }

    /// Whether `log2(Q P)` is within the 128-bit table.
    pub fn is_secure_128(&self) -> bool {
        self.core.is_secure_128()
    }

    /// The top level `L - 1`.
    pub fn max_level(&self) -> usize {
        self.core.max_level()
    }

    /// The multiplicative depth a typical circuit reaches under [`crate::ModSwitching::Auto`]
    /// (products switched down one level before they are multiplied again, each relinearized):
    /// squarings of a fresh ciphertext followed through the noise model of [`crate::noise`],
    /// the same estimate `Auto` checks before each product, with a bit more before each
    /// squaring for the linear operations a circuit puts between its products (an addition, a
    /// small constant). Tests check random circuits of this depth on every preset.
    pub fn estimated_depth(&self) -> usize {
        let model = self.noise_model();
        let (mut level, mut noise, mut product, mut depth) = (self.max_level(), model.fresh(), false, 0);
        loop {
            if product && level > 0 {
                noise = model.switched_from(noise, level);
                level -= 1;
            }
            let operand = noise + LINEAR_MARGIN_BITS;
            let next = model.key_switched(model.product(operand, operand));
            if !model.decrypts(next, level) {
                return depth;
            }
            (noise, product, depth) = (next, true, depth + 1);
        }
    }

    /// The noise model of these parameters, made on first use.
    pub(crate) fn noise_model(&self) -> &crate::noise::NoiseModel {
        self.noise.get_or_init(|| crate::noise::NoiseModel::new(self))
    }

    /// `R_q` at the top level.
    pub fn ring_q(&self) -> &Arc<RingContext> {
        self.core.ring_q()
    }
}
