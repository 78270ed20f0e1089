#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Byte encodings of the keys (public, relinearization, Galois, secret) on the CPU backend:
//! round trips that give working keys, and errors (never panics) on every kind of bad input.

use std::sync::Arc;

use bfv::{BatchEncoder, BfvContext, BfvError, BfvParameters, Ciphertext, Preset};
use poly::{Backend, CpuBackend, PolyError, Seed, TransformKind};
use rand::{Rng, SeedableRng, rngs::StdRng};

fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

fn secure_4096(transform: TransformKind) -> Arc<BfvParameters> {
    Preset::Secure { log_degree: 12 }.builder().unwrap().transform(transform).build().unwrap()
}

/// `N = 2^14`, 8 ciphertext primes, 4 special primes: hybrid key switching with 2 digits.
fn hybrid_16384() -> Arc<BfvParameters> {
    Preset::Phantom { log_degree: 14, hybrid: true }.builder().unwrap().allow_insecure(true).build().unwrap()
}

/// The length of a key encoding's header under `params`.
fn key_header_len(params: &BfvParameters) -> usize {
    8 + 1 + 1 + 4 + 4 + 8 * params.ciphertext_moduli().len() + 8 + 4 + 4 + 8 * params.special_moduli().len() + 1
}

/// The key set's identifier that ends every encoding (from format version 2).
const KEY_SET: usize = 8;

/// The form byte before a public or key-switching key's polynomials (format version 3).
const FORM: usize = 1;

/// The bytes of a polynomial over `moduli` (`n` words per limb), packed to the primes' widths.
fn packed(moduli: &[u64], n: usize) -> usize {
    rlwe::framing::packed_poly_bytes(moduli, n)
}

/// The primes of `q` and of `qP`.
fn primes(params: &BfvParameters) -> (Vec<u64>, Vec<u64>) {
    let q = params.ciphertext_moduli().to_vec();
    let qp = [params.ciphertext_moduli(), params.special_moduli()].concat();
    (q, qp)
}

/// Sets word `index` of limb `limb` of the packed polynomial over `moduli` (`n` words per limb)
/// that starts at byte `start` to `value` (cut to the limb's width).
fn set_packed(bytes: &mut [u8], start: usize, moduli: &[u64], n: usize, limb: usize, index: usize, value: u64) {
    let limb_start = start + packed(&moduli[..limb], n);
    let width = rlwe::framing::bit_width(moduli[limb]) as usize;
    for bit in 0..width {
        let position = index * width + bit;
        let (byte, shift) = (limb_start + position / 8, position % 8);
        if (value >> bit) & 1 == 1 {
            bytes[byte] |= 1 << shift;
        } else {
            bytes[byte] &= !(1 << shift);
        }
    }
}

/// Every key of one context, with the bytes of each.
struct Keys {
    context: BfvContext<CpuBackend>,
    encoder: BatchEncoder,
    secret: bfv::SecretKey<CpuBackend>,
    public: bfv::PublicKey<CpuBackend>,
    relin: bfv::RelinKey<CpuBackend>,
    galois: bfv::GaloisKeys<CpuBackend>,
    secret_bytes: Vec<u8>,
    public_bytes: Vec<u8>,
    relin_bytes: Vec<u8>,
    galois_bytes: Vec<u8>,
}

impl Keys {
    fn new(params: &Arc<BfvParameters>) -> Self {
        let context = BfvContext::new(CpuBackend, params).unwrap();
        let encoder = BatchEncoder::new(params).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let elements = [
            context.galois_element_for_row_rotation(1),
            context.galois_element_for_row_rotation(-2),
            context.galois_element_for_row_swap(),
        ];
        let galois = context.galois_keys_from_seed(&secret, &elements, &seed(4)).unwrap();
        let secret_bytes = context.secret_key_to_bytes(&secret).unwrap();
        let public_bytes = context.public_key_to_bytes(&public).unwrap();
        let relin_bytes = context.relin_key_to_bytes(&relin).unwrap();
        let galois_bytes = context.galois_keys_to_bytes(&galois).unwrap();
        Self { context, encoder, secret, public, relin, galois, secret_bytes, public_bytes, relin_bytes, galois_bytes }
    }

