use thiserror::Error;

/// Errors of the modular-arithmetic layer. Each variant carries the offending values.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ModArithError {
    /// The modulus is not a prime.
    #[error("modulus {value} is not prime")]
    NotPrime { value: u64 },
    /// The modulus does not fit the supported word size.
    #[error("modulus {value} has {bits} bits; at most {max_bits} are supported")]
    ModulusTooLarge { value: u64, bits: u32, max_bits: u32 },
    /// Zero (or a multiple of the modulus) has no inverse.
    #[error("{value} has no inverse modulo {modulus}")]
    NotInvertible { value: u64, modulus: u64 },
    /// A root of the requested order does not exist modulo this prime.
    #[error("no primitive {order}-th root of {what} modulo {modulus}: need {requirement}")]
    NoRoot { what: &'static str, order: u64, modulus: u64, requirement: &'static str },
    /// Not enough primes of the requested shape exist.
    #[error("only {found} primes of {bits} bits with p = 1 mod {two_n} exist; {requested} were requested")]
    NotEnoughPrimes { bits: u32, two_n: u64, requested: usize, found: usize },
    /// A parameter is outside its allowed range.
    #[error("invalid {name} = {value}: {reason}")]
    InvalidParameter { name: &'static str, value: u64, reason: &'static str },
    /// A Gaussian integer with norm `0 mod p` (a zero divisor of `Z_p[i]`) has no inverse.
    #[error("{re} + {im}i has no inverse modulo {modulus}: its norm is 0 mod {modulus}")]
    GaussianNotInvertible { re: u64, im: u64, modulus: u64 },
}
