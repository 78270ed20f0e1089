//! The byte-encoding framing every scheme's encodings share: a header naming the scheme, the
//! format version, the kind of object, the ring (degree and the primes of the object's level,
//! the special primes and transform for keys) and the scheme's plaintext modulus, then a
//! body; and the [`Reader`] that decodes it, checking every field and refusing counts the
//! input cannot hold before allocating. In the body, a polynomial's words are packed limb by
//! limb to the bit width of the limb's prime (`b_i = bits(q_i)`: `ceil(N b_i / 8)` bytes per
//! limb, little-endian bit order, a plaintext's at the width of `t - 1`) from format version
//! 3 on; versions 1 and 2 hold every word in 8 bytes. Other words (a BGV correction factor,
//! the key set) are 8 bytes in every version.
//!
//! ```text
//! 8 bytes  magic: "HEGPU" and the scheme tag ("BFV", "BGV")
//! 1 byte   format version (1)
//! 1 byte   kind (the scheme numbers its kinds)
//! 4 bytes  N
//! 4 bytes  l + 1 (the number of ciphertext primes of the object's level l; L for keys)
//! 8 (l+1)  the ciphertext primes q_0 .. q_l
//! 8 bytes  t
//! 4 bytes  count (the scheme's meaning: polynomials, digits, elements)
//! -- key kinds only (the evaluation representation depends on the transform):
//! 4 bytes  K (number of special primes)
//! 8 K      the special primes p_0 .. p_{K-1}
//! 1 byte   transform: 0 = NTT, 1 = DGT, 2 = hierarchical DGT, 3 = Bluestein (Phi_m)
//! -- the body (the scheme's), then, from format version 2 on:
//! 8 bytes  the key set's identifier (`crate::KeySetId`; 0 for none)
//! ```
//!
//! Decoders read versions 1 (no identifier: the object carries none), 2 and 3 (packed words);
//! encoders write version 3.

use poly::TransformKind;

use crate::{KeySetId, Result, RlweError, RlweParameters};

/// The format version written (3: polynomial words packed to their primes' bit widths; 2
/// added the key set's identifier at the end).
pub const VERSION: u8 = 3;

/// The first format version with packed polynomial words.
pub const PACKED_VERSION: u8 = 3;

/// The oldest format version read (1: no key set's identifier).
pub const MIN_VERSION: u8 = 1;

/// The bytes of the key set's identifier at the end of an encoding (version 2).
pub const KEY_SET_BYTES: usize = 8;

/// The scheme whose object an encoding holds (the last three bytes of the magic).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    /// BFV.
    Bfv,
    /// BGV.
    Bgv,
}

impl Scheme {
    /// The eight magic bytes.
    pub fn magic(self) -> &'static [u8; 8] {
        match self {
            Scheme::Bfv => b"HEGPUBFV",
            Scheme::Bgv => b"HEGPUBGV",
        }
    }

    /// The scheme's name.
    pub fn name(self) -> &'static str {
        match self {
            Scheme::Bfv => "BFV",
            Scheme::Bgv => "BGV",
        }
    }
}

/// A kind of encoding: its byte, whether its header names the key ring (special primes and
/// transform), whether it may be below the top level, and the names its errors carry.
#[derive(Debug, Clone, Copy)]
pub struct Kind {
    /// The kind byte.
    pub code: u8,
    /// Whether the header carries the special primes and the transform (keys).
    pub key: bool,
    /// Whether the object may be at a level below the top (ciphertexts).
    pub leveled: bool,
    /// The `what` of [`RlweError::Malformed`].
    pub bytes: &'static str,
    /// The `what` of [`RlweError::ParameterMismatch`].
    pub encoded: &'static str,
    /// The noun of "not a BFV ...".
    pub noun: &'static str,
}

/// The transform's byte in the header.
pub fn transform_code(transform: TransformKind) -> u8 {
    match transform {
        TransformKind::Ntt => 0,
        TransformKind::Dgt => 1,
        TransformKind::HierarchicalDgt => 2,
        TransformKind::Bluestein => 3,
    }
}

/// The header of one scheme's objects under one parameter set.
#[derive(Debug, Clone, Copy)]
pub struct Frame<'a> {
    /// The scheme.
    pub scheme: Scheme,
    /// The core parameters.
    pub params: &'a RlweParameters,
    /// The scheme's plaintext modulus `t`.
    pub plaintext_modulus: u64,
}

