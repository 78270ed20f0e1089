//! Gaussian integers modulo a prime `p = 1 mod 4`: elements `re + i * im` of `Z_p[i]`,
//! `i^2 = -1`, and primitive roots of `i`, which twist the DGT into a negacyclic
//! convolution (Alves et al., "Faster homomorphic encryption over GPGPUs via
//! hierarchical DGT", Appendix C).

use crate::{ModArithError, Modulus, Result};

/// A Gaussian integer `re + i * im` with canonical parts modulo some prime.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GaussianInt {
    /// The real part, below the prime.
    pub re: u64,
    /// The imaginary part, below the prime.
    pub im: u64,
}

impl GaussianInt {
    /// `re + i * im`; the parts are taken as given (not reduced).
    pub const fn new(re: u64, im: u64) -> Self {
        Self { re, im }
    }

    /// The multiplicative identity `1 + i * 0`.
    pub const ONE: Self = Self { re: 1, im: 0 };
}

impl Modulus {
    /// `a + b` in `Z_p[i]`.
    #[inline]
    pub fn gauss_add(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        GaussianInt::new(self.add(a.re, b.re), self.add(a.im, b.im))
    }

    /// `a - b` in `Z_p[i]`.
    #[inline]
    pub fn gauss_sub(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        GaussianInt::new(self.sub(a.re, b.re), self.sub(a.im, b.im))
    }

    /// `a * b` in `Z_p[i]`: `(ac - bd) + i (ad + bc)`.
    #[inline]
    pub fn gauss_mul(&self, a: GaussianInt, b: GaussianInt) -> GaussianInt {
        let re = self.sub(self.mul(a.re, b.re), self.mul(a.im, b.im));
        let im = self.add(self.mul(a.re, b.im), self.mul(a.im, b.re));
        GaussianInt::new(re, im)
    }

    /// The conjugate `re - i * im`.
    #[inline]
    pub fn gauss_conj(&self, a: GaussianInt) -> GaussianInt {
        GaussianInt::new(a.re, self.neg(a.im))
    }

    /// The norm `re^2 + im^2 mod p`.
    #[inline]
    pub fn gauss_norm(&self, a: GaussianInt) -> u64 {
        self.add(self.mul(a.re, a.re), self.mul(a.im, a.im))
    }

    /// `a^e` in `Z_p[i]`.
    pub fn gauss_pow(&self, a: GaussianInt, mut e: u64) -> GaussianInt {
        let mut base = a;
        let mut acc = GaussianInt::ONE;
        while e > 0 {
            if e & 1 == 1 {
                acc = self.gauss_mul(acc, base);
            }
            base = self.gauss_mul(base, base);
            e >>= 1;
        }
        acc
    }
}

impl Modulus {
    /// `a^-1` in `Z_p[i]`: `conj(a) * norm(a)^-1`.
    ///
    /// For `p = 1 mod 4`, `Z_p[i]` is not a field: nonzero elements of norm `0 mod p`
    /// (such as `k + i` with `k^2 = -1`) are zero divisors. Errors with
    /// [`ModArithError::GaussianNotInvertible`] for those and for zero.
    pub fn gauss_inv(&self, a: GaussianInt) -> Result<GaussianInt> {
        let norm = self.gauss_norm(a);
        let norm_inv = self.inv(norm).map_err(|_| ModArithError::GaussianNotInvertible {
            re: a.re,
            im: a.im,
            modulus: self.value(),
        })?;
        let conj = self.gauss_conj(a);
        Ok(GaussianInt::new(self.mul(conj.re, norm_inv), self.mul(conj.im, norm_inv)))
    }
}

/// An exact Gaussian integer `re + i * im` of `Z[i]` (signed, not reduced modulo anything),
/// as returned by [`gaussian_prime_factors`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SignedGaussianInt {
    /// The real part.
    pub re: i64,
    /// The imaginary part.
    pub im: i64,
}

