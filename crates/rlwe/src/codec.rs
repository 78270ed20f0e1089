//! The one codec of the schemes' objects (the framing of [`crate::framing`] under the scheme's
//! tag): plaintexts (kind 7), full ciphertexts (kind 1, with what the scheme adds:
//! [`CiphertextCodec`]) and seeded ciphertexts (kind 2), beside the keys (kinds 3 to 6,
//! key_bytes.rs). Every field and word is checked against the context; errors are typed,
//! never panics. The layout is in the schemes' encoding docs (e.g. BFV's `serialize` module).

use std::sync::Arc;

use poly::{Backend, Coeff, Seed};

use crate::framing::{Kind, Reader, Scheme, append_key_set, append_poly_words, append_words, packed_poly_bytes};
use crate::key_bytes::{GALOIS_KEYS, PUBLIC_KEY, RELIN_KEY, SECRET_KEY};
use crate::scheme::{SchemeContext, SchemeParameters};
use crate::{
    GaloisKeys, KeySetId, Plaintext, PublicKey, RelinearizationKey, Result, RlweError, SecretKey, SeededCiphertext,
};

const fn kind(code: u8, leveled: bool, bytes: &'static str, encoded: &'static str, noun: &'static str) -> Kind {
    Kind { code, key: false, leveled, bytes, encoded, noun }
}

/// A full ciphertext, at any level.
pub const CIPHERTEXT: Kind = kind(1, true, "ciphertext bytes", "encoded ciphertext", "full ciphertext");
/// A seeded ciphertext, at the top level (its seed regenerates `c_1` over every prime).
pub const SEEDED: Kind = kind(2, false, "ciphertext bytes", "encoded ciphertext", "seeded ciphertext");
/// A plaintext (its `N` coefficients modulo `t`).
pub const PLAINTEXT: Kind = kind(7, false, "plaintext bytes", "encoded plaintext", "plaintext");

/// What messages call an object of `kind` under `scheme` ("a BFV ciphertext", "BGV Galois
/// keys", ...): the subject of serde's errors.
pub const fn object_name(scheme: Scheme, kind: Kind) -> &'static str {
    match (scheme, kind.code) {
        (Scheme::Bfv, 1) => "a BFV ciphertext",
        (Scheme::Bfv, 2) => "a BFV seeded ciphertext",
        (Scheme::Bfv, 3) => "a BFV public key",
        (Scheme::Bfv, 4) => "a BFV relinearization key",
        (Scheme::Bfv, 5) => "BFV Galois keys",
        (Scheme::Bfv, 6) => "a BFV secret key",
        (Scheme::Bfv, 7) => "a BFV plaintext",
        (Scheme::Bgv, 1) => "a BGV ciphertext",
        (Scheme::Bgv, 2) => "a BGV seeded ciphertext",
        (Scheme::Bgv, 3) => "a BGV public key",
        (Scheme::Bgv, 4) => "a BGV relinearization key",
        (Scheme::Bgv, 5) => "BGV Galois keys",
        (Scheme::Bgv, 6) => "a BGV secret key",
        (Scheme::Bgv, 7) => "a BGV plaintext",
        _ => "an encoded object",
    }
}

// The key kinds' codes are the ones `object_name` knows.
const _: () = assert!(PUBLIC_KEY.code == 3 && RELIN_KEY.code == 4 && GALOIS_KEYS.code == 5 && SECRET_KEY.code == 6);

impl<P: SchemeParameters> Plaintext<P> {
    /// The bytes of this plaintext (kind 7: its `N` coefficients; the key set is always 0).
    pub fn to_bytes(&self) -> Result<Vec<u8>> {
        let params = self.params();
        let coefficients = self.coefficients();
        let t = [params.plaintext_modulus()];
        let mut out = params.frame().header(
            PLAINTEXT,
            params.core().max_level(),
            1,
            packed_poly_bytes(&t, coefficients.len()),
        )?;
        append_poly_words(&mut out, coefficients, &t);
        append_key_set(&mut out, None);
        Ok(out)
    }

