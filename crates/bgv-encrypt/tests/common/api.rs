//! Test bodies of the API every scheme shares, generic over the scheme and the backend:
//! rotations by any step (the step's key, compositions of the keys held, the error when none
//! make it), slot sums and replication, scalar operations, the operators of a bound
//! evaluator, clones and checked decryption. The CPU tests run them under BFV and BGV against
//! plaintext arithmetic; the GPU test compares the GPU's ciphertexts with the CPU's, word for
//! word.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use poly::Seed;
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use rlwe::rotation::default_rotation_steps;
use rlwe::{BoundEvaluator, Evaluator, RlweBackend, RlweError, SchemeParameters, SlotEncoding, SlotSum};

pub use hegpu_test_support::slots::{add_mod, mul_mod, random_slots, slot_op, sub_mod};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// Both rows rotated left by `steps` (negative: right), the plaintext oracle.
pub fn rotate_rows_by(values: &[u64], steps: i64) -> Vec<u64> {
    let row = values.len() / 2;
    let shift = steps.rem_euclid(row as i64) as usize;
    (0..2).flat_map(|r| (0..row).map(move |i| values[r * row + (i + shift) % row])).collect()
}

/// The slot sums of `values` modulo `t`, the oracle of [`SlotSum`].
pub fn slot_sums(values: &[u64], sum: SlotSum, t: u64) -> Vec<u64> {
    let row = values.len() / 2;
    let add = |xs: &[u64]| (xs.iter().map(|&x| u128::from(x)).sum::<u128>() % u128::from(t)) as u64;
    match sum {
        SlotSum::Rows => (0..2).flat_map(|r| vec![add(&values[r * row..(r + 1) * row]); row]).collect(),
        SlotSum::Columns => (0..2 * row).map(|i| add(&[values[i % row], values[row + i % row]])).collect(),
        SlotSum::All => vec![add(values); 2 * row],
    }
}

/// The words of a ciphertext, downloaded.
fn words<P: SchemeParameters, B: RlweBackend>(backend: &B, ct: &rlwe::Ciphertext<P, B>) -> Vec<Vec<u64>> {
    ct.polys().iter().map(|p| backend.download(p).unwrap().as_slice().to_vec()).collect()
}

