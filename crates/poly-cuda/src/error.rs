use cudarc::driver::{DriverError, sys::CUresult};
use poly::PolyError;
use thiserror::Error;

/// Errors of the GPU backend. Each variant carries the offending values; an operation that
/// returns an error leaves its borrowed inputs untouched.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum GpuError {
    /// The CUDA driver library (`libcuda.so`) could not be loaded: no NVIDIA driver here.
    #[error("the CUDA driver library could not be loaded (is an NVIDIA driver installed?)")]
    DriverNotLoadable,
    /// The driver loaded and reports no CUDA device at all.
    #[error("no CUDA device: {reason}")]
    NoDevice {
        /// What the driver reported.
        reason: String,
    },
    /// There are devices, but not one with this ordinal.
    #[error("no CUDA device {ordinal}: the driver reports {count}")]
    NoSuchDevice {
        /// The device ordinal asked for.
        ordinal: usize,
        /// The number of devices the driver reports.
        count: usize,
    },
    /// The driver is installed and a device may be there, but initializing the driver or
    /// creating the device's context failed (driver too old, device busy or in an exclusive
    /// compute mode, out of memory, ...): the driver's message says which.
    #[error("CUDA device {ordinal} could not be used: {reason}")]
    DeviceUnusable {
        /// The device's ordinal.
        ordinal: usize,
        /// The driver's message.
        reason: String,
    },
    /// A device allocation failed for lack of memory.
    #[error("out of device memory allocating {bytes} bytes")]
    OutOfMemory {
        /// The size of the failed allocation, in bytes.
        bytes: usize,
    },
    /// Operands live on different devices or belong to different GPU contexts.
    #[error("operands belong to different GPU contexts or devices")]
    WrongContext,
    /// A host or device buffer has the wrong length.
    #[error("expected {expected} values, got {actual}")]
    LengthMismatch {
        /// The length the buffer must have.
        expected: usize,
        /// Its length.
        actual: usize,
    },
    /// A kernel module or function could not be loaded.
    #[error("kernel {module}::{function} could not be loaded: {reason}")]
    KernelLoad {
        /// The kernel's module.
        module: String,
        /// The kernel function.
        function: String,
        /// Why it could not be loaded.
        reason: String,
    },
    /// The ring context needs something this backend does not implement yet.
    #[error("not supported by the GPU backend: {what}")]
    Unsupported {
        /// What is not supported.
        what: String,
    },
    /// Any other CUDA driver failure, with the call that failed.
    #[error("CUDA driver call `{call}` failed: {reason}")]
    Driver {
        /// The driver call that failed.
        call: &'static str,
        /// The driver's error.
        reason: String,
    },
    /// An error of the polynomial layer (bad parameters, mismatched contexts, bad values).
    #[error(transparent)]
    Poly(#[from] PolyError),
    /// A device pool was asked for no device or no stream, or one of its items was left
    /// unprocessed after an earlier item failed.
    #[error("device pool: {reason}")]
    Pool {
        /// What went wrong.
        reason: String,
    },
}

impl GpuError {
    /// Wraps a driver error of `call`.
    pub fn driver(call: &'static str, error: DriverError) -> Self {
        GpuError::Driver { call, reason: error.to_string() }
    }

    /// Wraps the driver error of an allocation of `bytes` bytes.
    pub fn alloc(bytes: usize, error: DriverError) -> Self {
        if error.0 == CUresult::CUDA_ERROR_OUT_OF_MEMORY {
            GpuError::OutOfMemory { bytes }
        } else {
            GpuError::driver("memory allocation", error)
        }
    }
}

/// Result type of this crate.
pub type Result<T> = core::result::Result<T, GpuError>;