    /// Decodes `bytes` with each of the four key decoders, and the ciphertext decoders: the
    /// results are dropped, only panics matter.
    fn decode_everything(&self, bytes: &[u8]) {
        let context = &self.context;
        let _ = context.public_key_from_bytes(bytes);
        let _ = context.relin_key_from_bytes(bytes);
        let _ = context.galois_keys_from_bytes(bytes);
        let _ = context.secret_key_from_bytes(bytes);
        let _ = context.ciphertext_from_bytes(bytes);
        let _ = context.seeded_from_bytes(bytes);
    }
}

fn cipher_bytes(context: &BfvContext<CpuBackend>, ciphertext: &Ciphertext<CpuBackend>) -> Vec<u8> {
    context.ciphertext_to_bytes(ciphertext).unwrap()
}

/// Round trips of every key under `params`: equal polynomials, equal re-encodings, and keys
/// that work exactly as the originals.
fn round_trip(params: &Arc<BfvParameters>) {
    let label = format!("N = {}, {:?}, K = {}", params.degree(), params.transform(), params.special_moduli().len());
    let keys = Keys::new(params);
    let Keys { context, encoder, secret, public, relin, galois, .. } = &keys;
    let backend = context.backend();

    // The layout's sizes: header, then the polynomials.
    let header = key_header_len(params);
    let (q, qp) = primes(params);
    let (q_bytes, qp_bytes) = (packed(&q, params.degree()), packed(&qp, params.degree()));
    let digits = params.key_switch_tables().num_digits();
    assert_eq!(relin.digits().len(), digits, "{label}");
    assert_eq!(keys.public_bytes.len(), header + FORM + 2 * q_bytes + KEY_SET, "{label}");
    assert_eq!(keys.relin_bytes.len(), header + FORM + digits * 2 * qp_bytes + KEY_SET, "{label}");
    let per_element = 8 + FORM + digits * 2 * qp_bytes;
    assert_eq!(keys.galois_bytes.len(), header + galois.len() * per_element + KEY_SET, "{label}");
    assert_eq!(keys.secret_bytes.len(), header + q_bytes + qp_bytes + KEY_SET, "{label}");

    // Public key: the same polynomials.
    let public_back = context.public_key_from_bytes(&keys.public_bytes).unwrap();
    let (b, a) = public.polys();
    let (b_back, a_back) = public_back.polys();
    assert_eq!(backend.download(b_back).unwrap(), backend.download(b).unwrap(), "{label}");
    assert_eq!(backend.download(a_back).unwrap(), backend.download(a).unwrap(), "{label}");
    assert_eq!(context.public_key_to_bytes(&public_back).unwrap(), keys.public_bytes, "{label}");

    // Relinearization key: the same digit pairs.
    let relin_back = context.relin_key_from_bytes(&keys.relin_bytes).unwrap();
    assert_eq!(relin_back.digits().len(), digits, "{label}");
    for ((b, a), (b_back, a_back)) in relin.digits().iter().zip(relin_back.digits()) {
        assert_eq!(backend.download(b_back).unwrap(), backend.download(b).unwrap(), "{label}");
        assert_eq!(backend.download(a_back).unwrap(), backend.download(a).unwrap(), "{label}");
    }
    assert_eq!(context.relin_key_to_bytes(&relin_back).unwrap(), keys.relin_bytes, "{label}");

    // Galois keys: the same elements and digit pairs.
    let galois_back = context.galois_keys_from_bytes(&keys.galois_bytes).unwrap();
    assert_eq!(galois_back.elements(), galois.elements(), "{label}");
    for element in galois.elements() {
        let (original, back) = (galois.key(element).unwrap(), galois_back.key(element).unwrap());
        assert_eq!(back.len(), digits, "{label}");
        for ((b, a), (b_back, a_back)) in original.iter().zip(back) {
            assert_eq!(backend.download(b_back).unwrap(), backend.download(b).unwrap(), "{label} {element}");
            assert_eq!(backend.download(a_back).unwrap(), backend.download(a).unwrap(), "{label} {element}");
        }
    }
    assert_eq!(context.galois_keys_to_bytes(&galois_back).unwrap(), keys.galois_bytes, "{label}");

    // Secret key: no accessor for its polynomials; the re-encoding is the same, and keys
    // derived from it are the same as those from the original.
    let secret_back = context.secret_key_from_bytes(&keys.secret_bytes).unwrap();
    assert_eq!(context.secret_key_to_bytes(&secret_back).unwrap(), keys.secret_bytes, "{label}");
    let public_again = context.public_key_from_seed(&secret_back, &seed(2)).unwrap();
    assert_eq!(context.public_key_to_bytes(&public_again).unwrap(), keys.public_bytes, "{label}");
    let relin_again = context.relin_key_from_seed(&secret_back, &seed(3)).unwrap();
    assert_eq!(context.relin_key_to_bytes(&relin_again).unwrap(), keys.relin_bytes, "{label}");
    let galois_again = context.galois_keys_from_seed(&secret_back, &galois.elements(), &seed(4)).unwrap();
    assert_eq!(context.galois_keys_to_bytes(&galois_again).unwrap(), keys.galois_bytes, "{label}");

    // The decoded keys work: encryption under the decoded public key is the same ciphertext
    // as under the original, and the decoded secret key decrypts it.
    let t = params.plaintext_modulus();
    let slots = params.degree();
    let mut rng = StdRng::seed_from_u64(11);
    let x: Vec<u64> = (0..slots).map(|_| rng.gen_range(0..t)).collect();
    let y: Vec<u64> = (0..slots).map(|_| rng.gen_range(0..t)).collect();
    let px = encoder.encode(&x).unwrap();
    let cx = context.encrypt_with_seed(&px, public, &seed(5)).unwrap();
    let cx_back = context.encrypt_with_seed(&px, &public_back, &seed(5)).unwrap();
    assert_eq!(cipher_bytes(context, &cx_back), cipher_bytes(context, &cx), "{label}");
    assert_eq!(encoder.decode(&context.decrypt(&cx_back, &secret_back).unwrap()).unwrap(), x, "{label}");
    assert_eq!(encoder.decode(&context.decrypt(&cx, &secret_back).unwrap()).unwrap(), x, "{label}");
    let cy = context.encrypt_with_seed(&encoder.encode(&y).unwrap(), &public_back, &seed(6)).unwrap();
    assert_eq!(encoder.decode(&context.decrypt(&cy, secret).unwrap()).unwrap(), y, "{label}");

    // Relinearization with the decoded key: the same ciphertext.
    let product = context.mul(&cx, &cy).unwrap();
    let relinearized = context.relinearize(&product, relin).unwrap();
    let relinearized_back = context.relinearize(&product, &relin_back).unwrap();
    assert_eq!(cipher_bytes(context, &relinearized_back), cipher_bytes(context, &relinearized), "{label}");
    let m = modarith::Modulus::new(t).unwrap();
    let expected: Vec<u64> = x.iter().zip(&y).map(|(&u, &v)| m.mul(u, v)).collect();
    assert_eq!(
        encoder.decode(&context.decrypt(&relinearized_back, &secret_back).unwrap()).unwrap(),
        expected,
        "{label}"
    );

    // Rotations with the decoded Galois keys: the same ciphertexts.
    for steps in [1, -2] {
        let rotated = context.rotate_rows(&cx, steps, galois).unwrap();
        let rotated_back = context.rotate_rows(&cx, steps, &galois_back).unwrap();
        assert_eq!(cipher_bytes(context, &rotated_back), cipher_bytes(context, &rotated), "{label} {steps}");
        let row = slots / 2;
        let shift = steps.rem_euclid(row as i64) as usize;
        let expected: Vec<u64> = (0..slots).map(|i| x[(i / row) * row + (i % row + shift) % row]).collect();
        assert_eq!(
            encoder.decode(&context.decrypt(&rotated_back, &secret_back).unwrap()).unwrap(),
            expected,
            "{label} {steps}"
        );
    }
    let swapped = context.rotate_columns(&cx, galois).unwrap();
    let swapped_back = context.rotate_columns(&cx, &galois_back).unwrap();
    assert_eq!(cipher_bytes(context, &swapped_back), cipher_bytes(context, &swapped), "{label} swap");
}