    /// The plaintext of `params` encoded in `bytes` (kind 7). Errors with
    /// [`RlweError::Malformed`] for bytes that are not such an encoding,
    /// [`RlweError::ParameterMismatch`] for one made under other parameters and
    /// [`RlweError::PlaintextOutOfRange`] for a coefficient not below `t`.
    pub fn from_bytes(params: &Arc<P>, bytes: &[u8]) -> Result<Self> {
        let mut reader = Reader::new(bytes, PLAINTEXT);
        let (count, _) = params.frame().read_header(&mut reader, PLAINTEXT)?;
        if count != 1 {
            return Err(reader.malformed(format!("a plaintext has 1 polynomial, not {count}")));
        }
        let mut words = Vec::new();
        reader.poly_words_into(&[params.plaintext_modulus()], params.degree(), &mut words)?;
        let plaintext = Plaintext::from_coefficients(params, &words)?;
        if reader.finish_with_key_set()?.is_some() {
            return Err(RlweError::Malformed {
                what: PLAINTEXT.bytes,
                reason: "a plaintext has no key set".to_string(),
            });
        }
        Ok(plaintext)
    }
}

/// The polynomials of a ciphertext in the coefficient representation, as the frame holds
/// them: the ciphertext's own (BFV) or transformed copies (BGV).
pub enum CoefficientPolys<'a, B: Backend> {
    /// The ciphertext's polynomials.
    Borrowed(&'a [B::Poly<Coeff>]),
    /// Copies.
    Owned(Vec<B::Poly<Coeff>>),
}

impl<B: Backend> core::fmt::Debug for CoefficientPolys<'_, B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("CoefficientPolys").field("count", &self.as_slice().len()).finish_non_exhaustive()
    }
}

impl<B: Backend> CoefficientPolys<'_, B> {
    /// The polynomials.
    pub fn as_slice(&self) -> &[B::Poly<Coeff>] {
        match self {
            CoefficientPolys::Borrowed(polys) => polys,
            CoefficientPolys::Owned(polys) => polys,
        }
    }
}

/// A full ciphertext as its encoding (kind 1) holds it: the polynomials (coefficient
/// representation over the level's primes; `Polys` is [`CoefficientPolys`] when encoding and
/// a vector when decoding), the level, the scheme's words written between the header and the
/// polynomials (BGV: the correction factor; BFV: none) and the key set.
#[derive(Debug)]
pub struct CiphertextParts<Polys> {
    /// `c_0, c_1, ...`, coefficient representation.
    pub polys: Polys,
    /// The level: the polynomials are over the first `level + 1` ciphertext primes.
    pub level: usize,
    /// The scheme's words ([`CiphertextCodec::SCHEME_WORDS`] of them).
    pub scheme_words: Vec<u64>,
    /// The key set ([`KeySetId`]; `None`: unknown).
    pub key_set: Option<KeySetId>,
}

/// A scheme's full ciphertext type: the `Ciphertext` of its context's [`CiphertextCodec`]
/// (the mark lets the core's serde codec cover it beside the keys and plaintexts).
pub trait SchemeCiphertext {}

/// What a scheme's full ciphertext adds to the core's frame: the scheme's words before the
/// polynomials, and the representation its polynomials are kept in (the frame holds
/// coefficients). Implemented by the scheme's context; [`ciphertext_to_bytes`] and
/// [`ciphertext_from_bytes`] do the rest.
pub trait CiphertextCodec: SchemeContext {
    /// The scheme's full ciphertext.
    type Ciphertext: SchemeCiphertext;

    /// How many words the scheme writes between the header and the polynomials.
    const SCHEME_WORDS: usize;

    /// `ciphertext` as its encoding holds it. Errors with [`RlweError::ParameterMismatch`] for
    /// a ciphertext of other parameters.
    fn ciphertext_parts<'a>(
        &self,
        ciphertext: &'a Self::Ciphertext,
    ) -> Result<CiphertextParts<CoefficientPolys<'a, Self::Backend>>>;

    /// Why the scheme's words read from an encoding of format `version` belong to no
    /// ciphertext (`None`: they may).
    fn refuse_scheme_words(&self, words: &[u64], version: u8) -> Option<String>;

    /// The ciphertext of decoded parts (already checked: the level's rings, the scheme's words).
    fn ciphertext_of_parts(
        &self,
        parts: CiphertextParts<Vec<<Self::Backend as Backend>::Poly<Coeff>>>,
    ) -> Result<Self::Ciphertext>;
}

/// The bytes of a polynomial over the first `level + 1` ciphertext primes, as written (packed):
/// a lower bound of its bytes in every version.
fn poly_bytes_at<C: SchemeContext>(context: &C, level: usize) -> usize {
    let moduli = context.params().core().ciphertext_moduli();
    packed_poly_bytes(&moduli[..(level + 1).min(moduli.len())], context.params().degree())
}

