//! Byte encodings of the keys (the framing of [`crate::framing`], kinds 3 to 6 under the
//! scheme's tag; layout in the scheme's encoding docs, e.g. BFV's): public, relinearization,
//! Galois and secret keys. Every field and word is checked; errors are typed, never panics.
//!
//! **The bytes of a secret key are the secret itself.**

use std::collections::BTreeMap;
use std::sync::Arc;

use poly::{Eval, Poly, Representation, RingContext, Seed};
use zeroize::Zeroizing;

use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::framing::{Frame, Kind, PACKED_VERSION, Reader, append_key_set, append_poly_words, packed_poly_bytes};
use crate::galois_key::{GaloisKeys, check_galois_element, galois_first_index};
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

/// A key written whole: `(b, a)`, or every pair `(b_j, a_j)` (version 3's form byte).
const FORM_FULL: u8 = 0;
/// A key written as its uniform seed and its `b` (or `b_j`): the decoder samples `a` again.
const FORM_SEEDED: u8 = 1;
/// The bytes of a seed.
const SEED_BYTES: usize = 32;

/// A seed of 32 bytes.
fn read_seed(reader: &mut Reader<'_>) -> Result<Seed> {
    let mut seed = [0u8; SEED_BYTES];
    seed.copy_from_slice(reader.take(SEED_BYTES)?);
    Ok(Seed::from(seed))
}

const fn key_kind(code: u8, bytes: &'static str, encoded: &'static str, noun: &'static str) -> Kind {
    Kind { code, key: true, leveled: false, bytes, encoded, noun }
}

impl<B: RlweBackend> RlweContext<B> {
    /// Appends the words of `poly` (downloaded), packed to its primes' widths
    /// ([`crate::framing`]).
    pub fn append_poly<R: Representation>(&self, out: &mut Vec<u8>, poly: &B::Poly<R>) -> Result<()> {
        let host = self.backend.download(poly).be()?;
        append_poly_words(out, host.as_slice(), &primes(host.context()));
        Ok(())
    }

    /// [`append_poly`](Self::append_poly) for a polynomial of the secret: the host copy is
    /// overwritten with zeros afterwards.
    pub fn append_secret_poly(&self, out: &mut Vec<u8>, poly: &B::Poly<Eval>) -> Result<()> {
        let host = self.backend.download(poly).be()?;
        let moduli = primes(host.context());
        let words = Zeroizing::new(host.into_vec());
        append_poly_words(out, &words, &moduli);
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
        reader.poly_words_into(&primes(ring), ring.degree(), &mut words)?;
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
        reader.poly_words_into(&primes(ring), ring.degree(), &mut words)?;
        let host = Poly::<Eval>::from_slice(ring, &words)?;
        let uploaded = self.backend.upload(device, &host).be();
        drop(Zeroizing::new(host.into_vec()));
        uploaded
    }

    /// The bytes of a polynomial over `q` and over `qP` as written (packed).
    pub(crate) fn poly_bytes_q(&self) -> usize {
        let ring = self.params.ring_q();
        packed_poly_bytes(&primes(ring), ring.degree())
    }

    pub(crate) fn poly_bytes_qp(&self) -> usize {
        let ring = self.params.ring_qp();
        packed_poly_bytes(&primes(ring), ring.degree())
    }

    /// The fewest bytes one key-switching key takes in format version 3 (its uniform seed and
    /// `d` polynomials over `qP`): a lower bound for every version and form.
    fn key_switching_key_bytes(&self) -> usize {
        (1 + SEED_BYTES + 8).saturating_add(self.gadgets.len().saturating_mul(self.poly_bytes_qp()))
    }

    /// A key-switching key (format version 3): a form byte, then either (form 0) the pairs
    /// `(b_j, a_j)`, or (form 1, a key with a uniform seed) the seed, the first sampling index
    /// and the `b_j` alone (the decoder samples the `a_j` again).
    fn append_key_switching_key(&self, out: &mut Vec<u8>, key: &KeySwitchingKey<B>) -> Result<()> {
        match key.uniform_seed() {
            Some((seed, first_index)) => {
                out.push(FORM_SEEDED);
                out.extend_from_slice(seed.as_bytes());
                out.extend_from_slice(&first_index.to_le_bytes());
                for (b, _) in key.digits() {
                    self.append_poly(out, b)?;
                }
            }
            None => {
                out.push(FORM_FULL);
                for (b, a) in key.digits() {
                    self.append_poly(out, b)?;
                    self.append_poly(out, a)?;
                }
            }
        }
        Ok(())
    }

