//! Arithmetic in `Z_n[X]/f` (`f` monic, `n < 2^62`) written for the tests of the slot algebra,
//! independent of the library's: schoolbook products and long division in 128-bit words,
//! reduced modulo `n` after every step (exact: each product is below `2^124`).

/// `a b mod f` modulo `n`, `deg f` words.
pub fn mul_mod(a: &[u64], b: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    let n128 = u128::from(n);
    let mut wide = vec![0u128; (a.len() + b.len()).max(f.len())];
    for (i, &x) in a.iter().enumerate() {
        for (j, &y) in b.iter().enumerate() {
            wide[i + j] = (wide[i + j] + u128::from(x) * u128::from(y) % n128) % n128;
        }
    }
    reduce(wide, f, n)
}

/// `a(X^e) mod f` modulo `n`, for `f` dividing `X^m - 1` (exponents taken modulo `m`): every
/// power placed, then reduced. `a(x^g)` of a plaintext modulo `Phi_m`, or the Frobenius
/// `X -> X^(p^k)` of a slot value.
pub fn substitute(a: &[u64], e: u64, m: u64, f: &[u64], n: u64) -> Vec<u64> {
    let n128 = u128::from(n);
    let mut spread = vec![0u128; (m as usize).max(f.len())];
    for (j, &c) in a.iter().enumerate() {
        let at = (j as u128 * u128::from(e) % u128::from(m)) as usize;
        spread[at] = (spread[at] + u128::from(c)) % n128;
    }
    reduce(spread, f, n)
}

/// `wide mod f` modulo `n` by long division from the top.
fn reduce(mut wide: Vec<u128>, f: &[u64], n: u64) -> Vec<u64> {
    let n128 = u128::from(n);
    let d = f.len() - 1;
    for top in (d..wide.len()).rev() {
        let c = wide[top] % n128;
        if c == 0 {
            continue;
        }
        for (i, &g) in f[..d].iter().enumerate() {
            wide[top - d + i] = (wide[top - d + i] + (n128 - c) * u128::from(g) % n128) % n128;
        }
        wide[top] = 0;
    }
    wide[..d].iter().map(|&w| (w % n128) as u64).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn products_and_substitutions_modulo_a_small_ring() {
        // Z_7[X]/(X^2 + 1): (1 + 2X)(3 + X) = 3 + 7X + 2X^2 = 1 + 0X (mod 7, X^2 = -1).
        assert_eq!(mul_mod(&[1, 2], &[3, 1], &[1, 0, 1], 7), vec![1, 0]);
        // X^2 + 1 divides X^4 - 1: (1 + 2X)(X^3) = X^3 + 2X^4 = -X + 2 (mod 7).
        assert_eq!(substitute(&[1, 2], 3, 4, &[1, 0, 1], 7), vec![1, 5]);
    }
}
