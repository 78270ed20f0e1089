//! Byte encodings of the keys (the framing of [`crate::framing`], kinds 3 to 6 under the
//! scheme's tag; layout in the scheme's encoding docs, e.g. BFV's): public, relinearization,
//! Galois and secret keys. Every field and word is checked; errors are typed, never panics.
//!
//! **The bytes of a secret key are the secret itself.**

use std::collections::BTreeMap;
use std::sync::Arc;

use poly::{Eval, Poly, Representation, RingContext};
use zeroize::Zeroizing;

use crate::backend::{EvalPair, RlweBackend};
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::framing::{Frame, Kind, Reader, append_key_set, append_words};
use crate::galois_key::{GaloisKeys, check_galois_element};
use crate::key_switching_key::KeySwitchingKey;
use crate::keys::{PublicKey, SecretKey};
use crate::relinearization_key::RelinearizationKey;
use crate::{Result, RlweError};

/// The key kinds (codes 3 to 6 under every scheme's tag).
pub const PUBLIC_KEY: Kind = key_kind(3, "public key bytes", "encoded public key", "public key");
/// Relinearization key.
pub const RELIN_KEY: Kind =
    key_kind(4, "relinearization key bytes", "encoded relinearization key", "relinearization key");
/// Galois keys.
pub const GALOIS_KEYS: Kind = key_kind(5, "Galois key bytes", "encoded Galois keys", "set of Galois keys");
/// Secret key.
pub const SECRET_KEY: Kind = key_kind(6, "secret key bytes", "encoded secret key", "secret key");

const fn key_kind(code: u8, bytes: &'static str, encoded: &'static str, noun: &'static str) -> Kind {
    Kind { code, key: true, leveled: false, bytes, encoded, noun }
}

impl<B: RlweBackend> RlweContext<B> {
    /// Appends the words of `poly` (downloaded).
    pub fn append_poly<R: Representation>(&self, out: &mut Vec<u8>, poly: &B::Poly<R>) -> Result<()> {
        let host = self.backend.download(poly).be()?;
        append_words(out, host.as_slice());
        Ok(())
    }

    /// [`append_poly`](Self::append_poly) for a polynomial of the secret: the host copy is
    /// overwritten with zeros afterwards.
    pub fn append_secret_poly(&self, out: &mut Vec<u8>, poly: &B::Poly<Eval>) -> Result<()> {
        let words = Zeroizing::new(self.backend.download(poly).be()?.into_vec());
        append_words(out, &words);
        Ok(())
    }

    /// A polynomial over `ring` (host) / `device` (backend) in representation `R`.
    pub fn read_poly<R: Representation>(
        &self,
        reader: &mut Reader<'_>,
        ring: &Arc<RingContext>,
        device: &B::Context,
    ) -> Result<B::Poly<R>> {
        let mut words = Vec::new();
        reader.words_into(ring.poly_len(), &mut words)?;
        let host = Poly::<R>::from_limbs(ring, words)?;
        self.backend.upload(device, &host).be()
    }

    /// [`read_poly`](Self::read_poly) for a polynomial of the secret: every host copy is
    /// overwritten with zeros before this returns.
    pub fn read_secret_poly(
        &self,
        reader: &mut Reader<'_>,
        ring: &Arc<RingContext>,
        device: &B::Context,
    ) -> Result<B::Poly<Eval>> {
        let mut words = Zeroizing::new(Vec::new());
        reader.words_into(ring.poly_len(), &mut words)?;
        let host = Poly::<Eval>::from_slice(ring, &words)?;
        let uploaded = self.backend.upload(device, &host).be();
        drop(Zeroizing::new(host.into_vec()));
        uploaded
    }

    /// The bytes of a polynomial over `q` and over `qP`.
    pub(crate) fn poly_bytes_q(&self) -> usize {
        self.params.ring_q().poly_len().saturating_mul(8)
    }

    pub(crate) fn poly_bytes_qp(&self) -> usize {
        self.params.ring_qp().poly_len().saturating_mul(8)
    }

    /// The bytes of one key-switching key: `d` pairs over `qP`.
    fn key_switching_key_bytes(&self) -> usize {
        self.gadgets.len().saturating_mul(2).saturating_mul(self.poly_bytes_qp())
    }

    fn append_key_switching_key(&self, out: &mut Vec<u8>, digits: &[EvalPair<B>]) -> Result<()> {
        for (b, a) in digits {
            self.append_poly(out, b)?;
            self.append_poly(out, a)?;
        }
        Ok(())
    }

