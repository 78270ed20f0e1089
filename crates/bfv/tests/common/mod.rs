//! Random circuits up to a preset's depth, checked against plaintext arithmetic, on any
//! backend (used by `circuits.rs` on the CPU and `gpu.rs` on the GPU); one multiplication of
//! each preset and the squaring chains behind the documented depths (`presets.rs` on the CPU,
//! `gpu.rs` on the GPU).
//!
//! A circuit of depth `d` keeps `width` (2 or 3) ciphertexts per level. Each new value is
//! `relin((x_a op x_b) [* c] * x_c)` (or a square), with `op` one of add, sub, plaintext add,
//! plaintext sub, `c` an optional plaintext of norm one (a constant `+-1` or a monomial
//! `+-x^k`), and an optional negation: every path has exactly one ciphertext multiplication
//! per level.
#![allow(dead_code)]

pub mod digits;
pub mod raise;

use std::sync::Arc;

use bfv::{
    BatchEncoder, BfvBackend, BfvContext, BfvError, BfvParameters, Ciphertext, CoefficientEncoder, MulVariant,
    Plaintext, Preset,
};
use modarith::Modulus;
use poly::{Poly, RingContext, Seed, TransformKind};
use rand::{Rng, SeedableRng, rngs::StdRng};

/// Plaintext arithmetic of `R_t`: slot-wise for batching, exact negacyclic products (through
/// an NTT over a prime larger than `2 N t^2`) for the coefficient encoding.
enum Reference {
    // Boxed: the encoder holds an NTT plan (clippy's large_enum_variant).
    Slots { encoder: Box<BatchEncoder>, t: Modulus },
    Coefficients { encoder: CoefficientEncoder, t: u64, ring: Arc<RingContext> },
}

impl Reference {
    fn new(params: &Arc<BfvParameters>) -> Self {
        let t = params.plaintext_modulus();
        match BatchEncoder::new(params) {
            Ok(encoder) => Reference::Slots { encoder: Box::new(encoder), t: Modulus::new(t).unwrap() },
            Err(BfvError::BatchingUnsupported { .. }) => {
                let n = params.degree();
                // Products of centered values are below N t^2 / 4 < 2^61 / 2.
                assert!((n as u128) * u128::from(t) * u128::from(t) < 1 << 59);
                let prime = modarith::generate_ntt_primes(61, 2 * n as u64, 1, &[]).unwrap();
                let ring = RingContext::new(n, &prime, TransformKind::Ntt).unwrap();
                Reference::Coefficients { encoder: CoefficientEncoder::new(params), t, ring }
            }
            Err(other) => panic!("{other}"),
        }
    }

    fn t(&self) -> u64 {
        match self {
            Reference::Slots { t, .. } => t.value(),
            Reference::Coefficients { t, .. } => *t,
        }
    }

    fn random(&self, rng: &mut StdRng, n: usize) -> Vec<u64> {
        let t = self.t();
        (0..n).map(|_| rng.gen_range(0..t)).collect()
    }

    /// A plaintext of norm one: `+-1` in every slot, or `+-x^k`.
    fn unit(&self, rng: &mut StdRng, n: usize) -> Vec<u64> {
        let t = self.t();
        let sign = if rng.gen_bool(0.5) { 1 } else { t - 1 };
        match self {
            Reference::Slots { .. } => vec![sign; n],
            Reference::Coefficients { .. } => {
                let mut v = vec![0; n];
                v[rng.gen_range(0..n)] = sign;
                v
            }
        }
    }

    fn encode(&self, values: &[u64]) -> Plaintext {
        match self {
            Reference::Slots { encoder, .. } => encoder.encode(values).unwrap(),
            Reference::Coefficients { encoder, .. } => encoder.encode(values).unwrap(),
        }
    }

    fn decode(&self, plaintext: &Plaintext) -> Vec<u64> {
        match self {
            Reference::Slots { encoder, .. } => encoder.decode(plaintext).unwrap(),
            Reference::Coefficients { encoder, .. } => encoder.decode(plaintext).unwrap(),
        }
    }

