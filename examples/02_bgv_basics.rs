//! Example 2: BGV basics and modulus switching. BGV is used like BFV (example 1), but its
//! ciphertexts live on a chain of moduli `q_L > ... > q_0`: switching a product one level down
//! divides its noise by the dropped prime, which is what lets BGV multiply again. The default
//! `ModSwitching::Auto` places those switches; this example shows the levels it walks down,
//! what happens past the parameters' depth (a product refused by the noise estimate), operands
//! at two levels, and an explicit switch.
//!
//! Run with `cargo run --release --example 02_bgv_basics`.

use hegpu::bgv::prelude::*;

/// `x^e mod t` for every value.
fn powers(x: &[u64], e: u32, t: u64) -> Vec<u64> {
    x.iter().map(|&v| (0..e).fold(1u128, |acc, _| acc * u128::from(v) % u128::from(t)) as u64).collect()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // N = 8192, three 54-bit ciphertext primes (levels 2, 1, 0), a 20-bit batching t.
    let params = Preset::Secure { log_degree: 13 }.build()?;
    let t = params.plaintext_modulus();
    println!("BGV: N = {}, {} primes, t = {t}", params.degree(), params.ciphertext_moduli().len());
    let context = BgvContext::new(CpuBackend, &params)?;
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;
    let encoder = BatchEncoder::new(&params)?;
    let ev = BoundEvaluator::new(&context).with_relinearization_key(&relin);

    let x: Vec<u64> = vec![2, 3, 5, 7, 11, 13];
    let cx = ev.encrypt(&encoder.encode(&x)?, &public)?;
    // Prints a result's level, noise budget and first slots, and compares them with `expected`.
    type Bound<'e, 'k> = BoundCiphertext<'e, 'k, CpuBackend, BgvContext<CpuBackend>>;
    let check = |name: &str, ct: &Bound<'_, '_>, expected: &[u64]| -> Result<(), Box<dyn std::error::Error>> {
        let slots = encoder.decode(&ct.decrypt_checked(&secret)?)?;
        let (level, budget) = (ct.level(), ct.noise_budget(&secret)?);
        println!("{name:<10}: level {level}, noise budget {budget:>3} bits, slots {:?}", &slots[..expected.len()]);
        if slots[..expected.len()] != *expected {
            return Err(format!("{name}: expected {expected:?}").into());
        }
        Ok(())
    };
    check("x", &cx, &x)?;

    // Repeated squaring. Before each product, Auto switches an operand that is itself a
    // product one level down (a fresh ciphertext keeps its level: its noise is already small).
    // So x^2 is computed at the top and x^4 at level 1.
    let x2 = (&cx * &cx)?;
    check("x^2", &x2, &powers(&x, 2, t))?;
    let x4 = (&x2 * &x2)?;
    check("x^4", &x4, &powers(&x, 4, t))?;

    // x^8 would be computed at level 0. These parameters have an estimated depth of 2: the
    // 54-bit prime left holds the noise of a switched ciphertext (about log2(t N) bits) but
    // not of its square. Every BGV ciphertext carries a noise estimate, and Auto refuses a
    // product the estimate says would not decrypt, with a typed error, before computing it.
    println!("estimated depth of these parameters: {}", params.estimated_depth());
    println!("x^4       : estimated noise {:.0} bits", x4.ciphertext().state().estimated_noise_bits());
    match &x4 * &x4 {
        Err(BgvError::NoiseEstimateExceeded { operation, level, estimated_bits, modulus_bits }) => println!(
            "x^8       : refused ({operation} at level {level}: {estimated_bits} estimated bits of noise in a \
             {modulus_bits}-bit modulus), as expected"
        ),
        Err(other) => return Err(other.into()),
        Ok(_) => return Err("x^8 at level 0 should have been refused".into()),
    }

    // Operands at different levels are brought to the lower one (LevelPolicy::BringDown):
    // x (level 2) + x^4 (level 1) is computed at level 1. (The sum has less budget than x^4:
    // BGV ciphertexts carry a correction factor modulo t, and aligning two different ones
    // multiplies one operand by a constant below t.)
    let expected: Vec<u64> = x.iter().zip(powers(&x, 4, t)).map(|(&a, b)| (a + b) % t).collect();
    check("x + x^4", &(&cx + &x4)?, &expected)?;

    // An explicit switch (e.g. to shrink a result before sending it: one prime fewer is one
    // limb fewer). The plaintext is unchanged; the budget shrinks with the modulus, since a
    // fresh ciphertext's noise cannot go below the rounding floor.
    let lower = context.mod_switch_to_next(cx.ciphertext())?;
    let bytes = (context.to_bytes(cx.ciphertext())?.len(), context.to_bytes(&lower)?.len());
    println!(
        "x switched: level {} -> {}, budget {} -> {} bits, {} -> {} bytes",
        cx.level(),
        lower.level(),
        cx.noise_budget(&secret)?,
        context.noise_budget(&lower, &secret)?,
        bytes.0,
        bytes.1
    );
    if encoder.decode(&context.decrypt(&lower, &secret)?)?[..x.len()] != x[..] {
        return Err("x after a modulus switch: mismatch".into());
    }
    println!("ok");
    Ok(())
}
