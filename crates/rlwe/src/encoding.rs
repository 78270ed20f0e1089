//! Plaintexts and encoders, written once for every scheme (over [`SchemeParameters`]).
//!
//! A [`Plaintext`] is an element of `R_t = Z_t[x]/(x^N + 1)`: `N` coefficients in `[0, t)`,
//! on the host. Two encoders map user values to plaintexts:
//!
//! - [`CoefficientEncoder`] (any `t >= 2`): value `j` is coefficient `j`. With `t = 2` the
//!   ciphertext operations are XOR (add) and AND-with-carry-free polynomial products (mul) of
//!   bit vectors, the Boolean circuits of the seed papers.
//! - [`BatchEncoder`] (prime `t = 1 mod 2N`): `N` slots in SEAL's layout, two rows of `N/2`,
//!   on which additions and multiplications act slot-wise. Slot `i` of row 0 (`i < N/2`)
//!   holds the plaintext polynomial's value at `psi^(3^i mod 2N)`, slot `i` of row 1 (index
//!   `N/2 + i`) its value at `psi^(-3^i mod 2N)`, where `psi` is the primitive `2N`-th root of
//!   unity modulo `t` of [`modarith::primitive_root_of_unity`] ([`crate::slots`]). So the
//!   automorphism `x -> x^3` rotates both rows left by one slot (`new[i] = old[i + 1]` within a
//!   row) and `x -> x^(2N - 1)` swaps the rows, as in SEAL. (SEAL picks its own `psi`; the
//!   same values can therefore give a different polynomial than SEAL's, by a rotation of the
//!   rows.) The batch encoder's transform can also run on a scheme context's backend
//!   ([`BatchEncoder::encode_resident`], resident.rs).
//!
//! Over a ring `Z_q[x]/Phi_m` a plaintext is an element of `Z_t[x]/Phi_m` (`phi(m)`
//! coefficients), and the batch encoder's slots (prime `t = 1 mod m`) are the `phi(m)` values
//! at the primitive `m`-th roots modulo `t` ([`slots::CyclotomicSlots`]), encoded on the host.

use core::fmt;
use std::sync::Arc;

use crate::scheme::{SchemeParameters, check_same};
use crate::slots::{self, SlotEncoder, SlotError};
use crate::{Result, RlweError};

/// An element of `R_t`: `N` coefficients in `[0, t)`, on the host, tied to its parameters.
pub struct Plaintext<P: SchemeParameters> {
    params: Arc<P>,
    coefficients: Vec<u64>,
}

impl<P: SchemeParameters> Clone for Plaintext<P> {
    fn clone(&self) -> Self {
        Self { params: Arc::clone(&self.params), coefficients: self.coefficients.clone() }
    }
}

impl<P: SchemeParameters> fmt::Debug for Plaintext<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Plaintext").field("params", &self.params).field("coefficients", &self.coefficients).finish()
    }
}

impl<P: SchemeParameters> PartialEq for Plaintext<P> {
    fn eq(&self, other: &Self) -> bool {
        self.params == other.params && self.coefficients == other.coefficients
    }
}

impl<P: SchemeParameters> Eq for Plaintext<P> {}

impl<P: SchemeParameters> Plaintext<P> {
    /// The plaintext with these coefficients (fewer than `N` are padded with zeros).
    ///
    /// Errors with [`RlweError::TooManyValues`] for more than `N` values and with
    /// [`RlweError::PlaintextOutOfRange`] for a value not below `t`.
    pub fn from_coefficients(params: &Arc<P>, coefficients: &[u64]) -> Result<Self> {
        let checked = slots::coefficients(coefficients, params.degree(), params.plaintext_modulus())
            .map_err(|e| refused(e, "plaintext coefficients"))?;
        Ok(Self { params: Arc::clone(params), coefficients: checked })
    }

