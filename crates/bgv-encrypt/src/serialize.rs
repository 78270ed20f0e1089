//! Byte encodings of BGV ciphertexts and keys: the core's framing (`rlwe::framing`) with the
//! tag "BGV", so a BFV encoding is refused here and the other way round (their keys differ:
//! BGV's errors are multiples of `t`).
//!
//! Kinds and bodies as bfv's (1 = ciphertext, 2 = seeded ciphertext, 3 = public key,
//! 4 = relinearization key, 5 = Galois keys, 6 = secret key, 7 = plaintext), except that a
//! full ciphertext's body begins with its correction factor:
//!
//! ```text
//! kind 1:  8 bytes        the correction factor f (1 <= f < t, invertible modulo t)
//!          8 k (l+1) N    c_0, c_1, ... over q_l, coefficient representation
//! kind 2:  32 bytes       the public seed, then 8 L N: c_0 over q (factor 1, top level)
//! kind 7:  8 N            the plaintext's coefficients, each below t (count 1; new in
//!                         version 2; its key set is always 0)
//! every kind, last (format version 2): 8 bytes, the key set's identifier (`rlwe::KeySetId`,
//! 0 for none; version 1 has none)
//! ```
//!
//! **The bytes of a secret key are the secret itself** (see bfv's serialize docs). Decoding
//! checks every field against the context and every word against its prime, and errors
//! (never panics): [`BgvError::Malformed`] (bad magic, version, kind, truncated or trailing
//! bytes, counts the input cannot hold, a correction factor that is not invertible modulo
//! `t`), [`BgvError::ParameterMismatch`]-like core errors for other parameters,
//! [`BgvError::Poly`]-like core errors for a word not below its prime, and
//! [`BgvError::PlaintextOutOfRange`] for a plaintext coefficient not below `t`.

use std::sync::Arc;

use poly::{Coeff, Seed};
use rlwe::framing::{Frame, Kind, Reader, Scheme, append_key_set, append_words};

use crate::backend::BgvBackend;
use crate::context::{BgvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext, inverse_mod};
use crate::{BgvError, BgvParameters, GaloisKeys, Plaintext, Result};

const fn kind(code: u8, leveled: bool, noun: &'static str) -> Kind {
    Kind { code, key: false, leveled, bytes: "ciphertext bytes", encoded: "encoded ciphertext", noun }
}

/// A full ciphertext, at any level.
const CIPHERTEXT: Kind = kind(1, true, "full ciphertext");
/// A seeded ciphertext, at the top level.
const SEEDED: Kind = kind(2, false, "seeded ciphertext");
/// A plaintext.
const PLAINTEXT: Kind = Kind {
    code: 7,
    key: false,
    leveled: false,
    bytes: "plaintext bytes",
    encoded: "encoded plaintext",
    noun: "plaintext",
};

/// The framing of the objects of `params`.
fn frame_of(params: &BgvParameters) -> Frame<'_> {
    Frame { scheme: Scheme::Bgv, params: params.core(), plaintext_modulus: params.plaintext_modulus() }
}

/// The bytes of `plaintext` (kind 7; see the module doc).
pub(crate) fn plaintext_to_bytes(plaintext: &Plaintext) -> Result<Vec<u8>> {
    let params = plaintext.params();
    let coefficients = plaintext.coefficients();
    let mut out = frame_of(params).header(PLAINTEXT, params.core().max_level(), 1, 8 * coefficients.len())?;
    append_words(&mut out, coefficients);
    append_key_set(&mut out, None);
    Ok(out)
}

/// The plaintext of `params` encoded in `bytes` (kind 7).
pub(crate) fn plaintext_from_bytes(params: &Arc<BgvParameters>, bytes: &[u8]) -> Result<Plaintext> {
    let mut reader = Reader::new(bytes, PLAINTEXT);
    let (count, _) = frame_of(params).read_header(&mut reader, PLAINTEXT)?;
    if count != 1 {
        return Err(reader.malformed(format!("a plaintext has 1 polynomial, not {count}")));
    }
    let mut words = Vec::new();
    reader.words_into(params.degree(), &mut words)?;
    let plaintext = Plaintext::from_coefficients(params, &words)?;
    if reader.finish_with_key_set()?.is_some() {
        return Err(BgvError::Malformed { what: PLAINTEXT.bytes, reason: "a plaintext has no key set".to_string() });
    }
    Ok(plaintext)
}

