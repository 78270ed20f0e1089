//! BGV (Brakerski, Gentry and Vaikuntanathan) over `Z_Q[x]/Phi_m(x)` for odd `m`, HElib's rings,
//! on the CPU: the reference the GPU (`gpu::GpuBgv`, feature `cuda`) is checked against.
//!
//! - Modulus `Q = q_0 ... q_{L-1}` ([`crate::bluestein_primes`]: `= 1 mod m` and `= 1 mod 2M`)
//!   and one special prime `P` for key switching; plaintext modulus `t` (any integer `>= 2`
//!   coprime to every prime).
//! - Ciphertexts and keys live in the evaluation representation (HElib's "DoubleCRT"): per
//!   prime, the `phi(m)` values at the primitive `m`-th roots ([`CyclotomicRing::forward`]), so
//!   products are element-wise. Layout: limb-major `[limbs][phi(m)]`.
//! - Secret key ternary; errors centered binomial (`eta = 21`, standard deviation about 3.24);
//!   both are sampled as the **coefficients of a polynomial of degree `< phi(m)` in the power
//!   basis** `1, x, .., x^(phi(m) - 1)` (not in the canonical embedding: for `m` not a power of
//!   two the embedding of such a polynomial is somewhat larger than a spherical Gaussian of the
//!   same width, a factor that HElib's noise estimates also carry and that `docs/cyclotomic.md`
//!   discusses). Coefficient `j` is word `j` of `poly::sampling`'s ChaCha20 stream for
//!   `(seed, distribution, index)` (sampled at degree `phi(m)` rounded up to a power of two and
//!   truncated, so the GPU draws the same words at any larger power of two). Every error is
//!   multiplied by `t`.
//! - Public-key encryption, the seed thesis's operation: `c = (b u + t e_0 + m, a u + t e_1)`
//!   with `pk = (b, a) = (-a s + t e, a)`, `u` ternary; symmetric encryption `(-a s + t e + m,
//!   a)`; decryption `[[c_0 + c_1 s (+ c_2 s^2)]_Q]_t`, times the inverse of the ciphertext's
//!   correction factor.
//! - Relinearization by key switching with RNS digits (digit `i` = the residue modulo `q_i`)
//!   and the special prime: the key of digit `i` encrypts `P g_i s^2` over `QP` (`g_i` the CRT
//!   idempotent of `q_i`), and ModDown subtracts `t r`, `r = [x_P t^-1]_P` centered, before the
//!   division by `P`, so the error stays a multiple of `t` and the message is unchanged. At a
//!   lower level the key's limbs of the remaining primes serve (the gadget restricts exactly).
//! - Modulus switching drops the last prime the same way (`r = [c t^-1]_{q_l}`); the message is
//!   multiplied by `q_l^-1 mod t`, which the ciphertext's correction factor records.
//! - Encodings: coefficients (`phi(m)` values modulo `t`: the plaintext polynomial) and, when
//!   `t` is a prime `= 1 mod m`, slots ([`SlotEncoder`]: `Phi_m` splits into `phi(m)` linear
//!   factors modulo `t` and slot `s` is the value at `z^(k_s)`, `z` a primitive `m`-th root
//!   modulo `t`). For other `t` the slots are extension fields `GF(t^d)`, `d` the order of `t`
//!   modulo `m` (HElib's `PAlgebra`): not implemented.
//!
//! (Above 800 lines on purpose: this separate BGV is folded into `bgv-encrypt` over the ring
//! layer's `Phi_m` rings next, and deleted then rather than split; its results are recorded in
//! `tests/recorded_circuits.rs` for that step.)

use modarith::Modulus;
use num_bigint::BigUint;
use num_traits::{ToPrimitive, Zero};
use poly::Seed;
// The sampling degree of `n` coefficients is the ring layer's.
use poly::sampling::padded_sampling_degree as sampling_degree;
use poly::sampling::{sample_cbd_signed, sample_ternary_signed, sample_uniform};

use crate::CyclotomicRing;
use crate::{CyclotomicError, Result};

/// Poly index of the secret key's ternary stream, of the public key's uniform `a` and error,
/// and the first of the relinearization key's (one per digit).
const SECRET_INDEX: u64 = 0;
const PUBLIC_INDEX: u64 = 1;
const RELIN_INDEX: u64 = 100;

/// The parameters of BGV over `Z_Q[x]/Phi_m` (module docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BgvParameters {
    m: usize,
    t: u64,
    primes: Vec<u64>,
    special: u64,
}

impl BgvParameters {
    /// `count` ciphertext primes of `bits` bits and one special prime of `special_bits` bits
    /// (more than `bits`, so that it is distinct from them and key switching adds little
    /// noise), all from [`crate::bluestein_primes`] for `m`; plaintext modulus `t`.
    pub fn generate(m: usize, t: u64, bits: u32, count: usize, special_bits: u32) -> Result<Self> {
        if special_bits <= bits {
            return Err(CyclotomicError::InvalidParameter {
                name: "special_bits",
                value: u64::from(special_bits),
                requirement: format!("must exceed the ciphertext primes' {bits} bits"),
            });
        }
        let primes = crate::bluestein_primes(bits, m as u64, count)?;
        let special = crate::bluestein_primes(special_bits, m as u64, 1)?[0];
        Self::new(m, t, primes, special)
    }

