//! Example 4: a client and a server that exchange only bytes. The client keeps the secret key,
//! encrypts its data and sends the ciphertexts with the evaluation key the computation needs;
//! the server computes on them without being able to read them and sends the result back; the
//! client decrypts. Every object's size on the wire is printed.
//!
//! Run with `cargo run --release --example 04_client_server`.

use hegpu::bfv::prelude::*;

/// What the client sends: byte encodings only.
struct Request {
    relin_key: Vec<u8>,
    x: Vec<u8>,
    y: Vec<u8>,
}

/// The server: its own context for the agreed (public) parameters, no secret key. Computes
/// `x * y + x` and returns it switched down the modulus chain to one prime, which shrinks it
/// (the client only decrypts it).
fn server(params: &std::sync::Arc<BfvParameters>, request: &Request) -> Result<Vec<u8>, BfvError> {
    let context = BfvContext::new(CpuBackend, params)?;
    // Loading validates everything against the context (parameters, sizes, every word below its
    // prime) and errors on anything else: never trust bytes from the network.
    let relin = context.load_bytes::<RelinKey<_>>(&request.relin_key)?;
    // A seeded ciphertext carries c_0 and a 32-byte seed; `expand` regenerates c_1 from it.
    let x = context.expand(&context.load_bytes::<SeededCiphertext<_>>(&request.x)?)?;
    let y = context.expand(&context.load_bytes::<SeededCiphertext<_>>(&request.y)?)?;
    let result = context.add(&context.mul_relin(&x, &y, &relin)?, &x)?;
    let smaller = context.mod_switch_to(&result, 0)?;
    println!("server: result at level {} is {} bytes", result.level(), context.to_bytes(&result)?.len());
    context.to_bytes(&smaller)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Both sides agree on the parameters (a preset here; `BfvParameters` also travels with serde).
    let params = Preset::Secure { log_degree: 13 }.build()?;
    let t = params.plaintext_modulus();

    // The client: keys, data, encryption.
    let client = BfvContext::new(CpuBackend, &params)?;
    let secret = client.generate_secret_key()?;
    let relin = client.generate_relin_key(&secret)?;
    let encoder = BatchEncoder::new(&params)?;
    let x: Vec<u64> = (0..encoder.slot_count() as u64).map(|i| i % 1000).collect();
    let y: Vec<u64> = (0..encoder.slot_count() as u64).map(|i| (7 * i + 3) % 1000).collect();
    // The owner of the secret key can encrypt with it: the ciphertext's random half is then a
    // seed, and the ciphertext travels in half the bytes of a public-key encryption.
    let seeded_x = client.encrypt_symmetric(&encoder.encode(&x)?, &secret)?;
    let seeded_y = client.encrypt_symmetric(&encoder.encode(&y)?, &secret)?;
    let request =
        Request { relin_key: client.to_bytes(&relin)?, x: client.to_bytes(&seeded_x)?, y: client.to_bytes(&seeded_y)? };
    let public = client.generate_public_key(&secret)?;
    let full = client.encrypt(&encoder.encode(&x)?, &public)?;
    println!("N = {}, {} primes, t = {t}", params.degree(), params.ciphertext_moduli().len());
    println!("client: relinearization key {} bytes", request.relin_key.len());
    println!("client: x and y as seeded ciphertexts, {} bytes each", request.x.len());
    println!(
        "        (a public-key ciphertext: {} bytes; the public key: {} bytes)",
        client.to_bytes(&full)?.len(),
        client.to_bytes(&public)?.len()
    );
    // The secret key never leaves the client (its bytes, `to_bytes(&secret)`, are the secret:
    // for storage where the key itself may be kept, never for the server).

    let response = server(&params, &request)?;
    println!("server -> client: {} bytes", response.len());

    // The client loads the answer against its own context and decrypts it.
    let result = client.load_bytes::<Ciphertext<_>>(&response)?;
    let slots = encoder.decode(&client.decrypt(&result, &secret)?)?;
    println!(
        "client: decrypted at level {}, {} bits of noise budget left",
        result.level(),
        client.noise_budget(&result, &secret)?
    );
    let expected: Vec<u64> = x.iter().zip(&y).map(|(&a, &b)| (a * b + a) % t).collect();
    println!("x * y + x = {:?} ...", &slots[..6]);
    if slots != expected {
        return Err("the server's result does not match x * y + x".into());
    }

    // Tampered bytes are an error, not a crash nor a wrong answer.
    let mut tampered = response.clone();
    tampered.truncate(response.len() - 1);
    match client.load_bytes::<Ciphertext<_>>(&tampered) {
        Err(error) => println!("truncated response refused: {error}"),
        Ok(_) => return Err("a truncated ciphertext was accepted".into()),
    }
    println!("ok");
    Ok(())
}
