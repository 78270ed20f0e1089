//! Extension-field slots on the host (HElib's `EncryptedArray` encoding): a plaintext of
//! `Z_{p^r}[x]/Phi_m` is, by the Chinese remainder theorem over the factors `F_i` of
//! [`crate::cyclotomic_factors`], a vector of `phi(m) / d` slots, slot `i` an element of
//! `Z_{p^r}[x]/F_i` (of `GF(p^d)` for `r = 1`) given by its `d` coefficients.
//!
//! - [`decode`](ExtensionSlots::decode): `a mod F_i` for every `i`.
//! - [`encode`](ExtensionSlots::encode): `a = sum_i t_i (Phi_m / F_i)` with
//!   `t_i = s_i (Phi_m / F_i)^-1 mod F_i`, summed as fractions up a subproduct tree
//!   (`N/D = N_l/D_l + N_r/D_r` with `N = N_l D_r + N_r D_l`, `D = D_l D_r`; at the root
//!   `D = Phi_m` and `a = N`). The inverse comes from derivatives: `Phi_m = F_i G_i` gives
//!   `G_i = Phi_m' (F_i')^-1 mod F_i`, so `G_i^-1 = F_i' (Phi_m' mod F_i)^-1`, inverted modulo `p`
//!   by Euclid and lifted to `p^r` by Newton's iteration.
//!
//! Schoolbook products throughout: encoding costs about `4 phi(m)^2` and decoding `phi(m)^2`
//! products modulo `p^r` (0.1 s at `phi(m) = 4096`); fast multiplication is left for later.

use crate::cyclotomic_factors::{CyclotomicFactors, cyclotomic_factors};
use crate::{Result, RlweError};

/// The slot structure of `Z_{p^r}[x]/Phi_m` (module docs).
#[derive(Debug, Clone)]
pub struct ExtensionSlots {
    factors: CyclotomicFactors,
    modulus: u64,
    /// `Phi_m` modulo `p^r` (monic, from the constant up).
    phi_m: Vec<u64>,
    /// Per slot: `G_i^-1 mod F_i` (`d` words).
    inverses: Vec<Vec<u64>>,
    /// The subproduct tree of the factors, leaves first: level `k` holds the products of
    /// `2^k` consecutive factors (the last one of a level may hold fewer).
    tree: Vec<Vec<Vec<u64>>>,
}

impl ExtensionSlots {
    /// The slots of `Z_{p^r}[x]/Phi_m`. Errors as [`cyclotomic_factors`], and with
    /// [`RlweError::InvalidParameter`] when an inverse does not exist (never for valid
    /// parameters: the factors are coprime modulo `p`).
    pub fn new(m: u64, p: u64, r: u32) -> Result<Self> {
        let factors = cyclotomic_factors(m, p, r)?;
        let n = checked_modulus(p, r)?;
        let phi_m = poly::cyclotomic::cyclotomic_polynomial(m)
            .map_err(|e| RlweError::InvalidParameter { name: "m", value: m, requirement: e.to_string() })?
            .into_iter()
            .map(|c| c.rem_euclid(n as i64) as u64)
            .collect::<Vec<_>>();
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
        Ok(Self { factors, modulus: n, phi_m, inverses, tree })
    }

    /// The factors and their degree.
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

    /// The plaintext (`phi(m)` coefficients below `p^r`) whose slot `i` is `slots[i]` (each at
    /// most `d` coefficients below `p^r`; fewer slots than [`slot_count`](Self::slot_count)
    /// leave the rest zero). Errors with [`RlweError::InvalidParameter`] for too many slots, a
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
            if let Some(&bad) = slot.iter().find(|&&c| c >= n) {
                return Err(RlweError::InvalidParameter {
                    name: "slot coefficient",
                    value: bad,
                    requirement: format!("must be below p^r = {n}"),
                });
            }
        }
        // Leaves: t_i = s_i G_i^-1 mod F_i.
        let mut numerators: Vec<Vec<u64>> = (0..self.slot_count())
            .map(|i| match slots.get(i) {
                Some(s) if !s.is_empty() => mul_mod(s, &self.inverses[i], &self.factors.factors[i], n),
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

    /// The slots of `plaintext` (at most `phi(m)` coefficients below `p^r`, reduced modulo
    /// `Phi_m` first when longer): `plaintext mod F_i`, `d` coefficients each. Errors with
    /// [`RlweError::InvalidParameter`] for a coefficient not below `p^r`.
    pub fn decode(&self, plaintext: &[u64]) -> Result<Vec<Vec<u64>>> {
        let n = self.modulus;
        if let Some(&bad) = plaintext.iter().find(|&&c| c >= n) {
            return Err(RlweError::InvalidParameter {
                name: "plaintext coefficient",
                value: bad,
                requirement: format!("must be below p^r = {n}"),
            });
        }
        Ok(self.factors.factors.iter().map(|f| reduce(plaintext, f, n)).collect())
    }
}

/// `p^r` below `2^62` (checked again by `cyclotomic_factors`).
fn checked_modulus(p: u64, r: u32) -> Result<u64> {
    (0..r).try_fold(1u64, |acc, _| acc.checked_mul(p)).filter(|&n| n < 1 << 62).ok_or(RlweError::InvalidParameter {
        name: "r",
        value: u64::from(r),
        requirement: "p^r must be below 2^62".to_string(),
    })
}

fn mul_word(a: u64, b: u64, n: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(n)) as u64
}

