//! Byte encodings of BGV ciphertexts and keys: the core's framing (`rlwe::framing`) with the
//! tag "BGV", so a BFV encoding is refused here and the other way round (their keys differ:
//! BGV's errors are multiples of `t`).
//!
//! Kinds and bodies as bfv's (1 = ciphertext, 2 = seeded ciphertext, 3 = public key,
//! 4 = relinearization key, 5 = Galois keys, 6 = secret key, 7 = plaintext), except that a
//! full ciphertext's body begins with its correction factor:
//!
//! ```text
//! kind 1:  8 bytes        the correction factor f (1 <= f < t, invertible modulo t); from
//!                         version 3, bit 63 set for a product not yet switched down
//!                         (`ModSwitching::Auto` switches it before the next product)
//!          k P(q_l)       c_0, c_1, ... over q_l, coefficient representation
//! kind 2:  32 bytes       the public seed, then P(q): c_0 over q (factor 1, top level)
//! kind 7:  P(t)           the plaintext's coefficients, each below t (count 1; new in
//!                         version 2; its key set is always 0)
//! every kind, last (from format version 2): 8 bytes, the key set's identifier
//! (`rlwe::KeySetId`, 0 for none; version 1 has none)
//! ```
//!
//! `P(M)` is a polynomial packed to the bit widths of the primes `M` (format version 3; 8
//! bytes a word in versions 1 and 2), and keys carry bfv's form byte (whole or seeded).
//!
//! **The bytes of a secret key are the secret itself** (see bfv's serialize docs). Decoding
//! checks every field against the context and every word against its prime, and errors
//! (never panics): [`BgvError::Malformed`] (bad magic, version, kind, truncated or trailing
//! bytes, counts the input cannot hold, a correction factor that is not invertible modulo
//! `t`), [`BgvError::ParameterMismatch`]-like core errors for other parameters,
//! [`BgvError::Poly`]-like core errors for a word not below its prime, and
//! [`BgvError::PlaintextOutOfRange`] for a plaintext coefficient not below `t`.

use poly::Coeff;
use rlwe::SchemeParameters;
use rlwe::codec::{self, CiphertextCodec, CiphertextParts, CoefficientPolys};
use rlwe::framing::PACKED_VERSION;

use crate::backend::BgvBackend;
use crate::context::{BgvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext, inverse_mod};
use crate::{BgvError, GaloisKeys, Plaintext, Result};

/// A BGV ciphertext adds its correction factor to the core's frame, and keeps its polynomials
/// in the evaluation representation (transformed on the way: the frame holds coefficients).
impl<B: BgvBackend> CiphertextCodec for BgvContext<B> {
    type Ciphertext = Ciphertext<B>;

    const SCHEME_WORDS: usize = 1;

    fn ciphertext_parts<'a>(&self, ciphertext: &'a Ciphertext<B>) -> Result<CiphertextParts<CoefficientPolys<'a, B>>> {
        self.check_ciphertext(ciphertext)?;
        Ok(CiphertextParts {
            polys: CoefficientPolys::Owned(self.inverse_all(ciphertext.polys())?),
            level: ciphertext.level(),
            scheme_words: vec![ciphertext.state().correction | (u64::from(ciphertext.state().product) << PRODUCT_BIT)],
            key_set: ciphertext.key_set(),
        })
    }

    fn refuse_scheme_words(&self, words: &[u64], version: u8) -> Option<String> {
        let t = self.params.plaintext_modulus();
        // The product flag is bit 63 from version 3 on; before, the word is the factor alone.
        let flag = if version >= PACKED_VERSION { !(1 << PRODUCT_BIT) } else { u64::MAX };
        let words: Vec<u64> = words.iter().map(|w| w & flag).collect();
        match *words {
            [correction] if correction != 0 && correction < t && inverse_mod(correction, t).is_some() => None,
            [correction] => Some(format!("correction factor {correction} is not an invertible residue modulo t = {t}")),
            _ => Some(format!("a ciphertext has 1 correction factor, not {}", words.len())),
        }
    }

    fn ciphertext_of_parts(&self, parts: CiphertextParts<Vec<B::Poly<Coeff>>>) -> Result<Ciphertext<B>> {
        let CiphertextParts { polys, level, scheme_words, key_set } = parts;
        let (correction, product) = match *scheme_words {
            [word] => (word & !(1 << PRODUCT_BIT), word >> PRODUCT_BIT == 1),
            _ => {
                return Err(BgvError::Malformed {
                    what: "ciphertext bytes",
                    reason: "no correction factor".to_string(),
                });
            }
        };
        let mut ciphertext = self.ciphertext(self.forward_all(polys)?, level, correction, key_set);
        ciphertext.state_mut().product = product;
        ciphertext.state_mut().noise_bits = self.params.noise_model().loaded(product);
        Ok(ciphertext)
    }
}