#[test]
fn keys_round_trip_ntt() {
    round_trip(&secure_4096(TransformKind::Ntt));
}

#[test]
fn keys_round_trip_dgt() {
    round_trip(&secure_4096(TransformKind::Dgt));
}

#[test]
fn keys_round_trip_hybrid_special_primes() {
    let params = hybrid_16384();
    assert_eq!(params.special_moduli().len(), 4);
    assert_eq!(params.key_switch_tables().num_digits(), 2);
    round_trip(&params);
}

#[test]
fn empty_galois_keys_round_trip() {
    let params = secure_4096(TransformKind::Ntt);
    let context = BfvContext::new(CpuBackend, &params).unwrap();
    let secret = context.secret_key_from_seed(&seed(1)).unwrap();
    let empty = context.galois_keys_from_seed(&secret, &[], &seed(4)).unwrap();
    let bytes = context.galois_keys_to_bytes(&empty).unwrap();
    assert_eq!(bytes.len(), key_header_len(&params) + KEY_SET);
    assert!(context.galois_keys_from_bytes(&bytes).unwrap().is_empty());
}

fn is_malformed<T>(result: bfv::Result<T>) -> bool {
    matches!(result, Err(BfvError::Malformed { .. }))
}

fn is_mismatch<T>(result: bfv::Result<T>) -> bool {
    matches!(result, Err(BfvError::ParameterMismatch { .. }))
}

