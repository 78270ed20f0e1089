//! [`RlweParameters`]: what every RLWE scheme's parameters share: the ring degree, the
//! ciphertext primes `q = q_0 ... q_{L-1}`, the special primes `P = p_0 ... p_{k-1}` of key
//! switching, the transform of the evaluation representation, and the 128-bit security check
//! of the HE Standard ([`crate::security`]). Schemes add their own values (plaintext modulus,
//! multiplication tables) around an `Arc<RlweParameters>`.
//!
//! The ring is `Z_q[x]/(x^N + 1)` unless the builder is made for a ring `Z_q[x]/Phi_m`
//! ([`RlweParametersBuilder::new_cyclotomic`]; `poly::RingKind`, `docs/rings.md`): then the
//! degree is `phi(m)`, the transform Bluestein's, the primes `= 1 mod m` and `= 1 mod 2M`, and
//! the security check reads the table at dimension `phi(m)`
//! ([`crate::security::max_modulus_bits_128_dimension`]).

use std::sync::Arc;

use modarith::{Modulus, generate_ntt_primes};
use num_bigint::BigUint;
use num_traits::One;
use poly::{RingContext, RingKind, TransformKind};
use rns::KeySwitchContext;

use crate::security::{max_modulus_bits_128, max_modulus_bits_128_dimension};
use crate::{Result, RlweError};

/// Smallest ring degree.
pub const MIN_DEGREE: usize = poly::context::MIN_DEGREE;
/// Largest ring degree.
pub const MAX_DEGREE: usize = poly::context::MAX_DEGREE;
/// Largest number of primes in any RNS basis of one parameter set, the limit of a ring context.
pub const MAX_PRIMES: usize = poly::context::MAX_LIMBS;

/// How a set of primes is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModuliChoice {
    /// One generated NTT-friendly prime (`1 mod 2N`; for a ring `Z_q[x]/Phi_m`, `1 mod m` and
    /// `1 mod 2M`) per entry, of that many bits, distinct from all others.
    Bits(Vec<u32>),
    /// These primes, validated.
    Explicit(Vec<u64>),
}

/// Builds and validates [`RlweParameters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RlweParametersBuilder {
    ring: RingKind,
    degree: usize,
    ciphertext_moduli: ModuliChoice,
    special_moduli: ModuliChoice,
    transform: TransformKind,
    allow_insecure: bool,
}

/// The validated degree and primes of a builder, before the security check
/// ([`RlweParametersBuilder::moduli`]); schemes check their own values in between.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedModuli {
    /// The ring degree.
    pub degree: usize,
    /// The ciphertext primes.
    pub ciphertext: Vec<u64>,
    /// The special primes.
    pub special: Vec<u64>,
}

impl RlweParametersBuilder {
    /// A builder for degree `degree` with no moduli yet and the NTT.
    pub fn new(degree: usize) -> Self {
        Self {
            ring: RingKind::NegacyclicPowerOfTwo { degree },
            degree,
            ciphertext_moduli: ModuliChoice::Bits(Vec::new()),
            special_moduli: ModuliChoice::Bits(Vec::new()),
            transform: TransformKind::Ntt,
            allow_insecure: false,
        }
    }

    /// A builder for the ring `Z_q[x]/Phi_m` (odd `m`, degree `phi(m)`) with no moduli yet and
    /// Bluestein's transform. BGV runs over it on the CPU and the GPU (`bgv-encrypt`; the GPU
    /// opens these rings from `m = 257`, `poly_cuda::GpuCyclotomic`).
    pub fn new_cyclotomic(m: usize) -> Self {
        let ring = RingKind::Cyclotomic { m };
        Self {
            ring,
            // phi(m), 0 for an m that `moduli` refuses.
            degree: if m >= 1 && m as u64 <= poly::cyclotomic::MAX_M { ring.degree() } else { 0 },
            ciphertext_moduli: ModuliChoice::Bits(Vec::new()),
            special_moduli: ModuliChoice::Bits(Vec::new()),
            transform: TransformKind::Bluestein,
            allow_insecure: false,
        }
    }

    /// The ring degree.
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The ring kind.
    pub fn ring_kind(&self) -> RingKind {
        self.ring
    }

    /// The ciphertext primes.
    pub fn ciphertext(mut self, choice: ModuliChoice) -> Self {
        self.ciphertext_moduli = choice;
        self
    }