/// Everything above, checked against plaintext arithmetic; returns the words of every
/// ciphertext made from fixed seeds (for the GPU = CPU comparison).
pub fn api_session<B, P, S>(scheme: &S, rng_seed: u64) -> Vec<Vec<u64>>
where
    B: RlweBackend,
    P: SchemeParameters,
    S: Evaluator<B, Ciphertext = rlwe::Ciphertext<P, B>, Plaintext = rlwe::Plaintext<P>>,
{
    let core = scheme.core();
    let backend = core.backend();
    let degree = core.params().degree();
    let row = degree / 2;
    let secret = core.secret_key_from_seed(&seed(1)).unwrap();
    let public = core.public_key_from_seed(&secret, &seed(2)).unwrap();
    let relin = core.relinearization_key_from_seed(&secret, &seed(3)).unwrap();
    let default_keys = core.rotation_keys_from_seed(&secret, &default_rotation_steps(degree), true, &seed(4)).unwrap();
    assert_eq!(default_keys.len(), default_rotation_steps(degree).len() + 1);
    let encoder = scheme.batch_encoder().unwrap();
    let t = encoder.encode_slots(&[]).unwrap().params().plaintext_modulus();
    let mut rng = StdRng::seed_from_u64(rng_seed);
    let x = random_slots(&mut rng, degree, t);
    let y = random_slots(&mut rng, degree, t);
    let cx = scheme.encrypt_with_seed(&encoder.encode_slots(&x).unwrap(), &public, &seed(5)).unwrap();
    let cy = scheme.encrypt_with_seed(&encoder.encode_slots(&y).unwrap(), &public, &seed(6)).unwrap();
    let decrypt = |ct: &S::Ciphertext| encoder.decode_slots(&scheme.decrypt_checked(ct, &secret).unwrap()).unwrap();
    let mut out = Vec::new();

    // Rotations by any step with the default keys: the step's own key, or composed.
    let random_step = rng.gen_range(-(row as i64)..row as i64);
    let wrapped = i64::try_from(row).unwrap() + 3;
    let all_steps = [1, -1, 3, -7, 100 % row as i64, row as i64 - 1, wrapped, 0, random_step];
    let mut one_by_one = Vec::new();
    for steps in all_steps {
        let rotated = scheme.rotate_rows(&cx, steps, &default_keys).unwrap();
        assert_eq!(decrypt(&rotated), rotate_rows_by(&x, steps), "rotation by {steps}");
        one_by_one.push(words(backend, &rotated));
        out.extend(words(backend, &rotated));
    }
    // Hoisted: one ModUp of c_1 for all steps, the same words as one rotation at a time (the
    // exact extension is centered and sigma_g a signed permutation over x^N + 1).
    let hoisted = scheme.rotate_rows_many(&cx, &all_steps, &default_keys).unwrap();
    assert_eq!(hoisted.len(), all_steps.len());
    for ((rotated, want), steps) in hoisted.iter().zip(&one_by_one).zip(all_steps) {
        assert_eq!(&words(backend, rotated), want, "hoisted rotation by {steps}");
        assert_eq!((rotated.level(), rotated.key_set()), (cx.level(), cx.key_set()));
    }
    // Every step is checked first: a step the keys cannot make fails the whole call by name.
    let few = core.rotation_keys_from_seed(&secret, &[4], false, &seed(8)).unwrap();
    assert!(matches!(scheme.rotate_rows_many(&cx, &[4, 2], &few), Err(RlweError::MissingRotationKey { steps: 2, .. })));
    assert!(scheme.rotate_rows_many(&cx, &[], &default_keys).unwrap().is_empty());
    let swapped = scheme.rotate_columns(&cx, &default_keys).unwrap();
    let want: Vec<u64> = (0..degree).map(|i| x[(i + row) % degree]).collect();
    assert_eq!(decrypt(&swapped), want);

    // Keys for one step only: its multiples compose; other steps are refused by name.
    let five = core.rotation_keys_from_seed(&secret, &[5], false, &seed(7)).unwrap();
    let plan = core.row_rotation_plan(&five, 15, "test").unwrap();
    assert_eq!(plan.len(), 3);
    let fifteen = scheme.rotate_rows(&cx, 15, &five).unwrap();
    assert_eq!(decrypt(&fifteen), rotate_rows_by(&x, 15));
    out.extend(words(backend, &fifteen));
    let element = rlwe::galois_key::galois_element_for_row_rotation(degree, 2);
    match scheme.rotate_rows(&cx, 2, &core.rotation_keys_from_seed(&secret, &[4], false, &seed(8)).unwrap()) {
        Err(RlweError::MissingRotationKey { steps: 2, element: e, .. }) => assert_eq!(e, element),
        other => panic!("expected MissingRotationKey, got {other:?}"),
    }

    // Slot sums and replication.
    for sum in [SlotSum::Rows, SlotSum::Columns, SlotSum::All] {
        let summed = scheme.sum_slots(&cx, sum, &default_keys).unwrap();
        assert_eq!(decrypt(&summed), slot_sums(&x, sum, t), "{sum:?}");
        out.extend(words(backend, &summed));
    }
    let slot = rng.gen_range(0..degree);
    let replicated = scheme.replicate(&cx, slot, &default_keys).unwrap();
    assert_eq!(decrypt(&replicated), vec![x[slot]; degree]);
    assert!(matches!(scheme.replicate(&cx, degree, &default_keys), Err(RlweError::InvalidParameter { .. })));

    // Scalars: against the slots, and the product is mul_plain's by the constant plaintext.
    let c = rng.gen_range(0..t);
    for scalar in [0, 1, 3, t - 1, t / 2, c, t + 5] {
        let product = scheme.mul_scalar(&cx, scalar).unwrap();
        assert_eq!(decrypt(&product), slot_op(&x, &vec![scalar % t; degree], t, mul_mod), "* {scalar}");
        let constant = rlwe::Plaintext::from_coefficients(cx.params(), &[scalar % t]).unwrap();
        assert_eq!(words(backend, &product), words(backend, &scheme.mul_plain(&cx, &constant).unwrap()));
        let sum = scheme.add_scalar(&cx, scalar).unwrap();
        assert_eq!(decrypt(&sum), slot_op(&x, &vec![scalar % t; degree], t, add_mod), "+ {scalar}");
        let difference = scheme.sub_scalar(&cx, scalar).unwrap();
        assert_eq!(decrypt(&difference), slot_op(&x, &vec![scalar % t; degree], t, sub_mod), "- {scalar}");
        out.extend(words(backend, &product));
        out.extend(words(backend, &sum));
    }

    // Operators of a bound evaluator: 2 (x y + x) - 3, and -x.
    let bound = BoundEvaluator::new(scheme).with_relinearization_key(&relin).with_galois_keys(&default_keys);
    let (bx, by) = (bound.bind(cx.clone()), bound.bind(cy.clone()));
    let z = (&(&(&(&bx * &by).unwrap() + &bx).unwrap() * 2).unwrap() - 3).unwrap();
    let xy_x = slot_op(&slot_op(&x, &y, t, mul_mod), &x, t, add_mod);
    let want = slot_op(&slot_op(&xy_x, &vec![2; degree], t, mul_mod), &vec![3; degree], t, sub_mod);
    assert_eq!(encoder.decode_slots(&z.decrypt(&secret).unwrap()).unwrap(), want);
    let negated = (-&bx).unwrap();
    assert_eq!(decrypt(negated.ciphertext()), slot_op(&vec![0; degree], &x, t, sub_mod));
    let difference = (&bx - &by).unwrap();
    assert_eq!(decrypt(difference.ciphertext()), slot_op(&x, &y, t, sub_mod));
    let rotated = bound.bind(cx.clone()).rotate_rows(-3).unwrap();
    assert_eq!(decrypt(rotated.ciphertext()), rotate_rows_by(&x, -3));
    out.extend(words(backend, z.ciphertext()));
    let unkeyed = BoundEvaluator::new(scheme);
    let (ux, uy) = (unkeyed.bind(cx.clone()), unkeyed.bind(cy.clone()));
    assert!(matches!(&ux * &uy, Err(RlweError::MissingEvaluationKey { key: "relinearization key", .. })));
    assert!(matches!(ux.sum_slots(SlotSum::All), Err(RlweError::MissingEvaluationKey { key: "Galois keys", .. })));

    // Clones are copies.
    let copy = cx.clone();
    assert_eq!(words(backend, &copy), words(backend, &cx));
    assert_eq!((copy.level(), copy.key_set()), (cx.level(), cx.key_set()));

    // A spent noise budget: decrypt still returns a plaintext, decrypt_checked refuses it.
    let mut noisy = cx.clone();
    // Doubling (an addition, which automatic switching does not refuse; a scalar product
    // that would not decrypt is refused under BGV's automatic switching).
    while scheme.noise_budget(&noisy, &secret).is_ok() {
        noisy = scheme.add(&noisy, &noisy).unwrap();
    }
    assert!(scheme.decrypt(&noisy, &secret).is_ok());
    assert!(matches!(scheme.decrypt_checked(&noisy, &secret), Err(RlweError::NoiseBudgetExhausted { .. })));
    out
}