fn is_out_of_range<T>(result: bfv::Result<T>) -> bool {
    matches!(result, Err(BfvError::Poly(PolyError::CoefficientOutOfRange { .. })))
}

/// One decoder with the bytes of its kind.
type Decode<'a> = Box<dyn Fn(&[u8]) -> bfv::Result<()> + 'a>;

fn decoders(keys: &Keys) -> Vec<(&'static str, Vec<u8>, Decode<'_>)> {
    let context = &keys.context;
    let public: Decode<'_> = Box::new(|b| context.public_key_from_bytes(b).map(drop));
    let relin: Decode<'_> = Box::new(|b| context.relin_key_from_bytes(b).map(drop));
    let galois: Decode<'_> = Box::new(|b| context.galois_keys_from_bytes(b).map(drop));
    let secret: Decode<'_> = Box::new(|b| context.secret_key_from_bytes(b).map(drop));
    vec![
        ("public key", keys.public_bytes.clone(), public),
        ("relin key", keys.relin_bytes.clone(), relin),
        ("Galois keys", keys.galois_bytes.clone(), galois),
        ("secret key", keys.secret_bytes.clone(), secret),
    ]
}

#[test]
fn truncated_trailing_and_bad_header_bytes_are_malformed() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let header = key_header_len(&params);
    for (name, bytes, decode) in decoders(&keys) {
        assert!(decode(&bytes).is_ok(), "{name}");
        for cut in [0, 1, 7, 8, 9, 10, 14, header - 1, header, header + 7, header + 8, bytes.len() / 2, bytes.len() - 1]
        {
            assert!(is_malformed(decode(&bytes[..cut])), "{name} cut at {cut}");
        }
        assert!(is_malformed(decode(&[bytes.as_slice(), &[0]].concat())), "{name} trailing byte");
        let mut bad_magic = bytes.clone();
        bad_magic[0] ^= 1;
        assert!(is_malformed(decode(&bad_magic)), "{name} magic");
        let mut bad_version = bytes.clone();
        bad_version[8] = 4;
        assert!(is_malformed(decode(&bad_version)), "{name} version");
        bad_version[8] = 0;
        assert!(is_malformed(decode(&bad_version)), "{name} version");
        // 3 is Bluestein's transform (rings Phi_m): known, another ring's, so a mismatch; 4 and
        // above are no transform.
        let mut unknown_transform = bytes.clone();
        unknown_transform[header - 1] = 3;
        assert!(is_mismatch(decode(&unknown_transform)), "{name} transform byte 3 (Bluestein's)");
        for code in [4u8, 255] {
            unknown_transform[header - 1] = code;
            assert!(is_malformed(decode(&unknown_transform)), "{name} transform byte {code}");
        }
        let count = header - 1 - 8 * params.special_moduli().len() - 4 - 4;
        let mut huge = bytes.clone();
        huge[count..count + 4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(is_malformed(decode(&huge)), "{name} count u32::MAX");
        let mut one_more = bytes.clone();
        let actual = u32::from_le_bytes(bytes[count..count + 4].try_into().unwrap());
        one_more[count..count + 4].copy_from_slice(&(actual + 1).to_le_bytes());
        assert!(is_malformed(decode(&one_more)), "{name} count + 1");
    }
    assert!(is_malformed(keys.context.public_key_from_bytes(b"not a key")));
    assert!(is_malformed(keys.context.secret_key_from_bytes(&[])));
}

