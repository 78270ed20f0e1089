//! BGV over the rings `Z_q[x]/Phi_m`, generic over the backend: plaintext arithmetic modulo
//! `(Phi_m, t)` computed here independently (schoolbook products and reduction by `Phi_m` in
//! `u128`), and the circuit every backend runs against it, returning its words so that the GPU
//! test can compare them with the CPU's.

use std::sync::Arc;

use bgv_encrypt::{BgvBackend, BgvContext, BgvParameters, BgvParametersBuilder, Ciphertext, CoefficientEncoder};
use poly::cyclotomic::{cyclotomic_polynomial, gcd};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use super::seed;

/// `Z_t[x]/Phi_m`, by hand.
pub struct PlainRing {
    m: usize,
    t: u64,
    /// `Phi_m`, monic, low coefficients first.
    phi: Vec<i64>,
}

impl PlainRing {
    pub fn new(m: usize, t: u64) -> Self {
        Self { m, t, phi: cyclotomic_polynomial(m as u64).unwrap() }
    }

    pub fn degree(&self) -> usize {
        self.phi.len() - 1
    }

    /// Any polynomial with coefficients in `[0, t)` reduced modulo `(Phi_m, t)`: long division by
    /// the monic `Phi_m`, top coefficient first.
    pub fn reduce(&self, mut a: Vec<u64>) -> Vec<u64> {
        let (n, t) = (self.degree(), u128::from(self.t));
        for top in (n..a.len()).rev() {
            let c = u128::from(a[top]);
            if c == 0 {
                continue;
            }
            // a -= c x^(top - n) Phi_m.
            for (j, &p) in self.phi.iter().enumerate() {
                let i = top - n + j;
                let p = (p.rem_euclid(self.t as i64)) as u128;
                a[i] = ((u128::from(a[i]) + t - c * p % t) % t) as u64;
            }
            debug_assert_eq!(a[top], 0);
        }
        a.resize(n, 0);
        a
    }

    pub fn mul(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        let t = u128::from(self.t);
        let mut out = vec![0u64; a.len() + b.len()];
        for (i, &x) in a.iter().enumerate() {
            for (j, &y) in b.iter().enumerate() {
                out[i + j] = ((u128::from(out[i + j]) + u128::from(x) * u128::from(y)) % t) as u64;
            }
        }
        self.reduce(out)
    }

    pub fn add(&self, a: &[u64], b: &[u64]) -> Vec<u64> {
        a.iter().zip(b).map(|(&x, &y)| ((u128::from(x) + u128::from(y)) % u128::from(self.t)) as u64).collect()
    }

    pub fn neg(&self, a: &[u64]) -> Vec<u64> {
        a.iter().map(|&x| (self.t - x) % self.t).collect()
    }

    /// `a(x^g) mod (Phi_m, t)`: `x^i -> x^(i g mod m)` (as `x^m = 1` modulo `Phi_m`), reduced.
    pub fn automorphism(&self, a: &[u64], g: u64) -> Vec<u64> {
        let mut out = vec![0u64; self.m];
        for (i, &c) in a.iter().enumerate() {
            let k = (i as u64 * g % self.m as u64) as usize;
            out[k] = ((u128::from(out[k]) + u128::from(c)) % u128::from(self.t)) as u64;
        }
        self.reduce(out)
    }

    pub fn random(&self, rng: &mut StdRng) -> Vec<u64> {
        (0..self.degree()).map(|_| rng.gen_range(0..self.t)).collect()
    }
}

/// Parameters over `Phi_m`: ciphertext primes of `bits`, special primes of `special`, `t`.
pub fn params(m: usize, bits: &[u32], special: &[u32], t: u64) -> Arc<BgvParameters> {
    super::with_moduli(BgvParametersBuilder::new_cyclotomic(m), bits, special, t)
}

/// The words a run leaves: the keys' and every checked ciphertext's polynomials, with its level
/// and correction factor, and its decryption.
pub struct Record<'a, B: BgvBackend> {
    context: &'a BgvContext<B>,
    pub words: Vec<Vec<u64>>,
}

