//! Extension-field slots on the host (HElib's `EncryptedArray` encoding): a plaintext `a` of
//! `Z_{p^r}[x]/Phi_m` is a vector of `phi(m) / d` slots, one per coset of `<p>` in `Z_m^*`
//! (factors from [`crate::cyclotomic_factors`]), ordered and represented by the hypercube
//! ([`crate::hypercube`]: slot `e` has representative `t_e = prod g_i^{e_i}`), slot `i` holding
//! `a(X^{t_i}) mod G` in `Z_{p^r}[X]/G` (`GF(p^d)` for `r = 1`), `G = F_1` the factor whose
//! roots include the root `z` of the construction: every slot is read in the same ring, and
//! the automorphism `x -> x^g` moves the value of the slot of `g t_i` to slot `i` (up to a
//! Frobenius power when `g t_i` is another element of that coset), as in HElib.
//!
//! - [`decode`](ExtensionSlots::decode): `b_i = a mod F_i`, then `b_i(X^{t_i}) mod G` (well
//!   defined: `F_i` is the minimal polynomial of `z^{t_i}`).
//! - [`encode`](ExtensionSlots::encode): slot value `v` to `u_i = v(x^{s_i}) mod F_i`,
//!   `s_i = t_i^-1 mod m` (then `u_i(X^{t_i}) = v(X^{t_i s_i}) = v(X)` modulo `G`), and
//!   `a = sum_i w_i (Phi_m / F_i)` with `w_i = u_i (Phi_m / F_i)^-1 mod F_i`, summed as
//!   fractions up a subproduct tree (`N/D = N_l/D_l + N_r/D_r` with `N = N_l D_r + N_r D_l`,
//!   `D = D_l D_r`; at the root `D = Phi_m` and `a = N`). The inverse comes from derivatives:
//!   `Phi_m = F_i G_i` gives `G_i = Phi_m' (F_i')^-1 mod F_i`, so
//!   `G_i^-1 = F_i' (Phi_m' mod F_i)^-1`, inverted modulo `p` by Euclid and lifted to `p^r` by
//!   Newton's iteration.
//!
//! Both directions walk the subproduct tree (up with fractions, down with remainders), with
//! the products and divisions of the crate's `zn_poly` module: `O(M(phi(m)) log phi(m))` word
//! operations, `M` the cost of one product (three NTTs per prime for long factors).

use crate::cyclotomic_factors::{CyclotomicFactors, cyclotomic_factors};
use crate::hypercube::Hypercube;
use crate::zn_poly::{
    add, checked_power, derivative, inverse_mod_factor, mul, mul_mod, power_mod, reduce, reduce_with, reversed_inverse,
};
use crate::{Result, RlweError};

/// The slot structure of `Z_{p^r}[x]/Phi_m` (module docs).
#[derive(Debug, Clone)]
pub struct ExtensionSlots {
    factors: CyclotomicFactors,
    modulus: u64,
    /// `Phi_m` modulo `p^r` (monic, from the constant up).
    phi_m: Vec<u64>,
    /// The reduction modulo `Phi_m` (binomial steps, any modulus): the plaintext automorphism's.
    phi_reduction: poly::phi_reduction::PhiReduction,
    /// Per slot: `G_i^-1 mod F_i` (`d` words).
    inverses: Vec<Vec<u64>>,
    /// The subproduct tree of the factors, leaves first: level `k` holds the products of
    /// `2^k` consecutive factors (the last one of a level may hold fewer).
    tree: Vec<Vec<Vec<u64>>>,
    /// Per node of `tree` above the leaves: `rev(node)^-1 mod x^deg` (decoding's divisions).
    tree_inverses: Vec<Vec<Vec<u64>>>,
    /// Per slot: `X^{t_i k} mod G` for `k < d` (decoding's change of ring).
    to_common: Vec<Vec<Vec<u64>>>,
    /// Per slot: `x^{s_i k} mod F_i` for `k < d` (encoding's change of ring).
    from_common: Vec<Vec<Vec<u64>>>,
    /// The hypercube that orders the slots.
    hypercube: Hypercube,
}

