//! The modulus chain on any backend: `mod_switch_to_next` / `mod_switch_to` keep the plaintext,
//! shrink the ciphertext, and move the noise budget as theory says (levels.rs of the crate);
//! multiplication, squaring, relinearization, rotations and plaintext operations work at every
//! level; operands of different levels are refused with a typed error.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use bfv::{BatchEncoder, BfvBackend, BfvContext, BfvError, BfvParameters, MulVariant, Preset};
use hegpu_test_support::slots::{mul_mod, rotate_rows_left, slot_op};
use num_bigint::BigUint;
use poly::{Coeff, Poly, Seed, TransformKind};

/// The sets: both variants, NTT, DGT and hierarchical DGT, one and several special primes.
pub fn sets() -> Vec<(&'static str, Arc<BfvParameters>)> {
    let build = |preset: Preset, variant, transform| {
        preset.builder().unwrap().allow_insecure(true).variant(variant).transform(transform).build().unwrap()
    };
    vec![
        ("secure-8192-hps-ntt", build(Preset::Secure { log_degree: 13 }, MulVariant::Hps, TransformKind::Ntt)),
        (
            "phantom-8192-behz-dgt",
            build(Preset::Phantom { log_degree: 13, hybrid: false }, MulVariant::Behz, TransformKind::Dgt),
        ),
        (
            "phantom-16384-hybrid-hps-hdgt",
            build(Preset::Phantom { log_degree: 14, hybrid: true }, MulVariant::Hps, TransformKind::HierarchicalDgt),
        ),
    ]
}

fn seed(tag: u8) -> Seed {
    Seed::from([tag; 32])
}

/// `floor(log2(q_l / (t (N + 1))))`: the budget the rounding of a switch to level `l` leaves
/// at most (and at least, up to the budget the ciphertext had).
fn rounding_bound(params: &BfvParameters, level: usize) -> i64 {
    let q: BigUint = params.ciphertext_moduli()[..=level].iter().map(|&p| BigUint::from(p)).product();
    let noise = BigUint::from(params.plaintext_modulus()) * (params.degree() as u64 + 1);
    if q <= noise { -1 } else { (&q / &noise).bits() as i64 - 1 }
}

