//! The objects a context makes: keys, plaintexts, ciphertexts. Each holds its value (type-erased,
//! [`Object`]) and its context; each writes itself as bytes (`to_bytes`) that the context's
//! `load_*` reads back with the library's validation; none prints its words.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::context::Context;
use crate::engine::{Kind, Object};

/// The methods every object shares: its context, its bytes, and its bytes as its pickle.
macro_rules! context_object {
    ($name:ident, $kind:expr, $doc:literal) => {
        #[doc = $doc]
        #[pyclass(module = "hegpu", frozen)]
        pub struct $name {
            pub(crate) object: Object,
            pub(crate) context: Py<Context>,
        }

        impl $name {
            pub(crate) fn new(object: Object, context: Py<Context>) -> Self {
                Self { object, context }
            }
        }

        #[pymethods]
        impl $name {
            /// The context that made or loaded this object.
            #[getter]
            fn context(&self, py: Python<'_>) -> Py<Context> {
                self.context.clone_ref(py)
            }

            /// The object's bytes (the library's format; `Context.load_*` reads them).
            fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
                let engine = &self.context.get().engine;
                let object = &self.object;
                let bytes = py.detach(|| engine.to_bytes($kind, object))?;
                Ok(PyBytes::new(py, &bytes))
            }

            fn __repr__(&self) -> String {
                self.context.get().describe_object($kind, &self.object)
            }
        }
    };
}

context_object!(SecretKey, Kind::SecretKey, "A secret key: decrypts; keep it with its owner.");
context_object!(PublicKey, Kind::PublicKey, "A public key: encrypts.");
context_object!(RelinKey, Kind::RelinKey, "A relinearization key: brings a product's three polynomials back to two.");
context_object!(GaloisKeys, Kind::GaloisKeys, "Galois keys: rotations and automorphisms, one key per Galois element.");
context_object!(Plaintext, Kind::Plaintext, "A plaintext: a polynomial modulo t (encoded slots or coefficients).");
context_object!(
    Ciphertext,
    Kind::Ciphertext,
    "A ciphertext. Operators: `a + b`, `a - b`, `-a`, `a * b` with ciphertexts, plaintexts and integers (`a * b` of two ciphertexts relinearizes with the context's bound key when one is bound)."
);

#[pymethods]
impl GaloisKeys {
    /// The Galois elements the keys hold.
    #[getter]
    fn elements(&self, py: Python<'_>) -> PyResult<Vec<u64>> {
        let engine = &self.context.get().engine;
        let object = &self.object;
        Ok(py.detach(|| engine.galois_elements(object))?)
    }
}
