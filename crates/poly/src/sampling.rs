//! Deterministic sampling: every sampled polynomial is a pure function of
//! (seed, distribution, polynomial index, coefficient index), identical on the CPU and the GPU.
//!
//! # Keystream
//!
//! The generator is ChaCha20 (20 rounds) in counter mode, in the original djb layout that
//! `rand_chacha::ChaCha20Rng` uses. The 16-word input state of block `b` of stream `s` is
//!
//! ```text
//! words  0..4   0x61707865 0x3320646e 0x79622d32 0x6b206574   ("expand 32-byte k")
//! words  4..12  the 32-byte seed as eight little-endian u32 words
//! words 12..14  block counter b: low 32 bits, then high 32 bits
//! words 14..16  stream id s:     low 32 bits, then high 32 bits
//! ```
//!
//! The block function (RFC 8439, section 2.3: ten double rounds of column and diagonal quarter
//! rounds, then the input state added word-wise) yields 16 u32 words. Word `w` of stream `s` is
//! word `w mod 16` of block `floor(w / 16)`. A "u64 word" `k` is `word[2k] | word[2k+1] << 32`.
//!
//! The stream id is `tag << 56 | poly_index` with the [`Distribution`] tag in the top 8 bits and
//! the caller's polynomial index (below 2^56) in the low 56 bits, so the distributions never
//! share keystream.
//!
//! # Distributions (N = degree, limb `i` has modulus `q_i`)
//!
//! - **Uniform mod q_i** ([`sample_uniform`], tag 1): coefficient `j` of limb `i` takes the four
//!   u32 words at word index `4 * (i * N + j)` as the little-endian 128-bit integer
//!   `x = w0 + w1 * 2^32 + w2 * 2^64 + w3 * 2^96` and stores `x mod q_i` (the Barrett reduction
//!   of [`Modulus::reduce_u128`]). The statistical distance from uniform is below `q_i / 2^128`.
//!   One ChaCha block gives four coefficients; limbs are independent, and sampling with the first
//!   `l` moduli of a basis gives the first `l` limbs of the sample over the whole basis.
//! - **Ternary in {-1, 0, 1}** ([`sample_ternary_signed`], tag 2): coefficient `j` is
//!   `(u64 word j) mod 3 - 1`. As `2^64 = 1 mod 3`, the value `-1` has probability
//!   `1/3 + 2/(3 * 2^64)` and `0`, `1` have `1/3 - 1/(3 * 2^64)` each: a bias of about `2^-64`.
//! - **Centered binomial, eta = 21** ([`sample_cbd_signed`], tag 3): coefficient `j` is
//!   `popcount(u & (2^21 - 1)) - popcount((u >> 21) & (2^21 - 1))` for `u` = u64 word `j`
//!   (bits 42..64 are unused). Exactly `Binomial(42, 1/2) - 21`: mean 0, variance 21/2
//!   (sigma about 3.24), values in `[-21, 21]`.
//!
//! Ternary and binomial values do not depend on the moduli; [`reduce_signed_into_limbs`] stores
//! the same integer in every limb as its canonical residue, which [`sample_ternary`] and
//! [`sample_cbd`] do in one call. One ChaCha block gives eight such coefficients.
//!
//! All outputs are limb-major: limb `i` is `out[i * N..(i + 1) * N]`, canonical values.
//! The GPU kernels in `kernels/sampling.cu` reproduce this layout bit for bit; `docs/sampling.md`
//! states it for kernel writers.

use core::fmt;

use modarith::Modulus;
use rand_chacha::ChaCha20Rng;
use rand_core::{RngCore, SeedableRng};
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::{PolyError, Result};