    fn add(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let t = self.t();
        a.iter().zip(b).map(|(&x, &y)| (x + y) % t).collect()
    }

    fn neg(&self, a: &[u64]) -> Vec<u64> {
        let t = self.t();
        a.iter().map(|&x| (t - x) % t).collect()
    }

    fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        match self {
            Reference::Slots { t, .. } => a.iter().zip(b).map(|(&x, &y)| t.mul(x, y)).collect(),
            Reference::Coefficients { t, ring, .. } => {
                let t = *t;
                let lift = |v: &[u64]| {
                    let signed: Vec<i64> =
                        v.iter().map(|&x| if x > t / 2 { x as i64 - t as i64 } else { x as i64 }).collect();
                    Poly::from_signed_coeffs(ring, &signed).unwrap().forward().unwrap()
                };
                let product = lift(a).mul(&lift(b)).unwrap().inverse().unwrap();
                let p = ring.moduli()[0];
                product.as_slice().iter().map(|&c| p.center(c).rem_euclid(t as i64) as u64).collect()
            }
        }
    }
}

/// Runs a random circuit of depth `depth` and checks every output. Returns the smallest noise
/// budget among the outputs.
pub fn run_circuit<B: BfvBackend>(
    backend: B,
    params: &Arc<BfvParameters>,
    depth: u32,
    width: usize,
    circuit_seed: u64,
) -> u32 {
    let context = BfvContext::new(backend, params).unwrap();
    let reference = Reference::new(params);
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(circuit_seed);
    let mut seed_bytes = [0u8; 32];
    rng.fill(&mut seed_bytes);
    let sk = context.secret_key_from_seed(&Seed::from(seed_bytes)).unwrap();
    rng.fill(&mut seed_bytes);
    let pk = context.public_key_from_seed(&sk, &Seed::from(seed_bytes)).unwrap();
    rng.fill(&mut seed_bytes);
    let rk = context.relin_key_from_seed(&sk, &Seed::from(seed_bytes)).unwrap();

    let mut level: Vec<(Ciphertext<B>, Vec<u64>)> = (0..width)
        .map(|_| {
            let values = reference.random(&mut rng, n);
            rng.fill(&mut seed_bytes);
            let ct = context.encrypt_with_seed(&reference.encode(&values), &pk, &Seed::from(seed_bytes)).unwrap();
            (ct, values)
        })
        .collect();
    for _ in 0..depth {
        let mut next = Vec::with_capacity(width);
        for _ in 0..width {
            let a = rng.gen_range(0..width);
            let b = (a + rng.gen_range(1..width)) % width;
            let ((xa, va), (xb, vb)) = (&level[a], &level[b]);
            // x - x and x + (-x) would be the noiseless zero ciphertext and make the rest of the
            // circuit trivial (two entries of a level can be y and -y: width 2 draws the same
            // pair, a + b = b + a, and one of the two products may be negated): subtract only
            // distinct ciphertexts, add only ciphertexts that are not each other's negation. The
            // same for the values: two different ciphertexts of opposite values add up to an
            // encryption of zero, whose products spend far less noise than the bound below
            // asserts (a circuit at N = 8192 of the GPU test's base seed 9141316753021113149 did).
            let (da, db) = (context.download(xa).unwrap(), context.download(xb).unwrap());
            let same = da == db || va == vb;
            let opposite = da == context.download(&context.negate(xb).unwrap()).unwrap() || *va == reference.neg(vb);
            let (mut z, mut vz) = match rng.gen_range(0..4) {
                1 if same => (context.add(xa, xb).unwrap(), reference.add(va, vb)),
                0 if opposite => (context.sub(xa, xb).unwrap(), reference.add(va, &reference.neg(vb))),
                0 => (context.add(xa, xb).unwrap(), reference.add(va, vb)),
                1 => (context.sub(xa, xb).unwrap(), reference.add(va, &reference.neg(vb))),
                // Plaintext operands from the host or already on the backend, at random.
                2 => {
                    let p = reference.random(&mut rng, n);
                    let sum = if rng.gen_bool(0.5) {
                        context.add_plain(xa, &reference.encode(&p)).unwrap()
                    } else {
                        context.add_plain(xa, &context.upload_plaintext(&reference.encode(&p)).unwrap()).unwrap()
                    };
                    (sum, reference.add(va, &p))
                }
                _ => {
                    let p = reference.random(&mut rng, n);
                    let difference = if rng.gen_bool(0.5) {
                        context.sub_plain(xa, &reference.encode(&p)).unwrap()
                    } else {
                        context.sub_plain(xa, &context.upload_plaintext(&reference.encode(&p)).unwrap()).unwrap()
                    };
                    (difference, reference.add(va, &reference.neg(&p)))
                }
            };
            if rng.gen_bool(0.5) {
                let unit = reference.unit(&mut rng, n);
                z = if rng.gen_bool(0.5) {
                    context.mul_plain(&z, &reference.encode(&unit)).unwrap()
                } else {
                    context.mul_plain(&z, &context.upload_plaintext(&reference.encode(&unit)).unwrap()).unwrap()
                };
                vz = reference.mul(&vz, &unit);
            }
            let (mut y, mut vy) = if rng.gen_bool(0.3) {
                (context.square_relin(&z, &rk).unwrap(), reference.mul(&vz, &vz))
            } else {
                let (xc, vc) = &level[rng.gen_range(0..width)];
                (context.mul_relin(&z, xc, &rk).unwrap(), reference.mul(&vz, vc))
            };
            if rng.gen_bool(0.25) {
                y = context.negate(&y).unwrap();
                vy = reference.neg(&vy);
            }
            next.push((y, vy));
        }
        level = next;
    }
    // Every level must have spent noise: at least log2(N t) - 4 bits per multiplication
    // (the measured cost is about log2(N t)), or the circuit degenerated.
    let fresh = context
        .noise_budget(&context.encrypt_with_seed(&reference.encode(&[]), &pk, &Seed::from([0; 32])).unwrap(), &sk)
        .unwrap();
    let per_level = u64::from(n.trailing_zeros()) + 64 - u64::from(reference.t().leading_zeros()) - 4;
    let mut smallest = u32::MAX;
    for (index, (ct, expected)) in level.iter().enumerate() {
        let plaintext = context.decrypt(ct, &sk).unwrap();
        let decrypted = reference.decode(&plaintext);
        assert!(decrypted == *expected, "{params:?}: depth {depth} circuit (seed {circuit_seed}) decrypted wrongly");
        // The resident path: the same plaintext left on the backend, and encrypting it there
        // gives the ciphertext that encrypting it from the host gives.
        let resident = context.decrypt_resident(ct, &sk).unwrap();
        assert!(
            resident.to_plaintext().unwrap().coefficients() == plaintext.coefficients(),
            "{params:?}: depth {depth} (seed {circuit_seed}): resident decryption {index} differs"
        );
        rng.fill(&mut seed_bytes);
        let seed = Seed::from(seed_bytes);
        let again = context.encrypt_with_seed(&resident, &pk, &seed).unwrap();
        assert!(
            context.download(&again).unwrap()
                == context.download(&context.encrypt_with_seed(&plaintext, &pk, &seed).unwrap()).unwrap(),
            "{params:?}: depth {depth} (seed {circuit_seed}): resident encryption {index} differs"
        );
        let budget = context.noise_budget(ct, &sk).unwrap_or_else(|e| panic!("{params:?}: depth {depth}: {e}"));
        smallest = smallest.min(budget);
        assert!(
            u64::from(budget) + u64::from(depth) * per_level <= u64::from(fresh),
            "{params:?}: depth {depth}: {budget} bits left of {fresh}: the circuit spent too little noise"
        );
    }
    smallest
}

