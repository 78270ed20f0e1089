//! BFV parameters: ring degree, ciphertext primes `q = q_0 ... q_{L-1}`, special primes
//! `P = p_0 ... p_{k-1}` for key switching, plaintext modulus `t`, multiplication variant
//! (BEHZ or HPS) and transform (NTT, DGT or hierarchical DGT); validation against the HE
//! Standard's 128-bit table; presets.
//!
//! The auxiliary primes that the multiplication works in (the base `P_mul` of HPS, or `B` and
//! `m_sk` of BEHZ) are chosen deterministically by the `rns` crate from `N`, `q` and `t`
//! (62-bit primes, as few as its bounds allow); they never appear in keys or ciphertexts and
//! so do not count for security.

use std::sync::Arc;

use num_bigint::BigUint;
use poly::{RingContext, TransformKind};
use rlwe::{RlweParameters, RlweParametersBuilder};
use rns::{BehzContext, HpsContext, KeySwitchContext};

use crate::BfvError;

type Result<T> = core::result::Result<T, BfvError>;

pub use rlwe::params::{MAX_DEGREE, MAX_PRIMES, MIN_DEGREE};
/// Largest plaintext modulus: `t < 2^60`.
pub const MAX_PLAINTEXT_BITS: u32 = 60;

pub use rlwe::security::{SECURITY_TABLE_128, max_modulus_bits_128};

/// How a homomorphic multiplication divides by `q/t` in RNS.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum MulVariant {
    /// Bajard, Eynard, Hasan and Zucca (SAC 2016): fast base conversion to `B u {m_sk}` with
    /// the small Montgomery reduction by `m~`, the fast floor by `q`, Shenoy-Kumaresan back;
    /// decryption scale-and-round with `gamma`. The GPU-FV paper's variant.
    Behz,
    /// Halevi, Polyakov and Shoup (CT-RSA 2019): exact base extension to `P_mul`, scale and
    /// round by `t/q` in fixed point; decryption scale-and-round into `Z_t`. spog's variant.
    Hps,
}

impl MulVariant {
    /// `"BEHZ"` or `"HPS"`.
    pub fn name(self) -> &'static str {
        match self {
            MulVariant::Behz => "BEHZ",
            MulVariant::Hps => "HPS",
        }
    }
}

pub use rlwe::ModuliChoice;

/// The parameter sets the library ships. [`Preset::builder`] gives a builder to adjust them
/// (variant, transform, plaintext modulus); [`Preset::build`] builds them as they are.
///
/// Sets beyond the 128-bit table ([`Preset::is_secure_128`] false) build only after
/// [`BfvParametersBuilder::allow_insecure`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Preset {
    /// 128-bit classical security, SEAL's default coefficient moduli for `N = 2^12..2^15`
    /// (the last prime is the one special prime) and `q = 31 x 54` bits, `P = 60` bits at
    /// `N = 2^16`; `t` a 20-bit batching prime; HPS, NTT.
    Secure {
        /// `log2 N`, 12..=16.
        log_degree: u32,
    },
    /// Phantom's sets (docs/anchors.md): `N = 2^12..2^16`; `hybrid` selects the
    /// hybrid key-switching set with several special primes (`N >= 2^14`). `t` a 20-bit
    /// batching prime; HPS, NTT. The `N = 2^16` sets (1777 bits) exceed the 128-bit table.
    Phantom {
        /// `log2 N`, 12..=16.
        log_degree: u32,
        /// Several special primes (hybrid key switching) rather than one.
        hybrid: bool,
    },
    /// spog (Alves et al.), section 4.2, "BPAVR" setup: `(log q, log N)` in `(60, 11)`,
    /// `(60, 12)`, `(120, 13)`, `(360, 14)`, `(600, 15)` with 60-bit primes, `t = 256`;
    /// one special prime (49 bits at `N = 2^12` to stay in the table, else 60 bits); HPS,
    /// hierarchical DGT. `N = 2^11` exceeds the 128-bit table.
    SpogBpavr {
        /// `log2 N`, 11..=15.
        log_degree: u32,
    },
    /// spog, section 4.2, "BVMA" setup (GPU-FV's ring sizes): `(log q, log N)` in `(62, 11)`,
    /// `(186, 12)`, `(372, 13)`, `(744, 14)`, `(744, 15)` with 62-bit primes, `t = 256`; one
    /// 62-bit special prime; HPS, hierarchical DGT. 80-bit sets: only `N = 2^15` is within
    /// the 128-bit table.
    SpogBvma {
        /// `log2 N`, 11..=15.
        log_degree: u32,
    },
    /// GPU-FV (Al Badawi et al.), Table 4: `(log q, log N)` in `(62, 11)`, `(186, 12)`,
    /// `(372, 13)`, `(744, 14)` with 62-bit primes, `t = 2` (Boolean circuits); one 62-bit
    /// special prime; BEHZ, DGT. 80-bit sets: none is within the 128-bit table.
    GpuFv {
        /// `log2 N`, 11..=14.
        log_degree: u32,
    },
}

