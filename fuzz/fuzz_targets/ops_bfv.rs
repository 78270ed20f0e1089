//! Random sequences of BFV operations on small parameters (`N = 1024`, `t = 12289`), each
//! ciphertext checked against the same operations on its slots modulo `t` after decryption.
//! Depth is capped at 2 (products and plaintext products) so the noise stays in budget.
#![no_main]

use arbitrary::Arbitrary;
use libfuzzer_sys::fuzz_target;

#[derive(Debug, Arbitrary)]
enum Op {
    Add(u8, u8),
    Sub(u8, u8),
    Negate(u8),
    MulRelin(u8, u8),
    SquareRelin(u8),
    AddPlain(u8, u16),
    MulPlain(u8, u16),
    RotateRows(u8),
}

#[derive(Debug, Arbitrary)]
struct Input {
    values: Vec<(u16, u16)>,
    ops: Vec<Op>,
}

const T: u64 = 12289;

fuzz_target!(|input: Input| {
    let f = hegpu_fuzz::ops_fixture();
    let c = &f.context;
    let half = 512;
    // Two fresh ciphertexts of small slot vectors.
    let mut plain: Vec<Vec<u64>> = Vec::new();
    let mut depth: Vec<u32> = Vec::new();
    let mut cts = Vec::new();
    for (i, k) in [0u8, 1].into_iter().enumerate() {
        let values: Vec<u64> =
            input.values.iter().take(8).map(|p| u64::from(if i == 0 { p.0 } else { p.1 }) % T).collect();
        let mut slots = vec![0u64; 1024];
        slots[..values.len()].copy_from_slice(&values);
        let ct = c.encrypt_with_seed(&f.encoder.encode(&slots).unwrap(), &f.public, &hegpu_fuzz::seed(10 + k)).unwrap();
        plain.push(slots);
        depth.push(0);
        cts.push(ct);
    }
    for op in input.ops.iter().take(12) {
        let n = cts.len();
        let pick = |x: &u8| usize::from(*x) % n;
        let (ct, slots, d) = match op {
            Op::Add(a, b) | Op::Sub(a, b) => {
                let (a, b) = (pick(a), pick(b));
                let sub = matches!(op, Op::Sub(..));
                let ct = if sub { c.sub(&cts[a], &cts[b]) } else { c.add(&cts[a], &cts[b]) }.unwrap();
                let slots = plain[a]
                    .iter()
                    .zip(&plain[b])
                    .map(|(&x, &y)| if sub { (x + T - y) % T } else { (x + y) % T })
                    .collect();
                (ct, slots, depth[a].max(depth[b]))
            }
            Op::Negate(a) => {
                let a = pick(a);
                (c.negate(&cts[a]).unwrap(), plain[a].iter().map(|&x| (T - x) % T).collect(), depth[a])
            }
            Op::MulRelin(a, b) => {
                let (a, b) = (pick(a), pick(b));
                if depth[a].max(depth[b]) >= 2 {
                    continue;
                }
                let ct = c.mul_relin(&cts[a], &cts[b], &f.relin).unwrap();
                let slots = plain[a].iter().zip(&plain[b]).map(|(&x, &y)| x * y % T).collect();
                (ct, slots, depth[a].max(depth[b]) + 1)
            }
            Op::SquareRelin(a) => {
                let a = pick(a);
                if depth[a] >= 2 {
                    continue;
                }
                (
                    c.square_relin(&cts[a], &f.relin).unwrap(),
                    plain[a].iter().map(|&x| x * x % T).collect(),
                    depth[a] + 1,
                )
            }
            Op::AddPlain(a, v) => {
                let a = pick(a);
                let m = vec![u64::from(*v) % T; 1024];
                let ct = c.add_plain(&cts[a], &f.encoder.encode(&m).unwrap()).unwrap();
                (ct, plain[a].iter().zip(&m).map(|(&x, &y)| (x + y) % T).collect(), depth[a])
            }
            Op::MulPlain(a, v) => {
                let a = pick(a);
                if depth[a] >= 2 {
                    continue;
                }
                let m = vec![u64::from(*v) % T; 1024];
                let ct = c.mul_plain(&cts[a], &f.encoder.encode(&m).unwrap()).unwrap();
                (ct, plain[a].iter().zip(&m).map(|(&x, &y)| x * y % T).collect(), depth[a] + 1)
            }
            Op::RotateRows(a) => {
                let a = pick(a);
                let ct = c.rotate_rows(&cts[a], 1, &f.galois).unwrap();
                let old = &plain[a];
                let slots = (0..1024)
                    .map(|i| {
                        let (row, j) = (i / half, i % half);
                        old[row * half + (j + 1) % half]
                    })
                    .collect();
                (ct, slots, depth[a])
            }
        };
        let decrypted = f.encoder.decode(&c.decrypt(&ct, &f.secret).unwrap()).unwrap();
        assert_eq!(decrypted, slots, "{op:?}");
        cts.push(ct);
        plain.push(slots);
        depth.push(d);
    }
});
