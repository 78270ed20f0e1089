//! The low-level public helpers of bfv and rns on arbitrary arguments (degrees, lengths,
//! values): decryption's scale-and-round, the RNS steps, the plaintext scaling and lifting,
//! RNS base checks. Errors are fine; panics, aborts and huge allocations are not.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    which: u8,
    degree: usize,
    words: Vec<u64>,
    output_len: u16,
    t: u64,
    q_mod_t: u64,
}

fuzz_target!(|input: Input| {
    let fixture = hegpu_fuzz::bfv_fixture();
    let params = fixture.context.params();
    let tables = params.multiplication_tables();
    let degree = input.degree;
    match input.which % 6 {
        0 => {
            let _ = bfv::backend::decrypt_scale_host(tables, degree, &input.words);
        }
        1 | 2 => {
            let (hps, behz) = hegpu_fuzz::rns_tables();
            let mut output = vec![0u64; usize::from(input.output_len)];
            {
                for step in [
                    bfv::backend::RnsStep::HpsExtend(hps),
                    bfv::backend::RnsStep::HpsScaleDown(hps),
                    bfv::backend::RnsStep::BehzExtend(behz),
                    bfv::backend::RnsStep::BehzScaleDown(behz),
                ] {
                    let _ = step.apply(degree, &input.words, &mut output);
                }
            }
        }
        3 => {
            let ring = params.ring_q();
            let delta: Vec<u64> = input.words.iter().take(ring.num_limbs()).copied().collect();
            if let Ok(scaling) = rlwe::PlaintextScaling::new(ring.moduli(), &delta, input.q_mod_t, input.t) {
                let _ = scaling.lift_host(ring, &input.words);
                let _ = scaling.scale_host(ring, &input.words);
            }
        }
        4 => {
            if let Ok(base) = rns::RnsBase::new(params.ciphertext_moduli()) {
                let _ = base.check_poly(&input.words, degree, "fuzz");
                let _ = base.check_poly_any_degree(&input.words, "fuzz");
                let _ = base.reconstruct_poly(&input.words);
                let _ = base.mixed_radix_digits(&input.words);
            }
        }
        _ => {
            let ring = poly::RingKind::NegacyclicPowerOfTwo { degree: 1024 };
            let _ = rlwe::galois_key::check_galois_element(ring, input.t);
            let _ = rlwe::galois_key::galois_element_for_row_rotation(1024, input.q_mod_t as i64);
            let plain = bfv::Plaintext::from_coefficients(params, &input.words);
            if let Ok(plain) = plain {
                let _ = bfv::BatchEncoder::new(params).and_then(|e| e.decode(&plain));
            }
        }
    }
});