/// The preset with the variant and transform, past the security opt-out where it needs one.
pub fn preset_params(preset: Preset, variant: MulVariant, transform: TransformKind) -> Arc<BfvParameters> {
    preset.builder().unwrap().allow_insecure(true).variant(variant).transform(transform).build().unwrap()
}

pub const COMBINATIONS: [(MulVariant, TransformKind); 4] = [
    (MulVariant::Hps, TransformKind::Ntt),
    (MulVariant::Behz, TransformKind::Dgt),
    (MulVariant::Hps, TransformKind::HierarchicalDgt),
    (MulVariant::Behz, TransformKind::Ntt),
];

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// The longest chain of squarings (each relinearized) of a fresh encryption of `-1` under the
/// preset as it ships (its own variant and transform) that decrypts correctly with a positive
/// budget: the measurement behind [`Preset::depth`]. Stops after 80 levels.
pub fn squaring_chain<B: BfvBackend>(backend: B, preset: Preset) -> u32 {
    let params = preset.builder().unwrap().allow_insecure(true).build().unwrap();
    let context = BfvContext::new(backend, &params).unwrap();
    let encoder = CoefficientEncoder::new(&params);
    let t = params.plaintext_modulus();
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
    let mut ct = context.encrypt_with_seed(&encoder.encode(&[t - 1]).unwrap(), &pk, &seed(4)).unwrap();
    let mut chain = 0u32;
    let mut expected = t - 1;
    loop {
        ct = context.square_relin(&ct, &rk).unwrap();
        expected = (u128::from(expected) * u128::from(expected) % u128::from(t)) as u64;
        let decrypted = encoder.decode(&context.decrypt(&ct, &sk).unwrap()).unwrap();
        let correct = decrypted[0] == expected && decrypted[1..].iter().all(|&v| v == 0);
        if !correct || context.noise_budget(&ct, &sk).is_err() || chain > 80 {
            break;
        }
        chain += 1;
    }
    chain
}

