//! Data movement on extension-field slots under BGV (`rlwe::hypercube_ops`), generic over the
//! backend: rotations and shifts along good and bad dimensions, the Frobenius, sums over all
//! slots and replication, each checked against the slots; returns every result's words (for the
//! GPU = CPU comparison).

use std::sync::Arc;

use bgv_encrypt::{BgvBackend, BgvContext, BgvParameters};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::Evaluator;
use rlwe::hypercube_ops::HypercubeOps;

use super::extension::{mul_mod, substitute};

fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    a.iter().zip(b).map(|(&x, &y)| ((u128::from(x) + u128::from(y)) % u128::from(n)) as u64).collect()
}

/// Slot `e` of a rotation by `k` along `dimension`: slot `e + k 1_i` (cyclic), or zero for a
/// shift whose source falls outside.
fn moved(ops: &HypercubeOps, values: &[Vec<u64>], dimension: usize, k: i64, shift: bool) -> Vec<Vec<u64>> {
    let cube = ops.hypercube();
    let o = cube.orders[dimension] as i64;
    let stride: usize = cube.orders[dimension + 1..].iter().product();
    let d = ops.slots().slot_degree();
    (0..values.len())
        .map(|e| {
            let digit = (e / stride) as i64 % o;
            let target = digit + k;
            if shift && !(0..o).contains(&target) {
                return vec![0; d];
            }
            let source = e as i64 + (target.rem_euclid(o) - digit) * stride as i64;
            values[source as usize].clone()
        })
        .collect()
}

