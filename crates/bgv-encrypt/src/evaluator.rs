//! The core's [`rlwe::Evaluator`] for this scheme: its context's
//! methods under the names every scheme shares, so one circuit runs under either scheme.

use rlwe::{Evaluator, GaloisKeys, PublicKey, RelinearizationKey, RlweContext, SecretKey};

use crate::backend::BgvBackend;
use crate::{BatchEncoder, BgvContext, Ciphertext, Plaintext, Result};

impl<B: BgvBackend> Evaluator<B> for BgvContext<B> {
    type Plaintext = Plaintext;
    type Ciphertext = Ciphertext<B>;
    type Encoder = BatchEncoder;
    type PreparedPlaintext = crate::PreparedPlaintext<B>;

    fn core(&self) -> &RlweContext<B> {
        BgvContext::core(self)
    }

    fn batch_encoder(&self) -> Result<BatchEncoder> {
        BatchEncoder::new(self.params())
    }

    fn encrypt(&self, plaintext: &Plaintext, public_key: &PublicKey<B>) -> Result<Ciphertext<B>> {
        BgvContext::encrypt(self, plaintext, public_key)
    }

    fn encrypt_with_seed(
        &self,
        plaintext: &Plaintext,
        public_key: &PublicKey<B>,
        seed: &poly::Seed,
    ) -> Result<Ciphertext<B>> {
        BgvContext::encrypt_with_seed(self, plaintext, public_key, seed)
    }

    fn decrypt(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<Plaintext> {
        BgvContext::decrypt(self, ciphertext, secret)
    }

    fn noise_budget(&self, ciphertext: &Ciphertext<B>, secret: &SecretKey<B>) -> Result<u32> {
        BgvContext::noise_budget(self, ciphertext, secret)
    }

    fn level(&self, ciphertext: &Ciphertext<B>) -> usize {
        ciphertext.level()
    }

    fn plaintext_modulus(&self) -> u64 {
        self.params().plaintext_modulus()
    }

    fn add(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        BgvContext::add(self, a, b)
    }

    fn sub(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        BgvContext::sub(self, a, b)
    }

    fn negate(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        BgvContext::negate(self, a)
    }

    fn add_plain(&self, a: &Ciphertext<B>, plaintext: &Plaintext) -> Result<Ciphertext<B>> {
        BgvContext::add_plain(self, a, plaintext)
    }

    fn mul_plain(&self, a: &Ciphertext<B>, plaintext: &Plaintext) -> Result<Ciphertext<B>> {
        BgvContext::mul_plain(self, a, plaintext)
    }

    fn prepare_plain(&self, plaintext: &Plaintext) -> Result<crate::PreparedPlaintext<B>> {
        BgvContext::prepare_plain(self, plaintext)
    }

    fn mul_plain_prepared(&self, a: &Ciphertext<B>, plaintext: &crate::PreparedPlaintext<B>) -> Result<Ciphertext<B>> {
        BgvContext::mul_plain_prepared(self, a, plaintext)
    }

    fn mul_relin(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, key: &RelinearizationKey<B>) -> Result<Ciphertext<B>> {
        BgvContext::mul_relin(self, a, b, key)
    }

    fn rotate_rows(&self, a: &Ciphertext<B>, steps: i64, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        BgvContext::rotate_rows(self, a, steps, keys)
    }

    fn mod_switch_to_next(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        BgvContext::mod_switch_to_next(self, a)
    }

    fn divide_plaintext_space(&self, a: &Ciphertext<B>, target: &Self) -> Result<Ciphertext<B>> {
        BgvContext::divide_plaintext_space(self, a, target)
    }

    fn rotate_rows_many(&self, a: &Ciphertext<B>, steps: &[i64], keys: &GaloisKeys<B>) -> Result<Vec<Ciphertext<B>>> {
        BgvContext::rotate_rows_many(self, a, steps, keys)
    }

    fn apply_galois(&self, a: &Ciphertext<B>, element: u64, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        BgvContext::apply_galois(self, a, element, keys)
    }

    fn apply_galois_many(
        &self,
        a: &Ciphertext<B>,
        elements: &[u64],
        keys: &GaloisKeys<B>,
    ) -> Result<Vec<Ciphertext<B>>> {
        BgvContext::apply_galois_many(self, a, elements, keys)
    }

    fn rotate_columns(&self, a: &Ciphertext<B>, keys: &GaloisKeys<B>) -> Result<Ciphertext<B>> {
        BgvContext::rotate_columns(self, a, keys)
    }

    fn add_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        BgvContext::add_scalar(self, a, c)
    }

    fn sub_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        BgvContext::sub_scalar(self, a, c)
    }

    fn mul_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        BgvContext::mul_scalar(self, a, c)
    }
}