    /// A plaintext of `coefficients` that the caller guarantees are in `[0, t)`: a
    /// decryption's output, which the schemes' backends return reduced modulo `t` (both
    /// backends reduce every value modulo `t` by construction, and the GPU = CPU tests compare
    /// them word for word). No range scan, which would cost as much as the copy of the words
    /// from the device; a debug build checks anyway. Errors with [`RlweError::TooManyValues`]
    /// for more than `N` values; fewer are padded with zeros.
    pub fn from_reduced_coefficients(params: &Arc<P>, mut coefficients: Vec<u64>) -> Result<Self> {
        let n = params.degree();
        if coefficients.len() > n {
            return Err(RlweError::TooManyValues {
                what: "plaintext coefficients",
                max: n,
                actual: coefficients.len(),
            });
        }
        debug_assert!(coefficients.iter().all(|&v| v < params.plaintext_modulus()), "unreduced decryption output");
        coefficients.resize(n, 0);
        Ok(Self { params: Arc::clone(params), coefficients })
    }

    /// The constant plaintext `c mod t` (the value `c` in every batching slot): what the
    /// schemes' scalar additions add.
    pub fn constant(params: &Arc<P>, c: u64) -> Result<Self> {
        Self::from_coefficients(params, &[c % params.plaintext_modulus()])
    }

    /// The zero plaintext.
    pub fn zero(params: &Arc<P>) -> Self {
        Self { params: Arc::clone(params), coefficients: vec![0; params.degree()] }
    }

    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<P> {
        &self.params
    }

    /// The `N` coefficients, in `[0, t)`.
    pub fn coefficients(&self) -> &[u64] {
        &self.coefficients
    }

    /// The coefficients centered in `(-t/2, t/2]`.
    pub fn centered_coefficients(&self) -> Vec<i64> {
        let t = self.params.plaintext_modulus();
        self.coefficients.iter().map(|&c| slots::center(c, t)).collect()
    }

    /// Errors with [`RlweError::ParameterMismatch`] unless `params` equals this plaintext's.
    pub fn check_params(&self, params: &P) -> Result<()> {
        check_same(&*self.params, params, "plaintext")
    }

    /// Built from exactly `N` values already checked to be below `t`.
    fn from_reduced(params: &Arc<P>, coefficients: Vec<u64>) -> Self {
        debug_assert!(coefficients.len() == params.degree());
        Self { params: Arc::clone(params), coefficients }
    }
}

/// The slot layout's reason for refusing values, as the core's error (`what` names them).
pub(crate) fn refused(error: SlotError, what: &'static str) -> RlweError {
    match error {
        SlotError::TooManyValues { max, actual } => RlweError::TooManyValues { what, max, actual },
        SlotError::OutOfRange { index, value, modulus } => RlweError::PlaintextOutOfRange { index, value, modulus },
        SlotError::SignedOutOfRange { index, value, modulus } => {
            RlweError::SignedPlaintextOutOfRange { index, value, modulus }
        }
        SlotError::BatchingUnsupported { plaintext_modulus, degree } => {
            RlweError::BatchingUnsupported { plaintext_modulus, degree }
        }
        SlotError::Poly(e) => RlweError::Poly(e),
    }
}

/// At most `n` signed values in `(-t/2, t/2]`, reduced into `[0, t)` (`what` names them).
fn reduce_signed(values: &[i64], n: usize, t: u64, what: &'static str) -> Result<Vec<u64>> {
    if values.len() > n {
        return Err(RlweError::TooManyValues { what, max: n, actual: values.len() });
    }
    slots::reduce_signed(values, t).map_err(|e| refused(e, what))
}

/// Values as plaintext coefficients, for any `t >= 2`.
pub struct CoefficientEncoder<P: SchemeParameters> {
    params: Arc<P>,
}

impl<P: SchemeParameters> Clone for CoefficientEncoder<P> {
    fn clone(&self) -> Self {
        Self { params: Arc::clone(&self.params) }
    }
}

impl<P: SchemeParameters> fmt::Debug for CoefficientEncoder<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CoefficientEncoder").field("params", &self.params).finish()
    }
}

impl<P: SchemeParameters> CoefficientEncoder<P> {
    /// An encoder for `params`.
    pub fn new(params: &Arc<P>) -> Self {
        Self { params: Arc::clone(params) }
    }

