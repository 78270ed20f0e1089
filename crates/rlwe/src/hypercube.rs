//! The hypercube of the slots (HElib's `PAlgebra`; Halevi and Shoup, "Algorithms in HElib",
//! CRYPTO 2014, section 2.4): generators `g_1 .. g_k` of `Q = Z_m^* / <p>` with orders
//! `o_1 .. o_k` such that every coset of `<p>` is `g_1^{e_1} .. g_k^{e_k} <p>` for exactly one
//! exponent vector `0 <= e_i < o_i`. Slot `e` is the coset with representative
//! `t_e = prod g_i^{e_i} mod m`, so `x -> x^{g_i}` moves slot `e + 1_i` to slot `e`: a rotation
//! along dimension `i`. A dimension is *good* when `g_i^{o_i} = 1` modulo `m` (its order in
//! `Z_m^*` is its order in `Q`): the rotation wraps around with the values unchanged. Otherwise
//! (*bad*), `g_i^{o_i}` is a nontrivial power of `p` and the values that wrap around come back
//! under a Frobenius power.
//!
//! Construction, as for a basis of a finite abelian group: repeatedly take an element `x` of
//! largest order `o` in `Q / H` (`H` the subgroup of the generators so far), and correct it to
//! `x' = x h^-1` with `h^o = x^o` in `H` where such `h` exists, so that `x'^o = 1` in `Q` and
//! `Q = H x <x'>` (a cyclic subgroup of largest order is a direct factor); among the candidates
//! of that order, one whose power `x'^{o}` is `1` modulo `m` is preferred (a good dimension).
//! Orders come from the prime factors of `|Q / H|` (a few powers per unit), `h` from the
//! exponent vectors kept for `H`: about `phi(m) log^2 m` products (24 ms at `m = 2^17`).

use crate::{Result, RlweError};

/// The hypercube of `Z_m^* / <p>` (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hypercube {
    /// `m`.
    pub m: u64,
    /// `p`.
    pub p: u64,
    /// The generators `g_i`, largest order first.
    pub generators: Vec<u64>,
    /// Their orders `o_i` in `Z_m^* / <p>`.
    pub orders: Vec<usize>,
    /// Whether dimension `i` is good (`g_i^{o_i} = 1` modulo `m`).
    pub good: Vec<bool>,
    /// The representative `t_e = prod g_i^{e_i} mod m` of each slot, slots in the order of
    /// their exponent vectors (the last dimension fastest).
    pub representatives: Vec<u64>,
}