    /// The special primes of key switching. One special prime gives SEAL's key switching (one
    /// digit per ciphertext prime); `k` of them give hybrid key switching with digits of `k`
    /// ciphertext primes each.
    pub fn special(mut self, choice: ModuliChoice) -> Self {
        self.special_moduli = choice;
        self
    }

    /// The transform of the evaluation representation.
    pub fn transform(mut self, transform: TransformKind) -> Self {
        self.transform = transform;
        self
    }

    /// Accepts parameters beyond the 128-bit table (for benchmarks and the seeds' sets).
    pub fn allow_insecure(mut self, allow: bool) -> Self {
        self.allow_insecure = allow;
        self
    }

    /// Validates the degree and the primes, generating those given by size.
    ///
    /// Errors ([`RlweError::InvalidParameter`] naming the parameter and its bound): degree not
    /// a power of two in `2^10..=2^17`; no ciphertext or no special prime; a prime that is not
    /// a prime below `2^62`, not `1 mod 2N`, or repeated; more than 64 primes in `q u P`.
    pub fn moduli(&self) -> Result<ResolvedModuli> {
        let degree = self.degree;
        let step = match self.ring {
            RingKind::NegacyclicPowerOfTwo { .. } => {
                if !degree.is_power_of_two() || !(MIN_DEGREE..=MAX_DEGREE).contains(&degree) {
                    return Err(RlweError::InvalidParameter {
                        name: "degree",
                        value: degree as u64,
                        requirement: format!("must be a power of two in {MIN_DEGREE}..={MAX_DEGREE}"),
                    });
                }
                PrimeStep::PowerOfTwo(2 * degree as u64)
            }
            RingKind::Cyclotomic { m } => {
                if m < 3 || m.is_multiple_of(2) || m as u64 > poly::cyclotomic::MAX_M {
                    return Err(RlweError::InvalidParameter {
                        name: "m",
                        value: m as u64,
                        requirement: format!("must be odd, in 3..={}", poly::cyclotomic::MAX_M),
                    });
                }
                // m odd and 2M a power of two: one congruence.
                PrimeStep::Cyclotomic(m as u64 * 2 * poly::bluestein::bluestein_length(m) as u64)
            }
        };
        let ciphertext = resolve_moduli(&self.ciphertext_moduli, "ciphertext moduli", step, &[])?;
        let special = resolve_moduli(&self.special_moduli, "special moduli", step, &ciphertext)?;
        for &p in &special {
            if ciphertext.contains(&p) {
                return Err(RlweError::InvalidParameter {
                    name: "special modulus",
                    value: p,
                    requirement: "must differ from every ciphertext prime".to_string(),
                });
            }
        }
        if ciphertext.len() + special.len() > MAX_PRIMES {
            return Err(RlweError::InvalidParameter {
                name: "number of ciphertext and special primes",
                value: (ciphertext.len() + special.len()) as u64,
                requirement: format!("at most {MAX_PRIMES}"),
            });
        }
        Ok(ResolvedModuli { degree, ciphertext, special })
    }

    /// The parameters of `moduli` (from [`moduli`](Self::moduli)) with this builder's
    /// transform: checks `log2(Q * P)` against the 128-bit table ([`RlweError::Insecure`]
    /// beyond it without [`allow_insecure`](Self::allow_insecure)), then builds the key-switching
    /// tables and the rings.
    pub fn assemble(&self, moduli: ResolvedModuli) -> Result<Arc<RlweParameters>> {
        let ResolvedModuli { degree, ciphertext, special } = moduli;
        let q = product(&ciphertext);
        let modulus_bits = (&q * product(&special)).bits();
        let max_bits = match self.ring {
            RingKind::NegacyclicPowerOfTwo { .. } => max_modulus_bits_128(degree),
            RingKind::Cyclotomic { .. } => max_modulus_bits_128_dimension(degree),
        }
        .unwrap_or(0);
        if modulus_bits > max_bits && !self.allow_insecure {
            return Err(RlweError::Insecure { degree, modulus_bits, max_bits });
        }
        let digit_size = special.len().min(ciphertext.len());
        let key_switch = KeySwitchContext::new(degree, &ciphertext, &special, digit_size)?;
        let ring_q = RingContext::with_kind(self.ring, &ciphertext, self.transform)?;
        let ciphertext_len = ciphertext.len();
        let qp: Vec<u64> = ciphertext.iter().chain(&special).copied().collect();
        let ring_qp = RingContext::with_kind(self.ring, &qp, self.transform)?;
        Ok(Arc::new(RlweParameters {
            ring: self.ring,
            degree,
            ciphertext,
            special,
            transform: self.transform,
            key_switch,
            secure_128: modulus_bits <= max_bits,
            ring_q,
            ring_qp,
            q,
            levels: (0..ciphertext_len).map(|_| std::sync::OnceLock::new()).collect(),
            key_switch_levels: (0..ciphertext_len).map(|_| std::sync::OnceLock::new()).collect(),
        }))
    }

