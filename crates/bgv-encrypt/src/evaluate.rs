//! Evaluation: additions, plaintext operations, multiplication with relinearization, and the
//! modulus chain.
//!
//! Levels: a binary operation on ciphertexts at different levels switches the higher one down
//! ([`LevelPolicy::BringDown`]) or refuses ([`LevelPolicy::Strict`]). Correction factors: a sum
//! needs one factor; when they differ the second operand is multiplied by the integer
//! `k = [f_a f_b^{-1}]_t` (centered, `|k| <= t/2`), which multiplies its noise by `|k|` (SEAL
//! balances the same way). Products multiply the factors; modulus switching from level `l`
//! multiplies the factor by `q_l^{-1} mod t` (chain.rs of the core keeps the error a
//! multiple of `t`).

use std::borrow::Cow;

use poly::Eval;

use crate::backend::BgvBackend;
use crate::context::{BackendResult, BgvCiphertextState, BgvContext, Ciphertext, LevelPolicy, ModSwitching, RelinKey};
use crate::noise::{NoiseModel, add_bits};
use crate::prepared::{PlaintextShape, PreparedPlaintext};
use crate::{BgvError, Plaintext, Result};

impl<B: BgvBackend> BgvContext<B> {
    /// Errors unless `ciphertext` belongs to these parameters.
    pub(crate) fn check_ciphertext(&self, ciphertext: &Ciphertext<B>) -> Result<()> {
        self.check(ciphertext.params(), "ciphertext")
    }

