//! The parameter builders (BFV, BGV, the presets) on arbitrary values: errors are fine,
//! panics are not. Degrees above 2^12 that would be valid are skipped (their tables take
//! seconds to build; the validation of everything else runs before that).
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
struct Input {
    degree: usize,
    ciphertext_bits: Vec<u32>,
    special_bits: Vec<u32>,
    ciphertext_primes: Vec<u64>,
    special_primes: Vec<u64>,
    explicit: bool,
    t: u64,
    behz: bool,
    transform: u8,
    insecure: bool,
    preset: (u8, u32, bool),
}

fuzz_target!(|input: Input| {
    let transform = match input.transform % 3 {
        0 => poly::TransformKind::Ntt,
        1 => poly::TransformKind::Dgt,
        _ => poly::TransformKind::HierarchicalDgt,
    };
    let (kind, log_degree, hybrid) = input.preset;
    let preset = match kind % 5 {
        0 => bfv::Preset::Secure { log_degree },
        1 => bfv::Preset::Phantom { log_degree, hybrid },
        2 => bfv::Preset::SpogBpavr { log_degree },
        3 => bfv::Preset::SpogBvma { log_degree },
        _ => bfv::Preset::GpuFv { log_degree },
    };
    let _ = preset.name();
    let _ = preset.depth();
    let _ = preset.is_secure_128();
    if input.degree > 4096 && input.degree.is_power_of_two() {
        return;
    }
    let too_many = input.ciphertext_bits.len() + input.special_bits.len() > 12
        || input.ciphertext_primes.len() + input.special_primes.len() > 12;
    if too_many {
        return;
    }
    let mut builder = bfv::BfvParametersBuilder::new(input.degree)
        .plaintext_modulus(input.t)
        .variant(if input.behz { bfv::MulVariant::Behz } else { bfv::MulVariant::Hps })
        .transform(transform)
        .allow_insecure(input.insecure);
    builder = if input.explicit {
        builder.ciphertext_moduli(&input.ciphertext_primes).special_moduli(&input.special_primes)
    } else {
        builder.ciphertext_moduli_bits(&input.ciphertext_bits).special_moduli_bits(&input.special_bits)
    };
    let _ = builder.build();
    let mut bgv = bgv_encrypt::BgvParametersBuilder::new(input.degree)
        .plaintext_modulus(input.t)
        .transform(transform)
        .allow_insecure(input.insecure);
    bgv = if input.explicit {
        bgv.ciphertext_moduli(&input.ciphertext_primes).special_moduli(&input.special_primes)
    } else {
        bgv.ciphertext_moduli_bits(&input.ciphertext_bits).special_moduli_bits(&input.special_bits)
    };
    let _ = bgv.build();
});
