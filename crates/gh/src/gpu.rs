//! Gentry-Halevi on the GPU (feature `cuda`), bit for bit the CPU's ciphertexts: the modulus
//! `d`, the powers `r^0 .. r^(w-1)` and `r^w` (and the secret `w_i`) kept on the device.
//!
//! Encrypt: the window sums `A_j = sum_{i < w} a_{jw+i} r^i mod d` of the windows holding a
//! nonzero coefficient in one launch sequence (`GpuBigInt::linear_combinations_mod`), their
//! products by the powers `r^(wj)` (kept on the device) as one batch, and their sum as one more
//! linear combination: `a(r) mod d`, the CPU's residue (Horner's rule there). With Gentry and
//! Halevi's sparse noise most windows are empty; with `w = n` there is one window and no
//! product.
//!
//! Decrypt: the bit is `[c w]_d mod 2 = (c w - d round(c w / d)) mod 2 = (c_0 w_0) xor
//! round(c w / d) mod 2` for odd `d`. With `W = floor(2^K w / d)` (`K` = 64 more bits than
//! `d`'s limbs hold, `W` transformed once on the device), `c W / 2^K` is below `c w / d` by
//! less than `2^-64`: one product `c W` gives the integer part's parity (bit `K`) and the top 64
//! bits of the fraction, and the rounding follows unless the fraction lies within `2^-64` below
//! `1/2` (then the noise is at the decryption limit; the modular product `c w mod d` decides).
//! Three words come back.
//! Recrypt ([`GpuGh::recrypt`]): the factors `c x_k R^l mod d` in the clear on the CPU (as
//! Wang et al. do), the selection as one linear combination per block of the precomputed
//! `sigma_{k,l} = eta_{k,a} eta_{k,b}` (a table of `S` rows per block, made when the key is
//! loaded: equal modulo `d` to the CPU's `sum_a eta_a sum_b eta_b`, so the result is the CPU's
//! bit for bit), then the grade-school addition of [`crate::recrypt::add_up`] with batched
//! products.

use std::sync::Arc;

use bigint::BigNat;
use bigint::gpu::{GpuBigInt, GpuModulus, GpuMultiplier, GpuResidue, GpuTable};
use num_bigint::BigUint;
use poly_cuda::GpuDevice;
use rand::Rng;

use crate::error::{GhError, Result};
use crate::recrypt::{Evaluator, Factors, RecryptKey, add_up, factors_from_starts, positions_with_bit};
use crate::scheme::{Ciphertext, PublicKey, SecretKey, decrypted_bit};

/// Products per `mul_mod_batch` launch sequence.
const BATCH: usize = 64;

/// A squashed key on the device: per block, the table of the `S` selectors
/// `sigma_{k,l} = eta_{k,a} eta_{k,b}` (encrypted, degree 2; the `eta_{k,l}` themselves in the
/// one-hot encoding), and the `x_k`.
#[derive(Debug)]
pub struct GpuRecryptKey {
    cpu: RecryptKey,
    sigma: Vec<GpuTable>,
    x: Vec<GpuResidue>,
}

impl GpuRecryptKey {
    /// The host key.
    pub fn host(&self) -> &RecryptKey {
        &self.cpu
    }
}

/// A ciphertext on the device, tagged with its key.
#[derive(Debug)]
pub struct GpuCiphertext {
    key: u64,
    c: GpuResidue,
}

/// The secret key on the device: `w_i` (for the exact fallback) and `W = floor(2^K w_i / d)`
/// transformed, with the low bit of `w_i`.
#[derive(Debug)]
struct GpuSecret {
    w: GpuResidue,
    scaled: GpuMultiplier,
    w_odd: bool,
}

/// A public key (and optionally the secret key) loaded on a device.
#[derive(Debug)]
pub struct GpuGh {
    big: GpuBigInt,
    pk: PublicKey,
    window: usize,
    modulus: GpuModulus,
    powers: GpuTable,
    /// `r^(w j)` for `j = 1 .. n / w`.
    window_powers: Vec<GpuResidue>,
    secret: Option<GpuSecret>,
}

