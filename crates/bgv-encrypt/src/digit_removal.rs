//! Removal of the low base-`p` digits of slots holding constants of `Z_{p^e}`: bootstrapping's
//! digit-extraction step, written over the pieces of the core. Each of the `r` rounds takes
//! the lowest digit with its Chen-Han polynomial over the current plaintext space `p^k`
//! ([`rlwe::digit_extraction`], evaluated by Paterson-Stockmeyer), subtracts it, and divides
//! the plaintext space by `p` ([`BgvContext::divide_plaintext_space`]): a slot holding `y` ends
//! holding `floor(y / p^r)` modulo `p^(e-r)`. This is the simple form (each round's polynomial
//! anew, degree `(k - 1)(p - 1) + 1`); Chen and Han's and Halevi and Shoup's reuse of lifted
//! digits across rounds is not done here.
//!
//! Each plaintext space takes its own relinearization key (a BGV key's error scale is its
//! context's `t`, which the key switching checks): [`DigitRemoval::relin_keys`] makes the
//! ones below the starting context's.

use std::sync::Arc;

use rlwe::Evaluator;

use poly::Seed;

use crate::{BgvBackend, BgvContext, BgvError, BgvParameters, Ciphertext, RelinKey, Result, SecretKey};

/// The contexts and polynomials of `r` rounds of digit removal from `p^e`.
#[derive(Debug)]
pub struct DigitRemoval<B: BgvBackend> {
    p: u64,
    /// The starting parameters (plaintext modulus `p^e`).
    start: Arc<BgvParameters>,
    /// The plaintext spaces `p^(e-1), .., p^(e-r)`, over the starting core.
    contexts: Vec<BgvContext<B>>,
    /// Round `i`'s lowest-digit polynomial over `p^(e-i)`.
    polynomials: Vec<Vec<u64>>,
}

impl<B: BgvBackend> DigitRemoval<B> {
    /// Rounds that remove `digits` (at least 1) digits from ciphertexts of `context`, whose
    /// plaintext modulus must be `p^e` with `e > digits` (`p` prime). The contexts below share
    /// `context`'s core, backend and modulus-switching mode.
    pub fn new(context: &BgvContext<B>, p: u64, digits: u32) -> Result<Self> {
        let t = context.params().plaintext_modulus();
        let e = exponent(t, p).filter(|&e| e > digits && digits > 0).ok_or_else(|| BgvError::InvalidParameter {
            name: "digits to remove",
            value: u64::from(digits),
            requirement: format!("t = {t} must be p^e for p = {p} with e above the digits removed"),
        })?;
        let mut contexts = Vec::with_capacity(digits as usize);
        let mut polynomials = Vec::with_capacity(digits as usize);
        for i in 0..digits {
            polynomials.push(rlwe::digit_extraction::lowest_digit_polynomial(p, e - i)?);
            let params = BgvParameters::from_core(context.params().core(), p.pow(e - i - 1))?;
            contexts
                .push(BgvContext::new(context.backend().clone(), &params)?.with_mod_switching(context.mod_switching()));
        }
        Ok(Self { p, start: Arc::clone(context.params()), contexts, polynomials })
    }

    /// The context of the result (plaintext modulus `p^(e-r)`).
    pub fn target(&self) -> &BgvContext<B> {
        // `new` made at least one round.
        &self.contexts[self.contexts.len() - 1]
    }

    /// The prime `p`.
    pub fn prime(&self) -> u64 {
        self.p
    }

    /// Relinearization keys of `secret` for the plaintext spaces below the start (rounds 2 to
    /// `r`; fresh OS randomness).
    pub fn relin_keys(&self, secret: &SecretKey<B>) -> Result<Vec<RelinKey<B>>> {
        self.lower_rounds().iter().map(|context| context.generate_relin_key(secret)).collect()
    }

    /// [`relin_keys`](Self::relin_keys) from seeds: round `i`'s key from `seed` with its first
    /// byte increased by `i` (reproducible keys for tests).
    pub fn relin_keys_from_seed(&self, secret: &SecretKey<B>, seed: &Seed) -> Result<Vec<RelinKey<B>>> {
        let bytes: [u8; 32] = *seed.as_bytes();
        self.lower_rounds()
            .iter()
            .enumerate()
            .map(|(i, context)| {
                let mut round = bytes;
                round[0] = round[0].wrapping_add(i as u8 + 1);
                context.relin_key_from_seed(secret, &Seed::from(round))
            })
            .collect()
    }

    /// The contexts whose products the rounds after the first take: `p^(e-1) .. p^(e-r+1)`.
    fn lower_rounds(&self) -> &[BgvContext<B>] {
        &self.contexts[..self.contexts.len() - 1]
    }

    /// `a` (a ciphertext of `context`, the context these rounds were made for; slots holding
    /// constants `y` of `Z_{p^e}`) with its `r` low digits removed: slots holding `floor(y /
    /// p^r)` under [`target`](Self::target). `relin` is `context`'s relinearization key,
    /// `lower` the keys of [`relin_keys`](Self::relin_keys). Errors with
    /// [`BgvError::ParameterMismatch`] for another context or keys of other rounds.
    pub fn apply(
        &self,
        context: &BgvContext<B>,
        a: &Ciphertext<B>,
        relin: &RelinKey<B>,
        lower: &[RelinKey<B>],
    ) -> Result<Ciphertext<B>> {
        if lower.len() != self.lower_rounds().len() {
            return Err(BgvError::InvalidParameter {
                name: "digit removal keys",
                value: lower.len() as u64,
                requirement: format!(
                    "one relinearization key for each of the {} lower rounds",
                    self.lower_rounds().len()
                ),
            });
        }
        if !Arc::ptr_eq(context.params(), &self.start) && **context.params() != *self.start {
            return Err(BgvError::ParameterMismatch {
                what: "digit removal context",
                field: "parameters (the rounds were made for another context)",
            });
        }
        let low = context.evaluate_polynomial(a, &self.polynomials[0], relin)?;
        let mut current = context.divide_plaintext_space(&context.sub(a, &low)?, &self.contexts[0])?;
        for (i, polynomial) in self.polynomials.iter().enumerate().skip(1) {
            let (here, next) = (&self.contexts[i - 1], &self.contexts[i]);
            let low = here.evaluate_polynomial(&current, polynomial, &lower[i - 1])?;
            current = here.divide_plaintext_space(&here.sub(&current, &low)?, next)?;
        }
        Ok(current)
    }
}

/// `e` with `t = p^e`, if any (`e >= 1`).
fn exponent(t: u64, p: u64) -> Option<u32> {
    if p < 2 {
        return None;
    }
    let (mut rest, mut e) = (t, 0u32);
    while rest > 1 && rest.is_multiple_of(p) {
        rest /= p;
        e += 1;
    }
    (rest == 1 && e >= 1).then_some(e)
}
