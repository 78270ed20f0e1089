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
//! little-endian; every polynomial limb-major, each word below its prime; `P(M)` below is a
//! polynomial over the primes `M`, packed limb by limb to the primes' bit widths: limb `i`
//! takes `ceil(N bits(q_i - 1) / 8)` bytes, words in little-endian bit order):
//!
//! ```text
//! 8 bytes  "HEGPUBFV"
//! 1 byte   format version (3; versions 1 and 2, with 8-byte words, are still read)
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
//! kind 1:  k P(q)         c_0, c_1, ... over q, coefficient representation
//! kind 2:  32 bytes       the public seed
//!          P(q)           c_0 over q, coefficient representation
//! kind 3:  1 byte         form: 0 = whole, 1 = seeded
//!          form 0: 2 P(q)  b, a over q, evaluation representation
//!          form 1: 32 bytes the uniform seed of a (index 0), then P(q): b
//! kind 4:  a key-switching key of d digits over qP, evaluation representation:
//!          1 byte         form: 0 = whole, 1 = seeded
//!          form 0: 2 d P(qP)  b_0, a_0, b_1, a_1, ...
//!          form 1: 32 bytes the uniform seed, 8 bytes its first index (0), d P(qP): b_0, b_1, ...
//!                         (a_j is the uniform sample of index first + j of the seed)
//! kind 5:  e times, by increasing element:
//!          8 bytes        the Galois element g (odd, below 2N)
//!          its key-switching key as in kind 4 (a seeded key's first index: g 2^32)
//! kind 6:  P(q)           s over q, evaluation representation
//!          P(qP)          s over qP, evaluation representation
//! kind 7:  P(t)           the plaintext's coefficients, each below t (packed to bits(t - 1))
//! -- every kind, last (from version 2):
//! 8 bytes  the key set's identifier (`rlwe::KeySetId`; 0 for none; always 0 for kind 7)
//! ```
//!
//! Versions 1 and 2 hold every polynomial word in 8 bytes and keys whole, without the form
//! byte. A key is seeded when it was made with separate uniform and error seeds (what the
//! `generate_*` methods do); one made from a single seed is written whole, since that seed
//! would reveal its errors.
//! Kind 7 (plaintexts) is new in version 2; the form bytes and packed words in version 3. The
//! ciphertext and plaintext kinds (1, 2, 7) have no special primes nor transform in their header.
//! Decoding checks every field against the context's parameters and every word against its
//! prime, and errors (never panics) on anything else: [`BfvError::Malformed`] for bytes that
//! are not an encoding of the expected kind (bad magic, version or kind, truncated, trailing
//! bytes, counts the input cannot hold: refused before allocating),
//! [`BfvError::ParameterMismatch`] for an encoding made under other parameters (degree,
//! primes, `t`, special primes or transform), [`BfvError::Poly`] for a word not below its
//! prime, [`BfvError::PlaintextOutOfRange`] for a plaintext coefficient not below `t`.

use poly::Coeff;
use rlwe::SchemeParameters;
use rlwe::codec::{self, CiphertextCodec, CiphertextParts, CoefficientPolys};

#[cfg(doc)]
use crate::BfvError;
use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, PublicKey, RelinKey, SecretKey, SeededCiphertext};
use crate::galois::GaloisKeys;
use crate::{Plaintext, Result};

/// A BFV ciphertext adds nothing to the core's frame: its polynomials are kept in the
/// coefficient representation, as the frame holds them.
impl<B: BfvBackend> CiphertextCodec for BfvContext<B> {
    type Ciphertext = Ciphertext<B>;

    const SCHEME_WORDS: usize = 0;

