//! [`SeededCiphertext`]: a symmetric (secret-key) ciphertext whose uniform half travels as
//! its seed, the same in every scheme.

use core::fmt;
use std::sync::Arc;

use poly::{Coeff, Seed};

use crate::scheme::SchemeParameters;
use crate::{KeySetId, RlweBackend};

/// A symmetric (secret-key) ciphertext whose uniform half travels as its seed: `c_0` over `q`
/// (coefficient representation, top level) and the public seed from which `c_1 = a` is
/// regenerated (the core's uniform sample of index 0; the schemes' `expand`). Half the size of
/// a full ciphertext. The public seed reveals `a` only; the error came from a separate seed.
pub struct SeededCiphertext<P: SchemeParameters, B: RlweBackend> {
    params: Arc<P>,
    c0: B::Poly<Coeff>,
    public_seed: Seed,
    key_set: Option<KeySetId>,
}

impl<P: SchemeParameters, B: RlweBackend> fmt::Debug for SeededCiphertext<P, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SeededCiphertext").field("degree", &self.params.degree()).field("c0", &self.c0).finish()
    }
}

/// A copy in new storage.
impl<P: SchemeParameters, B: RlweBackend> Clone for SeededCiphertext<P, B> {
    fn clone(&self) -> Self {
        Self {
            params: Arc::clone(&self.params),
            c0: self.c0.clone(),
            public_seed: self.public_seed.clone(),
            key_set: self.key_set,
        }
    }
}

impl<P: SchemeParameters, B: RlweBackend> SeededCiphertext<P, B> {
    /// The seeded ciphertext of `c0` (over the top level's `q`, on the backend) and the seed of
    /// `c_1`, under the key set `key_set`.
    pub fn new(params: &Arc<P>, c0: B::Poly<Coeff>, public_seed: Seed, key_set: Option<KeySetId>) -> Self {
        Self { params: Arc::clone(params), c0, public_seed, key_set }
    }

    /// `c_0` on the backend.
    pub fn c0(&self) -> &B::Poly<Coeff> {
        &self.c0
    }

    /// The public seed of `c_1`.
    pub fn public_seed(&self) -> &Seed {
        &self.public_seed
    }

    /// The identifier of the key set it is encrypted under ([`KeySetId`]).
    pub fn key_set(&self) -> Option<KeySetId> {
        self.key_set
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<P> {
        &self.params
    }
}