    /// Parameters from given primes. Errors with [`CyclotomicError::InvalidParameter`] for
    /// no ciphertext prime, a repeated prime, a prime that does not suit `m` (`= 1 mod m` and
    /// `= 1 mod 2M`), or `t < 2` not coprime to every prime or not below `2^32`.
    pub fn new(m: usize, t: u64, primes: Vec<u64>, special: u64) -> Result<Self> {
        let invalid = |name: &'static str, value: u64, requirement: String| {
            Err(CyclotomicError::InvalidParameter { name, value, requirement })
        };
        if primes.is_empty() {
            return invalid("primes", 0, "at least one ciphertext prime".to_string());
        }
        let big_m = crate::bluestein_length(m) as u64;
        let mut all = primes.clone();
        all.push(special);
        for (i, &p) in all.iter().enumerate() {
            if all[..i].contains(&p) {
                return invalid("prime", p, "the primes must be distinct".to_string());
            }
            if !modarith::is_prime(p) || !(p - 1).is_multiple_of(m as u64) || !(p - 1).is_multiple_of(2 * big_m) {
                return invalid("prime", p, format!("must be a prime = 1 mod {m} and = 1 mod {}", 2 * big_m));
            }
            if t >= 2 && p.is_multiple_of(t) {
                return invalid("t", t, format!("must be coprime to the prime {p}"));
            }
        }
        if !(2..1 << 32).contains(&t) {
            return invalid("t", t, "must be in 2..2^32".to_string());
        }
        Ok(Self { m, t, primes, special })
    }

    /// `m`.
    pub fn m(&self) -> usize {
        self.m
    }

    /// `phi(m)`.
    pub fn degree(&self) -> usize {
        crate::euler_phi(self.m as u64) as usize
    }

    /// The plaintext modulus.
    pub fn t(&self) -> u64 {
        self.t
    }

    /// The ciphertext primes `q_0 .. q_{L-1}`.
    pub fn primes(&self) -> &[u64] {
        &self.primes
    }

    /// The special prime `P`.
    pub fn special(&self) -> u64 {
        self.special
    }

    /// `log2(Q P)`.
    pub fn log_qp(&self) -> f64 {
        self.primes.iter().chain([&self.special]).map(|&p| (p as f64).log2()).sum()
    }

    /// The largest `log2(Q P)` for 128-bit security at this `phi(m)`
    /// ([`crate::params::max_log_qp_128`]), `None` below the table.
    pub fn max_log_qp_128(&self) -> Option<u64> {
        crate::params::max_log_qp_128(self.degree())
    }

    /// Whether `log2(Q P)` is within [`max_log_qp_128`](Self::max_log_qp_128).
    pub fn is_secure_128(&self) -> bool {
        self.max_log_qp_128().is_some_and(|max| self.log_qp() <= max as f64)
    }
}

/// The secret key: ternary coefficients and their evaluations over every prime (`Q` and `P`).
#[derive(Debug, Clone)]
pub struct SecretKey {
    coefficients: Vec<i64>,
    /// `[L + 1][n]`.
    evaluations: Vec<u64>,
}

impl SecretKey {
    /// The ternary coefficients (`phi(m)` of them).
    pub fn coefficients(&self) -> &[i64] {
        &self.coefficients
    }

    /// The evaluations over `q_0 .. q_{L-1}, P`, limb-major.
    pub fn evaluations(&self) -> &[u64] {
        &self.evaluations
    }
}

/// The public key `(b, a) = (-a s + t e, a)` over `Q`, evaluations `[L][n]` each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PublicKey {
    /// `-a s + t e`.
    pub b: Vec<u64>,
    /// `a`.
    pub a: Vec<u64>,
}

/// The relinearization key: per digit `i < L`, `(k_0, k_1) = (-a_i s + t e_i + P g_i s^2, a_i)`
/// over `Q P`, evaluations `[L + 1][n]` each.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RelinKey {
    /// `(k_0, k_1)` of every digit.
    pub digits: Vec<(Vec<u64>, Vec<u64>)>,
}

/// A ciphertext: 2 (or 3, before relinearization) polynomials in evaluation form over
/// `q_0 .. q_level`, and the correction factor `f`: the phase is `f m + t e`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ciphertext {
    /// The parts `c_0, c_1 (, c_2)`, each `[level + 1][n]`.
    pub parts: Vec<Vec<u64>>,
    /// The index of the last prime.
    pub level: usize,
    /// The correction factor modulo `t`.
    pub factor: u64,
}

/// BGV over `Z_Q[x]/Phi_m` on the CPU (module docs).
#[derive(Debug, Clone)]
pub struct Bgv {
    params: BgvParameters,
    /// The rings of `q_0 .. q_{L-1}` then `P`.
    rings: Vec<CyclotomicRing>,
    n: usize,
}

/// `a^-1 mod t` (`t >= 2`, any integer): [`modarith::inverse_mod`], refusing a value that has
/// none with a typed error.
pub(crate) fn inverse_mod(a: u64, t: u64) -> Result<u64> {
    modarith::inverse_mod(a, t).ok_or_else(|| CyclotomicError::InvalidParameter {
        name: "value",
        value: a,
        requirement: format!("must be invertible modulo {t}"),
    })
}

fn mul_mod(a: u64, b: u64, t: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(t)) as u64
}

/// Ternary coefficients `0 .. n` of stream `index` (module docs).
pub fn sample_ternary(n: usize, seed: &Seed, index: u64) -> Result<Vec<i64>> {
    let mut out = vec![0i64; sampling_degree(n)];
    sample_ternary_signed(out.len(), seed, index, &mut out)?;
    out.truncate(n);
    Ok(out)
}

