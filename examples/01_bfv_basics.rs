//! Example 1: BFV basics. Parameters from a preset, the three keys, the batch encoder (a vector
//! of integers modulo `t` in one plaintext), encryption, arithmetic on ciphertexts with the
//! operators of `BoundEvaluator`, the noise budget, and decryption checked against the same
//! arithmetic on plaintext vectors.
//!
//! Run with `cargo run --release --example 01_bfv_basics`.

use hegpu::bfv::prelude::*;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // A preset within the HE Standard's 128-bit table: N = 4096, a 72-bit ciphertext modulus q
    // and a 20-bit prime plaintext modulus t = 1 mod 2N (what batching needs). It has room for
    // one multiplication; `log_degree: 13` and up buy more depth at a higher cost.
    let params = Preset::Secure { log_degree: 12 }.build()?;
    let t = params.plaintext_modulus();
    println!("BFV: N = {}, log2 q = {}, t = {t}", params.degree(), params.ciphertext_modulus().bits());

    // The context holds the parameters prepared on a backend (here the CPU; the same code runs
    // on a GPU with `GpuBackend`, see the quickstart).
    let context = BfvContext::new(CpuBackend, &params)?;
    // The secret key decrypts and stays with its owner; the public key encrypts; the
    // relinearization key brings a product (three polynomials) back to two.
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;

    // The batch encoder puts one integer modulo t in each of N slots, so one ciphertext
    // operation acts on N values at once. Unused slots hold 0.
    let encoder = BatchEncoder::new(&params)?;
    println!("slots: {}", encoder.slot_count());
    let x: Vec<u64> = vec![1, 2, 3, 4, 5, 6, 7, 8];
    // Negative numbers are their residues: t - 1 is -1.
    let y: Vec<u64> = vec![10, 20, 30, 40, 50, 60, t - 1, t - 2];

    // The operators need to know which keys to use: bind them once.
    let ev = BoundEvaluator::new(&context).with_relinearization_key(&relin);
    let cx = ev.encrypt(&encoder.encode(&x)?, &public)?;
    let cy = ev.encrypt(&encoder.encode(&y)?, &public)?;
    // The noise budget is how many bits of noise growth remain before decryption fails.
    println!("fresh ciphertext: {} bits of noise budget", cx.noise_budget(&secret)?);

    // z = (x + y) * x - 3 y + 7, slot by slot. Every operator returns a Result (operands of
    // other parameters or keys are errors, never panics), hence the `?` after each.
    let sum = (&cx + &cy)?;
    let product = (&sum * &cx)?; // multiplied and relinearized with the bound key
    println!("after one multiplication: {} bits left", product.noise_budget(&secret)?);
    let z = (&(&product - &(&cy * 3)?)? + 7)?;

    // `decrypt_checked` refuses a ciphertext whose budget is spent instead of returning
    // garbage; the plain `decrypt` skips that (costly) measurement.
    let slots = encoder.decode(&z.decrypt_checked(&secret)?)?;

    // The same arithmetic on plaintext vectors, modulo t.
    let expected: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| ((a + b) % t * a % t + 3 * (t - b) % t + 7) % t).collect();
    println!("x           = {x:?}");
    println!("y           = {y:?}");
    println!("(x+y)x-3y+7 = {:?}", &slots[..x.len()]);
    // As signed integers (residues above t/2 are negative).
    let signed = encoder.decode_signed(&z.decrypt(&secret)?)?;
    println!("    signed  = {:?}", &signed[..x.len()]);
    if slots[..x.len()] != expected[..] || slots[x.len()..].iter().any(|&v| v != 7) {
        return Err(format!("mismatch: expected {expected:?} (and 7 in the unused slots)").into());
    }

    // The context's methods are the same operations without the operators.
    let again = context.add_scalar(&context.mul_relin(cx.ciphertext(), cx.ciphertext(), &relin)?, 1)?;
    let squares = encoder.decode(&context.decrypt(&again, &secret)?)?;
    let expected: Vec<u64> = x.iter().map(|&a| (a * a + 1) % t).collect();
    println!("x*x + 1     = {:?}", &squares[..x.len()]);
    if squares[..x.len()] != expected[..] {
        return Err(format!("mismatch: expected {expected:?}").into());
    }
    println!("ok");
    Ok(())
}
