//! The hypercube of `Z_m^* / <p>` (`rlwe::hypercube`) against brute force: the slot
//! representatives fall in distinct cosets of `<p>` and cover all of them, each generator's
//! `o_i`-th power lies in `<p>` (a direct factor) and is 1 exactly for the good dimensions; and
//! on extension-field slots, `x -> x^{g_i}` rotates dimension `i` (good dimensions: the values
//! unchanged; bad ones: the values that wrap around under the Frobenius).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use hegpu_test_support::slot_ring::substitute;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::extension_slots::ExtensionSlots;
use rlwe::hypercube::Hypercube;

fn pow(a: u64, e: u64, m: u64) -> u64 {
    (0..e).fold(1 % m, |acc, _| acc * a % m)
}

/// The coset of `<p>` containing `t`, as its least element.
fn least(t: u64, p: u64, m: u64) -> u64 {
    let mut x = t % m;
    let mut low = x;
    for _ in 0..m {
        x = x * p % m;
        low = low.min(x);
    }
    low
}

#[test]
fn hypercubes_cover_every_coset_once() {
    for (m, p) in [(31u64, 2u64), (105, 2), (91, 3), (4369, 2), (1705, 2), (2048, 257), (21845, 2), (8191, 2), (127, 2)]
    {
        let cube = Hypercube::new(m, p).unwrap();
        let units = (1..m).filter(|&u| poly::cyclotomic::gcd(u as usize, m as usize) == 1).count();
        let d = (1..=m).find(|&k| pow(p, k, m) == 1).unwrap() as usize;
        assert_eq!(cube.slot_count() * d, units, "m = {m}");
        assert_eq!(cube.orders.iter().product::<usize>(), cube.slot_count());
        let mut cosets: Vec<u64> = cube.representatives.iter().map(|&t| least(t, p, m)).collect();
        cosets.sort_unstable();
        cosets.dedup();
        assert_eq!(cosets.len(), cube.slot_count(), "m = {m}: distinct cosets");
        let p_powers: Vec<u64> = (0..d as u64).map(|k| pow(p, k, m)).collect();
        for ((&g, &o), &good) in cube.generators.iter().zip(&cube.orders).zip(&cube.good) {
            let power = pow(g, o as u64, m);
            assert!(p_powers.contains(&power), "m = {m}: g = {g}, o = {o}: g^o not in <p>");
            assert_eq!(good, power == 1, "m = {m}: g = {g}");
        }
    }
}

#[test]
fn automorphisms_by_the_generators_rotate_their_dimension() {
    let mut rng = StdRng::seed_from_u64(3);
    for (m, p, r) in [(105u64, 2u64, 1u32), (91, 3, 2), (2048, 257, 1), (1705, 2, 2)] {
        let slots = ExtensionSlots::new(m, p, r).unwrap();
        let cube = Hypercube::new(m, p).unwrap();
        assert_eq!(slots.factors().representatives, cube.representatives);
        let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
        let values: Vec<Vec<u64>> = (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect();
        let a = slots.encode(&values).unwrap();
        for (dim, (&g, &o)) in cube.generators.iter().zip(&cube.orders).enumerate() {
            let rotated = substitute(&a, g, m, slots.phi_m(), n);
            let got = slots.decode(&rotated).unwrap();
            // Slot e receives slot e + 1_dim; exponent vectors in order, the last dimension fastest.
            let stride: usize = cube.orders[dim + 1..].iter().product();
            for (e, slot) in got.iter().enumerate() {
                let digit = e / stride % o;
                let source = if digit + 1 < o { e + stride } else { e + stride - o * stride };
                if digit + 1 < o || cube.good[dim] {
                    assert_eq!(slot, &values[source], "m = {m}, dimension {dim}, slot {e}");
                } else {
                    // g^o = p^k: the value that wraps around comes back under X -> X^(p^k).
                    let power = pow(g, o as u64, m);
                    let frobenius = (0..d as u64).map(|k| pow(p, k, m)).find(|&pk| pk == power).unwrap();
                    let want = substitute(&values[source], frobenius, m, slots.slot_modulus(), n);
                    assert_eq!(slot, &want, "m = {m}, bad dimension {dim}, slot {e}: the Frobenius at the wrap");
                    assert_ne!(frobenius, 1);
                }
            }
        }
    }
}
