//! BGV over extension-field slots (`rlwe::extension_slots`), generic over the backend: random
//! circuits of additions, products, plaintext products, automorphisms (rotations along the
//! slots, with their Frobenius powers) and the Frobenius itself, with `t = p^r`, each result
//! decrypted and decoded against the harness's exact slot arithmetic (`hegpu_test_support::slot_ring`).

use std::sync::Arc;

use bgv_encrypt::{BgvBackend, BgvContext, BgvError, BgvParameters, Ciphertext};
pub use hegpu_test_support::slot_ring::{mul_mod, substitute};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::Evaluator;
use rlwe::extension_slots::ExtensionSlots;

use super::seed;

/// The slots of `a(x^g)` from the slots of `a`: slot `i` is slot `j` of `a` under `X -> X^(p^k)`
/// where `g t_i = t_j p^k (mod m)`.
pub fn automorphism_of_slots(slots: &ExtensionSlots, values: &[Vec<u64>], g: u64) -> Vec<Vec<u64>> {
    let factors = slots.factors();
    let (m, p, n, d) = (factors.m, factors.p, slots.modulus(), slots.slot_degree());
    let reps = &factors.representatives;
    reps.iter()
        .map(|&t| {
            let target = (u128::from(g) * u128::from(t) % u128::from(m)) as u64;
            let mut pk = 1u64;
            for _ in 0..d {
                if let Some(j) =
                    reps.iter().position(|&u| (u128::from(u) * u128::from(pk) % u128::from(m)) as u64 == target)
                {
                    return substitute(&values[j], pk, m, slots.slot_modulus(), n);
                }
                pk = (u128::from(pk) * u128::from(p) % u128::from(m)) as u64;
            }
            panic!("g t is in no coset");
        })
        .collect()
}