/// `a + b` modulo `n` (lengths may differ).
fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    let mut out = vec![0; a.len().max(b.len())];
    for (i, o) in out.iter_mut().enumerate() {
        let x = u128::from(a.get(i).copied().unwrap_or(0)) + u128::from(b.get(i).copied().unwrap_or(0));
        *o = (x % u128::from(n)) as u64;
    }
    out
}

/// `a b` modulo `n` (schoolbook).
fn mul(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut wide = vec![0u128; a.len() + b.len() - 1];
    let n128 = u128::from(n);
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            wide[i + j] = (wide[i + j] + u128::from(x) * u128::from(y)) % n128;
        }
    }
    wide.into_iter().map(|w| w as u64).collect()
}

/// `a mod f` for a monic `f` of degree `d >= 1`, `d` words, modulo `n`.
fn reduce(a: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    let d = f.len() - 1;
    let mut r: Vec<u64> = a.to_vec();
    while r.len() > d {
        let top = r.pop().unwrap_or(0);
        if top != 0 {
            let shift = r.len() - d;
            for (i, &c) in f[..d].iter().enumerate() {
                r[shift + i] = (r[shift + i] + n - mul_word(top, c, n)) % n;
            }
        }
    }
    r.resize(d, 0);
    r
}

/// `a b mod f` modulo `n`.
fn mul_mod(a: &[u64], b: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    reduce(&mul(a, b, n), f, n)
}

/// The derivative of `a` modulo `n`.
fn derivative(a: &[u64], n: u64) -> Vec<u64> {
    a.iter().enumerate().skip(1).map(|(i, &c)| mul_word(c, i as u64 % n, n)).collect()
}

/// The derivative of a monic `f`, `d` words.
fn derivative_of_monic(f: &[u64], n: u64) -> Vec<u64> {
    let mut out = derivative(f, n);
    out.resize(f.len() - 1, 0);
    out
}

/// `a^-1 mod f` modulo `n = p^r` (`f` monic, irreducible modulo `p`): Euclid modulo `p`, then
/// Newton's iteration `u <- u (2 - a u)`, which doubles the power of `p` it is right modulo.
/// `None` when `a` is not invertible modulo `p`.
fn inverse_mod_factor(a: &[u64], f: &[u64], p: u64, n: u64) -> Option<Vec<u64>> {
    let mut u = inverse_mod_p(a, f, p)?;
    let mut precision = p;
    while precision < n {
        precision = precision.saturating_mul(precision).min(n);
        let au = mul_mod(a, &u, f, n);
        let mut two_minus: Vec<u64> = au.iter().map(|&c| (n - c) % n).collect();
        two_minus[0] = (two_minus[0] + 2) % n;
        u = mul_mod(&u, &two_minus, f, n);
    }
    Some(u)
}

/// `a^-1 mod f` over `GF(p)` by the extended Euclidean algorithm, `d` words.
fn inverse_mod_p(a: &[u64], f: &[u64], p: u64) -> Option<Vec<u64>> {
    let trim = |mut v: Vec<u64>| {
        while v.last() == Some(&0) {
            v.pop();
        }
        v
    };
    let d = f.len() - 1;
    // Invariant: r0 = s0 a (mod f), r1 = s1 a (mod f).
    let (mut r0, mut r1) = (trim(f.iter().map(|&c| c % p).collect()), trim(a.iter().map(|&c| c % p).collect()));
    let (mut s0, mut s1): (Vec<u64>, Vec<u64>) = (Vec::new(), vec![1]);
    while !r1.is_empty() {
        let lead = modarith::inverse_mod(*r1.last()?, p)?;
        let mut q = vec![0u64; r0.len().saturating_sub(r1.len()) + 1];
        let mut r = r0.clone();
        while r.len() >= r1.len() && !r.is_empty() {
            let c = mul_word(*r.last()?, lead, p);
            let shift = r.len() - r1.len();
            q[shift] = c;
            for (i, &x) in r1.iter().enumerate() {
                r[shift + i] = (r[shift + i] + p - mul_word(c, x, p)) % p;
            }
            r = trim(r);
        }
        let qs = mul(&q, &s1, p);
        let s = trim(add(&s0, &qs.iter().map(|&c| (p - c) % p).collect::<Vec<_>>(), p));
        (r0, r1) = (r1, r);
        (s0, s1) = (s1, s);
    }
    // r0 is the gcd: a nonzero constant when a is invertible.
    if r0.len() != 1 {
        return None;
    }
    let scale = modarith::inverse_mod(r0[0], p)?;
    let mut out: Vec<u64> = reduce(&s0, &f.iter().map(|&c| c % p).collect::<Vec<_>>(), p);
    for c in &mut out {
        *c = mul_word(*c, scale, p);
    }
    out.resize(d, 0);
    Some(out)
}
