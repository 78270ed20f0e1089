//! Key generation (on the CPU): the secret generator `v(x)`, the determinant
//! `d = resultant(v, x^n + 1)`, the scaled inverse `w(x)` with `w v = d mod (x^n + 1)` and the
//! root `r = w_0 / w_1 mod d` (Gentry and Halevi, "Implementing Gentry's fully-homomorphic
//! encryption scheme", EUROCRYPT 2011, section 3).
//!
//! `d` and the first coefficients of `w` are computed modulo many NTT primes `q = 1 mod 2n`:
//! `v` evaluated at the `n` primitive `2n`-th roots of unity mod `q` gives
//! `d mod q = prod_k v(rho_k)` and `w(rho_k) = prod_{j != k} v(rho_j)`, an inverse transform
//! gives `w mod q`; the integers are rebuilt by CRT over a product tree whose products are
//! `bigint`'s NTT multiplications. Enough primes cover twice Hadamard's bound
//! `||v||^n >= |d|, |w_i|`.

use bigint::BigNat;
use modarith::Modulus;
use num_bigint::{BigInt, BigUint, RandBigInt, Sign};
use num_traits::{One, Signed, ToPrimitive, Zero};
use rand::Rng;

use crate::error::{GhError, Result};

/// Bits of the CRT primes.
const PRIME_BITS: u32 = 62;
/// Coefficients of `w` rebuilt (the secret key is the first odd one).
pub(crate) const W_COEFFICIENTS: usize = 4;

/// The negacyclic transform modulo one prime: evaluation at the primitive `2n`-th roots.
struct Negacyclic {
    q: Modulus,
    /// `psi^i`, and `psi^-i n^-1`.
    twist: Vec<u64>,
    untwist: Vec<u64>,
    /// Cyclic tables of `omega = psi^2`: `tw[h + j] = omega_{2h}^j`, and their inverses.
    tw: Vec<u64>,
    itw: Vec<u64>,
}

impl Negacyclic {
    fn new(q: u64, n: usize) -> Result<Self> {
        let q = Modulus::new(q)?;
        let psi = modarith::primitive_root_of_unity(&q, 2 * n as u64)?;
        let psi_inv = q.inv(psi)?;
        let n_inv = q.inv(n as u64 % q.value())?;
        let (mut twist, mut untwist) = (Vec::with_capacity(n), Vec::with_capacity(n));
        let (mut a, mut b) = (1u64, n_inv);
        for _ in 0..n {
            twist.push(a);
            untwist.push(b);
            a = q.mul(a, psi);
            b = q.mul(b, psi_inv);
        }
        let omega = q.mul(psi, psi);
        let (mut tw, mut itw) = (vec![0u64; n.max(2)], vec![0u64; n.max(2)]);
        let mut h = 1;
        while h < n {
            // omega_{2h} = omega^(n / 2h).
            let w = q.pow(omega, (n / (2 * h)) as u64);
            let w_inv = q.inv(w)?;
            let (mut x, mut y) = (1u64, 1u64);
            for j in 0..h {
                tw[h + j] = x;
                itw[h + j] = y;
                x = q.mul(x, w);
                y = q.mul(y, w_inv);
            }
            h *= 2;
        }
        Ok(Self { q, twist, untwist, tw, itw })
    }

    fn forward(&self, a: &mut [u64]) {
        let q = &self.q;
        for (x, &t) in a.iter_mut().zip(&self.twist) {
            *x = q.mul(*x, t);
        }
        let mut h = a.len() / 2;
        while h >= 1 {
            for block in a.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    let (u, v) = (*x, *y);
                    *x = q.add(u, v);
                    *y = q.mul(q.sub(u, v), self.tw[h + j]);
                }
            }
            h /= 2;
        }
    }

    fn inverse(&self, a: &mut [u64]) {
        let q = &self.q;
        let mut h = 1;
        while h < a.len() {
            for block in a.chunks_exact_mut(2 * h) {
                let (lo, hi) = block.split_at_mut(h);
                for (j, (x, y)) in lo.iter_mut().zip(hi.iter_mut()).enumerate() {
                    let u = *x;
                    let v = q.mul(*y, self.itw[h + j]);
                    *x = q.add(u, v);
                    *y = q.sub(u, v);
                }
            }
            h *= 2;
        }
        for (x, &t) in a.iter_mut().zip(&self.untwist) {
            *x = q.mul(*x, t);
        }
    }
}

