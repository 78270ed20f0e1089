#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Rings `Z_q[x]/Phi_m(x)` (`RingKind::Cyclotomic`, Bluestein's transform) against exact
//! arithmetic: products against the schoolbook product reduced by long division with `Phi_m`
//! (u128 sums), the forward transform against direct evaluation at the primitive `m`-th roots,
//! round trips, automorphisms against substitution `x -> x^g` reduced modulo `Phi_m`, the
//! permutation of evaluations, Galois elements, sampling in the power basis, scheme-style code
//! through the `Backend` trait, and errors that leave inputs untouched; for odd `m` prime and
//! composite and several primes.

use std::sync::Arc;

use modarith::Modulus;
use poly::bluestein::bluestein_primes;
use poly::cyclotomic::{euler_phi, gcd};
use poly::reference::{reduce_mod_cyclotomic, ring_product};
use poly::sampling::{sample_cbd_signed, sample_ternary_signed};
use poly::{Backend, Coeff, CpuBackend, Eval, Poly, PolyError, RingContext, RingKind, Seed, TransformKind};
use proptest::prelude::*;
use rand::{Rng, SeedableRng, rngs::StdRng};

const MS: [usize; 8] = [3, 21, 63, 105, 127, 255, 315, 1023];

/// `limbs` primes of `bits` bits for `m` and the context over them.
fn context(m: usize, bits: u32, limbs: usize) -> Arc<RingContext> {
    let moduli = bluestein_primes(bits, m as u64, limbs).unwrap();
    RingContext::new_cyclotomic(m, &moduli).unwrap()
}

fn random_poly<R: poly::Representation>(rng: &mut StdRng, ctx: &Arc<RingContext>) -> Poly<R> {
    let mut data = Vec::with_capacity(ctx.poly_len());
    for q in ctx.moduli() {
        data.extend((0..ctx.degree()).map(|_| rng.gen_range(0..q.value())));
    }
    Poly::from_limbs(ctx, data).unwrap()
}

/// `sum_j a_j x^j` at `x` modulo `q` (Horner, exact modular arithmetic).
fn evaluate(q: &Modulus, a: &[u64], x: u64) -> u64 {
    a.iter().rev().fold(0u64, |acc, &c| q.add(q.mul(acc, x), c))
}

fn units(m: usize) -> Vec<usize> {
    (1..m).filter(|&k| gcd(k, m) == 1).collect()
}

#[test]
fn contexts_have_the_ring_kind_degree_and_transform() {
    for m in MS {
        let ctx = context(m, 50, 2);
        assert_eq!(ctx.ring_kind(), RingKind::Cyclotomic { m });
        assert_eq!(ctx.degree() as u64, euler_phi(m as u64));
        assert_eq!(ctx.transform(), TransformKind::Bluestein);
        assert_eq!(ctx.cyclotomic_index(), m as u64);
        assert!(ctx.plans().iter().all(|p| p.kind() == TransformKind::Bluestein && p.as_bluestein().is_some()));
        assert!(ctx.sampling_degree().is_power_of_two() && ctx.sampling_degree() >= ctx.degree());
        // A second context of the same ring and primes is compatible; another m is not.
        let again = RingContext::new_cyclotomic(m, &ctx.moduli().iter().map(Modulus::value).collect::<Vec<_>>());
        assert!(ctx.is_compatible(&again.unwrap()));
    }
    let power_of_two =
        RingContext::new(1024, &modarith::generate_ntt_primes(50, 2048, 1, &[]).unwrap(), TransformKind::Ntt).unwrap();
    assert_eq!(power_of_two.ring_kind(), RingKind::NegacyclicPowerOfTwo { degree: 1024 });
    assert_eq!(power_of_two.cyclotomic_index(), 2048);
    assert_eq!(power_of_two.sampling_degree(), 1024);
}