impl ExtensionSlots {
    /// The slots of `Z_{p^r}[x]/Phi_m`. Errors as [`cyclotomic_factors`], and with
    /// [`RlweError::InvalidParameter`] when an inverse does not exist (never for valid
    /// parameters: the factors are coprime modulo `p`).
    pub fn new(m: u64, p: u64, r: u32) -> Result<Self> {
        let hypercube = Hypercube::new(m, p)?;
        let factors = in_hypercube_order(cyclotomic_factors(m, p, r)?, &hypercube)?;
        let n = checked_modulus(p, r)?;
        let phi_m = poly::cyclotomic::cyclotomic_polynomial(m)
            .map_err(|e| RlweError::InvalidParameter { name: "m", value: m, requirement: e.to_string() })?
            .into_iter()
            .map(|c| c.rem_euclid(n as i64) as u64)
            .collect::<Vec<_>>();
        let phi_reduction = poly::phi_reduction::PhiReduction::new(m)?;
        let derivative = derivative(&phi_m, n);
        let mut inverses = Vec::with_capacity(factors.factors.len());
        for f in &factors.factors {
            let phi_prime = reduce(&derivative, f, n);
            let inverse = inverse_mod_factor(&phi_prime, f, p, n).ok_or(RlweError::InvalidParameter {
                name: "m",
                value: m,
                requirement: "Phi_m' must be invertible modulo each factor (internal error)".to_string(),
            })?;
            inverses.push(mul_mod(&derivative_of_monic(f, n), &inverse, f, n));
        }
        let mut tree = vec![factors.factors.clone()];
        while tree.last().is_some_and(|level| level.len() > 1) {
            let level = tree.last().cloned().unwrap_or_default();
            tree.push(
                level
                    .chunks(2)
                    .map(|pair| if pair.len() == 2 { mul(&pair[0], &pair[1], n) } else { pair[0].clone() })
                    .collect(),
            );
        }
        let tree_inverses =
            tree.iter().skip(1).map(|level| level.iter().map(|node| reversed_inverse(node, n)).collect()).collect();
        let common = factors.factors.first().cloned().unwrap_or_default();
        let mut to_common = Vec::with_capacity(factors.factors.len());
        let mut from_common = Vec::with_capacity(factors.factors.len());
        for (f, &t) in factors.factors.iter().zip(&factors.representatives) {
            let s = modarith::inverse_mod(t % m, m).ok_or(RlweError::InvalidParameter {
                name: "m",
                value: m,
                requirement: "every coset representative must be a unit (internal error)".to_string(),
            })?;
            to_common.push(monomial_powers(t, &common, n));
            from_common.push(monomial_powers(s, f, n));
        }
        Ok(Self {
            factors,
            modulus: n,
            phi_m,
            phi_reduction,
            inverses,
            tree,
            tree_inverses,
            to_common,
            from_common,
            hypercube,
        })
    }

    /// The hypercube that orders the slots ([`crate::hypercube`]).
    pub fn hypercube(&self) -> &Hypercube {
        &self.hypercube
    }

    /// The common ring `Z_{p^r}[X]/G` of every slot: `G`, monic, from the constant up.
    pub fn slot_modulus(&self) -> &[u64] {
        self.factors.factors.first().map_or(&[], Vec::as_slice)
    }

    /// The slots of the plaintexts of `params`, whose `t` must be a prime power `p^r` with `p`
    /// not dividing the ring's index `m` (`2N` over `x^N + 1`). Errors with
    /// [`RlweError::InvalidParameter`] for another `t`, and as [`new`](Self::new).
    pub fn for_params<P: crate::SchemeParameters>(params: &P) -> Result<Self> {
        let t = params.plaintext_modulus();
        let (p, r) = prime_power(t).ok_or(RlweError::InvalidParameter {
            name: "plaintext modulus t",
            value: t,
            requirement: "must be a prime power p^r for extension-field slots".to_string(),
        })?;
        Self::new(params.core().ring_kind().index(), p, r)
    }