impl SignedGaussianInt {
    /// `re + i * im`.
    pub const fn new(re: i64, im: i64) -> Self {
        Self { re, im }
    }

    /// The conjugate `re - i * im`; `-im` saturates (`i64::MIN` gives `i64::MAX`: no factor of
    /// a prime below `2^62` has such a part).
    pub const fn conj(self) -> Self {
        Self { re: self.re, im: self.im.saturating_neg() }
    }

    /// The exact norm `re^2 + im^2`, saturating at `i128::MAX` (reached only for both parts
    /// `i64::MIN`, whose norm `2^127` is one above it).
    pub const fn norm(self) -> i128 {
        (self.re as i128 * self.re as i128).saturating_add(self.im as i128 * self.im as i128)
    }
}

/// Exact Gaussian-integer arithmetic in `i128`, for Algorithms 6 and 7.
///
/// Bounds: every value handled here is either `p`, `k0 + i` with `k0 < p`, or a remainder
/// modulo a Gaussian prime of norm `p` (parts below `sqrt(p) < 2^31`). Products of two
/// such values stay below `2^125`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Wide {
    re: i128,
    im: i128,
}

impl Wide {
    const ZERO: Self = Self { re: 0, im: 0 };
    const ONE: Self = Self { re: 1, im: 0 };

    const fn new(re: i128, im: i128) -> Self {
        Self { re, im }
    }

    fn mul(self, other: Self) -> Self {
        Self::new(self.re * other.re - self.im * other.im, self.re * other.im + self.im * other.re)
    }

    fn sub(self, other: Self) -> Self {
        Self::new(self.re - other.re, self.im - other.im)
    }

    fn add(self, other: Self) -> Self {
        Self::new(self.re + other.re, self.im + other.im)
    }

    fn norm(self) -> i128 {
        self.re * self.re + self.im * self.im
    }

    fn is_zero(self) -> bool {
        self.re == 0 && self.im == 0
    }

    /// `self mod divisor`: `self - round(self / divisor) * divisor`, where the quotient
    /// `self * conj(divisor) / norm(divisor)` is rounded part by part to the nearest
    /// integer. The remainder has norm at most `norm(divisor) / 2`, so the Euclidean
    /// algorithm terminates. `divisor` must be nonzero.
    fn rem(self, divisor: Self) -> Self {
        let d = divisor.norm();
        let numerator = self.mul(Self::new(divisor.re, -divisor.im));
        let quotient = Self::new(round_div(numerator.re, d), round_div(numerator.im, d));
        self.sub(quotient.mul(divisor))
    }

    /// `self^e mod modulus` by square-and-multiply, reducing after every product.
    fn pow_mod(self, mut e: u64, modulus: Self) -> Self {
        let mut base = self.rem(modulus);
        let mut acc = Self::ONE.rem(modulus);
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.mul(base).rem(modulus);
            }
            base = base.mul(base).rem(modulus);
            e >>= 1;
        }
        acc
    }
}

/// `x / d` rounded to the nearest integer (ties up), for `d > 0`.
fn round_div(x: i128, d: i128) -> i128 {
    (2 * x + d).div_euclid(2 * d)
}

/// A greatest common divisor in `Z[i]` by the Euclidean algorithm (defined up to a unit).
fn gaussian_gcd(mut a: Wide, mut b: Wide) -> Wide {
    while !b.is_zero() {
        let r = a.rem(b);
        a = b;
        b = r;
    }
    a
}