/// Illegal combinations are typed errors: Bluestein's transform on the power-of-two ring, the
/// power-of-two transforms on `Phi_m`, even or out-of-range `m`, primes not `1 mod m` and
/// `1 mod 2M`.
#[test]
fn illegal_combinations_are_errors() {
    let primes = bluestein_primes(50, 63, 2).unwrap();
    let ntt_primes = modarith::generate_ntt_primes(50, 2048, 1, &[]).unwrap();
    assert!(matches!(
        RingContext::new(1024, &ntt_primes, TransformKind::Bluestein),
        Err(PolyError::InvalidTransform { transform: TransformKind::Bluestein, .. })
    ));
    for transform in TransformKind::ALL {
        assert!(matches!(
            RingContext::with_kind(RingKind::Cyclotomic { m: 63 }, &primes, transform),
            Err(PolyError::InvalidTransform { .. })
        ));
    }
    assert!(RingContext::with_kind(RingKind::Cyclotomic { m: 63 }, &primes, TransformKind::Bluestein).is_ok());
    for m in [0usize, 1, 2, 64, 126, (1 << 17) + 1] {
        assert!(matches!(RingContext::new_cyclotomic(m, &primes), Err(PolyError::InvalidParameter { name: "m", .. })));
    }
    // 12289 = 3 * 2^12 + 1 is not 1 mod 63.
    assert!(matches!(RingContext::new_cyclotomic(63, &[12289]), Err(PolyError::InvalidModulus { .. })));
    assert!(matches!(RingContext::new_cyclotomic(105, &primes), Err(PolyError::InvalidModulus { .. })));
    assert!(matches!(
        RingContext::new_cyclotomic(63, &[primes[0], primes[0]]),
        Err(PolyError::DuplicateModulus { .. })
    ));
    assert!(matches!(RingContext::new_cyclotomic(63, &[]), Err(PolyError::InvalidModulusCount { .. })));
}

/// Products in the evaluation representation equal the schoolbook product modulo `(Phi_m, q)`,
/// the transform round-trips, and evaluation `s` is the value at `w^(k_s)`, `k_s` the `s`-th
/// unit below `m`; random and edge inputs (zero, one, all `q - 1`).
#[test]
fn products_and_transforms_equal_exact_arithmetic() {
    let mut rng = StdRng::seed_from_u64(41);
    for m in MS {
        for (bits, limbs) in [(40u32, 1usize), (61, 3)] {
            let ctx = context(m, bits, limbs);
            let n = ctx.degree();
            let edges: Vec<Poly<Coeff>> = [0u64, 1]
                .iter()
                .map(|&v| Poly::from_limbs(&ctx, vec![v; ctx.poly_len()]).unwrap())
                .chain([
                    Poly::from_limbs(&ctx, ctx.moduli().iter().flat_map(|q| vec![q.value() - 1; n]).collect()).unwrap()
                ])
                .collect();
            let mut inputs: Vec<Poly<Coeff>> = (0..2).map(|_| random_poly(&mut rng, &ctx)).collect();
            inputs.extend(edges);
            for a in &inputs {
                let b: Poly<Coeff> = random_poly(&mut rng, &ctx);
                let product =
                    a.clone().forward().unwrap().mul(&b.clone().forward().unwrap()).unwrap().inverse().unwrap();
                assert_eq!(product, ring_product(a, &b).unwrap(), "m = {m}, {bits} bits");
                let evals = a.clone().forward().unwrap();
                assert_eq!(evals.clone().inverse().unwrap(), *a, "m = {m}: round trip");
                for ((q, plan), (limb, eval)) in ctx.moduli().iter().zip(ctx.plans()).zip(a.limbs().zip(evals.limbs()))
                {
                    let w = plan.as_bluestein().unwrap().plan().root();
                    assert_eq!(q.pow(w, m as u64), 1);
                    for (s, &k) in units(m).iter().enumerate() {
                        assert_eq!(eval[s], evaluate(q, limb, q.pow(w, k as u64)), "m = {m}, k = {k}");
                    }
                }
                // Multiply-accumulate: acc + a b.
                let mut acc: Poly<Eval> = random_poly(&mut rng, &ctx);
                let want = acc.add(&evals.mul(&b.clone().forward().unwrap()).unwrap()).unwrap();
                acc.mul_add_assign(&evals, &b.clone().forward().unwrap()).unwrap();
                assert_eq!(acc, want);
            }
        }
    }
}