impl<B: BgvBackend> Record<'_, B> {
    fn poly<R: poly::Representation>(&mut self, poly: &B::Poly<R>) {
        self.words.push(self.context.backend().download(poly).unwrap().into_vec());
    }

    fn ciphertext(&mut self, ct: &Ciphertext<B>, decrypted: &[u64]) {
        self.words.push(vec![ct.level() as u64, ct.state().correction_factor()]);
        for p in self.context.download(ct).unwrap() {
            self.words.push(p.into_vec());
        }
        self.words.push(decrypted.to_vec());
    }
}

/// The circuit of the brief over `Phi_m` with plaintext modulus `t` on `backend`, with four
/// ciphertext primes and special primes of `special` bits (one: a digit per prime; two: hybrid
/// key switching with digits of two primes): fresh public-
/// and secret-key encryptions, add/sub/negate, plaintext add/mul, multiplication with
/// relinearization, modulus switching down the whole chain, a product between levels, the
/// noise budget, and automorphisms by units (2, `m - 1` and a random one), each decryption
/// checked against [`PlainRing`]. Returns the words of keys and ciphertexts.
pub fn phi_m_circuit<B: BgvBackend>(backend: B, m: usize, t: u64, special: &[u32]) -> Vec<Vec<u64>> {
    let ring = PlainRing::new(m, t);
    let p = params(m, &[60, 45, 45, 45], special, t);
    assert_eq!(p.core().digit_count(), 4usize.div_ceil(special.len()));
    let context = BgvContext::new(backend, &p).unwrap();
    let n = p.degree();
    assert_eq!(n, ring.degree());
    let encoder = CoefficientEncoder::new(&p);
    let mut rng = StdRng::seed_from_u64(m as u64 * 7 + t);
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let what = |op: &str| format!("m = {m}, t = {t}, {} special primes: {op}", special.len());
    let mut record = Record { context: &context, words: Vec::new() };
    let check = |record: &mut Record<'_, B>, ct: &Ciphertext<B>, want: &[u64], op: &str| {
        let got = encoder.decode(&context.decrypt(ct, &secret).unwrap()).unwrap();
        assert_eq!(got, want, "{}", what(op));
        record.ciphertext(ct, &got);
    };
    let (pk_b, pk_a) = public.polys();
    record.poly(pk_b);
    record.poly(pk_a);
    for (kb, ka) in relin.digits() {
        record.poly(kb);
        record.poly(ka);
    }

    let (a, b, c) = (ring.random(&mut rng), ring.random(&mut rng), ring.random(&mut rng));
    let ct_a = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &public, &seed(10)).unwrap();
    let ct_b = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &public, &seed(11)).unwrap();
    let seeded =
        context.encrypt_symmetric_with_seeds(&encoder.encode(&c).unwrap(), &secret, &seed(12), &seed(13)).unwrap();
    let ct_c = context.expand(&seeded).unwrap();
    check(&mut record, &ct_a, &a, "public-key encryption");
    check(&mut record, &ct_b, &b, "public-key encryption");
    check(&mut record, &ct_c, &c, "secret-key encryption");
    let fresh_budget = context.noise_budget(&ct_a, &secret).unwrap();
    assert!(fresh_budget > 0, "{}", what("fresh budget"));
    record.words.push(vec![u64::from(fresh_budget)]);

    check(&mut record, &context.add(&ct_a, &ct_b).unwrap(), &ring.add(&a, &b), "add");
    check(&mut record, &context.sub(&ct_a, &ct_b).unwrap(), &ring.add(&a, &ring.neg(&b)), "sub");
    check(&mut record, &context.negate(&ct_a).unwrap(), &ring.neg(&a), "negate");
    let plain_c = encoder.encode(&c).unwrap();
    check(&mut record, &context.add_plain(&ct_a, &plain_c).unwrap(), &ring.add(&a, &c), "add_plain");
    check(&mut record, &context.mul_plain(&ct_a, &plain_c).unwrap(), &ring.mul(&a, &c), "mul_plain");

    // a b, relinearized, then down the chain one level at a time.
    let ab = ring.mul(&a, &b);
    let product = context.mul_relin(&ct_a, &ct_b, &relin).unwrap();
    assert_eq!(product.size(), 2);
    check(&mut record, &product, &ab, "mul_relin");
    let product_budget = context.noise_budget(&product, &secret).unwrap();
    assert!(product_budget < fresh_budget, "{}", what("a product loses budget"));
    let unrelinearized = context.mul(&ct_a, &ct_b).unwrap();
    assert_eq!(unrelinearized.size(), 3);
    check(&mut record, &unrelinearized, &ab, "mul (three polynomials)");
    let mut down = context.duplicate(&product).unwrap();
    while down.level() > 0 {
        down = context.mod_switch_to_next(&down).unwrap();
        check(&mut record, &down, &ab, &format!("mod switch to level {}", down.level()));
    }
    // (a b) c with a b one level down and c at the top (BringDown), then a second product.
    let switched = context.mod_switch_to_next(&product).unwrap();
    let abc = context.mul_relin(&switched, &ct_c, &relin).unwrap();
    assert_eq!(abc.level(), switched.level());
    let abc_plain = ring.mul(&ab, &c);
    check(&mut record, &abc, &abc_plain, "product between levels");
    let abc_plus = context.add(&abc, &ct_a).unwrap();
    check(&mut record, &abc_plus, &ring.add(&abc_plain, &a), "add between levels");

    // Automorphisms by units: 2 (m is odd), m - 1 (x -> x^-1) and a random unit.
    let mut units = vec![2u64, m as u64 - 1];
    loop {
        let g = rng.gen_range(3..m as u64);
        if gcd(g as usize, m) == 1 {
            units.push(g);
            break;
        }
    }
    let galois = context.galois_keys_from_seed(&secret, &units, &seed(4)).unwrap();
    for &g in &units {
        for (kb, ka) in galois.key(g).unwrap() {
            record.poly(kb);
            record.poly(ka);
        }
        let rotated = context.apply_galois(&ct_a, g, &galois).unwrap();
        check(&mut record, &rotated, &ring.automorphism(&a, g), &format!("sigma_{g}"));
        let rotated_product = context.apply_galois(&abc, g, &galois).unwrap();
        check(&mut record, &rotated_product, &ring.automorphism(&abc_plain, g), &format!("sigma_{g} below the top"));
    }
    // The identity needs no key.
    check(&mut record, &context.apply_galois(&ct_a, 1, &galois).unwrap(), &a, "sigma_1");
    record.words
}

