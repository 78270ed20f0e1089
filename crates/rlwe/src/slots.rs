//! The SIMD slot layout every batch encoder (BFV, BGV) shares: SEAL's two rows of `N/2`
//! slots, slot `i` of row 0 at the root `psi^(3^i)` and slot `i` of row 1 at `psi^(-3^i)`
//! (`psi` a primitive `2N`-th root modulo `t`), so that the Galois element `3^k mod 2N`
//! rotates both rows by `k` and `2N - 1` swaps them (galois_key.rs); over `Phi_m`, the
//! `phi(m)` slots of [`CyclotomicSlots`]. [`SlotEncoder`] and the value checks here are what
//! the schemes' encoders share.

use poly::RingKind;

/// `slot_position[s]`: where slot `s`'s evaluation sits in the output of a negacyclic NTT of
/// size `degree` (a power of two) in bit-reversed order, whose output `j` is the value at
/// `psi^(2 bitrev(j) + 1)`.
pub fn slot_positions(degree: usize) -> Vec<usize> {
    use poly::ntt::bit_reverse;
    let n = degree;
    let two_n = 2 * n;
    let log_n = n.trailing_zeros();
    let row = n / 2;
    let mut slot_position = vec![0usize; n];
    let mut power = 1usize; // 3^i mod 2N
    for i in 0..row {
        // Exponent e sits at j = bitrev((e - 1) / 2).
        slot_position[i] = bit_reverse((power - 1) / 2, log_n);
        slot_position[row + i] = bit_reverse((two_n - power - 1) / 2, log_n);
        power = power * 3 % two_n;
    }
    slot_position
}

/// Why plaintext values were refused (each scheme maps these to its own error type).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SlotError {
    /// More values than slots or coefficients.
    #[error("at most {max} values fit, got {actual}")]
    TooManyValues {
        /// The number of slots (or coefficients).
        max: usize,
        /// The number of values given.
        actual: usize,
    },
    /// A value not below `t`.
    #[error("value {value} at index {index} is not below the plaintext modulus {modulus}")]
    OutOfRange {
        /// The value's index.
        index: usize,
        /// The value.
        value: u64,
        /// The plaintext modulus `t`.
        modulus: u64,
    },
    /// A signed value outside `(-t/2, t/2]`.
    #[error("value {value} at index {index} is outside (-t/2, t/2] for t = {modulus}")]
    SignedOutOfRange {
        /// The value's index.
        index: usize,
        /// The value.
        value: i64,
        /// The plaintext modulus `t`.
        modulus: u64,
    },
    /// `t` is not a prime `= 1 mod 2N` (over `Phi_m`: `= 1 mod m`).
    #[error("batching needs a prime t = 1 mod 2N (1 mod m over Phi_m); t = {plaintext_modulus}, N = {degree}")]
    BatchingUnsupported {
        /// `t`.
        plaintext_modulus: u64,
        /// `N` (over `Phi_m`: the number of slots).
        degree: usize,
    },
    /// The transform refused its input.
    #[error(transparent)]
    Poly(#[from] poly::PolyError),
}

/// At most `n` values, each below `t`, padded with zeros to `n`: plaintext coefficients.
pub fn coefficients(values: &[u64], n: usize, t: u64) -> Result<Vec<u64>, SlotError> {
    if values.len() > n {
        return Err(SlotError::TooManyValues { max: n, actual: values.len() });
    }
    if let Some((index, &value)) = values.iter().enumerate().find(|&(_, &v)| v >= t) {
        return Err(SlotError::OutOfRange { index, value, modulus: t });
    }
    let mut padded = values.to_vec();
    padded.resize(n, 0);
    Ok(padded)
}

/// `c` in `[0, t)` as the representative in `(-t/2, t/2]`.
pub fn center(c: u64, t: u64) -> i64 {
    // A value not below t (no plaintext's) is reduced first; t = 0 leaves it as it is.
    let c = if t == 0 { c } else { c % t };
    if t > 0 && c > t / 2 { -((t - c) as i64) } else { c as i64 }
}

/// Signed values in `(-t/2, t/2]` reduced into `[0, t)`, or the first outside (any `t`: the
/// bounds are taken in 128 bits; `t = 0` refuses every value).
pub fn reduce_signed(values: &[i64], t: u64) -> Result<Vec<u64>, SlotError> {
    let modulus = i128::from(t);
    let upper = modulus / 2;
    let lower = upper - modulus; // exclusive: -t/2 for even t, -(t-1)/2 - 1 for odd t
    values
        .iter()
        .enumerate()
        .map(|(index, &v)| {
            let wide = i128::from(v);
            if wide > upper || wide <= lower {
                Err(SlotError::SignedOutOfRange { index, value: v, modulus: t })
            } else if wide < 0 {
                Ok((wide + modulus) as u64)
            } else {
                Ok(v as u64)
            }
        })
        .collect()
}

