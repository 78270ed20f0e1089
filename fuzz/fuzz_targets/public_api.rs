//! The public plain-value helpers and constructors that `helpers` and `params` leave out, on
//! arbitrary arguments (zero, huge, mismatched): prime searches and `Modulus` (modarith), the
//! cyclotomic index helpers and Bluestein's plans (poly, cyclotomic), slot and Galois helpers,
//! digit counts and the security table (rlwe), BGV's decryption tables and its parameters over
//! `Phi_m`, the plaintext encoders, and the big integers (bigint). Errors are fine; panics,
//! aborts, huge allocations and long searches are not.
//!
//! What is bounded, and why: an argument that is the size of the requested output (a count of
//! primes that the candidates can meet, an output length, a shift, a transform length) is kept
//! small, as the caller pays for what it asks; so are the valid ring sizes whose tables take
//! long to build (`m <= 1023`, `N <= 4096`, as `params` does), and the inputs of the
//! trial-division helpers (`prime_factors`, `euler_phi`: `O(sqrt m)`, `m < 2^32`). Values that
//! a function documents as canonical (`Modulus::add` and the like assert it in debug builds)
//! are reduced first. Everything else (degrees, indices, offsets, moduli, counts that cannot be
//! met, lengths of the inputs) is the fuzzer's.
#![no_main]

use arbitrary::Arbitrary;
use bigint::BigNat;
use libfuzzer_sys::fuzz_target;
use modarith::{GaussianInt, Modulus};
use poly::{RingKind, TransformKind};

/// A prime-size choice: `bits` and the step `p = 1 mod step` of a generated prime, or a raw
/// value (most raw values are not primes: the constructors' refusals).
#[derive(Debug, Arbitrary)]
enum PrimeChoice {
    Raw(u64),
    Generated { bits: u8, log_step: u8 },
}

impl PrimeChoice {
    fn value(&self) -> u64 {
        match *self {
            PrimeChoice::Raw(p) => p,
            PrimeChoice::Generated { bits, log_step } => {
                let bits = u32::from(bits % 61) + 2;
                let step = 1u64 << (log_step % 20).max(1);
                modarith::primes_one_mod(bits, step, 1, &[]).ok().and_then(|p| p.first().copied()).unwrap_or(3)
            }
        }
    }

    fn modulus(&self) -> Option<Modulus> {
        Modulus::new(self.value()).ok()
    }
}

/// A count of primes: small (searched), or huge (refused at once when the candidates cannot
/// meet it; a huge count they can meet would be a long search that the caller asked for).
fn prime_count(raw: u64, step: u64) -> usize {
    let small = (raw % 6) as usize;
    if raw >> 60 == 0 {
        return small;
    }
    // At most 2^61 / step + 1 candidates lie between 2^(bits - 1) and 2^bits for bits <= 62.
    let candidates = (1u64 << 61) / step.max(1) + 1;
    if raw > candidates { usize::try_from(raw).unwrap_or(usize::MAX) } else { small }
}

/// A cyclotomic index for the helpers of cost `O(m)` or more: any value outside the rings'
/// range (refused at once), small inside it.
fn index_m(raw: u64, cap: u64) -> u64 {
    if raw > poly::cyclotomic::MAX_M { raw } else { raw % (cap + 1) }
}

fn transform(byte: u8) -> TransformKind {
    match byte % 4 {
        0 => TransformKind::Ntt,
        1 => TransformKind::Dgt,
        2 => TransformKind::HierarchicalDgt,
        _ => TransformKind::Bluestein,
    }
}

fn ring_kind(cyclotomic: bool, size: usize) -> RingKind {
    if cyclotomic { RingKind::Cyclotomic { m: size } } else { RingKind::NegacyclicPowerOfTwo { degree: size } }
}

