//! Byte encodings, so that ciphertexts and keys can travel and be stored: a full
//! [`Ciphertext`], the half-size [`SeededCiphertext`] (its `c_0` and the 32-byte public seed of
//! `c_1`), and the keys: [`PublicKey`], [`RelinKey`], [`GaloisKeys`] (to ship the evaluation
//! keys to a server) and [`SecretKey`].
//!
//! **The bytes of a secret key ([`BfvContext::secret_key_to_bytes`]) are the secret itself**:
//! anyone who reads them decrypts everything encrypted under the key. Never send them to the
//! party that evaluates; store them only where the key itself may be kept.
//!
//! Layout (the core's framing, `rlwe::framing`, with the scheme tag "BFV"; all integers
//! little-endian; every polynomial limb-major, `N` words of 8 bytes per limb, each word below
//! its prime):
//!
//! ```text
//! 8 bytes  "HEGPUBFV"
//! 1 byte   format version (2; version 1, without the final key set, is still read)
//! 1 byte   kind: 1 = ciphertext, 2 = seeded ciphertext, 3 = public key,
//!          4 = relinearization key, 5 = Galois keys, 6 = secret key, 7 = plaintext
//! 4 bytes  N
//! 4 bytes  L (number of ciphertext primes; for kind 1, l + 1 at level l of the chain)
//! 8 L      the ciphertext primes q_0 .. q_{L-1} (a prefix of the parameters' for kind 1)
//! 8 bytes  t
//! 4 bytes  count c: kind 1: the number of polynomials k; kind 2: 1; kinds 3 and 6: 2;
//!          kind 4: the number of digits d; kind 5: the number of Galois elements e;
//!          kind 7: 1
//! -- kinds 3 to 6 only (the evaluation representation depends on the transform):
//! 4 bytes  K (number of special primes)
//! 8 K      the special primes p_0 .. p_{K-1}
//! 1 byte   transform: 0 = NTT, 1 = DGT, 2 = hierarchical DGT
//! -- the body:
//! kind 1:  8 k L N        c_0, c_1, ... over q, coefficient representation
//! kind 2:  32 bytes       the public seed
//!          8 L N          c_0 over q, coefficient representation
//! kind 3:  8 2 L N        b, a over q, evaluation representation
//! kind 4:  8 2 d (L+K) N  b_0, a_0, b_1, a_1, ... over qP, evaluation representation
//!                         (d: the parameters' number of key-switching digits)
//! kind 5:  e times, by increasing element:
//!          8 bytes        the Galois element g (odd, below 2N)
//!          8 2 d (L+K) N  its b_0, a_0, b_1, a_1, ... over qP, evaluation representation
//! kind 6:  8 L N          s over q, evaluation representation
//!          8 (L+K) N      s over qP, evaluation representation
//! kind 7:  8 N            the plaintext's coefficients, each below t
//! -- every kind, last (version 2):
//! 8 bytes  the key set's identifier (`rlwe::KeySetId`; 0 for none; always 0 for kind 7)
//! ```
//!
//! Kind 7 (plaintexts) is new in version 2. The ciphertext and plaintext kinds (1, 2, 7) have no special primes nor transform in their header.
//! Decoding checks every field against the context's parameters and every word against its
//! prime, and errors (never panics) on anything else: [`BfvError::Malformed`] for bytes that
//! are not an encoding of the expected kind (bad magic, version or kind, truncated, trailing
//! bytes, counts the input cannot hold: refused before allocating),
//! [`BfvError::ParameterMismatch`] for an encoding made under other parameters (degree,
//! primes, `t`, special primes or transform), [`BfvError::Poly`] for a word not below its
//! prime, [`BfvError::PlaintextOutOfRange`] for a plaintext coefficient not below `t`.

use std::sync::Arc;

use poly::Seed;

use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::encoding::Plaintext;
use crate::galois::GaloisKeys;
use crate::params::BfvParameters;
use rlwe::framing::{Frame, Kind, Reader, Scheme, append_key_set, append_words};

