//! [`CyclotomicError`].

/// Errors of the cyclotomic rings.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CyclotomicError {
    #[error(transparent)]
    Arith(#[from] modarith::ModArithError),

    #[error(transparent)]
    Poly(#[from] poly::PolyError),

    #[error("invalid parameter {name} = {value}: {requirement}")]
    InvalidParameter { name: &'static str, value: u64, requirement: String },

    #[error("{what}: expected {expected} values, got {actual}")]
    LengthMismatch { what: &'static str, expected: usize, actual: usize },

    #[error("a coefficient of Phi_{m} does not fit 64 bits")]
    CoefficientOverflow { m: u64 },

    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for CyclotomicError {
    fn from(error: poly_cuda::GpuError) -> Self {
        CyclotomicError::Backend(Box::new(error))
    }
}