/// Number of u32 words in one ChaCha20 block.
pub const CHACHA_BLOCK_WORDS: usize = 16;
/// Largest polynomial index: the low 56 bits of the stream id.
pub const MAX_POLY_INDEX: u64 = (1 << 56) - 1;
/// Parameter eta of the centered binomial distribution.
pub const CBD_ETA: u32 = 21;
/// Smallest degree the samplers accept (one ChaCha block never straddles two limbs).
pub const MIN_SAMPLING_DEGREE: usize = 8;
/// The degree the samplers run at for `n` coefficients: `n` rounded up to a power of two, at
/// least [`MIN_SAMPLING_DEGREE`]; the first `n` words of each limb are the sample (the power
/// basis of a ring `Z_q[x]/Phi_m`, `n = phi(m)`: `RingContext::sampling_degree`).
pub fn padded_sampling_degree(n: usize) -> usize {
    // Saturating at 2^63, far beyond any ring (no overflow for a larger `n`).
    n.checked_next_power_of_two().unwrap_or(1 << (usize::BITS - 1)).max(MIN_SAMPLING_DEGREE)
}

/// Largest degree the samplers accept (the largest ring degree of the library).
pub const MAX_SAMPLING_DEGREE: usize = 1 << 17;
/// Largest number of limbs the samplers accept (the largest RNS basis of the library).
pub const MAX_SAMPLING_LIMBS: usize = crate::context::MAX_LIMBS;

/// 32 bytes of seed material: the ChaCha20 key. Zeroized on drop; `Debug` does not print it.
#[derive(Clone)]
pub struct Seed([u8; 32]);

impl Seed {
    /// A fresh seed from the operating system's random source.
    pub fn from_os() -> Result<Self> {
        let mut seed = Seed([0; 32]);
        // On failure `seed` is dropped (and zeroized) here; nothing partial escapes.
        getrandom::getrandom(&mut seed.0)
            .map_err(|error| PolyError::OsRandomness { code: error.code().get(), message: error.to_string() })?;
        Ok(seed)
    }

    /// The seed bytes (the ChaCha20 key, read as eight little-endian u32 words).
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }

    /// The key as the eight little-endian u32 words of the ChaCha20 state (words 4..12), the form
    /// the GPU kernels take. Zeroized when dropped.
    pub fn key_words(&self) -> Zeroizing<[u32; 8]> {
        Zeroizing::new(core::array::from_fn(|k| {
            u32::from_le_bytes([self.0[4 * k], self.0[4 * k + 1], self.0[4 * k + 2], self.0[4 * k + 3]])
        }))
    }
}

impl From<[u8; 32]> for Seed {
    fn from(bytes: [u8; 32]) -> Self {
        Seed(bytes)
    }
}

impl fmt::Debug for Seed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Seed(<redacted>)")
    }
}

impl Zeroize for Seed {
    fn zeroize(&mut self) {
        self.0.zeroize();
    }
}

impl Drop for Seed {
    fn drop(&mut self) {
        self.0.zeroize();
    }
}

impl ZeroizeOnDrop for Seed {}

/// The distribution a keystream serves; its tag is the top byte of the stream id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum Distribution {
    /// Uniform modulo each limb's prime, by 128-bit reduction.
    Uniform = 1,
    /// Ternary in {-1, 0, 1}, each with probability about 1/3.
    Ternary = 2,
    /// Centered binomial with eta = 21.
    CenteredBinomial = 3,
}

impl Distribution {
    /// The 8-bit tag in the top byte of the stream id.
    pub const fn tag(self) -> u8 {
        self as u8
    }

    /// The ChaCha20 stream id `tag << 56 | poly_index`. Errors if `poly_index > MAX_POLY_INDEX`.
    pub fn stream_id(self, poly_index: u64) -> Result<u64> {
        if poly_index > MAX_POLY_INDEX {
            return Err(PolyError::InvalidParameter {
                name: "poly_index",
                value: poly_index,
                reason: "a polynomial index must be below 2^56 (the low 56 bits of the ChaCha20 stream id)",
            });
        }
        Ok((u64::from(self.tag()) << 56) | poly_index)
    }
}

/// ChaCha20 block `block_counter` of stream `stream_id` under `seed`, as 16 u32 words (the
/// keystream words `16 * block_counter .. 16 * block_counter + 16` of that stream).
///
/// This is the reference the GPU block function is tested against.
pub fn chacha20_block(seed: &Seed, stream_id: u64, block_counter: u64) -> [u32; CHACHA_BLOCK_WORDS] {
    let mut rng = keystream(seed, stream_id);
    rng.set_word_pos(u128::from(block_counter) * CHACHA_BLOCK_WORDS as u128);
    core::array::from_fn(|_| rng.next_u32())
}

