//! Parameters at HElib's sizes and the 128-bit security check by `phi(m)`.
//!
//! The security check counts the ring's dimension `phi(m)` (the LWE dimension of the ring
//! `Z[x]/Phi_m`), not `m`. Between two rows `(N, b)` and `(2N, b')` of the HE Standard's table
//! (`rlwe::security`), [`max_log_qp_128`] takes the smaller of the linear interpolation and
//! the lower row scaled to `phi(m)`, `b phi(m) / N`, rounded down: the table's bound per
//! dimension is nearly constant (it rises from 2^14 to 2^15 and falls from 2^15 to 2^16), so
//! the smaller of the two straight lines is the conservative reading either way.

/// An `m` of HElib's tables with its `phi(m)` and Bluestein length `M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HelibM {
    /// `m`.
    pub m: usize,
    /// `phi(m)`.
    pub phi: usize,
    /// The power-of-two length `M >= 2m - 1` of the transform's convolution.
    pub bluestein_length: usize,
}

/// `m` of HElib's bootstrapping tables (its `mValues`, `p = 2` rows) with `phi(m)` from `2^13`
/// to `2^15`: Bluestein lengths `2^15` (`m = 15709`) and `2^16` (the rest), the seed thesis's
/// two lengths, and `m = 35113` (`2^17`).
pub const HELIB_M: [usize; 12] = [15709, 17425, 18631, 21845, 24295, 27305, 27311, 28679, 31775, 32767, 35113, 4369];

/// [`HELIB_M`] with `phi(m)` and `M`.
pub fn helib_m_table() -> Vec<HelibM> {
    HELIB_M
        .iter()
        .map(|&m| HelibM { m, phi: crate::euler_phi(m as u64) as usize, bluestein_length: crate::bluestein_length(m) })
        .collect()
}

/// The largest `log2(Q P)` for 128-bit classical security (ternary secret, error of standard
/// deviation about 3.2) at ring dimension `phi` (module docs); `None` below `2^10` or above
/// `2^17` (outside the table). The rule is the core's
/// ([`rlwe::security::max_modulus_bits_128_dimension`]).
pub use rlwe::security::max_modulus_bits_128_dimension as max_log_qp_128;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_bound_scales_the_lower_row() {
        assert_eq!(max_log_qp_128(1 << 14), Some(438));
        assert_eq!(max_log_qp_128(1 << 15), Some(881));
        // phi(32767) = 27000: 438 * 27000 / 16384 = 721.8, below the interpolation (725.9).
        assert_eq!(max_log_qp_128(27000), Some(721));
        assert_eq!(max_log_qp_128(1000), None);
        assert_eq!(max_log_qp_128(1 << 18), None);
        // phi(35113) = 31104, between 2^14 and 2^15 too; 2^15 .. 2^16 takes the interpolation.
        assert_eq!(max_log_qp_128(49152), Some(881 + 866 / 2));
        for w in rlwe::security::SECURITY_TABLE_128.windows(2) {
            let ((n0, b0), (n1, b1)) = (w[0], w[1]);
            for phi in [n0 + 1, (n0 + n1) / 2, n1 - 1] {
                let bound = max_log_qp_128(phi).unwrap();
                let interpolated = b0 as f64 + (b1 - b0) as f64 * (phi - n0) as f64 / (n1 - n0) as f64;
                let scaled = b0 as f64 * phi as f64 / n0 as f64;
                assert!(bound as f64 <= interpolated.min(scaled) && bound >= b0 && bound <= b1, "phi = {phi}");
            }
        }
        let table = helib_m_table();
        assert_eq!(table[3], HelibM { m: 21845, phi: 16384, bluestein_length: 1 << 16 });
        assert_eq!(table[0].bluestein_length, 1 << 15);
        assert_eq!(table[9].phi, 27000);
    }
}