/// A ring size for constructors that build tables: a power-of-two degree above 4096 or an
/// index `m` above 1023 that would be valid is skipped (`None`), everything else passes.
fn buildable(cyclotomic: bool, size: usize) -> Option<usize> {
    let valid_large = if cyclotomic {
        size > 1023 && size % 2 == 1 && size as u64 <= poly::cyclotomic::MAX_M
    } else {
        size > 4096 && size.is_power_of_two() && size <= poly::context::MAX_DEGREE
    };
    (!valid_large).then_some(size)
}

#[derive(Debug, Arbitrary)]
enum Case {
    /// `generate_ntt_primes`, `primes_one_mod`, `is_prime`.
    Primes { bits: u32, step: u64, count: u64, exclude: Vec<u64>, n: u64 },
    /// `Modulus::new` and its arithmetic on canonical values, roots of unity.
    ModulusOps { p: PrimeChoice, a: u64, b: u64, e: u64, order: u64, wide: u128, signed: i64 },
    /// Gaussian integers: the factors of `p`, roots of `i`, `Z_p[i]` arithmetic.
    Gaussian { p: PrimeChoice, k: u64, a: (u64, u64), b: (u64, u64), e: u64 },
    /// `inverse_mod` on any modulus.
    InverseMod { a: u64, m: u64 },
    /// `bluestein_primes`, `bluestein_length`, `primitive_root_of_order`.
    BluesteinPrimes { bits: u32, m: u64, count: u64, length: usize, p: PrimeChoice, order: u64 },
    /// The index helpers: `RingKind`'s methods, `euler_phi`, `prime_factors`, `gcd`,
    /// `padded_sampling_degree`.
    Index { cyclotomic: bool, size: usize, g: u64, transform: u8, phi_of: u32, a: usize, b: usize, n: usize },
    /// `cyclotomic_polynomial`, `cyclotomic_cofactor`, `reduce_by_monic`, `reduce_mod_cyclotomic`,
    /// `cyclotomic_convolution`.
    CyclotomicPolys { m: u64, p: PrimeChoice, a: Vec<u64>, b: Vec<u64> },
    /// `BluesteinPlan` and `CyclotomicPlan` (the ring layer's, re-exported by `cyclotomic`):
    /// construction, transforms and products on inputs of any length and range.
    BluesteinPlans { m: u16, bits: u8, raw: Option<u64>, x: Vec<u64>, y: Vec<u64> },
    /// `RingContext::{new, new_cyclotomic, with_kind}` and the automorphism sources.
    RingContexts { cyclotomic: bool, size: usize, moduli: Vec<u64>, generated: u8, bits: u8, transform: u8, g: u64 },
    /// `NttPlan`, `DgtPlan`, `HdgtPlan::{new, with_split}`.
    Plans { degree: usize, p: PrimeChoice, rows: usize, cols: usize, data: Vec<u64> },
    /// `SlotEncoder::{new, for_ring}` and `CyclotomicSlots::new`, encoding and decoding.
    Slots { t: u64, generate: Option<u8>, cyclotomic: bool, size: usize, values: Vec<u64>, coefficients: Vec<u64> },
    /// `center`, `reduce_signed`, `coefficients`, `slot_positions`, `batching_prime`.
    SlotHelpers {
        c: u64,
        t: u64,
        signed: Vec<i64>,
        values: Vec<u64>,
        n: u16,
        degree: u16,
        bits: u32,
        batching_degree: usize,
    },
    /// The Galois helpers on any degree, step, ring and element.
    Galois { degree: usize, steps: i64, cyclotomic: bool, size: usize, element: u64 },
    /// Digit counts, levels and their tables on the fixtures' parameters.
    Levels { level: usize, bgv: bool },
    /// The security table and HElib's `m`.
    Security { n: usize, degree: usize, bgv_preset: (bool, u32) },
    /// `DecryptionTables::{new, reduce_host}` on any primes, `t`, phase and degree.
    Decryption { moduli: Vec<u64>, t: u64, phase: Vec<u64>, degree: usize, correction_inv: u64, fixture: bool },
    /// `BigNat`'s constructors and limb operations.
    BigNats { a: Vec<u64>, b: Vec<u64>, value: u64, k: u64, shift: u64, bits: u64, index: u64, len: u16 },
    /// `split_digits`, `extract_bits`, `gather`, `resolve`.
    Digits {
        limbs: Vec<u64>,
        offset: u64,
        digit_bits: u32,
        count: usize,
        n: u16,
        sums: Vec<(u64, i16)>,
        out_limbs: u16,
    },
    /// `MulShape::for_bits`, `mul`, `square`, `mul_in_shape`, `mul_batch`, `bigint::NttPlan`.
    BigMul { a: Vec<u64>, b: Vec<u64>, bits_a: u64, bits_b: u64, log_n: u8, any: (u64, u64) },
    /// `BarrettModulus` and its modular operations.
    Barrett { m: Vec<u64>, a: Vec<u64>, b: Vec<u64>, e: u64 },
    /// `BgvParametersBuilder::new_cyclotomic` with any `m`, primes and `t`, and the encoders of
    /// what builds.
    BgvCyclotomic {
        m: usize,
        bits: Vec<u8>,
        special_bits: Vec<u8>,
        primes: Vec<u64>,
        special_primes: Vec<u64>,
        explicit: bool,
        t: u64,
        batching_t: bool,
        transform: u8,
        insecure: bool,
        values: Vec<u64>,
        signed: Vec<i64>,
    },
    /// The plaintext encoders of the fixtures (BFV and BGV over `x^N + 1`, BGV over `Phi_m`).
    Encoders { which: u8, values: Vec<u64>, signed: Vec<i64> },
}

