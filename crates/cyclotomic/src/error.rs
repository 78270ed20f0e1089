//! [`CyclotomicError`].

/// Errors of the GPU transform (`gpu::GpuBluestein`, feature `cuda`): a wrong input length, or the
/// device's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CyclotomicError {
    #[error("{what}: expected {expected} values, got {actual}")]
    LengthMismatch { what: &'static str, expected: usize, actual: usize },

    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for CyclotomicError {
    fn from(error: poly_cuda::GpuError) -> Self {
        CyclotomicError::Backend(Box::new(error))
    }
}
