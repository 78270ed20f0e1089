//! `hegpu.Parameters`: a scheme's parameter set (a preset, or built from primes' sizes), its
//! bytes, and what it prints.

use std::sync::Arc;

use bfv::{BfvParameters, BfvParametersBuilder, MulVariant};
use bgv_encrypt::{BgvParameters, BgvParametersBuilder};
use poly::RingKind;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};

use crate::engine::SchemeKind;
use crate::error::{BindingError, Result};

/// The builder (BFV's or BGV's: the same methods) given the ciphertext and special primes.
macro_rules! with_moduli {
    ($builder:expr, $ciphertext:expr, $special:expr) => {{
        let builder = match $ciphertext {
            rlwe::ModuliChoice::Bits(bits) => $builder.ciphertext_moduli_bits(&bits),
            rlwe::ModuliChoice::Explicit(primes) => $builder.ciphertext_moduli(&primes),
        };
        match $special {
            rlwe::ModuliChoice::Bits(bits) => builder.special_moduli_bits(&bits),
            rlwe::ModuliChoice::Explicit(primes) => builder.special_moduli(&primes),
        }
    }};
}

/// A scheme's parameters (shared, immutable).
#[derive(Debug, Clone)]
pub(crate) enum Params {
    Bfv(Arc<BfvParameters>),
    Bgv(Arc<BgvParameters>),
}

impl Params {
    pub(crate) fn scheme(&self) -> SchemeKind {
        match self {
            Params::Bfv(_) => SchemeKind::Bfv,
            Params::Bgv(_) => SchemeKind::Bgv,
        }
    }

    fn core(&self) -> &rlwe::RlweParameters {
        match self {
            Params::Bfv(p) => p.core(),
            Params::Bgv(p) => p.core(),
        }
    }

    fn plaintext_modulus(&self) -> u64 {
        match self {
            Params::Bfv(p) => p.plaintext_modulus(),
            Params::Bgv(p) => p.plaintext_modulus(),
        }
    }
}

fn scheme_of(name: &str) -> Result<SchemeKind> {
    match name.to_ascii_lowercase().as_str() {
        "bfv" => Ok(SchemeKind::Bfv),
        "bgv" => Ok(SchemeKind::Bgv),
        _ => Err(BindingError::Argument(format!("unknown scheme '{name}': 'bfv' or 'bgv'"))),
    }
}

/// The parameters of a BFV or BGV scheme: the ring (`x^N + 1`, or `Phi_m` for BGV), the
/// ciphertext primes, the special primes of key switching and the plaintext modulus `t`.
/// Made from a preset (`Parameters.preset`) or from sizes (`Parameters.custom`); every set is
/// checked against the HE Standard's 128-bit table unless `allow_insecure` is given.
#[pyclass(module = "hegpu", frozen, eq)]
#[derive(Debug, Clone)]
pub struct Parameters {
    pub(crate) inner: Params,
}

impl PartialEq for Parameters {
    fn eq(&self, other: &Self) -> bool {
        match (&self.inner, &other.inner) {
            (Params::Bfv(a), Params::Bfv(b)) => a == b,
            (Params::Bgv(a), Params::Bgv(b)) => a == b,
            _ => false,
        }
    }
}

#[pymethods]
impl Parameters {
    /// A preset: `scheme` is `"bfv"` or `"bgv"`; `name` is `"secure"` (128-bit, both schemes),
    /// `"phantom"` (Phantom's sets, both; `hybrid` for BFV's several special primes) or, for
    /// BFV, `"spog-bpavr"` and `"spog-bvma"`; `log_degree` is `log2 N`.
    #[staticmethod]
    #[pyo3(signature = (scheme, name = "secure", log_degree = 13, hybrid = false))]
    fn preset(scheme: &str, name: &str, log_degree: u32, hybrid: bool) -> PyResult<Self> {
        let inner = match (scheme_of(scheme)?, name.to_ascii_lowercase().as_str()) {
            (SchemeKind::Bfv, "secure") => {
                Params::Bfv(bfv::Preset::Secure { log_degree }.build().map_err(BindingError::from)?)
            }
            (SchemeKind::Bfv, "phantom") => {
                Params::Bfv(bfv::Preset::Phantom { log_degree, hybrid }.build().map_err(BindingError::from)?)
            }
            (SchemeKind::Bfv, "spog-bpavr") => {
                Params::Bfv(bfv::Preset::SpogBpavr { log_degree }.build().map_err(BindingError::from)?)
            }
            (SchemeKind::Bfv, "spog-bvma") => {
                Params::Bfv(bfv::Preset::SpogBvma { log_degree }.build().map_err(BindingError::from)?)
            }
            (SchemeKind::Bgv, "secure") => {
                Params::Bgv(bgv_encrypt::Preset::Secure { log_degree }.build().map_err(BindingError::from)?)
            }
            (SchemeKind::Bgv, "phantom") => {
                Params::Bgv(bgv_encrypt::Preset::Phantom { log_degree }.build().map_err(BindingError::from)?)
            }
            (kind, other) => {
                return Err(BindingError::Argument(format!(
                    "no {} preset '{other}' (BFV: secure, phantom, spog-bpavr, spog-bvma; BGV: secure, phantom)",
                    kind.name()
                ))
                .into());
            }
        };
        Ok(Self { inner })
    }

