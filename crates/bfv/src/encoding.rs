//! Plaintexts and encoders.
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
//!   unity modulo `t` of [`modarith::primitive_root_of_unity`]. So the automorphism
//!   `x -> x^3` rotates both rows left by one slot (`new[i] = old[i + 1]` within a row) and
//!   `x -> x^(2N - 1)` swaps the rows, as in SEAL. (SEAL picks its own `psi`; the same values
//!   can therefore give a different polynomial than SEAL's, by a rotation of the rows.)

use std::sync::Arc;

use poly::{Eval, Poly};
use rlwe::slots::{self, SlotEncoder, SlotError};

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext};
use crate::resident::ResidentPlaintext;
use crate::{BfvError, BfvParameters, Result};

/// An element of `R_t`: `N` coefficients in `[0, t)`, on the host, tied to its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plaintext {
    params: Arc<BfvParameters>,
    coefficients: Vec<u64>,
}

impl Plaintext {
    /// The plaintext with these coefficients (fewer than `N` are padded with zeros).
    ///
    /// Errors with [`BfvError::TooManyValues`] for more than `N` values and with
    /// [`BfvError::PlaintextOutOfRange`] for a value not below `t`.
    pub fn from_coefficients(params: &Arc<BfvParameters>, coefficients: &[u64]) -> Result<Self> {
        let checked = slots::coefficients(coefficients, params.degree(), params.plaintext_modulus())
            .map_err(|e| slot_error(e, "plaintext coefficients"))?;
        Ok(Self { params: Arc::clone(params), coefficients: checked })
    }

    /// A plaintext of `coefficients` that the caller guarantees are in `[0, t)`: decryption's
    /// output, which [`BfvBackend::decrypt_scale_sum`](crate::BfvBackend::decrypt_scale_sum)
    /// returns reduced modulo `t` (both backends reduce every value modulo `t` by construction,
    /// and the GPU = CPU tests compare them word for word). No range scan, which would cost as
    /// much as the copy of the words from the device; a debug build checks anyway. Errors with
    /// [`BfvError::TooManyValues`] for more than `N` values; fewer are padded with zeros.
    pub(crate) fn from_reduced_coefficients(params: &Arc<BfvParameters>, mut coefficients: Vec<u64>) -> Result<Self> {
        let n = params.degree();
        if coefficients.len() > n {
            return Err(BfvError::TooManyValues { what: "plaintext coefficients", max: n, actual: coefficients.len() });
        }
        debug_assert!(coefficients.iter().all(|&v| v < params.plaintext_modulus()), "unreduced decryption output");
        coefficients.resize(n, 0);
        Ok(Self { params: Arc::clone(params), coefficients })
    }

    /// The zero plaintext.
    pub fn zero(params: &Arc<BfvParameters>) -> Self {
        Self { params: Arc::clone(params), coefficients: vec![0; params.degree()] }
    }

    /// The parameters this plaintext belongs to.
    pub fn params(&self) -> &Arc<BfvParameters> {
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

    /// Built from values already checked to be below `t` (exactly `N` of them).
    pub(crate) fn from_reduced(params: &Arc<BfvParameters>, coefficients: Vec<u64>) -> Self {
        Self { params: Arc::clone(params), coefficients }
    }

    /// Errors with [`BfvError::ParameterMismatch`] unless `params` equals this plaintext's.
    pub(crate) fn check_params(&self, params: &BfvParameters) -> Result<()> {
        if core::ptr::eq(&*self.params, params) || *self.params == *params {
            Ok(())
        } else {
            Err(BfvError::ParameterMismatch { what: "plaintext" })
        }
    }
}

/// `c` in `[0, t)` as the representative in `(-t/2, t/2]`.
pub(crate) fn center(c: u64, t: u64) -> i64 {
    slots::center(c, t)
}

/// The core's reason for refusing values, as this crate's error (`what` names the values).
fn slot_error(error: SlotError, what: &'static str) -> BfvError {
    match error {
        SlotError::TooManyValues { max, actual } => BfvError::TooManyValues { what, max, actual },
        SlotError::OutOfRange { index, value, modulus } => BfvError::PlaintextOutOfRange { index, value, modulus },
        SlotError::SignedOutOfRange { index, value, modulus } => {
            BfvError::SignedPlaintextOutOfRange { index, value, modulus }
        }
        SlotError::BatchingUnsupported { plaintext_modulus, degree } => {
            BfvError::BatchingUnsupported { plaintext_modulus, degree }
        }
        SlotError::Poly(e) => BfvError::Poly(e),
        other => BfvError::InvalidParameter { name: "plaintext", value: 0, requirement: other.to_string() },
    }
}

/// Values as plaintext coefficients, for any `t >= 2`.
#[derive(Debug, Clone)]
pub struct CoefficientEncoder {
    params: Arc<BfvParameters>,
}

impl CoefficientEncoder {
    /// An encoder for `params`.
    pub fn new(params: &Arc<BfvParameters>) -> Self {
        Self { params: Arc::clone(params) }
    }