/// HElib's `m = 21845` (`phi(m) = 2^14`, not a power-of-two ring) on `backend`: encryption, a
/// product with relinearization, a modulus switch and `x -> x^2`, against the plaintext
/// arithmetic. Returns the ciphertexts' words.
pub fn helib_ring_circuit<B: BgvBackend>(backend: B) -> Vec<Vec<u64>> {
    let (m, t) = (21845usize, 65537u64);
    let ring = PlainRing::new(m, t);
    let p = params(m, &[60, 50], &[60], t);
    let context = BgvContext::new(backend, &p).unwrap();
    let encoder = CoefficientEncoder::new(&p);
    let mut rng = StdRng::seed_from_u64(21845);
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
    let galois = context.galois_keys_from_seed(&secret, &[2], &seed(4)).unwrap();
    let (a, b) = (ring.random(&mut rng), ring.random(&mut rng));
    let mut record = Record { context: &context, words: Vec::new() };
    let check = |record: &mut Record<'_, B>, ct: &Ciphertext<B>, want: &[u64]| {
        let got = encoder.decode(&context.decrypt(ct, &secret).unwrap()).unwrap();
        assert_eq!(got, want);
        record.ciphertext(ct, &got);
    };
    let ct_a = context.encrypt_with_seed(&encoder.encode(&a).unwrap(), &public, &seed(10)).unwrap();
    let ct_b = context.encrypt_with_seed(&encoder.encode(&b).unwrap(), &public, &seed(11)).unwrap();
    check(&mut record, &ct_a, &a);
    let product = context.mul_relin(&ct_a, &ct_b, &relin).unwrap();
    let ab = ring.mul(&a, &b);
    check(&mut record, &product, &ab);
    let down = context.mod_switch_to_next(&product).unwrap();
    check(&mut record, &down, &ab);
    check(&mut record, &context.apply_galois(&down, 2, &galois).unwrap(), &ring.automorphism(&ab, 2));
    record.words
}
