//! [`BfvError`]: the core's error type ([`rlwe::RlweError`]), which every scheme shares, so a
//! failure has the same shape under BFV and BGV.

/// Errors of the BFV layer: the core's [`rlwe::RlweError`]. Each variant carries the
/// offending values; an operation that returns an error leaves its inputs untouched.
pub type BfvError = rlwe::RlweError;