/// `x mod q` for a signed integer given as sign and little-endian limbs.
fn residue(negative: bool, limbs: &[u64], q: &Modulus) -> u64 {
    let mut acc = 0u64;
    for &limb in limbs.iter().rev() {
        acc = q.reduce_u128((u128::from(acc) << 64) | u128::from(limb));
    }
    if negative { q.neg(acc) } else { acc }
}

/// CRT over a fixed list of primes, with its product tree.
struct Crt {
    primes: Vec<Modulus>,
    /// Level 0: the primes; each next level the products of pairs (an odd last one carried up).
    tree: Vec<Vec<BigNat>>,
    /// `(M / q_i)^-1 mod q_i`.
    cofactor_inv: Vec<u64>,
}

impl Crt {
    fn new(primes: &[u64]) -> Result<Self> {
        let moduli: Vec<Modulus> = primes.iter().map(|&q| Modulus::new(q)).collect::<core::result::Result<_, _>>()?;
        let mut tree = vec![primes.iter().map(|&q| BigNat::from_u64(q)).collect::<Vec<_>>()];
        while tree.last().is_some_and(|level| level.len() > 1) {
            let level = tree.last().map(Vec::as_slice).unwrap_or(&[]);
            let next = level
                .chunks(2)
                .map(|pair| match pair {
                    [a, b] => bigint::mul(a, b),
                    [a] => Ok(a.clone()),
                    _ => Ok(BigNat::from_u64(1)),
                })
                .collect::<core::result::Result<Vec<_>, _>>()?;
            tree.push(next);
        }
        let mut cofactor_inv = Vec::with_capacity(moduli.len());
        for (i, qi) in moduli.iter().enumerate() {
            let mut prod = 1u64;
            for (j, qj) in moduli.iter().enumerate() {
                if i != j {
                    prod = qi.mul(prod, qi.reduce(qj.value()));
                }
            }
            cofactor_inv.push(qi.inv(prod)?);
        }
        Ok(Self { primes: moduli, tree, cofactor_inv })
    }

    fn product(&self) -> BigNat {
        self.tree.last().and_then(|l| l.first()).cloned().unwrap_or_else(|| BigNat::from_u64(1))
    }

    /// The integer in `(-M/2, M/2]` with these residues.
    fn combine(&self, residues: &[u64]) -> Result<BigInt> {
        let mut values: Vec<BigNat> = residues
            .iter()
            .zip(&self.primes)
            .zip(&self.cofactor_inv)
            .map(|((&r, q), &inv)| BigNat::from_u64(q.mul(r, inv)))
            .collect();
        for level in &self.tree[..self.tree.len() - 1] {
            let mut next = Vec::with_capacity(values.len().div_ceil(2));
            for (pair, products) in values.chunks(2).zip(level.chunks(2)) {
                next.push(match (pair, products) {
                    ([a, b], [pa, pb]) => bigint::mul(a, pb)?.add(&bigint::mul(b, pa)?),
                    ([a], _) => a.clone(),
                    _ => BigNat::zero(),
                });
            }
            values = next;
        }
        let m = BigUint::from(&self.product());
        let x = values.first().map(BigUint::from).unwrap_or_default() % &m;
        Ok(if &x + &x > m { BigInt::from(x) - BigInt::from(m) } else { BigInt::from(x) })
    }
}

/// What key generation computes: `d > 0`, `v`, and `w_0 .. w_3` with `w v = d mod x^n + 1`.
#[derive(Debug, Clone)]
pub(crate) struct Lattice {
    pub(crate) d: BigUint,
    pub(crate) w: Vec<BigInt>,
}