/// Whether a squaring chain leaves the documented depth one level of margin (depth-1 sets: the
/// chain is one level).
pub fn chain_leaves_margin(chain: u32, documented: u32) -> bool {
    chain > documented || (chain == 1 && documented == 1)
}

/// Key generation (secret, public, relinearization keys), two encryptions, one multiplication
/// with relinearization and decryption under the preset with `variant` and `transform`; checks
/// the decrypted product against plaintext arithmetic and returns the product's noise budget.
pub fn multiply_once<B: BfvBackend>(
    backend: B,
    preset: Preset,
    variant: MulVariant,
    transform: TransformKind,
    data_seed: u64,
) -> u32 {
    let params = preset_params(preset, variant, transform);
    let context = BfvContext::new(backend, &params).unwrap();
    let reference = Reference::new(&params);
    let n = params.degree();
    let mut rng = StdRng::seed_from_u64(data_seed);
    let mut seed_bytes = [0u8; 32];
    let mut next_seed = |rng: &mut StdRng| {
        rng.fill(&mut seed_bytes);
        Seed::from(seed_bytes)
    };
    let sk = context.secret_key_from_seed(&next_seed(&mut rng)).unwrap();
    let pk = context.public_key_from_seed(&sk, &next_seed(&mut rng)).unwrap();
    let rk = context.relin_key_from_seed(&sk, &next_seed(&mut rng)).unwrap();
    let (a, b) = (reference.random(&mut rng, n), reference.random(&mut rng, n));
    let ca = context.encrypt_with_seed(&reference.encode(&a), &pk, &next_seed(&mut rng)).unwrap();
    let cb = context.encrypt_with_seed(&reference.encode(&b), &pk, &next_seed(&mut rng)).unwrap();
    let product = context.mul_relin(&ca, &cb, &rk).unwrap();
    let decrypted = reference.decode(&context.decrypt(&product, &sk).unwrap());
    let name = preset.name();
    assert!(decrypted == reference.mul(&a, &b), "{name} {variant:?} {transform:?}: the product decrypted wrongly");
    context.noise_budget(&product, &sk).unwrap_or_else(|e| panic!("{name} {variant:?} {transform:?}: {e}"))
}