/// The bytes of `ciphertext` at its level (kind 1: the scheme's words, then its polynomials in
/// the coefficient representation). Errors with [`RlweError::ParameterMismatch`] for a
/// ciphertext of other parameters.
pub fn ciphertext_to_bytes<C: CiphertextCodec>(context: &C, ciphertext: &C::Ciphertext) -> Result<Vec<u8>> {
    let parts = context.ciphertext_parts(ciphertext)?;
    let polys = parts.polys.as_slice();
    let body =
        (8 * parts.scheme_words.len()).saturating_add(polys.len().saturating_mul(poly_bytes_at(context, parts.level)));
    let mut out = context.params().frame().header(CIPHERTEXT, parts.level, polys.len(), body)?;
    append_words(&mut out, &parts.scheme_words);
    for poly in polys {
        context.core().append_poly(&mut out, poly)?;
    }
    append_key_set(&mut out, parts.key_set);
    Ok(out)
}

/// The ciphertext encoded in `bytes`, at the level its header names. Errors with
/// [`RlweError::Malformed`] for bytes that are not such an encoding (or have trailing data, or
/// scheme words the scheme refuses), [`RlweError::InvalidCiphertextSize`] for fewer than two
/// polynomials, [`RlweError::ParameterMismatch`] for one made under other parameters (primes
/// that are not a prefix of the context's), [`RlweError::Poly`] for a word not below its prime.
pub fn ciphertext_from_bytes<C: CiphertextCodec>(context: &C, bytes: &[u8]) -> Result<C::Ciphertext> {
    let mut reader = Reader::new(bytes, CIPHERTEXT);
    let (count, level) = context.params().frame().read_header(&mut reader, CIPHERTEXT)?;
    if count < 2 {
        return Err(RlweError::InvalidCiphertextSize { operation: "decoding", expected: "at least 2", actual: count });
    }
    // Every polynomial needs its bytes: refuse counts the input cannot hold before allocating.
    if count > bytes.len() / poly_bytes_at(context, level).max(1) {
        return Err(reader.malformed(format!("{count} polynomials do not fit in {} bytes", bytes.len())));
    }
    let mut scheme_words = Vec::new();
    reader.words_into(C::SCHEME_WORDS, &mut scheme_words)?;
    if let Some(reason) = context.refuse_scheme_words(&scheme_words, reader.version()) {
        return Err(reader.malformed(reason));
    }
    let core = context.core();
    let ring = context.params().core().ring_at_level(level)?;
    let device = core.context_at_level(level)?;
    let polys = (0..count).map(|_| core.read_poly::<Coeff>(&mut reader, &ring, device)).collect::<Result<Vec<_>>>()?;
    let key_set = reader.finish_with_key_set()?;
    context.ciphertext_of_parts(CiphertextParts { polys, level, scheme_words, key_set })
}

/// The bytes of a seeded ciphertext (kind 2: the public seed and `c_0`, about half a
/// ciphertext). Errors with [`RlweError::ParameterMismatch`] for one of other parameters.
pub fn seeded_to_bytes<C: SchemeContext>(
    context: &C,
    seeded: &SeededCiphertext<C::Params, C::Backend>,
) -> Result<Vec<u8>> {
    context.check_params(seeded.params(), "seeded ciphertext")?;
    let top = context.params().core().max_level();
    let mut out = context.params().frame().header(SEEDED, top, 1, 32 + poly_bytes_at(context, top))?;
    out.extend_from_slice(seeded.public_seed().as_bytes());
    context.core().append_poly(&mut out, seeded.c0())?;
    append_key_set(&mut out, seeded.key_set());
    Ok(out)
}

/// The seeded ciphertext encoded in `bytes` (errors as [`ciphertext_from_bytes`]).
pub fn seeded_from_bytes<C: SchemeContext>(
    context: &C,
    bytes: &[u8],
) -> Result<SeededCiphertext<C::Params, C::Backend>> {
    let mut reader = Reader::new(bytes, SEEDED);
    let (count, _) = context.params().frame().read_header(&mut reader, SEEDED)?;
    if count != 1 {
        return Err(reader.malformed(format!("a seeded ciphertext has 1 polynomial, not {count}")));
    }
    let mut seed = [0u8; 32];
    seed.copy_from_slice(reader.take(32)?);
    let core = context.core();
    let c0 = core.read_poly(&mut reader, core.params().ring_q(), core.ring_q())?;
    let key_set = reader.finish_with_key_set()?;
    Ok(SeededCiphertext::new(context.params(), c0, Seed::from(seed), key_set))
}