#[test]
fn bytes_of_another_kind_are_malformed() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let context = &keys.context;
    let ciphertext = context.encrypt_with_seed(&keys.encoder.encode(&[1, 2]).unwrap(), &keys.public, &seed(5)).unwrap();
    let ciphertext_bytes = context.ciphertext_to_bytes(&ciphertext).unwrap();
    let seeded =
        context.encrypt_symmetric_with_seeds(&keys.encoder.encode(&[1]).unwrap(), &keys.secret, &seed(6), &seed(7));
    let seeded_bytes = context.seeded_to_bytes(&seeded.unwrap()).unwrap();
    assert!(is_malformed(context.public_key_from_bytes(&ciphertext_bytes)));
    assert!(is_malformed(context.public_key_from_bytes(&seeded_bytes)));
    assert!(is_malformed(context.relin_key_from_bytes(&ciphertext_bytes)));
    assert!(is_malformed(context.galois_keys_from_bytes(&ciphertext_bytes)));
    assert!(is_malformed(context.secret_key_from_bytes(&ciphertext_bytes)));
    assert!(is_malformed(context.ciphertext_from_bytes(&keys.public_bytes)));
    assert!(is_malformed(context.seeded_from_bytes(&keys.secret_bytes)));
    let all = [&keys.public_bytes, &keys.relin_bytes, &keys.galois_bytes, &keys.secret_bytes];
    for (i, bytes) in all.iter().enumerate() {
        if i != 0 {
            assert!(is_malformed(context.public_key_from_bytes(bytes)), "kind {}", i + 3);
        }
        if i != 1 {
            assert!(is_malformed(context.relin_key_from_bytes(bytes)), "kind {}", i + 3);
        }
        if i != 2 {
            assert!(is_malformed(context.galois_keys_from_bytes(bytes)), "kind {}", i + 3);
        }
        if i != 3 {
            assert!(is_malformed(context.secret_key_from_bytes(bytes)), "kind {}", i + 3);
        }
        assert!(is_malformed(context.ciphertext_from_bytes(bytes)), "kind {}", i + 3);
    }
    // The error names what was being decoded.
    match context.relin_key_from_bytes(&keys.public_bytes) {
        Err(BfvError::Malformed { what, .. }) => assert_eq!(what, "relinearization key bytes"),
        other => panic!("{other:?}"),
    }
    match context.public_key_from_bytes(&ciphertext_bytes) {
        Err(BfvError::Malformed { what, .. }) => assert_eq!(what, "public key bytes"),
        other => panic!("{other:?}"),
    }
    match context.ciphertext_from_bytes(&[]) {
        Err(BfvError::Malformed { what, .. }) => assert_eq!(what, "ciphertext bytes"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn other_parameters_are_a_mismatch() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let others = [
        ("DGT", secure_4096(TransformKind::Dgt)),
        ("HDGT", secure_4096(TransformKind::HierarchicalDgt)),
        ("other t", Preset::Secure { log_degree: 12 }.builder().unwrap().plaintext_modulus(65537).build().unwrap()),
        (
            "other special prime",
            Preset::Secure { log_degree: 12 }.builder().unwrap().special_moduli_bits(&[30]).build().unwrap(),
        ),
        ("other preset", Preset::Phantom { log_degree: 12, hybrid: false }.build().unwrap()),
        ("other degree", hybrid_16384()),
    ];
    for (name, other_params) in &others {
        let other = BfvContext::new(CpuBackend, other_params).unwrap();
        assert!(is_mismatch(other.public_key_from_bytes(&keys.public_bytes)), "{name}");
        assert!(is_mismatch(other.relin_key_from_bytes(&keys.relin_bytes)), "{name}");
        assert!(is_mismatch(other.galois_keys_from_bytes(&keys.galois_bytes)), "{name}");
        assert!(is_mismatch(other.secret_key_from_bytes(&keys.secret_bytes)), "{name}");
        if *name == "other t" {
            // Keys belong to the ring (the RLWE core's parameters), not to t: a context of the
            // same ring with another t encodes them, under its own header, and decodes them.
            let bytes = other.public_key_to_bytes(&keys.public).unwrap();
            assert!(other.public_key_from_bytes(&bytes).is_ok(), "{name}");
            let bytes = other.relin_key_to_bytes(&keys.relin).unwrap();
            assert!(other.relin_key_from_bytes(&bytes).is_ok(), "{name}");
            continue;
        }
        // And encoding a key of other parameters is refused.
        assert!(is_mismatch(other.public_key_to_bytes(&keys.public)), "{name}");
        assert!(is_mismatch(other.relin_key_to_bytes(&keys.relin)), "{name}");
        assert!(is_mismatch(other.galois_keys_to_bytes(&keys.galois)), "{name}");
        assert!(is_mismatch(other.secret_key_to_bytes(&keys.secret)), "{name}");
    }

    // Each header field changed in place.
    let l = params.ciphertext_moduli().len();
    let header = key_header_len(&params);
    let special_offset = header - 1 - 8 * params.special_moduli().len();
    let fields = [
        ("N", 10),
        ("L", 14),
        ("q_0", 18),
        ("t", 18 + 8 * l),
        ("K", special_offset - 4),
        ("p_0", special_offset),
        ("transform", header - 1),
    ];
    for (name, bytes, decode) in decoders(&keys) {
        for &(field, offset) in &fields {
            let mut changed = bytes.clone();
            // +1 keeps the transform byte a known transform (NTT 0 -> DGT 1).
            changed[offset] = changed[offset].wrapping_add(1);
            assert!(is_mismatch(decode(&changed)), "{name}: {field}");
        }
    }
}

/// Sets the word at byte `offset` to `value`.
fn set_word(bytes: &mut [u8], offset: usize, value: u64) {
    bytes[offset..offset + 8].copy_from_slice(&value.to_le_bytes());
}

#[test]
fn a_word_not_below_its_prime_is_a_poly_error() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let header = key_header_len(&params);
    let n = params.degree();
    let (q, qp) = primes(&params);
    let p = params.special_moduli();
    let (q_bytes, qp_bytes) = (packed(&q, n), packed(&qp, n));
    let context = &keys.context;

    // Public key: the first word of b (limb q_0) and the last of a (limb q_{L-1}), after the
    // form byte.
    let body = header + FORM;
    let mut bytes = keys.public_bytes.clone();
    set_packed(&mut bytes, body, &q, n, 0, 0, q[0]);
    assert!(is_out_of_range(context.public_key_from_bytes(&bytes)));
    let mut bytes = keys.public_bytes.clone();
    set_packed(&mut bytes, body + q_bytes, &q, n, q.len() - 1, n - 1, q[q.len() - 1]);
    assert!(is_out_of_range(context.public_key_from_bytes(&bytes)));
    let mut bytes = keys.public_bytes.clone();
    set_packed(&mut bytes, body, &q, n, 0, 0, u64::MAX);
    assert!(is_out_of_range(context.public_key_from_bytes(&bytes)));

    // Relinearization key: a word of the special limb of b_0, the first word of a_1.
    let mut bytes = keys.relin_bytes.clone();
    set_packed(&mut bytes, body, &qp, n, q.len(), 5, p[0]);
    assert!(is_out_of_range(context.relin_key_from_bytes(&bytes)));
    let mut bytes = keys.relin_bytes.clone();
    set_packed(&mut bytes, body + 3 * qp_bytes, &qp, n, 0, 0, q[0]);
    assert!(is_out_of_range(context.relin_key_from_bytes(&bytes)));

    // Galois keys: the first word of the second element's b_0.
    let per_element = 8 + FORM + params.key_switch_tables().num_digits() * 2 * qp_bytes;
    let mut bytes = keys.galois_bytes.clone();
    set_packed(&mut bytes, header + per_element + 8 + FORM, &qp, n, 0, 0, q[0]);
    assert!(is_out_of_range(context.galois_keys_from_bytes(&bytes)));

    // Secret key (no form byte): a word of s over q, and one of the special limb of s over qP.
    let mut bytes = keys.secret_bytes.clone();
    set_packed(&mut bytes, header, &q, n, 0, 1, q[0]);
    assert!(is_out_of_range(context.secret_key_from_bytes(&bytes)));
    let mut bytes = keys.secret_bytes.clone();
    set_packed(&mut bytes, header + q_bytes, &qp, n, q.len(), 0, p[0]);
    assert!(is_out_of_range(context.secret_key_from_bytes(&bytes)));
}