    /// Value `j` becomes coefficient `j` (at most `N` values in `[0, t)`, the rest zero).
    /// Errors as [`Plaintext::from_coefficients`].
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        Plaintext::from_coefficients(&self.params, values)
    }

    /// Signed values in `(-t/2, t/2]` as coefficients. Errors with
    /// [`BfvError::SignedPlaintextOutOfRange`] or [`BfvError::TooManyValues`].
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        let n = self.params.degree();
        if values.len() > n {
            return Err(BfvError::TooManyValues { what: "plaintext coefficients", max: n, actual: values.len() });
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

/// SIMD encoding into `N` slots (two rows of `N/2`, SEAL's layout; see the module doc), for a
/// prime `t = 1 mod 2N` (the core's [`SlotEncoder`]).
#[derive(Debug, Clone)]
pub struct BatchEncoder {
    params: Arc<BfvParameters>,
    slots: SlotEncoder,
}

impl BatchEncoder {
    /// An encoder for `params`. Errors with [`BfvError::BatchingUnsupported`] unless `t` is a
    /// prime `= 1 mod 2N`.
    pub fn new(params: &Arc<BfvParameters>) -> Result<Self> {
        let slots =
            SlotEncoder::new(params.plaintext_modulus(), params.degree()).map_err(|e| slot_error(e, "batch slots"))?;
        Ok(Self { params: Arc::clone(params), slots })
    }

    /// The number of slots, `N` (two rows of `N/2`).
    pub fn slot_count(&self) -> usize {
        self.slots.slot_count()
    }

    /// Puts `values[s]` in slot `s` (at most `N` values in `[0, t)`; the other slots hold 0).
    /// Errors with [`BfvError::TooManyValues`] or [`BfvError::PlaintextOutOfRange`].
    pub fn encode(&self, values: &[u64]) -> Result<Plaintext> {
        let coefficients = self.slots.encode(values).map_err(|e| slot_error(e, "batch slots"))?;
        Ok(Plaintext::from_reduced(&self.params, coefficients))
    }

    /// [`encode`](Self::encode) with the transform on `context`'s backend: the same plaintext,
    /// left there (on the GPU the `N` slot values are the only words that cross the bus).
    /// Errors as `encode`, and with [`BfvError::ParameterMismatch`] for a context of other
    /// parameters.
    pub fn encode_resident<B: BfvBackend>(
        &self,
        context: &BfvContext<B>,
        values: &[u64],
    ) -> Result<ResidentPlaintext<B>> {
        let ring_t = self.plaintext_ring(context)?;
        let evaluations = self.slots.evaluations(values).map_err(|e| slot_error(e, "batch slots"))?;
        let backend = &context.backend;
        let host = Poly::<Eval>::from_limbs(backend.ring(ring_t), evaluations)?;
        let coefficients = backend.inverse(backend.upload(ring_t, &host).be()?).be()?;
        Ok(context.resident(backend.plain_words_from_poly(coefficients)?))
    }

    /// [`decode`](Self::decode) with the transform on `context`'s backend (on the GPU the `N`
    /// slot values are the only words that cross the bus). Errors with
    /// [`BfvError::ParameterMismatch`] for a plaintext or context of other parameters.
    pub fn decode_resident<B: BfvBackend>(
        &self,
        context: &BfvContext<B>,
        plaintext: &ResidentPlaintext<B>,
    ) -> Result<Vec<u64>> {
        let ring_t = self.plaintext_ring(context)?;
        context.check(plaintext.params(), "plaintext")?;
        let backend = &context.backend;
        let coefficients = backend.poly_from_plain_words(ring_t, plaintext.words())?;
        let evaluations = backend.download(&backend.forward(coefficients).be()?).be()?;
        let evaluations = evaluations.as_slice();
        Ok(self.slots.positions().iter().map(|&position| evaluations[position]).collect())
    }

    /// `context`'s plaintext ring, after checking that `context` has this encoder's parameters.
    fn plaintext_ring<'a, B: BfvBackend>(&self, context: &'a BfvContext<B>) -> Result<&'a B::Context> {
        context.check(&self.params, "batch encoder")?;
        context.ring_t.as_ref().ok_or(BfvError::BatchingUnsupported {
            plaintext_modulus: self.params.plaintext_modulus(),
            degree: self.params.degree(),
        })
    }

