//! Arithmetic modulo the Solinas prime `p = 2^64 - 2^32 + 1`.
//!
//! `modarith::Modulus` serves primes below `2^62` (its lazy reductions need `4p < 2^64`);
//! this prime needs its own code. Its special form gives a reduction of a 128-bit product
//! with no multiplication: writing `x = lo + 2^64 (hl + 2^32 hh)`, and since
//! `2^64 = 2^32 - 1 (mod p)` and `2^96 = -1 (mod p)`,
//! `x = lo - hh + (2^32 - 1) hl (mod p)`. `p - 1 = 2^32 (2^32 - 1)`, so the field has roots of
//! unity of every order `2^k`, `k <= 32`; 7 generates its multiplicative group.
//!
//! Every value here is canonical, in `[0, p)`; `kernels/bigint.cu` computes the same
//! functions bit for bit.

/// The prime `2^64 - 2^32 + 1`.
pub const P: u64 = 0xffff_ffff_0000_0001;
/// `2^64 mod p = 2^32 - 1`.
const EPSILON: u64 = 0xffff_ffff;
/// A generator of the multiplicative group of the field.
pub const GENERATOR: u64 = 7;
/// Largest `k` with a root of unity of order `2^k`.
pub const MAX_TWO_ADICITY: u32 = 32;

/// `a + b mod p`, for canonical `a`, `b`.
#[inline]
pub fn add(a: u64, b: u64) -> u64 {
    let (sum, carry) = a.overflowing_add(b);
    // With a carry the true sum is `sum + 2^64 = sum + EPSILON (mod p)`, and `sum < p - 1`.
    let sum = if carry { sum.wrapping_add(EPSILON) } else { sum };
    if sum >= P { sum - P } else { sum }
}

/// `a - b mod p`, for canonical `a`, `b`.
#[inline]
pub fn sub(a: u64, b: u64) -> u64 {
    let (diff, borrow) = a.overflowing_sub(b);
    if borrow { diff.wrapping_add(P) } else { diff }
}

/// `x mod p` for any 128-bit `x`.
#[inline]
pub fn reduce128(x: u128) -> u64 {
    let lo = x as u64;
    let hi = (x >> 64) as u64;
    let hh = hi >> 32;
    let hl = hi & EPSILON;
    let (mut t0, borrow) = lo.overflowing_sub(hh);
    if borrow {
        // `lo - hh + 2^64` wrapped; `- EPSILON` makes it `lo - hh + p`, no underflow: hh < 2^32.
        t0 = t0.wrapping_sub(EPSILON);
    }
    let t1 = hl * EPSILON;
    let (mut t2, carry) = t0.overflowing_add(t1);
    if carry {
        // `t0 + t1 - 2^64 + EPSILON < 2^64`: t1 <= (2^32 - 1)^2.
        t2 = t2.wrapping_add(EPSILON);
    }
    if t2 >= P { t2 - P } else { t2 }
}

/// `a * b mod p`.
#[inline]
pub fn mul(a: u64, b: u64) -> u64 {
    reduce128(u128::from(a) * u128::from(b))
}

/// `base^exponent mod p`.
pub fn pow(base: u64, mut exponent: u64) -> u64 {
    let mut result = 1;
    let mut square = base % P;
    while exponent > 0 {
        if exponent & 1 == 1 {
            result = mul(result, square);
        }
        square = mul(square, square);
        exponent >>= 1;
    }
    result
}

/// `a^-1 mod p` (Fermat), `0` for `a = 0`.
pub fn inv(a: u64) -> u64 {
    pow(a, P - 2)
}

/// A primitive root of unity of order `2^log_order` (`log_order <= 32`, else `None`).
pub fn root_of_unity(log_order: u32) -> Option<u64> {
    if log_order > MAX_TWO_ADICITY {
        return None;
    }
    Some(pow(GENERATOR, (P - 1) >> log_order))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};

    fn reference(x: u128) -> u64 {
        (x % u128::from(P)) as u64
    }

    #[test]
    fn reduction_matches_u128_on_edges_and_random() {
        let edges = [0, 1, 2, EPSILON, EPSILON + 1, P - 2, P - 1, P, P + 1, u64::MAX - 1, u64::MAX, 1 << 63, 1 << 32];
        for &a in &edges {
            for &b in &edges {
                let x = u128::from(a) * u128::from(b);
                assert_eq!(reduce128(x), reference(x), "{a} * {b}");
            }
        }
        for x in [u128::MAX, u128::MAX - 1, u128::from(P) * u128::from(P), 1u128 << 96, (1u128 << 96) - 1] {
            assert_eq!(reduce128(x), reference(x));
        }
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        for _ in 0..100_000 {
            let x: u128 = rng.r#gen();
            assert_eq!(reduce128(x), reference(x));
            let (a, b) = (rng.gen_range(0..P), rng.gen_range(0..P));
            assert_eq!(add(a, b), ((u128::from(a) + u128::from(b)) % u128::from(P)) as u64);
            assert_eq!(sub(a, b), ((u128::from(a) + u128::from(P) - u128::from(b)) % u128::from(P)) as u64);
        }
        for (a, b) in [(P - 1, P - 1), (P - 1, 1), (0, P - 1), (P - 1, 0)] {
            assert_eq!(add(a, b), ((u128::from(a) + u128::from(b)) % u128::from(P)) as u64);
            assert_eq!(sub(a, b), ((u128::from(a) + u128::from(P) - u128::from(b)) % u128::from(P)) as u64);
        }
    }

    #[test]
    fn roots_have_exact_order() {
        for k in [1, 2, 5, 17, 24, 32] {
            let w = root_of_unity(k).unwrap();
            assert_eq!(pow(w, 1 << k), 1);
            assert_eq!(pow(w, 1 << (k - 1)), P - 1, "order 2^{k} exactly");
        }
        assert_eq!(root_of_unity(33), None);
        assert_eq!(mul(inv(12345), 12345), 1);
    }
}
