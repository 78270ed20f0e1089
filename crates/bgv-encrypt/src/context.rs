//! [`BgvContext`]: BGV parameters prepared on one backend, and the types that live there:
//! keys (the core's, made with error scale `t`) and ciphertexts ([`Ciphertext`],
//! [`SeededCiphertext`]).
//!
//! Conventions: the polynomials of a ciphertext at level `l` are in the evaluation
//! representation over `q_l = q_0 .. q_l` (as Phantom's and SEAL's BGV keep them: products are
//! element-wise, and decryption needs one inverse transform), and `(c_0, ..., c_k)` with
//! correction factor `f` decrypts as `[c_0 + c_1 s + ... + c_k s^k]_{q_l} f^{-1} mod t`.
//! Operations that need coefficients (key switching, modulus switching, automorphisms, byte
//! encodings) transform on the way.
//!
//! Randomness, as in bfv: every sampled polynomial comes from `(seed, index)` pairs through the
//! backend's samplers, so the same seeds give the same keys and ciphertexts on every backend.

use core::fmt;
use std::sync::{Arc, OnceLock};

use poly::{Coeff, Eval, Poly};
use rlwe::PlaintextScaling;
use rlwe::{KeySetId, RlweContext};

use crate::backend::{BgvBackend, DecryptionTables};
use crate::{BgvError, BgvParameters, Result};

pub use rlwe::{PublicKey, SecretKey};

/// The relinearization key: the core's key-switching key from `s^2` to `s` (errors times `t`).
pub type RelinKey<B> = rlwe::RelinearizationKey<B>;

/// Converts a backend's error into the core's error (`.be()?`).
pub(crate) use rlwe::BackendResult;

/// When a multiplication switches its operands down the modulus chain.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ModSwitching {
    /// Only when asked ([`BgvContext::mod_switch_to_next`], [`BgvContext::mod_switch_to`]):
    /// for circuits that place their switches themselves; a product whose noise was not
    /// brought down may decrypt to garbage ([`crate::BgvContext::noise_budget`] and
    /// `decrypt_checked` tell).
    Manual,
    /// Before a multiplication (or squaring), every operand that is itself a product (of a
    /// multiplication, or a sum or rotation of one) and above level 0 is switched one level
    /// down first, as the automatic modes of HElib and OpenFHE do: the noise of a product is
    /// brought back to the rounding floor `t (1 + N) / 2` before it is squared, so each prime
    /// buys about one level of depth, and fresh ciphertexts keep their level. A product by a
    /// plaintext that is not a constant counts as a product. A product at level 0, which
    /// cannot be switched down, is refused ([`BgvError::ModulusChainExhausted`]) rather than
    /// multiplied into garbage, and so is any multiplication (by a ciphertext, a plaintext or
    /// an integer) whose result the noise estimate every ciphertext carries says would not
    /// decrypt ([`BgvError::NoiseEstimateExceeded`]; [`crate::noise`]). The default.
    #[default]
    Auto,
}

/// What a binary operation does with ciphertexts at different levels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LevelPolicy {
    /// The higher one is switched down to the other's level first.
    #[default]
    BringDown,
    /// [`BgvError::LevelMismatch`].
    Strict,
}

/// The constants of one level: the plaintext lift into its primes, decryption's tables (host
/// and backend), and `q_l^{-1} mod t` (the factor modulus switching from `l` multiplies the
/// correction factor by).
pub(crate) struct LevelTables<B: BgvBackend> {
    pub(crate) scaling: PlaintextScaling,
    pub(crate) decryption: DecryptionTables,
    pub(crate) prepared: B::Decryption,
    pub(crate) last_prime_inv_mod_t: u64,
}

/// BGV parameters prepared on a backend: the RLWE core's context with error scale `t` and the
/// constants of each level (made on first use). All scheme operations are its methods.
pub struct BgvContext<B: BgvBackend> {
    pub(crate) backend: B,
    pub(crate) params: Arc<BgvParameters>,
    pub(crate) core: RlweContext<B>,
    pub(crate) levels: Vec<OnceLock<LevelTables<B>>>,
    pub(crate) mod_switching: ModSwitching,
    pub(crate) level_policy: LevelPolicy,
}

