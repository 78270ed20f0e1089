//! serde support (feature `serde`, on by default), written once for every scheme.
//!
//! An object travels as its byte encoding ([`crate::framing`]: versioned, with the scheme tag),
//! written as one byte string (`serialize_bytes`; JSON writes it as an array of numbers). On
//! load the byte string goes to the same validating decoder as `*_from_bytes`: one validation
//! path for the byte encodings and serde. Every scheme context ([`SchemeContext`](crate::SchemeContext)) is the
//! [`Codec`] of its objects: full ciphertexts (through its [`CiphertextCodec`](crate::codec::CiphertextCodec)), seeded
//! ciphertexts, plaintexts and keys; [`Serializable`] and [`ContextSeed`] carry it, and
//! [`Plaintext`] serializes alone ([`PlaintextSeed`] loads it). Parameters travel as their
//! defining values and are rebuilt through the builder: [`RlweParameters`] here, a scheme's
//! through its record ([`ParameterRecord`]).

use core::fmt;
use std::sync::Arc;

use poly::RingKind;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::{Error as _, Serializer};
use serde::{Deserialize, Serialize};
use zeroize::Zeroizing;

pub use crate::codec::Codec;
use crate::codec::{self, object_name};
use crate::params::{MAX_PRIMES, ModuliChoice, RlweParametersBuilder};
use crate::scheme::SchemeParameters;
use crate::{Plaintext, Result, RlweError, RlweParameters};

/// Serializes `encoded`, an object's byte encoding, as one byte string; an error of the
/// encoder becomes the format's custom error. The bytes are overwritten with zeros afterwards
/// (they may be a secret key's).
pub fn serialize_encoding<S: Serializer, E: fmt::Display>(
    serializer: S,
    encoded: core::result::Result<Vec<u8>, E>,
) -> core::result::Result<S::Ok, S::Error> {
    let bytes = Zeroizing::new(encoded.map_err(S::Error::custom)?);
    serializer.serialize_bytes(&bytes)
}

/// Reads one byte string (or a sequence of bytes, as JSON writes one) from `deserializer`
/// and hands it to `decode`. The outer error is the format's, the inner one the decoder's.
/// Every copy of the bytes made here is overwritten with zeros before this returns.
pub fn deserialize_encoding<'de, D, T, E>(
    deserializer: D,
    expecting: &'static str,
    decode: impl FnOnce(&[u8]) -> core::result::Result<T, E>,
) -> core::result::Result<core::result::Result<T, E>, D::Error>
where
    D: Deserializer<'de>,
{
    deserializer.deserialize_bytes(DecodeVisitor { expecting, decode, output: core::marker::PhantomData })
}

/// [`deserialize_encoding`] with the decoder's error turned into the format's custom error:
/// the body of every `DeserializeSeed` of the schemes.
pub fn deserialize_validated<'de, D, T, E>(
    deserializer: D,
    expecting: &'static str,
    decode: impl FnOnce(&[u8]) -> core::result::Result<T, E>,
) -> core::result::Result<T, D::Error>
where
    D: Deserializer<'de>,
    E: fmt::Display,
{
    deserialize_encoding(deserializer, expecting, decode)?.map_err(de::Error::custom)
}

/// Preallocation cap for a byte sequence of unknown length (it grows as bytes arrive).
const INITIAL_CAPACITY: usize = 1 << 12;

struct DecodeVisitor<F, T, E> {
    expecting: &'static str,
    decode: F,
    output: core::marker::PhantomData<fn() -> (T, E)>,
}

