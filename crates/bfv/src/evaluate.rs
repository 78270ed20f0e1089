//! Homomorphic evaluation: additions, plaintext operations, multiplication (BEHZ or HPS, as
//! the parameters say) and relinearization by key switching with special primes, at every
//! level of the modulus chain (a level's tables, rings and key digits are made on first use;
//! binary operations take operands of one level).

use poly::Coeff;

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext, Ciphertext, RelinKey};
use crate::resident::PlaintextOperand;
use crate::{BfvError, Result};

impl<B: BfvBackend> BfvContext<B> {
    fn check_size(
        &self,
        ciphertext: &Ciphertext<B>,
        operation: &'static str,
        expected: &'static str,
        ok: bool,
    ) -> Result<()> {
        if ok {
            Ok(())
        } else {
            Err(BfvError::InvalidCiphertextSize { operation, expected, actual: ciphertext.polys().len() })
        }
    }

    /// `a + b` (any sizes; the result has the larger size).
    pub fn add(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.combine(a, b, false)
    }

    /// `a - b` (any sizes; the result has the larger size).
    pub fn sub(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.combine(a, b, true)
    }

    fn combine(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, subtract: bool) -> Result<Ciphertext<B>> {
        self.check(a.params(), "ciphertext")?;
        self.check(b.params(), "ciphertext")?;
        self.check_same_level(a, b, if subtract { "sub" } else { "add" })?;
        let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        let backend = &self.backend;
        if a.polys().len() == b.polys().len() {
            // One launch for all polynomials on a device.
            let polys = backend.add_sub_many(a.polys(), b.polys(), subtract).be()?;
            return Ok(Ciphertext::from_parts(&self.params, polys, a.level(), key_set, ()));
        }
        let size = a.polys().len().max(b.polys().len());
        let mut polys = Vec::with_capacity(size);
        for i in 0..size {
            let poly = match (a.polys().get(i), b.polys().get(i)) {
                (Some(x), Some(y)) if subtract => backend.sub(x, y).be()?,
                (Some(x), Some(y)) => backend.add(x, y).be()?,
                (Some(x), None) => backend.duplicate(x).be()?,
                (None, Some(y)) if subtract => backend.neg(y).be()?,
                (None, Some(y)) => backend.duplicate(y).be()?,
                (None, None) => continue,
            };
            polys.push(poly);
        }
        Ok(Ciphertext::from_parts(&self.params, polys, a.level(), key_set, ()))
    }

    /// `a <- a + b` (`a` grows to `b`'s size if smaller). On error `a` is unchanged.
    pub fn add_assign(&self, a: &mut Ciphertext<B>, b: &Ciphertext<B>) -> Result<()> {
        if a.polys().len() >= b.polys().len() {
            self.check(a.params(), "ciphertext")?;
            self.check(b.params(), "ciphertext")?;
            self.check_same_level(a, b, "add_assign")?;
            let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
            // One launch for all polynomials on a device.
            self.backend.add_assign_many(a.polys_mut(), b.polys()).be()?;
            a.set_key_set(key_set);
            Ok(())
        } else {
            *a = self.add(a, b)?;
            Ok(())
        }
    }

