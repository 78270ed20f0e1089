//! Byte encodings of ciphertexts, so they can travel: a full [`Ciphertext`] and the half-size
//! [`SeededCiphertext`] (its `c_0` and the 32-byte public seed of `c_1`).
//!
//! Layout (all integers little-endian):
//!
//! ```text
//! 8 bytes  "HEGPUBFV"
//! 1 byte   format version (1)
//! 1 byte   kind: 1 = ciphertext, 2 = seeded ciphertext
//! 4 bytes  N
//! 4 bytes  L (number of ciphertext primes)
//! 8 L      the ciphertext primes q_0 .. q_{L-1}
//! 8 bytes  t
//! 4 bytes  number of polynomials k (kind 2: 1)
//! 32 bytes the public seed (kind 2 only)
//! 8 k L N  the polynomials c_0, c_1, ... over q, coefficient representation, limb-major
//! ```
//!
//! Decoding checks every field against the context's parameters and every word against its
//! prime, and errors (never panics) on anything else.

use std::sync::Arc;

use poly::{Coeff, Poly, Seed};

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext, Ciphertext, SeededCiphertext};
use crate::{BfvError, Result};

const MAGIC: &[u8; 8] = b"HEGPUBFV";
const VERSION: u8 = 1;
const KIND_CIPHERTEXT: u8 = 1;
const KIND_SEEDED: u8 = 2;

fn malformed(reason: impl Into<String>) -> BfvError {
    BfvError::Malformed { what: "ciphertext bytes", reason: reason.into() }
}

/// A cursor over the bytes being decoded.
struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, count: usize) -> Result<&'a [u8]> {
        let end = self.offset.checked_add(count).ok_or_else(|| malformed("length overflow"))?;
        let slice = self
            .bytes
            .get(self.offset..end)
            .ok_or_else(|| malformed(format!("truncated: {} bytes needed at offset {}", count, self.offset)))?;
        self.offset = end;
        Ok(slice)
    }

    fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    fn u32(&mut self) -> Result<u32> {
        let mut word = [0u8; 4];
        word.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(word))
    }

    fn u64(&mut self) -> Result<u64> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(word))
    }
}

impl<B: BfvBackend> BfvContext<B> {
    fn header(&self, kind: u8, polys: usize) -> Vec<u8> {
        let params = &self.params;
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.push(VERSION);
        out.push(kind);
        out.extend_from_slice(&(params.degree() as u32).to_le_bytes());
        out.extend_from_slice(&(params.ciphertext_moduli().len() as u32).to_le_bytes());
        for &q in params.ciphertext_moduli() {
            out.extend_from_slice(&q.to_le_bytes());
        }
        out.extend_from_slice(&params.plaintext_modulus().to_le_bytes());
        out.extend_from_slice(&(polys as u32).to_le_bytes());
        out
    }

    fn append_poly(&self, out: &mut Vec<u8>, poly: &B::Poly<Coeff>) -> Result<()> {
        let host = self.backend.download(poly).be()?;
        out.reserve(host.as_slice().len() * 8);
        for word in host.as_slice() {
            out.extend_from_slice(&word.to_le_bytes());
        }
        Ok(())
    }

    /// Checks the header against this context; returns the kind and the polynomial count.
    fn read_header(&self, reader: &mut Reader<'_>) -> Result<(u8, usize)> {
        if reader.take(8)? != MAGIC {
            return Err(malformed("not a BFV ciphertext (bad magic)"));
        }
        let version = reader.u8()?;
        if version != VERSION {
            return Err(malformed(format!("unknown format version {version}")));
        }
        let kind = reader.u8()?;
        let params = &self.params;
        let degree = reader.u32()? as usize;
        let limbs = reader.u32()? as usize;
        if degree != params.degree() || limbs != params.ciphertext_moduli().len() {
            return Err(BfvError::ParameterMismatch { what: "encoded ciphertext" });
        }
        for &q in params.ciphertext_moduli() {
            if reader.u64()? != q {
                return Err(BfvError::ParameterMismatch { what: "encoded ciphertext" });
            }
        }
        if reader.u64()? != params.plaintext_modulus() {
            return Err(BfvError::ParameterMismatch { what: "encoded ciphertext" });
        }
        let polys = reader.u32()? as usize;
        Ok((kind, polys))
    }

