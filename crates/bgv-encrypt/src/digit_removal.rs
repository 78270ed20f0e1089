//! Removal of the low base-`p` digits of slots holding constants of `Z_{p^e}` under BGV: the
//! rounds of [`rlwe::digit_removal`] over BGV contexts of the starting core.
//!
//! Each plaintext space takes its own relinearization key (a BGV key's error scale is its
//! context's `t`, which the key switching checks): [`DigitRemoval::relin_keys`] makes the
//! ones below the starting context's.

use poly::Seed;

use crate::{BgvBackend, BgvContext, Ciphertext, RelinKey, Result, SecretKey};

/// The contexts and polynomials of `r` rounds of digit removal from `p^e`.
#[derive(Debug)]
pub struct DigitRemoval<B: BgvBackend> {
    rounds: rlwe::digit_removal::DigitRemoval<B, BgvContext<B>>,
}

impl<B: BgvBackend> DigitRemoval<B> {
    /// Rounds that remove `digits` (at least 1) digits from ciphertexts of `context`, whose
    /// plaintext modulus must be `p^e` with `e > digits` (`p` prime). The contexts below share
    /// `context`'s core, backend and modulus-switching mode.
    pub fn new(context: &BgvContext<B>, p: u64, digits: u32) -> Result<Self> {
        let rounds = rlwe::digit_removal::DigitRemoval::new(context, p, digits, |t| {
            let params = crate::BgvParameters::from_core(context.params().core(), t)?;
            Ok(BgvContext::new(context.backend().clone(), &params)?.with_mod_switching(context.mod_switching()))
        })?;
        Ok(Self { rounds })
    }

    /// The context of the result (plaintext modulus `p^(e-r)`).
    pub fn target(&self) -> &BgvContext<B> {
        self.rounds.target()
    }

    /// The prime `p`.
    pub fn prime(&self) -> u64 {
        self.rounds.prime()
    }

    /// Relinearization keys of `secret` for the plaintext spaces below the start (rounds 2 to
    /// `r`; fresh OS randomness).
    pub fn relin_keys(&self, secret: &SecretKey<B>) -> Result<Vec<RelinKey<B>>> {
        self.rounds.lower_rounds().iter().map(|context| context.generate_relin_key(secret)).collect()
    }

    /// [`relin_keys`](Self::relin_keys) from seeds: round `i`'s key from `seed` with its first
    /// byte increased by `i` (reproducible keys for tests).
    pub fn relin_keys_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<Vec<RelinKey<B>>> {
        let bytes: [u8; 32] = *seed.as_bytes();
        self.rounds
            .lower_rounds()
            .iter()
            .enumerate()
            .map(|(i, context)| {
                let mut round = bytes;
                round[0] = round[0].wrapping_add(i as u8 + 1);
                context.relin_key_from_seed(secret, &Seed::from(round))
            })
            .collect()
    }

    /// `a` (a ciphertext of `context`, the context these rounds were made for; slots holding
    /// constants `y` of `Z_{p^e}`) with its `r` low digits removed: slots holding `floor(y /
    /// p^r)` under [`target`](Self::target). `relin` is `context`'s relinearization key,
    /// `lower` the keys of [`relin_keys`](Self::relin_keys). Errors with
    /// [`BgvError::ParameterMismatch`](crate::BgvError::ParameterMismatch) for another context
    /// and [`BgvError::InvalidParameter`](crate::BgvError::InvalidParameter) for keys of other
    /// rounds.
    pub fn apply(
        &self,
        context: &BgvContext<B>,
        a: &Ciphertext<B>,
        relin: &RelinKey<B>,
        lower: &[RelinKey<B>],
    ) -> Result<Ciphertext<B>> {
        let keys: Vec<&RelinKey<B>> = std::iter::once(relin).chain(lower).collect();
        self.rounds.apply(context, a, &keys)
    }
}
