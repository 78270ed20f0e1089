//! serde (feature `serde`, on by default): every object travels as its byte encoding
//! (module `serialize`: versioned, tagged "BFV"), so serde and the byte encodings share one
//! validation path.
//!
//! - [`BfvParameters`]: `Serialize` and `Deserialize` as their defining values (degree, primes,
//!   `t`, variant, transform, `allow_insecure`), rebuilt through [`BfvParametersBuilder`] with
//!   every check on load.
//! - [`Plaintext`](crate::Plaintext): `Serialize`; loaded with a [`PlaintextSeed`] (its parameters).
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

use rlwe::serde_support::{self, Codec, ContextSeed, ParameterRecord, Serializable, Transform};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::galois::GaloisKeys;
use crate::params::{BfvParameters, BfvParametersBuilder, MulVariant};
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

impl ParameterRecord for ParametersData {
    type Params = BfvParameters;

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

impl Serialize for BfvParameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        serde_support::serialize_parameters::<ParametersData, S>(self, serializer)
    }
}

/// Rebuilt through [`BfvParametersBuilder`]: every check of its `build` applies (a set beyond
/// the 128-bit table loads only when its `allow_insecure` is true). For an `Arc` (what contexts
/// take), deserialize `Arc<BfvParameters>`.
impl<'de> Deserialize<'de> for BfvParameters {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> core::result::Result<Self, D::Error> {
        serde_support::deserialize_parameters::<ParametersData, D>(deserializer)
    }
}

impl BfvParameters {
    /// Parameters read from `deserializer` and rebuilt through the builder, with typed errors:
    /// the builder's, or [`BfvError::Malformed`] for input the format cannot read as parameters.
    pub fn load<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<BfvParameters>> {
        serde_support::load_parameters::<ParametersData, D>(deserializer)
    }
}

/// The `DeserializeSeed` of a [`Plaintext`](crate::Plaintext) of given parameters: the header
/// must name them, every coefficient must be below `t`.
pub type PlaintextSeed<'a> = serde_support::PlaintextSeed<'a, BfvParameters>;
/// The seed of a [`Ciphertext`] (any level) of a context.
pub type CiphertextSeed<'a, B> = ContextSeed<'a, BfvContext<B>, Ciphertext<B>>;
/// The seed of a [`SeededCiphertext`].
pub type SeededCiphertextSeed<'a, B> = ContextSeed<'a, BfvContext<B>, SeededCiphertext<B>>;
/// The seed of a [`PublicKey`].
pub type PublicKeySeed<'a, B> = ContextSeed<'a, BfvContext<B>, PublicKey<B>>;
/// The seed of a [`RelinKey`].
pub type RelinKeySeed<'a, B> = ContextSeed<'a, BfvContext<B>, RelinKey<B>>;
/// The seed of [`GaloisKeys`].
pub type GaloisKeysSeed<'a, B> = ContextSeed<'a, BfvContext<B>, GaloisKeys<B>>;
/// The seed of a [`SecretKey`] (its serialized form is the secret).
pub type SecretKeySeed<'a, B> = ContextSeed<'a, BfvContext<B>, SecretKey<B>>;

impl<B: BfvBackend> BfvContext<B> {
    /// `value` as a `Serialize` view (its byte encoding, read through this context): for
    /// ciphertexts, seeded ciphertexts, plaintexts and keys. A value of other parameters fails
    /// to serialize (the format's custom error).
    pub fn serializable<'a, T>(&'a self, value: &'a T) -> Serializable<'a, Self, T>
    where
        Self: Codec<T>,
    {
        Serializable::new(self, value)
    }

    /// The `DeserializeSeed` of a `T` of this context (see the module docs): for example
    /// `context.seed::<Ciphertext<_>>().deserialize(&mut deserializer)`.
    pub fn seed<T>(&self) -> ContextSeed<'_, Self, T>
    where
        Self: Codec<T>,
    {
        ContextSeed::new(self)
    }

    /// A `T` read from `deserializer` and validated by this context's decoder, with typed
    /// errors: the decoder's, or [`BfvError::Malformed`] when the format finds no byte string.
    pub fn load<'de, T, D: Deserializer<'de>>(&self, deserializer: D) -> Result<T>
    where
        Self: Codec<T, Error = BfvError>,
    {
        serde_support::load_typed(self, deserializer)
    }
}
