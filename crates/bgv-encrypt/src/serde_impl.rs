//! serde (feature `serde`, on by default): every object travels as its byte encoding
//! (module `serialize`: versioned, tagged "BGV"), so serde and the byte encodings share one
//! validation path.
//!
//! - [`BgvParameters`]: `Serialize` and `Deserialize` as their defining values (degree, primes,
//!   `t`, transform, `allow_insecure`), rebuilt through [`BgvParametersBuilder`] with
//!   every check on load.
//! - [`Plaintext`]: `Serialize`; loaded with a [`PlaintextSeed`] (its parameters).
//! - Ciphertexts (full, at any level, and seeded) and keys (public, relinearization, Galois and
//!   secret) live on a backend, so their context writes and reads them:
//!   [`BgvContext::serializable`] (a `Serialize` view) and [`BgvContext::seed`] (a
//!   `DeserializeSeed` carrying the context: [`CiphertextSeed`], ...), which yields only
//!   objects that the context's decoder validated (parameters, sizes, level, every word below
//!   its prime). [`BgvContext::load`] does the same with [`BgvError`]s (the seed's errors are
//!   the format's, carrying the decoder's message where the format keeps one).
//!
//! **A secret key's serialized form is the secret itself** (see the `serialize` docs): never
//! send it to the party that evaluates.

use std::sync::Arc;

use rlwe::serde_support::{self, Codec, ContextSeed, Serializable, Transform};
use serde::de::{self, DeserializeSeed, Deserializer};
use serde::{Deserialize, Serialize, Serializer};

use crate::backend::BgvBackend;
use crate::context::{BgvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::params::{BgvParameters, BgvParametersBuilder};
use crate::serialize::{plaintext_from_bytes, plaintext_to_bytes};
use crate::{BgvError, GaloisKeys, Plaintext, Result};

/// The defining values of [`BgvParameters`] as they travel.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename = "BgvParameters", deny_unknown_fields)]
struct ParametersData {
    degree: u64,
    ciphertext_moduli: Vec<u64>,
    special_moduli: Vec<u64>,
    plaintext_modulus: u64,
    transform: Transform,
    allow_insecure: bool,
}

impl ParametersData {
    fn build(&self) -> Result<Arc<BgvParameters>> {
        // The core's bounds on the work of building, before the builder starts.
        let degree = serde_support::checked_shape(self.degree, &self.ciphertext_moduli, &self.special_moduli)?;
        BgvParametersBuilder::new(degree)
            .ciphertext_moduli(&self.ciphertext_moduli)
            .special_moduli(&self.special_moduli)
            .plaintext_modulus(self.plaintext_modulus)
            .transform(self.transform.into())
            .allow_insecure(self.allow_insecure)
            .build()
    }
}

impl Serialize for BgvParameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        ParametersData {
            degree: self.degree() as u64,
            ciphertext_moduli: self.ciphertext_moduli().to_vec(),
            special_moduli: self.special_moduli().to_vec(),
            plaintext_modulus: self.plaintext_modulus(),
            transform: self.transform().into(),
            allow_insecure: !self.core().is_secure_128(),
        }
        .serialize(serializer)
    }
}

/// Rebuilt through [`BgvParametersBuilder`]: every check of its `build` applies (a set beyond
/// the 128-bit table loads only when its `allow_insecure` is true). For an `Arc` (what
/// contexts take), deserialize `Arc<BgvParameters>`.
impl<'de> Deserialize<'de> for BgvParameters {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> core::result::Result<Self, D::Error> {
        let params = BgvParameters::load(deserializer).map_err(de::Error::custom)?;
        Arc::try_unwrap(params).map_err(|_| de::Error::custom("freshly built parameters are shared"))
    }
}

impl BgvParameters {
    /// Parameters read from `deserializer` and rebuilt through the builder, with typed errors:
    /// the builder's, or [`BgvError::Malformed`] for input the format cannot read as
    /// parameters.
    pub fn load<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<BgvParameters>> {
        ParametersData::deserialize(deserializer)
            .map_err(|error| BgvError::Malformed { what: "serialized parameters", reason: error.to_string() })?
            .build()
    }
}