    /// `-a`.
    pub fn negate(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check(a.params(), "ciphertext")?;
        let polys = a.polys().iter().map(|p| self.backend.neg(p).be()).collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(&self.params, polys, a.level(), a.key_set(), ()))
    }

    /// `a + m`: adds `round(q m / t)` to `c_0`.
    pub fn add_plain(&self, a: &Ciphertext<B>, plaintext: &impl PlaintextOperand<B>) -> Result<Ciphertext<B>> {
        self.plain_add_sub(a, plaintext, false)
    }

    /// `a - m`.
    pub fn sub_plain(&self, a: &Ciphertext<B>, plaintext: &impl PlaintextOperand<B>) -> Result<Ciphertext<B>> {
        self.plain_add_sub(a, plaintext, true)
    }

    fn plain_add_sub(
        &self,
        a: &Ciphertext<B>,
        plaintext: &impl PlaintextOperand<B>,
        subtract: bool,
    ) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let scaled = plaintext.scaled_on(self, a.level())?;
        let mut out = self.duplicate(a)?;
        let c0 = out.polys_mut().first_mut().ok_or(BfvError::InvalidCiphertextSize {
            operation: "plaintext addition",
            expected: "at least 2",
            actual: 0,
        })?;
        if subtract {
            self.backend.sub_assign(c0, &scaled).be()?;
        } else {
            self.backend.add_assign(c0, &scaled).be()?;
        }
        Ok(out)
    }

    /// `a + c` for an integer `c` (reduced modulo `t`): `c` in every slot (the constant
    /// plaintext `c`, added as [`add_plain`](Self::add_plain) adds it).
    pub fn add_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.plain_add_sub(a, &crate::Plaintext::constant(&self.params, c)?, false)
    }

    /// `a - c` for an integer `c` (reduced modulo `t`).
    pub fn sub_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.plain_add_sub(a, &crate::Plaintext::constant(&self.params, c)?, true)
    }

    /// `a * c` for an integer `c` (reduced modulo `t`, taken centered): every `c_i` times the
    /// constant (no transform; the noise grows by at most `t/2`). The ciphertext of
    /// [`mul_plain`](Self::mul_plain) by the constant plaintext `c`.
    pub fn mul_scalar(&self, a: &Ciphertext<B>, c: u64) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.core.mul_ciphertext_by_scalar(a, c)
    }

    /// `a * m` for a plaintext `m`, lifted to `(-t/2, t/2]`: every `c_i` times `m` in `R_q`.
    /// The noise grows by a factor of about `N t / 2` at worst (less for sparse or small `m`).
    pub fn mul_plain(&self, a: &Ciphertext<B>, plaintext: &impl PlaintextOperand<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        let m = plaintext.lifted_on(self, a.level())?;
        let backend = &self.backend;
        let polys = a
            .polys()
            .iter()
            .map(|c| backend.inverse_of_product(backend.forward_copy(c)?, &m))
            .collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(&self.params, polys, a.level(), a.key_set(), ()))
    }

    /// The product step of [`mul`](Self::mul) and [`square`](Self::square) (`b = None`): the
    /// tensor product over `q_l` and the variant's auxiliary base for it, scaled by `t/q_l`
    /// back to `q_l` (`l = level`; the tables and ring of a level below the top are made on
    /// its first product).
    fn tensor_and_scale(
        &self,
        a: [&B::Poly<Coeff>; 2],
        b: Option<[&B::Poly<Coeff>; 2]>,
        level: usize,
    ) -> Result<[B::Poly<Coeff>; 3]> {
        let (tables, prepared, ring_mul) = self.multiplication_at(level)?;
        self.backend.tensor_and_scale(tables, prepared, a, b, ring_mul, self.core.context_at_level(level)?)
    }

    /// The product of two ciphertexts of size 2, of size 3 (relinearize it with
    /// [`relinearize`](Self::relinearize)): the tensor product computed over `q` and the
    /// variant's auxiliary base, scaled by `t/q` back to `q` (HPS: exact extension and
    /// rounding; BEHZ: fast extension with the `m~` correction, fast floor, Shenoy-Kumaresan).
    pub fn mul(&self, a: &Ciphertext<B>, b: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check_ciphertext(b)?;
        self.check_same_level(a, b, "multiplication")?;
        self.check_size(a, "multiplication", "2", a.polys().len() == 2)?;
        self.check_size(b, "multiplication", "2", b.polys().len() == 2)?;
        let key_set = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        let polys = self
            .tensor_and_scale([&a.polys()[0], &a.polys()[1]], Some([&b.polys()[0], &b.polys()[1]]), a.level())?
            .into();
        Ok(Ciphertext::from_parts(&self.params, polys, a.level(), key_set, ()))
    }

    /// `a * a` for a ciphertext of size 2 (three transforms fewer than [`mul`](Self::mul)).
    pub fn square(&self, a: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check_size(a, "squaring", "2", a.polys().len() == 2)?;
        let polys = self.tensor_and_scale([&a.polys()[0], &a.polys()[1]], None, a.level())?.into();
        Ok(Ciphertext::from_parts(&self.params, polys, a.level(), a.key_set(), ()))
    }

    /// Relinearizes a ciphertext of size 3 to size 2 by key switching `c_2` from `s^2` to `s`:
    /// each digit `[c_2]_{Q_j}` is extended exactly to `qP` (ModUp), multiplied by the key's
    /// `(b_j, a_j)` and accumulated; the sums are divided by `P` with rounding (ModDown) and
    /// added to `c_0`, `c_1`. One special prime gives SEAL's method (a digit per prime of
    /// `q`); `k` special primes give hybrid key switching with `ceil(L / k)` digits. The key
    /// switching itself is the core's [`rlwe::RlweContext::switch_key`] (batched over the digits on
    /// a GPU).
    pub fn relinearize(&self, a: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_ciphertext(a)?;
        self.check_key(key.params(), "relinearization key")?;
        self.check_size(a, "relinearization", "3", a.polys().len() == 3)?;
        let key_set = Self::key_set_of(a.key_set(), key.key_set(), "relinearization key")?;
        let backend = &self.backend;
        let [down_b, down_a] = self.core.switch_key_at_level(&a.polys()[2], key.key_switching_key(), a.level())?;
        let c0 = backend.add(&a.polys()[0], &down_b).be()?;
        let c1 = backend.add(&a.polys()[1], &down_a).be()?;
        Ok(Ciphertext::from_parts(&self.params, vec![c0, c1], a.level(), key_set, ()))
    }

    /// [`mul`](Self::mul) followed by [`relinearize`](Self::relinearize).
    pub fn mul_relin(&self, a: &Ciphertext<B>, b: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_key(key.params(), "relinearization key")?;
        let operands = Self::key_set_of(a.key_set(), b.key_set(), "ciphertext")?;
        Self::key_set_of(operands, key.key_set(), "relinearization key")?;
        self.relinearize(&self.mul(a, b)?, key)
    }

    /// [`square`](Self::square) followed by [`relinearize`](Self::relinearize).
    pub fn square_relin(&self, a: &Ciphertext<B>, key: &RelinKey<B>) -> Result<Ciphertext<B>> {
        self.check_key(key.params(), "relinearization key")?;
        Self::key_set_of(a.key_set(), key.key_set(), "relinearization key")?;
        self.relinearize(&self.square(a)?, key)
    }
}