/// The plaintext modulus of a preset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum PresetPlaintext {
    /// The largest prime of this many bits that is `1 mod 2N` (batching).
    BatchingPrime(u32),
    Fixed(u64),
}

struct PresetSpec {
    log_degree: u32,
    ciphertext_bits: Vec<u32>,
    special_bits: Vec<u32>,
    plaintext: PresetPlaintext,
    variant: MulVariant,
    transform: TransformKind,
}

fn repeat(bits: u32, count: usize) -> Vec<u32> {
    vec![bits; count]
}

fn concat(parts: &[Vec<u32>]) -> Vec<u32> {
    parts.concat()
}

impl Preset {
    /// Every preset, smallest rings first within each family.
    pub fn all() -> Vec<Preset> {
        let mut out = Vec::new();
        out.extend((12..=16).map(|log_degree| Preset::Secure { log_degree }));
        for log_degree in 12..=16 {
            out.push(Preset::Phantom { log_degree, hybrid: false });
            if log_degree >= 14 {
                out.push(Preset::Phantom { log_degree, hybrid: true });
            }
        }
        out.extend((11..=15).map(|log_degree| Preset::SpogBpavr { log_degree }));
        out.extend((11..=15).map(|log_degree| Preset::SpogBvma { log_degree }));
        out.extend((11..=14).map(|log_degree| Preset::GpuFv { log_degree }));
        out
    }

    /// A short name such as `"Secure(N=4096)"` or `"Phantom(N=16384, hybrid)"`.
    pub fn name(&self) -> String {
        // `N = 2^log_degree` as a number while it fits a u64, as `2^log_degree` beyond (a
        // preset outside the table still has a name; `spec` refuses it).
        let degree = |log_degree: u32| match 1u64.checked_shl(log_degree) {
            Some(n) => n.to_string(),
            None => format!("2^{log_degree}"),
        };
        match *self {
            Preset::Secure { log_degree } => format!("Secure(N={})", degree(log_degree)),
            Preset::Phantom { log_degree, hybrid } => {
                format!("Phantom(N={}{})", degree(log_degree), if hybrid { ", hybrid" } else { "" })
            }
            Preset::SpogBpavr { log_degree } => format!("SpogBpavr(N={})", degree(log_degree)),
            Preset::SpogBvma { log_degree } => format!("SpogBvma(N={})", degree(log_degree)),
            Preset::GpuFv { log_degree } => format!("GpuFv(N={})", degree(log_degree)),
        }
    }

    /// The multiplicative depth the preset is documented (and tested) to support with its
    /// own plaintext modulus, in either variant: a circuit whose every path has at most this
    /// many ciphertext-ciphertext multiplications (each followed by relinearization), with
    /// additions and plaintext multiplications by small constants in between, decrypts
    /// correctly. See `docs/parameters.md`.
    pub fn depth(&self) -> Result<u32> {
        let spec = self.spec()?;
        // The longest squaring chain that still decrypts with a positive budget, less one
        // level of margin (docs/parameters.md); random circuits of exactly this depth are
        // tested in tests/circuits.rs (CPU) and tests/gpu.rs (all presets, on a GPU).
        let depth = match (*self, spec.log_degree) {
            (Preset::Secure { .. }, 12) => 1,
            (Preset::Secure { .. }, 13) => 3,
            (Preset::Secure { .. }, 14) => 9,
            (Preset::Secure { .. }, 15) => 21,
            (Preset::Secure { .. }, _) => 44,
            (Preset::Phantom { hybrid: false, .. }, 12) => 1,
            (Preset::Phantom { hybrid: false, .. }, 13) => 2,
            (Preset::Phantom { hybrid: false, .. }, 14) => 9,
            (Preset::Phantom { hybrid: false, .. }, 15) => 21,
            (Preset::Phantom { hybrid: false, .. }, _) => 46,
            (Preset::Phantom { hybrid: true, .. }, 14) => 6,
            (Preset::Phantom { hybrid: true, .. }, 15) => 14,
            (Preset::Phantom { hybrid: true, .. }, _) => 30,
            (Preset::SpogBpavr { .. }, 11 | 12) => 1,
            (Preset::SpogBpavr { .. }, 13) => 3,
            (Preset::SpogBpavr { .. }, 14) => 14,
            (Preset::SpogBpavr { .. }, _) => 24,
            (Preset::SpogBvma { .. }, 11) => 1,
            (Preset::SpogBvma { .. }, 12) => 7,
            (Preset::SpogBvma { .. }, 13) => 15,
            (Preset::SpogBvma { .. }, 14) => 31,
            (Preset::SpogBvma { .. }, _) => 30,
            (Preset::GpuFv { .. }, 11) => 3,
            (Preset::GpuFv { .. }, 12) => 12,
            (Preset::GpuFv { .. }, 13) => 24,
            // Two levels of margin here: random circuits of depth 47 (the one-level rule) ended
            // with 12-31 bits of budget, and one ran out (docs/parameters.md).
            (Preset::GpuFv { .. }, _) => 46,
        };
        Ok(depth)
    }

