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
    /// A plaintext prepared for repeated products ([`prepare_plain`](Self::prepare_plain)).
    type PreparedPlaintext;

    /// The core context under the scheme (its rings, key switching, and key generation with the
    /// scheme's error scale).
    fn core(&self) -> &RlweContext<B>;

    /// A batch encoder for the context's parameters (errors when `t` does not allow batching).
    fn batch_encoder(&self) -> Result<Self::Encoder>;

    /// Public-key encryption with fresh OS randomness.
    fn encrypt(&self, plaintext: &Self::Plaintext, public_key: &PublicKey<B>) -> Result<Self::Ciphertext>;

    /// Public-key encryption with the randomness of `seed` (the same ciphertext on every
    /// backend, for tests and reproducible runs).
    fn encrypt_with_seed(
        &self,
        plaintext: &Self::Plaintext,
        public_key: &PublicKey<B>,
        seed: &poly::Seed,
    ) -> Result<Self::Ciphertext>;

    /// The plaintext of `ciphertext` (any size, any level).
    fn decrypt(&self, ciphertext: &Self::Ciphertext, secret: &SecretKey<B>) -> Result<Self::Plaintext>;

    /// The bits of noise budget left (an error once none is left).
    fn noise_budget(&self, ciphertext: &Self::Ciphertext, secret: &SecretKey<B>) -> Result<u32>;

    /// The ciphertext's level in the modulus chain.
    fn level(&self, ciphertext: &Self::Ciphertext) -> usize;

    /// The plaintext modulus `t`.
    fn plaintext_modulus(&self) -> u64;

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

    /// `plaintext` lifted and transformed once, kept where the backend computes, for many
    /// [`mul_plain_prepared`](Self::mul_plain_prepared) products.
    fn prepare_plain(&self, plaintext: &Self::Plaintext) -> Result<Self::PreparedPlaintext>;

    /// `a * m` for a prepared `m`: the ciphertext of [`mul_plain`](Self::mul_plain) with the
    /// plaintext it was prepared from, bit for bit.
    fn mul_plain_prepared(&self, a: &Self::Ciphertext, plaintext: &Self::PreparedPlaintext)
    -> Result<Self::Ciphertext>;

    /// `a * b`, relinearized with `key`.
    fn mul_relin(
        &self,
        a: &Self::Ciphertext,
        b: &Self::Ciphertext,
        key: &RelinearizationKey<B>,
    ) -> Result<Self::Ciphertext>;

    /// Both rows of the batching slots rotated left by `steps` (right for negative `steps`),
    /// with the step's own key or composed from the fewest keys held
    /// ([`RlweContext::row_rotation_plan`]).
    fn rotate_rows(&self, a: &Self::Ciphertext, steps: i64, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext>;

    /// `a` rotated by each of `steps` (as [`rotate_rows`](Self::rotate_rows) each), its `c_1`
    /// decomposed and extended once for all of them ([`crate::hoisting`]): the first key
    /// switch of every step shares that ModUp. Every step is checked before any work.
    fn rotate_rows_many(
        &self,
        a: &Self::Ciphertext,
        steps: &[i64],
        keys: &GaloisKeys<B>,
    ) -> Result<Vec<Self::Ciphertext>>;

    /// `a(x^g)`: the automorphism of Galois element `g` (a unit modulo the ring's index `m`;
    /// `g = 1` a copy), with the key for `g` from `keys`.
    fn apply_galois(&self, a: &Self::Ciphertext, element: u64, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext>;

    /// `a(x^g)` for each of `elements` (each as [`apply_galois`](Self::apply_galois)), the
    /// ModUp of `c_1` shared ([`crate::hoisting`]). Every element is checked before any work.
    fn apply_galois_many(
        &self,
        a: &Self::Ciphertext,
        elements: &[u64],
        keys: &GaloisKeys<B>,
    ) -> Result<Vec<Self::Ciphertext>>;

    /// The two rows of the batching slots swapped; `keys` must hold the element `2N - 1`.
    fn rotate_columns(&self, a: &Self::Ciphertext, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext>;

    /// `a` one level down the modulus chain.
    fn mod_switch_to_next(&self, a: &Self::Ciphertext) -> Result<Self::Ciphertext>;

    /// `a`, whose plaintext is a multiple `d m` of `d = t / t'`, as a ciphertext of `m` under
    /// `target` (plaintext modulus `t'`, the same core): bootstrapping's division of the
    /// plaintext space `p^k` by `p`. Errors when `target` has another core or `t'` does not
    /// divide `t` below it.
    fn divide_plaintext_space(&self, a: &Self::Ciphertext, target: &Self) -> Result<Self::Ciphertext>
    where
        Self: Sized;

    /// `a + c` for an integer `c` (reduced modulo `t`): `c` added to every slot, without
    /// encoding a plaintext of `N` slots.
    fn add_scalar(&self, a: &Self::Ciphertext, c: u64) -> Result<Self::Ciphertext>;

    /// `a - c` for an integer `c` (reduced modulo `t`).
    fn sub_scalar(&self, a: &Self::Ciphertext, c: u64) -> Result<Self::Ciphertext>;

    /// `a * c` for an integer `c` (reduced modulo `t` and taken centered, so the noise grows by
    /// at most `t / 2`): every polynomial times the constant, no transform.
    fn mul_scalar(&self, a: &Self::Ciphertext, c: u64) -> Result<Self::Ciphertext>;

    /// [`decrypt`](Self::decrypt), refusing a ciphertext whose noise budget is spent
    /// ([`crate::RlweError::NoiseBudgetExhausted`]) instead of returning a plaintext that may
    /// be garbage. It measures the noise first (a second decryption, on the host, with big
    /// integers): for checks, not hot loops.
    fn decrypt_checked(&self, ciphertext: &Self::Ciphertext, secret: &SecretKey<B>) -> Result<Self::Plaintext> {
        self.noise_budget(ciphertext, secret)?;
        self.decrypt(ciphertext, secret)
    }

    /// The slots summed ([`SlotSum`]): every slot of the result holds the sum (modulo `t`) of
    /// the slots of its row, of its column, or of all of them. `log2(N/2)` rotations by the
    /// powers of two (the keys of [`crate::rotation::default_rotation_steps`] hold them;
    /// other keys are composed) and, for columns and all, the row swap.
    fn sum_slots(&self, a: &Self::Ciphertext, sum: SlotSum, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext> {
        if sum == SlotSum::Columns {
            return self.add(a, &self.rotate_columns(a, keys)?);
        }
        let row = self.core().params().degree() / 2;
        // A row of one slot is its own sum (rotating by 0 copies).
        let mut acc =
            if row < 2 { self.rotate_rows(a, 0, keys)? } else { self.add(a, &self.rotate_rows(a, 1, keys)?)? };
        let mut step = 2usize;
        while step < row {
            let rotated = self.rotate_rows(&acc, i64::try_from(step).unwrap_or(i64::MAX), keys)?;
            acc = self.add(&acc, &rotated)?;
            step *= 2;
        }
        if sum == SlotSum::All {
            acc = self.add(&acc, &self.rotate_columns(&acc, keys)?)?;
        }
        Ok(acc)
    }

    /// `f(a)` slot by slot for the polynomial `f = sum_i coefficients[i] x^i` over `Z_t`
    /// (coefficients reduced modulo `t`), by Paterson and Stockmeyer's method
    /// ([`crate::polynomial_eval`]): about `2 sqrt(2d)` products relinearized with `key` and a
    /// depth of at most `ceil(log2(d + 1)) + 1` for degree `d`, where Horner's rule takes `d`
    /// products and depth `d`.
    fn evaluate_polynomial(
        &self,
        a: &Self::Ciphertext,
        coefficients: &[u64],
        key: &RelinearizationKey<B>,
    ) -> Result<Self::Ciphertext>
    where
        Self: Sized,
    {
        let plan = crate::polynomial_eval::PolynomialPlan::new(coefficients, self.plaintext_modulus())?;
        plan.evaluate(&mut crate::polynomial_eval::CiphertextRing::new(self, key), a)
    }

    /// Every slot set to the value of slot `slot` (HElib's `replicate`): `a` times the unit
    /// vector of `slot` (a plaintext product), then summed over all slots.
    fn replicate(&self, a: &Self::Ciphertext, slot: usize, keys: &GaloisKeys<B>) -> Result<Self::Ciphertext> {
        let encoder = self.batch_encoder()?;
        let count = encoder.slot_count();
        if slot >= count {
            return Err(crate::RlweError::InvalidParameter {
                name: "slot",
                value: slot as u64,
                requirement: format!("must be below the slot count {count}"),
            });
        }
        let mut unit = vec![0u64; slot + 1];
        unit[slot] = 1;
        let masked = self.mul_plain(a, &encoder.encode_slots(&unit)?)?;
        self.sum_slots(&masked, SlotSum::All, keys)
    }
}

/// Which slots [`Evaluator::sum_slots`] adds up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SlotSum {
    /// Each row's `N/2` slots: slot `i` of row `r` gets the sum of row `r`.
    Rows,
    /// Each column's two slots: slots `i` and `N/2 + i` both get their sum.
    Columns,
    /// All `N` slots: every slot gets the sum of all.
    All,
}
