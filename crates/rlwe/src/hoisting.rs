//! Hoisted automorphisms (Halevi and Shoup, "Faster homomorphic linear transformations in
//! HElib", CRYPTO 2018, section 5): several automorphisms of one ciphertext `(c_0, c_1)` share
//! the expensive half of key switching. The digits of `c_1` are extended to `q u P` and
//! transformed once ([`RlweContext::hoist`]); each automorphism `sigma_g` then permutes those
//! evaluations, takes the inner product with the key for `g`, and runs ModDown
//! ([`RlweContext::apply_galois_hoisted`], [`RlweContext::apply_galois_hoisted_eval`]). Per rotation that saves the ModUp conversions
//! and the forward transforms of `D` polynomials over `q u P`.
//!
//! Over `x^N + 1`, `sigma_g` maps each coefficient to one coefficient, up to sign, and the
//! exact extension is centered, so `sigma_g(ModUp(c_1)) = ModUp(sigma_g(c_1))`: a hoisted
//! rotation gives the words of the plain one ([`RlweContext::apply_galois_pair_eval`]; with
//! digits of several primes, up to the `2^-66` window of the exact conversion at coefficients
//! within a few units of `+-Q_j / 2`). Over `Phi_m`, `sigma_g` mixes coefficients, so
//! `sigma_g(ModUp(c_1))` is another valid lift of `sigma_g(c_1)`'s digits, larger by the
//! automorphism's expansion: the result decrypts to the same message with other noise.

use poly::{Coeff, Eval, Representation};

use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::key_switching_key::KeySwitchingKey;
use crate::{Ciphertext, GaloisKeys, KeySetId, Result, RlweError, SchemeParameters};

/// The extended, transformed digits of one polynomial at one level, for several key switches
/// ([`RlweContext::hoist`]).
pub struct HoistedDigits<B: RlweBackend> {
    digits: B::ExtendedDigits,
    level: usize,
}

impl<B: RlweBackend> HoistedDigits<B> {
    /// The level the digits were made at.
    pub fn level(&self) -> usize {
        self.level
    }
}