/// The batch encoding shared by the schemes' batch encoders: slot values to plaintext
/// coefficients and back. Over `x^N + 1` (a prime `t = 1 mod 2N`) SEAL's layout above, by an
/// inverse NTT modulo `t`; over `Phi_m` (a prime `t = 1 mod m`) the `phi(m)` slots of
/// [`CyclotomicSlots`].
#[derive(Debug, Clone)]
pub struct SlotEncoder {
    layout: Layout,
}

#[derive(Debug, Clone)]
enum Layout {
    Negacyclic { plan: poly::ntt::NttPlan, positions: Vec<usize> },
    // Boxed: its Bluestein plan is far larger than the NTT plan (clippy's large_enum_variant).
    Cyclotomic(Box<CyclotomicSlots>),
}

impl SlotEncoder {
    /// The encoder of `t` at degree `degree` of `x^N + 1`; [`SlotError::BatchingUnsupported`]
    /// unless `t` is a prime `= 1 mod 2N`.
    pub fn new(t: u64, degree: usize) -> Result<Self, SlotError> {
        let unsupported = || SlotError::BatchingUnsupported { plaintext_modulus: t, degree };
        let two_n = (degree as u64).checked_mul(2).filter(|&two_n| two_n > 0);
        if !two_n.is_some_and(|two_n| modarith::is_prime(t) && t % two_n == 1) {
            return Err(unsupported());
        }
        let modulus = modarith::Modulus::new(t).map_err(|_| unsupported())?;
        let plan = poly::ntt::NttPlan::new(modulus, degree)?;
        Ok(Self { layout: Layout::Negacyclic { plan, positions: slot_positions(degree) } })
    }

    /// The encoder of `t` over the ring `ring`: [`new`](Self::new) for `x^N + 1`,
    /// [`CyclotomicSlots::new`] for `Phi_m`.
    pub fn for_ring(t: u64, ring: RingKind) -> Result<Self, SlotError> {
        match ring {
            RingKind::NegacyclicPowerOfTwo { degree } => Self::new(t, degree),
            RingKind::Cyclotomic { m } => {
                Ok(Self { layout: Layout::Cyclotomic(Box::new(CyclotomicSlots::new(t, m)?)) })
            }
        }
    }

    /// The number of slots, `N` (`phi(m)` over `Phi_m`).
    pub fn slot_count(&self) -> usize {
        match &self.layout {
            Layout::Negacyclic { positions, .. } => positions.len(),
            Layout::Cyclotomic(slots) => slots.slot_count(),
        }
    }

    /// Where slot `s`'s evaluation sits in the NTT's output ([`slot_positions`]); `None` over
    /// `Phi_m`, whose slots are not an NTT's output (no backend transform serves them).
    pub fn positions(&self) -> Option<&[usize]> {
        match &self.layout {
            Layout::Negacyclic { positions, .. } => Some(positions),
            Layout::Cyclotomic(_) => None,
        }
    }

    /// At most `N` slot values in `[0, t)` (the rest zero) in the NTT's output order (for a
    /// backend's inverse NTT); [`SlotError::BatchingUnsupported`] over `Phi_m`.
    pub fn evaluations(&self, values: &[u64]) -> Result<Vec<u64>, SlotError> {
        match &self.layout {
            Layout::Negacyclic { plan, positions } => {
                let checked = coefficients(values, positions.len(), plan.modulus().value())?;
                let mut evaluations = vec![0u64; positions.len()];
                for (&position, &value) in positions.iter().zip(&checked) {
                    evaluations[position] = value;
                }
                Ok(evaluations)
            }
            Layout::Cyclotomic(slots) => Err(SlotError::BatchingUnsupported {
                plaintext_modulus: slots.modulus.value(),
                degree: slots.slot_count(),
            }),
        }
    }

    /// The plaintext coefficients whose slots hold `values` (the other slots 0).
    pub fn encode(&self, values: &[u64]) -> Result<Vec<u64>, SlotError> {
        match &self.layout {
            Layout::Negacyclic { plan, .. } => {
                let mut evaluations = self.evaluations(values)?;
                plan.inverse_inplace(&mut evaluations)?;
                Ok(evaluations)
            }
            Layout::Cyclotomic(slots) => slots.encode(values),
        }
    }