/// Centered binomial (`eta = 21`) coefficients `0 .. n` of stream `index` (module docs).
pub fn sample_error(n: usize, seed: &Seed, index: u64) -> Result<Vec<i64>> {
    let mut out = vec![0i64; sampling_degree(n)];
    sample_cbd_signed(out.len(), seed, index, &mut out)?;
    out.truncate(n);
    Ok(out)
}

impl Bgv {
    /// The scheme for `params` (one [`CyclotomicRing`] per prime).
    pub fn new(params: BgvParameters) -> Result<Self> {
        let rings = params
            .primes
            .iter()
            .chain([&params.special])
            .map(|&p| Ok(CyclotomicRing::new(Modulus::new(p)?, params.m)?))
            .collect::<Result<Vec<_>>>()?;
        let n = params.degree();
        Ok(Self { params, rings, n })
    }

    /// The parameters.
    pub fn params(&self) -> &BgvParameters {
        &self.params
    }

    /// The rings of `q_0 .. q_{L-1}` then `P`.
    pub fn rings(&self) -> &[CyclotomicRing] {
        &self.rings
    }

    /// `phi(m)`.
    pub fn degree(&self) -> usize {
        self.n
    }

    /// `L`, the number of ciphertext primes.
    pub fn limbs(&self) -> usize {
        self.params.primes.len()
    }

    fn special_index(&self) -> usize {
        self.limbs()
    }

    /// The evaluations over the rings `which` of the signed polynomial `x` (`n` coefficients),
    /// each coefficient first multiplied by `scale` and added to the centered lift of
    /// `plain[j]` (values modulo `t`) when given.
    fn forward_signed(&self, x: &[i64], scale: u64, plain: Option<&[u64]>, which: &[usize]) -> Result<Vec<u64>> {
        let t = self.params.t;
        let mut out = Vec::with_capacity(which.len() * self.n);
        for &r in which {
            let ring = &self.rings[r];
            let q = ring.modulus();
            let coefficients: Vec<u64> = x
                .iter()
                .enumerate()
                .map(|(j, &v)| {
                    let mut c = q.mul(q.from_i64(v), q.reduce(scale));
                    if let Some(plain) = plain {
                        let w = plain[j] as i64;
                        let lifted = if plain[j] > t / 2 { w - t as i64 } else { w };
                        c = q.add(c, q.from_i64(lifted));
                    }
                    c
                })
                .collect();
            out.extend(ring.forward(&coefficients)?);
        }
        Ok(out)
    }

    /// Uniform evaluations over the rings `which` from stream `index` (limb `i` of the stream's
    /// sampling-degree layout, its first `n` words).
    fn sample_uniform_eval(&self, seed: &Seed, index: u64, which: &[usize]) -> Result<Vec<u64>> {
        let degree = sampling_degree(self.n);
        let moduli: Vec<Modulus> = which.iter().map(|&r| *self.rings[r].modulus()).collect();
        let mut words = vec![0u64; degree * moduli.len()];
        sample_uniform(&moduli, degree, seed, index, &mut words)?;
        Ok(words.chunks_exact(degree).flat_map(|limb| limb[..self.n].to_vec()).collect())
    }

    fn check_plain(&self, plain: &[u64]) -> Result<()> {
        if plain.len() != self.n {
            return Err(CyclotomicError::LengthMismatch { what: "plaintext", expected: self.n, actual: plain.len() });
        }
        if let Some(&bad) = plain.iter().find(|&&v| v >= self.params.t) {
            return Err(CyclotomicError::InvalidParameter {
                name: "plaintext value",
                value: bad,
                requirement: format!("must be below t = {}", self.params.t),
            });
        }
        Ok(())
    }

    /// The secret key, public key and relinearization key from `seed` (module docs).
    pub fn keygen(&self, seed: &Seed) -> Result<(SecretKey, PublicKey, RelinKey)> {
        let (n, l, t) = (self.n, self.limbs(), self.params.t);
        let all: Vec<usize> = (0..=l).collect();
        let coefficients = sample_ternary(n, seed, SECRET_INDEX)?;
        let s = self.forward_signed(&coefficients, 1, None, &all)?;
        let sk = SecretKey { coefficients, evaluations: s.clone() };
        // pk over Q.
        let a = self.sample_uniform_eval(seed, PUBLIC_INDEX, &all[..l])?;
        let e = sample_error(n, seed, PUBLIC_INDEX)?;
        let te = self.forward_signed(&e, t, None, &all[..l])?;
        let b = self.map_limbs(l, |r, j| {
            let q = self.rings[r].modulus();
            q.sub(te[j], q.mul(a[j], s[j]))
        });
        // Relinearization key over QP.
        let p_special = self.params.special;
        let mut digits = Vec::with_capacity(l);
        for i in 0..l {
            let index = RELIN_INDEX + i as u64;
            let a = self.sample_uniform_eval(seed, index, &all)?;
            let e = sample_error(n, seed, index)?;
            let te = self.forward_signed(&e, t, None, &all)?;
            let k0 = self.map_limbs(l + 1, |r, j| {
                let q = self.rings[r].modulus();
                let mut v = q.sub(te[j], q.mul(a[j], s[j]));
                if r == i {
                    v = q.add(v, q.mul(q.reduce(p_special), q.mul(s[j], s[j])));
                }
                v
            });
            digits.push((k0, a));
        }
        Ok((sk, PublicKey { b, a }, RelinKey { digits }))
    }

    /// `f(ring, flat index)` over `limbs` limbs of `n` words.
    fn map_limbs(&self, limbs: usize, f: impl Fn(usize, usize) -> u64) -> Vec<u64> {
        (0..limbs * self.n).map(|j| f(j / self.n, j)).collect()
    }