impl GpuGh {
    /// Loads `pk` (and `sk`, for decryption) on `device`, with Encrypt's window `window` (a power
    /// of two dividing `n`; the powers `r^0 .. r^window` are computed on the device).
    pub fn new(device: Arc<GpuDevice>, pk: &PublicKey, sk: Option<&SecretKey>, window: usize) -> Result<Self> {
        let n = pk.params().n();
        if !window.is_power_of_two() || window > n {
            return Err(GhError::BadParameters { reason: format!("window {window} is not a power of two <= n = {n}") });
        }
        if let Some(sk) = sk
            && sk.id() != pk.id()
        {
            return Err(GhError::WrongKey { what: "secret key", found: sk.id(), expected: pk.id() });
        }
        let big = GpuBigInt::new(device)?;
        let modulus = big.modulus(pk.modulus())?;
        let r = big.upload_residue(&modulus, pk.r())?;
        let mut powers_host = vec![BigNat::from_u64(1)];
        let mut current = big.upload_residue(&modulus, &BigNat::from_u64(1))?;
        for _ in 0..window {
            current = big.mul_mod(&modulus, &current, &r)?;
            if powers_host.len() < window {
                powers_host.push(big.download_residue(&current)?);
            }
        }
        let powers = big.upload_table(&modulus, &powers_host)?;
        let mut window_powers = Vec::with_capacity(n / window);
        if n / window > 1 {
            window_powers.push(current);
            for _ in 2..n / window {
                let next = big.mul_mod(&modulus, window_powers.last().unwrap_or(&r), &window_powers[0])?;
                window_powers.push(next);
            }
        }
        let secret = sk.map(|sk| Self::load_secret(&big, &modulus, pk, sk)).transpose()?;
        Ok(Self { big, pk: pk.clone(), window, modulus, powers, window_powers, secret })
    }

    fn load_secret(big: &GpuBigInt, modulus: &GpuModulus, pk: &PublicKey, sk: &SecretKey) -> Result<GpuSecret> {
        let limbs = modulus.limbs();
        let d = BigUint::from(pk.modulus().modulus());
        let scaled = (BigUint::from(sk.w()) << (64 * (limbs + 1))) / d;
        Ok(GpuSecret {
            w: big.upload_residue(modulus, sk.w())?,
            scaled: big.multiplier(&BigNat::from(&scaled), limbs + 1, limbs)?,
            w_odd: sk.w().bit(0),
        })
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.pk
    }

    /// The big-integer device.
    pub fn big(&self) -> &GpuBigInt {
        &self.big
    }

    /// Encrypts `bit` with this noise vector (as [`PublicKey::encrypt_with_noise`]).
    pub fn encrypt_with_noise(&self, bit: u8, noise: &[i8]) -> Result<GpuCiphertext> {
        let a = self.pk.plaintext_polynomial(bit, noise)?;
        let w = self.window;
        let windows: Vec<usize> = (0..a.len() / w).filter(|&j| a[j * w..(j + 1) * w].iter().any(|&x| x != 0)).collect();
        if windows.is_empty() {
            return self.constant(0);
        }
        let coeffs: Vec<i8> = windows.iter().flat_map(|&j| a[j * w..(j + 1) * w].iter().copied()).collect();
        let blocks = self.big.linear_combinations_mod(&self.modulus, &self.powers, &coeffs)?;
        // A_0 r^0 as it is; A_j r^(wj) for j >= 1 as one batch.
        let mut terms = Vec::with_capacity(blocks.len());
        let (mut left, mut right) = (Vec::new(), Vec::new());
        for (block, &j) in blocks.iter().zip(&windows) {
            match j.checked_sub(1).and_then(|i| self.window_powers.get(i)) {
                Some(power) => {
                    left.push(block);
                    right.push(power);
                }
                None if j == 0 => terms.push(block),
                None => return Err(GhError::BadParameters { reason: format!("no power r^({w} {j})") }),
            }
        }
        let mut products = Vec::with_capacity(left.len());
        for (l, r) in left.chunks(BATCH).zip(right.chunks(BATCH)) {
            products.extend(self.big.mul_mod_batch(&self.modulus, l, r)?);
        }
        terms.extend(products.iter());
        let mut sums = if terms.len() == 1 {
            // One window: its block, or its one product.
            drop(terms);
            if products.is_empty() { blocks } else { products }
        } else {
            let table = self.big.table_from_residues(&self.modulus, &terms)?;
            self.big.linear_combinations_mod(&self.modulus, &table, &vec![1i8; terms.len()])?
        };
        let c = sums.pop().ok_or_else(|| GhError::BadParameters { reason: "no window sum".to_string() })?;
        Ok(GpuCiphertext { key: self.pk.id(), c })
    }

