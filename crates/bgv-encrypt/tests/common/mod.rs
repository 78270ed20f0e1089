//! Test bodies shared by the CPU tests and the GPU tests (generic over the backend).
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

pub mod api;
pub mod extension;
pub mod hoisting;
pub mod hypercube;
pub mod phi_m;
pub mod polynomial;
pub mod raise;
pub mod recorded;
pub mod switching;
pub mod wire;

use std::sync::Arc;

use bgv_encrypt::{
    BatchEncoder, BgvBackend, BgvContext, BgvError, BgvParameters, BgvParametersBuilder, Ciphertext,
    CoefficientEncoder, GaloisKeys, ModSwitching, RelinKey, SecretKey,
};
use poly::Seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

pub use hegpu_test_support::slots::{add_mod, mul_mod, random_slots, rotate_rows_left, slot_op, sub_mod};

pub fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// Small parameters: `N = 2^log_n`, ciphertext primes of `bits`, `special` special primes, `t`.
pub fn small_params(log_n: u32, bits: &[u32], special: &[u32], t: u64) -> Arc<BgvParameters> {
    with_moduli(BgvParametersBuilder::new(1 << log_n), bits, special, t)
}

/// `builder`'s ring with ciphertext primes of `bits`, special primes of `special` and `t`,
/// below the security bound allowed.
pub fn with_moduli(builder: BgvParametersBuilder, bits: &[u32], special: &[u32], t: u64) -> Arc<BgvParameters> {
    builder
        .ciphertext_moduli_bits(bits)
        .special_moduli_bits(special)
        .plaintext_modulus(t)
        .allow_insecure(true)
        .build()
        .unwrap()
}

/// A context's keys from fixed seeds.
pub struct Keys<B: BgvBackend> {
    pub secret: SecretKey<B>,
    pub public: bgv_encrypt::PublicKey<B>,
    pub relin: RelinKey<B>,
    pub galois: GaloisKeys<B>,
}

pub fn keys<B: BgvBackend>(context: &BgvContext<B>) -> Keys<B> {
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let elements = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()];
    let galois = context.galois_keys_from_seed(&secret, &elements, &seed(4)).unwrap();
    Keys { secret, public, relin, galois }
}

/// A random circuit of `depth` multiplications (with additions, subtractions, plaintext
/// operations and rotations between them) under [`ModSwitching::Auto`] (or manual switching
/// after each product when `manual`), checked slot by slot against plaintext arithmetic after
/// every step, and the noise budget positive at the end. Returns the final level.
pub fn random_circuit<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    depth: usize,
    rng_seed: u64,
    manual: bool,
) -> usize {
    let mode = if manual { ModSwitching::Manual } else { ModSwitching::Auto };
    let context = BgvContext::new(backend, params).unwrap().with_mod_switching(mode);
    let k = keys(&context);
    let encoder = BatchEncoder::new(params).unwrap();
    let (n, t) = (params.degree(), params.plaintext_modulus());
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let encrypt = |rng: &mut StdRng, index: u8| {
        let values = random_slots(rng, n, t);
        let ct = context.encrypt_with_seed(&encoder.encode(&values).unwrap(), &k.public, &seed(10 + index)).unwrap();
        (ct, values)
    };
    let check = |ct: &Ciphertext<B>, want: &[u64], step: &str| {
        let got = encoder.decode(&context.decrypt(ct, &k.secret).unwrap()).unwrap();
        assert!(got == want, "{step}: level {}, wrong slots (first {:?} vs {:?})", ct.level(), &got[..4], &want[..4]);
    };
    let (mut acc, mut acc_values) = encrypt(&mut rng, 0);
    for step in 0..depth {
        let (other, other_values) = encrypt(&mut rng, 1 + step as u8);
        // A linear step first: one of add, sub, plaintext add/mul, rotation.
        match rng.gen_range(0..5) {
            0 => {
                acc = context.add(&acc, &other).unwrap();
                acc_values = slot_op(&acc_values, &other_values, t, add_mod);
            }
            1 => {
                acc = context.sub(&acc, &other).unwrap();
                acc_values = slot_op(&acc_values, &other_values, t, sub_mod);
            }
            2 => {
                let plain = random_slots(&mut rng, n, t);
                acc = context.add_plain(&acc, &encoder.encode(&plain).unwrap()).unwrap();
                acc_values = slot_op(&acc_values, &plain, t, add_mod);
            }
            3 => {
                // A small constant in every slot: the plaintext polynomial is that constant, so
                // the noise grows by its size only (a general plaintext costs about a product).
                let constant = rng.gen_range(0..4);
                let plain = vec![constant; n];
                acc = context.mul_plain(&acc, &encoder.encode(&plain).unwrap()).unwrap();
                acc_values = slot_op(&acc_values, &plain, t, mul_mod);
            }
            _ => {
                acc = context.rotate_rows(&acc, 1, &k.galois).unwrap();
                acc_values = rotate_rows_left(&acc_values);
            }
        }
        check(&acc, &acc_values, &format!("step {step} (linear)"));
        acc = context.mul_relin(&acc, &other, &k.relin).unwrap();
        acc_values = slot_op(&acc_values, &other_values, t, mul_mod);
        if manual && acc.level() > 0 {
            acc = context.mod_switch_to_next(&acc).unwrap();
        }
        check(&acc, &acc_values, &format!("step {step} (product)"));
    }
    assert!(context.noise_budget(&acc, &k.secret).unwrap() > 0);
    acc.level()
}

