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
//! Every operation works at every level: additions with ciphertexts of the same level,
//! plaintext operations (the plaintext scaled by `floor(q_l / t)`), multiplication and squaring
//! (the variant's tables for `q_l` and the tensor product's ring `q_l` with their own auxiliary
//! base), relinearization and rotations (the core's key switching at the level, with the key's
//! digits restricted to `q_l P`), decryption and the noise budget. A level's constants are made
//! on its first use; operands of different levels are refused ([`BfvError::LevelMismatch`]).

use std::sync::OnceLock;

use poly::Eval;
use rlwe::{PlaintextScaling, SecretScratch};

use crate::backend::BfvBackend;
use crate::context::{BackendResult, BfvContext, Ciphertext, SecretKey, plaintext_scaling};
use crate::params::MulTables;
use crate::{BfvError, Result};

/// Decryption's tables of one level below the top: the variant's RNS tables for `q_l` and
/// the backend's preparation of them.
/// The constants of one level below the top, made on first use: the multiplication's tables
/// for `q_l` (decryption's scale-and-round is the variant's), then, on the first product or
/// plaintext operation there, the tensor product's ring (`q_l` and the variant's auxiliary
/// base for `q_l`) and the plaintext scaling `floor(q_l / t)`.
pub(crate) struct LevelTables<B: BfvBackend> {
    tables: MulTables,
    prepared: B::MulTables,
    ring_mul: OnceLock<B::Context>,
    scaling: OnceLock<PlaintextScaling>,
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
        self.check(ciphertext.params(), "ciphertext")?;
        let level = ciphertext.level();
        let polys = ciphertext
            .polys()
            .iter()
            .map(|poly| self.core.mod_switch_to_next_poly(poly, level))
            .collect::<Result<Vec<_>>>()?;
        Ok(Ciphertext::from_parts(&self.params, polys, level - 1, ciphertext.key_set(), ()))
    }

    /// `ciphertext` switched down to `level` (a copy at its own level). Errors with
    /// [`BfvError::LevelMismatch`] for a level above the ciphertext's, as
    /// [`mod_switch_to_next`](Self::mod_switch_to_next) otherwise.
    pub fn mod_switch_to(&self, ciphertext: &Ciphertext<B>, level: usize) -> Result<Ciphertext<B>> {
        self.check(ciphertext.params(), "ciphertext")?;
        if level > ciphertext.level() {
            return Err(BfvError::LevelMismatch {
                operation: "mod_switch_to",
                expected: level,
                actual: ciphertext.level(),
            });
        }
        let mut current = self.duplicate(ciphertext)?;
        while current.level() > level {
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
        let entry = self.level_tables(level, "decryption")?;
        Ok((&entry.tables, &entry.prepared))
    }

    /// The multiplication's tables at `level` and the ring its tensor product is computed in:
    /// the parameters' own at the top, the level's below (made on first use).
    pub(crate) fn multiplication_at(&self, level: usize) -> Result<(&MulTables, &B::MulTables, &B::Context)> {
        if level == self.top_level() {
            return Ok((self.params.multiplication_tables(), &self.mul, &self.ring_mul));
        }
        let entry = self.level_tables(level, "multiplication")?;
        if entry.ring_mul.get().is_none() {
            let mut primes = self.level_primes(level).to_vec();
            primes.extend(entry.tables.auxiliary_moduli());
            let ring = poly::RingContext::new(self.params.degree(), &primes, self.params.transform())?;
            let _ = entry.ring_mul.set(self.backend.context(&ring).be()?);
        }
        let ring_mul = entry.ring_mul.get().ok_or(BfvError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its multiplication ring could not be prepared".to_string(),
        })?;
        Ok((&entry.tables, &entry.prepared, ring_mul))
    }

    /// The plaintext scaling over `q_l` (`floor(q_l / t)`, `q_l mod t`): the context's own at
    /// the top, the level's below (made on first use).
    pub(crate) fn scaling_at(&self, level: usize) -> Result<&PlaintextScaling> {
        if level == self.top_level() {
            return Ok(&self.scaling);
        }
        let entry = self.level_tables(level, "plaintext scaling")?;
        if entry.scaling.get().is_none() {
            let _ = entry.scaling.set(plaintext_scaling(
                self.params.ring_q().moduli(),
                self.level_primes(level),
                self.params.plaintext_modulus(),
            )?);
        }
        entry.scaling.get().ok_or(BfvError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its plaintext scaling could not be prepared".to_string(),
        })
    }

    /// The constants of `level` below the top, made on first use; `operation` names what
    /// asked, for the error on a level outside the chain.
    fn level_tables(&self, level: usize, operation: &'static str) -> Result<&LevelTables<B>> {
        let cell = self.level_decryption.get(level).ok_or(BfvError::LevelMismatch {
            operation,
            expected: self.top_level(),
            actual: level,
        })?;
        if cell.get().is_none() {
            let primes = self.level_primes(level);
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
            let _ = cell.set(LevelTables { tables, prepared, ring_mul: OnceLock::new(), scaling: OnceLock::new() });
        }
        cell.get().ok_or(BfvError::LevelMismatch { operation, expected: self.top_level(), actual: level })
    }

    /// The primes of `level`: the first `level + 1` ciphertext primes.
    pub(crate) fn level_primes(&self, level: usize) -> &[u64] {
        &self.params.ciphertext_moduli()[..=level]
    }
}