/// A random circuit of `steps` operations over the slots of `params` (`t = p^r`) with Galois
/// keys for `elements`; multiplications until automatic switching refuses one. Returns the
/// words of every ciphertext made (for the GPU = CPU comparison) and the number of products.
pub fn extension_circuit<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    elements: &[u64],
    steps: usize,
    rng_seed: u64,
) -> (Vec<Vec<u64>>, usize) {
    let slots = ExtensionSlots::for_params(params.as_ref()).unwrap();
    let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
    let g_poly = slots.slot_modulus().to_vec();
    let context = BgvContext::new(backend.clone(), params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let galois = context.galois_keys_from_seed(&secret, elements, &seed(4)).unwrap();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let random = |rng: &mut StdRng| -> Vec<Vec<u64>> {
        (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect()
    };
    let mut pool: Vec<(Ciphertext<B>, Vec<Vec<u64>>)> = (0..2u8)
        .map(|i| {
            let values = random(&mut rng);
            let plain = slots.encode_plaintext(params, &values).unwrap();
            (context.encrypt_with_seed(&plain, &public, &seed(10 + i)).unwrap(), values)
        })
        .collect();
    let mut words = Vec::new();
    let mut products = 0;
    for step in 0..steps {
        let (a, va) = &pool[rng.gen_range(0..pool.len())];
        let (b, vb) = &pool[rng.gen_range(0..pool.len())];
        let op = rng.gen_range(0..5);
        let result = match op {
            0 => context.add(a, b).map(|c| (c, va.iter().zip(vb).map(|(x, y)| add(x, y, n)).collect())),
            1 => context
                .mul_relin(a, b, &relin)
                .map(|c| (c, va.iter().zip(vb).map(|(x, y)| mul_mod(x, y, &g_poly, n)).collect())),
            2 => {
                let values = random(&mut rng);
                let plain = slots.encode_plaintext(params, &values).unwrap();
                context
                    .mul_plain(a, &plain)
                    .map(|c| (c, va.iter().zip(&values).map(|(x, y)| mul_mod(x, y, &g_poly, n)).collect()))
            }
            _ => {
                let g = elements[rng.gen_range(0..elements.len())];
                context.apply_galois(a, g, &galois).map(|c| (c, automorphism_of_slots(&slots, va, g)))
            }
        };
        let (ct, want) = match result {
            Ok(pair) => pair,
            Err(BgvError::NoiseEstimateExceeded { .. } | BgvError::ModulusChainExhausted { .. }) => continue,
            Err(other) => panic!("step {step}: {other}"),
        };
        if op == 1 {
            products += 1;
        }
        let got = slots.decode_plaintext(&context.decrypt_checked(&ct, &secret).unwrap()).unwrap();
        assert_eq!(got, want, "m = {}, t = {n}, step {step}, op {op}, level {}", slots.factors().m, ct.level());
        for poly in ct.polys() {
            words.push(backend.download(poly).unwrap().as_slice().to_vec());
        }
        pool.push((ct, want));
    }
    (words, products)
}

fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    a.iter().zip(b).map(|(&x, &y)| ((u128::from(x) + u128::from(y)) % u128::from(n)) as u64).collect()
}

/// Repeated squaring of random slots under automatic switching until a product is refused:
/// every power decrypts to the slot-wise power, and the chain reaches the set's
/// `estimated_depth`. Returns the number of squarings made.
pub fn squarings_to_depth<B: BgvBackend>(backend: B, params: &Arc<BgvParameters>, rng_seed: u64) -> usize {
    let slots = ExtensionSlots::for_params(params.as_ref()).unwrap();
    let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
    let g_poly = slots.slot_modulus().to_vec();
    let context = BgvContext::new(backend, params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let mut values: Vec<Vec<u64>> = (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect();
    let mut ct =
        context.encrypt_with_seed(&slots.encode_plaintext(params, &values).unwrap(), &public, &seed(4)).unwrap();
    let mut squarings = 0;
    loop {
        match context.mul_relin(&ct, &ct, &relin) {
            Ok(square) => ct = square,
            Err(BgvError::NoiseEstimateExceeded { .. } | BgvError::ModulusChainExhausted { .. }) => break,
            Err(other) => panic!("squaring {}: {other}", squarings + 1),
        }
        squarings += 1;
        values = values.iter().map(|v| mul_mod(v, v, &g_poly, n)).collect();
        let got = slots.decode_plaintext(&context.decrypt_checked(&ct, &secret).unwrap()).unwrap();
        assert_eq!(got, values, "m = {}, t = {n}: square {squarings} at level {}", slots.factors().m, ct.level());
    }
    assert!(
        squarings >= params.estimated_depth(),
        "m = {}, t = {n}: {squarings} squarings, estimated depth {}",
        slots.factors().m,
        params.estimated_depth()
    );
    squarings
}

/// A context whose slots hold random constants of `Z_t` (`t = p^e`), encrypted, with its keys:
/// the setting of digit extraction (after coefficients-to-slots, each slot holds a constant).
pub struct ConstantSlots<B: BgvBackend> {
    pub slots: ExtensionSlots,
    pub context: BgvContext<B>,
    pub secret: bgv_encrypt::SecretKey<B>,
    pub relin: bgv_encrypt::RelinKey<B>,
    pub values: Vec<u64>,
    pub ciphertext: Ciphertext<B>,
}

impl<B: BgvBackend> ConstantSlots<B> {
    pub fn new(backend: B, params: &Arc<BgvParameters>, rng_seed: u64) -> Self {
        let slots = ExtensionSlots::for_params(params.as_ref()).unwrap();
        let context = BgvContext::new(backend, params).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let mut rng = StdRng::seed_from_u64(rng_seed);
        let values: Vec<u64> = (0..slots.slot_count()).map(|_| rng.gen_range(0..slots.modulus())).collect();
        let encoded: Vec<Vec<u64>> = values.iter().map(|&y| constant_slot(&slots, y)).collect();
        let plain = slots.encode_plaintext(params, &encoded).unwrap();
        let ciphertext = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
        Self { slots, context, secret, relin, values, ciphertext }
    }

    /// The slots of `ct`, a ciphertext of `context`, decrypted and checked against `want` (one
    /// constant a slot); returns its words.
    pub fn check(&self, context: &BgvContext<B>, ct: &Ciphertext<B>, want: impl Fn(u64) -> u64) -> Vec<Vec<u64>> {
        let slots = ExtensionSlots::for_params(context.params().as_ref()).unwrap();
        let got = slots.decode_plaintext(&context.decrypt_checked(ct, &self.secret).unwrap()).unwrap();
        let expected: Vec<Vec<u64>> = self.values.iter().map(|&y| constant_slot(&slots, want(y))).collect();
        assert_eq!(got, expected, "m = {}, t = {}", slots.factors().m, slots.modulus());
        let backend = context.backend();
        ct.polys().iter().map(|poly| backend.download(poly).unwrap().as_slice().to_vec()).collect()
    }
}

/// The slot element `y` (a constant of the slot's ring).
fn constant_slot(slots: &ExtensionSlots, y: u64) -> Vec<u64> {
    (0..slots.slot_degree()).map(|k| if k == 0 { y } else { 0 }).collect()
}

/// The lowest base-`p` digit of slots holding constants of `Z_{p^e}` (`t = p^e`), by the
/// Chen-Han polynomial (`rlwe::digit_extraction`) evaluated with Paterson-Stockmeyer: every
/// slot decrypts to the constant `y mod p`. Returns the result's words and the levels spent.
pub fn lowest_digits_of_constant_slots<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    p: u64,
    e: u32,
    rng_seed: u64,
) -> (Vec<Vec<u64>>, usize) {
    let setup = ConstantSlots::new(backend, params, rng_seed);
    assert_eq!(setup.slots.modulus(), p.pow(e));
    let digit = rlwe::digit_extraction::lowest_digit_polynomial(p, e).unwrap();
    let result = setup.context.evaluate_polynomial(&setup.ciphertext, &digit, &setup.relin).unwrap();
    let words = setup.check(&setup.context, &result, |y| y % p);
    (words, setup.ciphertext.level() - result.level())
}

/// One step of digit extraction on slots holding constants `y` of `Z_{2^8}` over `Phi_1705`:
/// `y - F(y)` with `F` the lowest-digit polynomial (a multiple of 2 in every slot), then the
/// plaintext space divided by 2: every slot decrypts to the constant `floor(y / 2)` of
/// `Z_{2^7}`. Returns the result's words.
pub fn digit_step_on_constant_slots<B: BgvBackend>(backend: B, rng_seed: u64) -> Vec<Vec<u64>> {
    let params = super::phi_m::params(1705, &[60, 50, 50, 50, 50, 50], &[60], 256);
    let setup = ConstantSlots::new(backend.clone(), &params, rng_seed);
    let target = BgvContext::new(backend, &BgvParameters::from_core(params.core(), 128).unwrap()).unwrap();
    let (context, ct) = (&setup.context, &setup.ciphertext);
    let digit = rlwe::digit_extraction::lowest_digit_polynomial(2, 8).unwrap();
    let low = context.evaluate_polynomial(ct, &digit, &setup.relin).unwrap();
    let divided = context.divide_plaintext_space(&context.sub(ct, &low).unwrap(), &target).unwrap();
    setup.check(&target, &divided, |y| y / 2)
}

/// Three digits removed (`bgv_encrypt::digit_removal::DigitRemoval`) from slots holding
/// constants `y` of `Z_{2^8}` over `Phi_1705`: every slot decrypts to `floor(y / 8)` in
/// `Z_{2^5}`. Returns the result's words.
pub fn digits_removed_from_constant_slots<B: BgvBackend>(backend: B, rng_seed: u64) -> Vec<Vec<u64>> {
    use bgv_encrypt::digit_removal::DigitRemoval;
    let params = super::phi_m::params(1705, &[60, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50, 50], &[60], 256);
    let setup = ConstantSlots::new(backend.clone(), &params, rng_seed);
    let context = &setup.context;
    let removal = DigitRemoval::new(context, 2, 3).unwrap();
    assert_eq!(removal.target().params().plaintext_modulus(), 32);
    let lower = removal.relin_keys_from_seed(&setup.secret, &seed(20)).unwrap();
    assert_eq!(lower.len(), 2);
    let result = removal.apply(context, &setup.ciphertext, &setup.relin, &lower).unwrap();
    let words = setup.check(removal.target(), &result, |y| y / 8);
    // The rounds belong to their context and take one key per lower round.
    let other = BgvContext::new(backend, &super::phi_m::params(1705, &[60, 50, 50], &[60], 256)).unwrap();
    let ct = &setup.ciphertext;
    assert!(matches!(removal.apply(&other, ct, &setup.relin, &lower), Err(BgvError::ParameterMismatch { .. })));
    assert!(matches!(removal.apply(context, ct, &setup.relin, &lower[..1]), Err(BgvError::InvalidParameter { .. })));
    for (p, digits) in [(2, 8), (3, 1), (2, 0)] {
        assert!(DigitRemoval::new(context, p, digits).is_err(), "p = {p}, {digits} digits");
    }
    words
}