/// The operations of the module docs on `params` (`t = p^r`) for the `rotations`
/// `(dimension, k)`, with the sums when `sums`.
pub fn hypercube_session<B: BgvBackend>(
    backend: B,
    params: &Arc<BgvParameters>,
    rotations: &[(usize, i64)],
    sums: bool,
    seed: u64,
) -> Vec<Vec<u64>> {
    let ops = HypercubeOps::for_params(params.as_ref()).unwrap();
    let slots = ops.slots();
    let (n, d, count) = (slots.modulus(), slots.slot_degree(), slots.slot_count());
    let (m, p) = (slots.factors().m, slots.factors().p);
    let context = BgvContext::new(backend.clone(), params).unwrap();
    let secret = context.secret_key_from_seed(&super::seed(1)).unwrap();
    let public = context.public_key_from_seed(&secret, &super::seed(2)).unwrap();
    let mut elements = vec![p % m];
    for &(dimension, k) in rotations {
        elements.extend(ops.rotation_elements(dimension, k).unwrap());
    }
    if sums {
        elements.extend(ops.total_sum_elements().unwrap());
    }
    elements.sort_unstable();
    elements.dedup();
    let keys = context.galois_keys_from_seed(&secret, &elements, &super::seed(3)).unwrap();
    let mut rng = StdRng::seed_from_u64(seed);
    let values: Vec<Vec<u64>> = (0..count).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect();
    let ct =
        context.encrypt_with_seed(&slots.encode_plaintext(params, &values).unwrap(), &public, &super::seed(6)).unwrap();
    let mut words = Vec::new();
    let mut decode = |c: &bgv_encrypt::Ciphertext<B>| {
        for poly in c.polys() {
            words.push(backend.download(poly).unwrap().as_slice().to_vec());
        }
        slots.decode_plaintext(&context.decrypt_checked(c, &secret).unwrap()).unwrap()
    };
    for &(dimension, k) in rotations {
        let what = format!("m = {m}, dimension {dimension} (good: {}), k = {k}", ops.hypercube().good[dimension]);
        let rotated = ops.rotate(&context, &ct, dimension, k, &keys).unwrap();
        assert_eq!(decode(&rotated), moved(&ops, &values, dimension, k, false), "rotation, {what}");
        let shifted = ops.shift(&context, &ct, dimension, k, &keys).unwrap();
        assert_eq!(decode(&shifted), moved(&ops, &values, dimension, k, true), "shift, {what}");
    }
    // The plaintext automorphism in the clear is what the ciphertext automorphism decrypts to.
    let plain = context.decrypt_checked(&ct, &secret).unwrap();
    for &element in &elements {
        let moved = context.apply_galois(&ct, element, &keys).unwrap();
        assert_eq!(
            context.decrypt_checked(&moved, &secret).unwrap().coefficients(),
            slots.automorphism(plain.coefficients(), element).unwrap(),
            "m = {m}: plaintext automorphism by {element}"
        );
    }
    assert!(slots.automorphism(plain.coefficients(), m).is_err());
    let frobenius = ops.frobenius(&context, &ct, 1, &keys).unwrap();
    let want: Vec<Vec<u64>> = values.iter().map(|v| substitute(v, p % m, m, slots.slot_modulus(), n)).collect();
    assert_eq!(decode(&frobenius), want, "m = {m}: Frobenius");
    if sums {
        let total = values.iter().fold(vec![0; d], |acc, v| add(&acc, v, n));
        assert_eq!(decode(&ops.total_sum(&context, &ct, &keys).unwrap()), vec![total; count], "m = {m}: total sum");
        let slot = rng.gen_range(0..count);
        let replicated = ops.replicate(&context, &ct, slot, &keys).unwrap();
        assert_eq!(decode(&replicated), vec![values[slot].clone(); count], "m = {m}: replicate slot {slot}");
        assert!(ops.replicate(&context, &ct, count, &keys).is_err());
    }
    assert!(ops.rotate(&context, &ct, ops.hypercube().orders.len(), 1, &keys).is_err());

    // A random linear map on the whole slot vector (HElib's MatMulFull), with a few zero
    // entries, against the matrix-vector product.
    let full: Vec<Vec<Vec<u64>>> =
        (0..count)
            .map(|_| {
                (0..count)
                    .map(|_| {
                        if rng.gen_range(0..8) == 0 {
                            Vec::new()
                        } else {
                            (0..d).map(|_| rng.gen_range(0..n)).collect()
                        }
                    })
                    .collect()
            })
            .collect();
    let full_keys = context.galois_keys_from_seed(&secret, &ops.full_elements(), &super::seed(11)).unwrap();
    let g_poly = slots.slot_modulus().to_vec();
    let mapped = ops.matrix_mul_full(&context, &ct, &full, &full_keys).unwrap();
    let want: Vec<Vec<u64>> = full
        .iter()
        .map(|row| {
            row.iter().zip(&values).fold(vec![0; d], |acc, (entry, x)| {
                if entry.is_empty() { acc } else { add(&acc, &mul_mod(entry, x, &g_poly, n), n) }
            })
        })
        .collect();
    assert_eq!(decode(&mapped), want, "m = {m}: a linear map on all slots");
    assert!(ops.matrix_mul_full(&context, &ct, &full[1..], &full_keys).is_err());

    // The compact default keys: the same rotations, sums and Frobenius powers, composed.
    let compact = ops.compact_elements();
    let dimensions = ops.hypercube().orders.len();
    let bound =
        1 + dimensions + ops.hypercube().orders.iter().map(|&o| o.next_power_of_two().ilog2() as usize).sum::<usize>();
    assert!(compact.len() <= bound, "m = {m}: {} compact keys, more than {bound}", compact.len());
    let compact_keys = context.galois_keys_from_seed(&secret, &compact, &super::seed(9)).unwrap();
    for &(dimension, k) in rotations {
        let rotated = ops.rotate(&context, &ct, dimension, k, &compact_keys).unwrap();
        assert_eq!(
            decode(&rotated),
            moved(&ops, &values, dimension, k, false),
            "compact keys: rotation {dimension}, {k}"
        );
    }
    let frobenius2 = ops.frobenius(&context, &ct, 2, &compact_keys).unwrap();
    let p2 = (u128::from(p) * u128::from(p) % u128::from(m)) as u64;
    let want2: Vec<Vec<u64>> = values.iter().map(|v| substitute(v, p2, m, slots.slot_modulus(), n)).collect();
    assert_eq!(decode(&frobenius2), want2, "m = {m}: Frobenius squared from the compact keys");
    if sums {
        let total = values.iter().fold(vec![0; d], |acc, v| add(&acc, v, n));
        assert_eq!(
            decode(&ops.total_sum(&context, &ct, &compact_keys).unwrap()),
            vec![total; count],
            "m = {m}: total sum from the compact keys"
        );
    }
    // Without the keys a rotation needs, the typed error.
    let frobenius_only = context.galois_keys_from_seed(&secret, &[p % m], &super::seed(10)).unwrap();
    if ops.hypercube().orders[0] > 1 {
        assert!(ops.rotate(&context, &ct, 0, 1, &frobenius_only).is_err());
    }

    // A random linear map along each dimension, against the matrix-vector products per column.
    for dimension in 0..ops.hypercube().orders.len() {
        let o = ops.hypercube().orders[dimension];
        let stride: usize = ops.hypercube().orders[dimension + 1..].iter().product();
        let matrix: Vec<Vec<Vec<u64>>> =
            (0..o).map(|_| (0..o).map(|_| (0..d).map(|_| rng.gen_range(0..n)).collect()).collect()).collect();
        let map_keys =
            context.galois_keys_from_seed(&secret, &ops.matrix_elements(dimension).unwrap(), &super::seed(5)).unwrap();
        let mapped = ops.matrix_mul_dimension(&context, &ct, dimension, &matrix, &map_keys).unwrap();
        let want: Vec<Vec<u64>> = (0..count)
            .map(|e| {
                let digit = e / stride % o;
                let column_start = e - digit * stride;
                (0..o).fold(vec![0; d], |acc, j| {
                    add(&acc, &mul_mod(&matrix[digit][j], &values[column_start + j * stride], &g_poly, n), n)
                })
            })
            .collect();
        assert_eq!(decode(&mapped), want, "m = {m}: linear map along dimension {dimension}");
        // Baby-step giant-step (good and bad dimensions): the same messages, with few
        // automorphisms; a prepared map applies to another ciphertext too.
        for baby in [1, 2, 5, o] {
            let bsgs_keys = context
                .galois_keys_from_seed(&secret, &ops.bsgs_elements(dimension, baby).unwrap(), &super::seed(7))
                .unwrap();
            let mapped = ops.matrix_mul_dimension_bsgs(&context, &ct, dimension, &matrix, baby, &bsgs_keys).unwrap();
            assert_eq!(decode(&mapped), want, "m = {m}: baby-step giant-step map along {dimension}, {baby} baby steps");
        }
        let prepared = ops.prepare_matrix_dimension(&context, params, dimension, &matrix, 3).unwrap();
        assert_eq!(prepared.dimension(), dimension);
        let bsgs_keys =
            context.galois_keys_from_seed(&secret, &ops.bsgs_elements(dimension, 3).unwrap(), &super::seed(8)).unwrap();
        let doubled = context.add(&ct, &ct).unwrap();
        let want_doubled: Vec<Vec<u64>> = want.iter().map(|v| add(v, v, n)).collect();
        assert_eq!(
            decode(&ops.apply_prepared(&context, &doubled, &prepared, &bsgs_keys).unwrap()),
            want_doubled,
            "m = {m}: a prepared map along {dimension} on a second ciphertext"
        );
        let zero: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); o]; o];
        let prepared_zero = ops.prepare_matrix_dimension(&context, params, dimension, &zero, 2).unwrap();
        assert_eq!(prepared_zero.plaintext_products(), 0);
        assert_eq!(
            decode(&ops.apply_prepared(&context, &ct, &prepared_zero, &bsgs_keys).unwrap()),
            vec![vec![0; d]; count],
            "m = {m}: the zero map"
        );
        assert!(ops.matrix_mul_dimension(&context, &ct, dimension, &matrix[1..], &map_keys).is_err());
    }
    words
}
