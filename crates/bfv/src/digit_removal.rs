//! Removal of the low base-`p` digits of slots holding constants of `Z_{p^e}` under BFV: the
//! rounds of [`rlwe::digit_removal`] over BFV contexts of the starting core. A BFV key does not
//! depend on `t`, so one relinearization key serves every round.

use crate::{BfvBackend, BfvContext, BfvParameters, Ciphertext, RelinKey, Result};

/// The contexts and polynomials of `r` rounds of digit removal from `p^e`.
#[derive(Debug)]
pub struct DigitRemoval<B: BfvBackend> {
    rounds: rlwe::digit_removal::DigitRemoval<B, BfvContext<B>>,
}

impl<B: BfvBackend> DigitRemoval<B> {
    /// Rounds that remove `digits` (at least 1) digits from ciphertexts of `context`, whose
    /// plaintext modulus must be `p^e` with `e > digits` (`p` prime). The contexts below share
    /// `context`'s core, backend and multiplication variant.
    pub fn new(context: &BfvContext<B>, p: u64, digits: u32) -> Result<Self> {
        let rounds = rlwe::digit_removal::DigitRemoval::new(context, p, digits, |t| {
            let params = BfvParameters::from_core(context.params().core(), t, context.params().variant())?;
            BfvContext::new(context.backend().clone(), &params)
        })?;
        Ok(Self { rounds })
    }

    /// The context of the result (plaintext modulus `p^(e-r)`).
    pub fn target(&self) -> &BfvContext<B> {
        self.rounds.target()
    }

    /// The prime `p`.
    pub fn prime(&self) -> u64 {
        self.rounds.prime()
    }

    /// `a` (a ciphertext of `context`, the context these rounds were made for; slots holding
    /// constants `y` of `Z_{p^e}`) with its `r` low digits removed: slots holding
    /// `floor(y / p^r)` under [`target`](Self::target). `relin` is the relinearization key
    /// (every round's). Errors with [`BfvError::ParameterMismatch`](crate::BfvError::ParameterMismatch)
    /// for another context.
    pub fn apply(&self, context: &BfvContext<B>, a: &Ciphertext<B>, relin: &RelinKey<B>) -> Result<Ciphertext<B>> {
        let keys = vec![relin; self.rounds.rounds()];
        self.rounds.apply(context, a, &keys)
    }
}