    /// The plaintext of `params` whose slots are `slots` ([`encode`](Self::encode)). Errors as
    /// `encode`, and with [`RlweError::InvalidParameter`] unless these are the slots of
    /// `params` ([`for_params`](Self::for_params)).
    pub fn encode_plaintext<P: crate::SchemeParameters>(
        &self,
        params: &std::sync::Arc<P>,
        slots: &[Vec<u64>],
    ) -> Result<crate::Plaintext<P>> {
        self.check_params(params.as_ref())?;
        crate::Plaintext::from_coefficients(params, &self.encode(slots)?)
    }

    /// The slots of `plaintext` ([`decode`](Self::decode)), with the same checks as
    /// [`encode_plaintext`](Self::encode_plaintext).
    pub fn decode_plaintext<P: crate::SchemeParameters>(
        &self,
        plaintext: &crate::Plaintext<P>,
    ) -> Result<Vec<Vec<u64>>> {
        self.check_params(plaintext.params().as_ref())?;
        self.decode(plaintext.coefficients())
    }

    fn check_params<P: crate::SchemeParameters>(&self, params: &P) -> Result<()> {
        let m = params.core().ring_kind().index();
        if m != self.factors.m || params.plaintext_modulus() != self.modulus {
            return Err(RlweError::InvalidParameter {
                name: "plaintext modulus t",
                value: params.plaintext_modulus(),
                requirement: format!(
                    "the slots are those of m = {}, t = {}; the parameters have m = {m}",
                    self.factors.m, self.modulus
                ),
            });
        }
        Ok(())
    }

    /// The factors in slot order, each with its slot's representative `t_i` (the hypercube's,
    /// [`Hypercube::representatives`]), and their degree.
    pub fn factors(&self) -> &CyclotomicFactors {
        &self.factors
    }

    /// The number of slots, `phi(m) / d`.
    pub fn slot_count(&self) -> usize {
        self.factors.factors.len()
    }

    /// The degree `d` of every slot.
    pub fn slot_degree(&self) -> usize {
        self.factors.degree
    }

    /// `p^r`.
    pub fn modulus(&self) -> u64 {
        self.modulus
    }

    /// `Phi_m` modulo `p^r`, monic, from the constant up.
    pub fn phi_m(&self) -> &[u64] {
        &self.phi_m
    }

    /// The plaintext (`phi(m)` coefficients below `p^r`) whose slot `i` is `slots[i]` (each an
    /// element of `Z_{p^r}[X]/G` given by at most `d` coefficients below `p^r`; fewer slots
    /// than [`slot_count`](Self::slot_count) leave the rest zero). Errors with [`RlweError::InvalidParameter`] for too many slots, a
    /// slot of more than `d` coefficients or a coefficient not below `p^r`.
    pub fn encode(&self, slots: &[Vec<u64>]) -> Result<Vec<u64>> {
        let (n, d) = (self.modulus, self.slot_degree());
        if slots.len() > self.slot_count() {
            return Err(RlweError::InvalidParameter {
                name: "slot count",
                value: slots.len() as u64,
                requirement: format!("must be at most {}", self.slot_count()),
            });
        }
        for slot in slots {
            if slot.len() > d {
                return Err(RlweError::InvalidParameter {
                    name: "slot length",
                    value: slot.len() as u64,
                    requirement: format!("must be at most the slot degree {d}"),
                });
            }
            below_modulus(slot, n, "slot coefficient")?;
        }
        // Leaves: w_i = u_i G_i^-1 mod F_i, u_i = v_i(x^{s_i}) mod F_i.
        let mut numerators: Vec<Vec<u64>> = (0..self.slot_count())
            .map(|i| match slots.get(i) {
                Some(v) if !v.is_empty() => {
                    let u = combine(v, &self.from_common[i], n);
                    mul_mod(&u, &self.inverses[i], &self.factors.factors[i], n)
                }
                _ => vec![0; d],
            })
            .collect();
        for level in 0..self.tree.len() - 1 {
            let denominators = &self.tree[level];
            numerators = numerators
                .chunks(2)
                .zip(denominators.chunks(2))
                .map(|(nums, dens)| match (nums, dens) {
                    ([a, b], [da, db]) => add(&mul(a, db, n), &mul(b, da, n), n),
                    _ => nums[0].clone(),
                })
                .collect();
        }
        let mut out = numerators.into_iter().next().unwrap_or_default();
        out.resize(self.phi_m.len() - 1, 0);
        Ok(out)
    }