    /// Encrypts `bit` with fresh noise from `rng`.
    pub fn encrypt<R: Rng>(&self, bit: u8, rng: &mut R) -> Result<GpuCiphertext> {
        let noise = self.pk.sample_noise(rng);
        self.encrypt_with_noise(bit, &noise)
    }

    fn check(&self, what: &'static str, ct: &GpuCiphertext) -> Result<()> {
        if ct.key != self.pk.id() {
            return Err(GhError::WrongKey { what, found: ct.key, expected: self.pk.id() });
        }
        Ok(())
    }

    /// The bit of `ct`. Errors: no secret key loaded, a ciphertext of another key.
    pub fn decrypt(&self, ct: &GpuCiphertext) -> Result<u8> {
        self.check("ciphertext", ct)?;
        let Some(secret) = &self.secret else {
            return Err(GhError::BadParameters { reason: "no secret key on the device".to_string() });
        };
        if self.pk.modulus().modulus().bit(0) {
            // P = c W: limb `limbs` holds the fraction's top 64 bits, limb `limbs + 1` bit K.
            let limbs = self.modulus.limbs();
            let product = self.big.mul_by(ct.c.value(), &secret.scaled)?;
            let words = self.big.download_limbs(&[(&product, limbs, 2), (ct.c.value(), 0, 1)])?;
            if let [fraction, integer, c_low] = words[..] {
                const HALF: u64 = 1 << 63;
                if fraction != HALF - 1 {
                    let round_odd = (integer & 1) ^ u64::from(fraction >= HALF);
                    let cw_odd = c_low & u64::from(secret.w_odd);
                    return Ok(((cw_odd ^ round_odd) & 1) as u8);
                }
            }
        }
        self.decrypt_by_residue(ct)
    }

    /// The bit of `ct` by the modular product `c w_i mod d` and its centered value's parity (the
    /// path [`GpuGh::decrypt`] falls back to; for tests and comparisons).
    pub fn decrypt_by_residue(&self, ct: &GpuCiphertext) -> Result<u8> {
        self.check("ciphertext", ct)?;
        let Some(secret) = &self.secret else {
            return Err(GhError::BadParameters { reason: "no secret key on the device".to_string() });
        };
        let x = self.big.mul_mod(&self.modulus, &ct.c, &secret.w)?;
        Ok(decrypted_bit(&self.pk, &self.big.download_residue(&x)?))
    }

    /// Homomorphic XOR.
    pub fn add(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        self.check("a", a)?;
        self.check("b", b)?;
        Ok(GpuCiphertext { key: self.pk.id(), c: self.big.add_mod(&self.modulus, &a.c, &b.c)? })
    }

    /// Homomorphic AND.
    pub fn mul(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        self.check("a", a)?;
        self.check("b", b)?;
        Ok(GpuCiphertext { key: self.pk.id(), c: self.big.mul_mod(&self.modulus, &a.c, &b.c)? })
    }

