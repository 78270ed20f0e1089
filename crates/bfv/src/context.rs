//! [`BfvContext`]: the parameters prepared on one backend, and the types that live there:
//! keys ([`SecretKey`], [`PublicKey`], [`RelinKey`]) and ciphertexts ([`Ciphertext`],
//! [`SeededCiphertext`]).
//!
//! Conventions (all polynomials of a ciphertext are in the coefficient representation over
//! `q`; keys are in the evaluation representation):
//!
//! - secret key `s`: ternary, the same integer polynomial over `q` and over `qP`;
//! - public key `(b, a)` over `q`: `b = -(a s + e)`;
//! - relinearization key, digit `j` (`j < ceil(L / k)` for `k` special primes), over `qP`:
//!   `(b_j, a_j)` with `b_j = -(a_j s + e_j) + g_j s^2`, `g_j = P (q / Q_j) [(q / Q_j)^-1]_{Q_j}`;
//! - Galois key for element `g` ([`GaloisKeys`](crate::GaloisKeys)), digit `j`, over `qP`:
//!   `(b_j, a_j)` with `b_j = -(a_j s + e_j) + g_j s(x^g)`, the same digits and gadget factors;
//! - a ciphertext `(c_0, c_1, ..., c_k)` decrypts as `[c_0 + c_1 s + ... + c_k s^k]_q`.
//!
//! Randomness: every sampled polynomial comes from the backend's samplers with a
//! `(seed, index)` pair, so the same seeds give the same keys and ciphertexts on every
//! backend, bit for bit. Indices used (each seed has its own keystream per distribution):
//! secret key: ternary 0; public key: uniform 0, binomial 0; relinearization key digit `j`:
//! uniform `j`, binomial `j`; Galois key for element `g`, digit `j`: uniform `g * 2^32 + j`,
//! binomial `g * 2^32 + j` (`g` odd and below `2N`, `j < 2^32`: no two elements, nor an
//! element and the relinearization key, share an index); public-key encryption: ternary 0
//! (`u`), binomial 0 and 1 (`e_1`, `e_2`); symmetric encryption: uniform 0 of the public seed
//! (`a`), binomial 0 of the error seed.

use core::fmt;
use std::sync::Arc;

use num_bigint::BigUint;
use poly::{Coeff, Eval, Poly, Seed};

use crate::backend::{BfvBackend, PlaintextEmbedding, PlaintextScaling, PlaintextWords};
use crate::{BfvError, BfvParameters, Result};

/// Converts a backend's error into [`BfvError`].
pub(crate) trait BackendResult<T> {
    fn be(self) -> Result<T>;
}

impl<T, E: std::error::Error + Send + Sync + 'static> BackendResult<T> for core::result::Result<T, E> {
    fn be(self) -> Result<T> {
        self.map_err(BfvError::from_backend)
    }
}

/// BFV parameters prepared on a backend: the device contexts of the three rings and the
/// constants of encoding. All scheme operations are methods of this type.
pub struct BfvContext<B: BfvBackend> {
    pub(crate) backend: B,
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) ring_q: B::Context,
    pub(crate) ring_qp: B::Context,
    pub(crate) ring_mul: B::Context,
    /// The plaintext ring `Z_t[x]` (one prime, NTT) for batch encoding on the backend, when
    /// `t` is a prime `= 1 mod 2N`.
    pub(crate) ring_t: Option<B::Context>,
    /// `floor(q / t) mod q_i` (with Shoup companions), `q mod t` and `t`: the plaintext scaling.
    scaling: PlaintextScaling,
    /// The gadget factors `g_j` over `qP`, one per digit.
    pub(crate) gadgets: Vec<Vec<u64>>,
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
        let ring_q = backend.context(params.ring_q()).be()?;
        let ring_qp = backend.context(params.ring_qp()).be()?;
        let ring_mul = backend.context(params.ring_mul()).be()?;
        let (n, t) = (params.degree(), params.plaintext_modulus());
        let ring_t = if modarith::is_prime(t) && t % (2 * n as u64) == 1 {
            let ring = poly::RingContext::new(n, &[t], poly::TransformKind::Ntt)?;
            Some(backend.context(&ring).be()?)
        } else {
            None
        };
        let q = params.ciphertext_modulus();
        let t = params.plaintext_modulus();
        let floor_q_over_t = q / t;
        let delta: Vec<u64> =
            params.ring_q().moduli().iter().map(|m| biguint_mod(&floor_q_over_t, m.value())).collect();
        let scaling = PlaintextScaling::new(params.ring_q().moduli(), &delta, biguint_mod(q, t), t)?;
        let key_switch = params.key_switch_tables();
        let gadgets = (0..key_switch.num_digits()).map(|j| key_switch.gadget_factor(j)).collect::<rns::Result<_>>()?;
        Ok(Self { backend, params: Arc::clone(params), ring_q, ring_qp, ring_mul, ring_t, scaling, gadgets })
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
        &self.ring_q
    }

    /// Errors with [`BfvError::ParameterMismatch`] unless `other` equals this context's
    /// parameters.
    pub(crate) fn check(&self, other: &Arc<BfvParameters>, what: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.params, other) || *self.params == **other {
            Ok(())
        } else {
            Err(BfvError::ParameterMismatch { what })
        }
    }

    /// The plaintext `words` as a polynomial over `q` on the backend, by `embedding`
    /// ([`BfvBackend::embed_plaintext`] with this context's scaling constants).
    pub(crate) fn embed(&self, embedding: PlaintextEmbedding, words: PlaintextWords<'_, B>) -> Result<B::Poly<Coeff>> {
        self.backend.embed_plaintext(&self.ring_q, &self.scaling, embedding, words)
    }

    /// Copies `ciphertext` to the host: its polynomials over `q`, coefficient representation.
    pub fn download(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<Poly<Coeff>>> {
        self.check(&ciphertext.params, "ciphertext")?;
        ciphertext.polys.iter().map(|p| self.backend.download(p).be()).collect()
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
        let polys = polys.iter().map(|p| self.backend.upload(&self.ring_q, p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext { params: Arc::clone(&self.params), polys })
    }

    /// A copy of `ciphertext` in fresh storage.
    pub fn duplicate(&self, ciphertext: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check(&ciphertext.params, "ciphertext")?;
        let polys = ciphertext.polys.iter().map(|p| self.backend.duplicate(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext { params: Arc::clone(&ciphertext.params), polys })
    }

    /// Expands a seeded ciphertext: regenerates `c_1 = a` from the public seed.
    pub fn expand(&self, seeded: &SeededCiphertext<B>) -> Result<Ciphertext<B>> {
        self.check(&seeded.params, "seeded ciphertext")?;
        let c0 = self.backend.duplicate(&seeded.c0).be()?;
        let c1 = self.backend.sample_uniform::<Coeff>(&self.ring_q, &seeded.public_seed, 0).be()?;
        Ok(Ciphertext { params: Arc::clone(&self.params), polys: vec![c0, c1] })
    }
}

/// `x mod m`.
pub(crate) fn biguint_mod(x: &BigUint, m: u64) -> u64 {
    (x % m).iter_u64_digits().next().unwrap_or(0)
}

/// A BFV ciphertext: `k + 1 >= 2` polynomials over `q` in the coefficient representation,
/// on the backend. Fresh and relinearized ciphertexts have two; a product before
/// relinearization has three.
pub struct Ciphertext<B: BfvBackend> {
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) polys: Vec<B::Poly<Coeff>>,
}

impl<B: BfvBackend> fmt::Debug for Ciphertext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ciphertext")
            .field("degree", &self.params.degree())
            .field("size", &self.polys.len())
            .field("polys", &self.polys)
            .finish()
    }
}