/// Runs the chain checks on `backend` and returns, per set, every switched ciphertext's host
/// polynomials (for a GPU = CPU comparison).
pub fn run<B: BfvBackend>(backend: B) -> Vec<Vec<Vec<Poly<Coeff>>>> {
    let mut all = Vec::new();
    for (name, params) in sets() {
        let context = BfvContext::new(backend.clone(), &params).unwrap();
        let sk = context.secret_key_from_seed(&seed(1)).unwrap();
        let pk = context.public_key_from_seed(&sk, &seed(2)).unwrap();
        let rk = context.relin_key_from_seed(&sk, &seed(3)).unwrap();
        let encoder = BatchEncoder::new(&params).unwrap();
        let t = params.plaintext_modulus();
        let n = params.degree();
        let x: Vec<u64> = (0..n as u64).map(|i| (i * 7919 + 3) % t).collect();
        let y: Vec<u64> = (0..n as u64).map(|i| (i * i + 11) % t).collect();
        let product: Vec<u64> =
            x.iter().zip(&y).map(|(&a, &b)| ((u128::from(a) * u128::from(b)) % u128::from(t)) as u64).collect();
        let sum: Vec<u64> = x.iter().zip(&x).map(|(&a, &b)| (a + b) % t).collect();
        let cx = context.encrypt_with_seed(&encoder.encode(&x).unwrap(), &pk, &seed(4)).unwrap();
        let cy = context.encrypt_with_seed(&encoder.encode(&y).unwrap(), &pk, &seed(5)).unwrap();
        let top = context.top_level();
        assert_eq!(cx.level(), top, "{name}");
        let mut outputs = Vec::new();

        for (label, start, expected) in [
            ("fresh", cx, x.clone()),
            (
                "product",
                context
                    .mul_relin(
                        &context.encrypt_with_seed(&encoder.encode(&x).unwrap(), &pk, &seed(4)).unwrap(),
                        &cy,
                        &rk,
                    )
                    .unwrap(),
                product.clone(),
            ),
        ] {
            let mut current = start;
            let mut budget = context.noise_budget(&current, &sk).unwrap() as i64;
            while current.level() > 0 {
                let before = context.download(&current).unwrap();
                let next = context.mod_switch_to_next(&current).unwrap();
                assert_eq!(context.download(&current).unwrap(), before, "{name} {label}: the input changed");
                let level = next.level();
                assert_eq!(level, current.level() - 1, "{name} {label}");
                let polys = context.download(&next).unwrap();
                assert!(polys.iter().all(|p| p.as_slice().len() == (level + 1) * n), "{name} {label}: limbs");
                let bound = rounding_bound(&params, level);
                if bound >= 2 {
                    let new_budget = context.noise_budget(&next, &sk).unwrap() as i64;
                    assert!(new_budget <= budget + 1, "{name} {label} level {level}: {new_budget} from {budget}");
                    assert!(
                        new_budget >= budget.min(bound) - 2,
                        "{name} {label} level {level}: {new_budget} from {budget}, rounding bound {bound}"
                    );
                    let decoded = encoder.decode(&context.decrypt(&next, &sk).unwrap()).unwrap();
                    assert_eq!(decoded, expected, "{name} {label} level {level}");
                    let resident = context.decrypt_resident(&next, &sk).unwrap().to_plaintext().unwrap();
                    assert_eq!(encoder.decode(&resident).unwrap(), expected, "{name} {label} level {level} (resident)");
                    budget = new_budget;
                } else {
                    budget = bound;
                }
                outputs.push(polys);
                current = next;
            }
        }

        // mod_switch_to, the operations that stay at a level, and the typed errors.
        let fresh = context.encrypt_with_seed(&encoder.encode(&x).unwrap(), &pk, &seed(6)).unwrap();
        let low = context.mod_switch_to(&fresh, top.saturating_sub(1)).unwrap();
        let chained = context.mod_switch_to_next(&fresh).unwrap();
        assert_eq!(context.download(&low).unwrap(), context.download(&chained).unwrap(), "{name}: mod_switch_to");
        assert_eq!(context.mod_switch_to(&fresh, top).unwrap().level(), top);
        if top >= 1 {
            let doubled = context.add(&low, &low).unwrap();
            assert_eq!(doubled.level(), low.level());
            assert_eq!(
                encoder.decode(&context.decrypt(&doubled, &sk).unwrap()).unwrap(),
                sum,
                "{name}: add at a level"
            );
            let negated = context.negate(&context.sub(&low, &doubled).unwrap()).unwrap();
            assert_eq!(encoder.decode(&context.decrypt(&negated, &sk).unwrap()).unwrap(), x, "{name}: sub, negate");
            let level_error = |result: Result<bfv::Ciphertext<B>, BfvError>| {
                assert!(matches!(result, Err(BfvError::LevelMismatch { .. })), "{name}: {result:?}");
            };
            level_error(context.add(&fresh, &low));
            level_error(context.mul(&fresh, &low));
            level_error(context.mul(&low, &fresh));
            level_error(context.mod_switch_to(&low, top));
            let mut target = context.duplicate(&fresh).unwrap();
            let snapshot = context.download(&target).unwrap();
            assert!(matches!(context.add_assign(&mut target, &low), Err(BfvError::LevelMismatch { .. })));
            assert_eq!(context.download(&target).unwrap(), snapshot, "{name}: a failed add_assign changed its input");
            // Bytes carry the level: a switched ciphertext travels with its fewer primes.
            let bytes = context.ciphertext_to_bytes(&low).unwrap();
            assert!(bytes.len() < context.ciphertext_to_bytes(&fresh).unwrap().len(), "{name}: smaller bytes");
            let decoded = context.ciphertext_from_bytes(&bytes).unwrap();
            assert_eq!(decoded.level(), low.level(), "{name}");
            assert_eq!(context.download(&decoded).unwrap(), context.download(&low).unwrap(), "{name}: bytes");
            // A header whose primes are not this chain's prefix is another parameter set.
            let mut wrong = bytes.clone();
            wrong[18] ^= 2; // the first byte of q_0
            assert!(matches!(context.ciphertext_from_bytes(&wrong), Err(BfvError::ParameterMismatch { .. })), "{name}");
        }
        outputs.extend(products_down_the_chain(&context, &encoder, &sk, &pk, &rk, &x, &y, name));
        let bottom = context.mod_switch_to(&fresh, 0).unwrap();
        assert!(matches!(context.mod_switch_to_next(&bottom), Err(BfvError::InvalidParameter { .. })), "{name}");
        all.push(outputs);
    }
    all
}