impl Hypercube {
    /// The hypercube of `Z_m^* / <p>`. Errors with [`RlweError::InvalidParameter`] for
    /// `m < 2`, `m > 2^20` or `p` not a unit modulo `m`.
    pub fn new(m: u64, p: u64) -> Result<Self> {
        if !(2..=1 << 20).contains(&m) || poly::cyclotomic::gcd((p % m) as usize, m as usize) != 1 {
            return Err(RlweError::InvalidParameter {
                name: "m",
                value: m,
                requirement: format!("must be in 2 ..= 2^20 with p = {p} a unit modulo m"),
            });
        }
        let mul = |a: u64, b: u64| (u128::from(a) * u128::from(b) % u128::from(m)) as u64;
        let units: Vec<u64> = (1..m).filter(|&u| poly::cyclotomic::gcd(u as usize, m as usize) == 1).collect();
        // coset[u]: the index of u's coset of <p>; members: the coset's elements.
        let mut coset = vec![usize::MAX; m as usize];
        let mut cosets = 0usize;
        for &u in &units {
            if coset[u as usize] != usize::MAX {
                continue;
            }
            let mut x = u;
            while coset[x as usize] == usize::MAX {
                coset[x as usize] = cosets;
                x = mul(x, p);
            }
            cosets += 1;
        }
        let (mut generators, mut orders, mut good) = (Vec::new(), Vec::new(), Vec::new());
        // H's elements as units, each with its exponent vector over the generators so far, and
        // the index in them of each coset in H (usize::MAX outside).
        let mut h_elements = vec![1 % m];
        let mut h_exponents: Vec<Vec<usize>> = vec![Vec::new()];
        let mut h_index = vec![usize::MAX; cosets];
        h_index[coset[1 % m as usize]] = 0;
        while h_elements.len() < cosets {
            // The order of x in Q / H divides |Q / H|: strip its prime factors while the power
            // stays in H.
            let quotient = (cosets / h_elements.len()) as u64;
            let primes = poly::cyclotomic::prime_factors(quotient);
            let in_h = |y: u64| h_index[coset[y as usize]] != usize::MAX;
            let order_mod_h = |x: u64| {
                let mut o = quotient;
                for &r in &primes {
                    while o.is_multiple_of(r) && in_h(pow(x, o / r, m)) {
                        o /= r;
                    }
                }
                o as usize
            };
            let order_of: Vec<usize> = units.iter().map(|&x| order_mod_h(x)).collect();
            let largest = order_of.iter().copied().max().unwrap_or(1);
            let mut chosen: Option<(u64, bool)> = None;
            for (&x, _) in units.iter().zip(&order_of).filter(|&(_, &o)| o == largest) {
                // x^o lies in H, at exponents e: find h = prod g_j^{a_j} with o a_j = e_j
                // (mod o_j), so h^o is in the coset of x^o, and take x h^-1.
                let at = h_index[coset[pow(x, largest as u64, m) as usize]];
                let Some(exponents) = h_exponents.get(at) else { continue };
                let mut h = 1 % m;
                let mut solvable = true;
                for ((&e, &o_j), &g_j) in exponents.iter().zip(&orders).zip(&generators) {
                    match (0..o_j).find(|&a| (largest * a) % o_j == e) {
                        Some(a) => h = mul(h, pow(g_j, a as u64, m)),
                        None => solvable = false,
                    }
                }
                let Some(h_inverse) = solvable.then(|| modarith::inverse_mod(h, m)).flatten() else { continue };
                let corrected = mul(x, h_inverse);
                let is_good = pow(corrected, largest as u64, m) == 1 % m;
                if chosen.is_none_or(|(_, good_so_far)| is_good && !good_so_far) {
                    chosen = Some((corrected, is_good));
                }
                if is_good {
                    break;
                }
            }
            let (g, is_good) = chosen.ok_or_else(|| RlweError::InvalidParameter {
                name: "m",
                value: m,
                requirement: "no generator completes the hypercube (internal error)".to_string(),
            })?;
            // H <- H x <g>.
            let mut grown = Vec::with_capacity(h_elements.len() * largest);
            let mut grown_exponents = Vec::with_capacity(h_elements.len() * largest);
            let mut power = 1 % m;
            for i in 0..largest {
                for (&h, exponents) in h_elements.iter().zip(&h_exponents) {
                    grown.push(mul(h, power));
                    grown_exponents.push(exponents.iter().copied().chain([i]).collect::<Vec<_>>());
                }
                power = mul(power, g);
            }
            for (index, &x) in grown.iter().enumerate() {
                h_index[coset[x as usize]] = index;
            }
            h_elements = grown;
            h_exponents = grown_exponents;
            generators.push(g);
            orders.push(largest);
            good.push(is_good);
        }
        // Slot representatives in exponent order, the last dimension fastest.
        let mut representatives = vec![1 % m];
        for (&g, &o) in generators.iter().zip(&orders) {
            let mut next = Vec::with_capacity(representatives.len() * o);
            for &t in &representatives {
                let mut x = t;
                for _ in 0..o {
                    next.push(x);
                    x = mul(x, g);
                }
            }
            representatives = next;
        }
        let mut seen = vec![false; cosets];
        for &t in &representatives {
            if std::mem::replace(&mut seen[coset[t as usize]], true) {
                return Err(RlweError::InvalidParameter {
                    name: "m",
                    value: m,
                    requirement: "the generators do not form a hypercube (internal error)".to_string(),
                });
            }
        }
        Ok(Self { m, p, generators, orders, good, representatives })
    }

    /// The number of slots, `prod o_i`.
    pub fn slot_count(&self) -> usize {
        self.representatives.len()
    }

    /// The index of the slot with exponent vector `exponents` (each below its order).
    pub fn slot_index(&self, exponents: &[usize]) -> Option<usize> {
        if exponents.len() != self.orders.len() {
            return None;
        }
        exponents.iter().zip(&self.orders).try_fold(0usize, |acc, (&e, &o)| (e < o).then_some(acc * o + e))
    }
}

/// `a^e mod m`.
pub(crate) fn pow(a: u64, mut e: u64, m: u64) -> u64 {
    let (mut result, mut base) = (1 % m, a % m);
    while e > 0 {
        if e & 1 == 1 {
            result = (u128::from(result) * u128::from(base) % u128::from(m)) as u64;
        }
        base = (u128::from(base) * u128::from(base) % u128::from(m)) as u64;
        e >>= 1;
    }
    result
}