impl<'de, F, T, E> Visitor<'de> for DecodeVisitor<F, T, E>
where
    F: FnOnce(&[u8]) -> core::result::Result<T, E>,
{
    type Value = core::result::Result<T, E>;

    fn expecting(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "the byte encoding of {}", self.expecting)
    }

    fn visit_bytes<A: de::Error>(self, bytes: &[u8]) -> core::result::Result<Self::Value, A> {
        Ok((self.decode)(bytes))
    }

    fn visit_byte_buf<A: de::Error>(self, bytes: Vec<u8>) -> core::result::Result<Self::Value, A> {
        let bytes = Zeroizing::new(bytes);
        Ok((self.decode)(&bytes))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> core::result::Result<Self::Value, A::Error> {
        let hint = seq.size_hint().unwrap_or(0).min(INITIAL_CAPACITY);
        let mut bytes = Zeroizing::new(Vec::with_capacity(hint));
        while let Some(byte) = seq.next_element::<u8>()? {
            if bytes.len() == bytes.capacity() {
                // Grow by hand: a reallocation would leave the old bytes behind, unzeroed.
                let mut grown = Zeroizing::new(Vec::with_capacity(bytes.capacity().saturating_mul(2).max(64)));
                grown.extend_from_slice(&bytes);
                bytes = grown;
            }
            bytes.push(byte);
        }
        Ok((self.decode)(&bytes))
    }
}

/// The transform as parameters name it in serde formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Transform {
    /// The negacyclic NTT.
    Ntt,
    /// The DGT.
    Dgt,
    /// The hierarchical DGT.
    HierarchicalDgt,
    /// Bluestein's transform (rings `Z_q[x]/Phi_m`).
    Bluestein,
}

impl From<poly::TransformKind> for Transform {
    fn from(kind: poly::TransformKind) -> Self {
        match kind {
            poly::TransformKind::Ntt => Transform::Ntt,
            poly::TransformKind::Dgt => Transform::Dgt,
            poly::TransformKind::HierarchicalDgt => Transform::HierarchicalDgt,
            poly::TransformKind::Bluestein => Transform::Bluestein,
        }
    }
}

impl From<Transform> for poly::TransformKind {
    fn from(transform: Transform) -> Self {
        match transform {
            Transform::Ntt => poly::TransformKind::Ntt,
            Transform::Dgt => poly::TransformKind::Dgt,
            Transform::HierarchicalDgt => poly::TransformKind::HierarchicalDgt,
            Transform::Bluestein => poly::TransformKind::Bluestein,
        }
    }
}

/// The defining values of [`RlweParameters`] as they travel: the degree, the primes, the
/// transform and whether the set may lie beyond the 128-bit table (`allow_insecure`: false for
/// a set within it). Loading rebuilds them through [`RlweParametersBuilder`], with every check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ParametersData {
    /// `N`.
    pub degree: u64,
    /// `q_0 .. q_{L-1}`.
    pub ciphertext_moduli: Vec<u64>,
    /// `p_0 .. p_{K-1}`.
    pub special_moduli: Vec<u64>,
    /// The transform.
    pub transform: Transform,
    /// Whether a set beyond the 128-bit table is accepted.
    pub allow_insecure: bool,
}

impl ParametersData {
    /// The values of `params`.
    pub fn of(params: &RlweParameters) -> Self {
        Self {
            degree: record_degree(params.ring_kind()),
            ciphertext_moduli: params.ciphertext_moduli().to_vec(),
            special_moduli: params.special_moduli().to_vec(),
            transform: params.transform().into(),
            allow_insecure: !params.is_secure_128(),
        }
    }

    /// The builder of these values, after the checks that bound the work of building: a
    /// degree that fits a `usize` and at most [`MAX_PRIMES`] primes (the builder checks the
    /// rest). Errors with [`RlweError::InvalidParameter`].
    pub fn builder(&self) -> Result<RlweParametersBuilder> {
        let degree = checked_shape(self.degree, &self.ciphertext_moduli, &self.special_moduli)?;
        let builder = match record_ring(degree, self.transform.into()) {
            RingKind::NegacyclicPowerOfTwo { degree } => RlweParametersBuilder::new(degree),
            RingKind::Cyclotomic { m } => RlweParametersBuilder::new_cyclotomic(m),
        };
        Ok(builder
            .ciphertext(ModuliChoice::Explicit(self.ciphertext_moduli.clone()))
            .special(ModuliChoice::Explicit(self.special_moduli.clone()))
            .transform(self.transform.into())
            .allow_insecure(self.allow_insecure))
    }

    /// The parameters of these values, validated ([`builder`](Self::builder), then
    /// [`RlweParametersBuilder::build`]).
    pub fn build(&self) -> Result<Arc<RlweParameters>> {
        self.builder()?.build()
    }
}

