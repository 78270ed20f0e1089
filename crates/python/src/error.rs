//! The binding's errors and the Python exceptions they become: one base class, `HegpuError`,
//! and a subclass per kind of failure, each carrying the library's message. A failed call
//! leaves its inputs as they were (the library's contract; the binding copies nothing back).

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use rlwe::RlweError;

create_exception!(hegpu, HegpuError, PyException, "Every error of hegpu (the library's message is the text).");
create_exception!(hegpu, ParameterError, HegpuError, "Parameters that cannot be built, or an invalid argument.");
create_exception!(
    hegpu,
    MismatchError,
    HegpuError,
    "Operands of other parameters, key sets, levels, sizes, schemes or backends."
);
create_exception!(hegpu, MalformedError, HegpuError, "Bytes that do not load against the context.");
create_exception!(hegpu, MissingKeyError, HegpuError, "An operation needs a key that was not given or not generated.");
create_exception!(
    hegpu,
    NoiseError,
    HegpuError,
    "The noise budget or the modulus chain is spent: the result would not decrypt."
);
create_exception!(hegpu, ValueRangeError, HegpuError, "Plaintext values outside the plaintext modulus, or too many.");
create_exception!(hegpu, DeviceError, HegpuError, "The GPU is missing, or failed.");

/// What a binding call can fail with.
#[derive(Debug)]
pub(crate) enum BindingError {
    /// The library's error.
    Rlwe(RlweError),
    /// An object made by an engine of another scheme or backend.
    WrongObject { kind: &'static str, scheme: &'static str },
    /// Scheme switching between engines that are not BFV and BGV on one backend.
    SchemeSwitch,
    /// No usable GPU, or a build without `cuda`.
    Device(String),
    /// An invalid argument of the binding itself.
    Argument(String),
    /// Values outside `(-t, t)`.
    Range(String),
    /// Parameter bytes that do not load.
    MalformedParameters(String),
}

pub(crate) type Result<T> = core::result::Result<T, BindingError>;

impl From<RlweError> for BindingError {
    fn from(error: RlweError) -> Self {
        BindingError::Rlwe(error)
    }
}

fn rlwe_exception(error: &RlweError) -> PyErr {
    let message = error.to_string();
    match error {
        RlweError::InvalidParameter { .. }
        | RlweError::Insecure { .. }
        | RlweError::BatchingUnsupported { .. }
        | RlweError::Poly(_)
        | RlweError::Rns(_)
        | RlweError::Arith(_) => ParameterError::new_err(message),
        RlweError::KeySetMismatch { .. }
        | RlweError::ParameterMismatch { .. }
        | RlweError::InvalidCiphertextSize { .. }
        | RlweError::LevelMismatch { .. } => MismatchError::new_err(message),
        RlweError::Malformed { .. } => MalformedError::new_err(message),
        RlweError::InvalidGaloisElement { .. }
        | RlweError::MissingGaloisKey { .. }
        | RlweError::MissingRotationKey { .. }
        | RlweError::MissingEvaluationKey { .. } => MissingKeyError::new_err(message),
        RlweError::ModulusChainExhausted { .. }
        | RlweError::NoiseEstimateExceeded { .. }
        | RlweError::NoiseBudgetExhausted { .. } => NoiseError::new_err(message),
        RlweError::PlaintextOutOfRange { .. }
        | RlweError::SignedPlaintextOutOfRange { .. }
        | RlweError::TooManyValues { .. } => ValueRangeError::new_err(message),
        RlweError::Backend(_) => DeviceError::new_err(message),
        // A variant added later: still an hegpu error, with its message.
        #[allow(unreachable_patterns)]
        _ => HegpuError::new_err(message),
    }
}

impl From<BindingError> for PyErr {
    fn from(error: BindingError) -> PyErr {
        match error {
            BindingError::Rlwe(error) => rlwe_exception(&error),
            BindingError::WrongObject { kind, scheme } => MismatchError::new_err(format!(
                "the {kind} was made by a context of another scheme or backend (this context is {scheme})"
            )),
            BindingError::SchemeSwitch => MismatchError::new_err(
                "scheme switching needs a BFV and a BGV context on the same backend (and the same ring and t)",
            ),
            BindingError::Device(message) => DeviceError::new_err(message),
            BindingError::Argument(message) => ParameterError::new_err(message),
            BindingError::Range(message) => ValueRangeError::new_err(message),
            BindingError::MalformedParameters(message) => MalformedError::new_err(message),
        }
    }
}

/// Registers the exception classes in the module.
pub(crate) fn register(module: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = module.py();
    module.add("HegpuError", py.get_type::<HegpuError>())?;
    module.add("ParameterError", py.get_type::<ParameterError>())?;
    module.add("MismatchError", py.get_type::<MismatchError>())?;
    module.add("MalformedError", py.get_type::<MalformedError>())?;
    module.add("MissingKeyError", py.get_type::<MissingKeyError>())?;
    module.add("NoiseError", py.get_type::<NoiseError>())?;
    module.add("ValueRangeError", py.get_type::<ValueRangeError>())?;
    module.add("DeviceError", py.get_type::<DeviceError>())?;
    Ok(())
}
