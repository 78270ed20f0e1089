//! Example 3: rotations and slot sums. The N batching slots form two rows of N/2; Galois keys
//! let the evaluator rotate both rows, swap them, and so add up all the slots of a ciphertext.
//! With that: an encrypted mean (the sum is encrypted, the division happens after decryption)
//! and an encrypted dot product (a slot-wise product, then a sum).
//!
//! Run with `cargo run --release --example 03_rotations`.

use hegpu::bfv::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // N = 8192: a product followed by a slot sum (a dozen key switches) leaves N = 4096's
    // parameters a bit or two of noise budget, and these a wide margin.
    let params = Preset::Secure { log_degree: 13 }.build()?;
    let t = params.plaintext_modulus();
    let context = BfvContext::new(CpuBackend, &params)?;
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;
    // One key per power of two, both ways, and one for the row swap: any rotation is composed
    // from them (a rotation by 3 uses the keys for 1 and 2), so log2(N) keys serve them all.
    let galois = context.generate_default_rotation_keys(&secret)?;
    println!("N = {}: {} Galois keys, {} bytes", params.degree(), galois.len(), context.to_bytes(&galois)?.len());
    let encoder = BatchEncoder::new(&params)?;
    let half = encoder.slot_count() / 2;
    let ev = BoundEvaluator::new(&context).with_relinearization_key(&relin).with_galois_keys(&galois);

    // Rotations act on each row of N/2 slots: rotating left by 3 moves slot i + 3 to slot i
    // (and the first three slots to the end of the row); negative steps rotate right.
    let values: Vec<u64> = (1..=8).collect();
    let cv = ev.encrypt(&encoder.encode(&values)?, &public)?;
    for steps in [3i64, -1] {
        let slots = encoder.decode(&cv.rotate_rows(steps)?.decrypt(&secret)?)?;
        let expected = |i: usize| values.get((i as i64 + steps).rem_euclid(half as i64) as usize).copied();
        println!("rotated by {steps:>2}: {:?} ... last of the row {}", &slots[..8], slots[half - 1]);
        if (0..half).any(|i| slots[i] != expected(i).unwrap_or(0)) {
            return Err(format!("rotation by {steps}: mismatch").into());
        }
    }
    // The column rotation swaps the two rows.
    let swapped = encoder.decode(&cv.rotate_columns()?.decrypt(&secret)?)?;
    if swapped[half..half + 8] != values[..] || swapped[..half].iter().any(|&v| v != 0) {
        return Err("row swap: mismatch".into());
    }
    println!("rows swapped: the values are now at slots {half}..{}", half + 8);

    // An encrypted mean: the slots summed (every slot then holds the sum), decrypted, divided.
    // Exact as long as the sum stays below t, the plaintext modulus.
    let ages: Vec<u64> = vec![34, 27, 45, 52, 38, 29, 61, 40, 33, 47];
    let c_ages = ev.encrypt(&encoder.encode(&ages)?, &public)?;
    let total = c_ages.sum_slots(SlotSum::All)?;
    let sum = encoder.decode(&total.decrypt(&secret)?)?;
    let mean = sum[0] as f64 / ages.len() as f64;
    println!(
        "sum of {} ages = {} (every slot: {}), mean = {mean:.1}",
        ages.len(),
        sum[0],
        sum.iter().all(|&s| s == sum[0])
    );
    if sum[0] != ages.iter().sum::<u64>() || sum.iter().any(|&s| s != sum[0]) {
        return Err("encrypted sum: mismatch".into());
    }

    // An encrypted dot product: slot-wise product (relinearized), then the sum of the slots.
    let x: Vec<u64> = vec![3, 1, 4, 1, 5, 9, 2, 6];
    let y: Vec<u64> = vec![2, 7, 1, 8, 2, 8, 1, 8];
    let cx = ev.encrypt(&encoder.encode(&x)?, &public)?;
    let cy = ev.encrypt(&encoder.encode(&y)?, &public)?;
    let dot = (&cx * &cy)?.sum_slots(SlotSum::All)?;
    let got = encoder.decode(&dot.decrypt_checked(&secret)?)?[0];
    let expected = x.iter().zip(&y).map(|(a, b)| a * b).sum::<u64>() % t;
    println!("x . y = {got} (expected {expected}), {} bits of noise budget left", dot.noise_budget(&secret)?);
    if got != expected {
        return Err("encrypted dot product: mismatch".into());
    }

    // A server that only ever rotates by one step needs only that key: generate what the
    // circuit uses (`row_swap` adds the swap's key).
    let one = context.generate_rotation_keys(&secret, &[1], false)?;
    println!("a single rotation key: {} bytes", context.to_bytes(&one)?.len());
    let shifted = context.rotate_rows(cx.ciphertext(), 1, &one)?;
    if encoder.decode(&context.decrypt(&shifted, &secret)?)?[..7] != x[1..] {
        return Err("rotation by one with its own key: mismatch".into());
    }
    println!("ok");
    Ok(())
}