    /// `a` and `b` at one level (the lower one) under the context's level policy.
    fn aligned<'a>(
        &self,
        a: &'a Ciphertext<B>,
        b: &'a Ciphertext<B>,
        operation: &'static str,
    ) -> Result<(Operand<'a, B>, Operand<'a, B>)> {
        self.check_ciphertext(a)?;
        self.check_ciphertext(b)?;
        if a.level() == b.level() {
            return Ok((Operand::Borrowed(a), Operand::Borrowed(b)));
        }
        if self.level_policy == LevelPolicy::Strict {
            return Err(BgvError::LevelMismatch { operation, expected: a.level(), actual: b.level() });
        }
        if a.level() > b.level() {
            Ok((Operand::Owned(self.mod_switch_to(a, b.level())?), Operand::Borrowed(b)))
        } else {
            Ok((Operand::Borrowed(a), Operand::Owned(self.mod_switch_to(b, a.level())?)))
        }
    }

    /// The polynomials of `b` with its correction factor made `target`: multiplied by
    /// `k = [target f_b^{-1}]_t` (centered) unless the factors already agree; with `|k|`.
    fn polys_with_factor(&self, b: &Ciphertext<B>, target: u64) -> Result<Option<Rescaled<B>>> {
        if b.state().correction == target {
            return Ok(None);
        }
        let t = self.params.plaintext_modulus();
        let inv = crate::context::inverse_mod(b.state().correction, t).ok_or(BgvError::InvalidParameter {
            name: "correction factor",
            value: b.state().correction,
            requirement: "must be invertible modulo t".to_string(),
        })?;
        let k = (u128::from(target) * u128::from(inv) % u128::from(t)) as u64;
        let mut out = Vec::with_capacity(b.polys().len());
        for poly in b.polys() {
            out.push(self.scaled_by_centered(poly, k)?);
        }
        Ok(Some((out, k.min(t - k))))
    }

    /// `poly` times the integer `[k]_t` centered in `(-t/2, t/2]`.
    pub(crate) fn scaled_by_centered<R: poly::Representation>(&self, poly: &B::Poly<R>, k: u64) -> Result<B::Poly<R>> {
        let t = self.params.plaintext_modulus();
        let backend = &self.backend;
        if k > t / 2 {
            let mut out = backend.scalar_mul(poly, t - k).be()?;
            backend.neg_assign(&mut out).be()?;
            Ok(out)
        } else {
            backend.scalar_mul(poly, k).be()
        }
    }

    fn add_or_sub(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, subtract: bool) -> Result<Ciphertext<B>> {
        let operation = if subtract { "sub" } else { "add" };
        let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        let (a, b) = self.aligned(a, b, operation)?;
        let rescaled = self.polys_with_factor(&b, a.state().correction)?;
        let b_polys: &[B::Poly<Eval>] = rescaled.as_ref().map_or(b.polys(), |(polys, _)| polys.as_slice());
        let b_noise = rescaled
            .as_ref()
            .map_or(b.state().noise_bits, |&(_, k)| NoiseModel::times_integer(b.state().noise_bits, k));
        let state = BgvCiphertextState {
            correction: a.state().correction,
            product: a.state().product || b.state().product,
            noise_bits: add_bits(a.state().noise_bits, b_noise),
        };
        let backend = &self.backend;
        if a.polys().len() == b_polys.len() {
            // One launch for all polynomials on a device.
            let polys = backend.add_sub_many(a.polys(), b_polys, subtract).be()?;
            return Ok(self.ciphertext_with_state(polys, a.level(), key_set, state));
        }
        let (long, short, flip) =
            if a.polys().len() >= b_polys.len() { (a.polys(), b_polys, false) } else { (b_polys, a.polys(), true) };
        let mut polys = Vec::with_capacity(long.len());
        for (i, p) in long.iter().enumerate() {
            let mut out = backend.duplicate(p).be()?;
            // With `long` = b under subtraction, out = -b_i (+ a_i).
            if flip && subtract {
                backend.neg_assign(&mut out).be()?;
            }
            if let Some(q) = short.get(i) {
                if subtract && !flip {
                    backend.sub_assign(&mut out, q).be()?;
                } else {
                    backend.add_assign(&mut out, q).be()?;
                }
            }
            polys.push(out);
        }
        Ok(self.ciphertext_with_state(polys, a.level(), key_set, state))
    }

    /// `a + b` (sizes may differ; levels and correction factors are brought together).
    pub fn add(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.add_or_sub(a, b, false)
    }

    /// `a - b`.
    pub fn sub(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.add_or_sub(a, b, true)
    }

    /// `a += b` in place, for operands of one level and one correction factor with `a` at least
    /// as large as `b` (Phantom's `add_inplace`); otherwise as [`add`](Self::add). `a` is left
    /// as it was on error.
    pub fn add_assign(&self, a: &mut Ciphertext<B>, b: &Ciphertext<B>) -> Result<()> {
        self.check_ciphertext(a)?;
        self.check_ciphertext(b)?;
        if a.level() != b.level() || a.state().correction != b.state().correction || a.polys().len() < b.polys().len() {
            *a = self.add(a, b)?;
            return Ok(());
        }
        let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        // One launch for all polynomials on a device.
        self.backend.add_assign_many(a.polys_mut(), b.polys()).be()?;
        a.set_key_set(key_set);
        let (noise, product) = (b.state().noise_bits, b.state().product);
        let state = a.state_mut();
        state.noise_bits = add_bits(state.noise_bits, noise);
        state.product |= product;
        Ok(())
    }

    /// `-a`.
    pub fn negate(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let polys = a.polys().iter().map(|p| self.backend.neg(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(self.ciphertext_with_state(polys, a.level(), a.key_set(), *a.state()))
    }

    fn add_plain_signed(&self, a: &Ciphertext<B>, plaintext: &Plaintext, subtract: bool) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let message = self.forward(self.lift(plaintext, a.level(), a.state().correction)?)?;
        let mut out = self.duplicate(a)?;
        let c0 = out.polys_mut().first_mut().ok_or(BgvError::InvalidCiphertextSize {
            operation: "plaintext addition",
            expected: "at least 2",
            actual: 0,
        })?;
        if subtract {
            self.backend.sub_assign(c0, &message).be()?;
        } else {
            self.backend.add_assign(c0, &message).be()?;
        }
        out.state_mut().noise_bits = self.params.noise_model().add_plain(a.state().noise_bits);
        Ok(out)
    }

    /// `a + m`: `f m` (the ciphertext's correction factor) added to `c_0`.
    pub fn add_plain(&self, a: &Ciphertext<B>, plaintext: &Plaintext) -> Result<Ciphertext<B>> {
        self.add_plain_signed(a, plaintext, false)
    }

    /// `a - m`.
    pub fn sub_plain(&self, a: &Ciphertext<B>, plaintext: &Plaintext) -> Result<Ciphertext<B>> {
        self.add_plain_signed(a, plaintext, true)
    }

    /// `a * m`: every polynomial times `m` lifted centered (noise times at most `N t / 2`, the
    /// `L1` norm of the centered plaintext).
    ///
    /// Under [`ModSwitching::Auto`] a product by a plaintext that is not a constant counts as
    /// a product (the noise grows by the plaintext's `L1` norm, about `N t / 2` for a general
    /// batch plaintext, as much as a ciphertext product adds): the result is switched down
    /// before the next ciphertext multiplication, and a product operand is switched down
    /// first when that costs no noise budget or the result would not decrypt otherwise. A constant
    /// grows the noise by at most `t/2` and is not counted ([`mul_scalar`](Self::mul_scalar)
    /// gives the same polynomials without the lift and transform).
    pub fn mul_plain(&self, a: &Ciphertext<B>, plaintext: &Plaintext) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check(plaintext.params(), "plaintext")?;
        let shape = PlaintextShape::of(plaintext.coefficients(), self.params.plaintext_modulus());
        self.mul_plain_by(a, shape, |level| Ok(Cow::Owned(self.forward(self.lift(plaintext, level, 1)?)?)))
    }

    /// `plaintext` lifted and transformed once at the top level, where the backend computes
    /// (on the device for the GPU), for many [`mul_plain_prepared`](Self::mul_plain_prepared)
    /// products (the diagonals of a linear map). Errors with
    /// [`BgvError::ParameterMismatch`] for a plaintext of other parameters.
    pub fn prepare_plain(&self, plaintext: &Plaintext) -> Result<PreparedPlaintext<B>> {
        self.check(plaintext.params(), "plaintext")?;
        let level = self.top_level();
        Ok(PreparedPlaintext {
            params: self.params.clone(),
            message: self.forward(self.lift(plaintext, level, 1)?)?,
            level,
            shape: PlaintextShape::of(plaintext.coefficients(), self.params.plaintext_modulus()),
        })
    }

    /// `a * m` for a prepared `m`: the words, state and errors of [`mul_plain`](Self::mul_plain)
    /// with the plaintext `m` was prepared from (its limbs below `a`'s level dropped).
    pub fn mul_plain_prepared(&self, a: &Ciphertext<B>, plaintext: &PreparedPlaintext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check(&plaintext.params, "prepared plaintext")?;
        self.mul_plain_by(a, plaintext.shape, |level| {
            if level == plaintext.level {
                return Ok(Cow::Borrowed(&plaintext.message));
            }
            let context = self.core.context_at_level(level)?;
            Ok(Cow::Owned(self.backend.drop_limbs(&plaintext.message, context)?))
        })
    }

    /// [`mul_plain`](Self::mul_plain) of a checked `a` by a plaintext of `shape` whose
    /// transformed lift at a level `message` gives.
    fn mul_plain_by<'m>(
        &self,
        a: &Ciphertext<B>,
        shape: PlaintextShape,
        message: impl FnOnce(usize) -> Result<Cow<'m, B::Poly<Eval>>>,
    ) -> Result<Ciphertext<B>>
    where
        B::Poly<Eval>: 'm,
    {
        let a = if shape.general && self.switch_pays_before_plain_product(a, shape.norm_bits) {
            self.auto_switched(Operand::Borrowed(a), "plaintext multiplication")?
        } else {
            Operand::Borrowed(a)
        };
        let noise_bits = if shape.general {
            let noise = self.params.noise_model().times_plaintext(a.state().noise_bits, shape.norm_bits);
            self.check_estimate(noise, a.level(), "plaintext multiplication")?;
            noise
        } else {
            let t = self.params.plaintext_modulus();
            NoiseModel::times_integer(a.state().noise_bits, shape.constant.min(t - shape.constant))
        };
        let message = message(a.level())?;
        let mut polys = Vec::with_capacity(a.polys().len());
        for p in a.polys() {
            polys.push(self.backend.mul(p, &message).be()?);
        }
        let state = BgvCiphertextState {
            correction: a.state().correction,
            product: shape.general || a.state().product,
            noise_bits,
        };
        Ok(self.ciphertext_with_state(polys, a.level(), a.key_set(), state))
    }

    /// `a + c` for an integer `c` (reduced modulo `t`): `c` in every slot (the constant
    /// plaintext `c`, added as [`add_plain`](Self::add_plain) adds it).
    pub fn add_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.add_plain_signed(a, &Plaintext::constant(&self.params, c)?, false)
    }

    /// `a - c` for an integer `c` (reduced modulo `t`).
    pub fn sub_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.add_plain_signed(a, &Plaintext::constant(&self.params, c)?, true)
    }

    /// `a`, whose plaintext is a multiple `d m` of `d = t / t'` (`t'` the plaintext modulus of
    /// `target`, over the same core), as a ciphertext of `m` under `target`: bootstrapping's
    /// division by `p` of the plaintext space `p^k`. Every polynomial is multiplied by `d^-1`
    /// modulo each prime: the phase `f d m + t e`, an integer multiple of `d`, becomes `f m + t'
    /// e` (the correction factor `f` taken modulo `t'`), so the noise bound shrinks by `d`. If
    /// the plaintext is not a multiple of `d`, the result decrypts to garbage (the caller's
    /// promise, as in the papers). Errors with [`BgvError::ParameterMismatch`] when `target`
    /// has another core, and [`BgvError::InvalidParameter`] unless `t'` divides `t` and is
    /// below it.
    pub fn divide_plaintext_space(&self, a: &Ciphertext<B>, target: &BgvContext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let t_target = target.params().plaintext_modulus();
        let d = self.core.plaintext_space_divisor(target.params().core(), self.params.plaintext_modulus(), t_target)?;
        let polys = self.core.mul_by_inverse(a.polys(), d, a.level())?;
        let state = BgvCiphertextState {
            correction: a.state().correction % t_target,
            product: a.state().product,
            noise_bits: a.state().noise_bits - (d as f64).log2(),
        };
        Ok(target.ciphertext_with_state(polys, a.level(), a.key_set(), state))
    }

    /// `a * c` for an integer `c` (reduced modulo `t`, taken centered): every polynomial times
    /// the constant (no transform; the noise grows by at most `t/2`, not counted as a product
    /// by [`ModSwitching::Auto`]). The polynomials of [`mul_plain`](Self::mul_plain) by the
    /// constant plaintext `c`.
    pub fn mul_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let t = self.params.plaintext_modulus();
        let reduced = c % t;
        let noise = NoiseModel::times_integer(a.state().noise_bits, reduced.min(t - reduced));
        if self.mod_switching == ModSwitching::Auto && !self.params.noise_model().decrypts(noise, a.level()) {
            return Err(self.estimate_exceeded(noise, a.level(), "scalar multiplication"));
        }
        let mut out = self.core.mul_ciphertext_by_scalar(a, c)?;
        out.state_mut().noise_bits = noise;
        Ok(out)
    }

    /// Under [`ModSwitching::Auto`], refuses a product whose estimated noise `noise`
    /// (relinearized) would not decrypt at `level`
    /// ([`BgvError::NoiseEstimateExceeded`]).
    fn check_estimate(&self, noise: f64, level: usize, operation: &'static str) -> Result<()> {
        let relinearized = self.params.noise_model().key_switched(noise);
        if self.mod_switching == ModSwitching::Auto && !self.params.noise_model().decrypts(relinearized, level) {
            return Err(self.estimate_exceeded(relinearized, level, operation));
        }
        Ok(())
    }

    fn estimate_exceeded(&self, noise: f64, level: usize, operation: &'static str) -> BgvError {
        BgvError::NoiseEstimateExceeded {
            operation,
            level,
            estimated_bits: noise.ceil() as u32,
            modulus_bits: self.params.noise_model().modulus_bits(level).floor() as u32,
        }
    }

    /// Under [`ModSwitching::Auto`], a product above level 0 switched one level down; a
    /// product at level 0 refused with [`BgvError::ModulusChainExhausted`] (its product would
    /// not decrypt). Fresh ciphertexts, and every operand under [`ModSwitching::Manual`], pass.
    /// Whether [`ModSwitching::Auto`] switches a product `a` down before multiplying it by a
    /// plaintext of norm `2^norm_bits`: when the switch sheds at least the dropped prime's
    /// bits of noise (then it costs no budget), or when the product would not decrypt at
    /// `a`'s level otherwise. A plaintext product adds the same bits at either level, so a
    /// switch that sheds less only spends budget: masks and diagonals of the slot algebra
    /// multiply unswitched products without spending a level each.
    fn switch_pays_before_plain_product(&self, a: &Ciphertext<B>, norm_bits: f64) -> bool {
        if self.mod_switching != ModSwitching::Auto || !a.state().product || a.level() == 0 {
            return self.mod_switching == ModSwitching::Auto && a.state().product;
        }
        let model = self.params.noise_model();
        let noise = a.state().noise_bits;
        let shed = noise - model.switched_from(noise, a.level());
        let dropped = model.modulus_bits(a.level()) - model.modulus_bits(a.level() - 1);
        shed >= dropped || !model.decrypts(model.times_plaintext(noise, norm_bits), a.level())
    }

    fn auto_switched<'a>(&self, a: Operand<'a, B>, operation: &'static str) -> Result<Operand<'a, B>> {
        if self.mod_switching == ModSwitching::Auto && a.state().product {
            if a.level() == 0 {
                return Err(BgvError::ModulusChainExhausted { operation });
            }
            return Ok(Operand::Owned(self.mod_switch_to_next(&a)?));
        }
        Ok(a)
    }

    /// The tensor product of two-polynomial ciphertexts: `(c_0 d_0, c_0 d_1 + c_1 d_0, c_1 d_1)`
    /// over `q_l` (no scaling: BGV's message is in the low digits), correction `f_a f_b`.
    /// Under [`ModSwitching::Auto`] each operand that is a product goes one level down first
    /// (and one at level 0 is refused with [`BgvError::ModulusChainExhausted`]). Errors with
    /// [`BgvError::InvalidCiphertextSize`] unless both have two polynomials.
    pub fn mul(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check_ciphertext(b)?;
        let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        let a = self.auto_switched(Operand::Borrowed(a), "multiplication")?;
        let b = self.auto_switched(Operand::Borrowed(b), "multiplication")?;
        let (a, b) = self.aligned(&a, &b, "mul")?;
        let backend = &self.backend;
        let (a0, a1) = two_polys(&a, "multiplication")?;
        let (b0, b1) = two_polys(&b, "multiplication")?;
        // Element-wise in the evaluation representation: no transform (one kernel on a device).
        let noise = self.params.noise_model().product(a.state().noise_bits, b.state().noise_bits);
        self.check_estimate(noise, a.level(), "multiplication")?;
        let [e0, e1, e2] = backend.tensor_product([a0, a1], [b0, b1])?;
        let correction = self.mul_factors(a.state().correction, b.state().correction);
        Ok(self.product(vec![e0, e1, e2], a.level(), correction, key_set, noise))
    }

    /// `a^2`: `(c_0^2, 2 c_0 c_1, c_1^2)`, element-wise (one kernel on a device).
    pub fn square(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let a = self.auto_switched(Operand::Borrowed(a), "squaring")?;
        let backend = &self.backend;
        let (a0, a1) = two_polys(&a, "squaring")?;
        let noise = self.params.noise_model().product(a.state().noise_bits, a.state().noise_bits);
        self.check_estimate(noise, a.level(), "squaring")?;
        // 2 c_0 c_1 = c_0 c_1 + c_1 c_0: the tensor product of the pair with itself.
        let [e0, e1, e2] = backend.tensor_product([a0, a1], [a0, a1])?;
        let correction = self.mul_factors(a.state().correction, a.state().correction);
        Ok(self.product(vec![e0, e1, e2], a.level(), correction, a.key_set(), noise))
    }

    fn product(
        &self,
        polys: Vec<B::Poly<Eval>>,
        level: usize,
        correction: u64,
        key_set: Option<rlwe::KeySetId>,
        noise_bits: f64,
    ) -> Ciphertext<B> {
        self.ciphertext_with_state(polys, level, key_set, BgvCiphertextState { correction, product: true, noise_bits })
    }

    fn mul_factors(&self, x: u64, y: u64) -> u64 {
        (u128::from(x) * u128::from(y) % u128::from(self.params.plaintext_modulus())) as u64
    }

    /// A three-polynomial ciphertext back to two: `c_2` key-switched from `s^2` to `s` at the
    /// ciphertext's level (the core's `switch_key_at_level`, which keeps the error a multiple
    /// of `t`). A two-polynomial ciphertext comes back as a copy.
    pub fn relinearize(&self, a: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check_key(key.params(), "relinearization key")?;
        let key_set = Self::key_set_of(a.key_set(), key.key_set(), "relinearization key")?;
        match a.polys().len() {
            2 => self.duplicate(a),
            3 => {
                let [c0, c1] = self.relinearized_pair(&a.polys()[2], &a.polys()[0], &a.polys()[1], key, a.level())?;
                let state = BgvCiphertextState {
                    noise_bits: self.params.noise_model().key_switched(a.state().noise_bits),
                    ..*a.state()
                };
                Ok(self.ciphertext_with_state(vec![c0, c1], a.level(), key_set, state))
            }
            other => {
                Err(BgvError::InvalidCiphertextSize { operation: "relinearization", expected: "2 or 3", actual: other })
            }
        }
    }

    /// [`mul`](Self::mul) then [`relinearize`](Self::relinearize).
    pub fn mul_relin(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_key(key.params(), "relinearization key")?;
        let operands = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        Self::key_set_of(operands, key.key_set(), "relinearization key")?;
        self.relinearize_owned(self.mul(a, b)?, key)
    }

    /// [`square`](Self::square) then [`relinearize`](Self::relinearize).
    pub fn square_relin(&self, a: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_key(key.params(), "relinearization key")?;
        Self::key_set_of(a.key_set(), key.key_set(), "relinearization key")?;
        self.relinearize_owned(self.square(a)?, key)
    }

    /// `(c_0, c_1)` plus `c_2` switched from `s^2` to `s` at `level`, in the evaluation
    /// representation: the core takes `c_2` to coefficients in new memory (so a device reads
    /// the digits' own limbs from `c_2` itself) and adds the switched pair to the addends.
    fn relinearized_pair(
        &self,
        c2: &B::Poly<Eval>,
        c0: &B::Poly<Eval>,
        c1: &B::Poly<Eval>,
        key: &RelinKey<B>,
        level: usize,
    ) -> Result<[B::Poly<Eval>; 2]> {
        self.core.switch_key_at_level_eval_of(c2, key.key_switching_key(), level, [Some(c0), Some(c1)])
    }

    fn relinearize_owned(&self, a: Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        if a.polys().len() != 3 {
            return self.relinearize(&a, key);
        }
        let key_set = Self::key_set_of(a.key_set(), key.key_set(), "relinearization key")?;
        let (level, mut state) = (a.level(), *a.state());
        state.noise_bits = self.params.noise_model().key_switched(state.noise_bits);
        let [c0, c1, c2]: [B::Poly<Eval>; 3] = a
            .into_polys()
            .try_into()
            .map_err(|_| BgvError::InvalidCiphertextSize { operation: "relinearization", expected: "3", actual: 0 })?;
        let [c0, c1] = self.relinearized_pair(&c2, &c0, &c1, key, level)?;
        Ok(Ciphertext::from_parts(&self.params, vec![c0, c1], level, key_set, state))
    }

    /// `ciphertext` one level down: each polynomial `(c - t r) / q_l` with `r` the centered
    /// `[c t^{-1}]_{q_l}` (the core's rescale with error scale `t`), the correction factor
    /// times `q_l^{-1} mod t`. The noise shrinks by about `log2 q_l` bits down to the rounding
    /// floor `t (1 + N) / 2`. Errors with the core's error at level 0.
    pub fn mod_switch_to_next(&self, ciphertext: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(ciphertext)?;
        let level = ciphertext.level();
        let polys: Vec<&B::Poly<Eval>> = ciphertext.polys().iter().collect();
        let polys = self.core.mod_switch_to_next_eval(&polys, level)?;
        let factor = self.level_tables(level)?.last_prime_inv_mod_t;
        let state = BgvCiphertextState {
            correction: self.mul_factors(ciphertext.state().correction, factor),
            product: false,
            noise_bits: self.params.noise_model().switched_from(ciphertext.state().noise_bits, level),
        };
        Ok(self.ciphertext_with_state(polys, level - 1, ciphertext.key_set(), state))
    }

    /// `ciphertext` switched down to `level` (a copy at its own level). Errors with
    /// [`BgvError::LevelMismatch`] for a level above the ciphertext's.
    pub fn mod_switch_to(&self, ciphertext: &Ciphertext<B>, level: usize) -> Result<Ciphertext<B>> {
        self.check_ciphertext(ciphertext)?;
        if level > ciphertext.level() {
            return Err(BgvError::LevelMismatch {
                operation: "mod_switch_to (only down the chain)",
                expected: ciphertext.level(),
                actual: level,
            });
        }
        let mut current = self.duplicate(ciphertext)?;
        while current.level() > level {
            current = self.mod_switch_to_next(&current)?;
        }
        Ok(current)
    }
}