use crate::{BfvError, Result};

/// The ciphertext kinds; the key kinds (3 to 6) are the core's (`rlwe::key_bytes`).
const fn kind(code: u8, leveled: bool, bytes: &'static str, encoded: &'static str, noun: &'static str) -> Kind {
    Kind { code, key: false, leveled, bytes, encoded, noun }
}

/// A full ciphertext, at any level.
const CIPHERTEXT: Kind = kind(1, true, "ciphertext bytes", "encoded ciphertext", "full ciphertext");
/// A seeded ciphertext, at the top level (its seed regenerates `c_1` over every prime).
const SEEDED: Kind = kind(2, false, "ciphertext bytes", "encoded ciphertext", "seeded ciphertext");
/// A plaintext (its `N` coefficients modulo `t`).
const PLAINTEXT: Kind = kind(7, false, "plaintext bytes", "encoded plaintext", "plaintext");

/// The framing of the objects of `params` (the core's, with the BFV tag and `t`).
fn frame_of(params: &BfvParameters) -> Frame<'_> {
    Frame { scheme: Scheme::Bfv, params: params.core(), plaintext_modulus: params.plaintext_modulus() }
}

/// The bytes of `plaintext` (kind 7; see the module doc).
pub(crate) fn plaintext_to_bytes(plaintext: &Plaintext) -> Result<Vec<u8>> {
    let params = plaintext.params();
    let frame = frame_of(params);
    let coefficients = plaintext.coefficients();
    let mut out = frame.header(PLAINTEXT, params.core().max_level(), 1, 8 * coefficients.len())?;
    append_words(&mut out, coefficients);
    append_key_set(&mut out, None);
    Ok(out)
}

/// The plaintext of `params` encoded in `bytes` (kind 7).
pub(crate) fn plaintext_from_bytes(params: &Arc<BfvParameters>, bytes: &[u8]) -> Result<Plaintext> {
    let mut reader = Reader::new(bytes, PLAINTEXT);
    let (count, _) = frame_of(params).read_header(&mut reader, PLAINTEXT)?;
    if count != 1 {
        return Err(reader.malformed(format!("a plaintext has 1 polynomial, not {count}")));
    }
    let mut words = Vec::new();
    reader.words_into(params.degree(), &mut words)?;
    let plaintext = Plaintext::from_coefficients(params, &words)?;
    if reader.finish_with_key_set()?.is_some() {
        return Err(BfvError::Malformed { what: PLAINTEXT.bytes, reason: "a plaintext has no key set".to_string() });
    }
    Ok(plaintext)
}