impl<B: RlweBackend> core::fmt::Debug for HoistedDigits<B> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("HoistedDigits").field("level", &self.level).finish_non_exhaustive()
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// The digits of `c1` (over `q_0 .. q_level`, coefficient representation) extended to
    /// `q_level P` and transformed, once for every automorphism
    /// [`apply_galois_hoisted_eval`](Self::apply_galois_hoisted_eval) applies with them.
    /// Errors for a level above the top.
    pub fn hoist(&self, c1: &B::Poly<Coeff>, level: usize) -> Result<HoistedDigits<B>> {
        let (tables, prepared, ring_qp) = self.key_switch_level(level)?;
        let digits = self.backend.mod_up_digits(tables, prepared, c1, ring_qp)?;
        Ok(HoistedDigits { digits, level })
    }

    /// Whether several automorphisms of one ciphertext at `level` run hoisted: over `x^N + 1`
    /// where it is faster on this backend ([`RlweBackend::hoisting_pays`]; the words are the
    /// same either way); over `Phi_m` always, since there the hoisted words differ from the
    /// plain ones (module docs) and every backend must give the same. Errors for a level
    /// above the top.
    pub fn hoisting_pays(&self, level: usize) -> Result<bool> {
        let (_, _, ring_qp) = self.key_switch_level(level)?;
        Ok(matches!(self.params.ring_kind(), poly::RingKind::Cyclotomic { .. }) || self.backend.hoisting_pays(ring_qp))
    }

    /// [`hoist`](Self::hoist) of `c1` given in the evaluation representation (a ciphertext's
    /// `c_1`; it stays as it is).
    pub fn hoist_eval(&self, c1: &B::Poly<Eval>, level: usize) -> Result<HoistedDigits<B>> {
        let coefficients = self.backend.inverse_copy(c1)?;
        self.hoist(&coefficients, level)
    }

    /// `sigma_g` of the two-polynomial ciphertext `(c_0, c_1)` whose `c_1` was hoisted into
    /// `hoisted`, in the coefficient representation: `(sigma_g(c_0) + ks_b, ks_a)` with
    /// `[ks_b, ks_a]` the key switching with `key` (the key for `g`, which the caller picks
    /// and checks as for [`apply_galois_pair`](Self::apply_galois_pair)) of `sigma_g(c_1)`,
    /// from the permuted digits (module docs). `c_0` is at the hoisted level.
    ///
    /// Errors: [`RlweError::ParameterMismatch`](crate::RlweError::ParameterMismatch) for a key
    /// of other parameters or error scale (nothing is computed then); the backend's context
    /// mismatch for a `c_0` of another ring.
    pub fn apply_galois_hoisted(
        &self,
        c0: &B::Poly<Coeff>,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        let [switched_b, switched_a] = self.switch_hoisted(hoisted, element, key)?;
        let mut out_c0 = self.backend.automorphism(c0, element).be()?;
        self.backend.add_assign(&mut out_c0, &switched_b).be()?;
        Ok([out_c0, switched_a])
    }

    /// [`apply_galois_hoisted`](Self::apply_galois_hoisted) for `c_0` in the evaluation
    /// representation, with the result in it (`sigma_g(c_0)` permuted on its evaluations; the
    /// key switch by [`RlweBackend::switch_key_hoisted_eval`], which a device runs with ModDown
    /// in the evaluation representation). Errors as `apply_galois_hoisted`.
    pub fn apply_galois_hoisted_eval(
        &self,
        c0: &B::Poly<Eval>,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Eval>; 2]> {
        let step = self.level_step(key, hoisted.level)?;
        let permuted_c0 = self.backend.automorphism_eval(c0, element).be()?;
        let request = crate::backend::HoistedKeySwitch {
            tables: step.tables,
            prepared: step.prepared,
            digits: &hoisted.digits,
            element,
            key: step.key,
            ring_qp: step.ring_qp,
            ring_q: step.ring_q,
            ring_p: &self.ring_p,
            error_scale: self.error_scale,
            scale_inverses: step.scale_inverses,
            addend: &permuted_c0,
        };
        self.backend.switch_key_hoisted_eval(&request)
    }

    /// The key switching of `sigma_g(c_1)` from its hoisted digits: permuted inner product,
    /// `E^-1` on the sums, ModDown, `E` on the result (as `switch_key_at_level`).
    fn switch_hoisted(
        &self,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        let step = self.level_step(key, hoisted.level)?;
        let sums = self.backend.permuted_inner_product(
            step.tables,
            step.prepared,
            &hoisted.digits,
            element,
            step.key,
            step.ring_qp,
        )?;
        self.scaled_mod_down(&step, sums)
    }
}

/// What hoisting needs of a scheme's ciphertext form (the coefficients for BFV, the
/// evaluations for BGV): `c_1`'s hoisted digits, and the hoisted automorphism of a pair.
pub trait HoistForm<B: RlweBackend>: Representation {
    /// [`RlweContext::hoist`] of `c1` in this form.
    fn hoist(core: &RlweContext<B>, c1: &B::Poly<Self>, level: usize) -> Result<HoistedDigits<B>>;

    /// [`RlweContext::apply_galois_hoisted`] with `c_0` and the result in this form.
    fn apply_hoisted(
        core: &RlweContext<B>,
        c0: &B::Poly<Self>,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Self>; 2]>;
}

impl<B: RlweBackend> HoistForm<B> for Coeff {
    fn hoist(core: &RlweContext<B>, c1: &B::Poly<Coeff>, level: usize) -> Result<HoistedDigits<B>> {
        core.hoist(c1, level)
    }

    fn apply_hoisted(
        core: &RlweContext<B>,
        c0: &B::Poly<Coeff>,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        core.apply_galois_hoisted(c0, hoisted, element, key)
    }
}

impl<B: RlweBackend> HoistForm<B> for Eval {
    fn hoist(core: &RlweContext<B>, c1: &B::Poly<Eval>, level: usize) -> Result<HoistedDigits<B>> {
        core.hoist_eval(c1, level)
    }