    fn read_key_switching_key(&self, reader: &mut Reader<'_>) -> Result<Vec<EvalPair<B>>> {
        let ring = self.params.ring_qp();
        let mut digits = Vec::with_capacity(self.gadgets.len());
        for _ in 0..self.gadgets.len() {
            let b = self.read_poly(reader, ring, &self.ring_qp)?;
            let a = self.read_poly(reader, ring, &self.ring_qp)?;
            digits.push((b, a));
        }
        Ok(digits)
    }

    /// The bytes of `key` (kind 3: `b`, `a` over `q`, evaluation representation; see the
    /// module doc). Errors with [`RlweError::ParameterMismatch`] for a key of other parameters.
    pub fn public_key_to_bytes(&self, frame: Frame<'_>, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.check(key.params(), "public key")?;
        let mut out = frame.header(PUBLIC_KEY, self.params.max_level(), 2, 2 * self.poly_bytes_q())?;
        let (b, a) = key.polys();
        self.append_poly(&mut out, b)?;
        self.append_poly(&mut out, a)?;
        append_key_set(&mut out, key.key_set());
        Ok(out)
    }

    /// The public key encoded in `bytes`. Errors with [`RlweError::Malformed`] for bytes that
    /// are not a public key's encoding (or have trailing data), [`RlweError::ParameterMismatch`]
    /// for one made under other parameters (including another transform),
    /// [`RlweError::Poly`] for a word not below its prime.
    pub fn public_key_from_bytes(&self, frame: Frame<'_>, bytes: &[u8]) -> Result<PublicKey<B>> {
        let mut reader = Reader::new(bytes, PUBLIC_KEY);
        let (count, _) = frame.read_header(&mut reader, PUBLIC_KEY)?;
        if count != 2 {
            return Err(reader.malformed(format!("a public key has 2 polynomials, not {count}")));
        }
        let ring = self.params.ring_q();
        let b = self.read_poly(&mut reader, ring, &self.ring_q)?;
        let a = self.read_poly(&mut reader, ring, &self.ring_q)?;
        let key_set = reader.finish_with_key_set()?;
        Ok(PublicKey::from_polys(self, b, a).with_key_set(key_set))
    }

    /// The bytes of `key` (kind 4: its digit pairs `(b_j, a_j)` over `qP`, evaluation
    /// representation; see the module doc). Errors with [`RlweError::ParameterMismatch`] for a
    /// key of other parameters.
    pub fn relin_key_to_bytes(&self, frame: Frame<'_>, key: &RelinearizationKey<B>) -> Result<Vec<u8>> {
        self.check(key.params(), "relinearization key")?;
        let mut out =
            frame.header(RELIN_KEY, self.params.max_level(), key.digits().len(), self.key_switching_key_bytes())?;
        self.append_key_switching_key(&mut out, key.digits())?;
        append_key_set(&mut out, key.key_set());
        Ok(out)
    }

    /// The relinearization key encoded in `bytes`: as many digits as the parameters have
    /// ([`rns::KeySwitchContext::num_digits`] of
    /// [`key_switch_tables`](crate::RlweParameters::key_switch_tables)). Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes); another digit count is
    /// [`RlweError::Malformed`].
    pub fn relin_key_from_bytes(&self, frame: Frame<'_>, bytes: &[u8]) -> Result<RelinearizationKey<B>> {
        let mut reader = Reader::new(bytes, RELIN_KEY);
        let (count, _) = frame.read_header(&mut reader, RELIN_KEY)?;
        if count != self.gadgets.len() {
            return Err(
                reader.malformed(format!("{count} digits; the parameters' key switching has {}", self.gadgets.len()))
            );
        }
        let digits = self.read_key_switching_key(&mut reader)?;
        let key_set = reader.finish_with_key_set()?;
        Ok(RelinearizationKey::from_key_switching_key(
            KeySwitchingKey::from_digits(self, digits)?.with_key_set(key_set),
        ))
    }

    /// The bytes of `keys` (kind 5: the number of elements, then for each element in
    /// increasing order the element and its digit pairs over `qP`, evaluation representation;
    /// see the module doc). Errors with [`RlweError::ParameterMismatch`] for keys of other
    /// parameters.
    pub fn galois_keys_to_bytes(&self, frame: Frame<'_>, keys: &GaloisKeys<B>) -> Result<Vec<u8>> {
        self.check(keys.params(), "Galois keys")?;
        let body = keys.len().saturating_mul(self.key_switching_key_bytes().saturating_add(8));
        let mut out = frame.header(GALOIS_KEYS, self.params.max_level(), keys.len(), body)?;
        for element in keys.elements() {
            let digits = keys
                .key(element)
                .ok_or(RlweError::InvalidGaloisElement { element, two_n: 2 * self.params.degree() as u64 })?;
            out.extend_from_slice(&element.to_le_bytes());
            self.append_key_switching_key(&mut out, digits)?;
        }
        append_key_set(&mut out, keys.key_set());
        Ok(out)
    }

