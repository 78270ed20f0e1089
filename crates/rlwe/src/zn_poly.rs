//! Dense polynomials over `Z_n` (coefficients from the constant up, `n < 2^62`, products in
//! 128-bit words; schoolbook), the arithmetic of the slot algebra
//! ([`crate::cyclotomic_factors`], [`crate::extension_slots`]).

/// `p^r`, `None` on overflow.
pub(crate) fn checked_power(p: u64, r: u32) -> Option<u64> {
    (0..r).try_fold(1u64, |acc, _| acc.checked_mul(p))
}

pub(crate) fn mul_word(a: u64, b: u64, n: u64) -> u64 {
    (u128::from(a) * u128::from(b) % u128::from(n)) as u64
}

/// `a + b` modulo `n` (lengths may differ).
pub(crate) fn add(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    let mut out = vec![0; a.len().max(b.len())];
    for (i, o) in out.iter_mut().enumerate() {
        let x = u128::from(a.get(i).copied().unwrap_or(0)) + u128::from(b.get(i).copied().unwrap_or(0));
        *o = (x % u128::from(n)) as u64;
    }
    out
}

/// `a b` modulo `n` (schoolbook).
pub(crate) fn mul(a: &[u64], b: &[u64], n: u64) -> Vec<u64> {
    if a.is_empty() || b.is_empty() {
        return Vec::new();
    }
    let mut wide = vec![0u128; a.len() + b.len() - 1];
    let n128 = u128::from(n);
    for (i, &x) in a.iter().enumerate() {
        if x == 0 {
            continue;
        }
        for (j, &y) in b.iter().enumerate() {
            wide[i + j] = (wide[i + j] + u128::from(x) * u128::from(y)) % n128;
        }
    }
    wide.into_iter().map(|w| w as u64).collect()
}

/// `a mod f` for a monic `f` of degree `d >= 1`, `d` words, modulo `n`.
pub(crate) fn reduce(a: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    let d = f.len() - 1;
    let mut r: Vec<u64> = a.to_vec();
    while r.len() > d {
        let top = r.pop().unwrap_or(0);
        if top != 0 {
            let shift = r.len() - d;
            for (i, &c) in f[..d].iter().enumerate() {
                r[shift + i] = (r[shift + i] + n - mul_word(top, c, n)) % n;
            }
        }
    }
    r.resize(d, 0);
    r
}

/// `a b mod f` modulo `n`.
pub(crate) fn mul_mod(a: &[u64], b: &[u64], f: &[u64], n: u64) -> Vec<u64> {
    reduce(&mul(a, b, n), f, n)
}

/// `a^e mod f` modulo `n`.
pub(crate) fn power_mod(a: &[u64], e: u64, f: &[u64], n: u64) -> Vec<u64> {
    let mut result = reduce(&[1 % n], f, n);
    for bit in (0..64 - e.leading_zeros()).rev() {
        result = mul_mod(&result, &result, f, n);
        if (e >> bit) & 1 == 1 {
            result = mul_mod(&result, a, f, n);
        }
    }
    result
}

/// The derivative of `a` modulo `n`.
pub(crate) fn derivative(a: &[u64], n: u64) -> Vec<u64> {
    a.iter().enumerate().skip(1).map(|(i, &c)| mul_word(c, i as u64 % n, n)).collect()
}

/// `a^-1 mod f` modulo `n = p^r` (`f` monic, irreducible modulo `p`): Euclid modulo `p`, then
/// Newton's iteration `u <- u (2 - a u)`, which doubles the power of `p` it is right modulo.
/// `None` when `a` is not invertible modulo `p`.
pub(crate) fn inverse_mod_factor(a: &[u64], f: &[u64], p: u64, n: u64) -> Option<Vec<u64>> {
    let mut u = inverse_mod_p(a, f, p)?;
    let mut precision = p;
    while precision < n {
        precision = precision.saturating_mul(precision).min(n);
        let au = mul_mod(a, &u, f, n);
        let mut two_minus: Vec<u64> = au.iter().map(|&c| (n - c) % n).collect();
        two_minus[0] = (two_minus[0] + 2) % n;
        u = mul_mod(&u, &two_minus, f, n);
    }
    Some(u)
}

/// `a^-1 mod f` over `GF(p)` by the extended Euclidean algorithm, `d` words.
pub(crate) fn inverse_mod_p(a: &[u64], f: &[u64], p: u64) -> Option<Vec<u64>> {
    let trim = |mut v: Vec<u64>| {
        while v.last() == Some(&0) {
            v.pop();
        }
        v
    };
    let d = f.len() - 1;
    // Invariant: r0 = s0 a (mod f), r1 = s1 a (mod f).
    let (mut r0, mut r1) = (trim(f.iter().map(|&c| c % p).collect()), trim(a.iter().map(|&c| c % p).collect()));
    let (mut s0, mut s1): (Vec<u64>, Vec<u64>) = (Vec::new(), vec![1]);
    while !r1.is_empty() {
        let lead = modarith::inverse_mod(*r1.last()?, p)?;
        let mut q = vec![0u64; r0.len().saturating_sub(r1.len()) + 1];
        let mut r = r0.clone();
        while r.len() >= r1.len() && !r.is_empty() {
            let c = mul_word(*r.last()?, lead, p);
            let shift = r.len() - r1.len();
            q[shift] = c;
            for (i, &x) in r1.iter().enumerate() {
                r[shift + i] = (r[shift + i] + p - mul_word(c, x, p)) % p;
            }
            r = trim(r);
        }
        let qs = mul(&q, &s1, p);
        let s = trim(add(&s0, &qs.iter().map(|&c| (p - c) % p).collect::<Vec<_>>(), p));
        (r0, r1) = (r1, r);
        (s0, s1) = (s1, s);
    }
    // r0 is the gcd: a nonzero constant when a is invertible.
    if r0.len() != 1 {
        return None;
    }
    let scale = modarith::inverse_mod(r0[0], p)?;
    let mut out: Vec<u64> = reduce(&s0, &f.iter().map(|&c| c % p).collect::<Vec<_>>(), p);
    for c in &mut out {
        *c = mul_word(*c, scale, p);
    }
    out.resize(d, 0);
    Some(out)
}