/// `a(x^g)` for every unit `g` (a sample for the larger `m`) equals substitution reduced modulo
/// `Phi_m` by long division (`x^(j g)` with the full exponent for small `g`, and through
/// `x^m = 1` for the others), and on evaluations the permutation equals forward(automorphism);
/// Galois elements are the units below `m`; a non-unit is refused, changing nothing.
#[test]
fn automorphisms_equal_substitution() {
    let mut rng = StdRng::seed_from_u64(43);
    for m in MS {
        let ctx = context(m, 55, 2);
        let n = ctx.degree();
        let a: Poly<Coeff> = random_poly(&mut rng, &ctx);
        let all = units(m);
        let gs: Vec<usize> =
            if all.len() <= 40 { all.clone() } else { all.iter().copied().step_by(all.len() / 20).collect() };
        for &g in gs.iter().chain(&[m + 2, 2 * m + 1]) {
            if gcd(g % m, m) != 1 {
                continue;
            }
            let got = a.automorphism(g as u64).unwrap();
            for (q, (src, dst)) in ctx.moduli().iter().zip(a.limbs().zip(got.limbs())) {
                // Full exponents j g for small g: substitution with no use of x^m = 1.
                let width = if g <= 4 { (n - 1) * g + 1 } else { m };
                let exponent = |j: usize| if g <= 4 { j * g } else { j * g % m };
                let mut spread = vec![0u64; width];
                for (j, &c) in src.iter().enumerate() {
                    spread[exponent(j)] = q.add(spread[exponent(j)], c);
                }
                assert_eq!(dst, reduce_mod_cyclotomic(q, m as u64, &spread).unwrap(), "m = {m}, g = {g}");
            }
            let evals = a.clone().forward().unwrap();
            let permuted = evals.automorphism_bluestein(g as u64).unwrap();
            assert_eq!(permuted, got.clone().forward().unwrap(), "m = {m}, g = {g}");
            assert_eq!(CpuBackend.automorphism_eval(&evals, g as u64).unwrap(), permuted);
            assert_eq!(CpuBackend.automorphism(&a, g as u64).unwrap(), got);
        }
        for g in 0..2 * m as u64 {
            let unit = gcd((g % m as u64) as usize, m) == 1;
            assert_eq!(ctx.is_galois_element(g), unit && g < m as u64, "m = {m}, g = {g}");
            if !unit {
                let before = a.clone();
                assert_eq!(
                    a.automorphism(g).unwrap_err(),
                    PolyError::InvalidGaloisElement { element: g, m: m as u64 },
                    "m = {m}, g = {g}"
                );
                assert!(a.clone().forward().unwrap().automorphism_bluestein(g).is_err());
                assert_eq!(a, before);
            }
        }
        // The NTT permutation is not the Bluestein one.
        assert!(a.clone().forward().unwrap().automorphism_ntt(1).is_err());
    }
    // The power-of-two ring: the odd g below 2N; the Bluestein permutation is refused.
    let ctx =
        RingContext::new(1024, &modarith::generate_ntt_primes(50, 2048, 1, &[]).unwrap(), TransformKind::Ntt).unwrap();
    assert!(ctx.is_galois_element(3) && ctx.is_galois_element(2047));
    assert!(!ctx.is_galois_element(2) && !ctx.is_galois_element(2049));
    assert!(matches!(ctx.bluestein_automorphism_sources(3), Err(PolyError::InvalidTransform { .. })));
}

