//! Gentry-Halevi on the GPU (feature `cuda`), bit for bit the CPU's ciphertexts: the modulus
//! `d`, the powers `r^0 .. r^(w-1)` and `r^w` (and the secret `w_i`) kept on the device.
//!
//! Encrypt: the window sums `A_j = sum_{i < w} a_{jw+i} r^i mod d` of all windows in one
//! launch sequence (`GpuBigInt::linear_combinations_mod`), then Horner's rule with `r^w`
//! (`n / w - 1` modular products); with `w = n` there is one window and no product.
//! Decrypt: one modular product `c w_i mod d` and the parity of its centered value.

use std::sync::Arc;

use bigint::BigNat;
use bigint::gpu::{GpuBigInt, GpuModulus, GpuResidue, GpuTable};
use poly_cuda::GpuDevice;
use rand::Rng;

use crate::error::{GhError, Result};
use crate::scheme::{Ciphertext, PublicKey, SecretKey, decrypted_bit};

/// A ciphertext on the device, tagged with its key.
#[derive(Debug)]
pub struct GpuCiphertext {
    key: u64,
    c: GpuResidue,
}

/// A public key (and optionally the secret key) loaded on a device.
#[derive(Debug)]
pub struct GpuGh {
    big: GpuBigInt,
    pk: PublicKey,
    window: usize,
    modulus: GpuModulus,
    powers: GpuTable,
    r_window: GpuResidue,
    secret: Option<GpuResidue>,
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
        let secret = sk.map(|sk| big.upload_residue(&modulus, sk.w())).transpose()?;
        Ok(Self { big, pk: pk.clone(), window, modulus, powers, r_window: current, secret })
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
        let blocks = self.big.linear_combinations_mod(&self.modulus, &self.powers, &a)?;
        let mut iter = blocks.into_iter().rev();
        let Some(mut y) = iter.next() else {
            return Err(GhError::BadParameters { reason: "no window".to_string() });
        };
        for block in iter {
            let shifted = self.big.mul_mod(&self.modulus, &y, &self.r_window)?;
            y = self.big.add_mod(&self.modulus, &shifted, &block)?;
        }
        Ok(GpuCiphertext { key: self.pk.id(), c: y })
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
        let Some(w) = &self.secret else {
            return Err(GhError::BadParameters { reason: "no secret key on the device".to_string() });
        };
        let x = self.big.mul_mod(&self.modulus, &ct.c, w)?;
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
