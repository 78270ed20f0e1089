//! The SIMD slot layout every batch encoder (BFV, BGV) shares: SEAL's two rows of `N/2`
//! slots, slot `i` of row 0 at the root `psi^(3^i)` and slot `i` of row 1 at `psi^(-3^i)`
//! (`psi` a primitive `2N`-th root modulo `t`), so that the Galois element `3^k mod 2N`
//! rotates both rows by `k` and `2N - 1` swaps them (galois_key.rs). [`SlotEncoder`] and the
//! value checks here are what the schemes' encoders share.

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
    TooManyValues { max: usize, actual: usize },
    /// A value not below `t`.
    #[error("value {value} at index {index} is not below the plaintext modulus {modulus}")]
    OutOfRange { index: usize, value: u64, modulus: u64 },
    /// A signed value outside `(-t/2, t/2]`.
    #[error("value {value} at index {index} is outside (-t/2, t/2] for t = {modulus}")]
    SignedOutOfRange { index: usize, value: i64, modulus: u64 },
    /// `t` is not a prime `= 1 mod 2N`.
    #[error("batching needs a prime t = 1 mod 2N; t = {plaintext_modulus}, N = {degree}")]
    BatchingUnsupported { plaintext_modulus: u64, degree: usize },
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
    if c > t / 2 { -((t - c) as i64) } else { c as i64 }
}

/// Signed values in `(-t/2, t/2]` reduced into `[0, t)` (`t < 2^62`), or the first outside.
pub fn reduce_signed(values: &[i64], t: u64) -> Result<Vec<u64>, SlotError> {
    let upper = (t / 2) as i64;
    let lower = upper - t as i64; // exclusive: -t/2 for even t, -(t-1)/2 - 1 for odd t
    values
        .iter()
        .enumerate()
        .map(|(index, &v)| {
            if v > upper || v <= lower {
                Err(SlotError::SignedOutOfRange { index, value: v, modulus: t })
            } else if v < 0 {
                Ok((v + t as i64) as u64)
            } else {
                Ok(v as u64)
            }
        })
        .collect()
}

/// The batch encoding of a prime `t = 1 mod 2N` (the layout above), shared by the schemes'
/// batch encoders: slot values to plaintext coefficients (an inverse NTT modulo `t`) and back.
#[derive(Debug, Clone)]
pub struct SlotEncoder {
    plan: poly::ntt::NttPlan,
    positions: Vec<usize>,
}

impl SlotEncoder {
    /// The encoder of `t` at degree `degree`; [`SlotError::BatchingUnsupported`] unless `t` is
    /// a prime `= 1 mod 2N`.
    pub fn new(t: u64, degree: usize) -> Result<Self, SlotError> {
        let unsupported = || SlotError::BatchingUnsupported { plaintext_modulus: t, degree };
        if !modarith::is_prime(t) || t % (2 * degree as u64) != 1 {
            return Err(unsupported());
        }
        let modulus = modarith::Modulus::new(t).map_err(|_| unsupported())?;
        let plan = poly::ntt::NttPlan::new(modulus, degree)?;
        Ok(Self { plan, positions: slot_positions(degree) })
    }

    /// The number of slots, `N`.
    pub fn slot_count(&self) -> usize {
        self.positions.len()
    }

    /// Where slot `s`'s evaluation sits in the NTT's output ([`slot_positions`]).
    pub fn positions(&self) -> &[usize] {
        &self.positions
    }

    /// At most `N` slot values in `[0, t)` (the rest zero) in the NTT's output order.
    pub fn evaluations(&self, values: &[u64]) -> Result<Vec<u64>, SlotError> {
        let n = self.slot_count();
        let checked = coefficients(values, n, self.plan.modulus().value())?;
        let mut evaluations = vec![0u64; n];
        for (&position, &value) in self.positions.iter().zip(&checked) {
            evaluations[position] = value;
        }
        Ok(evaluations)
    }

    /// The plaintext coefficients whose slots hold `values` (the other slots 0).
    pub fn encode(&self, values: &[u64]) -> Result<Vec<u64>, SlotError> {
        let mut evaluations = self.evaluations(values)?;
        self.plan.inverse_inplace(&mut evaluations)?;
        Ok(evaluations)
    }

    /// The `N` slot values of `N` plaintext coefficients.
    pub fn decode(&self, coefficients: &[u64]) -> Result<Vec<u64>, SlotError> {
        let mut evaluations = coefficients.to_vec();
        self.plan.forward_inplace(&mut evaluations)?;
        Ok(self.positions.iter().map(|&position| evaluations[position]).collect())
    }
}

/// The largest prime of `bits` bits that is `1 mod 2N`: a plaintext modulus that allows
/// batching at degree `degree`.
pub fn batching_prime(bits: u32, degree: usize) -> crate::Result<u64> {
    let primes = modarith::generate_ntt_primes(bits, 2 * degree as u64, 1, &[]).map_err(|_| {
        crate::RlweError::InvalidParameter {
            name: "batching prime bits",
            value: u64::from(bits),
            requirement: format!("no prime of that size is 1 mod 2N = {}", 2 * degree),
        }
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
