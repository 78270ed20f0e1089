//! The secret key and the public key, and their generation.
//!
//! Conventions (keys are in the evaluation representation):
//! - secret key `s`: ternary, the same integer polynomial over `q` and over `qP`;
//! - public key `(b, a)` over `q`: `b = -(a s + e)`.
//!
//! Randomness: every sampled polynomial comes from the backend's samplers with a
//! `(seed, index)` pair, so the same seeds give the same keys on every backend, bit for bit.
//! Secret key: ternary 0; public key: uniform 0, binomial 0.

use core::fmt;
use std::sync::Arc;

use poly::{Eval, Representation, Seed};

use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::{KeySetId, Result, RlweParameters};

/// The secret key `s` (ternary), in the evaluation representation over `q` and over `qP`.
/// Both polynomials are overwritten with zeros when the key is dropped.
pub struct SecretKey<B: RlweBackend> {
    params: Arc<RlweParameters>,
    backend: B,
    s_q: B::Poly<Eval>,
    s_qp: B::Poly<Eval>,
    key_set: Option<KeySetId>,
}

impl<B: RlweBackend> fmt::Debug for SecretKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretKey").field("degree", &self.params.degree()).finish_non_exhaustive()
    }
}

impl<B: RlweBackend> Drop for SecretKey<B> {
    fn drop(&mut self) {
        // Nothing to report to: a failing device is beyond help here.
        let _ = self.backend.zeroize(&mut self.s_q);
        let _ = self.backend.zeroize(&mut self.s_qp);
    }
}

impl<B: RlweBackend> SecretKey<B> {
    /// A secret key of `context` from its two polynomials (a decoder's constructor: `s_q`
    /// over `q` and `s_qp` over `qP`, evaluation representation, of the same ternary `s`; the
    /// caller has checked them). They are zeroized when the key is dropped. The key carries no
    /// key-set identifier until [`with_key_set`](Self::with_key_set) gives it one.
    pub fn from_polys(context: &RlweContext<B>, s_q: B::Poly<Eval>, s_qp: B::Poly<Eval>) -> Self {
        Self { params: Arc::clone(&context.params), backend: context.backend.clone(), s_q, s_qp, key_set: None }
    }

    /// The key with the key-set identifier `key_set` (a decoder's).
    pub fn with_key_set(mut self, key_set: Option<KeySetId>) -> Self {
        self.key_set = key_set;
        self
    }

    /// The key set's identifier ([`KeySetId`]): drawn from the seed at generation, carried by
    /// every key and ciphertext made with this key.
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        &self.params
    }

    /// `s` over `q`, evaluation representation (secret).
    pub fn s_q(&self) -> &B::Poly<Eval> {
        &self.s_q
    }

    /// `s` over `qP`, evaluation representation (secret).
    pub fn s_qp(&self) -> &B::Poly<Eval> {
        &self.s_qp
    }
}

/// The public key `(b, a)` over `q`, evaluation representation: `b = -(a s + E e)` with the
/// error scale `E` of the context that made it (1 for BFV, `t` for BGV), which it records:
/// encryption refuses a key of another scale.
pub struct PublicKey<B: RlweBackend> {
    params: Arc<RlweParameters>,
    b: B::Poly<Eval>,
    a: B::Poly<Eval>,
    error_scale: u64,
    key_set: Option<KeySetId>,
    /// The seed `a` was sampled from (index 0), when it may travel: a key made with separate
    /// uniform and error seeds ([`RlweContext::public_key_from_seeds`]).
    uniform_seed: Option<Seed>,
}

impl<B: RlweBackend> fmt::Debug for PublicKey<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PublicKey").field("b", &self.b).field("a", &self.a).finish()
    }
}

impl<B: RlweBackend> PublicKey<B> {
    /// A public key of `context` from `(b, a)` over `q`, evaluation representation (a
    /// decoder's constructor).
    /// It carries no key-set identifier until [`with_key_set`](Self::with_key_set) gives it one.
    pub fn from_polys(context: &RlweContext<B>, b: B::Poly<Eval>, a: B::Poly<Eval>) -> Self {
        Self {
            params: Arc::clone(&context.params),
            b,
            a,
            error_scale: context.error_scale,
            key_set: None,
            uniform_seed: None,
        }
    }

    /// A public key of `context` from `b` and the seed of `a` (a decoder's constructor): `a`
    /// is sampled again, uniform of index 0 of `seed`, on the context's backend.
    pub fn from_uniform_seed(context: &RlweContext<B>, b: B::Poly<Eval>, seed: &Seed) -> Result<Self> {
        let a = context.backend.sample_uniform(&context.ring_q, seed, 0).be()?;
        let mut key = Self::from_polys(context, b, a);
        key.uniform_seed = Some(seed.clone());
        Ok(key)
    }

    /// The seed of `a`, when the key was made with separate uniform and error seeds.
    pub fn uniform_seed(&self) -> Option<&Seed> {
        self.uniform_seed.as_ref()
    }

