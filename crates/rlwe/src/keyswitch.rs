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

use poly::Coeff;

use crate::backend::RlweBackend;
use crate::context::RlweContext;
use crate::key_switching_key::{KeySwitchingKey, check_digit_count};
use crate::{Result, RlweError};

impl<B: RlweBackend> RlweContext<B> {
    /// Switches `input` (over `q`, coefficient representation) with `key`: the pair
    /// `[ks_b, ks_a]` over `q`, coefficient representation (module docs).
    ///
    /// Errors with [`RlweError::ParameterMismatch`] for a key of other parameters or of
    /// another error scale; nothing is computed then.
    pub fn switch_key(&self, input: &B::Poly<Coeff>, key: &KeySwitchingKey<B>) -> Result<[B::Poly<Coeff>; 2]> {
        self.check(key.params(), "key-switching key")?;
        if key.error_scale() != self.error_scale {
            return Err(RlweError::ParameterMismatch { what: "key-switching key (error scale)" });
        }
        check_digit_count(&self.params, key.digits().len())?;
        let tables = self.params.key_switch_tables();
        let sums = self.backend.mod_up_inner_product(tables, &self.key_switch, input, key.digits(), &self.ring_qp)?;
        self.backend.mod_down_sums(tables, &self.key_switch, sums, &self.ring_q)
    }
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
}
