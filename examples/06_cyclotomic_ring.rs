//! Example 6: BGV over a general cyclotomic ring `Z_q[x]/Phi_m(x)`, HElib's rings: `m` odd and
//! not a power of two, the degree `phi(m)`, the transform Bluestein's. Every BGV operation
//! works there. With a prime `t = 1 mod m` the plaintext has `phi(m)` slots, one per primitive
//! m-th root of unity modulo `t`; the ring's automorphisms `x -> x^g` (g a unit modulo m)
//! permute them. Rows and their rotations are the power-of-two ring's, not these.
//!
//! Run with `cargo run --release --example 06_cyclotomic_ring`.

use hegpu::bgv::prelude::*;
use hegpu::poly::cyclotomic::{cyclotomic_polynomial, euler_phi, gcd, prime_factors};
use hegpu::{modarith, poly, rlwe};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // m = 31 * 251: phi(m) = 7500. Unlike x^N + 1, Phi_m is dense (thousands of terms).
    let m = 7781usize;
    let phi = euler_phi(m as u64) as usize;
    let coefficients = cyclotomic_polynomial(m as u64)?;
    let largest = coefficients.iter().map(|c| c.abs()).max().unwrap_or(0);
    println!(
        "m = {m} = {:?}, phi(m) = {phi}, Phi_m: {} nonzero coefficients, largest {largest}",
        prime_factors(m as u64),
        coefficients.iter().filter(|&&c| c != 0).count()
    );
    // Security is read from the HE Standard's table at dimension phi(m).
    let bound = rlwe::security::max_modulus_bits_128_dimension(phi).ok_or("phi(m) outside the table")?;
    println!(
        "128-bit security allows log2(QP) <= {bound}; Bluestein's length M = {}",
        poly::bluestein::bluestein_length(m)
    );

    // A 20-bit prime t = 1 mod m, so that Phi_m splits into phi(m) linear factors modulo t.
    let t = modarith::primes_one_mod(20, m as u64, 1, &[])?.first().copied().ok_or("no prime t")?;
    // Two ciphertext primes (one multiplication, then one switch down) and a special prime:
    // 160 bits, within the bound; `build` checks it (no `allow_insecure`).
    let params = BgvParametersBuilder::new_cyclotomic(m)
        .ciphertext_moduli_bits(&[55, 45])
        .special_moduli_bits(&[60])
        .plaintext_modulus(t)
        .build()?;
    println!("BGV: degree {}, t = {t}, secure: {}", params.degree(), params.is_secure_128());
    let context = BgvContext::new(CpuBackend, &params)?;
    let secret = context.generate_secret_key()?;
    let public = context.generate_public_key(&secret)?;
    let relin = context.generate_relin_key(&secret)?;
    let encoder = BatchEncoder::new(&params)?;
    println!("slots: {}", encoder.slot_count());

    // Slot-wise arithmetic, as in the power-of-two ring: x * y + x, then one level down.
    let x: Vec<u64> = (0..phi as u64).map(|i| (i * i + 1) % t).collect();
    let y: Vec<u64> = (0..phi as u64).map(|i| (5 * i + 2) % t).collect();
    let ev = BoundEvaluator::new(&context).with_relinearization_key(&relin);
    let cx = ev.encrypt(&encoder.encode(&x)?, &public)?;
    let cy = ev.encrypt(&encoder.encode(&y)?, &public)?;
    let result = (&(&cx * &cy)? + &cx)?.mod_switch_to_next()?;
    let slots = encoder.decode(&result.decrypt_checked(&secret)?)?;
    let expected: Vec<u64> = x
        .iter()
        .zip(&y)
        .map(|(&a, &b)| ((u128::from(a) * u128::from(b) + u128::from(a)) % u128::from(t)) as u64)
        .collect();
    println!(
        "x * y + x: level {}, {} bits of budget, {:?} ...",
        result.level(),
        result.noise_budget(&secret)?,
        &slots[..4]
    );
    if slots != expected {
        return Err("x * y + x: mismatch".into());
    }

    // An automorphism x -> x^g with its Galois key: slot s holds the value at w^(k_s) (k_s the
    // s-th unit modulo m), so afterwards it holds the old value at w^(g k_s).
    let g = 2u64;
    let galois = context.generate_galois_keys(&secret, &[g])?;
    let moved = encoder.decode(&context.decrypt(&context.apply_galois(result.ciphertext(), g, &galois)?, &secret)?)?;
    let units: Vec<usize> = (1..m).filter(|&k| gcd(k, m) == 1).collect();
    for (s, &k) in units.iter().enumerate() {
        let from = units.binary_search(&(k * g as usize % m)).map_err(|_| "not a unit")?;
        if moved[s] != expected[from] {
            return Err(format!("x -> x^{g}: slot {s} mismatch").into());
        }
    }
    println!("x -> x^{g}: slots permuted as expected, {:?} ...", &moved[..4]);
    println!("ok");
    Ok(())
}
