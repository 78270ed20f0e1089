//! Dense polynomials over `Z_n` (coefficients from the constant up, `n < 2^62`), the arithmetic
//! of the slot algebra ([`crate::cyclotomic_factors`], [`crate::extension_slots`]).
//!
//! Short products are schoolbook in 128-bit words. Long ones (both factors above
//! [`FAST_LENGTH`] coefficients) run as one exact integer convolution on NTT primes of 55 bits
//! (the negacyclic NTT of `poly`, padded so nothing wraps), reconstructed by Garner's CRT
//! modulo `n`: as many primes (one to three) as the integer product's coefficients need,
//! `min(len) (n - 1)^2 <= 2^17 2^124 < q_0 q_1 q_2`. Long divisions by a monic `f` use the reversed power series
//! (Newton's iteration for `rev(f)^-1 mod x^k`), so remainders cost a few products.

use std::sync::OnceLock;

use modarith::Modulus;
use poly::ntt::NttPlan;

/// Factors at least this long are multiplied through the NTT (below, schoolbook wins).
const FAST_LENGTH: usize = 48;

/// The largest NTT the fast product uses (`poly`'s plans stop at `2^17`); longer products are
/// schoolbook.
const MAX_FAST_SIZE: usize = 1 << 17;

/// Three primes `1 mod 2^18` of 55 bits, for every product up to [`MAX_FAST_SIZE`].
fn convolution_primes() -> Option<&'static [Modulus; 3]> {
    static PRIMES: OnceLock<Option<[Modulus; 3]>> = OnceLock::new();
    PRIMES
        .get_or_init(|| {
            let primes = modarith::generate_ntt_primes(55, 2 * MAX_FAST_SIZE as u64, 3, &[]).ok()?;
            Some([Modulus::new(primes[0]).ok()?, Modulus::new(primes[1]).ok()?, Modulus::new(primes[2]).ok()?])
        })
        .as_ref()
}

/// The three primes' NTT plans of `size` (a power of two up to [`MAX_FAST_SIZE`]), made once
/// per size: a plan's tables cost as much as a few transforms of its size.
fn convolution_plans(size: usize) -> Option<&'static [NttPlan; 3]> {
    const SIZES: usize = MAX_FAST_SIZE.trailing_zeros() as usize + 1;
    static PLANS: [OnceLock<Option<[NttPlan; 3]>>; SIZES] = [const { OnceLock::new() }; SIZES];
    let slot = PLANS.get(size.trailing_zeros() as usize)?;
    slot.get_or_init(|| {
        let [q0, q1, q2] = convolution_primes()?;
        Some([NttPlan::new(*q0, size).ok()?, NttPlan::new(*q1, size).ok()?, NttPlan::new(*q2, size).ok()?])
    })
    .as_ref()
}

/// How many products `x y` (`x, y < n`) a 128-bit accumulator holds before it must be reduced.
fn terms_per_reduction(n: u64) -> usize {
    let product_bits = 2 * (64 - (n - 1).max(1).leading_zeros());
    if product_bits >= 127 { 1 } else { 1usize << (127 - product_bits).min(40) }
}

/// `p^r`, `None` on overflow.
pub(crate) fn checked_power(p: u64, r: u32) -> Option<u64> {
    (0..r).try_fold(1u64, |acc, _| acc.checked_mul(p))
}

pub(crate) fn mul_word(a: u64, b: u64, n: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(n)) as u64
}

/// `a + b` modulo `n` (lengths may differ).
pub(crate) fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    let mut out = vec![0; a.len().max(b.len())];
    for (i, o) in out.iter_mut().enumerate() {
        let x = u128::from(a.get(i).copied().unwrap_or(0)) + u128::from(b.get(i).copied().unwrap_or(0));
        *o = (x % u128::from(n)) as u64;
    }
    out
}

/// `a b` modulo `n` (module docs: schoolbook or three-prime NTT by length).
pub(crate) fn mul(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    if a.len().min(b.len()) >= FAST_LENGTH
        && let Some(product) = mul_ntt(a, b, n)
    {
        return product;
    }
    mul_schoolbook(a, b, n)
}

