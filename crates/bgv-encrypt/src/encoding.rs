//! Plaintexts and encoders, as in bfv (same slot layout: `rlwe::slots`).
//!
//! A [`Plaintext`] is an element of `R_t = Z_t[x]/(x^N + 1)`: `N` coefficients in `[0, t)`, on
//! the host. [`CoefficientEncoder`] (any `t >= 2`): value `j` is coefficient `j`.
//! [`BatchEncoder`] (prime `t = 1 mod 2N`): `N` slots in SEAL's layout, two rows of `N/2`,
//! on which additions and multiplications act slot-wise; `x -> x^3` rotates both rows by one
//! and `x -> x^(2N - 1)` swaps them.

use std::sync::Arc;

use rlwe::slots::{self, SlotEncoder, SlotError};

use crate::{BgvError, BgvParameters, Result};

/// An element of `R_t`: `N` coefficients in `[0, t)`, on the host, tied to its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plaintext {
    params: Arc<BgvParameters>,
    coefficients: Vec<u64>,
}

impl Plaintext {
    /// The plaintext with these coefficients (fewer than `N` are padded with zeros). Errors with
    /// [`BgvError::TooManyValues`] for more than `N` values and with
    /// [`BgvError::PlaintextOutOfRange`] for a value not below `t`.
    pub fn from_coefficients(params: &Arc<BgvParameters>, coefficients: &[u64]) -> Result<Self> {
        let checked = slots::coefficients(coefficients, params.degree(), params.plaintext_modulus())
            .map_err(|e| slot_error(e, "plaintext coefficients"))?;
        Ok(Self { params: Arc::clone(params), coefficients: checked })
    }

    /// Built from exactly `N` values already below `t`.
    pub(crate) fn from_reduced(params: &Arc<BgvParameters>, coefficients: Vec<u64>) -> Self {
        debug_assert!(coefficients.len() == params.degree());
        debug_assert!(coefficients.iter().all(|&v| v < params.plaintext_modulus()));
        Self { params: Arc::clone(params), coefficients }
    }

    /// The zero plaintext.
    pub fn zero(params: &Arc<BgvParameters>) -> Self {
        Self { params: Arc::clone(params), coefficients: vec![0; params.degree()] }
    }

    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<BgvParameters> {
        &self.params
    }

    /// The `N` coefficients, in `[0, t)`.
    pub fn coefficients(&self) -> &[u64] {
        &self.coefficients
    }

    /// The coefficients centered in `(-t/2, t/2]`.
    pub fn centered_coefficients(&self) -> Vec<i64> {
        let t = self.params.plaintext_modulus();
        self.coefficients.iter().map(|&c| center(c, t)).collect()
    }

    /// Errors with [`BgvError::ParameterMismatch`] unless `params` equals this plaintext's.
    pub(crate) fn check_params(&self, params: &BgvParameters) -> Result<()> {
        if core::ptr::eq(&*self.params, params) || *self.params == *params {
            Ok(())
        } else {
            Err(BgvError::ParameterMismatch { what: "plaintext" })
        }
    }
}

/// `c` in `[0, t)` as the representative in `(-t/2, t/2]`.
pub(crate) fn center(c: u64, t: u64) -> i64 {
    slots::center(c, t)
}

/// The core's reason for refusing values, as this crate's error (`what` names the values).
fn slot_error(error: SlotError, what: &'static str) -> BgvError {
    match error {
        SlotError::TooManyValues { max, actual } => BgvError::TooManyValues { what, max, actual },
        SlotError::OutOfRange { index, value, modulus } => BgvError::PlaintextOutOfRange { index, value, modulus },
        SlotError::SignedOutOfRange { index, value, modulus } => {
            BgvError::SignedPlaintextOutOfRange { index, value, modulus }
        }
        SlotError::BatchingUnsupported { plaintext_modulus, degree } => {
            BgvError::BatchingUnsupported { plaintext_modulus, degree }
        }
        SlotError::Poly(e) => BgvError::Poly(e),
        other => BgvError::InvalidParameter { name: "plaintext", value: 0, requirement: other.to_string() },
    }
}