    /// The encryption randomness of encryption number `counter` under `seed`: `u` (ternary),
    /// `e_0`, `e_1` (binomial), streams `3 counter`, `3 counter + 1`, `3 counter + 2`.
    pub fn encryption_randomness(&self, seed: &Seed, counter: u64) -> Result<[Vec<i64>; 3]> {
        let n = self.n;
        Ok([
            sample_ternary(n, seed, 3 * counter)?,
            sample_error(n, seed, 3 * counter + 1)?,
            sample_error(n, seed, 3 * counter + 2)?,
        ])
    }

    /// Public-key encryption of `plain` (`phi(m)` coefficients modulo `t`) with the randomness
    /// of `(seed, counter)`: `(b u + t e_0 + m, a u + t e_1)` at the top level.
    pub fn encrypt(&self, pk: &PublicKey, plain: &[u64], seed: &Seed, counter: u64) -> Result<Ciphertext> {
        self.check_plain(plain)?;
        let (l, t) = (self.limbs(), self.params.t);
        let q_rings: Vec<usize> = (0..l).collect();
        let [u, e0, e1] = self.encryption_randomness(seed, counter)?;
        let u = self.forward_signed(&u, 1, None, &q_rings)?;
        let e0 = self.forward_signed(&e0, t, Some(plain), &q_rings)?;
        let e1 = self.forward_signed(&e1, t, None, &q_rings)?;
        let c0 = self.map_limbs(l, |r, j| {
            let q = self.rings[r].modulus();
            q.add(q.mul(pk.b[j], u[j]), e0[j])
        });
        let c1 = self.map_limbs(l, |r, j| {
            let q = self.rings[r].modulus();
            q.add(q.mul(pk.a[j], u[j]), e1[j])
        });
        Ok(Ciphertext { parts: vec![c0, c1], level: l - 1, factor: 1 })
    }

    /// Symmetric encryption of `plain`: `(-a s + t e + m, a)`, `a` and `e` from streams
    /// `counter` of `seed` (uniform and binomial).
    pub fn encrypt_symmetric(&self, sk: &SecretKey, plain: &[u64], seed: &Seed, counter: u64) -> Result<Ciphertext> {
        self.check_plain(plain)?;
        let (l, t) = (self.limbs(), self.params.t);
        let q_rings: Vec<usize> = (0..l).collect();
        let a = self.sample_uniform_eval(seed, counter, &q_rings)?;
        let e = sample_error(self.n, seed, counter)?;
        let te = self.forward_signed(&e, t, Some(plain), &q_rings)?;
        let c0 = self.map_limbs(l, |r, j| {
            let q = self.rings[r].modulus();
            q.sub(te[j], q.mul(a[j], sk.evaluations[j]))
        });
        Ok(Ciphertext { parts: vec![c0, a], level: l - 1, factor: 1 })
    }

    /// The phase `c_0 + c_1 s (+ c_2 s^2)` in evaluation form over `q_0 .. q_level`.
    pub fn phase_evaluations(&self, ct: &Ciphertext, sk: &SecretKey) -> Vec<u64> {
        self.map_limbs(ct.level + 1, |r, j| {
            let q = self.rings[r].modulus();
            let s = sk.evaluations[j];
            let (mut acc, mut power) = (0u64, 1u64);
            for part in &ct.parts {
                acc = q.add(acc, q.mul(part[j], power));
                power = q.mul(power, s);
            }
            acc
        })
    }

