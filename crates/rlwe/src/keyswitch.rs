//! Key switching, the one algorithm every scheme uses (relinearization, Galois automorphisms):
//! for a polynomial `c` over `q` and a [`KeySwitchingKey`] from `s'` to `s`,
//!
//! 1. ModUp and inner product: each digit `[c]_{Q_j}` extended exactly to `qP`, multiplied by
//!    the key's `(b_j, a_j)` and summed ([`RlweBackend::mod_up_inner_product`]);
//! 2. ModDown: both sums divided by `P` with rounding ([`RlweBackend::mod_down_sums`]).
//!
//! The result `(ks_b, ks_a)` satisfies `ks_b + ks_a s = c s' + e_ks` over `q`. One special
//! prime gives SEAL's method (a digit per prime of `q`); `k` special primes give hybrid key
//! switching with `ceil(L / k)` digits. On a GPU step 1 is batched over all digits.

use poly::{Coeff, Eval};

use crate::backend::{EvalKeySwitch, RlweBackend};
use crate::context::RlweContext;
use crate::error::BackendResult;
use crate::key_switching_key::{KeySwitchingKey, check_digit_count};
use crate::{Result, RlweError};

impl<B: RlweBackend> RlweContext<B> {
    /// Switches `input` (over `q`, coefficient representation) with `key`: the pair
    /// `[ks_b, ks_a]` over `q`, coefficient representation (module docs).
    ///
    /// Errors with [`RlweError::ParameterMismatch`] for a key of other parameters or of
    /// another error scale; nothing is computed then.
    pub fn switch_key(&self, input: &B::Poly<Coeff>, key: &KeySwitchingKey<B>) -> Result<[B::Poly<Coeff>; 2]> {
        self.switch_key_at_level(input, key, self.params.max_level())
    }

    /// [`switch_key`](Self::switch_key) for `input` at level `level` (over `q_0 .. q_level`):
    /// the tables of that level and the key's digits restricted to `q_level P` (both made on
    /// first use, chain.rs). The result is at the same level.
    ///
    /// With an error scale `E != 1` (BGV) ModDown keeps the error a multiple of `E`: it
    /// subtracts `E [x E^-1]_P` instead of `[x]_P`, computed as `E ModDown(E^-1 x)` (the sums
    /// scaled by `E^-1` per prime of `q_l P`, the result by `E`), so the message is unchanged.
    pub fn switch_key_at_level(
        &self,
        input: &B::Poly<Coeff>,
        key: &KeySwitchingKey<B>,
        level: usize,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        let step = self.level_step(key, level)?;
        if self.error_scale == 1 {
            return self.backend.switch_key_coeff(
                step.tables,
                step.prepared,
                input,
                step.key,
                step.ring_qp,
                step.ring_q,
            );
        }
        let sums = self.backend.mod_up_inner_product(step.tables, step.prepared, input, step.key, step.ring_qp)?;
        self.scaled_mod_down(&step, sums)
    }

    /// ModDown of the key-switching `sums` of `step`, the error kept a multiple of `E`: `E^-1`
    /// on the sums, ModDown, `E` on the result (both scalings skipped for `E = 1`).
    pub(crate) fn scaled_mod_down(
        &self,
        step: &LevelStep<'_, B>,
        mut sums: B::KeySwitchSums,
    ) -> Result<[B::Poly<Coeff>; 2]> {
        if self.error_scale != 1 {
            self.backend.scale_sums(&mut sums, step.scale_inverses)?;
        }
        let mut down = self.backend.mod_down_sums(step.tables, step.prepared, sums, step.ring_q)?;
        if self.error_scale != 1 {
            for poly in &mut down {
                self.backend.scalar_mul_assign(poly, self.error_scale).be()?;
            }
        }
        Ok(down)
    }