    fn spec(&self) -> Result<PresetSpec> {
        let bad_degree = |log_degree: u32, range: &'static str| BfvError::InvalidParameter {
            name: "preset log_degree",
            value: u64::from(log_degree),
            requirement: format!("this preset family has log2 N in {range}"),
        };
        let batching20 = PresetPlaintext::BatchingPrime(20);
        let spec = match *self {
            Preset::Secure { log_degree } => {
                let (q, p) = match log_degree {
                    12 => (vec![36, 36], vec![37]),
                    13 => (vec![43, 43, 44, 44], vec![44]),
                    14 => (concat(&[repeat(48, 3), repeat(49, 5)]), vec![49]),
                    15 => (repeat(55, 15), vec![56]),
                    16 => (repeat(54, 31), vec![60]),
                    _ => return Err(bad_degree(log_degree, "12..=16")),
                };
                (log_degree, q, p, batching20, MulVariant::Hps, TransformKind::Ntt)
            }
            Preset::Phantom { log_degree, hybrid } => {
                let (q, p) = match (log_degree, hybrid) {
                    (12, false) => (vec![35, 35], vec![38]),
                    (13, false) => (vec![54, 54, 54], vec![56]),
                    (14, false) => (repeat(54, 7), vec![60]),
                    (14, true) => (repeat(36, 8), vec![37, 37, 38, 38]),
                    (15, false) => (repeat(55, 15), vec![56]),
                    (15, true) => (repeat(36, 16), concat(&[repeat(38, 7), vec![39]])),
                    // 55 x 15, 56 x 17 with the last prime special.
                    (16, false) => (concat(&[repeat(55, 15), repeat(56, 16)]), vec![56]),
                    (16, true) => (repeat(36, 32), concat(&[repeat(39, 15), vec![40]])),
                    (12 | 13, true) => {
                        return Err(bad_degree(log_degree, "14..=16 for the hybrid sets"));
                    }
                    _ => return Err(bad_degree(log_degree, "12..=16")),
                };
                (log_degree, q, p, batching20, MulVariant::Hps, TransformKind::Ntt)
            }
            Preset::SpogBpavr { log_degree } => {
                let (q, p) = match log_degree {
                    11 => (vec![60], vec![60]),
                    12 => (vec![60], vec![49]),
                    13 => (repeat(60, 2), vec![60]),
                    14 => (repeat(60, 6), vec![60]),
                    15 => (repeat(60, 10), vec![60]),
                    _ => return Err(bad_degree(log_degree, "11..=15")),
                };
                (log_degree, q, p, PresetPlaintext::Fixed(256), MulVariant::Hps, TransformKind::HierarchicalDgt)
            }
            Preset::SpogBvma { log_degree } => {
                let q = match log_degree {
                    11 => vec![62],
                    12 => repeat(62, 3),
                    13 => repeat(62, 6),
                    14 | 15 => repeat(62, 12),
                    _ => return Err(bad_degree(log_degree, "11..=15")),
                };
                (log_degree, q, vec![62], PresetPlaintext::Fixed(256), MulVariant::Hps, TransformKind::HierarchicalDgt)
            }
            Preset::GpuFv { log_degree } => {
                let q = match log_degree {
                    11 => vec![62],
                    12 => repeat(62, 3),
                    13 => repeat(62, 6),
                    14 => repeat(62, 12),
                    _ => return Err(bad_degree(log_degree, "11..=14")),
                };
                (log_degree, q, vec![62], PresetPlaintext::Fixed(2), MulVariant::Behz, TransformKind::Dgt)
            }
        };
        let (log_degree, ciphertext_bits, special_bits, plaintext, variant, transform) = spec;
        Ok(PresetSpec { log_degree, ciphertext_bits, special_bits, plaintext, variant, transform })
    }

    /// A builder holding this preset's values, to adjust before [`BfvParametersBuilder::build`].
    pub fn builder(&self) -> Result<BfvParametersBuilder> {
        let spec = self.spec()?;
        let degree = 1usize << spec.log_degree;
        let plaintext_modulus = match spec.plaintext {
            PresetPlaintext::Fixed(t) => t,
            PresetPlaintext::BatchingPrime(bits) => batching_prime(bits, degree)?,
        };
        Ok(BfvParametersBuilder::new(degree)
            .ciphertext_moduli_bits(&spec.ciphertext_bits)
            .special_moduli_bits(&spec.special_bits)
            .plaintext_modulus(plaintext_modulus)
            .variant(spec.variant)
            .transform(spec.transform))
    }

    /// The preset's parameters. Errors with [`BfvError::Insecure`] for a set beyond the
    /// 128-bit table (use [`Preset::builder`] and [`BfvParametersBuilder::allow_insecure`]).
    pub fn build(&self) -> Result<Arc<BfvParameters>> {
        self.builder()?.build()
    }

    /// Whether the preset is within the 128-bit table (counting `Q * P`).
    pub fn is_secure_128(&self) -> Result<bool> {
        let spec = self.spec()?;
        let degree = 1usize << spec.log_degree;
        // Primes of b bits are below 2^b: the sum of the sizes bounds log2(Q * P).
        let bits: u64 = spec.ciphertext_bits.iter().chain(&spec.special_bits).map(|&b| u64::from(b)).sum();
        Ok(max_modulus_bits_128(degree).is_some_and(|max| bits <= max))
    }
}