    /// [`encode`](Self::encode) for signed values in `(-t/2, t/2]`.
    pub fn encode_signed(&self, values: &[i64]) -> Result<Plaintext> {
        let n = self.slot_count();
        if values.len() > n {
            return Err(BfvError::TooManyValues { what: "batch slots", max: n, actual: values.len() });
        }
        self.encode(
            &slots::reduce_signed(values, self.params.plaintext_modulus()).map_err(|e| slot_error(e, "batch slots"))?,
        )
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

#[cfg(test)]
mod tests {
    use rand::{Rng, SeedableRng, rngs::StdRng};

    use super::*;
    use crate::{BfvParametersBuilder, Preset};
    use modarith::Modulus;

    fn small_params(t: u64) -> Arc<BfvParameters> {
        BfvParametersBuilder::new(1024)
            .ciphertext_moduli_bits(&[60, 60])
            .special_moduli_bits(&[60])
            .plaintext_modulus(t)
            .allow_insecure(true)
            .build()
            .unwrap()
    }

    /// `a(x) -> a(x^g)` on coefficients modulo `t`.
    fn automorphism(a: &[u64], g: usize, t: u64) -> Vec<u64> {
        let n = a.len();
        let mut out = vec![0u64; n];
        for (j, &c) in a.iter().enumerate() {
            let k = j * g % (2 * n);
            if k < n {
                out[k] = c;
            } else {
                out[k - n] = (t - c) % t;
            }
        }
        out
    }

    fn evaluate(a: &[u64], x: u64, m: &Modulus) -> u64 {
        a.iter().rev().fold(0, |acc, &c| m.add(m.mul(acc, x), c))
    }

    #[test]
    fn batch_slots_are_evaluations_at_powers_of_three() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let m = Modulus::new(t).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let mut rng = StdRng::seed_from_u64(1);
        let values: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let pt = encoder.encode(&values).unwrap();
        let psi = modarith::primitive_root_of_unity(&m, 8192).unwrap();
        let psi_inv = m.inv(psi).unwrap();
        for i in [0usize, 1, 2, 77, 2047] {
            let exponent = (0..i).fold(1u64, |acc, _| acc * 3 % 8192); // 3^i mod 2N
            assert_eq!(evaluate(pt.coefficients(), m.pow(psi, exponent), &m), values[i], "row 0 slot {i}");
            assert_eq!(evaluate(pt.coefficients(), m.pow(psi_inv, exponent), &m), values[2048 + i], "row 1 slot {i}");
        }
        assert_eq!(encoder.decode(&pt).unwrap(), values);
    }

    #[test]
    fn batch_products_are_slotwise_and_automorphisms_rotate() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let m = Modulus::new(t).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let mut rng = StdRng::seed_from_u64(2);
        let a: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let b: Vec<u64> = (0..4096).map(|_| rng.gen_range(0..t)).collect();
        let (pa, pb) = (encoder.encode(&a).unwrap(), encoder.encode(&b).unwrap());
        let product = poly::reference::negacyclic_convolution(&m, pa.coefficients(), pb.coefficients()).unwrap();
        let decoded = encoder.decode(&Plaintext::from_coefficients(&params, &product).unwrap()).unwrap();
        let expected: Vec<u64> = a.iter().zip(&b).map(|(&x, &y)| m.mul(x, y)).collect();
        assert_eq!(decoded, expected);

        let row = 2048;
        let rotated = encoder
            .decode(&Plaintext::from_coefficients(&params, &automorphism(pa.coefficients(), 3, t)).unwrap())
            .unwrap();
        for i in 0..row {
            assert_eq!(rotated[i], a[(i + 1) % row]);
            assert_eq!(rotated[row + i], a[row + (i + 1) % row]);
        }
        let swapped = encoder
            .decode(&Plaintext::from_coefficients(&params, &automorphism(pa.coefficients(), 8191, t)).unwrap())
            .unwrap();
        assert_eq!(&swapped[..row], &a[row..]);
        assert_eq!(&swapped[row..], &a[..row]);
    }

