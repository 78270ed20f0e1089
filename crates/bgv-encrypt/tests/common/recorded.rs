//! The circuits that the separate BGV over `Phi_m` (the `cyclotomic` crate's, before the one
//! BGV ran over these rings) recorded, before it was removed: the same primes, plaintexts
//! (SplitMix64), slot encodings and circuit through the one BGV give the same record of the
//! decrypted plaintexts with their levels and correction factors. The phases are not compared:
//! the one BGV samples keys and encryptions under its own indices and switches keys with the
//! core's gadget, so its noise differs.

use bgv_encrypt::{BatchEncoder, BgvBackend, BgvContext, BgvParametersBuilder, Ciphertext, CoefficientEncoder};

use super::seed;

/// The recorded rings with three 50-bit primes: `(m, t, slots, record)`.
pub const RECORDS: [(usize, u64, bool, u64); 9] = [
    (63, 257, false, 0x93daf6dfa79536f0),
    (105, 65537, false, 0x5ae45f3fbee375bc),
    (127, 65537, false, 0x9017af3d10ee57e8),
    (255, 17, false, 0x352f593afc89c372),
    (315, 2, false, 0x313652822dd16507),
    (1023, 2, false, 0xc2b7fb2b55d0146),
    (63, 127, true, 0x4a93a6dd525960e4),
    (105, 211, true, 0x94e9afdb912e7141),
    (255, 1021, true, 0xd5427e9e254d4d34),
];

/// The record of HElib's `m = 21845` with four 50-bit primes and `t = 257`.
pub const HELIB_RECORD: u64 = 0x0a0b_cbf9_cd2d_0456;

#[derive(Debug, Clone, Copy)]
pub struct Fnv(pub u64);

impl Fnv {
    pub fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    pub fn words(&mut self, words: &[u64]) {
        for w in words {
            for b in w.to_le_bytes() {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
}

pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    pub fn plain(&mut self, n: usize, t: u64) -> Vec<u64> {
        (0..n).map(|_| self.next() % t).collect()
    }
}

/// The recorded circuit (recorded_circuits.rs, `run_circuit`) through the one BGV: the hash of
/// every stage's decrypted plaintext, level and correction factor.
pub fn plaintext_record<B: BgvBackend>(backend: B, m: usize, t: u64, count: usize, slots: bool) -> u64 {
    let params = BgvParametersBuilder::new_cyclotomic(m)
        .ciphertext_moduli_bits(&vec![50; count])
        .special_moduli_bits(&[58])
        .plaintext_modulus(t)
        .allow_insecure(true)
        .build()
        .unwrap();
    // The old BGV's primes (`BgvParameters::generate(m, t, 50, count, 58)`).
    assert_eq!(params.ciphertext_moduli(), &poly::bluestein::bluestein_primes(50, m as u64, count).unwrap()[..]);
    assert_eq!(params.special_moduli(), &poly::bluestein::bluestein_primes(58, m as u64, 1).unwrap()[..]);
    let context = BgvContext::new(backend, &params).unwrap();
    let n = params.degree();
    let mut rng = SplitMix(m as u64 * 1_000_003 + t);
    let (x, y, z) = (rng.plain(n, t), rng.plain(n, t), rng.plain(n, t));
    let coefficient = CoefficientEncoder::new(&params);
    let encode = |values: &[u64]| {
        if slots {
            BatchEncoder::new(&params).unwrap().encode(values).unwrap()
        } else {
            coefficient.encode(values).unwrap()
        }
    };
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &seed(1)).unwrap();
    let relin = context.relin_key_from_seed(&secret, &seed(1)).unwrap();
    let cx = context.encrypt_with_seed(&encode(&x), &public, &seed(2)).unwrap();
    let cy = context.encrypt_with_seed(&encode(&y), &public, &seed(4)).unwrap();
    let seeded = context.encrypt_symmetric_with_seeds(&encode(&z), &secret, &seed(3), &seed(5)).unwrap();
    let cz = context.expand(&seeded).unwrap();
    let sum = context.add(&cx, &cy).unwrap();
    let tensor = context.mul(&cx, &cy).unwrap();
    let relinearized = context.relinearize(&tensor, &relin).unwrap();
    let mut stages: Vec<Ciphertext<B>> = vec![cx, cz, sum, tensor, relinearized];
    if count > 1 {
        let low = context.mod_switch_to_next(&stages[4]).unwrap();
        let again = context.mul_relin(&low, &stages[1], &relin).unwrap();
        let across = context.add(&again, &stages[0]).unwrap();
        let bottom = context.mod_switch_to(&across, 0).unwrap();
        stages.extend([low, again, across, bottom]);
    }
    let mut plaintexts = Fnv::new();
    for ct in &stages {
        let plain = context.decrypt(ct, &secret).unwrap();
        plaintexts.words(plain.coefficients());
        plaintexts.words(&[ct.level() as u64, ct.state().correction_factor()]);
    }
    println!("m = {m}, t = {t}, slots = {slots}: {:x}", plaintexts.0);
    plaintexts.0
}