fuzz_target!(|case: Case| run(case));

fn run(case: Case) {
    match case {
        Case::Primes { bits, step, count, exclude, n } => {
            let count = prime_count(count, step);
            let _ = modarith::generate_ntt_primes(bits, step, count, &exclude);
            let _ = modarith::primes_one_mod(bits, step, count, &exclude);
            let _ = modarith::is_prime(n);
        }
        Case::ModulusOps { p, a, b, e, order, wide, signed } => {
            let Some(m) = p.modulus() else { return };
            let q = m.value();
            let (x, y) = (m.reduce(a), m.reduce(b));
            let _ = (m.add(x, y), m.sub(x, y), m.neg(x), m.mul(a, b), m.pow(a, e), m.inv(a), m.center(x));
            let _ = (m.reduce_u128(wide), m.from_i64(signed), m.bits(), m.barrett_constant());
            let w = m.shoup(y);
            let _ = (m.mul_shoup(a, y, w), m.mul_shoup_lazy(a, y, w));
            let (x2, y2) = (a % (2 * q), b % (2 * q));
            let _ = (m.add_lazy(x2, y2), m.sub_lazy(x2, y2), m.reduce_from_2p(x2), m.reduce_from_4p(a % (4 * q)));
            let _ = m.reduce_from_4p_to_2p(b % (4 * q));
            let _ = modarith::primitive_root_of_unity(&m, order);
        }
        Case::Gaussian { p, k, a, b, e } => {
            let Some(m) = p.modulus() else { return };
            let _ = modarith::gaussian_prime_factors(&m);
            let _ = modarith::primitive_root_of_i(&m, k);
            let x = GaussianInt::new(m.reduce(a.0), m.reduce(a.1));
            let y = GaussianInt::new(m.reduce(b.0), m.reduce(b.1));
            let _ = (m.gauss_add(x, y), m.gauss_sub(x, y), m.gauss_mul(x, y), m.gauss_conj(x), m.gauss_norm(x));
            let _ = (m.gauss_pow(x, e), m.gauss_inv(y));
            let s = modarith::SignedGaussianInt::new(a.0 as i64, a.1 as i64);
            let _ = (s.conj(), s.norm());
        }
        Case::InverseMod { a, m } => {
            if let Some(x) = modarith::inverse_mod(a, m) {
                assert!(x < m && u128::from(a % m) * u128::from(x) % u128::from(m) == 1 % u128::from(m));
            }
        }
        Case::BluesteinPrimes { bits, m, count, length, p, order } => {
            let step = m.saturating_mul(2).saturating_mul(poly::bluestein::bluestein_length(m as usize) as u64);
            let _ = cyclotomic::bluestein_primes(bits, m, prime_count(count, step));
            let _ = cyclotomic::bluestein_length(length);
            if let Some(modulus) = p.modulus() {
                // The order's prime factors by trial division: `O(sqrt(order))`.
                let _ = poly::bluestein::primitive_root_of_order(&modulus, order % (1 << 32));
            }
        }
        Case::Index { cyclotomic, size, g, transform: t, phi_of, a, b, n } => {
            let ring = ring_kind(cyclotomic, size);
            let _ = (ring.index(), ring.supports(transform(t)), ring.is_galois_element(g), ring.name());
            let _ = ring.check_automorphism(g);
            // The degree of a cyclotomic kind is phi(m), by trial division.
            if !cyclotomic || size <= u32::MAX as usize {
                let _ = ring.degree();
            }
            let _ = cyclotomic::euler_phi(u64::from(phi_of));
            let _ = cyclotomic::prime_factors(u64::from(phi_of));
            let _ = poly::cyclotomic::gcd(a, b);
            let _ = poly::sampling::padded_sampling_degree(n);
        }
        Case::CyclotomicPolys { m, p, mut a, mut b } => {
            let m = index_m(m, 4095);
            // The reference product is quadratic in the length.
            a.truncate(64);
            b.truncate(64);
            let _ = cyclotomic::cyclotomic_polynomial(m);
            let _ = cyclotomic::cyclotomic_cofactor(m);
            let Some(modulus) = p.modulus() else { return };
            let a: Vec<u64> = a.iter().map(|&v| modulus.reduce(v)).collect();
            let b: Vec<u64> = b.iter().map(|&v| modulus.reduce(v)).collect();
            let _ = poly::reference::reduce_mod_cyclotomic(&modulus, m, &a);
            let _ = poly::reference::cyclotomic_convolution(&modulus, m, &a, &b);
            if let Ok(phi) = cyclotomic::cyclotomic_polynomial(m) {
                let phi: Vec<u64> = phi.iter().map(|&c| modulus.from_i64(c)).collect();
                let _ = poly::cyclotomic::reduce_by_monic(&modulus, &phi, a);
            }
        }
        Case::BluesteinPlans { m, bits, raw, x, y } => {
            let m = usize::from(m % 1024);
            let p = match raw {
                Some(p) => p,
                None => {
                    let generated = cyclotomic::bluestein_primes(u32::from(bits % 64), m as u64, 1);
                    generated.ok().and_then(|p| p.first().copied()).unwrap_or(0)
                }
            };
            let Ok(modulus) = Modulus::new(p) else { return };
            if let Ok(plan) = cyclotomic::BluesteinPlan::new(modulus, m) {
                let _ = (plan.m(), plan.root(), plan.convolution_length(), plan.m_inv());
                if let Ok(values) = plan.forward(&x) {
                    assert_eq!(plan.inverse(&values).ok().as_deref(), Some(&x[..]));
                }
                let _ = plan.inverse(&y);
            }
            if let Ok(ring) = cyclotomic::CyclotomicRing::new(modulus, m) {
                let _ = (ring.degree(), ring.m(), ring.primitive_indices().len());
                if let Ok(values) = ring.forward(&x) {
                    assert_eq!(ring.inverse(&values).ok().as_deref(), Some(&x[..]));
                }
                let _ = ring.inverse(&y);
                let _ = ring.mul(&x, &y);
                let _ = ring.reduce_fast(&y);
                let canonical: Vec<u64> = y.iter().map(|&v| modulus.reduce(v)).collect();
                let slow = ring.reduce(canonical.clone());
                assert_eq!(ring.reduce_fast(&canonical).ok(), Some(slow));
            }
        }
        Case::RingContexts { cyclotomic, size, moduli, generated, bits, transform: t, g } => {
            let Some(size) = buildable(cyclotomic, size) else { return };
            let ring = ring_kind(cyclotomic, size);
            let mut moduli = moduli;
            moduli.truncate(3);
            if generated % 2 == 1 {
                let step = if cyclotomic {
                    (size as u64).saturating_mul(2).saturating_mul(cyclotomic::bluestein_length(size) as u64)
                } else {
                    (size as u64).saturating_mul(2)
                };
                let count = usize::from(generated / 2 % 3);
                if let Ok(primes) = modarith::primes_one_mod(u32::from(bits % 64), step, count, &moduli) {
                    moduli.extend(primes);
                }
            }
            let context = if cyclotomic {
                poly::RingContext::new_cyclotomic(size, &moduli)
            } else if t % 4 == 3 {
                poly::RingContext::new(size, &moduli, transform(t / 4))
            } else {
                poly::RingContext::with_kind(ring, &moduli, transform(t))
            };
            if let Ok(context) = context {
                let _ = (context.degree(), context.cyclotomic_index(), context.is_galois_element(g));
                let _ = (context.sampling_degree(), context.poly_len(), context.plan(usize::from(bits)).is_some());
                let _ = context.bluestein_automorphism_sources(g);
            }
        }
        Case::Plans { degree, p, rows, cols, data } => {
            let Some(degree) = buildable(false, degree) else { return };
            let Some(modulus) = p.modulus() else { return };
            let mut data = data;
            if let Ok(plan) = poly::ntt::NttPlan::new(modulus, degree) {
                let _ = plan.forward_inplace(&mut data);
                let _ = plan.inverse_inplace(&mut data);
            }
            if let Ok(plan) = poly::dgt::DgtPlan::new(modulus, degree) {
                let _ = plan.forward_inplace(&mut data);
                let _ = plan.inverse_inplace(&mut data);
            }
            let _ = poly::hdgt::HdgtPlan::new(modulus, degree);
            let _ = poly::hdgt::HdgtPlan::with_split(modulus, degree, rows, cols);
        }
        Case::Slots { t, generate, cyclotomic, size, values, coefficients } => {
            let Some(size) = buildable(cyclotomic, size) else { return };
            // The direct evaluation over Phi_m costs O(m phi(m)): m <= 255 when it would build.
            if cyclotomic && size > 255 && size % 2 == 1 && size as u64 <= poly::cyclotomic::MAX_M {
                return;
            }
            let t = match generate {
                None => t,
                Some(bits) => {
                    let step = if cyclotomic { size as u64 } else { (size as u64).saturating_mul(2) };
                    let found = modarith::primes_one_mod(u32::from(bits % 64), step, 1, &[]);
                    found.ok().and_then(|p| p.first().copied()).unwrap_or(t)
                }
            };
            let encoder = if cyclotomic {
                let _ = rlwe::slots::CyclotomicSlots::new(t, size);
                rlwe::slots::SlotEncoder::for_ring(t, ring_kind(true, size))
            } else {
                rlwe::slots::SlotEncoder::new(t, size)
            };
            if let Ok(encoder) = encoder {
                let _ = (encoder.slot_count(), encoder.positions().map(<[usize]>::len));
                let _ = encoder.evaluations(&values);
                if let Ok(encoded) = encoder.encode(&values) {
                    let decoded = encoder.decode(&encoded).ok();
                    let mut expected = values.clone();
                    expected.resize(encoder.slot_count(), 0);
                    assert_eq!(decoded, Some(expected));
                }
                let _ = encoder.decode(&coefficients);
            }
        }
        Case::SlotHelpers { c, t, signed, values, n, degree, bits, batching_degree } => {
            let centered = rlwe::slots::center(c, t);
            if t > 0 && t < 1 << 62 {
                assert_eq!(rlwe::slots::reduce_signed(&[centered], t).ok(), Some(vec![c % t]));
            }
            let _ = rlwe::slots::reduce_signed(&signed, t);
            let _ = rlwe::slots::coefficients(&values, usize::from(n), t);
            let _ = rlwe::slots::slot_positions(usize::from(degree) % 8193);
            let _ = rlwe::slots::batching_prime(bits, batching_degree);
            let _ = bfv::params::batching_prime(bits, batching_degree);
        }
        Case::Galois { degree, steps, cyclotomic, size, element } => {
            let g = rlwe::galois_key::galois_element_for_row_rotation(degree, steps);
            let swap = rlwe::galois_key::galois_element_for_row_swap(degree);
            if degree >= 2 && degree as u64 <= u64::MAX / 2 {
                let two_n = u128::from((degree as u64).saturating_mul(2));
                assert!(u128::from(g) < two_n && g % 2 == 1, "{g} for N = {degree}");
                assert!(u128::from(swap) < two_n);
            }
            let ring = ring_kind(cyclotomic, size);
            let _ = rlwe::galois_key::check_galois_element(ring, element);
            let _ = rlwe::galois_key::check_galois_element(ring, g);
            let _ = rlwe::galois_key::check_galois_element(ring, swap);
        }
        Case::Levels { level, bgv } => {
            let params = if bgv {
                hegpu_fuzz::bgv_fixture().context.params().core().clone()
            } else {
                hegpu_fuzz::bfv_fixture().context.params().core().clone()
            };
            let digits = params.digit_count_at_level(level);
            assert!(digits >= 1);
            let _ = params.check_level(level);
            let _ = params.ring_at_level(level);
            let _ = params.key_switch_at_level(level);
            let _ = (params.max_level(), params.digit_count(), params.digit_size());
        }
        Case::Security { n, degree, bgv_preset: (phantom, log_degree) } => {
            let _ = rlwe::security::max_modulus_bits_128_dimension(n);
            let _ = rlwe::security::max_modulus_bits_128(degree);
            let _ = cyclotomic::params::max_log_qp_128(n);
            let _ = cyclotomic::params::helib_m_table();
            let preset = if phantom {
                bgv_encrypt::Preset::Phantom { log_degree }
            } else {
                bgv_encrypt::Preset::Secure { log_degree }
            };
            let _ = preset.name();
            let _ = preset.builder();
        }
        Case::Decryption { moduli, t, phase, degree, correction_inv, fixture } => {
            let tables = if fixture {
                let params = hegpu_fuzz::bgv_fixture().context.params();
                bgv_encrypt::backend::DecryptionTables::new(params.ciphertext_moduli(), t)
            } else {
                let mut moduli = moduli;
                moduli.truncate(12);
                bgv_encrypt::backend::DecryptionTables::new(&moduli, t)
            };
            if let Ok(tables) = tables {
                let _ = (tables.num_limbs(), tables.q_mod_t(), tables.narrow_products(), tables.per_limb().len());
                let _ = tables.reduce_host(&phase, degree, correction_inv);
                // The phase's own length as the degree, so that the words are reduced.
                let limbs = tables.num_limbs();
                let _ = tables.reduce_host(&phase[..phase.len() / limbs * limbs], phase.len() / limbs, correction_inv);
            }
        }
        Case::BigNats { a, b, value, k, shift, bits, index, len } => {
            let (x, y) = (BigNat::from_limbs(a), BigNat::from_limbs(b));
            let _ = (BigNat::zero(), BigNat::from_u64(value), BigNat::power_of_two(bits % (1 << 16)));
            let _ = (x.bits(), x.bit(index), x.is_zero(), x.limbs_padded(usize::from(len) % 4097));
            let sum = x.add(&y);
            assert_eq!(sum.sub(&y).ok().as_ref(), Some(&x));
            let _ = (x.mul_u64(k), x.sub(&y), x.shr(shift), x.shl(shift % (1 << 16)), x.low_bits(bits));
            assert!(x.shl(shift % (1 << 16)).shr(shift % (1 << 16)) == x);
        }
        Case::Digits { limbs, offset, digit_bits, count, n, sums, out_limbs } => {
            let digits = bigint::mul::split_digits(&limbs, offset, digit_bits, count, usize::from(n));
            assert_eq!(digits.len(), usize::from(n));
            let _ = bigint::mul::extract_bits(&limbs, offset, digit_bits);
            let _ = bigint::mul::gather(&digits, digit_bits, usize::from(out_limbs));
            // `hi` is small by the type's contract (a few carries).
            let sums: Vec<bigint::mul::LimbSum> = sums.iter().map(|&(lo, hi)| (lo, i64::from(hi))).collect();
            let _ = bigint::mul::resolve(&sums);
        }
        Case::BigMul { a, b, bits_a, bits_b, log_n, any } => {
            let (x, y) = (BigNat::from_limbs(a), BigNat::from_limbs(b));
            if let Ok(shape) = bigint::MulShape::for_bits(bits_a, bits_b) {
                let _ =
                    (shape.digit_bits(), shape.log_n(), shape.len(), shape.digits(bits_a), shape.fits(bits_a, bits_b));
                let _ = (shape.fits(any.0, any.1), shape.digits(any.0));
                // The shape's transform length is the caller's choice: small ones only.
                if shape.log_n() <= 12 {
                    let _ = bigint::mul::mul_in_shape(&x, &y, shape);
                }
            }
            let product = bigint::mul(&x, &y);
            let square = bigint::square(&x);
            if let Ok(squared) = bigint::mul(&x, &x) {
                assert_eq!(square.ok(), Some(squared));
            }
            let _ = bigint::mul_batch(&[(x, y)]);
            let _ = product;
            if let Some(plan) = bigint::NttPlan::new(u32::from(log_n % 13)) {
                let _ = (plan.len(), plan.n_inv(), plan.forward_table().len());
            }
        }
        Case::Barrett { m, a, b, e } => {
            let (mut m, mut a, mut b) = (m, a, b);
            m.truncate(16);
            a.truncate(32);
            b.truncate(32);
            let m = BigNat::from_limbs(m);
            let Ok(modulus) = bigint::BarrettModulus::new(&m) else { return };
            let (x, y) = (BigNat::from_limbs(a), BigNat::from_limbs(b));
            let _ = (modulus.bits(), modulus.limbs(), modulus.shape(), modulus.check_reduced("x", &x));
            let _ = modulus.reduce(&x);
            let _ = (modulus.mul_mod(&x, &y), modulus.square_mod(&x), modulus.add_mod(&x, &y), modulus.sub_mod(&x, &y));
            let _ = modulus.pow_mod(&x, &BigNat::from_u64(e % 256));
        }
        Case::BgvCyclotomic {
            m,
            bits,
            special_bits,
            primes,
            special_primes,
            explicit,
            t,
            batching_t,
            transform: kind,
            insecure,
            values,
            signed,
        } => {
            // Over Phi_m the tables (and the slots' direct evaluation, O(m phi(m))) grow with m.
            if m > 511 && m % 2 == 1 && m as u64 <= poly::cyclotomic::MAX_M {
                return;
            }
            if bits.len() > 3 || special_bits.len() > 2 || primes.len() > 3 || special_primes.len() > 2 {
                return;
            }
            let t = if batching_t && m > 0 {
                let found = modarith::primes_one_mod((t % 40) as u32 + 2, m as u64, 1, &[]);
                found.ok().and_then(|p| p.first().copied()).unwrap_or(t)
            } else {
                t
            };
            let bits: Vec<u32> = bits.iter().map(|&b| u32::from(b)).collect();
            let special_bits: Vec<u32> = special_bits.iter().map(|&b| u32::from(b)).collect();
            let mut builder =
                bgv_encrypt::BgvParametersBuilder::new_cyclotomic(m).plaintext_modulus(t).allow_insecure(insecure);
            if kind % 2 == 1 {
                builder = builder.transform(transform(kind / 2));
            }
            builder = if explicit {
                builder.ciphertext_moduli(&primes).special_moduli(&special_primes)
            } else {
                builder.ciphertext_moduli_bits(&bits).special_moduli_bits(&special_bits)
            };
            let Ok(params) = builder.build() else { return };
            let _ = (params.degree(), params.ring_kind(), params.is_secure_128(), params.max_level());
            let _ = params.estimated_depth();
            if m <= 255 {
                encode_all(&params, &values, &signed);
            }
        }
        Case::Encoders { which, values, signed } => match which % 3 {
            0 => encode_all(hegpu_fuzz::bgv_fixture().context.params(), &values, &signed),
            1 => encode_all(hegpu_fuzz::phi_m_fixture(), &values, &signed),
            _ => {
                let params = hegpu_fuzz::bfv_fixture().context.params();
                let coefficients = bfv::CoefficientEncoder::new(params);
                check_coefficients(&coefficients.encode(&values), &values);
                let _ = coefficients.encode_signed(&signed);
                if let Ok(batch) = bfv::BatchEncoder::new(params) {
                    let _ = batch.encode(&values).and_then(|p| batch.decode(&p));
                    let _ = batch.encode_signed(&signed).and_then(|p| batch.decode_signed(&p));
                }
            }
        },
    }
}

