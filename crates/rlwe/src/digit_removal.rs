//! Removal of the low base-`p` digits of slots holding constants of `Z_{p^e}`: bootstrapping's
//! digit-extraction step, for any scheme's [`Evaluator`]. Each of the `r` rounds takes the
//! lowest digit with its Chen-Han polynomial over the current plaintext space `p^k`
//! ([`crate::digit_extraction`], evaluated by Paterson-Stockmeyer), subtracts it, and divides
//! the plaintext space by `p` ([`Evaluator::divide_plaintext_space`]): a slot holding `y` ends
//! holding `floor(y / p^r)` modulo `p^(e-r)`. This is the simple form (each round's polynomial
//! anew, degree `(k - 1)(p - 1) + 1`); Chen and Han's and Halevi and Shoup's reuse of lifted
//! digits across rounds is not done here.
//!
//! The schemes differ only in their keys: a BGV relinearization key's error scale is its
//! context's `t`, so each plaintext space takes its own; BFV's keys serve every `t`. The
//! caller passes one key per round.

use std::marker::PhantomData;

use crate::evaluator::Evaluator;
use crate::{RelinearizationKey, Result, RlweBackend, RlweError};

/// The contexts and polynomials of `r` rounds of digit removal from `p^e`.
#[derive(Debug)]
pub struct DigitRemoval<B: RlweBackend, E: Evaluator<B>> {
    p: u64,
    /// The starting plaintext modulus `p^e`.
    start_t: u64,
    /// The plaintext spaces `p^(e-1), .., p^(e-r)`, over the starting core.
    contexts: Vec<E>,
    /// Round `i`'s lowest-digit polynomial over `p^(e-i)`.
    polynomials: Vec<Vec<u64>>,
    backend: PhantomData<B>,
}

impl<B: RlweBackend, E: Evaluator<B>> DigitRemoval<B, E> {
    /// Rounds that remove `digits` (at least 1) digits from ciphertexts of `start`, whose
    /// plaintext modulus must be `p^e` with `e > digits` (`p` prime). `context_for(t')` makes
    /// the context of plaintext modulus `t'` over `start`'s core (the scheme's constructor);
    /// it is called for `p^(e-1), .., p^(e-r)`.
    pub fn new(start: &E, p: u64, digits: u32, mut context_for: impl FnMut(u64) -> Result<E>) -> Result<Self> {
        let t = start.plaintext_modulus();
        let e = crate::digit_extraction::prime_power_exponent(t, p).filter(|&e| e > digits && digits > 0).ok_or_else(
            || RlweError::InvalidParameter {
                name: "digits to remove",
                value: u64::from(digits),
                requirement: format!("t = {t} must be p^e for p = {p} with e above the digits removed"),
            },
        )?;
        let mut contexts = Vec::with_capacity(digits as usize);
        let mut polynomials = Vec::with_capacity(digits as usize);
        for i in 0..digits {
            polynomials.push(crate::digit_extraction::lowest_digit_polynomial(p, e - i)?);
            let context = context_for(p.pow(e - i - 1))?;
            start.core().plaintext_space_divisor(context.core().params(), t, context.plaintext_modulus())?;
            contexts.push(context);
        }
        Ok(Self { p, start_t: t, contexts, polynomials, backend: PhantomData })
    }

    /// The context of the result (plaintext modulus `p^(e-r)`).
    pub fn target(&self) -> &E {
        // `new` made at least one round.
        &self.contexts[self.contexts.len() - 1]
    }

    /// The prime `p`.
    pub fn prime(&self) -> u64 {
        self.p
    }

    /// The rounds' count `r`.
    pub fn rounds(&self) -> usize {
        self.contexts.len()
    }

    /// The contexts whose products the rounds after the first take: `p^(e-1) .. p^(e-r+1)`.
    pub fn lower_rounds(&self) -> &[E] {
        &self.contexts[..self.contexts.len() - 1]
    }

    /// `a` (a ciphertext of `start`, the context these rounds were made for; slots holding
    /// constants `y` of `Z_{p^e}`) with its `r` low digits removed: slots holding
    /// `floor(y / p^r)` under [`target`](Self::target). `keys[i]` relinearizes round `i`'s
    /// products (round 0 under `start`, round `i` under `lower_rounds()[i - 1]`). Errors with
    /// [`RlweError::InvalidParameter`] for another count of keys and
    /// [`RlweError::ParameterMismatch`] for another starting context (checked before any work).
    pub fn apply(&self, start: &E, a: &E::Ciphertext, keys: &[&RelinearizationKey<B>]) -> Result<E::Ciphertext> {
        if keys.len() != self.rounds() {
            return Err(RlweError::InvalidParameter {
                name: "digit removal keys",
                value: keys.len() as u64,
                requirement: format!("one relinearization key for each of the {} rounds", self.rounds()),
            });
        }
        if start.plaintext_modulus() != self.start_t {
            return Err(RlweError::ParameterMismatch {
                what: "digit removal context",
                field: "plaintext modulus (the rounds were made for another context)",
            });
        }
        start.core().check(self.target().core().params(), "digit removal context")?;
        // One round: the lowest digit subtracted, the space divided by p.
        let round = |here: &E, input: &E::Ciphertext, i: usize| -> Result<E::Ciphertext> {
            let low = here.evaluate_polynomial(input, &self.polynomials[i], keys[i])?;
            here.divide_plaintext_space(&here.sub(input, &low)?, &self.contexts[i])
        };
        let mut current = round(start, a, 0)?;
        for i in 1..self.rounds() {
            current = round(&self.contexts[i - 1], &current, i)?;
        }
        Ok(current)
    }
}
