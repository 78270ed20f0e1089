//! [`RlweParameters`]: what every RLWE scheme's parameters share: the ring degree, the
//! ciphertext primes `q = q_0 ... q_{L-1}`, the special primes `P = p_0 ... p_{k-1}` of key
//! switching, the transform of the evaluation representation, and the 128-bit security check
//! of the HE Standard ([`crate::security`]). Schemes add their own values (plaintext modulus,
//! multiplication tables) around an `Arc<RlweParameters>`.

use std::sync::Arc;

use modarith::{Modulus, generate_ntt_primes};
use num_bigint::BigUint;
use num_traits::One;
use poly::{RingContext, TransformKind};
use rns::KeySwitchContext;

use crate::security::max_modulus_bits_128;
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
    /// One generated NTT-friendly prime (`1 mod 2N`) per entry, of that many bits, distinct
    /// from all others.
    Bits(Vec<u32>),
    /// These primes, validated.
    Explicit(Vec<u64>),
}

/// Builds and validates [`RlweParameters`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RlweParametersBuilder {
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
            degree,
            ciphertext_moduli: ModuliChoice::Bits(Vec::new()),
            special_moduli: ModuliChoice::Bits(Vec::new()),
            transform: TransformKind::Ntt,
            allow_insecure: false,
        }
    }

    /// The ring degree.
    pub fn degree(&self) -> usize {
        self.degree
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
        if !degree.is_power_of_two() || !(MIN_DEGREE..=MAX_DEGREE).contains(&degree) {
            return Err(RlweError::InvalidParameter {
                name: "degree",
                value: degree as u64,
                requirement: format!("must be a power of two in {MIN_DEGREE}..={MAX_DEGREE}"),
            });
        }
        let ciphertext = resolve_moduli(&self.ciphertext_moduli, "ciphertext moduli", degree, &[])?;
        let special = resolve_moduli(&self.special_moduli, "special moduli", degree, &ciphertext)?;
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
        let max_bits = max_modulus_bits_128(degree).unwrap_or(0);
        if modulus_bits > max_bits && !self.allow_insecure {
            return Err(RlweError::Insecure { degree, modulus_bits, max_bits });
        }
        let digit_size = special.len().min(ciphertext.len());
        let key_switch = KeySwitchContext::new(degree, &ciphertext, &special, digit_size)?;
        let ring_q = RingContext::new(degree, &ciphertext, self.transform)?;
        let ciphertext_len = ciphertext.len();
        let qp: Vec<u64> = ciphertext.iter().chain(&special).copied().collect();
        let ring_qp = RingContext::new(degree, &qp, self.transform)?;
        Ok(Arc::new(RlweParameters {
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

fn resolve_moduli(choice: &ModuliChoice, name: &'static str, degree: usize, taken: &[u64]) -> Result<Vec<u64>> {
    let two_n = 2 * degree as u64;
    let primes = match choice {
        ModuliChoice::Bits(bits) => {
            let mut primes: Vec<u64> = Vec::with_capacity(bits.len());
            for &b in bits {
                let mut exclude: Vec<u64> = taken.to_vec();
                exclude.extend(&primes);
                let found = generate_ntt_primes(b, two_n, 1, &exclude).map_err(|_| RlweError::InvalidParameter {
                    name,
                    value: u64::from(b),
                    requirement: format!(
                        "prime bit sizes must be at most 62 and leave enough distinct primes = 1 mod 2N = {two_n}"
                    ),
                })?;
                primes.extend(found);
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
                        requirement: format!("must be 1 mod 2N = {two_n}"),
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
/// Two parameter objects are equal when their defining values are (degree, primes,
/// transform); keys check that equality.
pub struct RlweParameters {
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
        self.degree == other.degree
            && self.ciphertext == other.ciphertext
            && self.special == other.special
            && self.transform == other.transform
    }
}

impl Eq for RlweParameters {}

impl RlweParameters {
    /// The ring degree `N`.
    pub fn degree(&self) -> usize {
        self.degree
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