impl<B: BgvBackend> fmt::Debug for BgvContext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BgvContext")
            .field("backend", &self.backend.name())
            .field("params", &self.params)
            .field("mod_switching", &self.mod_switching)
            .field("level_policy", &self.level_policy)
            .finish()
    }
}

impl<B: BgvBackend> BgvContext<B> {
    /// Prepares `params` on `backend` (for a GPU: uploads the transform tables of `q` and `qP`
    /// and the top level's decryption tables), with [`ModSwitching::Auto`] and
    /// [`LevelPolicy::BringDown`].
    pub fn new(backend: B, params: &Arc<BgvParameters>) -> Result<Self> {
        let core = RlweContext::new(backend.clone(), params.core(), params.plaintext_modulus())?;
        let levels = (0..params.ciphertext_moduli().len()).map(|_| OnceLock::new()).collect();
        let context = Self {
            backend,
            params: Arc::clone(params),
            core,
            levels,
            mod_switching: ModSwitching::default(),
            level_policy: LevelPolicy::default(),
        };
        context.level_tables(context.top_level())?;
        Ok(context)
    }

    /// This context with `mode` for the multiplications.
    pub fn with_mod_switching(mut self, mode: ModSwitching) -> Self {
        self.mod_switching = mode;
        self
    }

    /// The modulus-switching mode of the multiplications.
    pub fn mod_switching(&self) -> ModSwitching {
        self.mod_switching
    }

    /// This context with `policy` for operations between levels.
    pub fn with_level_policy(mut self, policy: LevelPolicy) -> Self {
        self.level_policy = policy;
        self
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<BgvParameters> {
        &self.params
    }

    /// The RLWE core's context (keys, key switching, encryptions of zero), error scale `t`.
    pub fn core(&self) -> &RlweContext<B> {
        &self.core
    }

    /// The top level of the modulus chain, `L - 1`.
    pub fn top_level(&self) -> usize {
        self.params.max_level()
    }

    /// The constants of `level` (made on first use).
    pub(crate) fn level_tables(&self, level: usize) -> Result<&LevelTables<B>> {
        self.params.core().check_level(level)?;
        let cell = &self.levels[level];
        if cell.get().is_none() {
            let ring = self.params.core().ring_at_level(level)?;
            let primes = &self.params.ciphertext_moduli()[..=level];
            let t = self.params.plaintext_modulus();
            // The lift ignores the scaling's delta (BFV's floor(q/t)): ones, each below its prime.
            let delta = vec![1u64; primes.len()];
            let q_mod_t = rns::RnsBase::new(primes)?.product_mod(t);
            let scaling = PlaintextScaling::new(ring.moduli(), &delta, q_mod_t, t)?;
            let decryption = DecryptionTables::new(primes, t)?;
            let prepared = self.backend.prepare_decryption(&decryption)?;
            let last = primes[level] % t;
            let last_prime_inv_mod_t = inverse_mod(last, t).ok_or(BgvError::InvalidParameter {
                name: "plaintext modulus t",
                value: t,
                requirement: "must be coprime to every ciphertext prime".to_string(),
            })?;
            let _ = cell.set(LevelTables { scaling, decryption, prepared, last_prime_inv_mod_t });
        }
        cell.get().ok_or(BgvError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its tables could not be prepared".to_string(),
        })
    }

