//! [`BgvError`]: the core's error type ([`rlwe::RlweError`]), which every scheme shares, so a
//! failure has the same shape under BGV and BFV.

/// Errors of the BGV scheme: the core's [`rlwe::RlweError`]. Each variant carries the offending
/// values; inputs are left untouched when one is returned.
pub type BgvError = rlwe::RlweError;