    /// [`switch_key_at_level`](Self::switch_key_at_level) with the result in the evaluation
    /// representation, each output added to its addend where given (BGV's relinearization
    /// adds `(c_0, c_1)`, a rotation its permuted `c_0`): the forward transforms of the same
    /// words, plus the addends. A device backend transforms only the special limbs back
    /// ([`RlweBackend::switch_key_eval`]). Errors as `switch_key_at_level`.
    pub fn switch_key_at_level_eval(
        &self,
        input: &B::Poly<Coeff>,
        key: &KeySwitchingKey<B>,
        level: usize,
        addends: [Option<&B::Poly<Eval>>; 2],
    ) -> Result<[B::Poly<Eval>; 2]> {
        self.switch_key_eval_request(input, None, key, level, addends)
    }

    /// [`switch_key_at_level_eval`](Self::switch_key_at_level_eval) of `input` given in the
    /// evaluation representation (BGV's `c_2`, a rotation's permuted `c_1`): it goes to
    /// coefficients in new memory (`RlweBackend::inverse_copy`) and stays as it is, so a device
    /// backend reads the digits' own limbs from it instead of transforming them again. The
    /// same words and errors.
    pub fn switch_key_at_level_eval_of(
        &self,
        input: &B::Poly<Eval>,
        key: &KeySwitchingKey<B>,
        level: usize,
        addends: [Option<&B::Poly<Eval>>; 2],
    ) -> Result<[B::Poly<Eval>; 2]> {
        let coefficients = self.backend.inverse_copy(input)?;
        self.switch_key_eval_request(&coefficients, Some(input), key, level, addends)
    }

    fn switch_key_eval_request(
        &self,
        input: &B::Poly<Coeff>,
        input_eval: Option<&B::Poly<Eval>>,
        key: &KeySwitchingKey<B>,
        level: usize,
        addends: [Option<&B::Poly<Eval>>; 2],
    ) -> Result<[B::Poly<Eval>; 2]> {
        let step = self.level_step(key, level)?;
        let request = EvalKeySwitch {
            tables: step.tables,
            prepared: step.prepared,
            input,
            input_eval,
            key: step.key,
            ring_qp: step.ring_qp,
            ring_q: step.ring_q,
            ring_p: &self.ring_p,
            error_scale: self.error_scale,
            scale_inverses: step.scale_inverses,
            addends,
        };
        self.backend.switch_key_eval(&request)
    }

    /// What a key switch with `key` at `level` works with, after the checks (parameters, error
    /// scale, digit count): the level's tables, prepared tables, rings and key digits, and
    /// `E^-1` modulo each prime of `q_l u P` (empty for `E = 1`).
    pub(crate) fn level_step<'a>(&'a self, key: &'a KeySwitchingKey<B>, level: usize) -> Result<LevelStep<'a, B>> {
        self.check(key.params(), "key-switching key")?;
        if key.error_scale() != self.error_scale {
            return Err(RlweError::ParameterMismatch {
                what: "key-switching key",
                field: "error scale (a BGV key's is its plaintext modulus, a BFV key's 1)",
            });
        }
        check_digit_count(&self.params, key.digits().len())?;
        let digits = key.digits_at_level(self, level)?;
        let ring_q = self.context_at_level(level)?;
        let (tables, prepared, ring_qp) = self.key_switch_level(level)?;
        let scale_inverses = self.scale_inverses_at_level(tables, level)?;
        Ok(LevelStep { tables, prepared, ring_qp, ring_q, key: digits, scale_inverses })
    }

    /// The key-switching tables of `level` (host and backend) and the backend context of
    /// `R_{q_l P}`. Errors for a level above the top.
    pub(crate) fn key_switch_level(
        &self,
        level: usize,
    ) -> Result<(&rns::KeySwitchContext, &B::KeySwitchTables, &B::Context)> {
        if level == self.params.max_level() {
            return Ok((self.params.key_switch_tables(), &self.key_switch, &self.ring_qp));
        }
        let (prepared, ring_qp) = self.key_switch_at_level(level)?;
        Ok((&self.params.key_switch_at_level(level)?.tables, prepared, ring_qp))
    }

