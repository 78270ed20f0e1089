//! Bootstrapping's first step for BGV: a ciphertext of `t = p^r` near the end of its chain
//! becomes a ciphertext of the plaintext space `p^e` (`e > r`) at the top of the chain whose
//! coefficients carry the message in their high digits (Geelen and Vercauteren, "Bootstrapping
//! for BGV and BFV revisited", J. Cryptology 2023: the switch to a modulus `q' = 1 mod p^e`
//! and the lift back; written here from the algebra below).
//!
//! With `q' = p^e + 1` (coprime to `t`):
//! 1. modulus switching to `q'` by scaling: `c' = (c q' - d) / q_l` with `d = c q' mod q_l`
//!    moved by a multiple of `q_l` to a multiple of `t`, so `c' = c q' / q_l (mod t)` and the
//!    phase `f' m + t e'` (`f' = f q' q_l^-1 mod t`) keeps a small noise `e'` (about
//!    `(1 + |s|_1) / 2` after the division by `t`);
//! 2. multiplication by `t^-1 = -p^(e-r) (mod q')`: the phase becomes
//!    `W = -p^(e-r) F + e'` modulo `q'`, `F` the residue `f' m mod t`;
//! 3. the lift: the words `c''` in `[0, q')` read modulo every prime of the chain. Over the
//!    integers `c''_0 + c''_1 s = W + q' I` for a small `I`, and `q' = 1 + p^e`, so under the
//!    plaintext modulus `p^e` this is a ciphertext (correction factor 1, noise `p^e I`) of
//!    `W + I = -p^(e-r) F + (e' + I)`: the message in the `r` high digits, `e' + I` in the low
//!    `e - r`, which digit removal takes out once the coefficients are in slots.
//!
//! The arithmetic runs on the host with exact integers (the words are downloaded and the result
//! uploaded), so every backend gives the same words.

use num_bigint::{BigInt, BigUint};
use num_integer::Integer;
use num_traits::ToPrimitive;
use poly::{Coeff, Poly};

use crate::context::BackendResult;
use crate::context::inverse_mod;
use crate::{BgvBackend, BgvContext, BgvError, Ciphertext, Result};

/// A ciphertext raised by [`BgvContext::raise_for_bootstrapping`].
#[derive(Debug)]
pub struct RaisedCiphertext<B: BgvBackend> {
    /// The ciphertext under the target context (plaintext modulus `p^e`, top level).
    pub ciphertext: Ciphertext<B>,
    /// `f' = f q' q_l^-1 mod t`: the high digits hold `f' m mod t`, `m` the input's message.
    pub factor: u64,
    /// The bootstrapping modulus `q' = p^e + 1`.
    pub modulus: u64,
}

impl<B: BgvBackend> BgvContext<B> {
    /// `a` (plaintext modulus `t = p^r`) raised to `target` (plaintext modulus `p^e`, `e > r`,
    /// the same core), at `target`'s top level: its coefficients decrypt to
    /// `-p^(e-r) (f' m mod t) + d`, `m` the message, `f'` the returned factor and `d` small
    /// (about the secret's norm; module documentation). Errors with
    /// [`BgvError::ParameterMismatch`] for another core or ciphertext and
    /// [`BgvError::InvalidParameter`] unless both plaintext moduli are powers of `p`, the
    /// target's the larger, with `p^e + 1` below the input's modulus; `a` is left as it is.
    pub fn raise_for_bootstrapping(
        &self,
        a: &Ciphertext<B>,
        target: &BgvContext<B>,
        p: u64,
    ) -> Result<RaisedCiphertext<B>> {
        let (t, t_target) = (self.params().plaintext_modulus(), target.params().plaintext_modulus());
        let d = self.core().raise_multiplier(target.params().core(), t, t_target, p)?;
        let q_boot = t_target.checked_add(1).filter(|q| q < &(1u64 << 62)).ok_or(BgvError::InvalidParameter {
            name: "target plaintext modulus",
            value: t_target,
            requirement: "p^e + 1 must stay below 2^62".to_string(),
        })?;
        let polys = self.download(a)?;
        let first = polys.first().ok_or(BgvError::InvalidCiphertextSize {
            operation: "raise_for_bootstrapping",
            expected: "at least 2",
            actual: 0,
        })?;
        let q_l = poly::reference::modulus_product(first.context());
        if q_l <= BigUint::from(q_boot) {
            return Err(BgvError::InvalidParameter {
                name: "target plaintext modulus",
                value: t_target,
                requirement: "p^e + 1 must be below the ciphertext's modulus".to_string(),
            });
        }
        // t^-1 mod q' is -p^(e-r) = q' - t' / t.
        let t_inverse = q_boot - d;
        let switch = SwitchTo::new(q_l, q_boot, t)?;
        let factor = mul_mod(mul_mod(a.state().correction_factor(), q_boot % t, t), switch.q_l_inverse_mod_t, t);

        let ring = target.params().core().ring_q();
        let mut raised = Vec::with_capacity(polys.len());
        for poly in &polys {
            let words: Vec<u64> = poly::reference::crt_reconstruct(poly)?
                .iter()
                .map(|c| mul_mod(switch.apply(c), t_inverse, q_boot))
                .collect();
            let limbs: Vec<u64> = ring.moduli().iter().flat_map(|m| words.iter().map(move |&w| m.reduce(w))).collect();
            let host = Poly::<Coeff>::from_limbs(ring, limbs)?;
            let device = target.backend().upload(target.core().ring_q(), &host).be()?;
            raised.push(target.forward(device)?);
        }
        // The phase is W + q' I with |I| <= (1 + |s|_1 + |W| / q') / 2 and |s|_1 <= N for a
        // ternary secret: the bound below (the words do not depend on it).
        let degree = self.params().core().degree() as f64;
        let noise_bits = (q_boot as f64).log2() + ((degree + 3.0) / 2.0).log2();
        let state = crate::context::BgvCiphertextState { correction: 1, product: false, noise_bits };
        let ciphertext = target.ciphertext_with_state(raised, target.top_level(), a.key_set(), state);
        Ok(RaisedCiphertext { ciphertext, factor, modulus: q_boot })
    }
}