/// Values as plaintext coefficients, for any `t >= 2`.
#[derive(Debug, Clone)]
pub struct CoefficientEncoder {
    params: Arc<BgvParameters>,
}

impl CoefficientEncoder {
    /// An encoder for `params`.
    pub fn new(params: &Arc<BgvParameters>) -> Self {
        Self { params: Arc::clone(params) }
    }

    /// Value `j` becomes coefficient `j`. Errors as [`Plaintext::from_coefficients`].
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        Plaintext::from_coefficients(&self.params, values)
    }

    /// Signed values in `(-t/2, t/2]` as coefficients.
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        let n = self.params.degree();
        if values.len() > n {
            return Err(BgvError::TooManyValues { what: "plaintext coefficients", max: n, actual: values.len() });
        }
        let mut reduced = slots::reduce_signed(values, self.params.plaintext_modulus())
            .map_err(|e| slot_error(e, "plaintext coefficients"))?;
        reduced.resize(n, 0);
        Ok(Plaintext::from_reduced(&self.params, reduced))
    }

    /// The `N` coefficients, in `[0, t)`. Errors if `plaintext` has other parameters.
    pub fn decode(&self, plaintext: &Plaintext) -> Result<Vec<u64>> {
        plaintext.check_params(&self.params)?;
        Ok(plaintext.coefficients.clone())
    }

    /// The `N` coefficients centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, plaintext: &Plaintext) -> Result<Vec<i64>> {
        plaintext.check_params(&self.params)?;
        Ok(plaintext.centered_coefficients())
    }
}

/// SIMD encoding into `N` slots (SEAL's layout), for a prime `t = 1 mod 2N` (the core's
/// [`SlotEncoder`]).
#[derive(Debug, Clone)]
pub struct BatchEncoder {
    params: Arc<BgvParameters>,
    slots: SlotEncoder,
}

impl BatchEncoder {
    /// An encoder for `params`. Errors with [`BgvError::BatchingUnsupported`] unless `t` is a
    /// prime `= 1 mod 2N`.
    pub fn new(params: &Arc<BgvParameters>) -> Result<Self> {
        let slots =
            SlotEncoder::new(params.plaintext_modulus(), params.degree()).map_err(|e| slot_error(e, "batch slots"))?;
        Ok(Self { params: Arc::clone(params), slots })
    }

    /// The number of slots, `N`.
    pub fn slot_count(&self) -> usize {
        self.slots.slot_count()
    }

    /// Puts `values[s]` in slot `s` (at most `N` values in `[0, t)`, the other slots 0).
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        let coefficients = self.slots.encode(values).map_err(|e| slot_error(e, "batch slots"))?;
        Ok(Plaintext::from_reduced(&self.params, coefficients))
    }

    /// [`encode`](Self::encode) for signed values in `(-t/2, t/2]`.
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        let n = self.slot_count();
        if values.len() > n {
            return Err(BgvError::TooManyValues { what: "batch slots", max: n, actual: values.len() });
        }
        let reduced =
            slots::reduce_signed(values, self.params.plaintext_modulus()).map_err(|e| slot_error(e, "batch slots"))?;
        self.encode(&reduced)
    }

    /// The `N` slot values, in `[0, t)`. Errors if `plaintext` has other parameters.
    pub fn decode(&self, plaintext: &Plaintext) -> Result<Vec<u64>> {
        plaintext.check_params(&self.params)?;
        self.slots.decode(&plaintext.coefficients).map_err(|e| slot_error(e, "batch slots"))
    }

    /// The `N` slot values centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, plaintext: &Plaintext) -> Result<Vec<i64>> {
        let t = self.params.plaintext_modulus();
        Ok(self.decode(plaintext)?.into_iter().map(|v| center(v, t)).collect())
    }
}