pub use rlwe::slots::batching_prime;

/// Builds and validates [`BfvParameters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BfvParametersBuilder {
    /// The core's values: degree, primes, transform, the security opt-out.
    core: RlweParametersBuilder,
    plaintext_modulus: u64,
    variant: MulVariant,
}

impl BfvParametersBuilder {
    /// A builder for degree `degree` with no moduli yet, `t = 2`, HPS and the NTT.
    pub fn new(degree: usize) -> Self {
        Self { core: RlweParametersBuilder::new(degree), plaintext_modulus: 2, variant: MulVariant::Hps }
    }

    /// Ciphertext primes by bit size (one prime per entry).
    pub fn ciphertext_moduli_bits(mut self, bits: &[u32]) -> Self {
        self.core = self.core.ciphertext(ModuliChoice::Bits(bits.to_vec()));
        self
    }

    /// Explicit ciphertext primes.
    pub fn ciphertext_moduli(mut self, primes: &[u64]) -> Self {
        self.core = self.core.ciphertext(ModuliChoice::Explicit(primes.to_vec()));
        self
    }

    /// Special primes for key switching by bit size. One special prime gives SEAL's key
    /// switching (one digit per ciphertext prime); `k` of them give hybrid key switching with
    /// digits of `k` ciphertext primes each.
    pub fn special_moduli_bits(mut self, bits: &[u32]) -> Self {
        self.core = self.core.special(ModuliChoice::Bits(bits.to_vec()));
        self
    }

    /// Explicit special primes.
    pub fn special_moduli(mut self, primes: &[u64]) -> Self {
        self.core = self.core.special(ModuliChoice::Explicit(primes.to_vec()));
        self
    }

    /// The plaintext modulus `t`.
    pub fn plaintext_modulus(mut self, t: u64) -> Self {
        self.plaintext_modulus = t;
        self
    }

    /// The multiplication variant.
    pub fn variant(mut self, variant: MulVariant) -> Self {
        self.variant = variant;
        self
    }

    /// The transform of the evaluation representation.
    pub fn transform(mut self, transform: TransformKind) -> Self {
        self.core = self.core.transform(transform);
        self
    }

    /// Accepts parameters beyond the 128-bit table (for benchmarks and the seeds' sets).
    pub fn allow_insecure(mut self, allow: bool) -> Self {
        self.core = self.core.allow_insecure(allow);
        self
    }

