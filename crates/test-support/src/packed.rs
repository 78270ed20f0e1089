//! Where a word sits in the byte encodings from format version 3 (each polynomial limb packed
//! to its prime's bit width, little-endian bit order: `rlwe::framing`), for tests that tamper
//! with one word. Written here from the format's description, not with the library's packer.

/// The bits a limb modulo `q` is packed to: those of `q - 1`.
pub fn width(q: u64) -> usize {
    (u64::BITS - q.saturating_sub(1).leading_zeros()) as usize
}

/// The bytes of a packed polynomial over `moduli` with `n` words per limb.
pub fn poly_bytes(moduli: &[u64], n: usize) -> usize {
    moduli.iter().map(|&q| (n * width(q)).div_ceil(8)).sum()
}

/// Sets word `index` of limb `limb` of the packed polynomial over `moduli` (`n` words per
/// limb) that starts at byte `start` to `value` (cut to the limb's width).
pub fn set_word(bytes: &mut [u8], start: usize, moduli: &[u64], n: usize, limb: usize, index: usize, value: u64) {
    let limb_start = start + poly_bytes(&moduli[..limb], n);
    let bits = width(moduli[limb]);
    for bit in 0..bits {
        let position = index * bits + bit;
        let (byte, shift) = (limb_start + position / 8, position % 8);
        if (value >> bit) & 1 == 1 {
            bytes[byte] |= 1 << shift;
        } else {
            bytes[byte] &= !(1 << shift);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_land_at_their_bits() {
        // Two limbs of widths 3 (q = 5) and 2 (q = 3), four words each: 12 bits -> 2 bytes,
        // then 8 bits -> 1 byte.
        assert_eq!(poly_bytes(&[5, 3], 4), 3);
        let mut bytes = vec![0u8; 3];
        set_word(&mut bytes, 0, &[5, 3], 4, 0, 1, 0b101);
        assert_eq!(bytes, [0b0010_1000, 0, 0]);
        set_word(&mut bytes, 0, &[5, 3], 4, 1, 3, 0b11);
        assert_eq!(bytes, [0b0010_1000, 0, 0b1100_0000]);
        set_word(&mut bytes, 0, &[5, 3], 4, 0, 2, 0b111);
        assert_eq!(bytes, [0b1110_1000, 0b0000_0001, 0b1100_0000]);
    }
}