/// `rand_chacha` at word 0 of stream `stream_id`.
///
/// `ChaCha20Rng` keeps a copy of the key that it does not zeroize; it lives only for the call.
fn keystream(seed: &Seed, stream_id: u64) -> ChaCha20Rng {
    let mut rng = ChaCha20Rng::from_seed(seed.0);
    rng.set_stream(stream_id);
    rng
}

fn check_degree(degree: usize) -> Result<()> {
    if !degree.is_power_of_two() || !(MIN_SAMPLING_DEGREE..=MAX_SAMPLING_DEGREE).contains(&degree) {
        return Err(PolyError::InvalidDegree { degree, reason: "sampling needs a power of two in 2^3..=2^17" });
    }
    Ok(())
}

fn check_moduli(moduli: &[Modulus]) -> Result<()> {
    if moduli.is_empty() || moduli.len() > MAX_SAMPLING_LIMBS {
        return Err(PolyError::InvalidModulusCount { count: moduli.len(), max: MAX_SAMPLING_LIMBS });
    }
    Ok(())
}

fn check_length(expected: usize, actual: usize) -> Result<()> {
    if expected != actual {
        return Err(PolyError::LengthMismatch { expected, actual });
    }
    Ok(())
}

/// Samples a polynomial uniformly modulo each of `moduli` into `out` (limb-major, length
/// `moduli.len() * degree`, canonical values).
///
/// Coefficient `j` of limb `i` is the little-endian 128-bit integer formed by keystream words
/// `4 * (i * degree + j) .. + 4` of stream [`Distribution::Uniform`]`.stream_id(poly_index)`,
/// reduced modulo `moduli[i]`. Errors (leaving `out` untouched) on a degree that is not a power of
/// two in `2^3..=2^17`, an empty basis or one of more than [`MAX_SAMPLING_LIMBS`] moduli, `poly_index >= 2^56`, or a
/// wrong `out` length.
pub fn sample_uniform(moduli: &[Modulus], degree: usize, seed: &Seed, poly_index: u64, out: &mut [u64]) -> Result<()> {
    check_degree(degree)?;
    check_moduli(moduli)?;
    check_length(moduli.len() * degree, out.len())?;
    let mut rng = keystream(seed, Distribution::Uniform.stream_id(poly_index)?);
    // Coefficients are consumed in storage order, so the keystream is read sequentially.
    for (modulus, limb) in moduli.iter().zip(out.chunks_exact_mut(degree)) {
        for value in limb {
            let low = rng.next_u64();
            let high = rng.next_u64();
            *value = modulus.reduce_u128((u128::from(high) << 64) | u128::from(low));
        }
    }
    Ok(())
}

/// Fills `out` (length `degree`) with a ternary polynomial in {-1, 0, 1}: coefficient `j` is
/// `(u64 word j) mod 3 - 1` of stream [`Distribution::Ternary`]`.stream_id(poly_index)` (bias
/// about 2^-64, see the module doc). Errors as [`sample_uniform`], leaving `out` untouched.
pub fn sample_ternary_signed(degree: usize, seed: &Seed, poly_index: u64, out: &mut [i64]) -> Result<()> {
    check_degree(degree)?;
    check_length(degree, out.len())?;
    let mut rng = keystream(seed, Distribution::Ternary.stream_id(poly_index)?);
    for value in out {
        *value = (rng.next_u64() % 3) as i64 - 1;
    }
    Ok(())
}

/// Fills `out` (length `degree`) with a centered binomial polynomial, eta = 21: coefficient `j`
/// is `popcount(u & (2^21 - 1)) - popcount((u >> 21) & (2^21 - 1))` for `u` = u64 word `j` of
/// stream [`Distribution::CenteredBinomial`]`.stream_id(poly_index)`; values in `[-21, 21]`,
/// variance 21/2. Errors as [`sample_uniform`], leaving `out` untouched.
pub fn sample_cbd_signed(degree: usize, seed: &Seed, poly_index: u64, out: &mut [i64]) -> Result<()> {
    check_degree(degree)?;
    check_length(degree, out.len())?;
    let mut rng = keystream(seed, Distribution::CenteredBinomial.stream_id(poly_index)?);
    const MASK: u64 = (1 << CBD_ETA) - 1;
    for value in out {
        let word = rng.next_u64();
        let positive = (word & MASK).count_ones();
        let negative = ((word >> CBD_ETA) & MASK).count_ones();
        *value = i64::from(positive) - i64::from(negative);
    }
    Ok(())
}