    #[test]
    fn batch_encoder_checks_its_input() {
        let params = Preset::Secure { log_degree: 12 }.build().unwrap();
        let t = params.plaintext_modulus();
        let encoder = BatchEncoder::new(&params).unwrap();
        assert!(matches!(
            encoder.encode(&[1, t]),
            Err(BfvError::PlaintextOutOfRange { index: 1, value, modulus }) if value == t && modulus == t
        ));
        assert!(matches!(encoder.encode(&vec![0; 4097]), Err(BfvError::TooManyValues { max: 4096, actual: 4097, .. })));
        let half = (t / 2) as i64;
        assert!(matches!(
            encoder.encode_signed(&[half + 1]),
            Err(BfvError::SignedPlaintextOutOfRange { index: 0, .. })
        ));
        let signed = vec![-half, half, -1, 0, 1];
        assert_eq!(&encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap()[..5], &signed[..]);
        // Short inputs fill the other slots with zero.
        let decoded = encoder.decode(&encoder.encode(&[5, 6]).unwrap()).unwrap();
        assert_eq!(&decoded[..2], &[5, 6]);
        assert!(decoded[2..].iter().all(|&v| v == 0));
        // t = 256 and composite or wrong-residue t cannot batch.
        for t in [256u64, 65537 * 3, 12289, 40961, 12289 * 2 - 1] {
            let p = small_params(t);
            let unsupported = matches!(BatchEncoder::new(&p), Err(BfvError::BatchingUnsupported { .. }));
            assert_eq!(unsupported, !(modarith::is_prime(t) && t % 2048 == 1), "t = {t}");
        }
    }

    #[test]
    fn coefficient_encoder_round_trips_for_any_t() {
        for t in [2u64, 3, 256, 1 << 20, (1 << 40) + 7] {
            let params = small_params(t);
            let encoder = CoefficientEncoder::new(&params);
            let mut rng = StdRng::seed_from_u64(t);
            let values: Vec<u64> = (0..1000).map(|_| rng.gen_range(0..t)).collect();
            let decoded = encoder.decode(&encoder.encode(&values).unwrap()).unwrap();
            assert_eq!(&decoded[..1000], &values[..]);
            assert!(decoded[1000..].iter().all(|&v| v == 0));
            let signed: Vec<i64> = values.iter().map(|&v| center(v, t)).collect();
            assert_eq!(&encoder.decode_signed(&encoder.encode_signed(&signed).unwrap()).unwrap()[..1000], &signed[..]);
            assert!(matches!(encoder.encode(&[t]), Err(BfvError::PlaintextOutOfRange { index: 0, .. })));
        }
        let other = small_params(3);
        let encoder = CoefficientEncoder::new(&small_params(2));
        assert!(matches!(
            encoder.decode(&Plaintext::zero(&other)),
            Err(BfvError::ParameterMismatch { what: "plaintext" })
        ));
    }
}