    /// The plaintext automorphism `a(x) -> a(x^g) mod Phi_m` on coefficients below `p^r`
    /// (at most `phi(m)` of them): what the ciphertext automorphism by `g` does to the
    /// message, for rotating plaintexts in the clear (a unit `g` of `Z_m^*`). Errors with
    /// [`RlweError::InvalidParameter`] for a `g` that is not a unit, too many coefficients or
    /// a coefficient not below `p^r`.
    pub fn automorphism(&self, plaintext: &[u64], g: u64) -> Result<Vec<u64>> {
        let (m, n) = (self.factors.m, self.modulus);
        let phi = self.phi_m.len() - 1;
        if modarith::inverse_mod(g % m, m).is_none() {
            return Err(RlweError::InvalidParameter {
                name: "Galois element",
                value: g,
                requirement: format!("must be a unit modulo m = {m}"),
            });
        }
        if plaintext.len() > phi {
            return Err(RlweError::InvalidParameter {
                name: "plaintext length",
                value: plaintext.len() as u64,
                requirement: format!("must be at most phi(m) = {phi}"),
            });
        }
        below_modulus(plaintext, n, "plaintext coefficient")?;
        // x^j -> x^{j g mod m} (x^m = 1 modulo Phi_m), then the reduction modulo Phi_m.
        let mut spread = vec![0u64; m as usize];
        for (j, &c) in plaintext.iter().enumerate() {
            let k = (u128::from(j as u64) * u128::from(g) % u128::from(m)) as usize;
            spread[k] = (spread[k] + c) % n;
        }
        Ok(self.phi_reduction.reduce(n, &spread)?)
    }

    /// The slots of `plaintext` (coefficients below `p^r`, any length): slot `i` is
    /// `plaintext(X^{t_i}) mod G`, `d` coefficients each. Errors with
    /// [`RlweError::InvalidParameter`] for a coefficient not below `p^r`.
    pub fn decode(&self, plaintext: &[u64]) -> Result<Vec<Vec<u64>>> {
        let n = self.modulus;
        below_modulus(plaintext, n, "plaintext coefficient")?;
        // Remainders down the subproduct tree: a node's remainder reduced by its children.
        let root = self.tree.last().and_then(|level| level.first()).ok_or(RlweError::InvalidParameter {
            name: "slot count",
            value: 0,
            requirement: "the slot structure has no factors (internal error)".to_string(),
        })?;
        let mut remainders = vec![reduce(plaintext, root, n)];
        for level in (0..self.tree.len() - 1).rev() {
            // Level 0 (the factors, degree d) divides by long division.
            let inverses = level.checked_sub(1).and_then(|above| self.tree_inverses.get(above));
            remainders = self.tree[level]
                .chunks(2)
                .enumerate()
                .zip(&remainders)
                .flat_map(|((pair, children), r)| {
                    children.iter().enumerate().map(move |(i, f)| {
                        match inverses.and_then(|level| level.get(2 * pair + i)) {
                            Some(inverse) => reduce_with(r, f, inverse, n),
                            None => reduce(r, f, n),
                        }
                    })
                })
                .collect();
        }
        Ok(remainders.iter().zip(&self.to_common).map(|(r, powers)| combine(r, powers, n)).collect())
    }
}