/// `a b` modulo `n`, schoolbook (nonempty factors): each output coefficient summed in 128
/// bits and reduced once per [`terms_per_reduction`] terms.
fn mul_schoolbook(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    let n128 = u128::from(n);
    let chunk = terms_per_reduction(n);
    (0..a.len() + b.len() - 1)
        .map(|k| {
            let low = k.saturating_sub(b.len() - 1);
            let high = k.min(a.len() - 1);
            let mut acc = 0u128;
            for (count, i) in (low..=high).enumerate() {
                if count % chunk == chunk - 1 {
                    acc %= n128;
                }
                acc += u128::from(a[i]) * u128::from(b[k - i]);
            }
            (acc % n128) as u64
        })
        .collect()
}

/// `a b` over the integers on three NTT primes, then modulo `n` (module docs); `None` when
/// the product is longer than [`MAX_FAST_SIZE`] or a prime's plan cannot be made.
fn mul_ntt(a: &[u64], b: &[u64], n: u64) -> Option<Vec<u64>> {
    let length = a.len() + b.len() - 1;
    let size = length.next_power_of_two().max(2);
    if size > MAX_FAST_SIZE {
        return None;
    }
    let primes = convolution_primes()?;
    let plans = convolution_plans(size)?;
    // Primes enough for the integer product's coefficients, below min(len) (n - 1)^2.
    let bound_bits =
        2 * u64::from(64 - (n - 1).max(1).leading_zeros()) + (a.len().min(b.len()) as u64).ilog2() as u64 + 1;
    let used = if bound_bits < 54 {
        1
    } else if bound_bits < 108 {
        2
    } else {
        3
    };
    let mut residues: Vec<Vec<u64>> = Vec::with_capacity(used);
    for (q, plan) in primes.iter().zip(plans).take(used) {
        let spread = |x: &[u64]| {
            let mut v: Vec<u64> = x.iter().map(|&c| q.reduce(c)).collect();
            v.resize(size, 0);
            v
        };
        let (mut fa, mut fb) = (spread(a), spread(b));
        plan.forward_inplace(&mut fa).ok()?;
        plan.forward_inplace(&mut fb).ok()?;
        for (x, &y) in fa.iter_mut().zip(&fb) {
            *x = q.mul(*x, y);
        }
        plan.inverse_inplace(&mut fa).ok()?;
        fa.truncate(length);
        residues.push(fa);
    }
    let n128 = u128::from(n);
    if used == 1 {
        return Some(residues.swap_remove(0).into_iter().map(|r| (u128::from(r) % n128) as u64).collect());
    }
    // Garner: x = r_0 + q_0 (y_1 + q_1 y_2), y_1 = (r_1 - r_0) q_0^-1 mod q_1,
    // y_2 = (r_2 - r_0 - q_0 y_1) (q_0 q_1)^-1 mod q_2 (y_2 = 0 on two primes).
    let [q0, q1, q2] = primes;
    let q0_inv_q1 = q1.inv(q1.reduce(q0.value())).ok()?;
    let q01_inv_q2 = q2.inv(q2.mul(q2.reduce(q0.value()), q2.reduce(q1.value()))).ok()?;
    let q0_mod_q2 = q2.reduce(q0.value());
    let (q0_mod_n, q1_mod_n) = (u128::from(q0.value()) % n128, u128::from(q1.value()) % n128);
    Some(
        (0..length)
            .map(|k| {
                let (r0, r1) = (residues[0][k], residues[1][k]);
                let y1 = q1.mul(q1.sub(r1, q1.reduce(r0)), q0_inv_q1);
                let y2 = match residues.get(2) {
                    Some(r) => {
                        q2.mul(q2.sub(q2.sub(r[k], q2.reduce(r0)), q2.mul(q0_mod_q2, q2.reduce(y1))), q01_inv_q2)
                    }
                    None => 0,
                };
                let high = (u128::from(y1) % n128 + q1_mod_n * (u128::from(y2) % n128)) % n128;
                ((u128::from(r0) % n128 + q0_mod_n * high) % n128) as u64
            })
            .collect(),
    )
}