impl Frame<'_> {
    /// The length of the header of `kind` at `level`.
    pub fn header_len(&self, kind: Kind, level: usize) -> usize {
        let mut len = 8 + 1 + 1 + 4 + 4 + 8 * (level + 1) + 8 + 4;
        if kind.key {
            len += 4 + 8 * self.params.special_moduli().len() + 1;
        }
        len
    }

    /// The header of `kind` at `level` with count `count`, in a vector with room for `body`
    /// more bytes (the exact size: a secret key's bytes are never copied by a reallocation).
    /// Errors with [`RlweError::InvalidParameter`] for a level above the top.
    pub fn header(&self, kind: Kind, level: usize, count: usize, body: usize) -> Result<Vec<u8>> {
        self.params.check_level(level)?;
        let params = self.params;
        let mut out =
            Vec::with_capacity(self.header_len(kind, level).saturating_add(body).saturating_add(KEY_SET_BYTES));
        out.extend_from_slice(self.scheme.magic());
        out.push(VERSION);
        out.push(kind.code);
        out.extend_from_slice(&(params.degree() as u32).to_le_bytes());
        out.extend_from_slice(&((level + 1) as u32).to_le_bytes());
        for &q in &params.ciphertext_moduli()[..=level] {
            out.extend_from_slice(&q.to_le_bytes());
        }
        out.extend_from_slice(&self.plaintext_modulus.to_le_bytes());
        out.extend_from_slice(&(count as u32).to_le_bytes());
        if kind.key {
            out.extend_from_slice(&(params.special_moduli().len() as u32).to_le_bytes());
            for &p in params.special_moduli() {
                out.extend_from_slice(&p.to_le_bytes());
            }
            out.push(transform_code(params.transform()));
        }
        Ok(out)
    }

    /// Reads the header, checks it against these parameters and `kind`; returns the count and
    /// the level (the top level unless `kind` is leveled and the header names a prefix of the
    /// ciphertext primes).
    pub fn read_header(&self, reader: &mut Reader<'_>, kind: Kind) -> Result<(usize, usize)> {
        if reader.take(8)? != self.scheme.magic() {
            return Err(reader.malformed(format!("not a {} {} (bad magic)", self.scheme.name(), kind.noun)));
        }
        let version = reader.u8()?;
        if !(MIN_VERSION..=VERSION).contains(&version) {
            return Err(reader.malformed(format!("unknown format version {version}")));
        }
        reader.version = version;
        let code = reader.u8()?;
        if code != kind.code {
            return Err(reader.malformed(format!("kind {code} is not a {}", kind.noun)));
        }
        let mismatch = |field: &'static str| RlweError::ParameterMismatch { what: kind.encoded, field };
        let params = self.params;
        let degree = reader.u32()? as usize;
        let limbs = reader.u32()? as usize;
        let top = params.ciphertext_moduli().len();
        let limbs_fit = if kind.leveled { (1..=top).contains(&limbs) } else { limbs == top };
        if degree != params.degree() {
            return Err(mismatch("ring degree"));
        }
        if !limbs_fit {
            return Err(mismatch("number of ciphertext primes"));
        }
        for &q in &params.ciphertext_moduli()[..limbs] {
            if reader.u64()? != q {
                return Err(mismatch("ciphertext primes"));
            }
        }
        if reader.u64()? != self.plaintext_modulus {
            return Err(mismatch("plaintext modulus"));
        }
        let count = reader.u32()? as usize;
        if kind.key {
            let special = reader.u32()? as usize;
            if special != params.special_moduli().len() {
                return Err(mismatch("special primes"));
            }
            for &p in params.special_moduli() {
                if reader.u64()? != p {
                    return Err(mismatch("special primes"));
                }
            }
            let transform = reader.u8()?;
            // Bluestein's (3), the transform of the Phi_m rings, is the last code.
            if transform > transform_code(TransformKind::Bluestein) {
                return Err(reader.malformed(format!("unknown transform {transform}")));
            }
            if transform != transform_code(params.transform()) {
                return Err(mismatch("transform"));
            }
        }
        Ok((count, limbs - 1))
    }
}