/// The bit of the correction-factor word that carries the product flag (format version 3):
/// a product not yet switched down stays one across the bytes, for `ModSwitching::Auto`.
const PRODUCT_BIT: u32 = 63;

impl<B: BgvBackend> BgvContext<B> {
    /// The bytes of `value`: a ciphertext, seeded ciphertext, plaintext, public,
    /// relinearization, Galois or secret key of this context (the format of the module docs).
    /// The one way to write an object as bytes (the per-type `*_to_bytes` methods are this,
    /// and serde writes these bytes too). Errors with [`BgvError::ParameterMismatch`] for an object
    /// of other parameters.
    pub fn to_bytes<T>(&self, value: &T) -> Result<Vec<u8>>
    where
        Self: rlwe::codec::Codec<T, Error = BgvError>,
    {
        rlwe::codec::Codec::encode(self, value)
    }

    /// The object of type `T` encoded in `bytes`, validated against this context (parameters,
    /// sizes, level, key set, every word below its prime): the one way to read an object
    /// from bytes, e.g. `context.load_bytes::<Ciphertext<_>>(&bytes)?`. Errors as the module
    /// docs say; never panics, whatever the bytes.
    pub fn load_bytes<T>(&self, bytes: &[u8]) -> Result<T>
    where
        Self: rlwe::codec::Codec<T, Error = BgvError>,
    {
        rlwe::codec::Codec::decode(self, bytes)
    }

    /// The bytes of `plaintext` (kind 7). Errors with [`BgvError::ParameterMismatch`] for a
    /// plaintext of other parameters.
    pub fn plaintext_to_bytes(&self, plaintext: &Plaintext) -> Result<Vec<u8>> {
        codec::plaintext_to_bytes(self, plaintext)
    }

    /// The plaintext encoded in `bytes`; [`BgvError::PlaintextOutOfRange`] for a coefficient
    /// not below `t`.
    pub fn plaintext_from_bytes(&self, bytes: &[u8]) -> Result<Plaintext> {
        Plaintext::from_bytes(&self.params, bytes)
    }

    /// The bytes of `ciphertext` at its level, with its correction factor.
    pub fn ciphertext_to_bytes(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<u8>> {
        codec::ciphertext_to_bytes(self, ciphertext)
    }

    /// The ciphertext encoded in `bytes`, at the level its header names (module docs).
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext<B>> {
        codec::ciphertext_from_bytes(self, bytes)
    }

    /// The bytes of a seeded ciphertext: the public seed and `c_0`.
    pub fn seeded_to_bytes(&self, seeded: &SeededCiphertext<B>) -> Result<Vec<u8>> {
        codec::seeded_to_bytes(self, seeded)
    }

    /// The seeded ciphertext encoded in `bytes`.
    pub fn seeded_from_bytes(&self, bytes: &[u8]) -> Result<SeededCiphertext<B>> {
        codec::seeded_from_bytes(self, bytes)
    }

    /// The bytes of a public key.
    pub fn public_key_to_bytes(&self, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.core.public_key_to_bytes(self.params.frame(), key)
    }

    /// The public key encoded in `bytes`.
    pub fn public_key_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey<B>> {
        self.core.public_key_from_bytes(self.params.frame(), bytes)
    }

    /// The bytes of a relinearization key.
    pub fn relin_key_to_bytes(&self, key: &RelinKey<B>) -> Result<Vec<u8>> {
        self.core.relin_key_to_bytes(self.params.frame(), key)
    }

    /// The relinearization key encoded in `bytes`.
    pub fn relin_key_from_bytes(&self, bytes: &[u8]) -> Result<RelinKey<B>> {
        self.core.relin_key_from_bytes(self.params.frame(), bytes)
    }

    /// The bytes of Galois keys.
    pub fn galois_keys_to_bytes(&self, keys: &GaloisKeys<B>) -> Result<Vec<u8>> {
        self.core.galois_keys_to_bytes(self.params.frame(), keys)
    }

    /// The Galois keys encoded in `bytes`.
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<GaloisKeys<B>> {
        self.core.galois_keys_from_bytes(self.params.frame(), bytes)
    }

    /// **The secret itself**: the bytes of a secret key (never send them to the evaluator).
    pub fn secret_key_to_bytes(&self, key: &SecretKey<B>) -> Result<Vec<u8>> {
        self.core.secret_key_to_bytes(self.params.frame(), key)
    }

    /// The secret key encoded in `bytes`.
    pub fn secret_key_from_bytes(&self, bytes: &[u8]) -> Result<SecretKey<B>> {
        self.core.secret_key_from_bytes(self.params.frame(), bytes)
    }
}