    /// Value `j` becomes coefficient `j` (at most `N` values in `[0, t)`, the rest zero).
    /// Errors as [`Plaintext::from_coefficients`].
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext<P>> {
        Plaintext::from_coefficients(&self.params, values)
    }

    /// Signed values in `(-t/2, t/2]` as coefficients. Errors with
    /// [`RlweError::SignedPlaintextOutOfRange`] or [`RlweError::TooManyValues`].
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext<P>> {
        let n = self.params.degree();
        let mut reduced = reduce_signed(values, n, self.params.plaintext_modulus(), "plaintext coefficients")?;
        reduced.resize(n, 0);
        Ok(Plaintext::from_reduced(&self.params, reduced))
    }

    /// The `N` coefficients, in `[0, t)`. Errors if `plaintext` has other parameters.
    pub fn decode(&self, plaintext: &Plaintext<P>) -> Result<Vec<u64>> {
        plaintext.check_params(&self.params)?;
        Ok(plaintext.coefficients.clone())
    }

    /// The `N` coefficients centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, plaintext: &Plaintext<P>) -> Result<Vec<i64>> {
        plaintext.check_params(&self.params)?;
        Ok(plaintext.centered_coefficients())
    }
}

/// SIMD encoding into `N` slots (two rows of `N/2`, SEAL's layout; see the module doc), for a
/// prime `t = 1 mod 2N`; over `Phi_m`, `phi(m)` slots for a prime `t = 1 mod m`
/// ([`slots::CyclotomicSlots`]). The core's [`SlotEncoder`].
pub struct BatchEncoder<P: SchemeParameters> {
    pub(crate) params: Arc<P>,
    pub(crate) slots: SlotEncoder,
}

impl<P: SchemeParameters> Clone for BatchEncoder<P> {
    fn clone(&self) -> Self {
        Self { params: Arc::clone(&self.params), slots: self.slots.clone() }
    }
}

impl<P: SchemeParameters> fmt::Debug for BatchEncoder<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BatchEncoder").field("params", &self.params).field("slots", &self.slots).finish()
    }
}

impl<P: SchemeParameters> BatchEncoder<P> {
    /// An encoder for `params`. Errors with [`RlweError::BatchingUnsupported`] unless `t` is
    /// a prime `= 1 mod 2N` (over `Phi_m`: `= 1 mod m`, the `phi(m)` slots of
    /// [`slots::CyclotomicSlots`]).
    pub fn new(params: &Arc<P>) -> Result<Self> {
        let slots = SlotEncoder::for_ring(params.plaintext_modulus(), params.core().ring_kind())
            .map_err(|e| refused(e, "batch slots"))?;
        Ok(Self { params: Arc::clone(params), slots })
    }

    /// The number of slots, `N` (two rows of `N/2`).
    pub fn slot_count(&self) -> usize {
        self.slots.slot_count()
    }

    /// Puts `values[s]` in slot `s` (at most `N` values in `[0, t)`; the other slots hold 0).
    /// Errors with [`RlweError::TooManyValues`] or [`RlweError::PlaintextOutOfRange`].
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext<P>> {
        let coefficients = self.slots.encode(values).map_err(|e| refused(e, "batch slots"))?;
        Ok(Plaintext::from_reduced(&self.params, coefficients))
    }

    /// [`encode`](Self::encode) for signed values in `(-t/2, t/2]`.
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext<P>> {
        self.encode(&reduce_signed(values, self.slot_count(), self.params.plaintext_modulus(), "batch slots")?)
    }

    /// The `N` slot values, in `[0, t)`. Errors if `plaintext` has other parameters.
    pub fn decode(&self, plaintext: &Plaintext<P>) -> Result<Vec<u64>> {
        plaintext.check_params(&self.params)?;
        self.slots.decode(&plaintext.coefficients).map_err(|e| refused(e, "batch slots"))
    }

    /// The `N` slot values centered in `(-t/2, t/2]`.
    pub fn decode_signed(&self, plaintext: &Plaintext<P>) -> Result<Vec<i64>> {
        let t = self.params.plaintext_modulus();
        Ok(self.decode(plaintext)?.into_iter().map(|v| slots::center(v, t)).collect())
    }
}
