//! KeyGen, Encrypt, Decrypt and Eval (add, mul modulo `d`) on the CPU.
//!
//! A ciphertext of a bit `b` is `c = [a(r)]_d` for `a(x) = b + 2 u(x)`, `u_i` in `{-1, 0, 1}`,
//! nonzero with probability `noise / n` (Gentry and Halevi's sparse noise,
//! [`GhParams::noise`]: 16 nonzero coefficients expected in the small setting; in the toy
//! settings 0 with probability 1/2). Decrypt: `b = [c w_i]_d mod 2` for an odd
//! coefficient `w_i` of `w(x)`, `[.]_d` the residue in `(-d/2, d/2]`: `[c w_i]_d` is the `i`-th
//! coefficient of `a(x) w(x)` while that stays below `d/2` (the noise limit).
//!
//! Encrypt evaluates `a(r)` by windows of `w` (Wang, Hu, Chen, Huang and Sunar, "Accelerating
//! fully homomorphic encryption using GPU", HPEC 2012): `a(r) = sum_j (r^w)^j A_j`,
//! `A_j = sum_{i < w} a_{jw + i} r^i`, with the powers `r^0 .. r^w` precomputed, and Horner's
//! rule over `j`.

use bigint::{BarrettModulus, BigNat};
use num_bigint::{BigInt, BigUint};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha20Rng;

use crate::error::{GhError, Result};
use crate::keygen::{W_COEFFICIENTS, inverse, lattice, modulo, sample_v};
use crate::params::GhParams;

/// Key generation attempts before giving up.
const ATTEMPTS: u32 = 16;

/// The public key: `d`, `r`, and the powers of `r` Encrypt uses.
#[derive(Debug, Clone)]
pub struct PublicKey {
    id: u64,
    params: GhParams,
    d: BarrettModulus,
    half_d: BigNat,
    r: BigNat,
    /// `r^0 .. r^(window - 1)`, then `r^window`.
    powers: Vec<BigNat>,
}

/// The secret key: an odd coefficient of `w`, reduced modulo `d`.
#[derive(Debug, Clone)]
pub struct SecretKey {
    id: u64,
    w: BigNat,
    index: usize,
}

/// A ciphertext: an integer below `d`, and the key it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ciphertext {
    key: u64,
    c: BigNat,
}

impl Ciphertext {
    /// The integer.
    pub fn value(&self) -> &BigNat {
        &self.c
    }

    /// The id of its key pair.
    pub fn key_id(&self) -> u64 {
        self.key
    }
}

/// Generates a key pair from `seed` (deterministic). Errors: [`GhError::KeyGeneration`] when no
/// `v` in 16 tries (`ATTEMPTS`) gives a lattice of the required form (`d` odd, `r^n = -1 mod d`,
/// an odd `w_i`, `w_1` invertible modulo `d`).
pub fn keygen(params: &GhParams, seed: u64) -> Result<(PublicKey, SecretKey)> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let mut last = String::new();
    for _ in 0..ATTEMPTS {
        let v = sample_v(params.n(), params.t(), &mut rng);
        let lattice = match lattice(&v) {
            Ok(l) => l,
            Err(GhError::KeyGeneration { reason, .. }) => {
                last = reason;
                continue;
            }
            Err(e) => return Err(e),
        };
        let d = &lattice.d;
        if !d.bit(0) {
            // sample_v makes v(1), hence d, odd; an even d would leak the bit as c's parity.
            last = "d is even".to_string();
            continue;
        }
        let Some(index) = (0..W_COEFFICIENTS).find(|&i| lattice.w[i].bit(0)) else {
            last = "w_0 .. w_3 are even".to_string();
            continue;
        };
        let w1 = modulo(&lattice.w[1], d);
        let Some(w1_inv) = inverse(&w1, d) else {
            last = "w_1 is not invertible modulo d".to_string();
            continue;
        };
        let r = modulo(&lattice.w[0], d) * w1_inv % d;
        let modulus = BarrettModulus::new(&BigNat::from(d))?;
        let r_nat = BigNat::from(&r);
        // The lattice has the form (d, r) only if r^n = -1 mod d.
        let r_n = modulus.pow_mod(&r_nat, &BigNat::from_u64(params.n() as u64))?;
        if BigUint::from(&r_n) != d - 1u32 {
            last = "r^n != -1 mod d".to_string();
            continue;
        }
        let id = rng.r#gen::<u64>();
        let mut powers = vec![BigNat::from_u64(1)];
        for _ in 0..params.window() {
            let next = modulus.mul_mod(powers.last().unwrap_or(&r_nat), &r_nat)?;
            powers.push(next);
        }
        // powers[1] must be r itself: the loop multiplies from r^0 = 1.
        let half_d = BigNat::from(&(d >> 1u32));
        let w = BigNat::from(&modulo(&lattice.w[index], d));
        let pk = PublicKey { id, params: params.clone(), d: modulus, half_d, r: r_nat, powers };
        return Ok((pk, SecretKey { id, w, index }));
    }
    Err(GhError::KeyGeneration { attempts: ATTEMPTS, reason: last })
}

impl PublicKey {
    /// The key pair's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// The setting.
    pub fn params(&self) -> &GhParams {
        &self.params
    }

    /// `d` with its Barrett constant.
    pub fn modulus(&self) -> &BarrettModulus {
        &self.d
    }

    /// `r`.
    pub fn r(&self) -> &BigNat {
        &self.r
    }

    /// `r^0 .. r^window`.
    pub fn powers(&self) -> &[BigNat] {
        &self.powers
    }

    /// Encrypt's noise vector ([`GhParams::sample_noise`]).
    pub fn sample_noise<R: Rng>(&self, rng: &mut R) -> Vec<i8> {
        self.params.sample_noise(rng)
    }

