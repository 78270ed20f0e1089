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

/// The largest `log2(Q * P)` that 128-bit classical security allows at degree `degree`, or
/// `None` for a degree outside the table.
pub fn max_modulus_bits_128(degree: usize) -> Option<u64> {
    SECURITY_TABLE_128.iter().find(|&&(n, _)| n == degree).map(|&(_, bits)| bits)
}