    /// The phase's coefficients, centered modulo `q_0 ... q_level` (exact CRT).
    pub fn phase_coefficients(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Vec<num_bigint::BigInt>> {
        let evaluations = self.phase_evaluations(ct, sk);
        let mut coefficients = Vec::with_capacity(evaluations.len());
        for (r, limb) in evaluations.chunks_exact(self.n).enumerate() {
            coefficients.extend(self.rings[r].inverse(limb)?);
        }
        Ok(self.crt_centered(&coefficients, ct.level))
    }

    /// Coefficients over `q_0 .. q_level` (`[level + 1][n]`) to centered integers modulo their
    /// product.
    pub fn crt_centered(&self, residues: &[u64], level: usize) -> Vec<num_bigint::BigInt> {
        let primes = &self.params.primes[..=level];
        let q: BigUint = primes.iter().map(|&p| BigUint::from(p)).product();
        let half = &q >> 1u32;
        let factors: Vec<BigUint> = primes
            .iter()
            .map(|&p| {
                let qi = &q / p;
                let qi_mod = (&qi % p).to_u64().unwrap_or(0);
                let inv = Modulus::new(p).ok().and_then(|m| m.inv(qi_mod).ok()).unwrap_or(0);
                qi * inv
            })
            .collect();
        (0..self.n)
            .map(|j| {
                let mut x = BigUint::zero();
                for (i, f) in factors.iter().enumerate() {
                    x += f * residues[i * self.n + j];
                }
                x %= &q;
                if x > half {
                    num_bigint::BigInt::from(x) - num_bigint::BigInt::from(q.clone())
                } else {
                    num_bigint::BigInt::from(x)
                }
            })
            .collect()
    }

    /// Decryption: `phi(m)` coefficients modulo `t`.
    pub fn decrypt(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<Vec<u64>> {
        let phase = self.phase_coefficients(ct, sk)?;
        self.phase_to_plain(&phase, ct.factor)
    }

    /// Centered phase coefficients to the plaintext: `[x]_t f^-1 mod t`.
    pub fn phase_to_plain(&self, phase: &[num_bigint::BigInt], factor: u64) -> Result<Vec<u64>> {
        let t = self.params.t;
        let f_inv = inverse_mod(factor, t)?;
        let big_t = num_bigint::BigInt::from(t);
        Ok(phase
            .iter()
            .map(|x| {
                let r = ((x % &big_t) + &big_t) % &big_t;
                mul_mod(r.to_u64().unwrap_or(0), f_inv, t)
            })
            .collect())
    }

    /// `log2` of the largest centered phase coefficient over `log2(q_0 ... q_level / 2)`: the
    /// noise's size and the room left (`budget = log2(Q/2) - noise`; decryption is correct while
    /// the noise stays below `Q/2`).
    pub fn noise_bits(&self, ct: &Ciphertext, sk: &SecretKey) -> Result<(f64, f64)> {
        let phase = self.phase_coefficients(ct, sk)?;
        let max = phase.iter().map(|x| x.magnitude().bits()).max().unwrap_or(0) as f64;
        let log_q: f64 = self.params.primes[..=ct.level].iter().map(|&p| (p as f64).log2()).sum();
        Ok((max, log_q - 1.0 - max))
    }

    /// `a + b` (the same level; a factor that differs is matched by scaling `b` by
    /// `f_a f_b^-1 mod t`).
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        let (a, b) = self.same_level(a, b)?;
        let b = if a.factor == b.factor {
            b
        } else {
            let t = self.params.t;
            let k = mul_mod(a.factor, inverse_mod(b.factor, t)?, t);
            self.scale(&b, k, a.factor)
        };
        let parts = (0..a.parts.len().max(b.parts.len()))
            .map(|k| {
                let zero = vec![0u64; (a.level + 1) * self.n];
                let (x, y) = (a.parts.get(k).unwrap_or(&zero), b.parts.get(k).unwrap_or(&zero));
                self.map_limbs(a.level + 1, |r, j| self.rings[r].modulus().add(x[j], y[j]))
            })
            .collect();
        Ok(Ciphertext { parts, level: a.level, factor: a.factor })
    }

    fn scale(&self, c: &Ciphertext, k: u64, factor: u64) -> Ciphertext {
        let parts = c
            .parts
            .iter()
            .map(|x| {
                self.map_limbs(c.level + 1, |r, j| {
                    let q = self.rings[r].modulus();
                    q.mul(x[j], q.reduce(k))
                })
            })
            .collect();
        Ciphertext { parts, level: c.level, factor }
    }

    /// Both at the lower of the two levels.
    fn same_level(&self, a: &Ciphertext, b: &Ciphertext) -> Result<(Ciphertext, Ciphertext)> {
        let level = a.level.min(b.level);
        Ok((self.mod_switch_to(a, level)?, self.mod_switch_to(b, level)?))
    }

    /// The tensor product `(c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1)` (two-part inputs), at the lower
    /// level; factor `f_a f_b`.
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        let (a, b) = self.same_level(a, b)?;
        if a.parts.len() != 2 || b.parts.len() != 2 {
            return Err(CyclotomicError::InvalidParameter {
                name: "ciphertext parts",
                value: a.parts.len().max(b.parts.len()) as u64,
                requirement: "must be 2 (relinearize first)".to_string(),
            });
        }
        let limbs = a.level + 1;
        let (c0, c1, d0, d1) = (&a.parts[0], &a.parts[1], &b.parts[0], &b.parts[1]);
        let q = |r: usize| self.rings[r].modulus();
        let p0 = self.map_limbs(limbs, |r, j| q(r).mul(c0[j], d0[j]));
        let p1 = self.map_limbs(limbs, |r, j| q(r).add(q(r).mul(c0[j], d1[j]), q(r).mul(c1[j], d0[j])));
        let p2 = self.map_limbs(limbs, |r, j| q(r).mul(c1[j], d1[j]));
        Ok(Ciphertext { parts: vec![p0, p1, p2], level: a.level, factor: mul_mod(a.factor, b.factor, self.params.t) })
    }

    /// `c_2` switched from `s^2` to `s` (module docs): `(c_0 + d_0, c_1 + d_1)`.
    pub fn relinearize(&self, c: &Ciphertext, rk: &RelinKey) -> Result<Ciphertext> {
        if c.parts.len() == 2 {
            return Ok(c.clone());
        }
        if c.parts.len() != 3 || rk.digits.len() != self.limbs() {
            return Err(CyclotomicError::InvalidParameter {
                name: "ciphertext parts",
                value: c.parts.len() as u64,
                requirement: "must be 2 or 3, with a key of every digit".to_string(),
            });
        }
        let (n, level, special) = (self.n, c.level, self.special_index());
        let targets: Vec<usize> = (0..=level).chain([special]).collect();
        let c2 = &c.parts[2];
        let mut acc0 = vec![0u64; targets.len() * n];
        let mut acc1 = vec![0u64; targets.len() * n];
        for i in 0..=level {
            let digit = self.rings[i].inverse(&c2[i * n..(i + 1) * n])?;
            let (k0, k1) = &rk.digits[i];
            for (slot, &r) in targets.iter().enumerate() {
                let q = self.rings[r].modulus();
                let d = if r == i {
                    c2[i * n..(i + 1) * n].to_vec()
                } else {
                    let reduced: Vec<u64> = digit.iter().map(|&v| q.reduce(v)).collect();
                    self.rings[r].forward(&reduced)?
                };
                for (j, &dj) in d.iter().enumerate() {
                    let (x, key) = (slot * n + j, r * n + j);
                    acc0[x] = q.add(acc0[x], q.mul(dj, k0[key]));
                    acc1[x] = q.add(acc1[x], q.mul(dj, k1[key]));
                }
            }
        }
        let d0 = self.mod_down(&acc0, level)?;
        let d1 = self.mod_down(&acc1, level)?;
        let add = |x: &[u64], y: &[u64]| self.map_limbs(level + 1, |r, j| self.rings[r].modulus().add(x[j], y[j]));
        Ok(Ciphertext { parts: vec![add(&c.parts[0], &d0), add(&c.parts[1], &d1)], level, factor: c.factor })
    }