/// The factorization `p = f0 * f1` of a prime `p = 1 mod 4` into the two conjugate
/// Gaussian primes of norm `p` (Alves et al., Appendix C, Algorithm 6).
///
/// Finds the smallest `n >= 2` with `n^((p-1)/2) = -1 mod p` (a scan instead of sampling,
/// so the result is deterministic), sets `k0 = n^((p-1)/4)` (so `k0^2 = -1 mod p`) and
/// takes `u = gcd(p, k0 + i)` by the Gaussian Euclidean algorithm over exact integers.
/// The returned pair is normalized: `f0 = x + i*y` with `x` odd and positive and `y`
/// even and positive (the unique such associate), and `f1 = conj(f0) = x - i*y`, so that
/// `f0 * f1 = x^2 + y^2 = p` exactly.
///
/// Errors with [`ModArithError::NoRoot`] if `p != 1 mod 4` (then `p` stays prime in `Z[i]`).
pub fn gaussian_prime_factors(modulus: &Modulus) -> Result<(SignedGaussianInt, SignedGaussianInt)> {
    let p = modulus.value();
    if p % 4 != 1 {
        return Err(ModArithError::NoRoot {
            what: "-1 (Gaussian factorization)",
            order: 2,
            modulus: p,
            requirement: "p = 1 mod 4",
        });
    }
    let not_found = ModArithError::NoRoot {
        what: "-1 (Gaussian factorization)",
        order: 2,
        modulus: p,
        requirement: "p prime, p = 1 mod 4",
    };
    let non_residue = (2..p).find(|&n| modulus.pow(n, (p - 1) / 2) == p - 1).ok_or(not_found.clone())?;
    let sqrt_minus_one = modulus.pow(non_residue, (p - 1) / 4);
    let u = gaussian_gcd(Wide::new(p as i128, 0), Wide::new(sqrt_minus_one as i128, 1));
    if u.norm() != p as i128 {
        return Err(not_found);
    }
    // The associates of u are u, i*u, -u, -i*u; exactly one has a positive odd real part
    // and a positive even imaginary part, possibly after conjugation (x + iy and y + ix
    // are the two first-quadrant candidates of the pair {u, conj(u)}).
    let (x, y) = (u.re.unsigned_abs(), u.im.unsigned_abs());
    let (odd, even) = if x % 2 == 1 { (x, y) } else { (y, x) };
    let f0 = SignedGaussianInt::new(odd as i64, even as i64);
    Ok((f0, f0.conj()))
}