#[test]
fn bad_galois_elements_are_rejected() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let context = &keys.context;
    let header = key_header_len(&params);
    let (_, qp) = primes(&params);
    let qp_bytes = packed(&qp, params.degree());
    let per_element = 8 + FORM + params.key_switch_tables().num_digits() * 2 * qp_bytes;
    let elements = keys.galois.elements();
    assert_eq!(elements.len(), 3);
    let element_offset = |i: usize| header + i * per_element;
    let read = |bytes: &[u8], i: usize| u64::from_le_bytes(bytes[element_offset(i)..][..8].try_into().unwrap());
    for (i, &element) in elements.iter().enumerate() {
        assert_eq!(read(&keys.galois_bytes, i), element, "ascending order");
    }
    let two_n = 2 * params.degree() as u64;
    for bad in [0, 2, elements[0] + 1, two_n, two_n + 1, u64::MAX] {
        let mut bytes = keys.galois_bytes.clone();
        set_word(&mut bytes, element_offset(0), bad);
        let result = context.galois_keys_from_bytes(&bytes);
        assert!(
            matches!(result, Err(BfvError::InvalidGaloisElement { element, two_n: m }) if element == bad && m == two_n),
            "{bad}: {result:?}"
        );
    }
    // A duplicated element.
    let mut bytes = keys.galois_bytes.clone();
    set_word(&mut bytes, element_offset(1), elements[0]);
    assert!(is_malformed(context.galois_keys_from_bytes(&bytes)));
    let mut bytes = keys.galois_bytes.clone();
    set_word(&mut bytes, element_offset(2), elements[1]);
    assert!(is_malformed(context.galois_keys_from_bytes(&bytes)));
    // Out of order: the first two elements swapped (their keys with them).
    let mut swapped = keys.galois_bytes[..header].to_vec();
    swapped.extend_from_slice(&keys.galois_bytes[element_offset(1)..element_offset(2)]);
    swapped.extend_from_slice(&keys.galois_bytes[element_offset(0)..element_offset(1)]);
    swapped.extend_from_slice(&keys.galois_bytes[element_offset(2)..]);
    assert_eq!(swapped.len(), keys.galois_bytes.len());
    assert!(is_malformed(context.galois_keys_from_bytes(&swapped)));
    // Fewer elements than the count says, and the count lowered (trailing bytes).
    let count_offset = header - 1 - 8 * params.special_moduli().len() - 4 - 4;
    let mut fewer = keys.galois_bytes.clone();
    fewer[count_offset..count_offset + 4].copy_from_slice(&2u32.to_le_bytes());
    assert!(is_malformed(context.galois_keys_from_bytes(&fewer)));
    let key_set = &fewer[fewer.len() - KEY_SET..];
    assert!(context.galois_keys_from_bytes(&[&fewer[..element_offset(2)], key_set].concat()).is_ok());
}

