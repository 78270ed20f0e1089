//! Extension-field slots (`rlwe::extension_slots`) against the exact slot arithmetic of the
//! test harness (`hegpu_test_support::slot_ring`): encoding then decoding gives the slots back, every plaintext is the encoding of
//! its slots, the product of two plaintexts modulo `Phi_m` decodes to the slot-wise products
//! in `Z_{p^r}[X]/G`, and the automorphism `x -> x^g` moves slots as HElib's do: slot `i` of
//! `a(x^g)` is the slot `j` with `g t_i = t_j p^k (mod m)` of `a`, under the Frobenius `X -> X^(p^k)`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hegpu_test_support::slot_ring::{mul_mod, substitute};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::extension_slots::ExtensionSlots;

#[test]
fn slots_round_trip_and_multiply_slot_wise() {
    let mut rng = StdRng::seed_from_u64(1);
    for (m, p, r) in [
        (31u64, 2u64, 1u32),
        (31, 2, 4),
        (21, 2, 3),
        (105, 2, 2),
        (91, 3, 2),
        (64, 17, 2),
        (1705, 257, 1),
        (4369, 2, 1),
    ] {
        let slots = ExtensionSlots::new(m, p, r).unwrap();
        let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
        assert_eq!(count * d, poly::cyclotomic::euler_phi(m) as usize);
        let random = |rng: &mut StdRng| -> Vec<Vec<u64>> {
            (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect()
        };
        let (a, b) = (random(&mut rng), random(&mut rng));
        let (pa, pb) = (slots.encode(&a).unwrap(), slots.encode(&b).unwrap());
        assert_eq!(slots.decode(&pa).unwrap(), a, "m = {m}, p = {p}, r = {r}: round trip");
        // A random plaintext is the encoding of its slots.
        let plain: Vec<u64> = (0..count * d).map(|_| rng.gen_range(0..n)).collect();
        assert_eq!(slots.encode(&slots.decode(&plain).unwrap()).unwrap(), plain, "m = {m}: bijection");
        if count * d <= 1200 {
            let product = mul_mod(&pa, &pb, slots.phi_m(), n);
            let g = slots.slot_modulus();
            let want: Vec<Vec<u64>> = a.iter().zip(&b).map(|(x, y)| mul_mod(x, y, g, n)).collect();
            assert_eq!(slots.decode(&product).unwrap(), want, "m = {m}, p = {p}, r = {r}: slot-wise products");
        }
    }
}

#[test]
fn bad_slots_are_refused() {
    let slots = ExtensionSlots::new(31, 2, 2).unwrap();
    assert!(slots.encode(&vec![vec![0; 5]; 7]).is_err());
    assert!(slots.encode(&[vec![0; 6]]).is_err());
    assert!(slots.encode(&[vec![4]]).is_err());
    assert!(slots.decode(&[4]).is_err());
    // Fewer slots than the count: the rest are zero.
    let partial = slots.encode(&[vec![1, 2, 3]]).unwrap();
    let decoded = slots.decode(&partial).unwrap();
    assert_eq!(decoded[0], vec![1, 2, 3, 0, 0]);
    assert!(decoded[1..].iter().all(|s| s.iter().all(|&c| c == 0)));
}

#[test]
fn automorphisms_move_slots_and_apply_the_frobenius() {
    let mut rng = StdRng::seed_from_u64(2);
    for (m, p, r) in [(31u64, 2u64, 2u32), (105, 2, 1), (91, 3, 2), (21, 2, 3)] {
        let slots = ExtensionSlots::new(m, p, r).unwrap();
        let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
        let values: Vec<Vec<u64>> = (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect();
        let a = slots.encode(&values).unwrap();
        let reps = &slots.factors().representatives;
        for g in (1..m).filter(|&g| poly::cyclotomic::gcd(g as usize, m as usize) == 1).take(12) {
            // x -> x^g on the plaintext, modulo Phi_m.
            let moved = slots.decode(&substitute(&a, g, m, slots.phi_m(), n)).unwrap();
            for (i, &t) in reps.iter().enumerate() {
                let target = g * t % m;
                let (j, k) = (0..d as u32)
                    .find_map(|k| {
                        let pk = (0..k).fold(1u64, |acc, _| acc * p % m);
                        reps.iter().position(|&u| u * pk % m == target).map(|j| (j, k))
                    })
                    .unwrap();
                let frobenius = (0..k).fold(1u64, |acc, _| acc * p % m);
                let want = substitute(&values[j], frobenius, m, slots.slot_modulus(), n);
                assert_eq!(moved[i], want, "m = {m}, g = {g}, slot {i} from slot {j}, Frobenius power {k}");
            }
        }
    }
}