fn check_coefficients<P: rlwe::SchemeParameters>(plain: &Result<rlwe::Plaintext<P>, rlwe::RlweError>, values: &[u64]) {
    if let Ok(plain) = plain {
        assert_eq!(&plain.coefficients()[..values.len()], values);
    }
}

/// Every encoder of `params` on `values` and `signed`: the coefficient encoder, the batch
/// encoder (where `t` allows it), round trips checked, and plaintexts from coefficients.
fn encode_all(params: &std::sync::Arc<bgv_encrypt::BgvParameters>, values: &[u64], signed: &[i64]) {
    let t = params.plaintext_modulus();
    let coefficients = bgv_encrypt::CoefficientEncoder::new(params);
    let plain = coefficients.encode(values);
    check_coefficients(&plain, values);
    if let Ok(plain) = &plain {
        let _ = coefficients.decode_signed(plain);
    }
    if let Ok(plain) = coefficients.encode_signed(signed) {
        assert_eq!(coefficients.decode_signed(&plain).ok().as_deref().map(|v| &v[..signed.len()]), Some(signed));
    }
    let reduced: Vec<u64> = values.iter().map(|&v| v % t).collect();
    let _ = bgv_encrypt::Plaintext::from_reduced_coefficients(params, reduced.clone());
    let _ = bgv_encrypt::Plaintext::from_coefficients(params, values);
    let zero = bgv_encrypt::Plaintext::zero(params);
    let _ = zero.centered_coefficients();
    if let Ok(batch) = bgv_encrypt::BatchEncoder::new(params) {
        if let Ok(plain) = batch.encode(values) {
            let decoded = batch.decode(&plain).ok();
            let mut expected = values.to_vec();
            expected.resize(batch.slot_count(), 0);
            assert_eq!(decoded, Some(expected));
        }
        if let Ok(plain) = batch.encode_signed(signed) {
            let decoded = batch.decode_signed(&plain).ok();
            assert_eq!(decoded.as_deref().map(|v| &v[..signed.len()]), Some(signed));
        }
        let _ = batch.decode(&zero);
    }
}
