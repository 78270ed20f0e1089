//! The SIMD slot layout every batch encoder (BFV, BGV) shares: SEAL's two rows of `N/2`
//! slots, slot `i` of row 0 at the root `psi^(3^i)` and slot `i` of row 1 at `psi^(-3^i)`
//! (`psi` a primitive `2N`-th root modulo `t`), so that the Galois element `3^k mod 2N`
//! rotates both rows by `k` and `2N - 1` swaps them (galois_key.rs).

/// `slot_position[s]`: where slot `s`'s evaluation sits in the output of a negacyclic NTT of
/// size `degree` (a power of two) in bit-reversed order, whose output `j` is the value at
/// `psi^(2 bitrev(j) + 1)`.
pub fn slot_positions(degree: usize) -> Vec<usize> {
    use poly::ntt::bit_reverse;
    let n = degree;
    let two_n = 2 * n;
    let log_n = n.trailing_zeros();
    let row = n / 2;
    let mut slot_position = vec![0usize; n];
    let mut power = 1usize; // 3^i mod 2N
    for i in 0..row {
        // Exponent e sits at j = bitrev((e - 1) / 2).
        slot_position[i] = bit_reverse((power - 1) / 2, log_n);
        slot_position[row + i] = bit_reverse((two_n - power - 1) / 2, log_n);
        power = power * 3 % two_n;
    }
    slot_position
}

#[cfg(test)]
mod tests {
    use super::slot_positions;

    /// The positions are a permutation, and at N = 8 they are the hand-computed ones:
    /// 3^i mod 16 = 1, 3, 9, 11 (row 0) and 15, 13, 7, 5 (row 1); exponent e sits at
    /// bitrev3((e - 1) / 2): 0, 4, 1, 5 and 7, 3, 6, 2.
    #[test]
    fn positions_are_the_permutation_of_seals_layout() {
        assert_eq!(slot_positions(8), vec![0, 4, 1, 5, 7, 3, 6, 2]);
        for log_n in 1..=12 {
            let mut sorted = slot_positions(1 << log_n);
            sorted.sort_unstable();
            assert_eq!(sorted, (0..1usize << log_n).collect::<Vec<_>>());
        }
    }
}
