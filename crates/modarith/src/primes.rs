//! Primality, NTT-friendly prime generation and primitive roots of unity.

use crate::{ModArithError, Modulus, Result, modulus::MAX_MODULUS_BITS};

fn mul_mod(a: u64, b: u64, m: u64) -> u64 {
    (a as u128 * b as u128 % m as u128) as u64
}

fn pow_mod(mut a: u64, mut e: u64, m: u64) -> u64 {
    let mut acc = 1 % m;
    a %= m;
    while e > 0 {
        if e & 1 == 1 {
            acc = mul_mod(acc, a, m);
        }
        a = mul_mod(a, a, m);
        e >>= 1;
    }
    acc
}

/// Deterministic primality test for every `u64`: Miller-Rabin with the first twelve
/// prime bases, which has no pseudoprime below 3.3 * 10^24.
pub fn is_prime(n: u64) -> bool {
    const BASES: [u64; 12] = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37];
    if n < 2 {
        return false;
    }
    for b in BASES {
        if n.is_multiple_of(b) {
            return n == b;
        }
    }
    let s = (n - 1).trailing_zeros();
    let d = (n - 1) >> s;
    'bases: for b in BASES {
        let mut x = pow_mod(b, d, n);
        if x == 1 || x == n - 1 {
            continue;
        }
        for _ in 1..s {
            x = mul_mod(x, x, n);
            if x == n - 1 {
                continue 'bases;
            }
        }
        return false;
    }
    true
}

/// `count` distinct primes of exactly `bits` bits with `p = 1 mod two_n`, none of them
/// in `exclude`, in descending order starting below `2^bits` (deterministic).
///
/// `two_n` must be a power of two; `bits` at most 62.
pub fn generate_ntt_primes(bits: u32, two_n: u64, count: usize, exclude: &[u64]) -> Result<Vec<u64>> {
    if !two_n.is_power_of_two() || two_n < 2 {
        return Err(ModArithError::InvalidParameter {
            name: "two_n",
            value: two_n,
            reason: "must be a power of two >= 2",
        });
    }
    primes_one_mod(bits, two_n, count, exclude)
}

/// `count` distinct primes of exactly `bits` bits with `p = 1 mod step`, none of them in
/// `exclude`, in descending order starting below `2^bits` (deterministic): the search of
/// [`generate_ntt_primes`] for any `step >= 2` (Bluestein's primes take `step = 2 m M`).
/// Errors with [`ModArithError::InvalidParameter`] for `bits` above 62 or leaving no room for
/// `p = 1 mod step`, and with [`ModArithError::NotEnoughPrimes`] when fewer primes exist, at
/// once for a `count` above the number of candidates (nothing is allocated for it).
pub fn primes_one_mod(bits: u32, step: u64, count: usize, exclude: &[u64]) -> Result<Vec<u64>> {
    if step < 2 || !(2..=MAX_MODULUS_BITS).contains(&bits) || (1u64 << bits) <= step {
        return Err(ModArithError::InvalidParameter {
            name: "bits",
            value: u64::from(bits),
            reason: "must be 2 to 62 and leave room for p = 1 mod the step",
        });
    }
    let lower = 1u64 << (bits - 1);
    // Largest candidate below 2^bits congruent to 1 mod step.
    let mut candidate = ((1u64 << bits) - 1) / step * step + 1;
    // How many candidates lie above 2^(bits - 1): a larger count cannot be met.
    let candidates = candidate.saturating_sub(lower).div_ceil(step);
    let not_enough = |found| ModArithError::NotEnoughPrimes { bits, two_n: step, requested: count, found };
    if count as u64 > candidates {
        return Err(not_enough(0));
    }
    let mut primes = Vec::with_capacity(count);
    while primes.len() < count && candidate > lower {
        if is_prime(candidate) && !exclude.contains(&candidate) {
            primes.push(candidate);
        }
        candidate -= step;
    }
    if primes.len() < count {
        return Err(not_enough(primes.len()));
    }
    Ok(primes)
}

/// A primitive `order`-th root of unity modulo `p`, for `order` a power of two dividing
/// `p - 1`. Deterministic: `x^((p-1)/order)` for the smallest `x >= 2` that gives a root
/// of exact order `order`.
pub fn primitive_root_of_unity(modulus: &Modulus, order: u64) -> Result<u64> {
    let p = modulus.value();
    if !order.is_power_of_two() || order < 2 || !(p - 1).is_multiple_of(order) {
        return Err(ModArithError::NoRoot {
            what: "unity",
            order,
            modulus: p,
            requirement: "order a power of two >= 2 dividing p - 1",
        });
    }
    let cofactor = (p - 1) / order;
    for x in 2..p {
        let r = modulus.pow(x, cofactor);
        // Exact order `order` iff r^(order/2) = -1.
        if modulus.pow(r, order / 2) == p - 1 {
            return Ok(r);
        }
    }
    Err(ModArithError::NoRoot { what: "unity", order, modulus: p, requirement: "p prime" })
}