/// BGV's modulus switch from `q_l` to `q'` by scaling, with its constants formed once.
struct SwitchTo {
    q_l: BigInt,
    q_boot: BigInt,
    t: u64,
    q_l_inverse_mod_t: u64,
}

impl SwitchTo {
    fn new(q_l: BigUint, q_boot: u64, t: u64) -> Result<Self> {
        let q_l_mod_t = (&q_l % t).to_u64().unwrap_or(0);
        let q_l_inverse_mod_t = inverse_mod(q_l_mod_t, t).ok_or(BgvError::InvalidParameter {
            name: "plaintext modulus",
            value: t,
            requirement: "must be coprime to the ciphertext modulus".to_string(),
        })?;
        Ok(Self { q_l: BigInt::from(q_l), q_boot: BigInt::from(q_boot), t, q_l_inverse_mod_t })
    }

    /// `c q' / q_l` rounded to the integer `c'` with `c' = c q' q_l^-1 (mod t)`, as a word in
    /// `[0, q')`: `c' = (c q' - d) / q_l` with `d = r + q_l x`, `r = c q' mod q_l` and
    /// `x = -r q_l^-1 mod t` centered, so `d` is a multiple of `t` with `|d| <= q_l (t / 2 + 1)`.
    fn apply(&self, c: &BigUint) -> u64 {
        let t = self.t;
        let v = BigInt::from(c.clone()) * &self.q_boot;
        let r = v.mod_floor(&self.q_l);
        let r_mod_t = r.mod_floor(&BigInt::from(t)).to_u64().unwrap_or(0);
        let mut x = mul_mod((t - r_mod_t) % t, self.q_l_inverse_mod_t, t) as i128;
        if x > i128::from(t / 2) {
            x -= i128::from(t);
        }
        let d = r + &self.q_l * BigInt::from(x);
        // Exact: v - d is a multiple of q_l; mod_floor by a positive modulus is in [0, q').
        let switched = (v - d).div_floor(&self.q_l);
        switched.mod_floor(&self.q_boot).to_u64().unwrap_or(0)
    }
}

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    ((u128::from(a) * u128::from(b)) % u128::from(m)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_traits::Signed;

    /// The switch to q' against its definition: `c' = c q' q_l^-1 (mod t)` and `c'` within
    /// `t / 2 + 1` of `c q' / q_l`, for random `c` and moduli.
    #[test]
    fn switch_rounds_to_the_right_residue() {
        let q_l = BigUint::from(1_152_921_504_606_830_593u64) * BigUint::from(1_152_921_504_606_748_673u64);
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for (t, q_boot) in [(9u64, 6562u64), (2, 257), (65537, 65537u64.pow(2) + 1), (3, 3u64.pow(30) + 1)] {
            for _ in 0..200 {
                let c = (BigUint::from(next()) * BigUint::from(next())) % &q_l;
                let word = SwitchTo::new(q_l.clone(), q_boot, t).unwrap().apply(&c);
                assert!(word < q_boot);
                // The exact quotient c q' / q_l, and the switched value's lift nearest to it.
                let exact = BigInt::from(&c * q_boot);
                let q = BigInt::from(q_l.clone());
                let half: BigInt = &q / 2;
                let nearest = (&exact + half).div_floor(&q);
                let offset = (BigInt::from(word) - &nearest).mod_floor(&BigInt::from(q_boot));
                let offset = if offset > BigInt::from(q_boot / 2) { offset - BigInt::from(q_boot) } else { offset };
                assert!(offset.abs() <= BigInt::from(t / 2 + 1), "t = {t}: offset {offset}");
                let lifted = nearest + offset;
                // lifted q_l = c q' (mod t).
                let lhs = (lifted * &q).mod_floor(&BigInt::from(t));
                assert_eq!(lhs, exact.mod_floor(&BigInt::from(t)), "t = {t}");
            }
        }
    }

    #[test]
    fn products_modulo_words() {
        assert_eq!(mul_mod(u64::MAX, u64::MAX, 1_000_000_007), ((u128::from(u64::MAX).pow(2)) % 1_000_000_007) as u64);
    }
}