/// The `degree` field of a parameter record of `ring`: `N` for `x^N + 1`, the index `m` for
/// `Phi_m` (`phi(m)` does not determine `m`: `phi(35) = phi(39) = phi(45) = 24`). The record's
/// transform tells the two apart (Bluestein's is the transform of the `Phi_m` rings and only
/// theirs), so the records of `x^N + 1`, in every format, are what they were before the ring
/// kinds, and no format needs a new field.
pub fn record_degree(ring: RingKind) -> u64 {
    match ring {
        RingKind::NegacyclicPowerOfTwo { degree } => degree as u64,
        RingKind::Cyclotomic { m } => m as u64,
    }
}

/// The ring of a decoded record ([`record_degree`]): `Phi_m` with `m = degree` under
/// Bluestein's transform, `x^N + 1` under the others. The builders check the value (`N` a power
/// of two in range, `m` odd in `3..=2^17`).
pub fn record_ring(degree: usize, transform: poly::TransformKind) -> RingKind {
    match transform {
        poly::TransformKind::Bluestein => RingKind::Cyclotomic { m: degree },
        poly::TransformKind::Ntt | poly::TransformKind::Dgt | poly::TransformKind::HierarchicalDgt => {
            RingKind::NegacyclicPowerOfTwo { degree }
        }
    }
}

/// The checks that bound the work of building parameters from decoded values, before any
/// builder runs (the schemes' parameter decoders call it too): the degree as a `usize` if it
/// fits one, and at most [`MAX_PRIMES`] ciphertext and special primes. Errors with
/// [`RlweError::InvalidParameter`].
pub fn checked_shape(degree: u64, ciphertext_moduli: &[u64], special_moduli: &[u64]) -> Result<usize> {
    let degree = usize::try_from(degree).map_err(|_| RlweError::InvalidParameter {
        name: "degree",
        value: degree,
        requirement: "must fit the platform's usize".to_string(),
    })?;
    let primes = ciphertext_moduli.len().saturating_add(special_moduli.len());
    if primes > MAX_PRIMES {
        return Err(RlweError::InvalidParameter {
            name: "number of ciphertext and special primes",
            value: primes as u64,
            requirement: format!("at most {MAX_PRIMES}"),
        });
    }
    Ok(degree)
}

impl Serialize for RlweParameters {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        ParametersData::of(self).serialize(serializer)
    }
}

/// Rebuilt through the builder: every check of [`RlweParametersBuilder::build`] applies.
impl<'de> Deserialize<'de> for RlweParameters {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> core::result::Result<Self, D::Error> {
        let data = ParametersData::deserialize(deserializer)?;
        let params = data.build().map_err(de::Error::custom)?;
        Arc::try_unwrap(params).map_err(|_| de::Error::custom("freshly built parameters are shared"))
    }
}

/// `value` made serializable by its context (device objects need their backend to be read):
/// written as its byte encoding.
pub struct Serializable<'a, C, T> {
    codec: &'a C,
    value: &'a T,
}

impl<'a, C, T> Serializable<'a, C, T> {
    /// `value` to be encoded by `codec`.
    pub fn new(codec: &'a C, value: &'a T) -> Self {
        Self { codec, value }
    }
}

impl<C, T> fmt::Debug for Serializable<'_, C, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Serializable").finish_non_exhaustive()
    }
}

impl<C: Codec<T>, T> Serialize for Serializable<'_, C, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        serialize_encoding(serializer, self.codec.encode(self.value))
    }
}

/// A `DeserializeSeed` carrying the context: yields a `T` that its decoder has validated
/// against the context (parameters, sizes, level, every word below its prime), or the
/// decoder's error as the format's custom error.
pub struct ContextSeed<'a, C, T> {
    codec: &'a C,
    value: core::marker::PhantomData<fn() -> T>,
}

impl<'a, C, T> ContextSeed<'a, C, T> {
    /// The seed of `codec`.
    pub fn new(codec: &'a C) -> Self {
        Self { codec, value: core::marker::PhantomData }
    }
}