/// A primitive `k`-th root of `i` modulo `p`: `h` with `h^k = i` and multiplicative order
/// exactly `4k` in `Z_p[i]`, for `k` a power of two and `p = 1 mod 4k` (Alves et al.,
/// Appendix C, Algorithm 7, after Al Badawi et al.).
///
/// Works in `Z_p[i] = Z[i]/(f0) x Z[i]/(f1)`, with `p = f0 * f1` from
/// [`gaussian_prime_factors`]; each factor ring is a field of `p` elements. For each
/// factor `f_j`, it scans `c = 2, 3, 4, ...` (deterministic, instead of sampling a
/// generator) for the first `c` whose power `h_j = c^((p-1)/(4k)) mod f_j` has order exactly
/// `4k` (checked as `h_j^(2k) = -1 mod f_j`; this is all a generator is needed for). Then
/// `h_j^k` is `i` or `-i` modulo `f_j`; in the second case `h_j` is replaced by `h_j^3`,
/// which has the same order and `(h_j^3)^k = i`. Finally
/// `h = f1 * (f1^-1 * h0 mod f0) + f0 * (f0^-1 * h1 mod f1) mod p` by the CRT.
///
/// Errors with [`ModArithError::NoRoot`] if `k` is not a power of two or `p != 1 mod 4k`.
pub fn primitive_root_of_i(modulus: &Modulus, k: u64) -> Result<GaussianInt> {
    let p = modulus.value();
    let no_root = |requirement| ModArithError::NoRoot { what: "i", order: k, modulus: p, requirement };
    if !k.is_power_of_two() {
        return Err(no_root("k a power of two"));
    }
    let four_k = k.checked_mul(4).ok_or(no_root("p = 1 mod 4k"))?;
    if !(p - 1).is_multiple_of(four_k) {
        return Err(no_root("p = 1 mod 4k"));
    }
    let (f0, f1) = gaussian_prime_factors(modulus)?;
    let factors = [Wide::new(f0.re as i128, f0.im as i128), Wide::new(f1.re as i128, f1.im as i128)];
    let i_unit = Wide::new(0, 1);
    let minus_one = Wide::new(-1, 0);
    let cofactor = (p - 1) / four_k;

    let mut local_roots = [Wide::ZERO; 2];
    for (root, &f) in local_roots.iter_mut().zip(&factors) {
        // Residues modulo f are compared through their difference: equal iff it is 0 mod f.
        let congruent = |a: Wide, b: Wide| a.sub(b).rem(f).is_zero();
        let h_j = (2..p)
            .map(|c| Wide::new(c as i128, 0).pow_mod(cofactor, f))
            .find(|&h| congruent(h.pow_mod(2 * k, f), minus_one))
            .ok_or(no_root("p prime"))?;
        *root = if congruent(h_j.pow_mod(k, f), i_unit) { h_j } else { h_j.pow_mod(3, f) };
    }

    // Inverses modulo f_j by Fermat: (Z[i]/f_j)^* has p - 1 elements.
    let [f0, f1] = factors;
    let f1_inv_mod_f0 = f1.pow_mod(p - 2, f0);
    let f0_inv_mod_f1 = f0.pow_mod(p - 2, f1);
    let part0 = f1.mul(f1_inv_mod_f0.mul(local_roots[0]).rem(f0));
    let part1 = f0.mul(f0_inv_mod_f1.mul(local_roots[1]).rem(f1));
    let h_exact = part0.add(part1);
    let p_wide = p as i128;
    let h = GaussianInt::new(h_exact.re.rem_euclid(p_wide) as u64, h_exact.im.rem_euclid(p_wide) as u64);

    // Cheap final check in Z_p[i], so a wrong root can never leave this function.
    let h_to_k = modulus.gauss_pow(h, k);
    let h_to_2k = modulus.gauss_pow(h_to_k, 2);
    if h_to_k != GaussianInt::new(0, 1) || h_to_2k != GaussianInt::new(p - 1, 0) {
        return Err(no_root("p prime, p = 1 mod 4k"));
    }
    Ok(h)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::generate_ntt_primes;
    use num_bigint::BigInt;
    use proptest::prelude::*;

    /// Moduli = 1 mod 4 of assorted sizes, up to 62 bits.
    const PRIMES: [u64; 5] = [5, 65537, 0x3fff_ffff_ffe8_0001, 1_152_921_504_606_584_833, 998_244_353];

    fn any_modulus() -> impl Strategy<Value = Modulus> {
        prop::sample::select(PRIMES.to_vec()).prop_map(|p| Modulus::new(p).unwrap())
    }

    fn reduce_big(x: BigInt, p: u64) -> u64 {
        let r = ((x % BigInt::from(p)) + BigInt::from(p)) % BigInt::from(p);
        u64::try_from(r).unwrap()
    }

    fn exact_mul(a: GaussianInt, b: GaussianInt, p: u64) -> GaussianInt {
        let (ar, ai, br, bi) = (BigInt::from(a.re), BigInt::from(a.im), BigInt::from(b.re), BigInt::from(b.im));
        GaussianInt::new(reduce_big(&ar * &br - &ai * &bi, p), reduce_big(&ar * &bi + &ai * &br, p))
    }

    fn element(m: &Modulus, re: u64, im: u64) -> GaussianInt {
        GaussianInt::new(re % m.value(), im % m.value())
    }

    #[test]
    fn small_prime_factorizations() {
        // 5 = (1+2i)(1-2i), 13 = (3+2i)(3-2i), 17 = (1+4i)(1-4i), 29 = (5+2i)(5-2i).
        for (p, x, y) in [(5u64, 1i64, 2i64), (13, 3, 2), (17, 1, 4), (29, 5, 2), (97, 9, 4)] {
            let m = Modulus::new(p).unwrap();
            let (f0, f1) = gaussian_prime_factors(&m).unwrap();
            assert_eq!(f0, SignedGaussianInt::new(x, y), "p = {p}");
            assert_eq!(f1, SignedGaussianInt::new(x, -y), "p = {p}");
        }
    }

    #[test]
    fn factorization_and_roots_reject_primes_3_mod_4() {
        for p in [3u64, 7, 11, 4_611_686_018_427_387_847] {
            let m = Modulus::new(p).unwrap();
            assert!(matches!(gaussian_prime_factors(&m), Err(ModArithError::NoRoot { modulus, .. }) if modulus == p));
            assert!(matches!(primitive_root_of_i(&m, 1), Err(ModArithError::NoRoot { modulus, .. }) if modulus == p));
        }
    }

    #[test]
    fn root_of_i_rejects_bad_k() {
        let m = Modulus::new(97).unwrap(); // 96 = 2^5 * 3: 4k | 96 for k in {1, 2, 4, 8}
        for k in [0u64, 3, 6, 12] {
            assert_eq!(
                primitive_root_of_i(&m, k),
                Err(ModArithError::NoRoot { what: "i", order: k, modulus: 97, requirement: "k a power of two" })
            );
        }
        for k in [16u64, 1 << 40, 1 << 63] {
            assert_eq!(
                primitive_root_of_i(&m, k),
                Err(ModArithError::NoRoot { what: "i", order: k, modulus: 97, requirement: "p = 1 mod 4k" })
            );
        }
        for k in [1u64, 2, 4, 8] {
            assert!(primitive_root_of_i(&m, k).is_ok(), "k = {k}");
        }
    }

    /// For small primes, the exhaustive set of primitive k-th roots of i contains ours.
    #[test]
    fn root_of_i_is_among_brute_force_roots() {
        for p in [5u64, 13, 17, 97, 193, 257, 769] {
            let m = Modulus::new(p).unwrap();
            let mut k = 1;
            while (p - 1) % (4 * k) == 0 {
                let roots: Vec<GaussianInt> = (0..p)
                    .flat_map(|re| (0..p).map(move |im| GaussianInt::new(re, im)))
                    .filter(|&h| {
                        m.gauss_pow(h, k) == GaussianInt::new(0, 1)
                            && m.gauss_pow(h, 2 * k) == GaussianInt::new(p - 1, 0)
                    })
                    .collect();
                assert!(!roots.is_empty(), "p = {p}, k = {k}");
                let h = primitive_root_of_i(&m, k).unwrap();
                assert!(roots.contains(&h), "p = {p}, k = {k}, h = {h:?}");
                k *= 2;
            }
        }
    }

    #[test]
    fn gauss_inv_rejects_zero_divisors() {
        let m = Modulus::new(13).unwrap();
        // 5^2 = 25 = -1 mod 13, so 5 + i has norm 26 = 0 mod 13.
        for (re, im) in [(0u64, 0u64), (5, 1), (8, 1), (1, 5), (10, 2)] {
            assert_eq!(
                m.gauss_inv(GaussianInt::new(re, im)),
                Err(ModArithError::GaussianNotInvertible { re, im, modulus: 13 })
            );
        }
        let mut invertible = 0;
        for re in 0..13 {
            for im in 0..13 {
                let a = GaussianInt::new(re, im);
                if let Ok(inv) = m.gauss_inv(a) {
                    assert_eq!(m.gauss_mul(a, inv), GaussianInt::ONE);
                    invertible += 1;
                }
            }
        }
        // Z_13[i] = F_13 x F_13 has 12 * 12 units.
        assert_eq!(invertible, 144);
    }

    proptest! {
        #[test]
        fn gauss_ops_match_exact_formulas(m in any_modulus(), ar: u64, ai: u64, br: u64, bi: u64) {
            let p = m.value();
            let (a, b) = (element(&m, ar, ai), element(&m, br, bi));
            let big = |x: u64| BigInt::from(x);
            prop_assert_eq!(m.gauss_mul(a, b), exact_mul(a, b, p));
            prop_assert_eq!(
                m.gauss_add(a, b),
                GaussianInt::new(reduce_big(big(a.re) + big(b.re), p), reduce_big(big(a.im) + big(b.im), p))
            );
            prop_assert_eq!(
                m.gauss_sub(a, b),
                GaussianInt::new(reduce_big(big(a.re) - big(b.re), p), reduce_big(big(a.im) - big(b.im), p))
            );
            prop_assert_eq!(m.gauss_conj(a), GaussianInt::new(a.re, reduce_big(-big(a.im), p)));
            prop_assert_eq!(m.gauss_norm(a), reduce_big(big(a.re) * big(a.re) + big(a.im) * big(a.im), p));
            match m.gauss_inv(a) {
                Ok(inv) => prop_assert_eq!(exact_mul(a, inv, p), GaussianInt::ONE),
                Err(e) => {
                    prop_assert_eq!(reduce_big(big(a.re) * big(a.re) + big(a.im) * big(a.im), p), 0);
                    prop_assert_eq!(e, ModArithError::GaussianNotInvertible { re: a.re, im: a.im, modulus: p });
                }
            }
        }

        #[test]
        fn gauss_pow_matches_repeated_exact_products(m in any_modulus(), ar: u64, ai: u64, e in 0u64..40) {
            let a = element(&m, ar, ai);
            let mut expect = GaussianInt::ONE;
            for _ in 0..e {
                expect = exact_mul(expect, a, m.value());
            }
            prop_assert_eq!(m.gauss_pow(a, e), expect);
        }

        #[test]
        fn gaussian_factors_multiply_to_p(bits in 30u32..=62, log_two_n in 11u32..=18) {
            let p = generate_ntt_primes(bits, 1 << log_two_n, 1, &[]).unwrap()[0];
            let m = Modulus::new(p).unwrap();
            let (f0, f1) = gaussian_prime_factors(&m).unwrap();
            prop_assert_eq!(f0.norm(), p as i128);
            prop_assert_eq!(f1.norm(), p as i128);
            prop_assert_eq!(f1, f0.conj());
            prop_assert!(f0.re > 0 && f0.re % 2 == 1 && f0.im > 0 && f0.im % 2 == 0);
            // The exact product f0 * f1 in Z[i], through num-bigint.
            let (a, b, c, d) = (BigInt::from(f0.re), BigInt::from(f0.im), BigInt::from(f1.re), BigInt::from(f1.im));
            prop_assert_eq!(&a * &c - &b * &d, BigInt::from(p));
            prop_assert_eq!(&a * &d + &b * &c, BigInt::from(0));
        }

        #[test]
        fn roots_of_i_have_exact_order(bits in 30u32..=62, log_two_n in 11u32..=18, shrink in 0u32..4) {
            let two_n = 1u64 << log_two_n;
            let p = generate_ntt_primes(bits, two_n, 1, &[]).unwrap()[0];
            let m = Modulus::new(p).unwrap();
            // k = N/2 (what the DGT uses) and smaller powers of two.
            let k = (two_n / 4) >> shrink;
            let h = primitive_root_of_i(&m, k).unwrap();
            let h_k = exact_pow(h, k, p);
            let h_2k = exact_mul(h_k, h_k, p);
            prop_assert_eq!(h_k, GaussianInt::new(0, 1));
            prop_assert_eq!(h_2k, GaussianInt::new(p - 1, 0));
            // Order divides 4k (a power of two) but not 2k: exactly 4k.
            prop_assert_eq!(exact_mul(h_2k, h_2k, p), GaussianInt::ONE);
            prop_assert_eq!(primitive_root_of_i(&m, k).unwrap(), h);
        }
    }

    /// `a^e` by exact square-and-multiply through num-bigint (independent of `gauss_pow`).
    fn exact_pow(a: GaussianInt, mut e: u64, p: u64) -> GaussianInt {
        let (mut base, mut acc) = (a, GaussianInt::ONE);
        while e > 0 {
            if e & 1 == 1 {
                acc = exact_mul(acc, base, p);
            }
            base = exact_mul(base, base, p);
            e >>= 1;
        }
        acc
    }
}