    /// The coefficients of `a(x) = b + 2 u(x)`. Errors: a `bit` other than 0, 1, a noise
    /// vector of another length or with values outside `{-1, 0, 1}`.
    pub fn plaintext_polynomial(&self, bit: u8, noise: &[i8]) -> Result<Vec<i8>> {
        if bit > 1 {
            return Err(GhError::NotABit { value: bit });
        }
        if noise.len() != self.params.n() || noise.iter().any(|u| !(-1..=1).contains(u)) {
            return Err(GhError::BadParameters {
                reason: format!("a noise vector of {} values in -1..=1 is needed", self.params.n()),
            });
        }
        let mut a: Vec<i8> = noise.iter().map(|&u| 2 * u).collect();
        a[0] += bit as i8;
        Ok(a)
    }

    /// Encrypts `bit` with a fresh noise vector from `rng`.
    pub fn encrypt<R: Rng>(&self, bit: u8, rng: &mut R) -> Result<Ciphertext> {
        let noise = self.sample_noise(rng);
        self.encrypt_with_noise(bit, &noise)
    }

    /// Encrypts `bit` with this noise vector (deterministic).
    pub fn encrypt_with_noise(&self, bit: u8, noise: &[i8]) -> Result<Ciphertext> {
        let a = self.plaintext_polynomial(bit, noise)?;
        let window = self.params.window();
        let d = BigInt::from(BigUint::from(self.d.modulus()));
        let r_window = self.powers.get(window).cloned().unwrap_or_default();
        let mut y = BigNat::zero();
        for (j, chunk) in a.chunks(window).enumerate().rev() {
            let mut sum = BigInt::from(0);
            for (i, &coefficient) in chunk.iter().enumerate() {
                if coefficient != 0 {
                    sum += BigInt::from(BigUint::from(&self.powers[i])) * coefficient;
                }
            }
            let block = BigNat::from(&modulo(&sum, d.magnitude()));
            y = if j + 1 == a.len() / window {
                block
            } else {
                self.d.add_mod(&self.d.mul_mod(&y, &r_window)?, &block)?
            };
        }
        Ok(Ciphertext { key: self.id, c: y })
    }

    /// A ciphertext of this key from its integer. Errors: [`GhError::NotReduced`] unless `c < d`.
    pub fn ciphertext(&self, c: BigNat) -> Result<Ciphertext> {
        if &c >= self.d.modulus() {
            return Err(GhError::NotReduced { bits: c.bits(), modulus_bits: self.d.bits() });
        }
        Ok(Ciphertext { key: self.id, c })
    }

    /// Errors unless `ct` belongs to this key.
    pub fn check(&self, what: &'static str, ct: &Ciphertext) -> Result<()> {
        if ct.key != self.id {
            return Err(GhError::WrongKey { what, found: ct.key, expected: self.id });
        }
        if &ct.c >= self.d.modulus() {
            return Err(GhError::NotReduced { bits: ct.c.bits(), modulus_bits: self.d.bits() });
        }
        Ok(())
    }

    /// Homomorphic XOR: `a + b mod d`.
    pub fn add(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check("a", a)?;
        self.check("b", b)?;
        Ok(Ciphertext { key: self.id, c: self.d.add_mod(&a.c, &b.c)? })
    }

    /// Homomorphic AND: `a b mod d`.
    pub fn mul(&self, a: &Ciphertext, b: &Ciphertext) -> Result<Ciphertext> {
        self.check("a", a)?;
        self.check("b", b)?;
        Ok(Ciphertext { key: self.id, c: self.d.mul_mod(&a.c, &b.c)? })
    }

    /// `[x]_d` for `x < d`: whether the representative in `(-d/2, d/2]` is negative.
    pub(crate) fn is_negative(&self, x: &BigNat) -> bool {
        x > &self.half_d
    }
}

impl SecretKey {
    /// The key pair's id.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// `w_i mod d`.
    pub fn w(&self) -> &BigNat {
        &self.w
    }

    /// The index `i` of the coefficient.
    pub fn index(&self) -> usize {
        self.index
    }

    fn check(&self, pk: &PublicKey, ct: &Ciphertext) -> Result<()> {
        if pk.id != self.id {
            return Err(GhError::WrongKey { what: "public key", found: pk.id, expected: self.id });
        }
        pk.check("ciphertext", ct)
    }

    /// The bit of `ct`: `[c w_i]_d mod 2`.
    pub fn decrypt(&self, pk: &PublicKey, ct: &Ciphertext) -> Result<u8> {
        self.check(pk, ct)?;
        let x = pk.d.mul_mod(&ct.c, &self.w)?;
        Ok(decrypted_bit(pk, &x))
    }

    /// Bits of `|[c w_i]_d|`, the noise of `ct`: decryption is right while it is below
    /// `bits(d) - 1`.
    pub fn noise_bits(&self, pk: &PublicKey, ct: &Ciphertext) -> Result<u64> {
        self.check(pk, ct)?;
        let x = pk.d.mul_mod(&ct.c, &self.w)?;
        Ok(if pk.is_negative(&x) { pk.d.modulus().sub(&x)?.bits() } else { x.bits() })
    }
}

/// The bit of `x = [c w_i]_d` (as a residue in `[0, d)`): its parity, flipped when `x` stands for
/// `x - d` and `d` is odd.
pub(crate) fn decrypted_bit(pk: &PublicKey, x: &BigNat) -> u8 {
    let parity = u8::from(x.bit(0));
    if pk.is_negative(x) { parity ^ u8::from(pk.d.modulus().bit(0)) } else { parity }
}