/// The seed `[byte; 32]` with `salt`'s bytes xored in.
pub fn salted(byte: u8, salt: u64) -> Seed {
    let salt = salt.to_le_bytes();
    Seed::from(core::array::from_fn(|i| byte ^ salt[i % 8]))
}

/// Everything a session computes, downloaded to the host.
pub fn session<B: BgvBackend>(backend: B, params: &Arc<BgvParameters>, salt: u64) -> Vec<Vec<u64>> {
    let seed = |byte: u8| salted(byte, salt);
    let context = BgvContext::new(backend.clone(), params).unwrap();
    let manual = BgvContext::new(backend.clone(), params).unwrap().with_mod_switching(ModSwitching::Manual);
    let encoder = CoefficientEncoder::new(params);
    let (n, t) = (params.degree() as u64, params.plaintext_modulus());
    let sk = context.secret_key_from_seed(&seed(1)).unwrap();
    let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
    let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
    let elements = [context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()];
    let gk = context.galois_keys_from_seed(&sk, &elements, &seed(9)).unwrap();
    let a = encoder.encode(&(0..n).map(|i| (i * 31 + 5 + salt % 1000) % t).collect::<Vec<_>>()).unwrap();
    let b = encoder.encode(&(0..n).map(|i| (i * i + 1 + salt % 997) % t).collect::<Vec<_>>()).unwrap();
    let small = encoder.encode(&[2, 1]).unwrap();
    let ca = context.encrypt_with_seed(&a, &pk, &seed(4)).unwrap();
    let cb = context.encrypt_with_seed(&b, &pk, &seed(5)).unwrap();
    let sym = context.expand(&context.encrypt_symmetric_with_seeds(&b, &sk, &seed(6), &seed(7)).unwrap()).unwrap();
    let product = context.mul(&ca, &cb).unwrap();
    let relin = context.relinearize(&product, &rk).unwrap();
    let square = context.square_relin(&sym, &rk).unwrap();
    let mixed =
        context.mul_plain(&context.add_plain(&context.sub(&relin, &square).unwrap(), &a).unwrap(), &small).unwrap();
    let mut cts: Vec<Ciphertext<B>> = vec![ca, cb, sym, product, relin, square, mixed];
    // Down the chain: switched ciphertexts, and at each level a relinearized product, a
    // rotation, a row swap and a sum with a top-level ciphertext of another factor.
    let mut low = context.duplicate(&cts[4]).unwrap();
    while low.level() > 0 {
        low = context.mod_switch_to_next(&low).unwrap();
        let fresh = context.encrypt_with_seed(&b, &pk, &seed(10 + low.level() as u8)).unwrap();
        // A product at every level, level 0 included: Manual, since the estimate refuses
        // some of them under Auto (the words are the same: neither operand is a product).
        cts.push(manual.mul_relin(&low, &fresh, &rk).unwrap());
        cts.push(context.rotate_rows(&low, 1, &gk).unwrap());
        cts.push(context.rotate_columns(&low, &gk).unwrap());
        cts.push(context.add(&fresh, &low).unwrap());
        cts.push(context.duplicate(&low).unwrap());
    }

    let mut out = Vec::new();
    let (pk_b, pk_a) = pk.polys();
    out.push(backend.download(pk_b).unwrap().into_vec());
    out.push(backend.download(pk_a).unwrap().into_vec());
    for (kb, ka) in rk.digits().iter().chain(gk.key(elements[0]).unwrap()) {
        out.push(backend.download(kb).unwrap().into_vec());
        out.push(backend.download(ka).unwrap().into_vec());
    }
    for ct in &cts {
        out.push(vec![ct.level() as u64, ct.state().correction_factor()]);
        for p in context.download(ct).unwrap() {
            out.push(p.into_vec());
        }
        let decrypted = context.decrypt(ct, &sk).unwrap().coefficients().to_vec();
        // The plaintext left on the backend holds the same words.
        let resident = context.decrypt_resident(ct, &sk).unwrap().to_plaintext().unwrap();
        assert_eq!(resident.coefficients(), &decrypted[..], "decrypt_resident differs from decrypt");
        out.push(decrypted);
        out.push(match context.noise_budget(ct, &sk) {
            Ok(budget) => vec![u64::from(budget)],
            Err(BgvError::NoiseBudgetExhausted { noise_bits, .. }) => vec![1 << 20, noise_bits],
            Err(other) => panic!("{other}"),
        });
    }
    out
}

/// The GPU backend of the shared test device, or `None` when this test is skipped (no device).
#[cfg(feature = "cuda")]
pub fn gpu_backend() -> Option<poly_cuda::GpuBackend> {
    hegpu_test_support::gpu_cases::device().map(poly_cuda::GpuBackend::from_device)
}

/// Asserts that the GPU's records are the CPU's, naming the first that differs.
pub fn assert_same<T: PartialEq>(cpu: &[T], gpu: &[T], what: &str) {
    assert_eq!(cpu.len(), gpu.len(), "{what}: number of records");
    for (i, (c, g)) in cpu.iter().zip(gpu).enumerate() {
        assert!(c == g, "{what}: record {i} differs between CPU and GPU");
    }
}
