//! Shared pieces of the fuzz targets: small contexts built once, valid encodings of every
//! object to mutate, and the mutation of an encoding by the fuzzer's bytes.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::{Arc, OnceLock};

use poly::{CpuBackend, Seed};

pub fn seed(byte: u8) -> Seed {
    Seed::from([byte; 32])
}

/// Runs `check` on the bytes to decode: the raw input (first byte even), or one of `valid`
/// (chosen by the second byte) edited by the rest: pairs (position, xor) and, by the third
/// byte, a cut or an extension, so that the deep checks (words, counts, trailers) are reached
/// quickly. The edited copy lives in one buffer per thread, reused from input to input (a
/// fresh allocation of a key's encoding per input cost more than the decoding).
pub fn with_input_bytes<T>(data: &[u8], valid: &[Vec<u8>], check: impl FnOnce(&[u8]) -> T) -> T {
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    let Some((&mode, rest)) = data.split_first() else { return check(&[]) };
    if mode % 2 == 0 || valid.is_empty() {
        return check(rest);
    }
    let Some((&which, rest)) = rest.split_first() else { return check(&[]) };
    BUFFER.with_borrow_mut(|bytes| {
        bytes.clear();
        bytes.extend_from_slice(&valid[which as usize % valid.len()]);
        let Some((&shape, rest)) = rest.split_first() else { return check(bytes) };
        for pair in rest.chunks_exact(4) {
            if bytes.is_empty() {
                break;
            }
            let position = u32::from_le_bytes([pair[0], pair[1], pair[2], 0]) as usize % bytes.len();
            bytes[position] ^= pair[3];
        }
        match shape % 4 {
            1 => {
                let cut = (usize::from(shape) * 7919) % (bytes.len() + 1);
                bytes.truncate(cut);
            }
            2 => bytes.extend_from_slice(&rest[..rest.len().min(16)]),
            _ => {}
        }
        check(bytes)
    })
}

pub struct BfvFixture {
    pub context: bfv::BfvContext<CpuBackend>,
    pub valid: Vec<Vec<u8>>,
}

/// BFV at `N = 1024`, two 30-bit primes and one special prime, `t = 65537`.
pub fn bfv_fixture() -> &'static BfvFixture {
    static FIXTURE: OnceLock<BfvFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let params: Arc<bfv::BfvParameters> = bfv::BfvParametersBuilder::new(1024)
            .ciphertext_moduli_bits(&[30, 30])
            .special_moduli_bits(&[31])
            .plaintext_modulus(65537)
            .allow_insecure(true)
            .build()
            .unwrap();
        let context = bfv::BfvContext::new(CpuBackend, &params).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let galois = context
            .galois_keys_from_seed(
                &secret,
                &[context.galois_element_for_row_rotation(1), context.galois_element_for_row_swap()],
                &seed(4),
            )
            .unwrap();
        let encoder = bfv::BatchEncoder::new(&params).unwrap();
        let plain = encoder.encode(&[1, 2, 3]).unwrap();
        let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
        let low = context.mod_switch_to_next(&ct).unwrap();
        let seeded = context.encrypt_symmetric_with_seeds(&plain, &secret, &seed(6), &seed(7)).unwrap();
        let valid = vec![
            context.ciphertext_to_bytes(&ct).unwrap(),
            context.ciphertext_to_bytes(&low).unwrap(),
            context.seeded_to_bytes(&seeded).unwrap(),
            context.public_key_to_bytes(&public).unwrap(),
            context.relin_key_to_bytes(&relin).unwrap(),
            context.galois_keys_to_bytes(&galois).unwrap(),
            context.secret_key_to_bytes(&secret).unwrap(),
        ];
        BfvFixture { context, valid }
    })
}

pub struct BgvFixture {
    pub context: bgv_encrypt::BgvContext<CpuBackend>,
    pub valid: Vec<Vec<u8>>,
}

/// BGV at `N = 1024`, two 30-bit primes and one special prime, `t = 65537`.
pub fn bgv_fixture() -> &'static BgvFixture {
    static FIXTURE: OnceLock<BgvFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let params = bgv_encrypt::BgvParametersBuilder::new(1024)
            .ciphertext_moduli_bits(&[30, 30])
            .special_moduli_bits(&[31])
            .plaintext_modulus(65537)
            .allow_insecure(true)
            .build()
            .unwrap();
        let context = bgv_encrypt::BgvContext::new(CpuBackend, &params).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let galois =
            context.galois_keys_from_seed(&secret, &[context.galois_element_for_row_rotation(1)], &seed(4)).unwrap();
        let encoder = bgv_encrypt::BatchEncoder::new(&params).unwrap();
        let plain = encoder.encode(&[1, 2, 3]).unwrap();
        let ct = context.encrypt_with_seed(&plain, &public, &seed(5)).unwrap();
        let low = context.mod_switch_to_next(&ct).unwrap();
        let seeded = context.encrypt_symmetric_with_seeds(&plain, &secret, &seed(6), &seed(7)).unwrap();
        let valid = vec![
            context.ciphertext_to_bytes(&ct).unwrap(),
            context.ciphertext_to_bytes(&low).unwrap(),
            context.seeded_to_bytes(&seeded).unwrap(),
            context.public_key_to_bytes(&public).unwrap(),
            context.relin_key_to_bytes(&relin).unwrap(),
            context.galois_keys_to_bytes(&galois).unwrap(),
            context.secret_key_to_bytes(&secret).unwrap(),
        ];
        BgvFixture { context, valid }
    })
}

