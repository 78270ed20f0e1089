//! [`CyclotomicError`].

/// Errors of the GPU transform (`gpu::GpuBluestein`, feature `cuda`): a wrong input length, or the
/// device's.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CyclotomicError {
    /// A buffer has the wrong length.
    #[error("{what}: expected {expected} values, got {actual}")]
    LengthMismatch {
        /// The buffer.
        what: &'static str,
        /// The length it must have.
        expected: usize,
        /// Its length.
        actual: usize,
    },

    /// An error of the device (GPU) backend.
    #[error("backend error: {0}")]
    Backend(#[source] Box<dyn std::error::Error + Send + Sync + 'static>),
}

#[cfg(feature = "cuda")]
impl From<poly_cuda::GpuError> for CyclotomicError {
    fn from(error: poly_cuda::GpuError) -> Self {
        CyclotomicError::Backend(Box::new(error))
    }
}