/// Stores the signed coefficients `signed` (length N) in every limb of `out` (limb-major, length
/// `moduli.len() * N`) as canonical residues: `out[i * N + j] = signed[j] mod moduli[i]`.
///
/// Errors (leaving `out` untouched) on an empty basis or one of more than [`MAX_SAMPLING_LIMBS`] moduli, an empty
/// `signed`, or a wrong `out` length.
pub fn reduce_signed_into_limbs(moduli: &[Modulus], signed: &[i64], out: &mut [u64]) -> Result<()> {
    check_moduli(moduli)?;
    if signed.is_empty() {
        return Err(PolyError::InvalidDegree { degree: 0, reason: "there are no coefficients to reduce" });
    }
    check_length(moduli.len() * signed.len(), out.len())?;
    for (modulus, limb) in moduli.iter().zip(out.chunks_exact_mut(signed.len())) {
        for (value, &x) in limb.iter_mut().zip(signed) {
            *value = modulus.from_i64(x);
        }
    }
    Ok(())
}

/// [`sample_ternary_signed`] followed by [`reduce_signed_into_limbs`]: the same ternary integer in
/// every limb of `out` (limb-major, length `moduli.len() * degree`).
pub fn sample_ternary(moduli: &[Modulus], degree: usize, seed: &Seed, poly_index: u64, out: &mut [u64]) -> Result<()> {
    check_moduli(moduli)?;
    check_length(moduli.len() * degree, out.len())?;
    let mut signed = vec![0i64; degree];
    sample_ternary_signed(degree, seed, poly_index, &mut signed)?;
    reduce_signed_into_limbs(moduli, &signed, out)
}

/// [`sample_cbd_signed`] followed by [`reduce_signed_into_limbs`]: the same binomial integer in
/// every limb of `out` (limb-major, length `moduli.len() * degree`).
pub fn sample_cbd(moduli: &[Modulus], degree: usize, seed: &Seed, poly_index: u64, out: &mut [u64]) -> Result<()> {
    check_moduli(moduli)?;
    check_length(moduli.len() * degree, out.len())?;
    let mut signed = vec![0i64; degree];
    sample_cbd_signed(degree, seed, poly_index, &mut signed)?;
    reduce_signed_into_limbs(moduli, &signed, out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stream_ids_put_the_tag_in_the_top_byte() {
        assert_eq!(Distribution::Uniform.stream_id(5).unwrap(), (1 << 56) | 5);
        assert_eq!(Distribution::Ternary.stream_id(MAX_POLY_INDEX).unwrap(), (2 << 56) | MAX_POLY_INDEX);
        assert_eq!(Distribution::CenteredBinomial.stream_id(0).unwrap(), 3 << 56);
        assert!(matches!(
            Distribution::Uniform.stream_id(1 << 56),
            Err(PolyError::InvalidParameter { value, .. }) if value == 1 << 56
        ));
    }

    #[test]
    fn seed_debug_is_redacted_and_zeroize_clears() {
        let mut seed = Seed::from([7u8; 32]);
        assert_eq!(format!("{seed:?}"), "Seed(<redacted>)");
        seed.zeroize();
        assert_eq!(seed.as_bytes(), &[0u8; 32]);
    }

    #[test]
    fn key_words_are_little_endian() {
        let bytes: [u8; 32] = core::array::from_fn(|k| k as u8);
        let words = Seed::from(bytes).key_words();
        assert_eq!(words[0], 0x0302_0100);
        assert_eq!(words[7], 0x1f1e_1d1c);
    }

    #[test]
    fn os_seeds_differ() {
        let a = Seed::from_os().unwrap();
        let b = Seed::from_os().unwrap();
        assert_ne!(a.as_bytes(), b.as_bytes());
    }
}