/// A cursor over the bytes being decoded; every error is [`RlweError::Malformed`].
#[derive(Debug)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    offset: usize,
    /// The `what` of its errors.
    what: &'static str,
    /// The format version of the header read ([`VERSION`] until then).
    version: u8,
}

impl<'a> Reader<'a> {
    /// A reader of `bytes` holding an encoding of `kind`.
    pub fn new(bytes: &'a [u8], kind: Kind) -> Self {
        Self { bytes, offset: 0, what: kind.bytes, version: VERSION }
    }

    /// [`RlweError::Malformed`] with this reader's subject.
    pub fn malformed(&self, reason: impl Into<String>) -> RlweError {
        RlweError::Malformed { what: self.what, reason: reason.into() }
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len().saturating_sub(self.offset)
    }

    /// The next `count` bytes.
    pub fn take(&mut self, count: usize) -> Result<&'a [u8]> {
        let end = self.offset.checked_add(count).ok_or_else(|| self.malformed("length overflow"))?;
        let slice = self
            .bytes
            .get(self.offset..end)
            .ok_or_else(|| self.malformed(format!("truncated: {} bytes needed at offset {}", count, self.offset)))?;
        self.offset = end;
        Ok(slice)
    }

    /// One byte.
    pub fn u8(&mut self) -> Result<u8> {
        Ok(self.take(1)?[0])
    }

    /// A little-endian u32.
    pub fn u32(&mut self) -> Result<u32> {
        let mut word = [0u8; 4];
        word.copy_from_slice(self.take(4)?);
        Ok(u32::from_le_bytes(word))
    }

    /// A little-endian u64.
    pub fn u64(&mut self) -> Result<u64> {
        let mut word = [0u8; 8];
        word.copy_from_slice(self.take(8)?);
        Ok(u64::from_le_bytes(word))
    }

    /// `len` words of 8 bytes, into `words` (cleared first).
    pub fn words_into(&mut self, len: usize, words: &mut Vec<u64>) -> Result<()> {
        let bytes = self.take(len.checked_mul(8).ok_or_else(|| self.malformed("length overflow"))?)?;
        words.clear();
        words.resize(len, 0);
        // One copy of the little-endian bytes, then (on big-endian targets only) a swap.
        bytemuck::cast_slice_mut::<u64, u8>(words).copy_from_slice(bytes);
        #[cfg(target_endian = "big")]
        for word in words.iter_mut() {
            *word = u64::from_le(*word);
        }
        Ok(())
    }

    /// The format version of the header read ([`VERSION`] before one is read).
    pub fn version(&self) -> u8 {
        self.version
    }

    /// The bytes a polynomial over `moduli` (`n` words per limb) takes in the version read.
    pub fn poly_bytes(&self, moduli: &[u64], n: usize) -> usize {
        if self.version >= PACKED_VERSION {
            packed_poly_bytes(moduli, n)
        } else {
            n.saturating_mul(moduli.len()).saturating_mul(8)
        }
    }

    /// The words of a polynomial over `moduli` (`n` per limb, limb-major) into `words`
    /// (cleared first): packed to the primes' widths from version 3, 8 bytes each before.
    /// The words are not checked against the primes here (the polynomial's constructor does).
    pub fn poly_words_into(&mut self, moduli: &[u64], n: usize, words: &mut Vec<u64>) -> Result<()> {
        let len = n.checked_mul(moduli.len()).ok_or_else(|| self.malformed("length overflow"))?;
        if self.version < PACKED_VERSION {
            return self.words_into(len, words);
        }
        let bytes = self.take(packed_poly_bytes(moduli, n))?;
        words.clear();
        words.reserve_exact(len);
        let mut offset = 0;
        for &q in moduli {
            let width = bit_width(q);
            let limb_bytes = packed_limb_bytes(width, n);
            if !unpack_limb(&bytes[offset..offset + limb_bytes], width, n, words) {
                // One encoding per polynomial: the bits after a limb's last word are zero.
                return Err(self.malformed("nonzero padding bits after a packed limb"));
            }
            offset += limb_bytes;
        }
        Ok(())
    }

    /// The key set's identifier that ends an encoding of version 2 or later (none in version 1), then
    /// [`finish`](Self::finish).
    pub fn finish_with_key_set(&mut self) -> Result<Option<KeySetId>> {
        let key_set = if self.version >= 2 { KeySetId::from_u64(self.u64()?) } else { None };
        self.finish()?;
        Ok(key_set)
    }

    /// Errors unless every byte has been read.
    pub fn finish(&self) -> Result<()> {
        if self.offset == self.bytes.len() {
            Ok(())
        } else {
            Err(self.malformed(format!("{} trailing bytes", self.remaining())))
        }
    }
}