impl<C, T> Clone for ContextSeed<'_, C, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<C, T> Copy for ContextSeed<'_, C, T> {}

impl<C, T> fmt::Debug for ContextSeed<'_, C, T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ContextSeed").finish_non_exhaustive()
    }
}

impl<'de, C: Codec<T>, T> de::DeserializeSeed<'de> for ContextSeed<'_, C, T> {
    type Value = T;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> core::result::Result<T, D::Error> {
        deserialize_validated(deserializer, C::WHAT, |bytes| self.codec.decode(bytes))
    }
}

/// Reads a `T` with `codec` from `deserializer`, keeping the decoder's typed error apart
/// (inner) from the format's (outer).
pub fn load<'de, C: Codec<T>, T, D: Deserializer<'de>>(
    codec: &C,
    deserializer: D,
) -> core::result::Result<core::result::Result<T, C::Error>, D::Error> {
    deserialize_encoding(deserializer, C::WHAT, |bytes| codec.decode(bytes))
}

/// Reads a `T` with `codec` from `deserializer`, with typed errors: the decoder's, or
/// [`RlweError::Malformed`] (naming [`Codec::WHAT`]) when the format finds no byte string.
pub fn load_typed<'de, C: Codec<T, Error = RlweError>, T, D: Deserializer<'de>>(
    codec: &C,
    deserializer: D,
) -> Result<T> {
    load(codec, deserializer).map_err(|error| RlweError::Malformed { what: C::WHAT, reason: error.to_string() })?
}

/// A scheme's parameters as they travel: a record of their defining values (serde's derive
/// writes it), rebuilt through the scheme's builder with every check on load.
pub trait ParameterRecord: Serialize + de::DeserializeOwned {
    /// The parameters.
    type Params;
    /// The values of `params`.
    fn of(params: &Self::Params) -> Self;
    /// The parameters of these values, validated by the builder.
    fn build(&self) -> Result<Arc<Self::Params>>;
}

/// `params` serialized as their record `R` (the body of the parameters' `Serialize`).
pub fn serialize_parameters<R: ParameterRecord, S: Serializer>(
    params: &R::Params,
    serializer: S,
) -> core::result::Result<S::Ok, S::Error> {
    R::of(params).serialize(serializer)
}

/// Parameters read from `deserializer` as their record `R` and rebuilt through the builder,
/// with typed errors: the builder's, or [`RlweError::Malformed`] for input the format cannot
/// read as parameters.
pub fn load_parameters<'de, R: ParameterRecord, D: Deserializer<'de>>(deserializer: D) -> Result<Arc<R::Params>> {
    R::deserialize(deserializer)
        .map_err(|error| RlweError::Malformed { what: "serialized parameters", reason: error.to_string() })?
        .build()
}

/// [`load_parameters`] as the body of the parameters' `Deserialize` (the errors as the format's).
pub fn deserialize_parameters<'de, R: ParameterRecord, D: Deserializer<'de>>(
    deserializer: D,
) -> core::result::Result<R::Params, D::Error> {
    let params = load_parameters::<R, D>(deserializer).map_err(de::Error::custom)?;
    Arc::try_unwrap(params).map_err(|_| de::Error::custom("freshly built parameters are shared"))
}

/// Written as its byte encoding (kind 7: `N` coefficients below `t`, the parameters in the
/// header).
impl<P: SchemeParameters> Serialize for Plaintext<P> {
    fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
        serialize_encoding(serializer, self.to_bytes())
    }
}

/// The `DeserializeSeed` of a [`Plaintext`] of given parameters: the header must name them,
/// every coefficient must be below `t`.
#[derive(Debug)]
pub struct PlaintextSeed<'a, P: SchemeParameters> {
    /// The parameters the plaintext must belong to.
    pub params: &'a Arc<P>,
}

impl<P: SchemeParameters> Clone for PlaintextSeed<'_, P> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<P: SchemeParameters> Copy for PlaintextSeed<'_, P> {}

