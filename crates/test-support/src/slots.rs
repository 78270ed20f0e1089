//! Plaintext arithmetic on batching slots, the reference the schemes' circuits are checked
//! against: slot-wise sums and products modulo `t` (in `u128`, exact for any `t < 2^64`),
//! rotations of the two rows of SEAL's layout, random slot values.

use rand::Rng;
use rand::rngs::StdRng;

/// `n` values drawn uniformly from `[0, t)`.
pub fn random_slots(rng: &mut StdRng, n: usize, t: u64) -> Vec<u64> {
    (0..n).map(|_| rng.gen_range(0..t)).collect()
}

/// `op(a[i], b[i], t)` slot by slot.
pub fn slot_op(a: &[u64], b: &[u64], t: u64, op: fn(u128, u128, u128) -> u128) -> Vec<u64> {
    a.iter().zip(b).map(|(&x, &y)| op(u128::from(x), u128::from(y), u128::from(t)) as u64).collect()
}

/// `(x + y) mod t`.
pub fn add_mod(x: u128, y: u128, t: u128) -> u128 {
    (x + y) % t
}

/// `(x - y) mod t`.
pub fn sub_mod(x: u128, y: u128, t: u128) -> u128 {
    (x + t - y) % t
}

/// `x y mod t`.
pub fn mul_mod(x: u128, y: u128, t: u128) -> u128 {
    x * y % t
}

/// Both rows rotated left by one (`new[i] = old[i + 1]` within a row of `len / 2`).
pub fn rotate_rows_left(values: &[u64]) -> Vec<u64> {
    let row = values.len() / 2;
    (0..2).flat_map(|r| (0..row).map(move |i| values[r * row + (i + 1) % row])).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slot_arithmetic_is_modular_and_rows_rotate_apart() {
        let t = (1u64 << 62) + 135;
        assert_eq!(slot_op(&[t - 1, 3], &[t - 1, 5], t, mul_mod), vec![1, 15]);
        assert_eq!(slot_op(&[t - 1], &[2], t, add_mod), vec![1]);
        assert_eq!(slot_op(&[1], &[2], t, sub_mod), vec![t - 1]);
        assert_eq!(rotate_rows_left(&[1, 2, 3, 4, 5, 6]), vec![2, 3, 1, 5, 6, 4]);
    }
}