#[test]
fn random_and_corrupted_bytes_never_panic() {
    let params = secure_4096(TransformKind::Ntt);
    let keys = Keys::new(&params);
    let header = key_header_len(&params);
    let mut rng = StdRng::seed_from_u64(42);
    // Random strings, bare and behind a valid prefix of each encoding.
    for _ in 0..200 {
        let len = rng.gen_range(0..2 * header);
        let random: Vec<u8> = (0..len).map(|_| rng.r#gen()).collect();
        keys.decode_everything(&random);
        for valid in [&keys.public_bytes, &keys.relin_bytes, &keys.galois_bytes, &keys.secret_bytes] {
            let cut = rng.gen_range(0..=header);
            let mut prefixed = valid[..cut].to_vec();
            prefixed.extend_from_slice(&random);
            keys.decode_everything(&prefixed);
        }
    }
    // Single-byte corruptions, mostly in the header where the structure is.
    for (name, bytes, decode) in decoders(&keys) {
        for round in 0..150 {
            let mut corrupted = bytes.clone();
            let offset = if round % 3 == 0 { rng.gen_range(0..bytes.len()) } else { rng.gen_range(0..header + 16) };
            corrupted[offset] = rng.r#gen();
            let _ = decode(&corrupted);
            if round % 25 == 0 {
                keys.decode_everything(&corrupted);
            }
        }
        assert!(decode(&bytes).is_ok(), "{name}");
    }
}