    /// `(x - t r) P^-1` over `q_0 .. q_level`, `r = [x_P t^-1]_P` centered, for `x` over
    /// `q_0 .. q_level, P` (`[level + 2][n]`, evaluations).
    fn mod_down(&self, x: &[u64], level: usize) -> Result<Vec<u64>> {
        self.divide_by_last(x, level + 1, self.special_index())
    }

    /// `(x - t r) p^-1` over the first `keep` rings, `p` the prime of ring `last` whose limb
    /// is the last of `x` (`[keep + 1][n]`, evaluations), `r = [x_p t^-1]_p` centered.
    fn divide_by_last(&self, x: &[u64], keep: usize, last: usize) -> Result<Vec<u64>> {
        let (n, t) = (self.n, self.params.t);
        let last_ring = &self.rings[last];
        let p = last_ring.modulus();
        let t_inv = p.inv(p.reduce(t))?;
        let coefficients = last_ring.inverse(&x[keep * n..(keep + 1) * n])?;
        let r: Vec<i64> = coefficients.iter().map(|&v| p.center(p.mul(v, t_inv))).collect();
        let mut out = Vec::with_capacity(keep * n);
        for j in 0..keep {
            let ring = &self.rings[j];
            let q = ring.modulus();
            let r_eval = ring.forward(&r.iter().map(|&v| q.from_i64(v)).collect::<Vec<_>>())?;
            let (t_q, p_inv) = (q.reduce(t), q.inv(q.reduce(p.value()))?);
            for k in 0..n {
                let v = q.sub(x[j * n + k], q.mul(t_q, r_eval[k]));
                out.push(q.mul(v, p_inv));
            }
        }
        Ok(out)
    }

    /// Drops the last prime `q_level` (module docs); the factor is multiplied by
    /// `q_level^-1 mod t`. Errors at level 0.
    pub fn mod_switch(&self, c: &Ciphertext) -> Result<Ciphertext> {
        if c.level == 0 {
            return Err(CyclotomicError::InvalidParameter {
                name: "level",
                value: 0,
                requirement: "must be above 0 to switch down".to_string(),
            });
        }
        let parts = c.parts.iter().map(|x| self.divide_by_last(x, c.level, c.level)).collect::<Result<Vec<_>>>()?;
        let t = self.params.t;
        let q_inv = inverse_mod(self.params.primes[c.level] % t, t)?;
        Ok(Ciphertext { parts, level: c.level - 1, factor: mul_mod(c.factor, q_inv, t) })
    }

    /// [`mod_switch`](Self::mod_switch) down to `level` (no change at its own level; an error
    /// above it).
    pub fn mod_switch_to(&self, c: &Ciphertext, level: usize) -> Result<Ciphertext> {
        if level > c.level {
            return Err(CyclotomicError::InvalidParameter {
                name: "level",
                value: level as u64,
                requirement: format!("must be at most the ciphertext's level {}", c.level),
            });
        }
        let mut c = c.clone();
        while c.level > level {
            c = self.mod_switch(&c)?;
        }
        Ok(c)
    }

    /// `a b` relinearized.
    pub fn mul_relin(&self, a: &Ciphertext, b: &Ciphertext, rk: &RelinKey) -> Result<Ciphertext> {
        self.relinearize(&self.mul(a, b)?, rk)
    }
}

/// Batch encoding for a prime `t = 1 mod m` (module docs): slot `s` is the plaintext's value at
/// `z^(k_s)`, `z` a primitive `m`-th root modulo `t`, `k_s` the `s`-th integer below `m`
/// coprime to it; slot-wise sums and products are the plaintext ring's.
#[derive(Debug, Clone)]
pub struct SlotEncoder {
    m: usize,
    modulus: Modulus,
    /// The ring modulo `t` when `t` also suits Bluestein's transform, else `O(m phi(m))`
    /// direct evaluation and interpolation.
    ring: Option<CyclotomicRing>,
    root: u64,
    primitive: Vec<usize>,
    phi: Vec<u64>,
}

impl SlotEncoder {
    /// The encoder of `Phi_m` modulo the prime `t = 1 mod m`. Errors with
    /// [`CyclotomicError::InvalidParameter`] otherwise (the slots would be extension fields).
    pub fn new(m: usize, t: u64) -> Result<Self> {
        let modulus = Modulus::new(t)?;
        if !(t - 1).is_multiple_of(m as u64) {
            return Err(CyclotomicError::InvalidParameter {
                name: "t",
                value: t,
                requirement: format!("must be a prime = 1 mod {m} for slots in Z_t (else slots are GF(t^d))"),
            });
        }
        let root = poly::bluestein::primitive_root_of_order(&modulus, m as u64)?;
        let big_m = crate::bluestein_length(m) as u64;
        let ring = if (t - 1).is_multiple_of(2 * big_m) { Some(CyclotomicRing::new(modulus, m)?) } else { None };
        let primitive = (1..m).filter(|&k| poly::cyclotomic::gcd(k, m) == 1).collect();
        let phi = crate::cyclotomic_polynomial(m as u64)?.into_iter().map(|c| modulus.from_i64(c)).collect();
        Ok(Self { m, modulus, ring, root, primitive, phi })
    }

