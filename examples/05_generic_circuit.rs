//! Example 5: one circuit, written once, run under BFV and under BGV, and ciphertexts moved
//! between the two schemes. The circuit is generic over `rlwe::Evaluator`, the trait both
//! contexts implement; the schemes differ in where they put the message (BFV scales it up by
//! q/t, BGV scales the noise by t) but decrypt to the same plaintext, so over the same ring and
//! `t`, under one secret key, a ciphertext of one is a ciphertext of the other after a
//! multiplication by a constant (`SchemeSwitching`).
//!
//! Run with `cargo run --release --example 05_generic_circuit`.

use hegpu::bfv::{BfvContext, BfvParameters, MulVariant};
use hegpu::bgv::prelude::*;
use hegpu::rlwe::{RlweBackend, RlweError};
use hegpu::scheme_switching::SchemeSwitching;

/// A scheme's evaluation keys. Keys come from the scheme's core, which makes them with the
/// scheme's error scale (BGV's errors are multiples of t); the secret key is shared.
struct Keys<B: RlweBackend> {
    public: hegpu::rlwe::PublicKey<B>,
    relin: hegpu::rlwe::RelinearizationKey<B>,
    galois: hegpu::rlwe::GaloisKeys<B>,
}

fn keys<B: RlweBackend, E: Evaluator<B>>(scheme: &E, secret: &SecretKey<B>) -> Result<Keys<B>, RlweError> {
    let core = scheme.core();
    let galois = core.generate_rotation_keys(secret, &[1], false)?;
    Ok(Keys { public: core.generate_public_key(secret)?, relin: core.generate_relinearization_key(secret)?, galois })
}

/// The circuit: `rotate_rows(x * y + 3 z, 1) - x + 5`, slot-wise, for any scheme.
fn circuit<B: RlweBackend, E: Evaluator<B>>(
    scheme: &E,
    keys: &Keys<B>,
    inputs: [&[u64]; 3],
) -> Result<E::Ciphertext, RlweError> {
    let encoder = scheme.batch_encoder()?;
    let ev = BoundEvaluator::new(scheme).with_relinearization_key(&keys.relin).with_galois_keys(&keys.galois);
    let [x, y, z] = inputs.map(|values| encoder.encode_slots(values).and_then(|p| ev.encrypt(&p, &keys.public)));
    let (x, y, z) = (x?, y?, z?);
    let inner = (&(&x * &y)? + &(&z * 3)?)?;
    Ok((&(&inner.rotate_rows(1)? - &x)? + 5)?.into_ciphertext())
}

/// The slots of `ciphertext`, refusing a spent noise budget.
fn slots<B: RlweBackend, E: Evaluator<B>>(
    scheme: &E,
    ciphertext: &E::Ciphertext,
    secret: &SecretKey<B>,
) -> Result<Vec<u64>, RlweError> {
    scheme.batch_encoder()?.decode_slots(&scheme.decrypt_checked(ciphertext, secret)?)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // BGV's preset, and BFV over the very same ring and t (its "twin"): what switching needs.
    let bgv_params = Preset::Secure { log_degree: 13 }.build()?;
    let t = bgv_params.plaintext_modulus();
    let bfv_params = BfvParameters::from_core(bgv_params.core(), t, MulVariant::Hps)?;
    let bgv = BgvContext::new(CpuBackend, &bgv_params)?;
    let bfv = BfvContext::new(CpuBackend, &bfv_params)?;
    let secret = bgv.generate_secret_key()?;
    let (bgv_keys, bfv_keys) = (keys(&bgv, &secret)?, keys(&bfv, &secret)?);

    let n = bgv_params.degree();
    let (half, m) = (n / 2, u128::from(t));
    let [x, y, z]: [Vec<u64>; 3] = [3u64, 5, 7].map(|a| (0..n as u64).map(|i| (a * i * i + i) % t).collect());
    // The same arithmetic on the plaintext vectors (rows of N/2 slots, each rotated left by 1).
    let inner: Vec<u128> = (0..n).map(|i| (u128::from(x[i]) * u128::from(y[i]) + 3 * u128::from(z[i])) % m).collect();
    let expected: Vec<u64> =
        (0..n).map(|i| ((inner[i / half * half + (i + 1) % half] + m - u128::from(x[i]) + 5) % m) as u64).collect();

    // The one circuit under each scheme.
    let in_bfv = circuit(&bfv, &bfv_keys, [&x, &y, &z])?;
    let in_bgv = circuit(&bgv, &bgv_keys, [&x, &y, &z])?;
    let (from_bfv, from_bgv) = (slots(&bfv, &in_bfv, &secret)?, slots(&bgv, &in_bgv, &secret)?);
    println!("BFV: {:?} ...", &from_bfv[..5]);
    println!("BGV: {:?} ...", &from_bgv[..5]);
    if from_bfv != expected || from_bgv != expected {
        return Err("the circuit's result differs from the plaintext arithmetic".into());
    }

    // Switching: the BFV result continues in BGV (times x, then one level down, which BGV's
    // modulus switching makes cheap in noise), and comes back to BFV to be decrypted there.
    let switched = bgv.from_bfv(&bfv, &in_bfv)?;
    let cx = bgv.encrypt(&BatchEncoder::new(&bgv_params)?.encode(&x)?, &bgv_keys.public)?;
    let product = bgv.mod_switch_to_next(&bgv.mul_relin(&switched, &cx, &bgv_keys.relin)?)?;
    let back = bgv.to_bfv(&bfv, &product)?;
    let final_slots = slots(&bfv, &back, &secret)?;
    let want: Vec<u64> = expected.iter().zip(&x).map(|(&e, &a)| (u128::from(e) * u128::from(a) % m) as u64).collect();
    println!(
        "BFV -> BGV (* x, switched to level {}) -> BFV: {:?} ..., {} bits of budget left",
        product.level(),
        &final_slots[..5],
        bfv.noise_budget(&back, &secret)?
    );
    if final_slots != want {
        return Err("the switched computation differs from the plaintext arithmetic".into());
    }
    println!("ok");
    Ok(())
}