/// Secrets and errors are drawn coefficient-wise in the power basis: the first `phi(m)` words
/// of the power-of-two sampler's stream at the sampling degree, the same integer in every limb;
/// uniform samples are the first `phi(m)` words of every limb of the sampler's layout.
#[test]
fn sampling_is_in_the_power_basis() {
    let seed = Seed::from([9u8; 32]);
    for m in MS {
        let ctx = context(m, 50, 3);
        let (n, d) = (ctx.degree(), ctx.sampling_degree());
        let mut ternary = vec![0i64; d];
        sample_ternary_signed(d, &seed, 4, &mut ternary).unwrap();
        let mut cbd = vec![0i64; d];
        sample_cbd_signed(d, &seed, 5, &mut cbd).unwrap();
        let s = Poly::sample_ternary(&ctx, &seed, 4).unwrap();
        let e = CpuBackend.sample_cbd(&ctx, &seed, 5).unwrap();
        for (q, (ls, le)) in ctx.moduli().iter().zip(s.limbs().zip(e.limbs())) {
            assert_eq!(ls, ternary[..n].iter().map(|&c| q.from_i64(c)).collect::<Vec<_>>(), "m = {m}");
            assert_eq!(le, cbd[..n].iter().map(|&c| q.from_i64(c)).collect::<Vec<_>>(), "m = {m}");
        }
        let mut uniform = vec![0u64; 3 * d];
        poly::sampling::sample_uniform(ctx.moduli(), d, &seed, 6, &mut uniform).unwrap();
        let u: Poly<Eval> = CpuBackend.sample_uniform(&ctx, &seed, 6).unwrap();
        let want: Vec<u64> = uniform.chunks_exact(d).flat_map(|l| l[..n].to_vec()).collect();
        assert_eq!(u.as_slice(), &want[..], "m = {m}");
    }
}

/// Scheme-style code written once against `Backend` runs unchanged on a cyclotomic context:
/// `b = -a s + e`, then `b + a s = e` (an RLWE sample and its phase), and a rotated key.
fn rlwe_phase<B: Backend>(backend: &B, ring: &Arc<RingContext>, seed: &Seed, g: u64) -> Result<Poly<Coeff>, B::Error> {
    let ctx = backend.context(ring)?;
    let s = backend.forward(backend.sample_ternary(&ctx, seed, 0)?)?;
    let e = backend.sample_cbd(&ctx, seed, 1)?;
    let a: B::Poly<Eval> = backend.sample_uniform(&ctx, seed, 2)?;
    let mut b = backend.neg(&backend.mul(&a, &s)?)?;
    backend.add_assign(&mut b, &backend.forward(e)?)?;
    let rotated_s = backend.automorphism_eval(&s, g)?;
    let rotated_b = backend.automorphism_eval(&b, g)?;
    let rotated_a = backend.automorphism_eval(&a, g)?;
    let mut phase = backend.duplicate(&rotated_b)?;
    backend.mul_add_assign(&mut phase, &rotated_a, &rotated_s)?;
    let phase = backend.inverse(phase)?;
    backend.download(&phase)
}

#[test]
fn scheme_code_runs_through_the_backend() {
    let seed = Seed::from([3u8; 32]);
    for m in [63usize, 127, 255] {
        let ctx = context(m, 50, 2);
        let g = 2;
        let phase = rlwe_phase(&CpuBackend, &ctx, &seed, g).unwrap();
        let e = Poly::sample_cbd(&ctx, &seed, 1).unwrap();
        assert_eq!(phase, e.automorphism(g).unwrap(), "m = {m}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    /// Products and round trips over random m (odd, up to 400), primes of random size and
    /// random inputs.
    #[test]
    fn products_equal_exact_arithmetic_for_random_rings(
        half in 1usize..200,
        bits in 36u32..62,
        limbs in 1usize..3,
        seed in any::<u64>(),
    ) {
        let m = 2 * half + 1;
        let ctx = context(m, bits, limbs);
        let mut rng = StdRng::seed_from_u64(seed);
        let (a, b): (Poly<Coeff>, Poly<Coeff>) = (random_poly(&mut rng, &ctx), random_poly(&mut rng, &ctx));
        let product = a.clone().forward().unwrap().mul(&b.clone().forward().unwrap()).unwrap().inverse().unwrap();
        prop_assert_eq!(product, ring_product(&a, &b).unwrap());
        prop_assert_eq!(a.clone().forward().unwrap().inverse().unwrap(), a);
    }
}