/// `a mod f` for a monic `f` of degree `d >= 1`, `d` words, modulo `n` (module docs: long
/// division, or the reversed power series when both quotient and divisor are long).
pub(crate) fn reduce(a: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    let d = f.len() - 1;
    if a.len() > d && a.len() - d >= FAST_LENGTH && d >= FAST_LENGTH {
        return reduce_newton(a, f, n);
    }
    reduce_long(a, f, n)
}

/// `a mod f` by the quotient `q = rev(rev(a) rev(f)^-1 mod x^k)`, `k = len(a) - d`, and
/// `a - q f` (`f` monic: `rev(f)` has constant term 1, a unit modulo every `n`).
fn reduce_newton(a: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    let k = a.len() - (f.len() - 1);
    let reversed_f: Vec<u64> = f.iter().rev().copied().collect();
    reduce_by_series(a, f, &series_inverse(&reversed_f, k, n), n)
}

/// `rev(f)^-1 mod x^d` for a monic `f` of degree `d`: with it, [`reduce_with`] divides
/// anything shorter than `2d + 1` coefficients by `f` in two products.
pub(crate) fn reversed_inverse(f: &[u64], n: u64) -> Vec<u64> {
    let reversed_f: Vec<u64> = f.iter().rev().copied().collect();
    series_inverse(&reversed_f, f.len() - 1, n)
}

/// [`reduce`] with `inverse = `[`reversed_inverse`]`(f)` precomputed.
pub(crate) fn reduce_with(a: &[u64], f: &[u64], inverse: &[u64], n: u64) -> Vec<u64> {
    let d = f.len() - 1;
    if a.len() > d && a.len() - d >= FAST_LENGTH && d >= FAST_LENGTH && a.len() - d <= inverse.len() {
        return reduce_by_series(a, f, &inverse[..a.len() - d], n);
    }
    reduce(a, f, n)
}

/// `a mod f` given `inverse = rev(f)^-1 mod x^k`, `k = len(a) - deg f`.
fn reduce_by_series(a: &[u64], f: &[u64], inverse: &[u64], n: u64) -> Vec<u64> {
    let d = f.len() - 1;
    let k = a.len() - d;
    let reversed_a: Vec<u64> = a.iter().rev().take(k).copied().collect();
    let mut quotient = mul(&reversed_a, inverse, n);
    quotient.truncate(k);
    quotient.resize(k, 0);
    quotient.reverse();
    let qf = mul(&quotient, f, n);
    (0..d).map(|i| (a[i] + n - qf[i] % n) % n).collect()
}

/// `g^-1 mod x^k` modulo `n` for `g(0) = 1`: Newton's iteration `h <- h (2 - g h)`, doubling
/// the precision each step.
fn series_inverse(g: &[u64], k: usize, n: u64) -> Vec<u64> {
    let mut h = vec![1 % n];
    let mut precision = 1;
    while precision < k {
        precision = (2 * precision).min(k);
        let mut gh = mul(&g[..g.len().min(precision)], &h, n);
        gh.truncate(precision);
        let mut two_minus: Vec<u64> = gh.iter().map(|&c| (n - c) % n).collect();
        two_minus.resize(precision, 0);
        two_minus[0] = (two_minus[0] + 2) % n;
        h = mul(&h, &two_minus, n);
        h.truncate(precision);
    }
    h.resize(k, 0);
    h
}