impl<B: BgvBackend> BgvContext<B> {
    /// The framing of this context's objects.
    fn frame(&self) -> Frame<'_> {
        frame_of(&self.params)
    }

    /// The bytes of `plaintext` (kind 7). Errors with [`BgvError::ParameterMismatch`] for a
    /// plaintext of other parameters.
    pub fn plaintext_to_bytes(&self, plaintext: &Plaintext) -> Result<Vec<u8>> {
        plaintext.check_params(&self.params)?;
        plaintext_to_bytes(plaintext)
    }

    /// The plaintext encoded in `bytes`; [`BgvError::PlaintextOutOfRange`] for a coefficient
    /// not below `t`.
    pub fn plaintext_from_bytes(&self, bytes: &[u8]) -> Result<Plaintext> {
        plaintext_from_bytes(&self.params, bytes)
    }

    fn poly_bytes_at(&self, level: usize) -> usize {
        self.params.degree().saturating_mul(level + 1).saturating_mul(8)
    }

    /// The bytes of `ciphertext` at its level, with its correction factor.
    pub fn ciphertext_to_bytes(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<u8>> {
        self.check_ciphertext(ciphertext)?;
        let body = 8 + ciphertext.polys.len().saturating_mul(self.poly_bytes_at(ciphertext.level));
        let mut out = self.frame().header(CIPHERTEXT, ciphertext.level, ciphertext.polys.len(), body)?;
        out.extend_from_slice(&ciphertext.correction.to_le_bytes());
        // Coefficients on the wire (the format of every version).
        for poly in &self.inverse_all(&ciphertext.polys)? {
            self.core.append_poly(&mut out, poly)?;
        }
        append_key_set(&mut out, ciphertext.key_set);
        Ok(out)
    }

    /// The ciphertext encoded in `bytes`, at the level its header names (module docs).
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext<B>> {
        let mut reader = Reader::new(bytes, CIPHERTEXT);
        let (count, level) = self.frame().read_header(&mut reader, CIPHERTEXT)?;
        if count < 2 {
            return Err(BgvError::InvalidCiphertextSize {
                operation: "decoding",
                expected: "at least 2",
                actual: count,
            });
        }
        if count > bytes.len() / self.poly_bytes_at(level).max(1) {
            return Err(reader.malformed(format!("{count} polynomials do not fit in {} bytes", bytes.len())));
        }
        let correction = reader.u64()?;
        let t = self.params.plaintext_modulus();
        if correction == 0 || correction >= t || inverse_mod(correction, t).is_none() {
            return Err(
                reader.malformed(format!("correction factor {correction} is not an invertible residue modulo t = {t}"))
            );
        }
        let ring = self.params.core().ring_at_level(level)?;
        let device = self.core.context_at_level(level)?;
        let polys = (0..count)
            .map(|_| self.core.read_poly::<Coeff>(&mut reader, &ring, device))
            .collect::<rlwe::Result<Vec<_>>>()?;
        let key_set = reader.finish_with_key_set()?;
        Ok(self.ciphertext(self.forward_all(polys)?, level, correction, key_set))
    }

    /// The bytes of a seeded ciphertext: the public seed and `c_0`.
    pub fn seeded_to_bytes(&self, seeded: &SeededCiphertext<B>) -> Result<Vec<u8>> {
        self.check(&seeded.params, "seeded ciphertext")?;
        let mut out = self.frame().header(SEEDED, self.top_level(), 1, 32 + self.poly_bytes_at(self.top_level()))?;
        out.extend_from_slice(seeded.public_seed.as_bytes());
        self.core.append_poly(&mut out, &seeded.c0)?;
        append_key_set(&mut out, seeded.key_set);
        Ok(out)
    }

    /// The seeded ciphertext encoded in `bytes`.
    pub fn seeded_from_bytes(&self, bytes: &[u8]) -> Result<SeededCiphertext<B>> {
        let mut reader = Reader::new(bytes, SEEDED);
        let (count, _) = self.frame().read_header(&mut reader, SEEDED)?;
        if count != 1 {
            return Err(reader.malformed(format!("a seeded ciphertext has 1 polynomial, not {count}")));
        }
        let mut seed = [0u8; 32];
        seed.copy_from_slice(reader.take(32)?);
        let c0 = self.core.read_poly(&mut reader, self.params.ring_q(), self.core.ring_q())?;
        let key_set = reader.finish_with_key_set()?;
        Ok(SeededCiphertext { params: Arc::clone(&self.params), c0, public_seed: Seed::from(seed), key_set })
    }

    /// The bytes of a public key.
    pub fn public_key_to_bytes(&self, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.core.public_key_to_bytes(self.frame(), key)
    }

    /// The public key encoded in `bytes`.
    pub fn public_key_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey<B>> {
        self.core.public_key_from_bytes(self.frame(), bytes)
    }

    /// The bytes of a relinearization key.
    pub fn relin_key_to_bytes(&self, key: &RelinKey<B>) -> Result<Vec<u8>> {
        self.core.relin_key_to_bytes(self.frame(), key)
    }

    /// The relinearization key encoded in `bytes`.
    pub fn relin_key_from_bytes(&self, bytes: &[u8]) -> Result<RelinKey<B>> {
        self.core.relin_key_from_bytes(self.frame(), bytes)
    }

    /// The bytes of Galois keys.
    pub fn galois_keys_to_bytes(&self, keys: &GaloisKeys<B>) -> Result<Vec<u8>> {
        self.core.galois_keys_to_bytes(self.frame(), keys)
    }

    /// The Galois keys encoded in `bytes`.
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<GaloisKeys<B>> {
        self.core.galois_keys_from_bytes(self.frame(), bytes)
    }

    /// **The secret itself**: the bytes of a secret key (never send them to the evaluator).
    pub fn secret_key_to_bytes(&self, key: &SecretKey<B>) -> Result<Vec<u8>> {
        self.core.secret_key_to_bytes(self.frame(), key)
    }

    /// The secret key encoded in `bytes`.
    pub fn secret_key_from_bytes(&self, bytes: &[u8]) -> Result<SecretKey<B>> {
        self.core.secret_key_from_bytes(self.frame(), bytes)
    }
}