/// `a^{-1} mod m` for any modulus `m >= 2` (prime or not) and `a` coprime to it, by the extended
/// Euclidean algorithm; `None` when `gcd(a, m) != 1` or `m < 2`. (A plaintext modulus `t`
/// need not be prime: BGV's correction factors are inverted modulo it.)
pub fn inverse_mod(a: u64, m: u64) -> Option<u64> {
    if m < 2 {
        return None;
    }
    let (mut r0, mut r1) = (i128::from(m), i128::from(a % m));
    let (mut s0, mut s1) = (0i128, 1i128);
    while r1 != 0 {
        let q = r0 / r1;
        (r0, r1) = (r1, r0 - q * r1);
        (s0, s1) = (s1, s0 - q * s1);
    }
    (r0 == 1).then(|| s0.rem_euclid(i128::from(m)) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use num_bigint::BigUint;
    use proptest::prelude::*;

    fn naive_is_prime(n: u64) -> bool {
        n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| !n.is_multiple_of(d))
    }

    #[test]
    fn is_prime_matches_trial_division_below_100k() {
        for n in 0..100_000u64 {
            assert_eq!(is_prime(n), naive_is_prime(n), "n = {n}");
        }
    }

    #[test]
    fn is_prime_on_known_large_values() {
        assert!(is_prime(0xffff_ffff_0000_0001)); // Solinas prime 2^64 - 2^32 + 1
        assert!(is_prime(18_446_744_073_709_551_557)); // largest 64-bit prime
        assert!(!is_prime(3_825_123_056_546_413_051)); // strong pseudoprime to bases 2..=23
        assert!(!is_prime(0xffff_ffff_0000_0001u64.wrapping_mul(3)));
    }

    proptest! {
        #[test]
        fn is_prime_matches_bigint_fermat_on_odd_semiprimes(a in 3u32..u32::MAX, b in 3u32..u32::MAX) {
            let n = a as u64 * b as u64;
            prop_assert!(!is_prime(n));
        }

        #[test]
        fn generated_primes_have_the_asked_shape(bits in 30u32..=62, log_n in 10u32..=17, count in 1usize..8) {
            let two_n = 2u64 << log_n;
            let ps = generate_ntt_primes(bits, two_n, count, &[]).unwrap();
            prop_assert_eq!(ps.len(), count);
            for w in ps.windows(2) {
                prop_assert!(w[0] > w[1]);
            }
            for &p in &ps {
                prop_assert_eq!(64 - p.leading_zeros(), bits);
                prop_assert_eq!(p % two_n, 1);
                // Fermat check through num-bigint, independent of our Miller-Rabin.
                let bp = BigUint::from(p);
                prop_assert_eq!(BigUint::from(3u32).modpow(&(&bp - 1u32), &bp), BigUint::from(1u32));
            }
            let more = generate_ntt_primes(bits, two_n, 1, &ps).unwrap();
            prop_assert!(!ps.contains(&more[0]));
        }

        #[test]
        fn roots_of_unity_have_exact_order(bits in 30u32..=62, log_n in 10u32..=17) {
            let two_n = 2u64 << log_n;
            let p = generate_ntt_primes(bits, two_n, 1, &[]).unwrap()[0];
            let m = Modulus::new(p).unwrap();
            let psi = primitive_root_of_unity(&m, two_n).unwrap();
            prop_assert_eq!(m.pow(psi, two_n), 1);
            prop_assert_eq!(m.pow(psi, two_n / 2), p - 1);
        }
    }

    #[test]
    fn errors_on_impossible_requests() {
        assert!(generate_ntt_primes(12, 1 << 12, 1, &[]).is_err());
        assert!(matches!(generate_ntt_primes(20, 1 << 17, 100, &[]), Err(ModArithError::NotEnoughPrimes { .. })));
        let m = Modulus::new(97).unwrap();
        assert!(primitive_root_of_unity(&m, 64).is_err());
        assert!(primitive_root_of_unity(&m, 32).is_ok());
    }

    /// `inverse_mod` against u128 arithmetic: `a x = 1 mod m` whenever it answers, and it
    /// answers exactly when `gcd(a, m) = 1` (checked by brute force for small `m`).
    #[test]
    fn inverse_mod_is_the_inverse_exactly_when_coprime() {
        fn gcd(a: u64, b: u64) -> u64 {
            if b == 0 { a } else { gcd(b, a % b) }
        }
        for m in 2u64..200 {
            for a in 0..2 * m {
                match inverse_mod(a, m) {
                    Some(x) => {
                        assert!(x < m);
                        assert_eq!(u128::from(a) * u128::from(x) % u128::from(m), 1 % u128::from(m), "{a} mod {m}");
                    }
                    None => assert_ne!(gcd(a % m, m), 1, "{a} mod {m}"),
                }
            }
        }
        for (a, m) in [(2u64, u64::MAX), (u64::MAX - 1, u64::MAX), (65_537, 1 << 62)] {
            let x = inverse_mod(a, m).unwrap();
            assert_eq!(u128::from(a) * u128::from(x) % u128::from(m), 1);
        }
        assert_eq!(inverse_mod(4, 1 << 20), None);
        assert_eq!(inverse_mod(1, 1), None);
        assert_eq!(inverse_mod(1, 0), None);
    }
}