/// Appends the key set's identifier that ends an encoding (0 for none).
pub fn append_key_set(out: &mut Vec<u8>, key_set: Option<KeySetId>) {
    out.extend_from_slice(&KeySetId::to_u64(key_set).to_le_bytes());
}

/// Appends `words` as little-endian bytes.
pub fn append_words(out: &mut Vec<u8>, words: &[u64]) {
    // One copy on little-endian targets (the encoding's byte order).
    #[cfg(target_endian = "little")]
    out.extend_from_slice(bytemuck::cast_slice(words));
    #[cfg(target_endian = "big")]
    for word in words {
        out.extend_from_slice(&word.to_le_bytes());
    }
}

/// The bits of the largest residue modulo `q` (`q - 1`): the packed width of its limb.
pub fn bit_width(q: u64) -> u32 {
    u64::BITS - q.saturating_sub(1).leading_zeros()
}

/// The bytes of one packed limb of `n` words of `width` bits.
fn packed_limb_bytes(width: u32, n: usize) -> usize {
    n.saturating_mul(width as usize).div_ceil(8)
}

/// The bytes of a polynomial over `moduli` (`n` words per limb), packed (version 3).
pub fn packed_poly_bytes(moduli: &[u64], n: usize) -> usize {
    moduli.iter().map(|&q| packed_limb_bytes(bit_width(q), n)).fold(0usize, usize::saturating_add)
}

/// Appends the words of a polynomial over `moduli` (`words.len() / moduli.len()` per limb,
/// limb-major), each limb packed to the width of its prime (every word must be below it: the
/// polynomials' invariant).
pub fn append_poly_words(out: &mut Vec<u8>, words: &[u64], moduli: &[u64]) {
    let n = words.len() / moduli.len().max(1);
    for (limb, &q) in words.chunks(n.max(1)).zip(moduli) {
        pack_limb(out, limb, bit_width(q));
    }
}

/// Appends `words` packed to `width` bits each, little-endian bit order (the first word in
/// the low bits of the first byte), the last byte padded with zeros. Eight bytes are written at
/// a time (byte by byte, the packing ran at a few hundred MB/s).
fn pack_limb(out: &mut Vec<u8>, words: &[u64], width: u32) {
    let start = out.len();
    out.resize(start + packed_limb_bytes(width, words.len()), 0);
    let mut chunks = out[start..].chunks_exact_mut(8);
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    // Fewer than 64 bits wait in `acc` between words, so a word shifted in fits its 128 bits.
    let (mut acc, mut bits) = (0u128, 0u32);
    for &word in words {
        acc |= u128::from(word & mask) << bits;
        bits += width;
        if bits >= 64 {
            // Whole eight-byte chunks come before the tail, so one is there for every 64 bits.
            if let Some(chunk) = chunks.next() {
                chunk.copy_from_slice(&(acc as u64).to_le_bytes());
            }
            acc >>= 64;
            bits -= 64;
        }
    }
    // The last bits: a whole chunk when the length rounds up to one, else the short remainder.
    let last = (acc as u64).to_le_bytes();
    match chunks.next() {
        Some(chunk) => chunk.copy_from_slice(&last),
        None => {
            let tail = chunks.into_remainder();
            let len = tail.len();
            tail.copy_from_slice(&last[..len]);
        }
    }
}