/// Errors with [`RlweError::InvalidParameter`] (naming `what`) unless every word is below `n`.
fn below_modulus(words: &[u64], n: u64, what: &'static str) -> Result<()> {
    match words.iter().find(|&&c| c >= n) {
        Some(&bad) => {
            Err(RlweError::InvalidParameter { name: what, value: bad, requirement: format!("must be below p^r = {n}") })
        }
        None => Ok(()),
    }
}

/// `y^(e k) mod f` for `k < d` (`d = deg f`), modulo `n`.
fn monomial_powers(e: u64, f: &[u64], n: u64) -> Vec<Vec<u64>> {
    let d = f.len() - 1;
    let mut y = vec![0u64; d.max(2)];
    y[1] = 1 % n;
    let base = power_mod(&reduce(&y, f, n), e, f, n);
    let mut powers = Vec::with_capacity(d);
    let mut current = reduce(&[1 % n], f, n);
    for _ in 0..d {
        powers.push(current.clone());
        current = mul_mod(&current, &base, f, n);
    }
    powers
}

/// `sum_k b[k] powers[k]` modulo `n`: the element `b` (coefficients of `y^k`) carried by a
/// change of ring whose images of `y^k` are `powers`.
fn combine(b: &[u64], powers: &[Vec<u64>], n: u64) -> Vec<u64> {
    let d = powers.first().map_or(0, Vec::len);
    let mut out = vec![0u128; d];
    for (&c, power) in b.iter().zip(powers) {
        if c == 0 {
            continue;
        }
        for (o, &x) in out.iter_mut().zip(power) {
            *o = (*o + u128::from(c) * u128::from(x)) % u128::from(n);
        }
    }
    out.into_iter().map(|w| w as u64).collect()
}

/// `factors` in the slot order of `cube` (the exponent vectors'), each with its slot's
/// representative `t_e` in place of the least element of its coset.
fn in_hypercube_order(factors: CyclotomicFactors, cube: &Hypercube) -> Result<CyclotomicFactors> {
    let (m, p) = (factors.m, factors.p);
    let least = |t: u64| {
        let mut x = t % m;
        let mut low = x;
        for _ in 0..factors.degree {
            x = (u128::from(x) * u128::from(p) % u128::from(m)) as u64;
            low = low.min(x);
        }
        low
    };
    let mut ordered = Vec::with_capacity(cube.slot_count());
    for &t in &cube.representatives {
        let index = factors.representatives.iter().position(|&r| r == least(t)).ok_or(RlweError::InvalidParameter {
            name: "m",
            value: m,
            requirement: "a hypercube slot without its factor (internal error)".to_string(),
        })?;
        ordered.push(factors.factors[index].clone());
    }
    Ok(CyclotomicFactors { factors: ordered, representatives: cube.representatives.clone(), ..factors })
}

/// `(p, r)` with `t = p^r`, `p` prime; `None` for another `t`.
fn prime_power(t: u64) -> Option<(u64, u32)> {
    if t < 2 {
        return None;
    }
    if modarith::is_prime(t) {
        return Some((t, 1));
    }
    for r in 2..64u32 {
        let root = (t as f64).powf(1.0 / f64::from(r)).round() as u64;
        for p in root.saturating_sub(1)..=root + 1 {
            if p >= 2 && checked_power(p, r) == Some(t) && modarith::is_prime(p) {
                return Some((p, r));
            }
        }
        if root < 2 {
            break;
        }
    }
    None
}

/// `p^r` below `2^62` (checked again by `cyclotomic_factors`).
fn checked_modulus(p: u64, r: u32) -> Result<u64> {
    checked_power(p, r).filter(|&n| n < 1 << 62).ok_or(RlweError::InvalidParameter {
        name: "r",
        value: u64::from(r),
        requirement: "p^r must be below 2^62".to_string(),
    })
}

/// The derivative of a monic `f`, `d` words.
fn derivative_of_monic(f: &[u64], n: u64) -> Vec<u64> {
    let mut out = derivative(f, n);
    out.resize(f.len() - 1, 0);
    out
}
