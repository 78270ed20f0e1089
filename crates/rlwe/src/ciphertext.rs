//! [`Ciphertext`]: every scheme's full ciphertext, written once: its parameters, `k + 1 >= 2`
//! polynomials on the backend in the scheme's representation ([`SchemeParameters::Form`]), its
//! level in the modulus chain, the key set it was encrypted under, and what the scheme keeps
//! beside them ([`SchemeParameters::CiphertextState`]: BGV's correction factor; nothing for
//! BFV). `bfv::Ciphertext` and `bgv_encrypt::Ciphertext` are this type.

use core::fmt;
use std::sync::Arc;

use crate::{KeySetId, RlweBackend, SchemeParameters};

/// A scheme's ciphertext (module docs). The scheme's context makes it, checks it and operates
/// on it; the accessors here read it.
pub struct Ciphertext<P: SchemeParameters, B: RlweBackend> {
    params: Arc<P>,
    polys: Vec<B::Poly<P::Form>>,
    level: usize,
    key_set: Option<KeySetId>,
    state: P::CiphertextState,
}

impl<P: SchemeParameters, B: RlweBackend> fmt::Debug for Ciphertext<P, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Ciphertext")
            .field("scheme", &P::SCHEME)
            .field("degree", &self.params.degree())
            .field("size", &self.polys.len())
            .field("level", &self.level)
            .field("state", &self.state)
            .field("polys", &self.polys)
            .finish()
    }
}

/// A copy in new storage (the scheme context's `duplicate` is the same copy, returning a
/// device's allocation failure as an error where `Clone` cannot).
impl<P: SchemeParameters, B: RlweBackend> Clone for Ciphertext<P, B> {
    fn clone(&self) -> Self {
        Self {
            params: Arc::clone(&self.params),
            polys: self.polys.clone(),
            level: self.level,
            key_set: self.key_set,
            state: self.state.clone(),
        }
    }
}

impl<P: SchemeParameters, B: RlweBackend> Ciphertext<P, B> {
    /// A ciphertext of `polys` (over the first `level + 1` ciphertext primes of `params`, in
    /// the scheme's representation) with the scheme's `state`: the scheme's constructor, which
    /// has checked the polynomials' rings; nothing is checked here.
    pub fn from_parts(
        params: &Arc<P>,
        polys: Vec<B::Poly<P::Form>>,
        level: usize,
        key_set: Option<KeySetId>,
        state: P::CiphertextState,
    ) -> Self {
        Self { params: Arc::clone(params), polys, level, key_set, state }
    }

    /// The level in the modulus chain: the polynomials are over the first `level + 1`
    /// ciphertext primes (`L - 1` at the top, unless switched down).
    pub fn level(&self) -> usize {
        self.level
    }

    /// The number of polynomials (two when fresh or relinearized, three after a product).
    pub fn size(&self) -> usize {
        self.polys.len()
    }

    /// The parameters this ciphertext belongs to.
    pub fn params(&self) -> &Arc<P> {
        &self.params
    }

    /// The polynomials `c_0, c_1, ...` on the backend, in the scheme's representation.
    pub fn polys(&self) -> &[B::Poly<P::Form>] {
        &self.polys
    }

    /// The polynomials, to change in place (their number and rings stay).
    pub fn polys_mut(&mut self) -> &mut [B::Poly<P::Form>] {
        &mut self.polys
    }

    /// The polynomials, taking the ciphertext apart.
    pub fn into_polys(self) -> Vec<B::Poly<P::Form>> {
        self.polys
    }

    /// The identifier of the key set it is encrypted under ([`KeySetId`]): operations with a
    /// key or ciphertext of another key set are refused ([`crate::RlweError::KeySetMismatch`]).
    /// `None` for a ciphertext built from polynomials or decoded from bytes without one.
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The ciphertext with the key-set identifier `key_set` (for a ciphertext built from
    /// polynomials).
    pub fn with_key_set(mut self, key_set: Option<KeySetId>) -> Self {
        self.key_set = key_set;
        self
    }

    /// Sets the key-set identifier (see [`with_key_set`](Self::with_key_set)).
    pub fn set_key_set(&mut self, key_set: Option<KeySetId>) {
        self.key_set = key_set;
    }

    /// What the scheme keeps beside the polynomials (BGV: the correction factor).
    pub fn state(&self) -> &P::CiphertextState {
        &self.state
    }

    /// The scheme's state, to change in place.
    pub fn state_mut(&mut self) -> &mut P::CiphertextState {
        &mut self.state
    }
}

impl<P: SchemeParameters, B: RlweBackend> crate::codec::SchemeCiphertext for Ciphertext<P, B> {}