    /// The number of slots, `phi(m)`.
    pub fn slots(&self) -> usize {
        self.primitive.len()
    }

    /// The plaintext (coefficients modulo `t`) whose slots are `values`.
    pub fn encode(&self, values: &[u64]) -> Result<Vec<u64>> {
        let n = self.slots();
        if values.len() != n {
            return Err(CyclotomicError::LengthMismatch { what: "slot values", expected: n, actual: values.len() });
        }
        let q = &self.modulus;
        let values: Vec<u64> = values.iter().map(|&v| q.reduce(v)).collect();
        if let Some(ring) = &self.ring {
            return Ok(ring.inverse(&values)?);
        }
        // g_j = m^-1 sum_s v_s z^(-j k_s), then g mod Phi_m.
        let root_inv = q.inv(self.root)?;
        let m_inv = q.inv(q.reduce(self.m as u64))?;
        let g: Vec<u64> = (0..self.m)
            .map(|j| {
                let sum = self
                    .primitive
                    .iter()
                    .zip(&values)
                    .fold(0u64, |acc, (&k, &v)| q.add(acc, q.mul(v, q.pow(root_inv, (j * k % self.m) as u64))));
                q.mul(sum, m_inv)
            })
            .collect();
        Ok(poly::cyclotomic::reduce_by_monic(q, &self.phi, g))
    }

    /// The slots of a plaintext (`phi(m)` coefficients modulo `t`).
    pub fn decode(&self, plain: &[u64]) -> Result<Vec<u64>> {
        let n = self.slots();
        if plain.len() != n {
            return Err(CyclotomicError::LengthMismatch { what: "plaintext", expected: n, actual: plain.len() });
        }
        if let Some(ring) = &self.ring {
            return Ok(ring.forward(plain)?);
        }
        let q = &self.modulus;
        Ok(self
            .primitive
            .iter()
            .map(|&k| {
                let z = q.pow(self.root, k as u64);
                plain.iter().rev().fold(0u64, |acc, &c| q.add(q.mul(acc, z), c))
            })
            .collect())
    }
}