    /// Validates the parameters, generates the primes given by size and the multiplication's
    /// auxiliary primes, and builds the ring contexts.
    ///
    /// Errors ([`BfvError::InvalidParameter`] naming the parameter and its bound, or
    /// [`BfvError::Insecure`]): degree not a power of two in `2^10..=2^17`; no ciphertext or
    /// no special prime; a prime that is not a prime below `2^62`, not `1 mod 2N`, or
    /// repeated; more than 64 primes in a basis; `t < 2` or `t >= 2^60`, `t` not coprime to
    /// `q`, or `q <= 2 t (42 N + 21 + t)` (a fresh ciphertext might not decrypt); `log2(Q * P)` beyond the 128-bit table without
    /// [`allow_insecure`](Self::allow_insecure).
    pub fn build(&self) -> Result<Arc<BfvParameters>> {
        let moduli = self.core.moduli()?;
        // The plaintext checks first: they are cheap, the core's tables are not.
        check_plaintext_modulus(self.plaintext_modulus, moduli.degree, &moduli.ciphertext)?;
        let core = self.core.assemble(moduli)?;
        BfvParameters::from_core(&core, self.plaintext_modulus, self.variant)
    }
}

/// Errors with [`BfvError::InvalidParameter`] unless `2 <= t < 2^60`, `t` is coprime to every
/// ciphertext prime, and `q > 2 t (42 N + 21 + t)`.
fn check_plaintext_modulus(t: u64, degree: usize, ciphertext: &[u64]) -> Result<()> {
    let q: BigUint = ciphertext.iter().map(|&p| BigUint::from(p)).product();
    if !(2..1u64 << MAX_PLAINTEXT_BITS).contains(&t) {
        return Err(BfvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!("must satisfy 2 <= t < 2^{MAX_PLAINTEXT_BITS}"),
        });
    }
    if let Some(&qi) = ciphertext.iter().find(|&&qi| t.is_multiple_of(qi)) {
        return Err(BfvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!("must be coprime to every ciphertext prime; {qi} divides it"),
        });
    }
    // A fresh encryption's noise e u + e_1 + e_2 s is at most 21 (2N + 1) in absolute value
    // (binomial errors in [-21, 21], ternary u and s), and the scaling adds less than t:
    // below q = 2 t (42 N + 21 + t) even a fresh ciphertext might not decrypt.
    let fresh_bound = BigUint::from(t) * 2u32 * (BigUint::from(42 * degree as u64 + 21) + t);
    if q <= fresh_bound {
        return Err(BfvError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: format!(
                "q ({} bits) must exceed 2 t (42 N + 21 + t) ({} bits) for fresh ciphertexts to decrypt",
                q.bits(),
                fresh_bound.bits()
            ),
        });
    }
    Ok(())
}

/// The RNS tables of the multiplication (and of decryption) for the chosen variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MulTables {
    /// HPS: the auxiliary base `P_mul`, exact extensions, scale-and-round.
    Hps(Box<HpsContext>),
    /// BEHZ: `B`, `m_sk`, `m~`, `gamma`; fast conversions, fast floor, Shenoy-Kumaresan.
    Behz(Box<BehzContext>),
}

impl MulTables {
    /// The auxiliary primes of the tensor product's ring, in limb order after `q` (HPS:
    /// `P_mul`; BEHZ: `B` then `m_sk`).
    pub fn auxiliary_moduli(&self) -> Vec<u64> {
        match self {
            MulTables::Hps(hps) => hps.p().values(),
            MulTables::Behz(behz) => behz.bsk().values(),
        }
    }
}

/// Validated BFV parameters: the RLWE core's parameters ([`RlweParameters`]: degree, ciphertext
/// and special primes, transform, the rings `R_q` and `R_{qP}`, the key-switching tables) with
/// the plaintext modulus `t`, the multiplication variant and its tables, and `ring_mul`: the
/// ciphertext primes then the multiplication's auxiliary base (HPS: `P_mul`; BEHZ: `B` then
/// `m_sk`), where the tensor product is computed.
///
/// Two parameter objects are equal when their defining values are (degree, primes, `t`,
/// variant, transform); ciphertexts check that equality, keys that of the core's parameters.
pub struct BfvParameters {
    core: Arc<RlweParameters>,
    plaintext_modulus: u64,
    variant: MulVariant,
    multiplication: MulTables,
    ring_mul: Arc<RingContext>,
}

impl core::fmt::Debug for BfvParameters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The tables run to megabytes: show the defining values only.
        f.debug_struct("BfvParameters")
            .field("degree", &self.core.degree())
            .field("ciphertext_moduli", &self.core.ciphertext_moduli())
            .field("special_moduli", &self.core.special_moduli())
            .field("plaintext_modulus", &self.plaintext_modulus)
            .field("variant", &self.variant)
            .field("transform", &self.core.transform())
            .field("auxiliary_moduli", &self.multiplication.auxiliary_moduli())
            .field("secure_128", &self.core.is_secure_128())
            .finish()
    }
}