/// The bytes of `plaintext` (kind 7). Errors with [`RlweError::ParameterMismatch`] for a
/// plaintext of other parameters than `context`'s.
pub fn plaintext_to_bytes<C: SchemeContext>(context: &C, plaintext: &Plaintext<C::Params>) -> Result<Vec<u8>> {
    plaintext.check_params(context.params())?;
    plaintext.to_bytes()
}

/// What encodes and decodes objects of type `T` as bytes: a scheme's context, for each of its
/// objects (the implementations below: ciphertexts, seeded ciphertexts, plaintexts and keys,
/// over this module and [`crate::key_bytes`]). The schemes' `to_bytes` and `load_bytes` and
/// the serde wrappers go through it, so every path shares one validation.
pub trait Codec<T> {
    /// The decoder's error.
    type Error: core::fmt::Display;
    /// What the bytes hold, for messages ("ciphertext", "public key", ...).
    const WHAT: &'static str;
    /// The byte encoding of `value`.
    fn encode(&self, value: &T) -> core::result::Result<Vec<u8>, Self::Error>;
    /// The object encoded in `bytes`, checked against this context.
    fn decode(&self, bytes: &[u8]) -> core::result::Result<T, Self::Error>;
}

// The codecs of every scheme's objects, through its context: full ciphertexts (with what the
// scheme adds, `CiphertextCodec`), seeded ciphertexts, plaintexts and keys.

impl<C: CiphertextCodec<Ciphertext = T>, T: SchemeCiphertext> Codec<T> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, CIPHERTEXT);

    fn encode(&self, ciphertext: &T) -> Result<Vec<u8>> {
        ciphertext_to_bytes(self, ciphertext)
    }

    fn decode(&self, bytes: &[u8]) -> Result<T> {
        ciphertext_from_bytes(self, bytes)
    }
}

impl<C: SchemeContext> Codec<Plaintext<C::Params>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, PLAINTEXT);

    fn encode(&self, plaintext: &Plaintext<C::Params>) -> Result<Vec<u8>> {
        plaintext_to_bytes(self, plaintext)
    }

    fn decode(&self, bytes: &[u8]) -> Result<Plaintext<C::Params>> {
        Plaintext::from_bytes(self.params(), bytes)
    }
}

impl<C: SchemeContext> Codec<SeededCiphertext<C::Params, C::Backend>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, SEEDED);

    fn encode(&self, seeded: &SeededCiphertext<C::Params, C::Backend>) -> Result<Vec<u8>> {
        seeded_to_bytes(self, seeded)
    }

    fn decode(&self, bytes: &[u8]) -> Result<SeededCiphertext<C::Params, C::Backend>> {
        seeded_from_bytes(self, bytes)
    }
}

impl<C: SchemeContext> Codec<PublicKey<C::Backend>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, PUBLIC_KEY);

    fn encode(&self, key: &PublicKey<C::Backend>) -> Result<Vec<u8>> {
        self.core().public_key_to_bytes(self.params().frame(), key)
    }

    fn decode(&self, bytes: &[u8]) -> Result<PublicKey<C::Backend>> {
        self.core().public_key_from_bytes(self.params().frame(), bytes)
    }
}

impl<C: SchemeContext> Codec<RelinearizationKey<C::Backend>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, RELIN_KEY);

    fn encode(&self, key: &RelinearizationKey<C::Backend>) -> Result<Vec<u8>> {
        self.core().relin_key_to_bytes(self.params().frame(), key)
    }

    fn decode(&self, bytes: &[u8]) -> Result<RelinearizationKey<C::Backend>> {
        self.core().relin_key_from_bytes(self.params().frame(), bytes)
    }
}

impl<C: SchemeContext> Codec<GaloisKeys<C::Backend>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, GALOIS_KEYS);

    fn encode(&self, keys: &GaloisKeys<C::Backend>) -> Result<Vec<u8>> {
        self.core().galois_keys_to_bytes(self.params().frame(), keys)
    }

    fn decode(&self, bytes: &[u8]) -> Result<GaloisKeys<C::Backend>> {
        self.core().galois_keys_from_bytes(self.params().frame(), bytes)
    }
}

impl<C: SchemeContext> Codec<SecretKey<C::Backend>> for C {
    type Error = RlweError;
    const WHAT: &'static str = object_name(C::Params::SCHEME, SECRET_KEY);

    fn encode(&self, key: &SecretKey<C::Backend>) -> Result<Vec<u8>> {
        self.core().secret_key_to_bytes(self.params().frame(), key)
    }

    fn decode(&self, bytes: &[u8]) -> Result<SecretKey<C::Backend>> {
        self.core().secret_key_from_bytes(self.params().frame(), bytes)
    }
}