/// The polynomials of an operand multiplied by `k` to match a correction factor, and `|k|`.
type Rescaled<B> = (Vec<<B as poly::Backend>::Poly<Eval>>, u64);

/// A ciphertext operand: the caller's, or a switched-down copy.
enum Operand<'a, B: BgvBackend> {
    Borrowed(&'a Ciphertext<B>),
    Owned(Ciphertext<B>),
}

impl<B: BgvBackend> core::ops::Deref for Operand<'_, B> {
    type Target = Ciphertext<B>;

    fn deref(&self) -> &Ciphertext<B> {
        match self {
            Operand::Borrowed(c) => c,
            Operand::Owned(c) => c,
        }
    }
}

/// The two polynomials of a ciphertext.
type PolyPair<'a, B> = (&'a <B as poly::Backend>::Poly<Eval>, &'a <B as poly::Backend>::Poly<Eval>);

/// `(c_0, c_1)` of a two-polynomial ciphertext.
fn two_polys<'a, B: BgvBackend>(a: &'a Ciphertext<B>, operation: &'static str) -> Result<PolyPair<'a, B>> {
    match a.polys() {
        [c0, c1] => Ok((c0, c1)),
        other => Err(BgvError::InvalidCiphertextSize { operation, expected: "2", actual: other.len() }),
    }
}
