//! [`RlweContext`]: RLWE parameters prepared on one backend: the backend contexts of `R_q`
//! and `R_{qP}`, the gadget factors of key switching and the backend's key-switching tables.
//! Schemes hold one and add their own rings and constants.

use core::fmt;
use std::sync::Arc;

use crate::backend::RlweBackend;
use crate::error::BackendResult;
use crate::{Result, RlweError, RlweParameters};

/// RLWE parameters prepared on a backend. Key generation, key switching and encryption of
/// zero are its methods (keys.rs, key_switching_key.rs, keyswitch.rs, encrypt.rs).
pub struct RlweContext<B: RlweBackend> {
    pub(crate) backend: B,
    pub(crate) params: Arc<RlweParameters>,
    pub(crate) ring_q: B::Context,
    pub(crate) ring_qp: B::Context,
    /// The backend context of `R_P`, the special primes alone (ModDown in the evaluation
    /// representation transforms only these limbs back).
    pub(crate) ring_p: B::Context,
    /// The gadget factors `g_j` over `qP`, one per digit.
    pub(crate) gadgets: Vec<Vec<u64>>,
    /// The key-switching tables as the backend uses them.
    pub(crate) key_switch: B::KeySwitchTables,
    /// The factor of every error term of keys and encryptions of zero: 1 for BFV, `t` for BGV.
    pub(crate) error_scale: u64,
    /// The backend contexts of the levels below the top, prepared on first use (chain.rs).
    pub(crate) levels: Vec<std::sync::OnceLock<B::Context>>,
    /// The backend context of each level's last prime alone (`R_{q_l}` of one prime), for
    /// rescaling in the evaluation representation, prepared on first use (chain.rs).
    pub(crate) last_primes: Vec<std::sync::OnceLock<B::Context>>,
    /// The key-switching tables of the levels below the top as the backend uses them, with the
    /// backend context of `R_{q_l P}`, prepared on first use (keyswitch.rs).
    pub(crate) key_switch_levels: Vec<std::sync::OnceLock<(B::KeySwitchTables, B::Context)>>,
    /// Per level, `E^-1` modulo each prime of `q_l u P` (empty for `E = 1`), made on first use
    /// (keyswitch.rs): a modular inverse per prime costs the host about half a microsecond,
    /// which a key switch would otherwise pay before its first launch.
    pub(crate) scale_inverses: Vec<std::sync::OnceLock<Vec<u64>>>,
}

