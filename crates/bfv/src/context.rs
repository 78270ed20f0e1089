//! [`BfvContext`]: the parameters prepared on one backend, and the types that live there:
//! keys ([`SecretKey`], [`PublicKey`], [`RelinKey`]) and ciphertexts ([`Ciphertext`],
//! [`SeededCiphertext`]).
//!
//! Conventions: all polynomials of a ciphertext are in the coefficient representation over
//! `q`, and a ciphertext `(c_0, c_1, ..., c_k)` decrypts as `[c_0 + c_1 s + ... + c_k s^k]_q`.
//! The keys are the RLWE core's (`rlwe`: secret, public, relinearization and Galois keys, with
//! their formulas and sampling indices), made with an error scale of 1.
//!
//! Randomness: every sampled polynomial comes from the backend's samplers with a
//! `(seed, index)` pair, so the same seeds give the same keys and ciphertexts on every
//! backend, bit for bit. Indices of the encryptions: those of the core's encryptions of zero
//! (public key: ternary 0, binomial 0 and 1; secret key: uniform 0 of the public seed,
//! binomial 0 of the error seed).

use core::fmt;
use std::sync::Arc;

use num_bigint::BigUint;
use poly::{Coeff, Poly};

use rlwe::{KeySetId, RlweContext};

use rlwe::{PlaintextEmbedding, PlaintextScaling, PlaintextWords};

use crate::backend::BfvBackend;
use crate::{BfvError, BfvParameters, Result};

pub use rlwe::{EvalPair, PublicKey, SecretKey};

/// The relinearization key: the core's key-switching key from `s^2` to `s`.
pub type RelinKey<B> = rlwe::RelinearizationKey<B>;

/// Converts a backend's error into the core's error (`.be()?`).
pub(crate) use rlwe::BackendResult;

/// BFV parameters prepared on a backend: the RLWE core's context (rings `q` and `qP`, key
/// switching), the ring of the tensor product and the constants of encoding. All scheme
/// operations are methods of this type.
pub struct BfvContext<B: BfvBackend> {
    pub(crate) backend: B,
    pub(crate) params: Arc<BfvParameters>,
    /// The core: rings `q` and `qP`, gadget factors, the backend's key-switching tables.
    pub(crate) core: RlweContext<B>,
    pub(crate) ring_mul: B::Context,
    /// The plaintext ring `Z_t[x]` (one prime, NTT) for batch encoding on the backend, when
    /// `t` is a prime `= 1 mod 2N`.
    pub(crate) ring_t: Option<B::Context>,
    /// `floor(q / t) mod q_i` (with Shoup companions), `q mod t` and `t`: the plaintext scaling.
    pub(crate) scaling: PlaintextScaling,
    /// The multiplication's tables as the backend uses them (prepared once).
    pub(crate) mul: B::MulTables,
    /// The constants of the levels below the top (multiplication and decryption tables, the
    /// tensor product's ring, the plaintext scaling), made on first use (levels.rs).
    pub(crate) level_decryption: Vec<std::sync::OnceLock<crate::levels::LevelTables<B>>>,
}