/// The `n` words of `width` bits packed in `bytes` ([`pack_limb`]'s layout), appended to
/// `words`; whether `bytes` are exactly that encoding (its length, and zero padding bits after
/// the last word). Missing bytes read as zeros. Reads eight bytes at a time while eight are left.
fn unpack_limb(bytes: &[u8], width: u32, n: usize, words: &mut Vec<u64>) -> bool {
    let exact_length = bytes.len() == packed_limb_bytes(width, n);
    let mask = if width >= 64 { u64::MAX } else { (1u64 << width) - 1 };
    let (mut acc, mut bits) = (0u128, 0u32);
    let mut offset = 0;
    for _ in 0..n {
        if bits < width {
            if let Some(chunk) = bytes.get(offset..offset + 8) {
                let mut eight = [0u8; 8];
                eight.copy_from_slice(chunk);
                acc |= u128::from(u64::from_le_bytes(eight)) << bits;
                bits += 64;
                offset += 8;
            } else {
                while bits < width {
                    acc |= u128::from(bytes.get(offset).copied().unwrap_or(0)) << bits;
                    bits += 8;
                    offset += 1;
                }
            }
        }
        words.push((acc as u64) & mask);
        acc >>= width;
        bits -= width;
    }
    exact_length && acc == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_words_round_trip_at_every_width() {
        for width in 1..=64u32 {
            let q = if width == 64 { u64::MAX } else { (1u64 << width) | 1 };
            let top = q - 1;
            let n = 37;
            let words: Vec<u64> =
                (0..n as u64).map(|i| top.wrapping_sub(i.wrapping_mul(0x9E37_79B9_7F4A_7C15) % q.max(1)) % q).collect();
            let mut out = Vec::new();
            append_poly_words(&mut out, &words, &[q]);
            assert_eq!(out.len(), packed_poly_bytes(&[q], n), "width {}", bit_width(q));
            let mut back = Vec::new();
            assert!(unpack_limb(&out, bit_width(q), n, &mut back));
            assert_eq!(back, words, "width {}", bit_width(q));
            // A set padding bit (37 words of an odd width leave some) is refused.
            if !(n * bit_width(q) as usize).is_multiple_of(8) {
                let mut padded = out.clone();
                *padded.last_mut().unwrap() |= 0x80;
                assert!(!unpack_limb(&padded, bit_width(q), n, &mut Vec::new()), "width {}", bit_width(q));
            }
        }
    }

    /// The layout bit by bit: bit `j` of word `i` is bit `i width + j` of the stream.
    fn reference_pack(words: &[u64], width: u32) -> Vec<u8> {
        let mut out = vec![0u8; packed_limb_bytes(width, words.len())];
        for (i, &word) in words.iter().enumerate() {
            for j in 0..width as usize {
                if (word >> j) & 1 == 1 {
                    let bit = i * width as usize + j;
                    out[bit / 8] |= 1 << (bit % 8);
                }
            }
        }
        out
    }

    #[test]
    fn packing_matches_the_bit_by_bit_layout() {
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        for width in 1..=64u32 {
            // Lengths around the 8-byte steps of the packer and the reader.
            for n in [0usize, 1, 2, 7, 8, 9, 63, 64, 65, 1000] {
                let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
                let words: Vec<u64> = (0..n)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 7;
                        state ^= state << 17;
                        state & mask
                    })
                    .collect();
                let mut out = Vec::new();
                pack_limb(&mut out, &words, width);
                assert_eq!(out, reference_pack(&words, width), "width {width}, n {n}");
                let mut back = Vec::new();
                assert!(unpack_limb(&out, width, n, &mut back), "width {width}, n {n}");
                assert_eq!(back, words, "width {width}, n {n}");
                // A byte too many, or too few, is refused.
                let mut longer = out.clone();
                longer.push(0);
                assert!(!unpack_limb(&longer, width, n, &mut Vec::new()), "width {width}, n {n}");
                if let Some((_, shorter)) = out.split_last() {
                    assert!(!unpack_limb(shorter, width, n, &mut Vec::new()), "width {width}, n {n}");
                }
            }
        }
    }

    #[test]
    fn widths_are_those_of_the_largest_residue() {
        assert_eq!(bit_width(2), 1);
        assert_eq!(bit_width(3), 2);
        assert_eq!(bit_width(65537), 17);
        assert_eq!(bit_width((1 << 55) + 1), 56);
        assert_eq!(bit_width((1 << 54) + 1 - (1 << 20)), 54);
        assert_eq!(bit_width(0), 0);
        assert_eq!(packed_poly_bytes(&[65537, 3], 8), 17 + 2);
    }
}