    /// `E^-1` modulo each prime of `q_l u P` (`tables`, the key-switching tables of `level`),
    /// empty for `E = 1`: made on the level's first key switch, then shared.
    fn scale_inverses_at_level(&self, tables: &rns::KeySwitchContext, level: usize) -> Result<&[u64]> {
        let cell = self.scale_inverses.get(level).ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "must be a level of these parameters".to_string(),
        })?;
        if cell.get().is_none() {
            let mut inverses = Vec::new();
            if self.error_scale != 1 {
                for m in tables.q().moduli().iter().chain(tables.p().moduli()) {
                    inverses.push(crate::chain::scale_inverse(m, self.error_scale)?);
                }
            }
            let _ = cell.set(inverses);
        }
        Ok(cell.get().map_or(&[], Vec::as_slice))
    }

    /// The backend's key-switching tables of level `level` below the top and the backend
    /// context of `R_{q_l P}` (prepared on first use).
    pub(crate) fn key_switch_at_level(&self, level: usize) -> Result<&(B::KeySwitchTables, B::Context)> {
        let cell = &self.key_switch_levels[level];
        if cell.get().is_none() {
            let tables = self.params.key_switch_at_level(level)?;
            let ring_qp = self.backend.context(&tables.ring_qp).be()?;
            let prepared = self.backend.prepare_key_switch(&tables.tables, &ring_qp, self.error_scale)?;
            let _ = cell.set((prepared, ring_qp));
        }
        cell.get().ok_or(RlweError::InvalidParameter {
            name: "level",
            value: level as u64,
            requirement: "its key-switching tables could not be prepared".to_string(),
        })
    }
}

/// [`RlweContext::level_step`]'s result.
pub(crate) struct LevelStep<'a, B: RlweBackend> {
    pub(crate) tables: &'a rns::KeySwitchContext,
    pub(crate) prepared: &'a B::KeySwitchTables,
    pub(crate) ring_qp: &'a B::Context,
    pub(crate) ring_q: &'a B::Context,
    pub(crate) key: &'a [crate::EvalPair<B>],
    pub(crate) scale_inverses: &'a [u64],
}

#[cfg(test)]
mod tests {
    use poly::{Coeff, CpuBackend, Poly, Seed, TransformKind};
    use rand::{Rng, SeedableRng, rngs::StdRng};
    use rns::{Extension, RnsError};

    use crate::{KeySwitchingKey, ModuliChoice, RlweContext, RlweError, RlweParametersBuilder};