impl<'de, P: SchemeParameters> de::DeserializeSeed<'de> for PlaintextSeed<'_, P> {
    type Value = Plaintext<P>;

    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> core::result::Result<Plaintext<P>, D::Error> {
        let what = object_name(P::SCHEME, codec::PLAINTEXT);
        deserialize_validated(deserializer, what, |bytes| Plaintext::from_bytes(self.params, bytes))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `N = 1024`, beyond the 128-bit table, DGT.
    fn insecure() -> Arc<RlweParameters> {
        RlweParametersBuilder::new(1024)
            .ciphertext(ModuliChoice::Bits(vec![30, 30]))
            .special(ModuliChoice::Bits(vec![31]))
            .transform(poly::TransformKind::Dgt)
            .allow_insecure(true)
            .build()
            .unwrap()
    }

    #[test]
    fn parameters_round_trip_and_are_checked() {
        let params = insecure();
        let binary = postcard::to_allocvec(&*params).unwrap();
        assert_eq!(postcard::from_bytes::<RlweParameters>(&binary).unwrap(), *params);
        let json = serde_json::to_value(&*params).unwrap();
        assert_eq!(json["transform"], "Dgt");
        assert_eq!(json["allow_insecure"], true);
        assert_eq!(*serde_json::from_value::<Arc<RlweParameters>>(json.clone()).unwrap(), *params);
        let mut edited = json.clone();
        edited["allow_insecure"] = false.into();
        let error = serde_json::from_value::<RlweParameters>(edited).unwrap_err();
        assert!(error.to_string().contains("128-bit"), "{error}");
        let mut edited = json;
        edited["special_moduli"] = serde_json::json!(vec![7u64; MAX_PRIMES]);
        let error = serde_json::from_value::<RlweParameters>(edited).unwrap_err();
        assert!(error.to_string().contains("number of ciphertext and special primes"), "{error}");
        // A set within the table travels with allow_insecure false.
        let data = ParametersData::of(
            &RlweParametersBuilder::new(4096)
                .ciphertext(ModuliChoice::Bits(vec![36, 36]))
                .special(ModuliChoice::Bits(vec![37]))
                .build()
                .unwrap(),
        );
        assert!(!data.allow_insecure);
    }

    /// Byte strings from postcard (borrowed) and JSON (a sequence, grown by hand) reach the
    /// decoder whole; the decoder's error stays apart from the format's.
    #[test]
    fn byte_strings_reach_the_decoder() {
        struct Raw(Vec<u8>);
        impl Serialize for Raw {
            fn serialize<S: Serializer>(&self, serializer: S) -> core::result::Result<S::Ok, S::Error> {
                serializer.serialize_bytes(&self.0)
            }
        }
        let bytes: Vec<u8> = (0..10_000u32).map(|i| (i * 7919 % 251) as u8).collect();
        let binary = postcard::to_allocvec(&Raw(bytes.clone())).unwrap();
        let json = serde_json::to_vec(&Raw(bytes.clone())).unwrap();
        let decode = |input: &[u8]| -> core::result::Result<Vec<u8>, String> { Ok(input.to_vec()) };
        let from_binary =
            deserialize_encoding(&mut postcard::Deserializer::from_bytes(&binary), "bytes", decode).unwrap();
        assert_eq!(from_binary.unwrap(), bytes);
        let from_json =
            deserialize_encoding(&mut serde_json::Deserializer::from_slice(&json), "bytes", decode).unwrap();
        assert_eq!(from_json.unwrap(), bytes);
        let refuse = |_: &[u8]| -> core::result::Result<(), String> { Err("refused".to_string()) };
        let inner = deserialize_encoding(&mut serde_json::Deserializer::from_slice(&json), "bytes", refuse).unwrap();
        assert_eq!(inner.unwrap_err(), "refused");
        let outer = deserialize_validated(&mut serde_json::Deserializer::from_slice(&json), "bytes", refuse);
        assert!(outer.unwrap_err().to_string().contains("refused"));
        // Not a byte string: the format's error, the decoder not called.
        let not_bytes = deserialize_encoding(&mut serde_json::Deserializer::from_slice(b"{}"), "bytes", refuse);
        assert!(not_bytes.is_err());
        assert!(deserialize_encoding(&mut serde_json::Deserializer::from_slice(b"[1, 256]"), "bytes", refuse).is_err());
    }
}