    /// A CPU ciphertext on the device. Errors: another key.
    pub fn upload(&self, ct: &Ciphertext) -> Result<GpuCiphertext> {
        self.pk.check("ciphertext", ct)?;
        Ok(GpuCiphertext { key: ct.key_id(), c: self.big.upload_residue(&self.modulus, ct.value())? })
    }

    /// The ciphertext as a CPU one.
    pub fn download(&self, ct: &GpuCiphertext) -> Result<Ciphertext> {
        self.check("ciphertext", ct)?;
        self.pk.ciphertext(self.big.download_residue(&ct.c)?)
    }

    /// The window of Encrypt.
    pub fn window(&self) -> usize {
        self.window
    }
}

impl GpuGh {
    fn check_recrypt_key(&self, key: &RecryptKey) -> Result<()> {
        if key.key_id() != self.pk.id() {
            return Err(GhError::WrongKey { what: "recrypt key", found: key.key_id(), expected: self.pk.id() });
        }
        Ok(())
    }

    /// Loads a squashed key: its indicator bits, and the `s S` selector products (batched).
    /// Errors: a key of another key pair.
    pub fn load_recrypt_key(&self, key: &RecryptKey) -> Result<GpuRecryptKey> {
        self.check_recrypt_key(key)?;
        let params = key.params();
        let mut sigma = Vec::with_capacity(params.s());
        for row in key.eta() {
            let eta = row.iter().map(|ct| self.upload(ct)).collect::<Result<Vec<_>>>()?;
            if params.is_one_hot() {
                let refs: Vec<&GpuResidue> = eta.iter().map(|ct| &ct.c).collect();
                sigma.push(self.big.table_from_residues(&self.modulus, &refs)?);
                continue;
            }
            let pairs: Vec<(usize, usize)> = (0..params.big_s()).map(|l| params.pair(l)).collect();
            let mut products = Vec::with_capacity(pairs.len());
            for chunk in pairs.chunks(BATCH) {
                let a: Vec<&GpuResidue> = chunk.iter().map(|&(a, _)| &eta[a].c).collect();
                let b: Vec<&GpuResidue> = chunk.iter().map(|&(_, b)| &eta[b].c).collect();
                products.extend(self.big.mul_mod_batch(&self.modulus, &a, &b)?);
            }
            let refs: Vec<&GpuResidue> = products.iter().collect();
            sigma.push(self.big.table_from_residues(&self.modulus, &refs)?);
        }
        let x = key
            .x()
            .iter()
            .map(|xk| self.big.upload_residue(&self.modulus, &BigNat::from(xk)))
            .collect::<core::result::Result<Vec<_>, _>>()?;
        Ok(GpuRecryptKey { cpu: key.clone(), sigma, x })
    }

    /// The encrypted bits of the `z_k`: for block `k` and bit `q`, `sum_{l: bit q set}
    /// sigma_{k,l}`, one linear combination per block.
    fn selected_bits(&self, key: &GpuRecryptKey, factors: &Factors) -> Result<Vec<Vec<Option<GpuCiphertext>>>> {
        let params = key.cpu.params();
        let big_s = params.big_s();
        if factors.bits.len() != params.s() || key.sigma.len() != params.s() {
            return Err(GhError::BadParameters { reason: "factors of another shape".to_string() });
        }
        let mut out = Vec::with_capacity(params.s());
        for (row, table) in factors.bits.iter().zip(&key.sigma) {
            let mut coeffs = Vec::new();
            let mut present = Vec::with_capacity(params.factor_bits());
            for q in 0..params.factor_bits() {
                let positions = positions_with_bit(params, row, q);
                present.push(!positions.is_empty());
                if !positions.is_empty() {
                    let mut c = vec![0i8; big_s];
                    for l in positions {
                        c[l] = 1;
                    }
                    coeffs.extend(c);
                }
            }
            let mut sums = if coeffs.is_empty() {
                Vec::new()
            } else {
                self.big.linear_combinations_mod(&self.modulus, table, &coeffs)?
            }
            .into_iter();
            let mut bits = Vec::with_capacity(params.factor_bits());
            for here in present {
                bits.push(if here { sums.next().map(|c| GpuCiphertext { key: self.pk.id(), c }) } else { None });
            }
            out.push(bits);
        }
        Ok(out)
    }

