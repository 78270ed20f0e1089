//! GMP's `mpz_mul` (through rug, the system's libgmp) on one core: products of two random
//! `2^k`-bit integers, `k = 18..=24`, medians of wall-clock times, next to num-bigint's on the
//! same operands; the product checked equal. The CPU peer of `gpu_bigint`'s multiplication table,
//! run in the same device call.
//!
//! `gmp_mul [--runs N]` (default 21; 5 at 2^24 bits).

use std::process::ExitCode;
use std::time::Instant;

use num_bigint::BigUint;
use rug::Integer;

fn median(mut samples: Vec<f64>) -> f64 {
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn main() -> ExitCode {
    let mut runs = 21usize;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next().and_then(|v| v.parse().ok())) {
            ("--runs", Some(n)) => runs = n,
            _ => {
                eprintln!("gmp_mul: usage: gmp_mul [--runs N]");
                return ExitCode::from(2);
            }
        }
    }
    // SAFETY: `__gmp_version` is GMP's constant, NUL-terminated version string.
    let version = unsafe { std::ffi::CStr::from_ptr(gmp_mpfr_sys::gmp::version) }.to_string_lossy();
    println!("# gmp_mul: GMP {version} (system library, one core) and num-bigint, medians in ms");
    println!("| bits | GMP mpz_mul ms | num-bigint ms |");
    println!("|---|---:|---:|");
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for log_bits in 18..=24u32 {
        let words = (1usize << log_bits) / 64;
        let a: Vec<u64> = (0..words).map(|_| next()).collect();
        let b: Vec<u64> = (0..words).map(|_| next()).collect();
        let (ga, gb) =
            (Integer::from_digits(&a, rug::integer::Order::Lsf), Integer::from_digits(&b, rug::integer::Order::Lsf));
        let to_u32 = |w: &[u64]| w.iter().flat_map(|x| [*x as u32, (x >> 32) as u32]).collect::<Vec<_>>();
        let (na, nb) = (BigUint::from_slice(&to_u32(&a)), BigUint::from_slice(&to_u32(&b)));
        let n = if log_bits >= 24 { runs.min(5) } else { runs };
        let mut gmp = Vec::with_capacity(n);
        let mut product = Integer::new();
        for _ in 0..n {
            let start = Instant::now();
            product = Integer::from(&ga * &gb);
            gmp.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let big_runs = if log_bits >= 22 { 3 } else { n.min(7) };
        let mut big = Vec::with_capacity(big_runs);
        let mut check = BigUint::default();
        for _ in 0..big_runs {
            let start = Instant::now();
            check = &na * &nb;
            big.push(start.elapsed().as_secs_f64() * 1e3);
        }
        let same = product.to_digits::<u64>(rug::integer::Order::Lsf) == check.to_u64_digits();
        if !same {
            println!("MISMATCH at 2^{log_bits} bits: GMP and num-bigint products differ");
            return ExitCode::from(1);
        }
        println!("| 2^{log_bits} | {:.3} | {:.2} |", median(gmp), median(big));
    }
    ExitCode::SUCCESS
}