/// Plaintext arithmetic modulo `(Phi_m, t)` done naively, for tests: the schoolbook product
/// reduced by long division with `Phi_m`'s integer coefficients, modulo `t`.
pub fn plain_mul_naive(m: usize, t: u64, a: &[u64], b: &[u64]) -> Result<Vec<u64>> {
    let phi = crate::cyclotomic_polynomial(m as u64)?;
    let n = phi.len() - 1;
    let t128 = i128::from(t);
    let mut product = vec![0i128; a.len() + b.len()];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            product[i + j] = (product[i + j] + i128::from(x) * i128::from(y)) % t128;
        }
    }
    for i in (n..product.len()).rev() {
        let c = product[i];
        if c != 0 {
            for (j, &pj) in phi.iter().enumerate() {
                product[i - n + j] = (product[i - n + j] - c * i128::from(pj)) % t128;
            }
        }
    }
    Ok(product[..n].iter().map(|&v| v.rem_euclid(t128) as u64).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng, rngs::StdRng};

    fn seed(byte: u8) -> Seed {
        Seed::from([byte; 32])
    }

    fn random_plain(rng: &mut StdRng, n: usize, t: u64) -> Vec<u64> {
        (0..n).map(|_| rng.gen_range(0..t)).collect()
    }

    fn add_plain(a: &[u64], b: &[u64], t: u64) -> Vec<u64> {
        a.iter().zip(b).map(|(&x, &y)| (x + y) % t).collect()
    }

    /// Encrypt/decrypt (public key and symmetric), add, multiply with relinearization, a second
    /// multiplication, modulus switching and operations across levels, against plaintext
    /// arithmetic modulo (Phi_m, t) computed naively, for m of one to three prime factors; the
    /// noise stays below Q/2 with room.
    #[test]
    fn bgv_matches_plaintext_arithmetic() {
        let mut rng = StdRng::seed_from_u64(11);
        for (m, t) in [(63usize, 257u64), (105, 65537), (255, 17), (127, 1 << 16 | 1), (315, 2)] {
            let params = BgvParameters::generate(m, t, 50, 3, 58).unwrap();
            let bgv = Bgv::new(params).unwrap();
            let n = bgv.degree();
            let (sk, pk, rk) = bgv.keygen(&seed(1)).unwrap();
            let (x, y, z) = (random_plain(&mut rng, n, t), random_plain(&mut rng, n, t), random_plain(&mut rng, n, t));
            let cx = bgv.encrypt(&pk, &x, &seed(2), 0).unwrap();
            let cy = bgv.encrypt(&pk, &y, &seed(2), 1).unwrap();
            let cz = bgv.encrypt_symmetric(&sk, &z, &seed(3), 0).unwrap();
            assert_eq!(bgv.decrypt(&cx, &sk).unwrap(), x, "m = {m}");
            assert_eq!(bgv.decrypt(&cz, &sk).unwrap(), z, "m = {m}");
            assert_eq!(bgv.decrypt(&bgv.add(&cx, &cy).unwrap(), &sk).unwrap(), add_plain(&x, &y, t), "m = {m}");
            let xy = plain_mul_naive(m, t, &x, &y).unwrap();
            let product = bgv.mul(&cx, &cy).unwrap();
            assert_eq!(bgv.decrypt(&product, &sk).unwrap(), xy, "m = {m}: tensor");
            let relin = bgv.relinearize(&product, &rk).unwrap();
            assert_eq!(relin.parts.len(), 2);
            assert_eq!(bgv.decrypt(&relin, &sk).unwrap(), xy, "m = {m}: relinearized");
            let (noise, budget) = bgv.noise_bits(&relin, &sk).unwrap();
            assert!(budget > 20.0, "m = {m}: noise {noise} bits, budget {budget}");
            // Switch down, multiply again (relinearization at a lower level), add across levels.
            let low = bgv.mod_switch(&relin).unwrap();
            assert_eq!(low.level, 1);
            assert_eq!(bgv.decrypt(&low, &sk).unwrap(), xy, "m = {m}: switched");
            let xyz = plain_mul_naive(m, t, &xy, &z).unwrap();
            let again = bgv.mul_relin(&low, &cz, &rk).unwrap();
            assert_eq!(again.level, 1);
            assert_eq!(bgv.decrypt(&again, &sk).unwrap(), xyz, "m = {m}: second product");
            let sum = bgv.add(&again, &cx).unwrap();
            assert_eq!(bgv.decrypt(&sum, &sk).unwrap(), add_plain(&xyz, &x, t), "m = {m}: across levels");
            let bottom = bgv.mod_switch_to(&sum, 0).unwrap();
            assert_eq!(bgv.decrypt(&bottom, &sk).unwrap(), add_plain(&xyz, &x, t), "m = {m}: level 0");
            assert!(bgv.mod_switch(&bottom).is_err());
            assert!(bgv.encrypt(&pk, &vec![t; n], &seed(2), 0).is_err());
            assert!(bgv.encrypt(&pk, &x[1..], &seed(2), 0).is_err());
        }
    }

    /// The same encryption is reproduced from its seed and counter; other counters differ.
    #[test]
    fn encryption_is_a_function_of_seed_and_counter() {
        let bgv = Bgv::new(BgvParameters::generate(63, 257, 50, 2, 58).unwrap()).unwrap();
        let (_, pk, _) = bgv.keygen(&seed(1)).unwrap();
        let plain = vec![1u64; bgv.degree()];
        let a = bgv.encrypt(&pk, &plain, &seed(2), 5).unwrap();
        assert_eq!(a, bgv.encrypt(&pk, &plain, &seed(2), 5).unwrap());
        assert_ne!(a, bgv.encrypt(&pk, &plain, &seed(2), 6).unwrap());
    }

    /// Batch encoding for t = 1 mod m: slot-wise add and multiply under encryption, with both
    /// the direct (t not Bluestein-friendly) and the transform path; t not 1 mod m is refused.
    #[test]
    fn slots_add_and_multiply_slot_wise() {
        let mut rng = StdRng::seed_from_u64(13);
        // 127 = 2 * 63 + 1, 211 = 2 * 105 + 1, 1021 = 4 * 255 + 1 (direct evaluation); a prime
        // = 1 mod 2 * 63 * 128 (Bluestein's transform modulo t).
        let friendly = crate::bluestein_primes(30, 63, 1).unwrap()[0];
        for (m, t) in [(63usize, 127u64), (63, friendly), (105, 211), (255, 1021)] {
            let encoder = SlotEncoder::new(m, t).unwrap();
            let bgv = Bgv::new(BgvParameters::generate(m, t, 50, 3, 58).unwrap()).unwrap();
            let n = bgv.degree();
            let (sk, pk, rk) = bgv.keygen(&seed(4)).unwrap();
            let (x, y) = (random_plain(&mut rng, n, t), random_plain(&mut rng, n, t));
            assert_eq!(encoder.decode(&encoder.encode(&x).unwrap()).unwrap(), x, "m = {m}, t = {t}");
            let cx = bgv.encrypt(&pk, &encoder.encode(&x).unwrap(), &seed(5), 0).unwrap();
            let cy = bgv.encrypt(&pk, &encoder.encode(&y).unwrap(), &seed(5), 1).unwrap();
            let product = bgv.mul_relin(&cx, &cy, &rk).unwrap();
            let want: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| a * b % t).collect();
            assert_eq!(encoder.decode(&bgv.decrypt(&product, &sk).unwrap()).unwrap(), want, "m = {m}, t = {t}");
            let sum = bgv.add(&cx, &cy).unwrap();
            assert_eq!(encoder.decode(&bgv.decrypt(&sum, &sk).unwrap()).unwrap(), add_plain(&x, &y, t));
        }
        assert!(SlotEncoder::new(63, 257).is_err());
    }

    /// HElib's m = 21845 (phi(m) = 2^14, M = 2^16) with four 50-bit primes: encrypt, multiply,
    /// relinearize, decrypt (about a minute in release mode: ignored by default).
    #[test]
    #[ignore = "HElib-size m: slow on the CPU"]
    fn bgv_at_helib_size() {
        let mut rng = StdRng::seed_from_u64(17);
        let t = 257;
        let bgv = Bgv::new(BgvParameters::generate(21845, t, 50, 4, 58).unwrap()).unwrap();
        assert!(bgv.params().is_secure_128());
        let n = bgv.degree();
        let (sk, pk, rk) = bgv.keygen(&seed(6)).unwrap();
        let (x, y) = (random_plain(&mut rng, n, t), random_plain(&mut rng, n, t));
        let cx = bgv.encrypt(&pk, &x, &seed(7), 0).unwrap();
        let cy = bgv.encrypt(&pk, &y, &seed(7), 1).unwrap();
        assert_eq!(bgv.decrypt(&cx, &sk).unwrap(), x);
        let product = bgv.mul_relin(&cx, &cy, &rk).unwrap();
        assert_eq!(bgv.decrypt(&product, &sk).unwrap(), plain_mul_naive(21845, t, &x, &y).unwrap());
    }
}