    fn ciphertext_parts<'a>(&self, ciphertext: &'a Ciphertext<B>) -> Result<CiphertextParts<CoefficientPolys<'a, B>>> {
        self.check(ciphertext.params(), "ciphertext")?;
        Ok(CiphertextParts {
            polys: CoefficientPolys::Borrowed(ciphertext.polys()),
            level: ciphertext.level(),
            scheme_words: Vec::new(),
            key_set: ciphertext.key_set(),
        })
    }

    fn refuse_scheme_words(&self, _: &[u64], _: u8) -> Option<String> {
        None
    }

    fn ciphertext_of_parts(&self, parts: CiphertextParts<Vec<B::Poly<Coeff>>>) -> Result<Ciphertext<B>> {
        let CiphertextParts { polys, level, key_set, .. } = parts;
        Ok(self.ciphertext_from_polys(polys, level)?.with_key_set(key_set))
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// The bytes of `value`: a ciphertext, seeded ciphertext, plaintext, public,
    /// relinearization, Galois or secret key of this context (the format of the module docs).
    /// The one way to write an object as bytes (the per-type `*_to_bytes` methods are this,
    /// and serde writes these bytes too). Errors with [`BfvError::ParameterMismatch`] for an object
    /// of other parameters.
    pub fn to_bytes<T>(&self, value: &T) -> Result<Vec<u8>>
    where
        Self: rlwe::codec::Codec<T, Error = crate::BfvError>,
    {
        rlwe::codec::Codec::encode(self, value)
    }

    /// The object of type `T` encoded in `bytes`, validated against this context (parameters,
    /// sizes, level, key set, every word below its prime): the one way to read an object
    /// from bytes, e.g. `context.load_bytes::<Ciphertext<_>>(&bytes)?`. Errors as the module
    /// docs say; never panics, whatever the bytes.
    pub fn load_bytes<T>(&self, bytes: &[u8]) -> Result<T>
    where
        Self: rlwe::codec::Codec<T, Error = crate::BfvError>,
    {
        rlwe::codec::Codec::decode(self, bytes)
    }

    /// The bytes of `ciphertext` at its level (see the module doc for the layout).
    pub fn ciphertext_to_bytes(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<u8>> {
        codec::ciphertext_to_bytes(self, ciphertext)
    }

    /// The ciphertext encoded in `bytes`, at the level its header names. Errors with
    /// [`BfvError::Malformed`] for bytes that are not such an encoding (or have trailing
    /// data), [`BfvError::ParameterMismatch`] for one made under other parameters (primes that
    /// are not a prefix of this context's), [`BfvError::Poly`] for a word not below its prime.
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext<B>> {
        codec::ciphertext_from_bytes(self, bytes)
    }

    /// The bytes of a seeded ciphertext: `c_0` and the public seed, about half a ciphertext.
    pub fn seeded_to_bytes(&self, seeded: &SeededCiphertext<B>) -> Result<Vec<u8>> {
        codec::seeded_to_bytes(self, seeded)
    }

    /// The seeded ciphertext encoded in `bytes` (errors as
    /// [`ciphertext_from_bytes`](Self::ciphertext_from_bytes)).
    pub fn seeded_from_bytes(&self, bytes: &[u8]) -> Result<SeededCiphertext<B>> {
        codec::seeded_from_bytes(self, bytes)
    }

    /// The bytes of `plaintext` (kind 7: its `N` coefficients; see the module doc). Errors with
    /// [`BfvError::ParameterMismatch`] for a plaintext of other parameters.
    pub fn plaintext_to_bytes(&self, plaintext: &Plaintext) -> Result<Vec<u8>> {
        codec::plaintext_to_bytes(self, plaintext)
    }

    /// The plaintext encoded in `bytes`. Errors as
    /// [`ciphertext_from_bytes`](Self::ciphertext_from_bytes), with
    /// [`BfvError::PlaintextOutOfRange`] for a coefficient not below `t`.
    pub fn plaintext_from_bytes(&self, bytes: &[u8]) -> Result<Plaintext> {
        Plaintext::from_bytes(&self.params, bytes)
    }

    /// The bytes of `key` (kind 3: `b`, `a` over `q`, evaluation representation; see the
    /// module doc). Errors with [`BfvError::ParameterMismatch`] for a key of other parameters.
    pub fn public_key_to_bytes(&self, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.core.public_key_to_bytes(self.params.frame(), key)
    }

    /// The public key encoded in `bytes`. Errors with [`BfvError::Malformed`] for bytes that
    /// are not a public key's encoding (or have trailing data), [`BfvError::ParameterMismatch`]
    /// for one made under other parameters (including another transform),
    /// [`BfvError::Poly`] for a word not below its prime.
    pub fn public_key_from_bytes(&self, bytes: &[u8]) -> Result<PublicKey<B>> {
        self.core.public_key_from_bytes(self.params.frame(), bytes)
    }

    /// The bytes of `key` (kind 4: its digit pairs `(b_j, a_j)` over `qP`, evaluation
    /// representation; see the module doc). Errors with [`BfvError::ParameterMismatch`] for a
    /// key of other parameters.
    pub fn relin_key_to_bytes(&self, key: &RelinKey<B>) -> Result<Vec<u8>> {
        self.core.relin_key_to_bytes(self.params.frame(), key)
    }

    /// The relinearization key encoded in `bytes`: as many digits as the parameters have.
    /// Errors as [`public_key_from_bytes`](Self::public_key_from_bytes); another digit count is
    /// [`BfvError::Malformed`].
    pub fn relin_key_from_bytes(&self, bytes: &[u8]) -> Result<RelinKey<B>> {
        self.core.relin_key_from_bytes(self.params.frame(), bytes)
    }

    /// The bytes of `keys` (kind 5: the number of elements, then for each element in
    /// increasing order the element and its digit pairs over `qP`, evaluation representation;
    /// see the module doc). Errors with [`BfvError::ParameterMismatch`] for keys of other
    /// parameters.
    pub fn galois_keys_to_bytes(&self, keys: &GaloisKeys<B>) -> Result<Vec<u8>> {
        self.core.galois_keys_to_bytes(self.params.frame(), keys)
    }

    /// The Galois keys encoded in `bytes`. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes), with
    /// [`BfvError::InvalidGaloisElement`] for an element that is even or not below `2N`, and
    /// with [`BfvError::Malformed`] for an element that repeats or comes after a larger one.
    pub fn galois_keys_from_bytes(&self, bytes: &[u8]) -> Result<GaloisKeys<B>> {
        self.core.galois_keys_from_bytes(self.params.frame(), bytes)
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
        self.core.secret_key_to_bytes(self.params.frame(), key)
    }

    /// The secret key encoded in `bytes` (see [`secret_key_to_bytes`](Self::secret_key_to_bytes):
    /// these bytes are the secret). The key lives on this context's backend. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes); the host copies made on the way
    /// are overwritten with zeros, and so is a partly decoded key on an error. The two
    /// polynomials are taken as they are: bytes whose `s` over `q` and over `qP` differ, or
    /// that are not ternary, decode to a key that decrypts nothing correctly.
    pub fn secret_key_from_bytes(&self, bytes: &[u8]) -> Result<SecretKey<B>> {
        self.core.secret_key_from_bytes(self.params.frame(), bytes)
    }
}