    /// The `N` slot values of `N` plaintext coefficients.
    pub fn decode(&self, coefficients: &[u64]) -> Result<Vec<u64>, SlotError> {
        match &self.layout {
            Layout::Negacyclic { plan, positions } => {
                let mut evaluations = coefficients.to_vec();
                plan.forward_inplace(&mut evaluations)?;
                Ok(positions.iter().map(|&position| evaluations[position]).collect())
            }
            Layout::Cyclotomic(slots) => slots.decode(coefficients),
        }
    }
}

/// The slots of `Z_t[x]/Phi_m` for a prime `t = 1 mod m`: `Phi_m` splits into `phi(m)` linear
/// factors modulo `t`, and slot `s` is the value at `w^(k_s)`, with `w` the primitive `m`-th
/// root of [`poly::bluestein::primitive_root_of_order`] and `k_0 < k_1 < ...` the units of
/// `Z_m` (the order of Bluestein's evaluations, `poly::TransformKind::Bluestein`). So the
/// automorphism `x -> x^g` moves the value of slot `k` to slot `g^-1 k mod m`: new slot `k`
/// holds old slot `g k mod m`. (For a `t` not `1 mod m` the slots would be extension fields
/// `GF(t^d)`, HElib's layout: refused.)
///
/// When `t` also suits Bluestein's transform (`t = 1 mod 2M`) encoding and decoding are the
/// ring layer's [`CyclotomicPlan`](poly::bluestein::CyclotomicPlan) over `t`; otherwise a
/// direct evaluation (`O(phi(m)^2)`) and interpolation (`O(m phi(m))` inverse DFT at the
/// primitive roots, then the reduction modulo `Phi_m`) on the host, with the same root and
/// so the same slots. Both run on the host: the plaintext is `phi(m)` words.
#[derive(Debug, Clone)]
pub struct CyclotomicSlots {
    m: usize,
    modulus: modarith::Modulus,
    plan: Option<poly::bluestein::CyclotomicPlan>,
    /// `w^-1` and `m^-1` modulo `t` (interpolation).
    root_inv: u64,
    m_inv: u64,
    root: u64,
    primitive: Vec<usize>,
    /// The reduction modulo `Phi_m` of the interpolation.
    phi_reduction: poly::phi_reduction::PhiReduction,
}

impl CyclotomicSlots {
    /// The slots of `Phi_m` modulo `t`; [`SlotError::BatchingUnsupported`] unless `t` is a
    /// prime `= 1 mod m` (and `m` an odd index in `3..=2^17`).
    pub fn new(t: u64, m: usize) -> Result<Self, SlotError> {
        let ring = RingKind::Cyclotomic { m };
        let index_ok = m >= 3 && m % 2 == 1 && m as u64 <= poly::cyclotomic::MAX_M;
        let degree = if index_ok { ring.degree() } else { 0 };
        let unsupported = || SlotError::BatchingUnsupported { plaintext_modulus: t, degree };
        if !index_ok || !modarith::is_prime(t) || t % m as u64 != 1 {
            return Err(unsupported());
        }
        let modulus = modarith::Modulus::new(t).map_err(|_| unsupported())?;
        let root = poly::bluestein::primitive_root_of_order(&modulus, m as u64)?;
        // t = 1 mod m is prime: w and m are units.
        let root_inv = modulus.inv(root).map_err(|_| unsupported())?;
        let m_inv = modulus.inv(modulus.reduce(m as u64)).map_err(|_| unsupported())?;
        let big_m = poly::bluestein::bluestein_length(m) as u64;
        let plan = if (t - 1).is_multiple_of(2 * big_m) {
            Some(poly::bluestein::CyclotomicPlan::new(modulus, m)?)
        } else {
            None
        };
        let primitive = (1..m).filter(|&k| poly::cyclotomic::gcd(k, m) == 1).collect();
        let phi_reduction = poly::phi_reduction::PhiReduction::new(m as u64)?;
        Ok(Self { m, modulus, plan, root_inv, m_inv, root, primitive, phi_reduction })
    }

    /// The number of slots, `phi(m)`.
    pub fn slot_count(&self) -> usize {
        self.primitive.len()
    }

    /// The units `k_s` of `Z_m`, increasing: slot `s` is the value at `w^(k_s)`.
    pub fn exponents(&self) -> &[usize] {
        &self.primitive
    }