    /// Parameters from sizes or primes. Give the ring as `degree` (`N`, a power of two: `x^N + 1`)
    /// or, for BGV, as `m` (odd: `Phi_m`, degree `phi(m)`); the ciphertext primes as
    /// `ciphertext_moduli_bits` (sizes, generated) or `ciphertext_moduli` (the primes), the special
    /// primes likewise, and `plaintext_modulus`. `variant` is BFV's multiplication: `"hps"` or
    /// `"behz"`.
    #[staticmethod]
    #[pyo3(signature = (
        scheme, *, plaintext_modulus, degree = None, m = None, ciphertext_moduli_bits = None,
        ciphertext_moduli = None, special_moduli_bits = None, special_moduli = None,
        variant = "hps", allow_insecure = false
    ))]
    #[allow(clippy::too_many_arguments)]
    fn custom(
        scheme: &str,
        plaintext_modulus: u64,
        degree: Option<usize>,
        m: Option<usize>,
        ciphertext_moduli_bits: Option<Vec<u32>>,
        ciphertext_moduli: Option<Vec<u64>>,
        special_moduli_bits: Option<Vec<u32>>,
        special_moduli: Option<Vec<u64>>,
        variant: &str,
        allow_insecure: bool,
    ) -> PyResult<Self> {
        let scheme = scheme_of(scheme)?;
        let ring = match (degree, m) {
            (Some(n), None) => RingKind::NegacyclicPowerOfTwo { degree: n },
            (None, Some(m)) => RingKind::Cyclotomic { m },
            _ => return Err(BindingError::Argument("give exactly one of degree (x^N + 1) and m (Phi_m)".into()).into()),
        };
        let moduli = |bits: Option<Vec<u32>>, primes: Option<Vec<u64>>, what: &str| match (bits, primes) {
            (Some(bits), None) => Ok(rlwe::ModuliChoice::Bits(bits)),
            (None, Some(primes)) => Ok(rlwe::ModuliChoice::Explicit(primes)),
            _ => Err(BindingError::Argument(format!("give exactly one of {what}_moduli_bits and {what}_moduli"))),
        };
        let ciphertext = moduli(ciphertext_moduli_bits, ciphertext_moduli, "ciphertext")?;
        let special = moduli(special_moduli_bits, special_moduli, "special")?;
        let inner = match scheme {
            SchemeKind::Bfv => {
                let RingKind::NegacyclicPowerOfTwo { degree } = ring else {
                    return Err(BindingError::Argument(
                        "BFV runs over x^N + 1 (give degree); Phi_m rings are BGV's".into(),
                    )
                    .into());
                };
                let variant = match variant.to_ascii_lowercase().as_str() {
                    "hps" => MulVariant::Hps,
                    "behz" => MulVariant::Behz,
                    other => {
                        return Err(
                            BindingError::Argument(format!("unknown variant '{other}': 'hps' or 'behz'")).into()
                        );
                    }
                };
                let builder = BfvParametersBuilder::new(degree).plaintext_modulus(plaintext_modulus).variant(variant);
                let builder = with_moduli!(builder, ciphertext, special);
                Params::Bfv(builder.allow_insecure(allow_insecure).build().map_err(BindingError::from)?)
            }
            SchemeKind::Bgv => {
                let builder = match ring {
                    RingKind::Cyclotomic { m } => BgvParametersBuilder::new_cyclotomic(m),
                    RingKind::NegacyclicPowerOfTwo { degree } => BgvParametersBuilder::new(degree),
                };
                let builder = builder.plaintext_modulus(plaintext_modulus);
                let builder = with_moduli!(builder, ciphertext, special);
                Params::Bgv(builder.allow_insecure(allow_insecure).build().map_err(BindingError::from)?)
            }
        };
        Ok(Self { inner })
    }

    /// The parameters written by `to_bytes` (JSON: the scheme and the primes), rebuilt and
    /// checked as when first built.
    #[staticmethod]
    fn from_bytes(data: &[u8]) -> PyResult<Self> {
        let malformed = |why: String| BindingError::MalformedParameters(format!("malformed parameters: {why}"));
        let mut value: serde_json::Value = serde_json::from_slice(data).map_err(|e| malformed(e.to_string()))?;
        let scheme = value.get("scheme").and_then(|s| s.as_str()).map(str::to_owned);
        let params = value.get_mut("parameters").map(serde_json::Value::take);
        let (Some(scheme), Some(params)) = (scheme, params) else {
            return Err(malformed("expected an object with 'scheme' and 'parameters'".into()).into());
        };
        let inner = match scheme_of(&scheme)? {
            SchemeKind::Bfv => Params::Bfv(BfvParameters::load(params).map_err(BindingError::from)?),
            SchemeKind::Bgv => Params::Bgv(BgvParameters::load(params).map_err(BindingError::from)?),
        };
        Ok(Self { inner })
    }

    /// The parameters as bytes (JSON), for `from_bytes` on another machine.
    fn to_bytes<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        let params = match &self.inner {
            Params::Bfv(p) => serde_json::to_value(&**p),
            Params::Bgv(p) => serde_json::to_value(&**p),
        }
        .map_err(|e| BindingError::Argument(format!("parameters not serializable: {e}")))?;
        let value = serde_json::json!({ "scheme": self.inner.scheme().name(), "parameters": params });
        Ok(PyBytes::new(py, value.to_string().as_bytes()))
    }

    /// Pickling goes through the bytes.
    fn __reduce__<'py>(&self, py: Python<'py>) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyTuple>)> {
        let constructor = py.get_type::<Parameters>().getattr("from_bytes")?;
        Ok((constructor, PyTuple::new(py, [self.to_bytes(py)?])?))
    }

    /// `"BFV"` or `"BGV"`.
    #[getter]
    fn scheme(&self) -> &'static str {
        self.inner.scheme().name()
    }

    /// The ring degree (`N`, or `phi(m)`).
    #[getter]
    fn degree(&self) -> usize {
        self.inner.core().degree()
    }

    /// `m` of a `Phi_m` ring, `2N` for `x^N + 1`.
    #[getter]
    fn m(&self) -> usize {
        match self.inner.core().ring_kind() {
            RingKind::Cyclotomic { m } => m,
            RingKind::NegacyclicPowerOfTwo { degree } => 2 * degree,
        }
    }

    /// `"x^N + 1"` or `"Phi_m"` (with the numbers).
    #[getter]
    fn ring(&self) -> String {
        match self.inner.core().ring_kind() {
            RingKind::Cyclotomic { m } => format!("Phi_{m}(x)"),
            RingKind::NegacyclicPowerOfTwo { degree } => format!("x^{degree} + 1"),
        }
    }

    /// `t`.
    #[getter]
    fn plaintext_modulus(&self) -> u64 {
        self.inner.plaintext_modulus()
    }

    /// The ciphertext primes `q_0, ..., q_L`.
    #[getter]
    fn ciphertext_moduli(&self) -> Vec<u64> {
        self.inner.core().ciphertext_moduli().to_vec()
    }

    /// The special primes of key switching.
    #[getter]
    fn special_moduli(&self) -> Vec<u64> {
        self.inner.core().special_moduli().to_vec()
    }

    /// The top level `L` (a fresh ciphertext's; level 0 has one prime).
    #[getter]
    fn max_level(&self) -> usize {
        self.inner.core().ciphertext_moduli().len() - 1
    }

    /// The bits of `q` (the product of the ciphertext primes).
    #[getter]
    fn log_q(&self) -> u64 {
        self.inner.core().ciphertext_moduli().iter().map(|&q| u64::from(64 - q.leading_zeros())).sum()
    }

    /// Whether the set is within the HE Standard's 128-bit table.
    #[getter]
    fn is_secure_128(&self) -> bool {
        match &self.inner {
            Params::Bfv(p) => p.is_secure_128(),
            Params::Bgv(p) => p.is_secure_128(),
        }
    }

    fn __repr__(&self) -> String {
        self.describe()
    }
}

impl Parameters {
    /// What the parameters print.
    pub(crate) fn describe(&self) -> String {
        let insecure = if self.is_secure_128() { "" } else { ", beyond the 128-bit table" };
        format!(
            "Parameters({}, ring {}, degree {}, t = {}, {} ciphertext primes ({} bits), {} special{})",
            self.scheme(),
            self.ring(),
            self.degree(),
            self.plaintext_modulus(),
            self.inner.core().ciphertext_moduli().len(),
            self.log_q(),
            self.inner.core().special_moduli().len(),
            insecure
        )
    }
}