    /// Errors with [`BgvError::ParameterMismatch`] unless `other` equals these parameters.
    pub(crate) fn check(&self, other: &Arc<BgvParameters>, what: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.params, other) || *self.params == **other {
            Ok(())
        } else {
            Err(BgvError::ParameterMismatch { what, field: rlwe::SchemeParameters::difference(&*self.params, other) })
        }
    }

    /// Errors with [`BgvError::ParameterMismatch`] unless a key's core parameters are this
    /// context's.
    pub(crate) fn check_key(&self, other: &Arc<rlwe::RlweParameters>, what: &'static str) -> Result<()> {
        self.core.check(other, what)
    }

    /// Copies `ciphertext` to the host: its polynomials over `q_l`, coefficient representation
    /// (transformed on the backend first).
    pub fn download(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<Poly<Coeff>>> {
        self.check(ciphertext.params(), "ciphertext")?;
        ciphertext.polys().iter().map(|p| self.backend.download(&self.inverse_copy(p)?).be()).collect()
    }

    /// The coefficients of `poly` (a transformed copy; `poly` stays as it is).
    pub(crate) fn inverse_copy(&self, poly: &B::Poly<Eval>) -> Result<B::Poly<Coeff>> {
        rlwe::RlweBackend::inverse_copy(&self.backend, poly)
    }

    /// The evaluations of `poly` (transformed in place).
    pub(crate) fn forward(&self, poly: B::Poly<Coeff>) -> Result<B::Poly<Eval>> {
        self.backend.forward(poly).be()
    }

    /// Every polynomial of `polys` transformed (in place).
    pub(crate) fn forward_all(&self, polys: Vec<B::Poly<Coeff>>) -> Result<Vec<B::Poly<Eval>>> {
        polys.into_iter().map(|p| self.forward(p)).collect()
    }

    /// The coefficients of every polynomial of `polys` (transformed copies).
    pub(crate) fn inverse_all(&self, polys: &[B::Poly<Eval>]) -> Result<Vec<B::Poly<Coeff>>> {
        polys.iter().map(|p| self.inverse_copy(p)).collect()
    }

    /// A copy of `ciphertext` in fresh storage.
    pub fn duplicate(&self, ciphertext: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check(ciphertext.params(), "ciphertext")?;
        let polys = ciphertext.polys().iter().map(|p| self.backend.duplicate(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(
            ciphertext.params(),
            polys,
            ciphertext.level(),
            ciphertext.key_set(),
            *ciphertext.state(),
        ))
    }

    /// Expands a seeded ciphertext: regenerates `c_1 = a` from the public seed.
    pub fn expand(&self, seeded: &SeededCiphertext<B>) -> Result<Ciphertext<B>> {
        self.check(seeded.params(), "seeded ciphertext")?;
        let c0 = self.backend.forward_copy(seeded.c0())?;
        let c1 = self.forward(self.core.expand_uniform(seeded.public_seed())?)?;
        Ok(self.ciphertext(vec![c0, c1], self.top_level(), 1, seeded.key_set()))
    }

    /// A ciphertext of these parameters from its polynomials (evaluation representation over
    /// the first `level + 1` primes, on this context's backend), level and correction factor:
    /// for code built on this crate (scheme switching). Errors with
    /// [`BgvError::InvalidCiphertextSize`] for fewer than two polynomials, with
    /// [`BgvError::InvalidParameter`] above the top level or for a correction factor that is not
    /// an invertible residue modulo `t`. The rings are the caller's promise: a polynomial of
    /// another ring makes the next operation fail with a context mismatch.
    pub fn ciphertext_from_polys(
        &self,
        polys: Vec<B::Poly<Eval>>,
        level: usize,
        correction: u64,
        key_set: Option<KeySetId>,
    ) -> Result<Ciphertext<B>> {
        if polys.len() < 2 {
            return Err(BgvError::InvalidCiphertextSize {
                operation: "ciphertext_from_polys",
                expected: "at least 2",
                actual: polys.len(),
            });
        }
        self.params.core().check_level(level)?;
        let t = self.params.plaintext_modulus();
        if correction == 0 || correction >= t || inverse_mod(correction, t).is_none() {
            return Err(BgvError::InvalidParameter {
                name: "correction factor",
                value: correction,
                requirement: format!("must be an invertible residue modulo t = {t}"),
            });
        }
        Ok(self.ciphertext(polys, level, correction, key_set))
    }

    /// The coefficients of `ciphertext`'s polynomials, on the backend (transformed copies; the
    /// ciphertext stays as it is). Errors with [`BgvError::ParameterMismatch`] for a ciphertext
    /// of other parameters.
    pub fn coefficients(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<B::Poly<Coeff>>> {
        self.check(ciphertext.params(), "ciphertext")?;
        self.inverse_all(ciphertext.polys())
    }

    /// A ciphertext of these parameters.
    pub(crate) fn ciphertext(
        &self,
        polys: Vec<B::Poly<Eval>>,
        level: usize,
        correction: u64,
        key_set: Option<KeySetId>,
    ) -> Ciphertext<B> {
        let state = BgvCiphertextState { correction, product: false, noise_bits: self.params.noise_model().fresh() };
        Ciphertext::from_parts(&self.params, polys, level, key_set, state)
    }

    /// A ciphertext of these parameters with `state` (correction factor, product flag, noise
    /// estimate).
    pub(crate) fn ciphertext_with_state(
        &self,
        polys: Vec<B::Poly<Eval>>,
        level: usize,
        key_set: Option<KeySetId>,
        state: BgvCiphertextState,
    ) -> Ciphertext<B> {
        Ciphertext::from_parts(&self.params, polys, level, key_set, state)
    }

    /// The key set of the result of an operation on operands of key sets `first` and `second`
    /// ([`rlwe::KeySetId::combine`]): errors with `rlwe::RlweError::KeySetMismatch` (as
    /// the core's error, naming `what`, the second) when they differ.
    pub(crate) fn key_set_of(
        first: Option<KeySetId>,
        second: Option<KeySetId>,
        what: &'static str,
    ) -> Result<Option<KeySetId>> {
        KeySetId::combine(first, second, what)
    }
}

/// What the core's shared code (codec, resident plaintexts) needs of a BGV context.
impl<B: BgvBackend> rlwe::SchemeContext for BgvContext<B> {
    type Params = BgvParameters;
    type Backend = B;

    fn params(&self) -> &Arc<BgvParameters> {
        &self.params
    }

    fn core(&self) -> &RlweContext<B> {
        &self.core
    }
}

pub(crate) use modarith::inverse_mod;

/// A BGV ciphertext: `k + 1 >= 2` polynomials over `q_l` in the evaluation representation on
/// the backend, its level `l` and its correction factor `f` (module docs; the core's
/// [`rlwe::Ciphertext`], whose state is [`BgvCiphertextState`]).
pub type Ciphertext<B> = rlwe::Ciphertext<BgvParameters, B>;

/// What a BGV ciphertext carries beside its polynomials, level and key set
/// ([`rlwe::Ciphertext::state`]). Two states are equal when their correction factors and
/// product flags are: the noise estimate is bookkeeping, not part of the value.
#[derive(Debug, Clone, Copy)]
pub struct BgvCiphertextState {
    pub(crate) correction: u64,
    /// Whether this is a product not yet switched down: under [`ModSwitching::Auto`] the next
    /// multiplication switches it one level down first. Carried by the byte encoding from
    /// format version 3 (bit 63 of the correction-factor word).
    pub(crate) product: bool,
    /// `log2` of the estimated bound on the phase (`crate::noise`); not in the bytes.
    pub(crate) noise_bits: f64,
}

impl PartialEq for BgvCiphertextState {
    fn eq(&self, other: &Self) -> bool {
        self.correction == other.correction && self.product == other.product
    }
}

impl Eq for BgvCiphertextState {}

impl BgvCiphertextState {
    /// The correction factor `f` in `[1, t)`: the phase is `f m + t e`.
    pub fn correction_factor(&self) -> u64 {
        self.correction
    }

    /// Whether this is a product not yet switched down (see [`ModSwitching::Auto`]).
    pub fn is_unswitched_product(&self) -> bool {
        self.product
    }

    /// `log2` of the estimated bound on the phase `abs(f m + t e)_inf`, from the noise model
    /// of every operation that made this ciphertext ([`crate::noise`]): what [`ModSwitching::Auto`] checks before a multiplication. The
    /// [`noise_budget`](crate::BgvContext::noise_budget) measured with the secret key is
    /// `log2 q_l - 1` minus the actual value.
    pub fn estimated_noise_bits(&self) -> f64 {
        self.noise_bits
    }
}

/// A symmetric ciphertext whose uniform half travels as its seed (the core's
/// [`rlwe::SeededCiphertext`], as bfv's): `c_0` and the public seed of `c_1 = a`, at the top
/// level with correction factor 1.
pub type SeededCiphertext<B> = rlwe::SeededCiphertext<BgvParameters, B>;