impl<B: BfvBackend> fmt::Debug for BfvContext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BfvContext").field("backend", &self.backend.name()).field("params", &self.params).finish()
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// Prepares `params` on `backend` (for a GPU: uploads the transform tables of the rings
    /// `q`, `qP` and that of the tensor product).
    pub fn new(backend: B, params: &Arc<BfvParameters>) -> Result<Self> {
        let core = RlweContext::new(backend.clone(), params.core(), 1)?;
        let ring_mul = backend.context(params.ring_mul()).be()?;
        let (n, t) = (params.degree(), params.plaintext_modulus());
        let ring_t = if modarith::is_prime(t) && t % (2 * n as u64) == 1 {
            let ring = poly::RingContext::new(n, &[t], poly::TransformKind::Ntt)?;
            Some(backend.context(&ring).be()?)
        } else {
            None
        };
        let scaling = plaintext_scaling(params.ring_q().moduli(), params.ciphertext_moduli(), t)?;
        let mul = backend.prepare_mul(params.multiplication_tables())?;
        let level_decryption = (0..params.ciphertext_moduli().len()).map(|_| std::sync::OnceLock::new()).collect();
        Ok(Self { backend, params: Arc::clone(params), core, ring_mul, ring_t, scaling, mul, level_decryption })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }

    /// The backend context of `R_q`.
    pub fn ring_q(&self) -> &B::Context {
        self.core.ring_q()
    }

    /// The RLWE core's context (keys, key switching, encryptions of zero).
    pub fn core(&self) -> &RlweContext<B> {
        &self.core
    }

    /// Errors with [`BfvError::ParameterMismatch`] unless `other` equals this context's
    /// parameters.
    pub(crate) fn check(&self, other: &Arc<BfvParameters>, what: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.params, other) || *self.params == **other {
            Ok(())
        } else {
            Err(BfvError::ParameterMismatch { what, field: rlwe::SchemeParameters::difference(&*self.params, other) })
        }
    }

    /// The top level of the modulus chain, `L - 1`.
    pub fn top_level(&self) -> usize {
        self.params.ciphertext_moduli().len() - 1
    }

    /// Errors with [`BfvError::ParameterMismatch`] unless `ciphertext` belongs to these
    /// parameters (at any level of their chain).
    pub(crate) fn check_ciphertext(&self, ciphertext: &Ciphertext<B>) -> Result<()> {
        self.check(ciphertext.params(), "ciphertext")
    }

    /// Errors with [`BfvError::LevelMismatch`] unless `a` and `b` are at the same level.
    pub(crate) fn check_same_level(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, operation: &'static str) -> Result<()> {
        if a.level() == b.level() {
            return Ok(());
        }
        Err(BfvError::LevelMismatch { operation, expected: a.level(), actual: b.level() })
    }

    /// Errors with [`BfvError::ParameterMismatch`] unless a key's core parameters `other` are
    /// this context's (keys belong to the RLWE core: a BFV key of the same ring serves any `t`).
    pub(crate) fn check_key(&self, other: &Arc<rlwe::RlweParameters>, what: &'static str) -> Result<()> {
        self.core.check(other, what)
    }

    /// The plaintext `words` as a polynomial over `q_l` (`l = level`) on the backend, by
    /// `embedding` ([`rlwe::PlaintextBackend::embed_plaintext`] with the level's scaling).
    pub(crate) fn embed(
        &self,
        level: usize,
        embedding: PlaintextEmbedding,
        words: PlaintextWords<'_, B>,
    ) -> Result<B::Poly<Coeff>> {
        self.backend.embed_plaintext(self.core.context_at_level(level)?, self.scaling_at(level)?, embedding, words)
    }

    /// Copies `ciphertext` to the host: its polynomials over `q`, coefficient representation.
    pub fn download(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<Poly<Coeff>>> {
        self.check(ciphertext.params(), "ciphertext")?;
        ciphertext.polys().iter().map(|p| self.backend.download(p).be()).collect()
    }

    /// A ciphertext from host polynomials over `q` (coefficient representation): the
    /// inverse of [`download`](Self::download). Errors with [`BfvError::InvalidCiphertextSize`]
    /// for fewer than two polynomials, and with [`BfvError::Poly`] if a polynomial is not over
    /// this context's `q`.
    pub fn upload(&self, polys: &[Poly<Coeff>]) -> Result<Ciphertext<B>> {
        if polys.len() < 2 {
            return Err(BfvError::InvalidCiphertextSize {
                operation: "upload",
                expected: "at least 2",
                actual: polys.len(),
            });
        }
        let polys =
            polys.iter().map(|p| self.backend.upload(self.core.ring_q(), p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(&self.params, polys, self.top_level(), None, ()))
    }

    /// A ciphertext of these parameters at `level` from polynomials already on the backend, each
    /// over the ring of that level in the coefficient representation (a constructor for schemes
    /// built on this one: BGV's scheme switching). Errors with
    /// [`BfvError::InvalidCiphertextSize`] for fewer than two polynomials and with
    /// [`BfvError::InvalidParameter`] above the top level. The rings are the caller's promise:
    /// a polynomial of another ring makes the next operation fail with a context mismatch.
    pub fn ciphertext_from_polys(&self, polys: Vec<B::Poly<Coeff>>, level: usize) -> Result<Ciphertext<B>> {
        if polys.len() < 2 {
            return Err(BfvError::InvalidCiphertextSize {
                operation: "ciphertext_from_polys",
                expected: "at least 2",
                actual: polys.len(),
            });
        }
        self.params.core().check_level(level)?;
        Ok(Ciphertext::from_parts(&self.params, polys, level, None, ()))
    }

    /// `a`, whose plaintext is a multiple `d m` of `d = t / t'` (`t'` the plaintext modulus of
    /// `target`, over the same core), as a ciphertext of `m` under `target`: bootstrapping's
    /// division by `p` of the plaintext space `p^k`. BFV needs no arithmetic: the phase
    /// `floor(q / t) d m + e` is `floor(q / t') m + e'` with `|e' - e| < d m <= t`, so the
    /// polynomials are `target`'s as they are (copied). Errors with
    /// [`BfvError::ParameterMismatch`] when `target` has another core, and
    /// [`BfvError::InvalidParameter`] unless `t'` divides `t` and is below it.
    pub fn divide_plaintext_space(&self, a: &Ciphertext<B>, target: &BfvContext<B>) -> Result<Ciphertext<B>> {
        self.check(a.params(), "ciphertext")?;
        let (t, t_target) = (self.params.plaintext_modulus(), target.params().plaintext_modulus());
        self.core.plaintext_space_divisor(target.params().core(), t, t_target)?;
        let polys = a.polys().iter().map(|p| self.backend.duplicate(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(target.params(), polys, a.level(), a.key_set(), ()))
    }

    /// A copy of `ciphertext` in fresh storage.
    pub fn duplicate(&self, ciphertext: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check(ciphertext.params(), "ciphertext")?;
        let polys = ciphertext.polys().iter().map(|p| self.backend.duplicate(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(ciphertext.params(), polys, ciphertext.level(), ciphertext.key_set(), ()))
    }

    /// Expands a seeded ciphertext: regenerates `c_1 = a` from the public seed.
    pub fn expand(&self, seeded: &SeededCiphertext<B>) -> Result<Ciphertext<B>> {
        self.check(seeded.params(), "seeded ciphertext")?;
        let c0 = self.backend.duplicate(seeded.c0()).be()?;
        let c1 = self.backend.sample_uniform::<Coeff>(self.core.ring_q(), seeded.public_seed(), 0).be()?;
        Ok(Ciphertext::from_parts(&self.params, vec![c0, c1], self.top_level(), seeded.key_set(), ()))
    }

    /// The key set of the result of an operation on operands of key sets `first` and `second`
    /// ([`rlwe::KeySetId::combine`]): errors with [`BfvError::KeySetMismatch`] (naming `what`,
    /// the second) when they differ.
    pub(crate) fn key_set_of(
        first: Option<KeySetId>,
        second: Option<KeySetId>,
        what: &'static str,
    ) -> Result<Option<KeySetId>> {
        KeySetId::combine(first, second, what)
    }
}

/// BFV's plaintext scaling over the primes `primes` (those of `q_l`; `moduli` holds at least
/// as many, in the same order): `floor(q_l / t) mod q_i`, `q_l mod t`.
pub(crate) fn plaintext_scaling(moduli: &[modarith::Modulus], primes: &[u64], t: u64) -> Result<PlaintextScaling> {
    let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
    let floor_q_over_t = &q / t;
    let delta: Vec<u64> = primes.iter().map(|&p| biguint_mod(&floor_q_over_t, p)).collect();
    PlaintextScaling::new(&moduli[..primes.len().min(moduli.len())], &delta, biguint_mod(&q, t), t)
}

/// What the core's shared code (codec, resident plaintexts) needs of a BFV context.
impl<B: BfvBackend> rlwe::SchemeContext for BfvContext<B> {
    type Params = BfvParameters;
    type Backend = B;

    fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }

    fn core(&self) -> &RlweContext<B> {
        &self.core
    }
}

/// The batch encoder's transform runs on the backend's plaintext ring.
impl<B: BfvBackend> rlwe::BatchingContext for BfvContext<B> {
    fn plaintext_ring(&self) -> Option<&B::Context> {
        self.ring_t.as_ref()
    }
}

/// `x mod m`.
pub(crate) fn biguint_mod(x: &BigUint, m: u64) -> u64 {
    (x % m).iter_u64_digits().next().unwrap_or(0)
}

/// A BFV ciphertext: `k + 1 >= 2` polynomials over `q_l` in the coefficient representation,
/// on the backend, at level `l` (the core's [`rlwe::Ciphertext`]: its level, size, key set and
/// polynomials). Fresh and relinearized ciphertexts have two; a product before
/// relinearization has three.
pub type Ciphertext<B> = rlwe::Ciphertext<BfvParameters, B>;

/// A symmetric (secret-key) ciphertext whose uniform half travels as its seed: `c_0` and the
/// public seed from which `c_1 = a` is regenerated ([`BfvContext::expand`]); the core's
/// [`rlwe::SeededCiphertext`]. Half the size of a [`Ciphertext`].
pub type SeededCiphertext<B> = rlwe::SeededCiphertext<BfvParameters, B>;
