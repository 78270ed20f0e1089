//! The `hegpu` Python package's extension module, `hegpu._native` (PyO3, abi3): BFV and BGV
//! on the CPU or a GPU, numpy arrays in and out, every object as bytes. The Python side
//! (`python/hegpu`) re-exports these classes and adds `hegpu.distributed` (Dask).
//!
//! Layout: `engine` puts one scheme's context on one backend behind an object-safe trait
//! (written once, generic over the core's traits), `schemes` has the two schemes'
//! delegations, `context` the `Context` class, `objects` the keys, plaintexts and
//! ciphertexts, `params` the parameters, `values` the numpy conversions, `pool` the
//! multi-GPU pool, `error` the exceptions.

// PyO3's generated code (argument extraction, class registration) is not ours to document.
#![allow(missing_docs)]
// The classes print through `__repr__` (parameters, level, size; never their words).
#![allow(missing_debug_implementations)]

mod context;
mod engine;
mod error;
mod objects;
mod params;
mod pool;
mod schemes;
mod values;

use pyo3::prelude::*;

/// The number of CUDA devices this build can use (0 without CUDA or without a device).
#[pyfunction]
fn gpu_count() -> usize {
    context::gpu_count()
}

/// Whether the extension was built with CUDA.
#[pyfunction]
fn built_with_cuda() -> bool {
    cfg!(feature = "cuda")
}

#[pymodule]
#[pyo3(name = "_native")]
fn native(module: &Bound<'_, PyModule>) -> PyResult<()> {
    module.add_class::<params::Parameters>()?;
    module.add_class::<context::Context>()?;
    module.add_class::<objects::SecretKey>()?;
    module.add_class::<objects::PublicKey>()?;
    module.add_class::<objects::RelinKey>()?;
    module.add_class::<objects::GaloisKeys>()?;
    module.add_class::<objects::Plaintext>()?;
    module.add_class::<objects::Ciphertext>()?;
    module.add_class::<pool::GpuPool>()?;
    module.add_function(wrap_pyfunction!(gpu_count, module)?)?;
    module.add_function(wrap_pyfunction!(built_with_cuda, module)?)?;
    error::register(module)?;
    module.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