    /// `switch_key` on the CPU equals key switching written out with the `rns` and `poly`
    /// primitives: per digit ModUp, forward transform, products with the key accumulated;
    /// inverse; ModDown. One special prime and hybrid digits (3 + 1), NTT and DGT. A key with a
    /// digit missing is rejected.
    #[test]
    fn switch_key_is_the_digit_loop() {
        let degree = 4096;
        for (special, transform) in [(1usize, TransformKind::Ntt), (3, TransformKind::Dgt), (3, TransformKind::Ntt)] {
            let params = RlweParametersBuilder::new(degree)
                .ciphertext(ModuliChoice::Bits(vec![40; 4]))
                .special(ModuliChoice::Bits(vec![41; special]))
                .transform(transform)
                .allow_insecure(true)
                .build()
                .unwrap();
            let context = RlweContext::new(CpuBackend, &params, 1).unwrap();
            let sk = context.secret_key_from_seed(&Seed::from([1; 32])).unwrap();
            let rk = context.relinearization_key_from_seed(&sk, &Seed::from([2; 32])).unwrap();
            let tables = params.key_switch_tables();
            let (ring_q, ring_qp) = (params.ring_q(), params.ring_qp());
            let mut rng = StdRng::seed_from_u64(special as u64);
            let mut words = Vec::with_capacity(ring_q.poly_len());
            for m in ring_q.moduli() {
                words.extend((0..degree).map(|_| rng.gen_range(0..m.value())));
            }
            let input = Poly::<Coeff>::from_limbs(ring_q, words.clone()).unwrap();

            let (mut acc_b, mut acc_a) = (Poly::zero(ring_qp), Poly::zero(ring_qp));
            for (digit, (key_b, key_a)) in rk.digits().iter().enumerate() {
                let mut extended = vec![0u64; ring_qp.poly_len()];
                tables.mod_up(&words, digit, Extension::Exact, &mut extended).unwrap();
                let extended = Poly::<Coeff>::from_limbs(ring_qp, extended).unwrap().forward().unwrap();
                acc_b.add_assign(&extended.mul(key_b).unwrap()).unwrap();
                acc_a.add_assign(&extended.mul(key_a).unwrap()).unwrap();
            }
            let mut expected = Vec::new();
            for acc in [acc_b, acc_a] {
                let mut down = vec![0u64; ring_q.poly_len()];
                tables.mod_down(acc.inverse().unwrap().as_slice(), &mut down).unwrap();
                expected.push(down);
            }

            let switched = context.switch_key(&input, rk.key_switching_key()).unwrap();
            assert_eq!(switched[0].as_slice(), expected[0], "{special} special, {transform:?}: b");
            assert_eq!(switched[1].as_slice(), expected[1], "{special} special, {transform:?}: a");

            let short = rk.digits()[1..].to_vec();
            let error = KeySwitchingKey::from_digits(&context, short).unwrap_err();
            let digits = tables.num_digits();
            assert!(
                matches!(error, RlweError::Rns(RnsError::LengthMismatch { expected, actual, .. })
                    if expected == digits && actual == digits - 1),
                "{error}"
            );
        }
    }
    /// At every level and with error scales 1 (BFV) and `t` (BGV, prime and power of two), the
    /// switched pair satisfies `ks_b + ks_a s = c s^2 + E e` over `q_l` with a small `e`
    /// (checked on the big-integer centered values: divisible by `E`, and `|e|` far below
    /// `q_l`), for one and several special primes; a level above the top is refused.
    #[test]
    fn switch_key_at_every_level_keeps_the_error_a_small_multiple_of_the_scale() {
        use num_bigint::BigInt;
        use num_traits::{Signed, Zero};
        let degree = 1024;
        for special in [1usize, 2] {
            let params = RlweParametersBuilder::new(degree)
                .ciphertext(ModuliChoice::Bits(vec![50, 45, 45, 40, 40]))
                .special(ModuliChoice::Bits(vec![55; special]))
                .transform(TransformKind::Ntt)
                .allow_insecure(true)
                .build()
                .unwrap();
            for scale in [1u64, 65537, 1 << 16] {
                let context = RlweContext::new(CpuBackend, &params, scale).unwrap();
                let sk = context.secret_key_from_seed(&Seed::from([3; 32])).unwrap();
                let rk = context.relinearization_key_from_seed(&sk, &Seed::from([4; 32])).unwrap();
                let mut rng = StdRng::seed_from_u64(scale + special as u64);
                for level in 0..=params.max_level() {
                    let ring = params.ring_at_level(level).unwrap();
                    let mut words = Vec::with_capacity(ring.poly_len());
                    for m in ring.moduli() {
                        words.extend((0..degree).map(|_| rng.gen_range(0..m.value())));
                    }
                    let input = Poly::<Coeff>::from_limbs(&ring, words).unwrap();
                    let [b, a] = context.switch_key_at_level(&input, rk.key_switching_key(), level).unwrap();
                    let s = context.drop_to_level(sk.s_q(), level).unwrap();
                    let s2 = s.mul(&s).unwrap();
                    let mut phase = a.forward().unwrap().mul(&s).unwrap().inverse().unwrap();
                    phase.add_assign(&b).unwrap();
                    phase.sub_assign(&input.forward().unwrap().mul(&s2).unwrap().inverse().unwrap()).unwrap();
                    let base = rns::RnsBase::new(&ring.moduli().iter().map(|m| m.value()).collect::<Vec<_>>()).unwrap();
                    let bound = BigInt::from(1u64 << 40) * BigInt::from(scale);
                    for (j, e) in base.reconstruct_poly_centered(phase.as_slice()).unwrap().into_iter().enumerate() {
                        let what = format!("{special} special, scale {scale}, level {level}, coefficient {j}");
                        assert!((&e % BigInt::from(scale)).is_zero(), "{what}: {e} not a multiple of the scale");
                        assert!(e.abs() < bound, "{what}: {e} too large");
                    }
                }
                let ring = params.ring_q();
                let input = Poly::<Coeff>::zero(ring);
                assert!(context.switch_key_at_level(&input, rk.key_switching_key(), params.max_level() + 1).is_err());
            }
        }
    }
}