impl<B: RlweBackend> fmt::Debug for RlweContext<B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RlweContext").field("backend", &self.backend.name()).field("params", &self.params).finish()
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// Prepares `params` on `backend`: the rings `q` and `qP` (transform tables uploaded on a
    /// device) and the key-switching tables. Every error term of the keys and of the
    /// encryptions of zero made here is multiplied by `error_scale` (1 for BFV, the plaintext
    /// modulus `t` for BGV); errors with [`RlweError::InvalidParameter`] for 0 or for a scale
    /// that is not coprime to the ciphertext primes (it would not be invertible).
    pub fn new(backend: B, params: &Arc<RlweParameters>, error_scale: u64) -> Result<Self> {
        if error_scale == 0 || params.ciphertext_moduli().iter().any(|&q| error_scale.is_multiple_of(q)) {
            return Err(RlweError::InvalidParameter {
                name: "error scale",
                value: error_scale,
                requirement: "must be nonzero and coprime to every ciphertext prime".to_string(),
            });
        }
        let ring_q = backend.context(params.ring_q()).be()?;
        let ring_qp = backend.context(params.ring_qp()).be()?;
        let ring_p = params.ring_context(params.special_moduli())?;
        let ring_p = backend.context(&ring_p).be()?;
        let tables = params.key_switch_tables();
        let gadgets = (0..tables.num_digits()).map(|j| tables.gadget_factor(j)).collect::<rns::Result<_>>()?;
        let key_switch = backend.prepare_key_switch(tables, &ring_qp, error_scale)?;
        let levels = (0..params.ciphertext_moduli().len()).map(|_| std::sync::OnceLock::new()).collect();
        let key_switch_levels = (0..params.ciphertext_moduli().len()).map(|_| std::sync::OnceLock::new()).collect();
        let last_primes = (0..params.ciphertext_moduli().len()).map(|_| std::sync::OnceLock::new()).collect();
        let scale_inverses = (0..params.ciphertext_moduli().len()).map(|_| std::sync::OnceLock::new()).collect();
        Ok(Self {
            backend,
            params: Arc::clone(params),
            ring_q,
            ring_qp,
            ring_p,
            gadgets,
            key_switch,
            error_scale,
            levels,
            last_primes,
            key_switch_levels,
            scale_inverses,
        })
    }

    /// The backend.
    pub fn backend(&self) -> &B {
        &self.backend
    }

    /// The parameters.
    pub fn params(&self) -> &Arc<RlweParameters> {
        &self.params
    }

    /// The backend context of `R_q`.
    pub fn ring_q(&self) -> &B::Context {
        &self.ring_q
    }

    /// The backend context of `R_{qP}`.
    pub fn ring_qp(&self) -> &B::Context {
        &self.ring_qp
    }

    /// The factor of every error term (1 for BFV, `t` for BGV).
    pub fn error_scale(&self) -> u64 {
        self.error_scale
    }

    /// Samples the binomial error of `(seed, index)` over `ring`, times the error scale.
    pub(crate) fn sample_error(
        &self,
        ring: &B::Context,
        seed: &poly::Seed,
        index: u64,
    ) -> Result<B::Poly<poly::Coeff>> {
        let mut e = self.backend.sample_cbd(ring, seed, index).be()?;
        if self.error_scale != 1 {
            self.backend.scalar_mul_assign(&mut e, self.error_scale).be()?;
        }
        Ok(e)
    }

    /// The gadget factors `g_j = P (q / Q_j) [(q / Q_j)^-1]_{Q_j}` over `qP`, one per digit.
    pub fn gadgets(&self) -> &[Vec<u64>] {
        &self.gadgets
    }

    /// `ciphertext` times the integer `c` taken centered modulo the scheme's `t`: every
    /// polynomial by [`mul_by_centered_scalar`](Self::mul_by_centered_scalar), the level, key
    /// set and scheme state kept (a constant scales the message and the noise alike). What
    /// every scheme's `mul_scalar` does once it has checked the ciphertext.
    pub fn mul_ciphertext_by_scalar<P: crate::SchemeParameters>(
        &self,
        ciphertext: &crate::Ciphertext<P, B>,
        c: u64,
    ) -> Result<crate::Ciphertext<P, B>> {
        let t = ciphertext.params().plaintext_modulus();
        let polys = self.mul_by_centered_scalar(ciphertext.polys(), c, t, ciphertext.level())?;
        Ok(crate::Ciphertext::from_parts(
            ciphertext.params(),
            polys,
            ciphertext.level(),
            ciphertext.key_set(),
            ciphertext.state().clone(),
        ))
    }

    /// Every polynomial of `polys` (over the primes of `level`) times the integer `c` taken
    /// centered modulo `t` (in `(-t/2, t/2]`, so a plaintext product by the constant `c`
    /// grows the noise by at most `t/2`): what every scheme's `mul_scalar` does, in either
    /// representation (a constant is the same in both).
    pub fn mul_by_centered_scalar<R: poly::Representation>(
        &self,
        polys: &[B::Poly<R>],
        c: u64,
        t: u64,
        level: usize,
    ) -> Result<Vec<B::Poly<R>>> {
        self.params.check_level(level)?;
        let centered = crate::slots::center(c, t);
        let residues: Vec<u64> = self.params.ciphertext_moduli()[..=level]
            .iter()
            .map(|&q| {
                let magnitude = centered.unsigned_abs() % q;
                if centered < 0 && magnitude != 0 { q - magnitude } else { magnitude }
            })
            .collect();
        polys.iter().map(|p| self.backend.scalar_mul_per_limb(p, &residues).be()).collect()
    }

    /// `t' / t` for bootstrapping's raise of a ciphertext of `t = p^r` to the plaintext space
    /// `t' = p^e` (both schemes' `raise_for_bootstrapping`), after checking that `t'` shares
    /// this context's core and that both are powers of `p`, `t'` the larger.
    pub fn raise_multiplier(&self, target_core: &Arc<RlweParameters>, t: u64, t_target: u64, p: u64) -> Result<u64> {
        self.check(target_core, "target parameters' core")?;
        let exponents = (
            crate::digit_extraction::prime_power_exponent(t, p),
            crate::digit_extraction::prime_power_exponent(t_target, p),
        );
        match exponents {
            (Some(r), Some(e)) if e > r => Ok(t_target / t),
            _ => Err(RlweError::InvalidParameter {
                name: "target plaintext modulus",
                value: t_target,
                requirement: format!("t = {t} and the target's must be powers of p = {p}, the target's the larger"),
            }),
        }
    }

    /// `d = t / t'` for a division of the plaintext space from `t` to `t'` (both schemes'
    /// `divide_plaintext_space`), after checking that `t'` shares this context's core (the same
    /// ring, primes and keys) and divides `t` and is below it.
    pub fn plaintext_space_divisor(&self, target_core: &Arc<RlweParameters>, t: u64, t_target: u64) -> Result<u64> {
        self.check(target_core, "target parameters' core")?;
        if t_target >= t || t_target == 0 || !t.is_multiple_of(t_target) {
            return Err(RlweError::InvalidParameter {
                name: "target plaintext modulus",
                value: t_target,
                requirement: format!("must divide t = {t} and be below it"),
            });
        }
        Ok(t / t_target)
    }

    /// Every polynomial of `polys` (over the primes of `level`) times `d^-1` modulo each prime:
    /// a phase that is a multiple `d y` of `d` as an integer becomes `y` (bootstrapping's
    /// division of the plaintext space by `p`). Errors when `d` is 0 or shares a factor with a
    /// prime.
    pub fn mul_by_inverse<R: poly::Representation>(
        &self,
        polys: &[B::Poly<R>],
        d: u64,
        level: usize,
    ) -> Result<Vec<B::Poly<R>>> {
        self.params.check_level(level)?;
        let residues = self.params.ciphertext_moduli()[..=level]
            .iter()
            .map(|&q| {
                modarith::inverse_mod(d % q, q).ok_or_else(|| RlweError::InvalidParameter {
                    name: "divisor",
                    value: d,
                    requirement: format!("must be invertible modulo every ciphertext prime ({q} is not)"),
                })
            })
            .collect::<Result<Vec<u64>>>()?;
        polys.iter().map(|p| self.backend.scalar_mul_per_limb(p, &residues).be()).collect()
    }

    /// Errors with [`RlweError::ParameterMismatch`] unless `other` equals this context's
    /// parameters.
    pub fn check(&self, other: &Arc<RlweParameters>, what: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.params, other) {
            return Ok(());
        }
        match self.params.difference(other) {
            None => Ok(()),
            Some(field) => Err(RlweError::ParameterMismatch { what, field }),
        }
    }
}
