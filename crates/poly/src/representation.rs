//! Marker types for the two representations of a polynomial, so that an operation that
//! is meaningless in one of them (a coefficient-wise product of coefficients, say) does
//! not compile.

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Coeff {}
    impl Sealed for super::Eval {}
}

/// A representation of a ring element: [`Coeff`] or [`Eval`]. Sealed: no other type
/// implements it.
pub trait Representation:
    sealed::Sealed + Copy + Clone + core::fmt::Debug + Default + PartialEq + Eq + Send + Sync + 'static
{
    /// `"coeff"` or `"eval"`, for messages and logs.
    const NAME: &'static str;
}

/// Coefficient representation: limb `i` holds the coefficients `a_0, ..., a_{N-1}` of the
/// polynomial modulo `q_i`, in natural order.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Coeff;

/// Evaluation representation: limb `i` holds the output of the context's forward
/// transform modulo `q_i` (for the NTT, `N` evaluations in bit-reversed order; for the
/// DGT and hierarchical DGT, `N/2` Gaussian integers interleaved as `(re, im)` pairs).
/// Products are coordinate-wise (NTT) or Gaussian-coordinate-wise (DGT).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Eval;

impl Representation for Coeff {
    const NAME: &'static str = "coeff";
}

impl Representation for Eval {
    const NAME: &'static str = "eval";
}