/// `a mod f` by long division.
fn reduce_long(a: &[u64], f: &[u64], n: u64) -> Vec<u64> {
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
pub(crate) fn mul_mod(a: &[u64], b: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    reduce(&mul(a, b, n), f, n)
}

/// `a^e mod f` modulo `n`.
pub(crate) fn power_mod(a: &[u64], e: u64, f: &[u64], n: u64) -> Vec<u64> {
    let mut result = reduce(&[1 % n], f, n);
    for bit in (0..64 - e.leading_zeros()).rev() {
        result = mul_mod(&result, &result, f, n);
        if (e >> bit) & 1 == 1 {
            result = mul_mod(&result, a, f, n);
        }
    }
    result
}

/// The derivative of `a` modulo `n`.
pub(crate) fn derivative(a: &[u64], n: u64) -> Vec<u64> {
    a.iter().enumerate().skip(1).map(|(i, &c)| mul_word(c, i as u64 % n, n)).collect()
}

/// `a^-1 mod f` modulo `n = p^r` (`f` monic, irreducible modulo `p`): Euclid modulo `p`, then
/// Newton's iteration `u <- u (2 - a u)`, which doubles the power of `p` it is right modulo.
/// `None` when `a` is not invertible modulo `p`.
pub(crate) fn inverse_mod_factor(a: &[u64], f: &[u64], p: u64, n: u64) -> Option<Vec<u64>> {
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
pub(crate) fn inverse_mod_p(a: &[u64], f: &[u64], p: u64) -> Option<Vec<u64>> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A deterministic stream of words below `n`.
    fn words(count: usize, n: u64, seed: u64) -> Vec<u64> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        (0..count)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state % n
            })
            .collect()
    }

    /// The product by definition: every term reduced on its own.
    fn mul_naive(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
        let mut out = vec![0u64; a.len() + b.len() - 1];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                out[i + j] = ((u128::from(out[i + j]) + u128::from(x) * u128::from(y)) % u128::from(n)) as u64;
            }
        }
        out
    }

    #[test]
    fn schoolbook_products_are_the_definition() {
        for (i, &n) in MODULI.iter().enumerate() {
            for (la, lb) in [(1, 1), (3, 70), (200, 150)] {
                let (a, b) = (words(la, n, i as u64 * 5 + 1), words(lb, n, i as u64 * 5 + 2));
                assert_eq!(mul_schoolbook(&a, &b, n), mul_naive(&a, &b, n), "n = {n}, lengths {la} x {lb}");
            }
            let full = vec![n - 1; 300];
            assert_eq!(mul_schoolbook(&full, &full, n), mul_naive(&full, &full, n), "n = {n}, all n - 1");
        }
    }

    const MODULI: [u64; 7] = [2, 256, 65537, 3u64.pow(25), 3u64.pow(39), (1 << 61) - 1, (1 << 62) - 57];

    #[test]
    fn ntt_products_are_the_schoolbook_products() {
        for (i, &n) in MODULI.iter().enumerate() {
            for (la, lb) in [(48, 48), (49, 300), (513, 77), (1000, 1024), (4096, 4097)] {
                let (a, b) = (words(la, n, i as u64 * 7 + 1), words(lb, n, i as u64 * 7 + 2));
                let fast = mul_ntt(&a, &b, n).expect("within the NTT's sizes");
                assert_eq!(fast, mul_schoolbook(&a, &b, n), "n = {n}, lengths {la} x {lb}");
            }
        }
        // The largest coefficients: every word n - 1 (the bound the three primes must hold).
        let n = (1 << 62) - 57;
        let a = vec![n - 1; 3000];
        assert_eq!(mul_ntt(&a, &a, n).unwrap(), mul_schoolbook(&a, &a, n));
    }

    #[test]
    fn newton_remainders_are_the_long_division_remainders() {
        for (i, &n) in MODULI.iter().enumerate() {
            for (la, d) in [(100, 48), (2000, 1000), (1025, 512), (5000, 60), (4096, 4000)] {
                let a = words(la, n, i as u64 * 11 + 3);
                let mut f = words(d, n, i as u64 * 11 + 4);
                f.push(1);
                assert_eq!(reduce_newton(&a, &f, n), reduce_long(&a, &f, n), "n = {n}, {la} mod degree {d}");
            }
        }
    }

    #[test]
    fn precomputed_inverses_give_the_same_remainders() {
        for (i, &n) in MODULI.iter().enumerate() {
            let mut f = words(600, n, i as u64 + 40);
            f.push(1);
            let inverse = reversed_inverse(&f, n);
            for la in [10, 601, 700, 1201] {
                let a = words(la, n, i as u64 + la as u64);
                assert_eq!(reduce_with(&a, &f, &inverse, n), reduce_long(&a, &f, n), "n = {n}, length {la}");
            }
        }
    }

    #[test]
    fn series_inverse_inverts() {
        let n = 3u64.pow(20);
        let mut g = words(700, n, 5);
        g[0] = 1;
        let h = series_inverse(&g, 700, n);
        let mut gh = mul(&g, &h, n);
        gh.truncate(700);
        let mut one = vec![0; 700];
        one[0] = 1;
        assert_eq!(gh, one);
    }
}