    /// The key with the key-set identifier `key_set` (a decoder's).
    pub fn with_key_set(mut self, key_set: Option<KeySetId>) -> Self {
        self.key_set = key_set;
        self
    }

    /// The identifier of the secret key's key set ([`KeySetId`]); ciphertexts encrypted with
    /// this key carry it.
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The factor of the key's error (1 for BFV, `t` for BGV).
    pub fn error_scale(&self) -> u64 {
        self.error_scale
    }

    /// `b` and `a`.
    pub fn polys(&self) -> (&B::Poly<Eval>, &B::Poly<Eval>) {
        (&self.b, &self.a)
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        &self.params
    }
}

/// A polynomial derived from the secret key (`s^2`, `s(x^g)`, their gadget multiples),
/// overwritten with zeros by [`zeroize`](Self::zeroize), which reports a failure, or, on an
/// early return, when dropped.
pub struct SecretScratch<'a, B: RlweBackend, R: Representation> {
    backend: &'a B,
    poly: B::Poly<R>,
    cleared: bool,
}

impl<B: RlweBackend, R: Representation> fmt::Debug for SecretScratch<'_, B, R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SecretScratch").field("cleared", &self.cleared).finish_non_exhaustive()
    }
}

impl<'a, B: RlweBackend, R: Representation> SecretScratch<'a, B, R> {
    /// Takes `poly` to be zeroized.
    pub fn new(backend: &'a B, poly: B::Poly<R>) -> Self {
        Self { backend, poly, cleared: false }
    }

    /// The polynomial.
    pub fn poly(&self) -> &B::Poly<R> {
        &self.poly
    }

    /// Overwrites the polynomial with zeros now.
    pub fn zeroize(mut self) -> Result<()> {
        let result = self.backend.zeroize(&mut self.poly);
        self.cleared = result.is_ok();
        result
    }
}

impl<B: RlweBackend, R: Representation> Drop for SecretScratch<'_, B, R> {
    fn drop(&mut self) {
        if !self.cleared {
            // An error path reports its own error; a failing device is beyond help here.
            let _ = self.backend.zeroize(&mut self.poly);
        }
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// A secret key from a fresh OS seed.
    pub fn generate_secret_key(&self) -> Result<SecretKey<B>> {
        self.secret_key_from_seed(&Seed::from_os()?)
    }

    /// The secret key of `seed`: the ternary polynomial of `(seed, 0)`.
    pub fn secret_key_from_seed(&self, seed: &Seed) -> Result<SecretKey<B>> {
        let backend = &self.backend;
        let s_q = backend.forward(backend.sample_ternary(&self.ring_q, seed, 0).be()?).be()?;
        let s_qp = backend.forward(backend.sample_ternary(&self.ring_qp, seed, 0).be()?).be()?;
        let key_set = Some(KeySetId::from_seed(seed));
        Ok(SecretKey { params: Arc::clone(&self.params), backend: backend.clone(), s_q, s_qp, key_set })
    }

    /// A public key for `secret` from two fresh OS seeds (a uniform seed, which its byte
    /// encoding carries in place of `a`, and an error seed, which nothing keeps).
    pub fn generate_public_key(&self, secret: &SecretKey<B>) -> Result<PublicKey<B>> {
        self.public_key_from_seeds(secret, &Seed::from_os()?, &Seed::from_os()?)
    }

    /// The public key `(b, a) = (-(a s + e), a)` with `a` uniform (index 0, sampled directly
    /// in the evaluation representation) and `e` binomial (index 0, times the error scale)
    /// from `seed`.
    pub fn public_key_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<PublicKey<B>> {
        self.public_key_from_seeds(secret, seed, seed)
    }

    /// [`public_key_from_seed`](Self::public_key_from_seed) with `a` from `uniform_seed` and
    /// `e` from `error_seed`. With two different seeds the key keeps `uniform_seed`, and its
    /// byte encoding carries it in place of `a` (the seed reveals `a` only, which is public);
    /// with one seed it keeps none (that seed would reveal the error, and the secret with it).
    pub fn public_key_from_seeds(
        &self,
        secret: &SecretKey<B>,
        uniform_seed: &Seed,
        error_seed: &Seed,
    ) -> Result<PublicKey<B>> {
        self.check(&secret.params, "secret key")?;
        let backend = &self.backend;
        let a: B::Poly<Eval> = backend.sample_uniform(&self.ring_q, uniform_seed, 0).be()?;
        let e = backend.forward(self.sample_error(&self.ring_q, error_seed, 0)?).be()?;
        let mut b = backend.mul(&a, &secret.s_q).be()?;
        backend.add_assign(&mut b, &e).be()?;
        backend.neg_assign(&mut b).be()?;
        let key_set = secret.key_set;
        let uniform_seed = (uniform_seed.as_bytes() != error_seed.as_bytes()).then(|| uniform_seed.clone());
        Ok(PublicKey { params: Arc::clone(&self.params), b, a, error_scale: self.error_scale, key_set, uniform_seed })
    }
}
