#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The results of `cyclotomic::bgv`'s circuits, recorded before BGV over `Z_Q[x]/Phi_m` moves
//! into the one BGV (issue: ring kinds in the ring layer). A BGV that runs over a cyclotomic
//! ring context must reproduce them: the same parameters, seeds, plaintexts and circuit give
//! the same decrypted plaintexts (the circuit's outputs) and, with the same sampling (secret,
//! errors and `a` drawn as `cyclotomic::bgv` draws them), the same phases, that is the same
//! noise, coefficient for coefficient.
//!
//! Each record is an FNV-1a hash (64 bits) of the values, so that a change anywhere shows; the
//! test prints the values it computes, to compare on a failure.

use cyclotomic::bgv::{Bgv, BgvParameters, Ciphertext, SecretKey, SlotEncoder};
use poly::Seed;

/// FNV-1a over the little-endian bytes of the words: a record of a vector in one number.
#[derive(Debug, Clone, Copy)]
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }

    fn words(&mut self, words: &[u64]) {
        for w in words {
            for b in w.to_le_bytes() {
                self.0 = (self.0 ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3);
            }
        }
    }
}

/// Plaintexts from SplitMix64 (defined here, so that the record does not hang on a `rand`
/// version's generator).
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn plain(&mut self, n: usize, t: u64) -> Vec<u64> {
        (0..n).map(|_| self.next() % t).collect()
    }
}

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// The phase's centered coefficients as words (two's complement of each coefficient modulo
/// 2^128, low word then high word; the phases fit 128 bits at these sizes).
fn phase_words(bgv: &Bgv, ct: &Ciphertext, sk: &SecretKey) -> Vec<u64> {
    let phase = bgv.phase_coefficients(ct, sk).unwrap();
    phase
        .iter()
        .flat_map(|x| {
            let v = i128::try_from(x.clone()).unwrap() as u128;
            [v as u64, (v >> 64) as u64]
        })
        .collect()
}

/// The records of one circuit: the hash of the decrypted plaintexts of every stage and the
/// hash of the phases of every stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Record {
    plaintexts: u64,
    phases: u64,
}

/// `bgv_matches_plaintext_arithmetic`'s circuit (`cyclotomic::bgv`'s unit tests): keys from
/// seed 1; `x`, `y` encrypted under the public key (seed 2, counters 0 and 1), `z` symmetrically
/// (seed 3, counter 0); stages `x`, `z`, `x + y`, the tensor `x y`, relinearized, switched down a
/// level, `x y z` at that level, `x y z + x` across levels, and that switched to level 0. With
/// `slots`, the plaintexts are slot encodings ([`SlotEncoder`]) of the random values.
fn run_circuit(m: usize, t: u64, count: usize, slots: bool) -> Record {
    let bgv = Bgv::new(BgvParameters::generate(m, t, 50, count, 58).unwrap()).unwrap();
    let n = bgv.degree();
    let mut rng = SplitMix(m as u64 * 1_000_003 + t);
    let (mut x, mut y, mut z) = (rng.plain(n, t), rng.plain(n, t), rng.plain(n, t));
    if slots {
        let encoder = SlotEncoder::new(m, t).unwrap();
        x = encoder.encode(&x).unwrap();
        y = encoder.encode(&y).unwrap();
        z = encoder.encode(&z).unwrap();
    }
    let (sk, pk, rk) = bgv.keygen(&seed(1)).unwrap();
    let cx = bgv.encrypt(&pk, &x, &seed(2), 0).unwrap();
    let cy = bgv.encrypt(&pk, &y, &seed(2), 1).unwrap();
    let cz = bgv.encrypt_symmetric(&sk, &z, &seed(3), 0).unwrap();
    let sum = bgv.add(&cx, &cy).unwrap();
    let tensor = bgv.mul(&cx, &cy).unwrap();
    let relin = bgv.relinearize(&tensor, &rk).unwrap();
    let mut stages = vec![cx.clone(), cz.clone(), sum, tensor, relin.clone()];
    if count > 1 {
        let low = bgv.mod_switch(&relin).unwrap();
        let again = bgv.mul_relin(&low, &cz, &rk).unwrap();
        let across = bgv.add(&again, &cx).unwrap();
        let bottom = bgv.mod_switch_to(&across, 0).unwrap();
        stages.extend([low, again, across, bottom]);
    }
    let (mut plaintexts, mut phases) = (Fnv::new(), Fnv::new());
    for ct in &stages {
        let plain = bgv.decrypt(ct, &sk).unwrap();
        plaintexts.words(&plain);
        plaintexts.words(&[ct.level as u64, ct.factor]);
        phases.words(&phase_words(&bgv, ct, &sk));
    }
    // The circuit is right, too (the record is of a correct computation).
    let xy = cyclotomic::bgv::plain_mul_naive(m, t, &x, &y).unwrap();
    assert_eq!(bgv.decrypt(&relin, &sk).unwrap(), xy, "m = {m}, t = {t}");
    let record = Record { plaintexts: plaintexts.0, phases: phases.0 };
    println!("m = {m}, t = {t}, primes = {count}, slots = {slots}: {record:x?}");
    record
}

