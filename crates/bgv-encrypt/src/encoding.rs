//! Plaintexts and encoders: the core's (`rlwe::Plaintext`, `rlwe::BatchEncoder`,
//! `rlwe::CoefficientEncoder`, as bfv's; the slot layout is described there) under BGV's
//! parameters: [`BatchEncoder`] (prime `t = 1 mod 2N`: `N` slots in SEAL's layout, two rows of
//! `N/2`; `x -> x^3` rotates both rows by one and `x -> x^(2N - 1)` swaps them) and
//! [`CoefficientEncoder`] (any `t >= 2`: value `j` is coefficient `j`).

use crate::BgvParameters;

/// An element of `R_t = Z_t[x]/(x^N + 1)`: `N` coefficients in `[0, t)`, on the host, tied to
/// its BGV parameters.
pub type Plaintext = rlwe::Plaintext<BgvParameters>;

/// Values as plaintext coefficients, for any `t >= 2`.
pub type CoefficientEncoder = rlwe::CoefficientEncoder<BgvParameters>;

/// SIMD encoding into `N` slots (SEAL's layout), for a prime `t = 1 mod 2N`.
pub type BatchEncoder = rlwe::BatchEncoder<BgvParameters>;