    /// The Galois keys encoded in `bytes`. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes), with
    /// [`RlweError::InvalidGaloisElement`] for an element that is even or not below `2N`, and
    /// with [`RlweError::Malformed`] for an element that repeats or comes after a larger one.
    pub fn galois_keys_from_bytes(&self, frame: Frame<'_>, bytes: &[u8]) -> Result<GaloisKeys<B>> {
        let mut reader = Reader::new(bytes, GALOIS_KEYS);
        let (count, _) = frame.read_header(&mut reader, GALOIS_KEYS)?;
        // Every element needs its bytes: refuse counts the input cannot hold before reading.
        let per_element = self.key_switching_key_bytes().saturating_add(8);
        if count > reader.remaining() / per_element {
            return Err(reader.malformed(format!("{count} Galois keys do not fit in {} bytes", bytes.len())));
        }
        let mut keys = BTreeMap::new();
        let mut previous: Option<u64> = None;
        for _ in 0..count {
            let element = reader.u64()?;
            check_galois_element(self.params.ring_kind(), element)?;
            match previous {
                Some(last) if last == element => {
                    return Err(reader.malformed(format!("Galois element {element} appears twice")));
                }
                Some(last) if last > element => {
                    return Err(reader.malformed(format!(
                        "Galois element {element} after {last}: the elements must be in increasing order"
                    )));
                }
                _ => {}
            }
            previous = Some(element);
            keys.insert(element, KeySwitchingKey::from_digits(self, self.read_key_switching_key(&mut reader)?)?);
        }
        let key_set = reader.finish_with_key_set()?;
        Ok(GaloisKeys::from_keys(self, keys)?.with_key_set(key_set))
    }

    /// **The secret itself**: the bytes of `key` (kind 6: `s` over `q` and over `qP`,
    /// evaluation representation; see the module doc). Whoever holds these bytes decrypts
    /// every ciphertext under the key and can forge every evaluation key: never send them to
    /// the evaluating party, keep them only where the key itself may be kept, and overwrite
    /// them when done (for example by wrapping them in `zeroize::Zeroizing`). The host copies
    /// made on the way are overwritten with zeros; the returned vector is allocated once at its
    /// final size, so no stale copy of it is left behind. Errors with
    /// [`RlweError::ParameterMismatch`] for a key of other parameters.
    pub fn secret_key_to_bytes(&self, frame: Frame<'_>, key: &SecretKey<B>) -> Result<Vec<u8>> {
        self.check(key.params(), "secret key")?;
        let mut out = Zeroizing::new(frame.header(
            SECRET_KEY,
            self.params.max_level(),
            2,
            self.poly_bytes_q().saturating_add(self.poly_bytes_qp()),
        )?);
        self.append_secret_poly(&mut out, key.s_q())?;
        self.append_secret_poly(&mut out, key.s_qp())?;
        append_key_set(&mut out, key.key_set());
        Ok(core::mem::take(&mut *out))
    }

    /// The secret key encoded in `bytes` (see [`secret_key_to_bytes`](Self::secret_key_to_bytes):
    /// these bytes are the secret). The key lives on this context's backend. Errors as
    /// [`public_key_from_bytes`](Self::public_key_from_bytes); the host copies made on the way
    /// are overwritten with zeros, and so is a partly decoded key on an error. The two
    /// polynomials are taken as they are: bytes whose `s` over `q` and over `qP` differ, or
    /// that are not ternary, decode to a key that decrypts nothing correctly.
    pub fn secret_key_from_bytes(&self, frame: Frame<'_>, bytes: &[u8]) -> Result<SecretKey<B>> {
        let mut reader = Reader::new(bytes, SECRET_KEY);
        let (count, _) = frame.read_header(&mut reader, SECRET_KEY)?;
        if count != 2 {
            return Err(reader.malformed(format!("a secret key has 2 polynomials, not {count}")));
        }
        let mut s_q = self.read_secret_poly(&mut reader, self.params.ring_q(), &self.ring_q)?;
        let s_qp = match self.read_secret_poly(&mut reader, self.params.ring_qp(), &self.ring_qp) {
            Ok(s_qp) => s_qp,
            Err(error) => {
                // The error is the one to report; a failing device is beyond help here.
                let _ = self.backend.zeroize(&mut s_q);
                return Err(error);
            }
        };
        // Dropping the key on an error below overwrites both polynomials.
        let key = SecretKey::from_polys(self, s_q, s_qp);
        let key_set = reader.finish_with_key_set()?;
        Ok(key.with_key_set(key_set))
    }
}