/// The circuits at m = 63, 105, 127, 255, 315 (the unit tests' `(m, t)`), 1023 (t = 2), with
/// three 50-bit primes and a 58-bit special prime, and slot encodings at m = 63, 105, 255.
#[test]
fn recorded_circuits_reproduce() {
    let cases: [(usize, u64, bool, Record); 9] = [
        (63, 257, false, Record { plaintexts: 0x93daf6dfa79536f0, phases: 0x9affd3f2cc5c4059 }),
        (105, 65537, false, Record { plaintexts: 0x5ae45f3fbee375bc, phases: 0x724bcc9ff03bf7d9 }),
        (127, 65537, false, Record { plaintexts: 0x9017af3d10ee57e8, phases: 0xdfb5cb6c96a7e72d }),
        (255, 17, false, Record { plaintexts: 0x352f593afc89c372, phases: 0x4c4897fa4cf35df7 }),
        (315, 2, false, Record { plaintexts: 0x313652822dd16507, phases: 0x648437199b87f5f8 }),
        (1023, 2, false, Record { plaintexts: 0xc2b7fb2b55d0146, phases: 0xe4db076250d202a9 }),
        (63, 127, true, Record { plaintexts: 0x4a93a6dd525960e4, phases: 0xdb076b47b59a7a2a }),
        (105, 211, true, Record { plaintexts: 0x94e9afdb912e7141, phases: 0x808f273758250cd2 }),
        (255, 1021, true, Record { plaintexts: 0xd5427e9e254d4d34, phases: 0x2192e4ff97908bbc }),
    ];
    let mut wrong = Vec::new();
    for (m, t, slots, want) in cases {
        let got = run_circuit(m, t, 3, slots);
        if got != want {
            wrong.push(format!("m = {m}, t = {t}, slots = {slots}: got {got:x?}, recorded {want:x?}"));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// HElib's m = 21845 (phi(m) = 2^14, Bluestein length 2^16) with four 50-bit primes, t = 257
/// (about ten seconds on the CPU).
#[test]
fn recorded_circuit_at_helib_size() {
    let want = Record { plaintexts: 0x0a0b_cbf9_cd2d_0456, phases: 0xf8b4_c16c_ddeb_2d86 };
    assert_eq!(run_circuit(21845, 257, 4, false), want);
}

/// The ring layer's samplers on a cyclotomic context (`poly::RingContext::new_cyclotomic`) draw
/// the words `cyclotomic::bgv` draws (secret, errors, uniform `a`): the BGV over the ring layer
/// can reproduce the recorded phases.
#[test]
fn ring_layer_samples_are_the_old_bgv_samples() {
    for m in [63usize, 127, 315, 1023] {
        let params = BgvParameters::generate(m, 257, 50, 3, 58).unwrap();
        let ring = poly::RingContext::new_cyclotomic(m, params.primes()).unwrap();
        let n = ring.degree();
        let s = poly::Poly::sample_ternary(&ring, &seed(1), 0).unwrap();
        let e = poly::Poly::sample_cbd(&ring, &seed(1), 1).unwrap();
        let want_s = cyclotomic::bgv::sample_ternary(n, &seed(1), 0).unwrap();
        let want_e = cyclotomic::bgv::sample_error(n, &seed(1), 1).unwrap();
        for (q, (ls, le)) in ring.moduli().iter().zip(s.limbs().zip(e.limbs())) {
            assert_eq!(ls, want_s.iter().map(|&c| q.from_i64(c)).collect::<Vec<_>>(), "m = {m}");
            assert_eq!(le, want_e.iter().map(|&c| q.from_i64(c)).collect::<Vec<_>>(), "m = {m}");
        }
    }
}