impl PartialEq for BfvParameters {
    fn eq(&self, other: &Self) -> bool {
        *self.core == *other.core && self.plaintext_modulus == other.plaintext_modulus && self.variant == other.variant
    }
}

impl Eq for BfvParameters {}

/// What the core's shared code (plaintexts, encoders, the codec) needs: the core's parameters,
/// `t` and the tag "BFV".
impl rlwe::SchemeParameters for BfvParameters {
    const SCHEME: rlwe::framing::Scheme = rlwe::framing::Scheme::Bfv;

    /// BFV keeps its ciphertexts in coefficients (its products scale and round there).
    type Form = poly::Coeff;
    type CiphertextState = ();

    fn core(&self) -> &Arc<RlweParameters> {
        &self.core
    }

    fn plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus
    }

    fn difference(&self, other: &Self) -> &'static str {
        match self.core.difference(&other.core) {
            Some(field) => field,
            None if self.plaintext_modulus != other.plaintext_modulus => "plaintext modulus",
            None => "multiplication variant (BEHZ or HPS)",
        }
    }
}

impl BfvParameters {
    /// BFV parameters over an existing core (the ring and primes of a BGV parameter set, say,
    /// to switch between the schemes under one key: `BfvParameters::from_core(bgv.core(), t,
    /// variant)`), with plaintext modulus `t` and the multiplication `variant`. Errors as
    /// [`BfvParametersBuilder::build`] for `t` and the variant's base, and with
    /// [`BfvError::InvalidParameter`] for a core over `Phi_m` (BFV runs over `x^N + 1`).
    pub fn from_core(core: &Arc<RlweParameters>, t: u64, variant: MulVariant) -> Result<Arc<Self>> {
        if let poly::RingKind::Cyclotomic { m } = core.ring_kind() {
            return Err(BfvError::InvalidParameter {
                name: "m",
                value: m as u64,
                requirement: "BFV runs over x^N + 1; Phi_m rings are BGV's".to_string(),
            });
        }
        let (degree, ciphertext) = (core.degree(), core.ciphertext_moduli());
        check_plaintext_modulus(t, degree, ciphertext)?;
        // The multiplication's auxiliary base: as few 62-bit primes as the rns crate's bounds
        // allow (they never meet the special primes: the two bases live in different rings).
        let multiplication = match variant {
            MulVariant::Hps => MulTables::Hps(Box::new(HpsContext::with_generated_moduli(degree, ciphertext, t)?)),
            MulVariant::Behz => MulTables::Behz(Box::new(BehzContext::with_generated_moduli(degree, ciphertext, t)?)),
        };
        let mul_base_len = ciphertext.len() + multiplication.auxiliary_moduli().len();
        if mul_base_len > MAX_PRIMES {
            return Err(BfvError::InvalidParameter {
                name: "number of ciphertext primes",
                value: ciphertext.len() as u64,
                requirement: format!(
                    "the {} multiplication needs {} auxiliary primes: q with them must stay within {MAX_PRIMES} primes",
                    variant.name(),
                    mul_base_len - ciphertext.len()
                ),
            });
        }
        BfvParameters::assemble(Arc::clone(core), t, variant, multiplication)
    }

    fn assemble(
        core: Arc<RlweParameters>,
        plaintext_modulus: u64,
        variant: MulVariant,
        multiplication: MulTables,
    ) -> Result<Arc<Self>> {
        let mul: Vec<u64> = core.ciphertext_moduli().iter().copied().chain(multiplication.auxiliary_moduli()).collect();
        let ring_mul = RingContext::new(core.degree(), &mul, core.transform())?;
        Ok(Arc::new(Self { core, plaintext_modulus, variant, multiplication, ring_mul }))
    }