impl<B: BfvBackend> BfvContext<B> {
    /// The framing of this context's objects (the core's, with the BFV tag and `t`).
    fn frame(&self) -> Frame<'_> {
        frame_of(&self.params)
    }

    /// The header of `kind` at the top level with count `count`, room for `body` more bytes.
    fn header(&self, kind: Kind, count: usize, body: usize) -> Result<Vec<u8>> {
        self.frame().header(kind, self.top_level(), count, body)
    }

    /// Reads the header, checks it against this context and `kind`; returns the count (and,
    /// through [`read_leveled_header`](Self::read_leveled_header), the level).
    fn read_header(&self, reader: &mut Reader<'_>, kind: Kind) -> Result<usize> {
        Ok(self.frame().read_header(reader, kind)?.0)
    }

    fn read_leveled_header(&self, reader: &mut Reader<'_>, kind: Kind) -> Result<(usize, usize)> {
        self.frame().read_header(reader, kind)
    }

    /// The bytes of a polynomial at `level`.
    fn poly_bytes_at(&self, level: usize) -> usize {
        self.params.degree().saturating_mul(level + 1).saturating_mul(8)
    }

    /// The bytes of `ciphertext` at its level (see the module doc for the layout).
    pub fn ciphertext_to_bytes(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<u8>> {
        self.check(&ciphertext.params, "ciphertext")?;
        let body = ciphertext.polys.len().saturating_mul(self.poly_bytes_at(ciphertext.level));
        let mut out = self.frame().header(CIPHERTEXT, ciphertext.level, ciphertext.polys.len(), body)?;
        for poly in &ciphertext.polys {
            self.core.append_poly(&mut out, poly)?;
        }
        append_key_set(&mut out, ciphertext.key_set);
        Ok(out)
    }

    /// The ciphertext encoded in `bytes`, at the level its header names. Errors with
    /// [`BfvError::Malformed`] for bytes that are not such an encoding (or have trailing
    /// data), [`BfvError::ParameterMismatch`] for one made under other parameters (primes that
    /// are not a prefix of this context's), [`BfvError::Poly`] for a word not below its prime.
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext<B>> {
        let mut reader = Reader::new(bytes, CIPHERTEXT);
        let (count, level) = self.read_leveled_header(&mut reader, CIPHERTEXT)?;
        if count < 2 {
            return Err(BfvError::InvalidCiphertextSize {
                operation: "decoding",
                expected: "at least 2",
                actual: count,
            });
        }
        // Every polynomial needs its bytes: refuse counts the input cannot hold before allocating.
        if count > bytes.len() / self.poly_bytes_at(level).max(1) {
            return Err(reader.malformed(format!("{count} polynomials do not fit in {} bytes", bytes.len())));
        }
        let ring = self.params.core().ring_at_level(level)?;
        let device = self.core.context_at_level(level)?;
        let polys =
            (0..count).map(|_| self.core.read_poly(&mut reader, &ring, device)).collect::<rlwe::Result<Vec<_>>>()?;
        let key_set = reader.finish_with_key_set()?;
        Ok(Ciphertext { params: Arc::clone(&self.params), polys, level, key_set })
    }

    /// The bytes of a seeded ciphertext: `c_0` and the public seed, about half a ciphertext.
    pub fn seeded_to_bytes(&self, seeded: &SeededCiphertext<B>) -> Result<Vec<u8>> {
        self.check(&seeded.params, "seeded ciphertext")?;
        let mut out = self.header(SEEDED, 1, 32 + self.poly_bytes_at(self.top_level()))?;
        out.extend_from_slice(seeded.public_seed.as_bytes());
        self.core.append_poly(&mut out, &seeded.c0)?;
        append_key_set(&mut out, seeded.key_set);
        Ok(out)
    }

    /// The seeded ciphertext encoded in `bytes` (errors as
    /// [`ciphertext_from_bytes`](Self::ciphertext_from_bytes)).
    pub fn seeded_from_bytes(&self, bytes: &[u8]) -> Result<SeededCiphertext<B>> {
        let mut reader = Reader::new(bytes, SEEDED);
        let count = self.read_header(&mut reader, SEEDED)?;
        if count != 1 {
            return Err(reader.malformed(format!("a seeded ciphertext has 1 polynomial, not {count}")));
        }
        let mut seed = [0u8; 32];
        seed.copy_from_slice(reader.take(32)?);
        let public_seed = Seed::from(seed);
        let c0 = self.core.read_poly(&mut reader, self.params.ring_q(), self.core.ring_q())?;
        let key_set = reader.finish_with_key_set()?;
        Ok(SeededCiphertext { params: Arc::clone(&self.params), c0, public_seed, key_set })
    }

    /// The bytes of `plaintext` (kind 7: its `N` coefficients; see the module doc). Errors with
    /// [`BfvError::ParameterMismatch`] for a plaintext of other parameters.
    pub fn plaintext_to_bytes(&self, plaintext: &Plaintext) -> Result<Vec<u8>> {
        plaintext.check_params(&self.params)?;
        plaintext_to_bytes(plaintext)
    }

    /// The plaintext encoded in `bytes`. Errors as
    /// [`ciphertext_from_bytes`](Self::ciphertext_from_bytes), with
    /// [`BfvError::PlaintextOutOfRange`] for a coefficient not below `t`.
    pub fn plaintext_from_bytes(&self, bytes: &[u8]) -> Result<Plaintext> {
        plaintext_from_bytes(&self.params, bytes)
    }

    /// The bytes of `key` (kind 3: `b`, `a` over `q`, evaluation representation; see the
    /// module doc). Errors with [`BfvError::ParameterMismatch`] for a key of other parameters.
    pub fn public_key_to_bytes(&self, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.core.public_key_to_bytes(self.frame(), key)
    }

    /// The public key encoded in `bytes`. Errors with [`BfvError::Malformed`] for bytes that
    /// are not a public key's encoding (or have trailing data), [`BfvError::ParameterMismatch`]
    /// for one made under other parameters (including another transform),
    /// [`BfvError::Poly`] for a word not below its prime.
    pub fn public_key_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey<B>> {
        self.core.public_key_from_bytes(self.frame(), bytes)
    }

    /// The bytes of `key` (kind 4: its digit pairs `(b_j, a_j)` over `qP`, evaluation
    /// representation; see the module doc). Errors with [`BfvError::ParameterMismatch`] for a
    /// key of other parameters.
    pub fn relin_key_to_bytes(&self, key: &RelinKey<B>) -> Result<Vec<u8>> {
        self.core.relin_key_to_bytes(self.frame(), key)
    }

    /// The relinearization key encoded in `bytes`: as many digits as the parameters have.
    /// Errors as [`public_key_from_bytes`](Self::public_key_from_bytes); another digit count is
    /// [`BfvError::Malformed`].
    pub fn relin_key_from_bytes(&self, bytes: &[u8]) -> Result<RelinKey<B>> {
        self.core.relin_key_from_bytes(self.frame(), bytes)
    }

    /// The bytes of `keys` (kind 5: the number of elements, then for each element in
    /// increasing order the element and its digit pairs over `qP`, evaluation representation;
    /// see the module doc). Errors with [`BfvError::ParameterMismatch`] for keys of other
    /// parameters.
    pub fn galois_keys_to_bytes(&self, keys: &GaloisKeys<B>) -> Result<Vec<u8>> {
        self.core.galois_keys_to_bytes(self.frame(), keys)
    }

    /// The Galois keys encoded in `bytes`. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes), with
    /// [`BfvError::InvalidGaloisElement`] for an element that is even or not below `2N`, and
    /// with [`BfvError::Malformed`] for an element that repeats or comes after a larger one.
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<GaloisKeys<B>> {
        self.core.galois_keys_from_bytes(self.frame(), bytes)
    }

    /// **The secret itself**: the bytes of `key` (kind 6: `s` over `q` and over `qP`,
    /// evaluation representation; see the module doc). Whoever holds these bytes decrypts
    /// every ciphertext under the key and can forge every evaluation key: never send them to
    /// the evaluating party, keep them only where the key itself may be kept, and overwrite
    /// them when done (for example by wrapping them in `zeroize::Zeroizing`). The host copies
    /// made on the way are overwritten with zeros; the returned vector is allocated once at its
    /// final size, so no stale copy of it is left behind. Errors with
    /// [`BfvError::ParameterMismatch`] for a key of other parameters.
    pub fn secret_key_to_bytes(&self, key: &SecretKey<B>) -> Result<Vec<u8>> {
        self.core.secret_key_to_bytes(self.frame(), key)
    }

    /// The secret key encoded in `bytes` (see [`secret_key_to_bytes`](Self::secret_key_to_bytes):
    /// these bytes are the secret). The key lives on this context's backend. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes); the host copies made on the way
    /// are overwritten with zeros, and so is a partly decoded key on an error. The two
    /// polynomials are taken as they are: bytes whose `s` over `q` and over `qP` differ, or
    /// that are not ternary, decode to a key that decrypts nothing correctly.
    pub fn secret_key_from_bytes(&self, bytes: &[u8]) -> Result<SecretKey<B>> {
        self.core.secret_key_from_bytes(self.frame(), bytes)
    }
}
