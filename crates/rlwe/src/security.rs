//! The HE Standard's security table: the largest `log2(Q * P)` for a security level, by ring
//! degree (ternary secret, error of standard deviation about 3.2); docs/parameters.md gives the
//! table with its sources.

/// Largest `log2(Q * P)` for 128-bit classical security: the HE Standard's table (Albrecht
/// et al., "Homomorphic Encryption Standard", 2018), with `N = 2^16, 2^17` from OpenFHE's
/// tables.
pub const SECURITY_TABLE_128: [(usize, u64); 8] = [
    (1 << 10, 27),
    (1 << 11, 54),
    (1 << 12, 109),
    (1 << 13, 218),
    (1 << 14, 438),
    (1 << 15, 881),
    (1 << 16, 1747),
    (1 << 17, 3523),
];

/// The largest `log2(Q * P)` for 128-bit classical security at any ring dimension `n` (the
/// degree `phi(m)` of a ring `Z[x]/Phi_m`), `None` below `2^10` or above `2^17`: the table's
/// value at its rows; between two rows `(N, b)` and `(2N, b')`, the smaller of the linear
/// interpolation and the lower row scaled to `n`, `b n / N`, rounded down. The table's bound
/// per dimension is nearly constant (it rises from 2^14 to 2^15 and falls from 2^15 to 2^16),
/// so the smaller of the two straight lines is the conservative reading either way. (Moved
/// from `cyclotomic::params`, which re-exports it as `max_log_qp_128`.)
pub fn max_modulus_bits_128_dimension(n: usize) -> Option<u64> {
    let (lower_n, lower_bits) = SECURITY_TABLE_128.iter().rev().find(|&&(rows, _)| rows <= n).copied()?;
    if lower_n == n {
        return Some(lower_bits);
    }
    let (upper_n, upper_bits) = SECURITY_TABLE_128.iter().find(|&&(rows, _)| rows > n).copied()?;
    let (n, lower_n, upper_n) = (n as u128, lower_n as u128, upper_n as u128);
    let scaled = u128::from(lower_bits) * n / lower_n;
    let interpolated =
        u128::from(lower_bits) + u128::from(upper_bits - lower_bits) * (n - lower_n) / (upper_n - lower_n);
    Some(scaled.min(interpolated) as u64)
}

/// The largest `log2(Q * P)` that 128-bit classical security allows at degree `degree`, or
/// `None` for a degree outside the table.
pub fn max_modulus_bits_128(degree: usize) -> Option<u64> {
    SECURITY_TABLE_128.iter().find(|&&(n, _)| n == degree).map(|&(_, bits)| bits)
}