    /// Whether the transform is the ring layer's Bluestein plan (`t = 1 mod 2M`) rather than
    /// the direct evaluation.
    pub fn uses_bluestein(&self) -> bool {
        self.plan.is_some()
    }

    /// The plaintext coefficients (`phi(m)`) whose slots hold `values` (at most `phi(m)`, each
    /// below `t`; the other slots 0).
    pub fn encode(&self, values: &[u64]) -> Result<Vec<u64>, SlotError> {
        let q = &self.modulus;
        let values = coefficients(values, self.slot_count(), q.value())?;
        if let Some(plan) = &self.plan {
            return Ok(plan.inverse(&values)?);
        }
        // g_j = m^-1 sum_s v_s w^(-j k_s), j < m: the inverse DFT with zeros at the other
        // m-th roots, which is f times the idempotent of Phi_m; modulo Phi_m it is f.
        let (root_inv, m_inv) = (self.root_inv, self.m_inv);
        let powers: Vec<u64> = (0..self.m as u64).map(|e| q.pow(root_inv, e)).collect();
        let g: Vec<u64> = (0..self.m)
            .map(|j| {
                let sum = self
                    .primitive
                    .iter()
                    .zip(&values)
                    .fold(0u64, |acc, (&k, &v)| q.add(acc, q.mul(v, powers[j * k % self.m])));
                q.mul(sum, m_inv)
            })
            .collect();
        Ok(self.phi_reduction.reduce(q.value(), &g)?)
    }

    /// The `phi(m)` slot values of `phi(m)` plaintext coefficients (each below `t`; a value not
    /// below `t` is [`poly::PolyError::CoefficientOutOfRange`], as from the transforms).
    pub fn decode(&self, plaintext: &[u64]) -> Result<Vec<u64>, SlotError> {
        let q = &self.modulus;
        let n = self.slot_count();
        if plaintext.len() != n {
            return Err(SlotError::Poly(poly::PolyError::LengthMismatch { expected: n, actual: plaintext.len() }));
        }
        if let Some(plan) = &self.plan {
            return Ok(plan.forward(plaintext)?);
        }
        // The transforms refuse a value not below t; so does the direct evaluation.
        if let Some((index, &value)) = plaintext.iter().enumerate().find(|&(_, &v)| v >= q.value()) {
            let modulus = q.value();
            return Err(SlotError::Poly(poly::PolyError::CoefficientOutOfRange { limb: 0, index, value, modulus }));
        }
        let powers: Vec<u64> = (0..self.m as u64).map(|e| q.pow(self.root, e)).collect();
        Ok(self
            .primitive
            .iter()
            .map(|&k| {
                // Horner at w^k, the powers of w^k read from the table of w^e.
                let z = powers[k];
                plaintext.iter().rev().fold(0u64, |acc, &c| q.add(q.mul(acc, z), c))
            })
            .collect())
    }
}

/// The largest prime of `bits` bits that is `1 mod 2N`: a plaintext modulus that allows
/// batching at degree `degree`.
pub fn batching_prime(bits: u32, degree: usize) -> crate::Result<u64> {
    let two_n = (degree as u64).saturating_mul(2);
    let primes =
        modarith::generate_ntt_primes(bits, two_n, 1, &[]).map_err(|_| crate::RlweError::InvalidParameter {
            name: "batching prime bits",
            value: u64::from(bits),
            requirement: format!("no prime of that size is 1 mod 2N = {two_n}"),
        })?;
    primes.first().copied().ok_or(crate::RlweError::InvalidParameter {
        name: "batching prime bits",
        value: u64::from(bits),
        requirement: "no such prime".to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::slot_positions;

    /// The positions are a permutation, and at N = 8 they are the hand-computed ones:
    /// 3^i mod 16 = 1, 3, 9, 11 (row 0) and 15, 13, 7, 5 (row 1); exponent e sits at
    /// bitrev3((e - 1) / 2): 0, 4, 1, 5 and 7, 3, 6, 2.
    #[test]
    fn positions_are_the_permutation_of_seals_layout() {
        assert_eq!(slot_positions(8), vec![0, 4, 1, 5, 7, 3, 6, 2]);
        for log_n in 1..=12 {
            let mut sorted = slot_positions(1 << log_n);
            sorted.sort_unstable();
            assert_eq!(sorted, (0..1usize << log_n).collect::<Vec<_>>());
        }
    }
}