/// BGV over `Phi_255` (degree `phi(255) = 128`), two 40-bit primes and one special prime,
/// `t = 1021` (a prime `= 1 mod 255`: 128 slots, by direct evaluation, as `t != 1 mod 2M`).
pub fn phi_m_fixture() -> &'static Arc<bgv_encrypt::BgvParameters> {
    static FIXTURE: OnceLock<Arc<bgv_encrypt::BgvParameters>> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        bgv_encrypt::BgvParametersBuilder::new_cyclotomic(255)
            .ciphertext_moduli_bits(&[40, 40])
            .special_moduli_bits(&[45])
            .plaintext_modulus(1021)
            .allow_insecure(true)
            .build()
            .unwrap()
    })
}

/// HPS and BEHZ tables at `N = 1024` over the BFV fixture's primes, `t = 65537`.
pub fn rns_tables() -> &'static (rns::HpsContext, rns::BehzContext) {
    static TABLES: OnceLock<(rns::HpsContext, rns::BehzContext)> = OnceLock::new();
    TABLES.get_or_init(|| {
        let q = bfv_fixture().context.params().ciphertext_moduli().to_vec();
        (
            rns::HpsContext::with_generated_moduli(1024, &q, 65537).unwrap(),
            rns::BehzContext::with_generated_moduli(1024, &q, 65537).unwrap(),
        )
    })
}

pub struct OpsFixture {
    pub context: bfv::BfvContext<CpuBackend>,
    pub encoder: bfv::BatchEncoder,
    pub secret: bfv::SecretKey<CpuBackend>,
    pub public: bfv::PublicKey<CpuBackend>,
    pub relin: bfv::RelinKey<CpuBackend>,
    pub galois: bfv::GaloisKeys<CpuBackend>,
}

/// BFV for operation sequences: `N = 1024`, three 50-bit primes, `t = 12289` (batching).
pub fn ops_fixture() -> &'static OpsFixture {
    static FIXTURE: OnceLock<OpsFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let params = bfv::BfvParametersBuilder::new(1024)
            .ciphertext_moduli_bits(&[50, 50, 50])
            .special_moduli_bits(&[51])
            .plaintext_modulus(12289)
            .allow_insecure(true)
            .build()
            .unwrap();
        let context = bfv::BfvContext::new(CpuBackend, &params).unwrap();
        let encoder = bfv::BatchEncoder::new(&params).unwrap();
        let secret = context.secret_key_from_seed(&seed(1)).unwrap();
        let public = context.public_key_from_seed(&secret, &seed(2)).unwrap();
        let relin = context.relin_key_from_seed(&secret, &seed(3)).unwrap();
        let galois =
            context.galois_keys_from_seed(&secret, &[context.galois_element_for_row_rotation(1)], &seed(4)).unwrap();
        OpsFixture { context, encoder, secret, public, relin, galois }
    })
}

/// The objects of the serde target, by index: parameters, plaintext, then the decoders'
/// order (ciphertext, ciphertext one level down, seeded ciphertext, public, relinearization,
/// Galois and secret keys).
pub const SERDE_OBJECTS: usize = 9;

/// Valid serialized forms of every object of both schemes in both formats:
/// `valid[scheme][format][object]`, scheme 0 = BFV, 1 = BGV, format 0 = postcard, 1 = JSON.
pub struct SerdeFixture {
    pub valid: [[Vec<Vec<u8>>; 2]; 2],
}

/// Bytes as a serde byte string (the form every object but the parameters takes).
struct Raw<'a>(&'a [u8]);

impl serde::Serialize for Raw<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(self.0)
    }
}

/// The bytes of a JSON seed that is an encoding's first bytes (its header and a little more).
pub const JSON_PREFIX: usize = 128;

/// The postcard forms of the parameters, the plaintext and `encodings`; their JSON forms, where
/// those of the plaintext, ciphertexts and keys hold only the first [`JSON_PREFIX`] bytes of
/// the encoding: a whole one (an array of 8,000 to 200,000 numbers) costs a millisecond or more
/// per input, and the bytes it carries reach the same decoder as postcard's.
fn serialized_forms<P: serde::Serialize>(params: &P, plaintext: &[u8], encodings: &[Vec<u8>]) -> [Vec<Vec<u8>>; 2] {
    let mut binary = vec![postcard::to_allocvec(params).unwrap(), postcard::to_allocvec(&Raw(plaintext)).unwrap()];
    let prefix = |bytes: &[u8]| serde_json::to_vec(&Raw(&bytes[..bytes.len().min(JSON_PREFIX)])).unwrap();
    let mut json = vec![serde_json::to_vec(params).unwrap(), prefix(plaintext)];
    for bytes in encodings {
        binary.push(postcard::to_allocvec(&Raw(bytes)).unwrap());
        json.push(prefix(bytes));
    }
    [binary, json]
}

pub fn serde_fixture() -> &'static SerdeFixture {
    static FIXTURE: OnceLock<SerdeFixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let bfv = bfv_fixture();
        let plain = bfv::BatchEncoder::new(bfv.context.params()).unwrap().encode(&[1, 2, 3]).unwrap();
        let bfv_plain = bfv.context.plaintext_to_bytes(&plain).unwrap();
        let bgv = bgv_fixture();
        let plain = bgv_encrypt::BatchEncoder::new(bgv.context.params()).unwrap().encode(&[1, 2, 3]).unwrap();
        let bgv_plain = bgv.context.plaintext_to_bytes(&plain).unwrap();
        SerdeFixture {
            valid: [
                serialized_forms(&**bfv.context.params(), &bfv_plain, &bfv.valid),
                serialized_forms(&**bgv.context.params(), &bgv_plain, &bgv.valid),
            ],
        }
    })
}