    /// [`moduli`](Self::moduli), then [`assemble`](Self::assemble).
    pub fn build(&self) -> Result<Arc<RlweParameters>> {
        self.assemble(self.moduli()?)
    }
}

fn product(primes: &[u64]) -> BigUint {
    primes.iter().fold(BigUint::one(), |acc, &p| acc * p)
}

/// The congruence `p = 1 mod step` that the primes of a ring meet.
#[derive(Debug, Clone, Copy)]
enum PrimeStep {
    /// `2N` (the power-of-two ring).
    PowerOfTwo(u64),
    /// `m 2M` (a ring `Z_q[x]/Phi_m`: the `m`-th roots and Bluestein's convolution of length `M`).
    Cyclotomic(u64),
}

impl PrimeStep {
    fn value(self) -> u64 {
        match self {
            PrimeStep::PowerOfTwo(step) | PrimeStep::Cyclotomic(step) => step,
        }
    }

    /// The largest prime of `bits` bits `= 1 mod step`, not in `exclude`.
    fn generate(self, bits: u32, exclude: &[u64]) -> Option<u64> {
        match self {
            PrimeStep::PowerOfTwo(two_n) => generate_ntt_primes(bits, two_n, 1, exclude).ok()?.first().copied(),
            PrimeStep::Cyclotomic(step) => {
                if !(2..=62).contains(&bits) {
                    return None;
                }
                let (lower, upper) = (1u64 << (bits - 1), (1u64 << bits) - 1);
                let first = upper / step * step + 1;
                let candidates = core::iter::successors(Some(first), |&c| c.checked_sub(step));
                candidates
                    .take_while(|&c| c > lower)
                    .find(|&c| c <= upper && !exclude.contains(&c) && modarith::is_prime(c))
            }
        }
    }
}

fn resolve_moduli(choice: &ModuliChoice, name: &'static str, step: PrimeStep, taken: &[u64]) -> Result<Vec<u64>> {
    let two_n = step.value();
    let congruence = match step {
        PrimeStep::PowerOfTwo(_) => "2N",
        PrimeStep::Cyclotomic(_) => "m 2M",
    };
    let primes = match choice {
        ModuliChoice::Bits(bits) => {
            let mut primes: Vec<u64> = Vec::with_capacity(bits.len());
            for &b in bits {
                let mut exclude: Vec<u64> = taken.to_vec();
                exclude.extend(&primes);
                let found = step.generate(b, &exclude).ok_or_else(|| RlweError::InvalidParameter {
                    name,
                    value: u64::from(b),
                    requirement: format!(
                        "prime bit sizes must be at most 62 and leave enough distinct primes = 1 mod {congruence} = {two_n}"
                    ),
                })?;
                primes.push(found);
            }
            primes
        }
        ModuliChoice::Explicit(primes) => {
            for (i, &p) in primes.iter().enumerate() {
                if Modulus::new(p).is_err() {
                    return Err(RlweError::InvalidParameter {
                        name,
                        value: p,
                        requirement: "must be a prime below 2^62".to_string(),
                    });
                }
                if p % two_n != 1 {
                    return Err(RlweError::InvalidParameter {
                        name,
                        value: p,
                        requirement: format!("must be 1 mod {congruence} = {two_n}"),
                    });
                }
                if primes[..i].contains(&p) || taken.contains(&p) {
                    return Err(RlweError::InvalidParameter {
                        name,
                        value: p,
                        requirement: "primes must be distinct".to_string(),
                    });
                }
            }
            primes.clone()
        }
    };
    if primes.is_empty() {
        return Err(RlweError::InvalidParameter {
            name,
            value: 0,
            requirement: "at least one prime is needed".to_string(),
        });
    }
    Ok(primes)
}

