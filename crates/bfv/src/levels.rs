//! The modulus chain in BFV: [`BfvContext::mod_switch_to_next`] and
//! [`BfvContext::mod_switch_to`] move a ciphertext down to fewer primes (SEAL's
//! `mod_switch_to_next`), for a smaller ciphertext before decryption or transfer.
//!
//! A ciphertext at level `l` is over `q_l = q_0 ... q_l`; switching to `l - 1` replaces each
//! `c_i` by `round(c_i / q_l)` (the core's rescaling). Since `t/q_l (c_0 + c_1 s) = m + v`
//! becomes `t/q_{l-1} (c_0' + c_1' s) = m + v + t e_r / q_{l-1}` with the rounding error
//! `e_r = e_0 + e_1 s` (`||e_r|| <= (1 + N) / 2` for ternary `s`), the invariant noise grows by
//! at most `t (N + 1) / (2 q_{l-1})`: the budget becomes at most `log2(q_{l-1} / (t (N + 1)))`
//! bits, and while that bound exceeds the budget left the budget barely moves.
//!
//! Below the top level a ciphertext can be added to, subtracted from and negated with
//! ciphertexts of its level, decrypted (also to the device), measured and switched further
//! down; the other operations need the top level ([`BfvError::LevelMismatch`]). Decryption at
//! level `l` uses the variant's tables for `q_l`, made on first use.

use poly::Eval;
use rlwe::SecretScratch;

use crate::backend::BfvBackend;
use crate::context::{BfvContext, Ciphertext, SecretKey};
use crate::params::MulTables;
use crate::{BfvError, Result};

/// Decryption's tables of one level below the top: the variant's RNS tables for `q_l` and
/// the backend's preparation of them.
pub(crate) struct LevelDecryption<B: BfvBackend> {
    tables: MulTables,
    prepared: B::MulTables,
}

/// The secret `s` at a ciphertext's level: the key's own polynomial at the top, its first
/// limbs (zeroized when dropped) below.
pub(crate) enum LevelSecret<'a, B: BfvBackend> {
    Top(&'a B::Poly<Eval>),
    Lower(SecretScratch<'a, B, Eval>),
}

impl<B: BfvBackend> LevelSecret<'_, B> {
    pub(crate) fn poly(&self) -> &B::Poly<Eval> {
        match self {
            LevelSecret::Top(poly) => poly,
            LevelSecret::Lower(scratch) => scratch.poly(),
        }
    }
}

impl<B: BfvBackend> BfvContext<B> {
    /// `ciphertext` one level down: each polynomial divided by the last prime of its level,
    /// rounded (module docs). Errors with [`BfvError::InvalidParameter`] at level 0,
    /// [`BfvError::ParameterMismatch`] for a ciphertext of other parameters; the input is
    /// never changed.
    pub fn mod_switch_to_next(&self, ciphertext: &Ciphertext<B>) -> Result<Ciphertext<B>> {
        self.check(&ciphertext.params, "ciphertext")?;
        let level = ciphertext.level;
        let polys = ciphertext
            .polys
            .iter()
            .map(|poly| self.core.mod_switch_to_next_poly(poly, level))
            .collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext {
            params: std::sync::Arc::clone(&self.params),
            polys,
            level: level - 1,
            key_set: ciphertext.key_set,
        })
    }

    /// `ciphertext` switched down to `level` (a copy at its own level). Errors with
    /// [`BfvError::LevelMismatch`] for a level above the ciphertext's, as
    /// [`mod_switch_to_next`](Self::mod_switch_to_next) otherwise.
    pub fn mod_switch_to(&self, ciphertext: &Ciphertext<B>, level: usize) -> Result<Ciphertext<B>> {
        self.check(&ciphertext.params, "ciphertext")?;
        if level > ciphertext.level {
            return Err(BfvError::LevelMismatch {
                operation: "mod_switch_to",
                expected: level,
                actual: ciphertext.level,
            });
        }
        let mut current = self.duplicate(ciphertext)?;
        while current.level > level {
            current = self.mod_switch_to_next(&current)?;
        }
        Ok(current)
    }

    /// The secret at `level`.
    pub(crate) fn secret_at_level<'a>(&'a self, secret: &'a SecretKey<B>, level: usize) -> Result<LevelSecret<'a, B>> {
        if level == self.top_level() {
            return Ok(LevelSecret::Top(secret.s_q()));
        }
        let lower = self.core.drop_to_level(secret.s_q(), level)?;
        Ok(LevelSecret::Lower(SecretScratch::new(&self.backend, lower)))
    }

    /// Decryption's tables at `level`: the parameters' own at the top, the level's below
    /// (made on first use).
    pub(crate) fn decryption_tables(&self, level: usize) -> Result<(&MulTables, &B::MulTables)> {
        if level == self.top_level() {
            return Ok((self.params.multiplication_tables(), &self.mul));
        }
        let cell = self.level_decryption.get(level).ok_or(BfvError::LevelMismatch {
            operation: "decryption",
            expected: self.top_level(),
            actual: level,
        })?;
        if cell.get().is_none() {
            let primes = &self.params.ciphertext_moduli()[..=level];
            let (n, t) = (self.params.degree(), self.params.plaintext_modulus());
            let tables = match self.params.variant() {
                crate::MulVariant::Hps => {
                    MulTables::Hps(Box::new(rns::HpsContext::with_generated_moduli(n, primes, t)?))
                }
                crate::MulVariant::Behz => {
                    MulTables::Behz(Box::new(rns::BehzContext::with_generated_moduli(n, primes, t)?))
                }
            };
            let prepared = self.backend.prepare_mul(&tables)?;
            let _ = cell.set(LevelDecryption { tables, prepared });
        }
        let level_tables = cell.get().ok_or(BfvError::LevelMismatch {
            operation: "decryption",
            expected: self.top_level(),
            actual: level,
        })?;
        Ok((&level_tables.tables, &level_tables.prepared))
    }

    /// The primes of `level`: the first `level + 1` ciphertext primes.
    pub(crate) fn level_primes(&self, level: usize) -> &[u64] {
        &self.params.ciphertext_moduli()[..=level]
    }
}