    /// Recrypt on the device, bit for bit [`PublicKey::recrypt`]. Errors: a ciphertext or a
    /// key of another key pair.
    pub fn recrypt(&self, key: &GpuRecryptKey, ct: &GpuCiphertext) -> Result<GpuCiphertext> {
        self.check("ciphertext", ct)?;
        self.check_recrypt_key(&key.cpu)?;
        let factors = self.recrypt_factors(key, ct)?;
        self.recrypt_with_factors(key, &factors)
    }

    /// The clear factors of `ct` (as [`PublicKey::recrypt_factors`]): the starts `c x_k mod d`
    /// as one batch of products on the device, downloaded, then the steps by `R` on CPU threads.
    pub fn recrypt_factors(&self, key: &GpuRecryptKey, ct: &GpuCiphertext) -> Result<Factors> {
        self.check("ciphertext", ct)?;
        self.check_recrypt_key(&key.cpu)?;
        let cs: Vec<&GpuResidue> = key.x.iter().map(|_| &ct.c).collect();
        let xs: Vec<&GpuResidue> = key.x.iter().collect();
        let starts = self.big.mul_mod_batch(&self.modulus, &cs, &xs)?;
        let starts =
            starts.iter().map(|y| self.big.download_residue(y)).collect::<core::result::Result<Vec<_>, _>>()?;
        factors_from_starts(&self.pk, &key.cpu, &starts)
    }

    /// The homomorphic part of Recrypt, from the clear factors ([`PublicKey::recrypt_factors`]).
    pub fn recrypt_with_factors(&self, key: &GpuRecryptKey, factors: &Factors) -> Result<GpuCiphertext> {
        self.check_recrypt_key(&key.cpu)?;
        let bits = self.selected_bits(key, factors)?;
        add_up(self, key.cpu.params(), bits, self.pk.modulus().modulus().bit(0))
    }
}

impl Evaluator for GpuGh {
    type Bit = GpuCiphertext;

    fn add(&self, a: &GpuCiphertext, b: &GpuCiphertext) -> Result<GpuCiphertext> {
        GpuGh::add(self, a, b)
    }

    fn mul_many(&self, pairs: &[(&GpuCiphertext, &GpuCiphertext)]) -> Result<Vec<GpuCiphertext>> {
        let mut out = Vec::with_capacity(pairs.len());
        for chunk in pairs.chunks(BATCH) {
            for (a, b) in chunk {
                self.check("a", a)?;
                self.check("b", b)?;
            }
            let a: Vec<&GpuResidue> = chunk.iter().map(|(a, _)| &a.c).collect();
            let b: Vec<&GpuResidue> = chunk.iter().map(|(_, b)| &b.c).collect();
            let products = if chunk.len() == 1 {
                vec![self.big.mul_mod(&self.modulus, a[0], b[0])?]
            } else {
                self.big.mul_mod_batch(&self.modulus, &a, &b)?
            };
            out.extend(products.into_iter().map(|c| GpuCiphertext { key: self.pk.id(), c }));
        }
        Ok(out)
    }

    fn constant(&self, bit: u8) -> Result<GpuCiphertext> {
        if bit > 1 {
            return Err(GhError::NotABit { value: bit });
        }
        let c = self.big.upload_residue(&self.modulus, &BigNat::from_u64(u64::from(bit)))?;
        Ok(GpuCiphertext { key: self.pk.id(), c })
    }
}
