//! Plaintexts and encoders, as in bfv (same slot layout: `rlwe::slots`).
//!
//! A [`Plaintext`] is an element of `R_t = Z_t[x]/(x^N + 1)`: `N` coefficients in `[0, t)`, on
//! the host. [`CoefficientEncoder`] (any `t >= 2`): value `j` is coefficient `j`.
//! [`BatchEncoder`] (prime `t = 1 mod 2N`): `N` slots in SEAL's layout, two rows of `N/2`,
//! on which additions and multiplications act slot-wise; `x -> x^3` rotates both rows by one
//! and `x -> x^(2N - 1)` swaps them.

use std::sync::Arc;

use modarith::Modulus;
use poly::ntt::NttPlan;

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
        let n = params.degree();
        let t = params.plaintext_modulus();
        if coefficients.len() > n {
            return Err(BgvError::TooManyValues { what: "plaintext coefficients", max: n, actual: coefficients.len() });
        }
        if let Some((index, &value)) = coefficients.iter().enumerate().find(|&(_, &v)| v >= t) {
            return Err(BgvError::PlaintextOutOfRange { index, value, modulus: t });
        }
        let mut padded = coefficients.to_vec();
        padded.resize(n, 0);
        Ok(Self { params: Arc::clone(params), coefficients: padded })
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
    if c > t / 2 { -((t - c) as i64) } else { c as i64 }
}

/// Reduces signed values in `(-t/2, t/2]` into `[0, t)`, or errors naming the first outside.
fn reduce_signed(values: &[i64], t: u64) -> Result<Vec<u64>> {
    let upper = (t / 2) as i64;
    let lower = upper - t as i64;
    values
        .iter()
        .enumerate()
        .map(|(index, &v)| {
            if v > upper || v <= lower {
                Err(BgvError::SignedPlaintextOutOfRange { index, value: v, modulus: t })
            } else if v < 0 {
                Ok((v + t as i64) as u64)
            } else {
                Ok(v as u64)
            }
        })
        .collect()
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
        let mut reduced = reduce_signed(values, self.params.plaintext_modulus())?;
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

/// SIMD encoding into `N` slots (SEAL's layout), for a prime `t = 1 mod 2N`.
#[derive(Debug, Clone)]
pub struct BatchEncoder {
    params: Arc<BgvParameters>,
    plan: NttPlan,
    slot_position: Vec<usize>,
}

impl BatchEncoder {
    /// An encoder for `params`. Errors with [`BgvError::BatchingUnsupported`] unless `t` is a
    /// prime `= 1 mod 2N`.
    pub fn new(params: &Arc<BgvParameters>) -> Result<Self> {
        let n = params.degree();
        let t = params.plaintext_modulus();
        let unsupported = || BgvError::BatchingUnsupported { plaintext_modulus: t, degree: n };
        if !modarith::is_prime(t) || t % (2 * n as u64) != 1 {
            return Err(unsupported());
        }
        let modulus = Modulus::new(t).map_err(|_| unsupported())?;
        let plan = NttPlan::new(modulus, n)?;
        Ok(Self { params: Arc::clone(params), plan, slot_position: rlwe::slots::slot_positions(n) })
    }

    /// The number of slots, `N`.
    pub fn slot_count(&self) -> usize {
        self.slot_position.len()
    }

    /// Puts `values[s]` in slot `s` (at most `N` values in `[0, t)`, the other slots 0).
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        let n = self.slot_count();
        let t = self.params.plaintext_modulus();
        if values.len() > n {
            return Err(BgvError::TooManyValues { what: "batch slots", max: n, actual: values.len() });
        }
        if let Some((index, &value)) = values.iter().enumerate().find(|&(_, &v)| v >= t) {
            return Err(BgvError::PlaintextOutOfRange { index, value, modulus: t });
        }
        let mut evaluations = vec![0u64; n];
        for (&position, &value) in self.slot_position.iter().zip(values) {
            evaluations[position] = value;
        }
        self.plan.inverse_inplace(&mut evaluations)?;
        Ok(Plaintext::from_reduced(&self.params, evaluations))
    }

    /// [`encode`](Self::encode) for signed values in `(-t/2, t/2]`.
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        let n = self.slot_count();
        if values.len() > n {
            return Err(BgvError::TooManyValues { what: "batch slots", max: n, actual: values.len() });
        }
        self.encode(&reduce_signed(values, self.params.plaintext_modulus())?)
    }

    /// The `N` slot values, in `[0, t)`. Errors if `plaintext` has other parameters.
    pub fn decode(&self, plaintext: &Plaintext) -> Result<Vec<u64>> {
        plaintext.check_params(&self.params)?;
        let mut evaluations = plaintext.coefficients.clone();
        self.plan.forward_inplace(&mut evaluations)?;
        Ok(self.slot_position.iter().map(|&position| evaluations[position]).collect())
    }

    /// The `N` slot values centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, plaintext: &Plaintext) -> Result<Vec<i64>> {
        let t = self.params.plaintext_modulus();
        Ok(self.decode(plaintext)?.into_iter().map(|v| center(v, t)).collect())
    }
}