/// A chain that switches down and keeps multiplying: from the top, at each level a product
/// with a fresh operand switched to that level (relinearized), a square, a rotation, a
/// plaintext product and sum, each checked slot by slot against plaintext arithmetic while
/// the noise budget lasts, then one level down. At least one product below the top must
/// decrypt (the test cannot pass without multiplying there). Returns the host polynomials of
/// every ciphertext made, for the GPU = CPU comparison.
#[allow(clippy::too_many_arguments)]
fn products_down_the_chain<B: BfvBackend>(
    context: &BfvContext<B>,
    encoder: &BatchEncoder,
    sk: &bfv::SecretKey<B>,
    pk: &bfv::PublicKey<B>,
    rk: &bfv::RelinKey<B>,
    x: &[u64],
    y: &[u64],
    name: &str,
) -> Vec<Vec<Poly<Coeff>>> {
    let t = context.params().plaintext_modulus();
    let gk = context.galois_keys_from_seed(sk, &[context.galois_element_for_row_rotation(1)], &seed(20)).unwrap();
    let plain_y = encoder.encode(y).unwrap();
    let mut current = context.encrypt_with_seed(&encoder.encode(x).unwrap(), pk, &seed(21)).unwrap();
    let mut expected = x.to_vec();
    let mut outputs = Vec::new();
    let mut products_below_top = 0;
    loop {
        let level = current.level();
        let fresh_y = context.encrypt_with_seed(&plain_y, pk, &seed(22 + level as u8)).unwrap();
        let y_here = context.mod_switch_to(&fresh_y, level).unwrap();
        let product = context.mul_relin(&current, &y_here, rk).unwrap();
        let square = context.square_relin(&y_here, rk).unwrap();
        let rotated = context.rotate_rows(&product, 1, &gk).unwrap();
        let plain_ops = context.add_plain(&context.mul_plain(&current, &plain_y).unwrap(), &plain_y).unwrap();
        let want_product = slot_op(&expected, y, t, mul_mod);
        let want_plain: Vec<u64> =
            slot_op(&expected, y, t, mul_mod).iter().zip(y).map(|(&a, &b)| (a + b) % t).collect();
        let cases = [
            ("product", &product, want_product.clone()),
            ("square", &square, slot_op(y, y, t, mul_mod)),
            ("rotation", &rotated, rotate_rows_left(&want_product)),
            ("plaintext product and sum", &plain_ops, want_plain),
        ];
        let mut product_decrypts = false;
        for (label, ciphertext, want) in cases {
            assert_eq!(ciphertext.level(), level, "{name} {label}: level");
            assert_eq!(ciphertext.size(), 2, "{name} {label}: size");
            if context.noise_budget(ciphertext, sk).is_ok_and(|budget| budget > 0) {
                let got = encoder.decode(&context.decrypt(ciphertext, sk).unwrap()).unwrap();
                assert_eq!(got, want, "{name} {label} at level {level}");
                product_decrypts |= label == "product";
            }
            outputs.push(context.download(ciphertext).unwrap());
        }
        if product_decrypts && level < context.top_level() {
            products_below_top += 1;
        }
        if !product_decrypts || level == 0 {
            break;
        }
        expected = want_product;
        current = context.mod_switch_to_next(&product).unwrap();
    }
    eprintln!("{name}: products decrypted at {products_below_top} levels below the top");
    assert!(products_below_top >= 1, "{name}: no product below the top level decrypted");
    outputs
}
