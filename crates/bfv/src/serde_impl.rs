//! serde (feature `serde`, on by default): every object travels as its byte encoding
//! (module `serialize`: versioned, tagged "BFV"), so serde and the byte encodings share one
//! validation path.
//!
//! - [`BfvParameters`]: `Serialize` and `Deserialize` as their defining values (degree, primes,
//!   `t`, variant, transform, `allow_insecure`), rebuilt through [`BfvParametersBuilder`] with
//!   every check on load.
//! - [`Plaintext`]: `Serialize`; loaded with a [`PlaintextSeed`] (its parameters).
//! - Ciphertexts (full, at any level, and seeded) and keys (public, relinearization, Galois and
//!   secret) live on a backend, so their context writes and reads them:
//!   [`BfvContext::serializable`] (a `Serialize` view) and [`BfvContext::seed`] (a
//!   `DeserializeSeed` carrying the context: [`CiphertextSeed`], ...), which yields only
//!   objects that the context's decoder validated (parameters, sizes, level, every word below
//!   its prime). [`BfvContext::load`] does the same with [`BfvError`]s (the seed's errors are
//!   the format's, carrying the decoder's message where the format keeps one).
//!
//! **A secret key's serialized form is the secret itself** (see the `serialize` docs): never
//! send it to the party that evaluates.

use std::sync::Arc;

use rlwe::serde_support::{self, Transform};
use serde::{Deserialize, Serialize};

use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::encoding::Plaintext;
use crate::galois::GaloisKeys;
use crate::params::{BfvParameters, BfvParametersBuilder, MulVariant};
use crate::serialize::{plaintext_from_bytes, plaintext_to_bytes};
use crate::{BfvError, Result};

/// The defining values of [`BfvParameters`] as they travel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "BfvParameters", deny_unknown_fields)]
struct ParametersData {
    degree: u64,
    ciphertext_moduli: Vec<u64>,
    special_moduli: Vec<u64>,
    plaintext_modulus: u64,
    variant: MulVariant,
    transform: Transform,
    allow_insecure: bool,
}

impl ParametersData {
    /// The values of `params`.
    fn of(params: &BfvParameters) -> Self {
        Self {
            degree: params.degree() as u64,
            ciphertext_moduli: params.ciphertext_moduli().to_vec(),
            special_moduli: params.special_moduli().to_vec(),
            plaintext_modulus: params.plaintext_modulus(),
            variant: params.variant(),
            transform: params.transform().into(),
            allow_insecure: !params.core().is_secure_128(),
        }
    }

    /// The parameters of these values, rebuilt through the builder with every check.
    fn build(&self) -> Result<Arc<BfvParameters>> {
        // The core's bounds on the work of building, before the builder starts.
        let degree = serde_support::checked_shape(self.degree, &self.ciphertext_moduli, &self.special_moduli)?;
        BfvParametersBuilder::new(degree)
            .ciphertext_moduli(&self.ciphertext_moduli)
            .special_moduli(&self.special_moduli)
            .plaintext_modulus(self.plaintext_modulus)
            .variant(self.variant)
            .transform(self.transform.into())
            .allow_insecure(self.allow_insecure)
            .build()
    }
}

// The rest is the same for both schemes up to names, so the core writes it once.
rlwe::scheme_serde_codecs! {
    scheme: "BFV",
    parameters: BfvParameters (record ParametersData, builder BfvParametersBuilder),
    context: BfvContext<B: BfvBackend>,
    error: BfvError,
    result: Result,
    plaintext: Plaintext (plaintext_to_bytes, plaintext_from_bytes),
    ciphertext: Ciphertext,
    seeded_ciphertext: SeededCiphertext,
    public_key: PublicKey,
    relin_key: RelinKey,
    galois_keys: GaloisKeys,
    secret_key: SecretKey,
}