/// Written as its byte encoding (kind 7: `N` coefficients below `t`, the parameters in the
/// header).
impl Serialize for Plaintext {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        serde_support::serialize_encoding(serializer, plaintext_to_bytes(self))
    }
}

/// The `DeserializeSeed` of a [`Plaintext`] of given parameters: the header must name them,
/// every coefficient must be below `t`.
#[derive(Debug, Clone, Copy)]
pub struct PlaintextSeed<'a> {
    /// The parameters the plaintext must belong to.
    pub params: &'a Arc<BgvParameters>,
}

impl<'de> DeserializeSeed<'de> for PlaintextSeed<'_> {
    type Value = Plaintext;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> core::result::Result<Plaintext, D::Error> {
        serde_support::deserialize_validated(deserializer, "a BGV plaintext", |bytes| {
            plaintext_from_bytes(self.params, bytes)
        })
    }
}

/// `Codec` impls: each type's `*_to_bytes` and `*_from_bytes`.
macro_rules! codec {
    ($type:ty, $what:literal, $encode:ident, $decode:ident) => {
        impl<B: BgvBackend> Codec<$type> for BgvContext<B> {
            type Error = BgvError;
            const WHAT: &'static str = $what;

            fn encode(&self, value: &$type) -> Result<Vec<u8>> {
                self.$encode(value)
            }

            fn decode(&self, bytes: &[u8]) -> Result<$type> {
                self.$decode(bytes)
            }
        }
    };
}

codec!(Ciphertext<B>, "a BGV ciphertext", ciphertext_to_bytes, ciphertext_from_bytes);
codec!(SeededCiphertext<B>, "a BGV seeded ciphertext", seeded_to_bytes, seeded_from_bytes);
codec!(Plaintext, "a BGV plaintext", plaintext_to_bytes, plaintext_from_bytes);
codec!(PublicKey<B>, "a BGV public key", public_key_to_bytes, public_key_from_bytes);
codec!(RelinKey<B>, "a BGV relinearization key", relin_key_to_bytes, relin_key_from_bytes);
codec!(GaloisKeys<B>, "BGV Galois keys", galois_keys_to_bytes, galois_keys_from_bytes);
codec!(SecretKey<B>, "a BGV secret key", secret_key_to_bytes, secret_key_from_bytes);

/// The seed of a [`Ciphertext`] (any level) of a context.
pub type CiphertextSeed<'a, B> = ContextSeed<'a, BgvContext<B>, Ciphertext<B>>;
/// The seed of a [`SeededCiphertext`].
pub type SeededCiphertextSeed<'a, B> = ContextSeed<'a, BgvContext<B>, SeededCiphertext<B>>;
/// The seed of a [`PublicKey`].
pub type PublicKeySeed<'a, B> = ContextSeed<'a, BgvContext<B>, PublicKey<B>>;
/// The seed of a [`RelinKey`].
pub type RelinKeySeed<'a, B> = ContextSeed<'a, BgvContext<B>, RelinKey<B>>;
/// The seed of [`GaloisKeys`].
pub type GaloisKeysSeed<'a, B> = ContextSeed<'a, BgvContext<B>, GaloisKeys<B>>;
/// The seed of a [`SecretKey`] (its serialized form is the secret).
pub type SecretKeySeed<'a, B> = ContextSeed<'a, BgvContext<B>, SecretKey<B>>;

impl<B: BgvBackend> BgvContext<B> {
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
    /// errors: the decoder's, or [`BgvError::Malformed`] when the format finds no byte string.
    pub fn load<'de, T, D: Deserializer<'de>>(&self, deserializer: D) -> Result<T>
    where
        Self: Codec<T, Error = BgvError>,
    {
        serde_support::load(self, deserializer)
            .map_err(|error| BgvError::Malformed { what: <Self as Codec<T>>::WHAT, reason: error.to_string() })?
    }
}
