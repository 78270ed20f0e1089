use thiserror::Error;

/// Errors of the modular-arithmetic layer. Each variant carries the offending values.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ModArithError {
    /// The modulus is not a prime.
    #[error("modulus {value} is not prime")]
    NotPrime {
        /// The modulus.
        value: u64,
    },
    /// The modulus does not fit the supported word size.
    #[error("modulus {value} has {bits} bits; at most {max_bits} are supported")]
    ModulusTooLarge {
        /// The modulus.
        value: u64,
        /// Its bit length.
        bits: u32,
        /// The most bits a modulus may have.
        max_bits: u32,
    },
    /// Zero (or a multiple of the modulus) has no inverse.
    #[error("{value} has no inverse modulo {modulus}")]
    NotInvertible {
        /// The value with no inverse.
        value: u64,
        /// The modulus.
        modulus: u64,
    },
    /// A root of the requested order does not exist modulo this prime.
    #[error("no primitive {order}-th root of {what} modulo {modulus}: need {requirement}")]
    NoRoot {
        /// What the root is a root of (`i`, `-1`, ...).
        what: &'static str,
        /// The order of the root asked for.
        order: u64,
        /// The prime modulus.
        modulus: u64,
        /// The condition on the modulus (or order) that a root needs.
        requirement: &'static str,
    },
    /// Not enough primes of the requested shape exist.
    #[error("only {found} primes of {bits} bits with p = 1 mod {two_n} exist; {requested} were requested")]
    NotEnoughPrimes {
        /// The bit length of the primes.
        bits: u32,
        /// The `2N` the primes must be 1 modulo.
        two_n: u64,
        /// The number of primes requested.
        requested: usize,
        /// The number of such primes found.
        found: usize,
    },
    /// A parameter is outside its allowed range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter {
        /// The parameter.
        name: &'static str,
        /// Its value.
        value: u64,
        /// What it must satisfy.
        reason: &'static str,
    },
    /// A Gaussian integer with norm `0 mod p` (a zero divisor of `Z_p[i]`) has no inverse.
    #[error("{re} + {im}i has no inverse modulo {modulus}: its norm is 0 mod {modulus}")]
    GaussianNotInvertible {
        /// The real part.
        re: u64,
        /// The imaginary part.
        im: u64,
        /// The prime modulus `p`.
        modulus: u64,
    },
}