    /// A key-switching key as [`append_key_switching_key`](Self::append_key_switching_key)
    /// writes it (before version 3: the pairs, no form byte). A seeded key must name
    /// `first_index` (the relinearization key's 0, a Galois key's index of its element).
    fn read_key_switching_key(&self, reader: &mut Reader<'_>, first_index: u64) -> Result<KeySwitchingKey<B>> {
        let ring = self.params.ring_qp();
        let form = if reader.version() >= PACKED_VERSION { reader.u8()? } else { FORM_FULL };
        match form {
            FORM_FULL => {
                let mut digits = Vec::with_capacity(self.gadgets.len());
                for _ in 0..self.gadgets.len() {
                    let b = self.read_poly(reader, ring, &self.ring_qp)?;
                    let a = self.read_poly(reader, ring, &self.ring_qp)?;
                    digits.push((b, a));
                }
                KeySwitchingKey::from_digits(self, digits)
            }
            FORM_SEEDED => {
                let seed = read_seed(reader)?;
                let index = reader.u64()?;
                if index != first_index {
                    return Err(
                        reader.malformed(format!("the key's first sampling index is {first_index}, not {index}"))
                    );
                }
                let bs = (0..self.gadgets.len())
                    .map(|_| self.read_poly(reader, ring, &self.ring_qp))
                    .collect::<Result<Vec<_>>>()?;
                KeySwitchingKey::from_uniform_seed(self, &seed, first_index, bs)
            }
            other => Err(reader.malformed(format!("unknown key form {other}"))),
        }
    }

    /// The bytes of `key` (kind 3: `b`, `a` over `q`, evaluation representation; see the
    /// module doc). Errors with [`RlweError::ParameterMismatch`] for a key of other parameters.
    pub fn public_key_to_bytes(&self, frame: Frame<'_>, key: &PublicKey<B>) -> Result<Vec<u8>> {
        self.check(key.params(), "public key")?;
        let mut out = frame.header(PUBLIC_KEY, self.params.max_level(), 2, 1 + 2 * self.poly_bytes_q())?;
        let (b, a) = key.polys();
        match key.uniform_seed() {
            Some(seed) => {
                out.push(FORM_SEEDED);
                out.extend_from_slice(seed.as_bytes());
                self.append_poly(&mut out, b)?;
            }
            None => {
                out.push(FORM_FULL);
                self.append_poly(&mut out, b)?;
                self.append_poly(&mut out, a)?;
            }
        }
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
        let form = if reader.version() >= PACKED_VERSION { reader.u8()? } else { FORM_FULL };
        let key = match form {
            FORM_FULL => {
                let b = self.read_poly(&mut reader, ring, &self.ring_q)?;
                let a = self.read_poly(&mut reader, ring, &self.ring_q)?;
                PublicKey::from_polys(self, b, a)
            }
            FORM_SEEDED => {
                let seed = read_seed(&mut reader)?;
                let b = self.read_poly(&mut reader, ring, &self.ring_q)?;
                PublicKey::from_uniform_seed(self, b, &seed)?
            }
            other => return Err(reader.malformed(format!("unknown key form {other}"))),
        };
        let key_set = reader.finish_with_key_set()?;
        Ok(key.with_key_set(key_set))
    }

    /// The bytes of `key` (kind 4: its digit pairs `(b_j, a_j)` over `qP`, evaluation
    /// representation; see the module doc). Errors with [`RlweError::ParameterMismatch`] for a
    /// key of other parameters.
    pub fn relin_key_to_bytes(&self, frame: Frame<'_>, key: &RelinearizationKey<B>) -> Result<Vec<u8>> {
        self.check(key.params(), "relinearization key")?;
        let mut out =
            frame.header(RELIN_KEY, self.params.max_level(), key.digits().len(), self.key_switching_key_bytes())?;
        self.append_key_switching_key(&mut out, key.key_switching_key())?;
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
        let key = self.read_key_switching_key(&mut reader, 0)?;
        let key_set = reader.finish_with_key_set()?;
        Ok(RelinearizationKey::from_key_switching_key(key.with_key_set(key_set)))
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
            let key = keys
                .switching_key(element)
                .ok_or(RlweError::InvalidGaloisElement { element, two_n: 2 * self.params.degree() as u64 })?;
            out.extend_from_slice(&element.to_le_bytes());
            self.append_key_switching_key(&mut out, key)?;
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
            // Each element's bytes, then the key set's, must still be there.
            if reader.remaining() < per_element.saturating_add(crate::framing::KEY_SET_BYTES) {
                return Err(reader.malformed(format!("{count} Galois keys do not fit in {} bytes", bytes.len())));
            }
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
            keys.insert(element, self.read_key_switching_key(&mut reader, galois_first_index(element))?);
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

/// The primes of `ring`, the widths its limbs are packed to.
fn primes(ring: &RingContext) -> Vec<u64> {
    ring.moduli().iter().map(|m| m.value()).collect()
}
