//! [`Evaluator`]: what a circuit needs from a scheme, so that one function, generic over it,
//! evaluates the same circuit under BFV or BGV on either backend (Lattigo's `he.Evaluator`
//! plays this part across its schemes).
//!
//! Keys have one shape across the schemes (the core's [`SecretKey`], [`PublicKey`],
//! [`RelinearizationKey`], [`GaloisKeys`]); each scheme makes them with its own error scale
//! through its core ([`Evaluator::core`]), so a key made by one scheme's core serves that
//! scheme. Errors are the one [`RlweError`](crate::RlweError) of every scheme.

use crate::encoding::{BatchEncoder, Plaintext};
use crate::scheme::SchemeParameters;
use crate::{GaloisKeys, PublicKey, RelinearizationKey, Result, RlweBackend, RlweContext, SecretKey};

/// Values in the batching slots as a scheme's plaintexts, and back (the core's
/// [`BatchEncoder`], which every scheme uses).
pub trait SlotEncoding {
    /// The scheme's plaintext.
    type Plaintext;

    /// The number of slots.
    fn slot_count(&self) -> usize;

    /// `values[s]` in slot `s` (at most [`slot_count`](Self::slot_count) values below `t`; the
    /// other slots hold 0).
    fn encode_slots(&self, values: &[u64]) -> Result<Self::Plaintext>;

    /// The slot values of `plaintext`, in `[0, t)`.
    fn decode_slots(&self, plaintext: &Self::Plaintext) -> Result<Vec<u64>>;
}

/// Every scheme's batch encoder is the core's.
impl<P: SchemeParameters> SlotEncoding for BatchEncoder<P> {
    type Plaintext = Plaintext<P>;

    fn slot_count(&self) -> usize {
        BatchEncoder::slot_count(self)
    }

    fn encode_slots(&self, values: &[u64]) -> Result<Plaintext<P>> {
        self.encode(values)
    }

    fn decode_slots(&self, plaintext: &Plaintext<P>) -> Result<Vec<u64>> {
        self.decode(plaintext)
    }
}

/// The operations of a scheme's context that a circuit uses, with the scheme's own meaning
/// (BFV scales the message by `q/t`, BGV scales the error by `t`; both decrypt to the same
/// plaintext). Binary operations take operands of one parameter set; what each does with
/// operands of different levels is the scheme's (BFV refuses them, BGV brings the higher one
/// down by default).
pub trait Evaluator<B: RlweBackend> {
    /// The scheme's plaintext (on the host).
    type Plaintext;
    /// The scheme's ciphertext (on the backend).
    type Ciphertext;
    /// The scheme's batch encoder.
    type Encoder: SlotEncoding<Plaintext = Self::Plaintext>;

    /// The core context under the scheme (its rings, key switching, and key generation with the
    /// scheme's error scale).
    fn core(&self) -> &RlweContext<B>;

    /// A batch encoder for the context's parameters (errors when `t` does not allow batching).
    fn batch_encoder(&self) -> Result<Self::Encoder>;

    /// Public-key encryption with fresh OS randomness.
    fn encrypt(&self, plaintext: &Self::Plaintext, public_key: &PublicKey<B>) -> Result<Self::Ciphertext>;

    /// The plaintext of `ciphertext` (any size, any level).
    fn decrypt(&self, ciphertext: &Self::Ciphertext, secret: &SecretKey<B>) -> Result<Self::Plaintext>;

    /// The bits of noise budget left (an error once none is left).
    fn noise_budget(&self, ciphertext: &Self::Ciphertext, secret: &SecretKey<B>) -> Result<u32>;

    /// The ciphertext's level in the modulus chain.
    fn level(&self, ciphertext: &Self::Ciphertext) -> usize;

    /// `a + b`.
    fn add(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> Result<Self::Ciphertext>;

    /// `a - b`.
    fn sub(&self, a: &Self::Ciphertext, b: &Self::Ciphertext) -> Result<Self::Ciphertext>;

    /// `-a`.
    fn negate(&self, a: &Self::Ciphertext) -> Result<Self::Ciphertext>;

    /// `a + m` for a plaintext `m`.
    fn add_plain(&self, a: &Self::Ciphertext, plaintext: &Self::Plaintext) -> Result<Self::Ciphertext>;

    /// `a * m` for a plaintext `m`.
    fn mul_plain(&self, a: &Self::Ciphertext, plaintext: &Self::Plaintext) -> Result<Self::Ciphertext>;

    /// `a * b`, relinearized with `key`.
    fn mul_relin(
        &self,
        a: &Self::Ciphertext,
        b: &Self::Ciphertext,
        key: &RelinearizationKey<B>,
    ) -> Result<Self::Ciphertext>;

    /// Both rows of the batching slots rotated left by `steps` (right for negative `steps`);
    /// `keys` must hold the element of `steps`.
    fn rotate_rows(&self, a: &Self::Ciphertext, steps: i64, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext>;

    /// `a` one level down the modulus chain.
    fn mod_switch_to_next(&self, a: &Self::Ciphertext) -> Result<Self::Ciphertext>;
}