    fn read_poly(&self, reader: &mut Reader<'_>) -> Result<B::Poly<Coeff>> {
        let len = self.params.ring_q().poly_len();
        let bytes = reader.take(len.checked_mul(8).ok_or_else(|| malformed("length overflow"))?)?;
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|chunk| {
                let mut word = [0u8; 8];
                word.copy_from_slice(chunk);
                u64::from_le_bytes(word)
            })
            .collect();
        let host = Poly::<Coeff>::from_limbs(self.params.ring_q(), words)?;
        self.backend.upload(&self.ring_q, &host).be()
    }

    /// The bytes of `ciphertext` (see the module doc for the layout).
    pub fn ciphertext_to_bytes(&self, ciphertext: &Ciphertext<B>) -> Result<Vec<u8>> {
        self.check(&ciphertext.params, "ciphertext")?;
        let mut out = self.header(KIND_CIPHERTEXT, ciphertext.polys.len());
        for poly in &ciphertext.polys {
            self.append_poly(&mut out, poly)?;
        }
        Ok(out)
    }

    /// The ciphertext encoded in `bytes`. Errors with [`BfvError::Malformed`] for bytes that
    /// are not such an encoding (or have trailing data), [`BfvError::ParameterMismatch`] for
    /// one made under other parameters, [`BfvError::Poly`] for a word not below its prime.
    pub fn ciphertext_from_bytes(&self, bytes: &[u8]) -> Result<Ciphertext<B>> {
        let mut reader = Reader { bytes, offset: 0 };
        let (kind, count) = self.read_header(&mut reader)?;
        if kind != KIND_CIPHERTEXT {
            return Err(malformed(format!("kind {kind} is not a full ciphertext")));
        }
        if count < 2 {
            return Err(BfvError::InvalidCiphertextSize {
                operation: "decoding",
                expected: "at least 2",
                actual: count,
            });
        }
        // Every polynomial needs its bytes: refuse counts the input cannot hold before allocating.
        let poly_bytes = self.params.ring_q().poly_len() * 8;
        if count > bytes.len() / poly_bytes.max(1) {
            return Err(malformed(format!("{count} polynomials do not fit in {} bytes", bytes.len())));
        }
        let polys = (0..count).map(|_| self.read_poly(&mut reader)).collect::<Result<Vec<_>>>()?;
        if reader.offset != bytes.len() {
            return Err(malformed(format!("{} trailing bytes", bytes.len() - reader.offset)));
        }
        Ok(Ciphertext { params: Arc::clone(&self.params), polys })
    }

    /// The bytes of a seeded ciphertext: `c_0` and the public seed, about half a ciphertext.
    pub fn seeded_to_bytes(&self, seeded: &SeededCiphertext<B>) -> Result<Vec<u8>> {
        self.check(&seeded.params, "seeded ciphertext")?;
        let mut out = self.header(KIND_SEEDED, 1);
        out.extend_from_slice(seeded.public_seed.as_bytes());
        self.append_poly(&mut out, &seeded.c0)?;
        Ok(out)
    }

    /// The seeded ciphertext encoded in `bytes` (errors as
    /// [`ciphertext_from_bytes`](Self::ciphertext_from_bytes)).
    pub fn seeded_from_bytes(&self, bytes: &[u8]) -> Result<SeededCiphertext<B>> {
        let mut reader = Reader { bytes, offset: 0 };
        let (kind, count) = self.read_header(&mut reader)?;
        if kind != KIND_SEEDED || count != 1 {
            return Err(malformed(format!("kind {kind} with {count} polynomials is not a seeded ciphertext")));
        }
        let mut seed = [0u8; 32];
        seed.copy_from_slice(reader.take(32)?);
        let public_seed = Seed::from(seed);
        let c0 = self.read_poly(&mut reader)?;
        if reader.offset != bytes.len() {
            return Err(malformed(format!("{} trailing bytes", bytes.len() - reader.offset)));
        }
        Ok(SeededCiphertext { params: Arc::clone(&self.params), c0, public_seed })
    }
}