/// Samples `v` with coefficients uniform in `(-2^t, 2^t)`, then makes `v(1)` odd (the low bit
/// of `|v_0|` flipped if needed) so that `d = resultant(v, x^n + 1) = v(1)^n mod 2` is odd, as
/// Gentry and Halevi require: with an even `d` a ciphertext `[b + 2 u(r)]_d` has the parity of
/// its bit `b`.
pub(crate) fn sample_v<R: Rng>(n: usize, t: u32, rng: &mut R) -> Vec<BigInt> {
    let mut v: Vec<BigInt> = (0..n)
        .map(|_| {
            let magnitude = rng.gen_biguint(u64::from(t));
            if rng.r#gen::<bool>() { -BigInt::from(magnitude) } else { BigInt::from(magnitude) }
        })
        .collect();
    let odd = v.iter().fold(false, |parity, c| parity ^ c.magnitude().bit(0));
    if !odd && let Some(first) = v.first_mut() {
        let mut magnitude = first.magnitude().clone();
        magnitude.set_bit(0, !magnitude.bit(0));
        *first = if first.sign() == Sign::Minus { -BigInt::from(magnitude) } else { BigInt::from(magnitude) };
    }
    v
}

/// `d = |resultant(v, x^n + 1)|` and the first coefficients of `w` (signs fixed so that
/// `w v = d`).
pub(crate) fn lattice(v: &[BigInt]) -> Result<Lattice> {
    let n = v.len();
    // Hadamard: |d|, |w_i| <= ||v||_2^n; twice that, plus margin.
    let norm_sq: BigUint = v.iter().map(|c| c.magnitude() * c.magnitude()).sum();
    let bound_bits = (norm_sq.bits() as usize * n).div_ceil(2) + 2;
    let count = bound_bits.div_ceil(PRIME_BITS as usize - 1);
    let primes = modarith::generate_ntt_primes(PRIME_BITS, 2 * n as u64, count, &[])?;
    let limbs: Vec<(bool, Vec<u64>)> =
        v.iter().map(|c| (c.sign() == Sign::Minus, c.magnitude().to_u64_digits())).collect();
    let mut d_res = Vec::with_capacity(count);
    let mut w_res: Vec<Vec<u64>> = (0..W_COEFFICIENTS).map(|_| Vec::with_capacity(count)).collect();
    for &q in &primes {
        let plan = Negacyclic::new(q, n)?;
        let modulus = &plan.q;
        let mut values: Vec<u64> = limbs.iter().map(|(neg, l)| residue(*neg, l, modulus)).collect();
        plan.forward(&mut values);
        // Prefix and suffix products: w(rho_k) = prod_{j != k} v(rho_j), zeros included.
        let mut prefix = vec![1u64; n + 1];
        for k in 0..n {
            prefix[k + 1] = modulus.mul(prefix[k], values[k]);
        }
        let mut suffix = 1u64;
        let mut w_eval = vec![0u64; n];
        for k in (0..n).rev() {
            w_eval[k] = modulus.mul(prefix[k], suffix);
            suffix = modulus.mul(suffix, values[k]);
        }
        d_res.push(prefix[n]);
        plan.inverse(&mut w_eval);
        for (c, res) in w_res.iter_mut().enumerate() {
            res.push(w_eval[c]);
        }
    }
    let crt = Crt::new(&primes)?;
    let mut d = crt.combine(&d_res)?;
    let mut w = w_res.iter().map(|res| crt.combine(res)).collect::<Result<Vec<_>>>()?;
    if d.is_negative() {
        d = -d;
        for c in &mut w {
            *c = -c.clone();
        }
    }
    if d.is_zero() {
        return Err(GhError::KeyGeneration { attempts: 1, reason: "v shares a root with x^n + 1".to_string() });
    }
    Ok(Lattice { d: d.magnitude().clone(), w })
}

/// `x mod m` in `[0, m)`.
pub(crate) fn modulo(x: &BigInt, m: &BigUint) -> BigUint {
    let r = x.magnitude() % m;
    if x.is_negative() && !r.is_zero() { m - r } else { r }
}