/// Validated RLWE parameters, with the ring contexts every scheme uses:
///
/// - `ring_q`: `R_q` with the ciphertext primes (ciphertexts, public key);
/// - `ring_qp`: `R_{qP}`, the ciphertext primes then the special primes (key-switching keys).
///
/// Two parameter objects are equal when their defining values are (ring kind, degree, primes,
/// transform); keys check that equality.
pub struct RlweParameters {
    ring: RingKind,
    degree: usize,
    ciphertext: Vec<u64>,
    special: Vec<u64>,
    transform: TransformKind,
    key_switch: KeySwitchContext,
    secure_128: bool,
    ring_q: Arc<RingContext>,
    ring_qp: Arc<RingContext>,
    q: BigUint,
    /// The rings of the levels below the top, built on first use (chain.rs).
    pub(crate) levels: Vec<std::sync::OnceLock<Arc<RingContext>>>,
    /// The key-switching tables of the levels below the top, built on first use (chain.rs).
    pub(crate) key_switch_levels: Vec<std::sync::OnceLock<crate::chain::LevelKeySwitch>>,
}

impl core::fmt::Debug for RlweParameters {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The tables run to megabytes: show the defining values only.
        f.debug_struct("RlweParameters")
            .field("ring", &self.ring)
            .field("degree", &self.degree)
            .field("ciphertext_moduli", &self.ciphertext)
            .field("special_moduli", &self.special)
            .field("transform", &self.transform)
            .field("secure_128", &self.secure_128)
            .finish()
    }
}

impl PartialEq for RlweParameters {
    fn eq(&self, other: &Self) -> bool {
        self.ring == other.ring
            && self.degree == other.degree
            && self.ciphertext == other.ciphertext
            && self.special == other.special
            && self.transform == other.transform
    }
}

impl Eq for RlweParameters {}

impl RlweParameters {
    /// The first defining value in which `other` differs from these parameters (`None`: equal):
    /// what a [`RlweError::ParameterMismatch`] names.
    pub fn difference(&self, other: &Self) -> Option<&'static str> {
        if self.ring != other.ring {
            Some(if self.degree != other.degree { "ring degree" } else { "ring (x^N + 1 or Phi_m)" })
        } else if self.ciphertext != other.ciphertext {
            Some("ciphertext primes")
        } else if self.special != other.special {
            Some("special primes")
        } else if self.transform != other.transform {
            Some("transform")
        } else {
            None
        }
    }

    /// The ring degree `N` (`phi(m)` for a ring `Z_q[x]/Phi_m`).
    pub fn degree(&self) -> usize {
        self.degree
    }

    /// The ring kind: `x^N + 1`, or `Phi_m`.
    pub fn ring_kind(&self) -> RingKind {
        self.ring
    }

    /// The ring of these parameters' kind and transform over `moduli` (the rings of the levels,
    /// of `P`, of single primes).
    pub fn ring_context(&self, moduli: &[u64]) -> Result<Arc<RingContext>> {
        Ok(RingContext::with_kind(self.ring, moduli, self.transform)?)
    }

    /// The ciphertext primes `q_0, ..., q_{L-1}`.
    pub fn ciphertext_moduli(&self) -> &[u64] {
        &self.ciphertext
    }

    /// The special primes `p_0, ..., p_{k-1}` of key switching.
    pub fn special_moduli(&self) -> &[u64] {
        &self.special
    }

    /// The transform of the evaluation representation.
    pub fn transform(&self) -> TransformKind {
        self.transform
    }

    /// The key-switching tables (digits, ModUp, ModDown).
    pub fn key_switch_tables(&self) -> &KeySwitchContext {
        &self.key_switch
    }

    /// Whether `log2(Q * P)` is within the 128-bit table.
    pub fn is_secure_128(&self) -> bool {
        self.secure_128
    }

    /// `q`, the product of the ciphertext primes.
    pub fn ciphertext_modulus(&self) -> &BigUint {
        &self.q
    }

    /// `log2(Q * P)` rounded up: the bits of the product of ciphertext and special primes.
    pub fn key_modulus_bits(&self) -> u64 {
        (&self.q * product(&self.special)).bits()
    }

    /// Number of ciphertext primes in one key-switching digit (the number of special primes,
    /// at most `L`).
    pub fn digit_size(&self) -> usize {
        self.special.len().min(self.ciphertext.len())
    }

    /// Number of key-switching digits, `ceil(L / digit_size)`.
    pub fn digit_count(&self) -> usize {
        self.ciphertext.len().div_ceil(self.digit_size())
    }

    /// `R_q`.
    pub fn ring_q(&self) -> &Arc<RingContext> {
        &self.ring_q
    }

    /// `R_{qP}` (ciphertext primes, then special primes).
    pub fn ring_qp(&self) -> &Arc<RingContext> {
        &self.ring_qp
    }
}