impl<B: BfvBackend> Ciphertext<B> {
    /// The number of polynomials.
    pub fn size(&self) -> usize {
        self.polys.len()
    }

    /// The parameters this ciphertext belongs to.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }

    /// The polynomials `c_0, c_1, ...` on the backend.
    pub fn polys(&self) -> &[B::Poly<Coeff>] {
        &self.polys
    }
}

/// A symmetric (secret-key) ciphertext whose uniform half travels as its seed: `c_0` and the
/// public seed from which `c_1 = a` is regenerated ([`BfvContext::expand`]). Half the size of
/// a [`Ciphertext`]. The public seed reveals `a` only; the error came from a separate seed.
pub struct SeededCiphertext<B: BfvBackend> {
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) c0: B::Poly<Coeff>,
    pub(crate) public_seed: Seed,
}

impl<B: BfvBackend> fmt::Debug for SeededCiphertext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededCiphertext").field("degree", &self.params.degree()).field("c0", &self.c0).finish()
    }
}

impl<B: BfvBackend> SeededCiphertext<B> {
    /// `c_0` on the backend.
    pub fn c0(&self) -> &B::Poly<Coeff> {
        &self.c0
    }

    /// The public seed of `c_1`.
    pub fn public_seed(&self) -> &Seed {
        &self.public_seed
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }
}

/// The secret key `s` (ternary), in the evaluation representation over `q` and over `qP`.
/// Both polynomials are overwritten with zeros when the key is dropped.
pub struct SecretKey<B: BfvBackend> {
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) backend: B,
    pub(crate) s_q: B::Poly<Eval>,
    pub(crate) s_qp: B::Poly<Eval>,
}

impl<B: BfvBackend> fmt::Debug for SecretKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey").field("degree", &self.params.degree()).finish_non_exhaustive()
    }
}

impl<B: BfvBackend> Drop for SecretKey<B> {
    fn drop(&mut self) {
        // Nothing to report to: a failing device is beyond help here.
        let _ = self.backend.zeroize(&mut self.s_q);
        let _ = self.backend.zeroize(&mut self.s_qp);
    }
}

impl<B: BfvBackend> SecretKey<B> {
    /// The parameters.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }
}

/// The public key `(b, a)` over `q`, evaluation representation: `b = -(a s + e)`.
pub struct PublicKey<B: BfvBackend> {
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) b: B::Poly<Eval>,
    pub(crate) a: B::Poly<Eval>,
}

impl<B: BfvBackend> fmt::Debug for PublicKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey").field("b", &self.b).field("a", &self.a).finish()
    }
}

impl<B: BfvBackend> PublicKey<B> {
    /// `b` and `a`.
    pub fn polys(&self) -> (&B::Poly<Eval>, &B::Poly<Eval>) {
        (&self.b, &self.a)
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }
}

/// A pair of polynomials in the evaluation representation on backend `B`: one digit
/// `(b_j, a_j)` of a key-switching key.
pub type EvalPair<B> = (<B as poly::Backend>::Poly<Eval>, <B as poly::Backend>::Poly<Eval>);

/// The relinearization key: one pair `(b_j, a_j)` over `qP` per key-switching digit,
/// evaluation representation.
pub struct RelinKey<B: BfvBackend> {
    pub(crate) params: Arc<BfvParameters>,
    pub(crate) digits: Vec<EvalPair<B>>,
}

impl<B: BfvBackend> fmt::Debug for RelinKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RelinKey").field("digits", &self.digits.len()).finish_non_exhaustive()
    }
}

impl<B: BfvBackend> RelinKey<B> {
    /// The pairs `(b_j, a_j)`, one per digit.
    pub fn digits(&self) -> &[EvalPair<B>] {
        &self.digits
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<BfvParameters> {
        &self.params
    }
}