/// `a^-1 mod m`, if it exists, by Lehmer's extended Euclid (Knuth, TAOCP vol. 2, 4.5.2,
/// Algorithm L, with its cofactor test): the quotients of many Euclid steps are found from the
/// leading 62 bits of `u` and `v` and applied to the multi-precision values (and the cofactor
/// of `a`) as one 2x2 matrix, so that a step costs a few linear passes over the operands per
/// about 30 bits of progress instead of a multi-precision division per quotient. At
/// 790,000 bits this takes seconds where num-bigint's `modinv` (a division per quotient) takes
/// minutes. The result is checked (`a x = 1 mod m`).
pub(crate) fn inverse(a: &BigUint, m: &BigUint) -> Option<BigUint> {
    if m <= &BigUint::one() {
        return None;
    }
    let a = a % m;
    // Invariants: u = xu a (mod m), v = xv a (mod m), u, v >= 0.
    let (mut u, mut v) = (BigInt::from(m.clone()), BigInt::from(a.clone()));
    let (mut xu, mut xv) = (BigInt::zero(), BigInt::one());
    while !v.is_zero() {
        let bits = u.bits();
        let matrix = if bits > 124 { lehmer_matrix(&u, &v, bits - 62) } else { None };
        match matrix {
            Some([ma, mb, mc, md]) => {
                let (ma, mb, mc, md) = (BigInt::from(ma), BigInt::from(mb), BigInt::from(mc), BigInt::from(md));
                let nu = &u * &ma + &v * &mb;
                let nv = &u * &mc + &v * &md;
                let nxu = &xu * &ma + &xv * &mb;
                let nxv = &xu * &mc + &xv * &md;
                (u, v, xu, xv) = (nu, nv, nxu, nxv);
            }
            None => {
                let q = &u / &v;
                let r = &u - &q * &v;
                let x = &xu - &q * &xv;
                (u, v, xu, xv) = (v, r, xv, x);
            }
        }
    }
    if u != BigInt::one() {
        return None;
    }
    let m_int = BigInt::from(m.clone());
    let x = ((xu % &m_int) + &m_int) % &m_int;
    let x = x.to_biguint()?;
    (&a * &x % m == BigUint::one()).then_some(x)
}

/// Algorithm L's inner loop on the leading bits `u >> shift`, `v >> shift`: the matrix
/// `[A, B, C, D]` of the Euclid steps whose quotients the leading bits determine, or `None`
/// when they determine none (then one full division step is needed).
fn lehmer_matrix(u: &BigInt, v: &BigInt, shift: u64) -> Option<[i128; 4]> {
    let mut uh = (u >> shift).to_i128()?;
    let mut vh = (v >> shift).to_i128()?;
    let (mut a, mut b, mut c, mut d) = (1i128, 0i128, 0i128, 1i128);
    loop {
        let (den1, den2) = (vh + c, vh + d);
        let (num1, num2) = (uh + a, uh + b);
        if den1 <= 0 || den2 <= 0 || num1 < 0 || num2 < 0 {
            break;
        }
        let q = num1 / den1;
        if q != num2 / den2 {
            break;
        }
        (a, c) = (c, a - q * c);
        (b, d) = (d, b - q * d);
        (uh, vh) = (vh, uh - q * vh);
    }
    (b != 0).then_some([a, b, c, d])
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    #[test]
    fn lehmer_inverse_agrees_with_num_bigint() {
        let mut rng = ChaCha8Rng::seed_from_u64(9);
        for bits in [2u64, 64, 100, 130, 500, 4000, 20_000] {
            for _ in 0..4 {
                let m = rng.gen_biguint(bits) + 2u32;
                let a = rng.gen_biguint(bits + 3);
                assert_eq!(inverse(&a, &m), (&a % &m).modinv(&m), "{bits} bits");
            }
        }
        // Not invertible: a shared factor.
        let m = rng.gen_biguint(3000) * 6u32;
        let a = rng.gen_biguint(3000) * 3u32;
        assert_eq!(inverse(&a, &m), None);
        assert_eq!(inverse(&BigUint::from(3u32), &BigUint::one()), None);
    }

    #[test]
    fn lehmer_inverse_is_fast_at_100k_bits() {
        let mut rng = ChaCha8Rng::seed_from_u64(10);
        let m = rng.gen_biguint(100_000) | BigUint::one();
        let a = rng.gen_biguint(100_000);
        let start = std::time::Instant::now();
        let x = inverse(&a, &m);
        let elapsed = start.elapsed();
        eprintln!("inverse at 100,000 bits: {elapsed:?}");
        if let Some(x) = x {
            assert_eq!(&a * x % &m, BigUint::one());
        } else {
            assert!(num_integer::Integer::gcd(&a, &m) != BigUint::one());
        }
    }
}
