#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The Backend trait, exercised through code generic over it (as scheme code will be), with
//! the CPU backend checked against the Poly operations and the reference convolution.

use std::sync::Arc;

use modarith::generate_ntt_primes;
use poly::reference::negacyclic_product;
use poly::sampling::{self, Seed};
use poly::{Backend, Coeff, CpuBackend, Eval, Poly, PolyError, RingContext, TransformKind};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn ring(transform: TransformKind) -> Arc<RingContext> {
    let moduli = generate_ntt_primes(55, 2048, 3, &[]).unwrap();
    RingContext::new(1024, &moduli, transform).unwrap()
}

fn random_poly(rng: &mut StdRng, ctx: &Arc<RingContext>) -> Poly<Coeff> {
    let data =
        ctx.moduli().iter().flat_map(|m| (0..ctx.degree()).map(|_| rng.gen_range(0..m.value())).collect::<Vec<_>>());
    Poly::from_limbs(ctx, data.collect()).unwrap()
}

/// `a * b + c` through a backend, coefficients in and out.
fn multiply_accumulate<B: Backend>(
    backend: &B,
    context: &B::Context,
    a: &Poly<Coeff>,
    b: &Poly<Coeff>,
    c: &Poly<Coeff>,
) -> Result<Poly<Coeff>, B::Error> {
    let fa = backend.forward(backend.upload(context, a)?)?;
    let fb = backend.forward(backend.upload(context, b)?)?;
    let mut acc = backend.forward(backend.upload(context, c)?)?;
    backend.mul_add_assign(&mut acc, &fa, &fb)?;
    backend.download(&backend.inverse(acc)?)
}

/// Every element-wise operation, in place and out of place, each result downloaded.
fn elementwise<B: Backend>(
    backend: &B,
    context: &B::Context,
    a: &Poly<Coeff>,
    b: &Poly<Coeff>,
) -> Result<Vec<Poly<Coeff>>, B::Error> {
    let (da, db) = (backend.upload(context, a)?, backend.upload(context, b)?);
    let mut out = vec![
        backend.download(&backend.add(&da, &db)?)?,
        backend.download(&backend.sub(&da, &db)?)?,
        backend.download(&backend.neg(&da)?)?,
        backend.download(&backend.scalar_mul(&da, 1 << 63)?)?,
        backend.download(&backend.scalar_mul_per_limb(&da, &[2, 3, 5])?)?,
        backend.download(&backend.automorphism(&da, 5)?)?,
    ];
    let mut x = backend.duplicate(&da)?;
    backend.add_assign(&mut x, &db)?;
    backend.sub_assign(&mut x, &db)?;
    backend.neg_assign(&mut x)?;
    backend.scalar_mul_assign(&mut x, 7)?;
    backend.scalar_mul_per_limb_assign(&mut x, &[1, 1, 2])?;
    out.push(backend.download(&x)?);
    let zero: B::Poly<Coeff> = backend.zero(context)?;
    out.push(backend.download(&zero)?);
    backend.synchronize()?;
    Ok(out)
}

#[test]
fn cpu_backend_products_match_the_reference() {
    let backend = CpuBackend;
    assert_eq!(backend.name(), "CPU");
    let mut rng = StdRng::seed_from_u64(21);
    for transform in TransformKind::ALL {
        let ring = ring(transform);
        let context = backend.context(&ring).unwrap();
        assert!(backend.ring(&context).is_compatible(&ring));
        let [a, b, c] = [0; 3].map(|_| random_poly(&mut rng, &ring));
        let expected = negacyclic_product(&a, &b).unwrap().add(&c).unwrap();
        assert_eq!(multiply_accumulate(&backend, &context, &a, &b, &c).unwrap(), expected, "{transform:?}");
    }
}

#[test]
fn cpu_backend_elementwise_operations_match_poly() {
    let backend = CpuBackend;
    let mut rng = StdRng::seed_from_u64(22);
    let ring = ring(TransformKind::Ntt);
    let context = backend.context(&ring).unwrap();
    let (a, b) = (random_poly(&mut rng, &ring), random_poly(&mut rng, &ring));
    let got = elementwise(&backend, &context, &a, &b).unwrap();
    let chained = a.neg().scalar_mul(7).scalar_mul_per_limb(&[1, 1, 2]).unwrap();
    let expected = vec![
        a.add(&b).unwrap(),
        a.sub(&b).unwrap(),
        a.neg(),
        a.scalar_mul(1 << 63),
        a.scalar_mul_per_limb(&[2, 3, 5]).unwrap(),
        a.automorphism(5).unwrap(),
        chained,
        Poly::zero(&ring),
    ];
    assert_eq!(got, expected);
}

#[test]
fn cpu_backend_sampling_is_the_sampling_module() {
    let backend = CpuBackend;
    let ring = ring(TransformKind::Dgt);
    let context = backend.context(&ring).unwrap();
    let seed = Seed::from([7u8; 32]);
    let (moduli, n) = (ring.moduli(), ring.degree());

    let uniform: Poly<Eval> = backend.sample_uniform(&context, &seed, 3).unwrap();
    let mut expected = vec![0u64; ring.poly_len()];
    sampling::sample_uniform(moduli, n, &seed, 3, &mut expected).unwrap();
    assert_eq!(uniform.as_slice(), &expected[..]);
    let again: Poly<Coeff> = backend.sample_uniform(&context, &seed, 3).unwrap();
    assert_eq!(again.as_slice(), uniform.as_slice());
    let other: Poly<Eval> = backend.sample_uniform(&context, &seed, 4).unwrap();
    assert_ne!(other, uniform);

    let ternary = backend.sample_ternary(&context, &seed, 3).unwrap();
    sampling::sample_ternary(moduli, n, &seed, 3, &mut expected).unwrap();
    assert_eq!(ternary.as_slice(), &expected[..]);

    let cbd = backend.sample_cbd(&context, &seed, 3).unwrap();
    sampling::sample_cbd(moduli, n, &seed, 3, &mut expected).unwrap();
    assert_eq!(cbd.as_slice(), &expected[..]);

    // Errors from the sampler come through (poly index beyond 2^56).
    assert!(backend.sample_cbd(&context, &seed, 1 << 56).is_err());
}

#[test]
fn cpu_backend_rejects_mismatched_contexts() {
    let backend = CpuBackend;
    let mut rng = StdRng::seed_from_u64(23);
    let ntt = ring(TransformKind::Ntt);
    let dgt = ring(TransformKind::Dgt);
    let context = backend.context(&ntt).unwrap();
    let foreign = random_poly(&mut rng, &dgt);
    assert_eq!(backend.upload(&context, &foreign).unwrap_err(), PolyError::ContextMismatch);
    let mine = backend.upload(&context, &random_poly(&mut rng, &ntt)).unwrap();
    let before = mine.clone();
    let mut target = backend.duplicate(&mine).unwrap();
    assert_eq!(backend.add_assign(&mut target, &foreign), Err(PolyError::ContextMismatch));
    assert_eq!(target, before);
    assert_eq!(backend.automorphism(&mine, 2), Err(PolyError::InvalidAutomorphism { exponent: 2, degree: 1024 }));
    assert!(backend.scalar_mul_per_limb(&mine, &[1, 2]).is_err());
}