    /// The RLWE core's parameters (what keys belong to).
    pub fn core(&self) -> &Arc<RlweParameters> {
        &self.core
    }

    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.core.degree()
    }

    /// The ciphertext primes `q_0, ..., q_{L-1}`.
    pub fn ciphertext_moduli(&self) -> &[u64] {
        self.core.ciphertext_moduli()
    }

    /// The special primes `p_0, ..., p_{k-1}` of key switching.
    pub fn special_moduli(&self) -> &[u64] {
        self.core.special_moduli()
    }

    /// The plaintext modulus `t`.
    pub fn plaintext_modulus(&self) -> u64 {
        self.plaintext_modulus
    }

    /// The multiplication variant.
    pub fn variant(&self) -> MulVariant {
        self.variant
    }

    /// The transform of the evaluation representation.
    pub fn transform(&self) -> TransformKind {
        self.core.transform()
    }

    /// The RNS tables of multiplication and decryption.
    pub fn multiplication_tables(&self) -> &MulTables {
        &self.multiplication
    }

    /// The key-switching tables (digits, ModUp, ModDown).
    pub fn key_switch_tables(&self) -> &KeySwitchContext {
        self.core.key_switch_tables()
    }

    /// Whether `log2(Q * P)` is within the 128-bit table.
    pub fn is_secure_128(&self) -> bool {
        self.core.is_secure_128()
    }

    /// `q`, the product of the ciphertext primes.
    pub fn ciphertext_modulus(&self) -> &BigUint {
        self.core.ciphertext_modulus()
    }

    /// `log2(Q * P)` rounded up: the bits of the product of ciphertext and special primes.
    pub fn key_modulus_bits(&self) -> u64 {
        self.core.key_modulus_bits()
    }

    /// Number of ciphertext primes in one key-switching digit (the number of special primes,
    /// at most `L`).
    pub fn digit_size(&self) -> usize {
        self.core.digit_size()
    }

    /// Number of key-switching digits, `ceil(L / digit_size)`.
    pub fn digit_count(&self) -> usize {
        self.core.digit_count()
    }

    /// `R_q`.
    pub fn ring_q(&self) -> &Arc<RingContext> {
        self.core.ring_q()
    }

    /// `R_{qP}` (ciphertext primes, then special primes).
    pub fn ring_qp(&self) -> &Arc<RingContext> {
        self.core.ring_qp()
    }

    /// The ring of the tensor product: ciphertext primes, then the auxiliary base.
    pub fn ring_mul(&self) -> &Arc<RingContext> {
        &self.ring_mul
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A preset of any `log_degree` has a name: `2^log_degree` beyond 63 (it used to shift
    /// out of range: a panic with overflow checks, `N=1` without), the number below.
    #[test]
    fn preset_names_never_overflow() {
        assert_eq!(Preset::Secure { log_degree: 64 }.name(), "Secure(N=2^64)");
        assert_eq!(Preset::Phantom { log_degree: u32::MAX, hybrid: true }.name(), "Phantom(N=2^4294967295, hybrid)");
        assert_eq!(Preset::GpuFv { log_degree: 63 }.name(), format!("GpuFv(N={})", 1u64 << 63));
        assert_eq!(Preset::SpogBvma { log_degree: 12 }.name(), "SpogBvma(N=4096)");
        for log_degree in [64, 100, u32::MAX] {
            assert!(Preset::SpogBpavr { log_degree }.build().is_err());
            assert!(Preset::SpogBpavr { log_degree }.depth().is_err());
        }
    }

    #[test]
    fn every_preset_builds_or_needs_the_opt_out() {
        for preset in Preset::all() {
            let secure = preset.is_secure_128().unwrap();
            match preset.build() {
                Ok(params) => {
                    assert!(secure, "{} built without the opt-out", preset.name());
                    assert!(params.is_secure_128());
                    let max = max_modulus_bits_128(params.degree()).unwrap();
                    assert!(params.key_modulus_bits() <= max, "{}", preset.name());
                }
                Err(BfvError::Insecure { degree, modulus_bits, max_bits }) => {
                    assert!(!secure, "{} refused although secure", preset.name());
                    assert_eq!(1usize << degree.trailing_zeros(), degree);
                    assert!(modulus_bits > max_bits);
                    let params = preset.builder().unwrap().allow_insecure(true).build().unwrap();
                    assert!(!params.is_secure_128());
                    assert_eq!(params.key_modulus_bits(), modulus_bits);
                }
                Err(other) => panic!("{}: {other}", preset.name()),
            }
        }
    }

    #[test]
    fn presets_have_the_documented_shapes() {
        let p = Preset::Phantom { log_degree: 14, hybrid: true }.build().unwrap();
        assert_eq!(p.degree(), 16384);
        assert_eq!(p.ciphertext_moduli().len(), 8);
        assert_eq!(p.special_moduli().len(), 4);
        assert_eq!(p.digit_size(), 4);
        assert_eq!(p.digit_count(), 2);
        assert_eq!(p.key_modulus_bits(), 438);
        let p = Preset::Secure { log_degree: 12 }.build().unwrap();
        assert_eq!(p.key_modulus_bits(), 109);
        assert_eq!(p.digit_count(), 2);
        let t = p.plaintext_modulus();
        assert_eq!(t % 8192, 1);
        assert!(modarith::is_prime(t) && (1 << 19..1 << 20).contains(&t));
        let p = Preset::GpuFv { log_degree: 12 }.builder().unwrap().allow_insecure(true).build().unwrap();
        assert_eq!((p.plaintext_modulus(), p.variant(), p.transform()), (2, MulVariant::Behz, TransformKind::Dgt));
        assert!(p.ciphertext_moduli().iter().all(|&q| q >> 61 == 1));
        assert!(matches!(Preset::Secure { log_degree: 11 }.build(), Err(BfvError::InvalidParameter { .. })));
        assert!(matches!(
            Preset::Phantom { log_degree: 12, hybrid: true }.build(),
            Err(BfvError::InvalidParameter { name: "preset log_degree", value: 12, .. })
        ));
    }

    #[test]
    fn generated_primes_are_distinct_and_ntt_friendly() {
        let p = BfvParametersBuilder::new(4096)
            .ciphertext_moduli_bits(&[25, 25, 25])
            .special_moduli_bits(&[25])
            .plaintext_modulus(17)
            .build()
            .unwrap();
        let all: Vec<u64> = p.ciphertext_moduli().iter().chain(p.special_moduli()).copied().collect();
        for (i, &q) in all.iter().enumerate() {
            assert!(modarith::is_prime(q) && q % 8192 == 1 && q >> 24 == 1);
            assert!(!all[..i].contains(&q));
        }
        // The tensor ring: q first, then the auxiliary base.
        let mul = p.ring_mul().moduli().iter().map(|m| m.value()).collect::<Vec<_>>();
        assert_eq!(&mul[..3], p.ciphertext_moduli());
        assert!(mul.len() > 3);
    }

    #[test]
    fn validation_names_the_parameter_and_bound() {
        let base = || BfvParametersBuilder::new(4096).ciphertext_moduli_bits(&[36, 36]).special_moduli_bits(&[37]);
        let check = |builder: BfvParametersBuilder, expected_name: &str, expected_value: u64| match builder.build() {
            Err(BfvError::InvalidParameter { name, value, requirement }) => {
                assert_eq!((name, value), (expected_name, expected_value), "{requirement}");
                assert!(!requirement.is_empty());
            }
            other => panic!("expected {expected_name}: {other:?}"),
        };
        check(BfvParametersBuilder::new(3000), "degree", 3000);
        check(BfvParametersBuilder::new(1 << 18), "degree", 1 << 18);
        check(base().plaintext_modulus(1), "plaintext modulus t", 1);
        check(base().plaintext_modulus(1 << 60), "plaintext modulus t", 1 << 60);
        check(base().ciphertext_moduli_bits(&[]), "ciphertext moduli", 0);
        check(base().special_moduli_bits(&[]), "special moduli", 0);
        check(base().ciphertext_moduli_bits(&[63]), "ciphertext moduli", 63);
        check(base().ciphertext_moduli(&[12289]), "ciphertext moduli", 12289); // 4097 mod 8192
        check(base().ciphertext_moduli(&[8193 * 3]), "ciphertext moduli", 8193 * 3); // not prime
        let q = modarith::generate_ntt_primes(36, 8192, 2, &[]).unwrap();
        check(base().ciphertext_moduli(&[q[0], q[0]]), "ciphertext moduli", q[0]);
        check(base().ciphertext_moduli(&q).special_moduli(&[q[1]]), "special moduli", q[1]);
        check(base().ciphertext_moduli(&q[..1]).plaintext_modulus(q[0] * 2), "plaintext modulus t", q[0] * 2);
        check(
            BfvParametersBuilder::new(4096)
                .ciphertext_moduli(&q[..1])
                .special_moduli_bits(&[37])
                .plaintext_modulus(q[0] - 2),
            "plaintext modulus t",
            q[0] - 2,
        );
        // 110 bits at N = 4096 is one bit too many.
        match base().special_moduli_bits(&[38]).build() {
            Err(BfvError::Insecure { degree: 4096, modulus_bits: 110, max_bits: 109 }) => {}
            other => panic!("{other:?}"),
        }
        assert!(base().special_moduli_bits(&[38]).allow_insecure(true).build().is_ok());
    }

    #[test]
    fn parameters_compare_by_value() {
        let a = Preset::Secure { log_degree: 12 }.build().unwrap();
        let b = Preset::Secure { log_degree: 12 }.build().unwrap();
        assert_eq!(*a, *b);
        let c = Preset::Secure { log_degree: 12 }.builder().unwrap().variant(MulVariant::Behz).build().unwrap();
        assert_ne!(*a, *c);
    }
}
