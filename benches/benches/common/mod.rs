//! Shared by the transform benchmarks: sizes, primes, inputs, and one trait over our
//! plans and fhe-math's NTT operator.
#![allow(dead_code)]

use modarith::{Modulus, generate_ntt_primes};
use poly::dgt::DgtPlan;
use poly::hdgt::HdgtPlan;
use poly::ntt::NttPlan;

pub const LOG_DEGREES: [u32; 5] = [12, 13, 14, 15, 16];
pub const PRIME_COUNTS: [usize; 2] = [1, 16];
pub const PRIME_BITS: u32 = 60;

/// A transform over one limb, in place.
pub trait LimbTransform {
    fn forward(&self, limb: &mut [u64]);
    fn inverse(&self, limb: &mut [u64]);
}

impl LimbTransform for NttPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

impl LimbTransform for DgtPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

impl LimbTransform for HdgtPlan {
    fn forward(&self, limb: &mut [u64]) {
        self.forward_inplace(limb).unwrap();
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.inverse_inplace(limb).unwrap();
    }
}

/// fhe-math's safe, constant-time entry points (output reduced to `[0, p)`, as ours).
impl LimbTransform for fhe_math::ntt::NttOperator {
    fn forward(&self, limb: &mut [u64]) {
        fhe_math::ntt::NttOperator::forward(self, limb);
    }
    fn inverse(&self, limb: &mut [u64]) {
        self.backward(limb);
    }
}

/// Every limb of `data` through `plans` (limb `i` with plan `i`).
pub fn transform_limbs<T: LimbTransform>(plans: &[T], data: &mut [u64], degree: usize, forward: bool) {
    for (plan, limb) in plans.iter().zip(data.chunks_exact_mut(degree)) {
        if forward { plan.forward(limb) } else { plan.inverse(limb) }
    }
}

/// `count` primes of `PRIME_BITS` bits, `= 1 mod 2^17`, so they serve every degree here.
pub fn primes(count: usize) -> Vec<u64> {
    let max_degree = 1u64 << LOG_DEGREES[LOG_DEGREES.len() - 1];
    generate_ntt_primes(PRIME_BITS, 2 * max_degree, count, &[]).unwrap()
}

/// Canonical pseudo-random limbs (SplitMix64, reduced per limb): deterministic, never zeros.
pub fn random_limbs(primes: &[u64], degree: usize, seed: u64) -> Vec<u64> {
    let mut state = seed;
    let mut next = move || {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    };
    primes
        .iter()
        .flat_map(|&p| {
            let m = Modulus::new(p).unwrap();
            (0..degree).map(|_| m.reduce(next())).collect::<Vec<_>>()
        })
        .collect()
}

/// Our three transforms and fhe-math's NTT for the same degree and primes.
pub struct Plans {
    pub ntt: Vec<NttPlan>,
    pub dgt: Vec<DgtPlan>,
    pub hdgt: Vec<HdgtPlan>,
    pub fhe: Vec<fhe_math::ntt::NttOperator>,
}

impl Plans {
    pub fn new(primes: &[u64], degree: usize) -> Self {
        let moduli: Vec<Modulus> = primes.iter().map(|&p| Modulus::new(p).unwrap()).collect();
        Self {
            ntt: moduli.iter().map(|m| NttPlan::new(*m, degree).unwrap()).collect(),
            dgt: moduli.iter().map(|m| DgtPlan::new(*m, degree).unwrap()).collect(),
            hdgt: moduli.iter().map(|m| HdgtPlan::new(*m, degree).unwrap()).collect(),
            fhe: primes
                .iter()
                .map(|&p| fhe_math::ntt::NttOperator::new(&fhe_math::zq::Modulus::new(p).unwrap(), degree).unwrap())
                .collect(),
        }
    }
}

/// `{degree}/{count}x{bits}`, the parameter part of every benchmark id.
pub fn case_label(degree: usize, count: usize) -> String {
    format!("{degree}/{count}x{PRIME_BITS}")
}