    fn apply_hoisted(
        core: &RlweContext<B>,
        c0: &B::Poly<Eval>,
        hoisted: &HoistedDigits<B>,
        element: u64,
        key: &KeySwitchingKey<B>,
    ) -> Result<[B::Poly<Eval>; 2]> {
        core.apply_galois_hoisted_eval(c0, hoisted, element, key)
    }
}

impl<B: RlweBackend> RlweContext<B> {
    /// The automorphisms of `plans` (Galois elements; [`row_rotation_plans`](Self::row_rotation_plans),
    /// [`galois_plans`](Self::galois_plans)) of one two-polynomial ciphertext, what every
    /// scheme's `rotate_rows_many` and `apply_galois_many` run: each plan's first element from
    /// the hoisted digits of `c_1` where [`hoisting_pays`](Self::hoisting_pays) (checked as
    /// [`galois_key_for`](Self::galois_key_for) checks, the scheme's `finish` making the
    /// ciphertext of the switched pair and its key set), the rest of each plan and every plan
    /// otherwise by the scheme's `apply` (its plain automorphism; the identity a copy).
    pub fn galois_many<P>(
        &self,
        ciphertext: &Ciphertext<P, B>,
        plans: &[Vec<u64>],
        keys: &GaloisKeys<B>,
        operation: &'static str,
        finish: impl Fn(&Ciphertext<P, B>, [B::Poly<P::Form>; 2], Option<KeySetId>) -> Ciphertext<P, B>,
        apply: impl Fn(&Ciphertext<P, B>, u64) -> Result<Ciphertext<P, B>>,
    ) -> Result<Vec<Ciphertext<P, B>>>
    where
        P: SchemeParameters,
        P::Form: HoistForm<B>,
    {
        hoisted_rotations(
            ciphertext,
            plans,
            self.hoisting_pays(ciphertext.level())?,
            |c| match c.polys() {
                [_, c1] => P::Form::hoist(self, c1, c.level()),
                other => Err(RlweError::InvalidCiphertextSize { operation, expected: "2", actual: other.len() }),
            },
            |c, hoisted, element| {
                let (key_set, key) = self.galois_key_for(keys, element, c.polys().len(), c.key_set(), operation)?;
                match (key, c.polys()) {
                    (Some(key), [c0, _]) => {
                        Ok(finish(c, P::Form::apply_hoisted(self, c0, hoisted, element, key)?, key_set))
                    }
                    _ => apply(c, element),
                }
            },
            &apply,
        )
    }
}

/// The rotations of one ciphertext by several steps, given each step's plan (the Galois
/// elements [`RlweContext::row_rotation_plan`] composes it of): with `hoisting`, the first
/// element of every plan by `first` (from the ciphertext's hoisted digits, made by `hoist`
/// once, and only when some plan is not empty), the rest of a plan by `apply` on the last
/// result, one after the other; an empty plan, and every plan without `hoisting`, by `apply`
/// alone (the identity for an empty plan: a copy that still checks the operands).
pub fn hoisted_rotations<C, H>(
    ciphertext: &C,
    plans: &[Vec<u64>],
    hoisting: bool,
    hoist: impl FnOnce(&C) -> Result<H>,
    mut first: impl FnMut(&C, &H, u64) -> Result<C>,
    mut apply: impl FnMut(&C, u64) -> Result<C>,
) -> Result<Vec<C>> {
    if !hoisting {
        return plans.iter().map(|plan| crate::rotation::apply_plan(ciphertext, plan, &mut apply)).collect();
    }
    let hoisted = if plans.iter().any(|plan| !plan.is_empty()) { Some(hoist(ciphertext)?) } else { None };
    let mut out = Vec::with_capacity(plans.len());
    for plan in plans {
        let rotated = match (plan.split_first(), &hoisted) {
            (Some((&element, rest)), Some(hoisted)) => {
                let mut current = first(ciphertext, hoisted, element)?;
                for &element in rest {
                    current = apply(&current, element)?;
                }
                current
            }
            _ => apply(ciphertext, 1)?,
        };
        out.push(rotated);
    }
    Ok(out)
}
