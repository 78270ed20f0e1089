//! `cargo xtask roofline`: per parameter set and operation, what an ideal implementation must
//! move and multiply, and the H100's lower bound on its time.
//!
//! The model (docs/performance.md, "Roofline", states it with the formulas): a word is 8 bytes,
//! a limb `N` words; every input and output limb crosses HBM once (keys included, intermediates
//! never); BFV ciphertexts at rest in coefficient form, BGV ones in NTT form (as Phantom's and,
//! since 2c772cb, ours), keys in NTT form. Word products are 64-bit
//! modular multiplications, each counted as one 64 x 64 -> 128-bit product (about 8 IMAD issue
//! slots); a real Shoup or Barrett product costs two or three, so the bound is optimistic.

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use crate::perf::{self, Comparison, Op};

/// H100 SXM HBM3 peak bandwidth, bytes per second (measured device-to-device copy: 2970 GB/s).
pub const BANDWIDTH: f64 = 3.35e12;
/// Streaming multiprocessors of the H100 SXM.
pub const SMS: f64 = 132.0;
/// 32-bit IMAD issued per clock per SM.
pub const IMAD_PER_CLOCK: f64 = 64.0;
/// Boost clock, Hz.
pub const CLOCK: f64 = 1.98e9;
/// IMAD slots per 64 x 64 -> 128-bit product (about four IMAD.WIDE, two slots each).
pub const IMAD_PER_PRODUCT: f64 = 8.0;

/// 64-bit word products per second: 132 x 64 x 1.98e9 / 8 = 2.09e12.
pub fn products_per_second() -> f64 {
    SMS * IMAD_PER_CLOCK * CLOCK / IMAD_PER_PRODUCT
}

/// A parameter set: degree `2^log_n`, `l` ciphertext primes, `k` special primes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Set {
    pub scheme: &'static str,
    pub name: &'static str,
    pub log_n: u32,
    pub l: u64,
    pub k: u64,
    /// BFV: the multiplication variants measured (bfv_bench's set list).
    pub variants: &'static [&'static str],
}

impl Set {
    pub fn degree(&self) -> u64 {
        1 << self.log_n
    }

    /// Key-switching digits `ceil(L / k)`.
    pub fn digits(&self) -> u64 {
        self.l.div_ceil(self.k)
    }
}

const BOTH: &[&str] = &["HPS", "BEHZ"];
const HPS: &[&str] = &["HPS"];

/// Our sets: BFV from benches/src/bin/bfv_bench.rs (`all_sets`, Phantom's family), BGV from
/// `bgv_encrypt::Preset::Phantom` (docs/performance.md).
pub fn sets() -> Vec<Set> {
    let bfv = |name, log_n, l, k, variants| Set { scheme: "BFV", name, log_n, l, k, variants };
    let bgv = |name, log_n, l, k| Set { scheme: "BGV", name, log_n, l, k, variants: &[] };
    vec![
        bfv("phantom-4096", 12, 2, 1, BOTH),
        bfv("phantom-8192", 13, 3, 1, BOTH),
        bfv("phantom-16384", 14, 7, 1, BOTH),
        bfv("phantom-16384-hybrid", 14, 8, 4, HPS),
        bfv("phantom-32768", 15, 15, 1, BOTH),
        bfv("phantom-32768-hybrid", 15, 16, 8, HPS),
        bfv("phantom-65536", 16, 31, 1, BOTH),
        bfv("phantom-65536-hybrid", 16, 32, 16, BOTH),
        bgv("4096", 12, 2, 1),
        bgv("16384", 14, 8, 4),
        bgv("32768", 15, 16, 8),
        bgv("65536", 16, 32, 16),
    ]
}

/// Bytes and word products of one call.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    pub bytes: f64,
    pub products: f64,
}

impl Cost {
    pub fn memory_seconds(&self) -> f64 {
        self.bytes / BANDWIDTH
    }

    pub fn multiply_seconds(&self) -> f64 {
        self.products / products_per_second()
    }

    /// The lower bound: the larger of the two.
    pub fn bound_seconds(&self) -> f64 {
        self.memory_seconds().max(self.multiply_seconds())
    }
}

/// The operations of the roofline table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Encrypt,
    Decrypt,
    Add,
    /// BFV: the extension base has `L + 1` (HPS) or `L + 2` (BEHZ, with `m_sk`) primes.
    MulRelin(&'static str),
    Rotate,
}

impl Kind {
    pub fn label(self) -> String {
        match self {
            Kind::Encrypt => "Encrypt".to_string(),
            Kind::Decrypt => "Decrypt".to_string(),
            Kind::Add => "Add".to_string(),
            Kind::MulRelin("") => "Mul+Relin".to_string(),
            Kind::MulRelin(variant) => format!("Mul+Relin {variant}"),
            Kind::Rotate => "Rotate 1".to_string(),
        }
    }
}

/// The rows of one set's table.
pub fn kinds(set: &Set) -> Vec<Kind> {
    let mut kinds = vec![Kind::Encrypt, Kind::Decrypt, Kind::Add];
    if set.scheme == "BFV" {
        kinds.extend(set.variants.iter().map(|&v| Kind::MulRelin(v)));
    } else {
        kinds.push(Kind::MulRelin(""));
    }
    kinds.push(Kind::Rotate);
    kinds
}

/// Products of forward or inverse NTTs over `limbs` limbs: `N/2 log N` butterflies each.
fn ntt(set: &Set, limbs: u64) -> f64 {
    (limbs * set.degree() / 2 * u64::from(set.log_n)) as f64
}

/// Key switching of one polynomial of `L` limbs (coefficient form) into two, added to the
/// ciphertext: ModUp of each digit (`k_j` primes extended to the other `L + k - k_j`), forward
/// NTT of the `d (L + k)` limbs, the inner product with the key (`2 d (L + k)` limb products),
/// inverse NTT of the two accumulators (`2 (L + k)` limbs), ModDown (`k` limbs converted to
/// `L`, then a subtraction and a product by `P^-1`: `2 N (k L + L)`). Products only; the bytes
/// are counted by the operation (only the key and the ciphertext cross HBM).
fn key_switch_products(set: &Set) -> f64 {
    let n = set.degree() as f64;
    let (l, k) = (set.l, set.k);
    let modup: u64 = (0..set.digits()).map(|j| (k.min(l - j * k)) * (l + k - k.min(l - j * k))).sum();
    let d = set.digits();
    n * modup as f64
        + ntt(set, d * (l + k))
        + 2.0 * n * (d * (l + k)) as f64
        + ntt(set, 2 * (l + k))
        + 2.0 * n * (k * l + l) as f64
}

/// Key switching as [`key_switch_products`] for a scheme whose ciphertexts stay in the NTT
/// form (BGV, as ours and Phantom's): the input polynomial is brought to coefficients first
/// (`NTT(L)`), and ModDown transforms only the special limbs back (`NTT(2k)`) and the converted
/// ones forward (`NTT(2L)`) instead of the whole accumulators (`NTT(2 (L + k))`).
fn key_switch_products_ntt_form(set: &Set) -> f64 {
    key_switch_products(set) - ntt(set, 2 * (set.l + set.k))
        + ntt(set, set.l)
        + ntt(set, 2 * set.k)
        + ntt(set, 2 * set.l)
}

/// Bytes and products of one call of `kind` at `set`.
pub fn cost(set: &Set, kind: Kind) -> Cost {
    let n = set.degree() as f64;
    let l = set.l;
    let limb = 8.0 * n;
    let key = (2 * set.digits() * (set.l + set.k)) as f64;
    let bgv = set.scheme == "BGV";
    match kind {
        // Plaintext (N words) + public key (2 L) in, ciphertext (2 L) out; NTT of u, two
        // products with the key, two inverse NTTs, the plaintext scaled per limb.
        Kind::Encrypt => Cost { bytes: limb * (1 + 4 * l) as f64, products: 3.0 * ntt(set, l) + 3.0 * n * l as f64 },
        // Ciphertext (2 L) + secret key (L) in, plaintext (N words) out; NTT of c_1, product
        // with s, inverse NTT, then the scaling to t: an inner product of L terms per coefficient.
        // (BGV, ciphertexts in NTT form: the product with s, then one inverse NTT.)
        Kind::Decrypt => Cost {
            bytes: limb * (3 * l + 1) as f64,
            products: if bgv { 1.0 } else { 2.0 } * ntt(set, l) + 2.0 * n * l as f64,
        },
        // Two ciphertexts (4 L) in, one (2 L) out.
        Kind::Add => Cost { bytes: limb * (6 * l) as f64, products: 0.0 },
        // Two ciphertexts (4 L) + the relinearization key in, one ciphertext (2 L) out.
        Kind::MulRelin(variant) => {
            let bytes = limb * ((6 * l) as f64 + key);
            let products = if bgv {
                // Ciphertexts in NTT form: the tensor (4 products per limb), then key switching
                // of c_2 with the plaintext-modulus correction (2 N L).
                4.0 * n * l as f64 + key_switch_products_ntt_form(set) + 2.0 * n * l as f64
            } else {
                // The four input polynomials extended from q to the base B (b primes), forward
                // NTTs over q + B, the tensor, three inverse NTTs, the scaling by t/q of three
                // polynomials (two conversions of L x b each, and one product per limb), then
                // key switching of c_2.
                let b = if variant == "BEHZ" { l + 2 } else { l + 1 };
                4.0 * n * (l * b) as f64
                    + ntt(set, 4 * (l + b))
                    + 4.0 * n * (l + b) as f64
                    + ntt(set, 3 * (l + b))
                    + 3.0 * n * (2 * l * b + l + b) as f64
                    + key_switch_products(set)
            };
            Cost { bytes, products }
        }
        // A ciphertext (2 L) + the Galois key in, a ciphertext out; the automorphism is a
        // permutation, then key switching of the permuted c_1 (BGV: with its correction).
        Kind::Rotate => Cost {
            bytes: limb * ((4 * l) as f64 + key),
            products: if bgv {
                key_switch_products_ntt_form(set) + 2.0 * n * l as f64
            } else {
                key_switch_products(set)
            },
        },
    }
}

/// Our mean median (microseconds) over the rounds for `kind` at `set`, from the comparison.
fn measured(comparison: &Comparison, set: &Set, kind: Kind) -> Option<f64> {
    let variant = match (set.scheme, kind) {
        ("BGV", _) => "",
        (_, Kind::MulRelin(v)) => v,
        _ => set.variants.first().copied().unwrap_or("HPS"),
    };
    let row = comparison.rows.iter().find(|r| r.scheme == set.scheme && r.set == set.name && r.variant == variant)?;
    // The bound does not count the host transfer: the resident Encrypt and Decrypt, and Add in
    // place where it was measured.
    let ops: &[Op] = match kind {
        Kind::Encrypt => &[Op::EncryptResident, Op::Encrypt],
        Kind::Decrypt => &[Op::DecryptResident, Op::Decrypt],
        Kind::Add => &[Op::AddInPlace, Op::Add],
        Kind::MulRelin(_) => &[Op::MulRelin],
        Kind::Rotate => &[Op::Rotate],
    };
    let values = ops.iter().find_map(|op| row.cells.get(op))?;
    Some(values.iter().map(|(ours, _)| ours).sum::<f64>() / values.len() as f64)
}

/// The markdown tables, one per set.
pub fn tables(comparison: Option<&Comparison>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "H100 SXM: {:.2} TB/s (HBM3 peak), {:.2} x 10^12 word products/s ({} SMs x {} IMAD/clock x \
         {:.2} GHz / {} IMAD per 64 x 64 -> 128-bit product). Bound = max(bytes / bandwidth, \
         products / product rate).{}\n",
        BANDWIDTH / 1e12,
        products_per_second() / 1e12,
        SMS,
        IMAD_PER_CLOCK,
        CLOCK / 1e9,
        IMAD_PER_PRODUCT,
        if comparison.is_some() {
            " Ours: the mean of the rounds' medians (Encrypt and Decrypt with the plaintext on the \
             device, Add in place where measured)."
        } else {
            ""
        }
    );
    for set in sets() {
        let _ = writeln!(
            out,
            "{} {}: N = {}, L = {}, k = {}, digits = {}\n",
            set.scheme,
            set.name,
            set.degree(),
            set.l,
            set.k,
            set.digits()
        );
        let extra = if comparison.is_some() { " ours us | ours / bound |" } else { "" };
        let _ = writeln!(out, "| op | MB | M products | memory us | multiply us | bound us |{extra}");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|{}", if comparison.is_some() { "---:|---:|" } else { "" });
        for kind in kinds(&set) {
            let c = cost(&set, kind);
            let bound = c.bound_seconds() * 1e6;
            let mut line = format!(
                "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                kind.label(),
                c.bytes / 1e6,
                c.products / 1e6,
                c.memory_seconds() * 1e6,
                c.multiply_seconds() * 1e6,
                bound
            );
            if let Some(comparison) = comparison {
                match measured(comparison, &set, kind) {
                    Some(us) => {
                        let _ = write!(line, " {us:.1} | {:.1} |", us / bound);
                    }
                    None => line.push_str(" - | - |"),
                }
            }
            let _ = writeln!(out, "{line}");
        }
        out.push('\n');
    }
    out
}

/// Options of `cargo xtask roofline`.
#[derive(Debug, Clone)]
pub struct Options {
    /// The comparison folders whose medians fill the "ours" columns (none: the bounds only).
    pub data: Vec<PathBuf>,
}

/// Parses `[--data DIR ... | --no-data]`; by default the BGV and BFV folders of the current
/// comparison ([`perf::DEFAULT_DATA`], [`perf::DEFAULT_BFV_DATA`]).
pub fn parse(args: &[String]) -> Result<Options> {
    let root = crate::util::project_root();
    let mut data: Option<Vec<PathBuf>> = None;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--data" => data
                .get_or_insert_with(Vec::new)
                .push(PathBuf::from(iter.next().ok_or_else(|| anyhow!("--data needs a folder"))?)),
            "--no-data" => data = Some(Vec::new()),
            other => bail!("`cargo xtask roofline` does not take `{other}` (see `cargo xtask help`)"),
        }
    }
    let data = data.unwrap_or_else(|| vec![root.join(perf::DEFAULT_DATA), root.join(perf::DEFAULT_BFV_DATA)]);
    Ok(Options { data })
}

/// Loads and merges the comparison folders (`None` when there are none).
fn load_all(data: &[PathBuf]) -> Result<Option<Comparison>> {
    let mut merged: Option<Comparison> = None;
    for dir in data {
        let comparison = perf::load(dir)?;
        match merged.as_mut() {
            Some(m) => m.merge(comparison),
            None => merged = Some(comparison),
        }
    }
    Ok(merged)
}

pub fn run_command(options: &Options) -> Result<()> {
    let comparison = load_all(&options.data)?;
    print!("{}", tables(comparison.as_ref()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str) -> Set {
        sets().into_iter().find(|s| s.name == name).unwrap()
    }

    #[test]
    fn product_rate_is_derived() {
        assert!((products_per_second() - 2.091e12).abs() < 1e9);
    }

    #[test]
    fn digits_and_modup() {
        assert_eq!(set("phantom-65536").digits(), 31);
        assert_eq!(set("phantom-65536-hybrid").digits(), 2);
        // ModUp products are N L^2 when k divides L (and for one special prime).
        let s = set("phantom-4096");
        let n = 4096.0;
        let expected = n * 4.0 + ntt(&s, 2 * 3) + 2.0 * n * 6.0 + ntt(&s, 6) + 2.0 * n * 4.0;
        assert_eq!(key_switch_products(&s), expected);
    }

    #[test]
    fn add_is_memory_bound_and_sized() {
        // 2^16 x 31 limbs: 6 L limbs of 512 KiB.
        let c = cost(&set("phantom-65536"), Kind::Add);
        assert_eq!(c.bytes, 6.0 * 31.0 * 65536.0 * 8.0);
        assert_eq!(c.products, 0.0);
        assert!((c.bound_seconds() * 1e6 - 29.11).abs() < 0.01);
    }

    #[test]
    fn tables_have_a_row_per_operation() {
        let text = tables(None);
        assert_eq!(text.matches("| Mul+Relin").count(), 14 + 4);
        let comparison = load_all(&parse(&[]).unwrap().data).unwrap().unwrap();
        let text = tables(Some(&comparison));
        assert!(text.contains("| Mul+Relin HPS |"));
        // BFV: the one round; BGV: the mean of the nine rounds.
        assert_eq!(measured(&comparison, &set("phantom-16384"), Kind::MulRelin("HPS")), Some(134.0));
        let bgv = measured(&comparison, &set("65536"), Kind::MulRelin("")).unwrap();
        assert!((480.0..500.0).contains(&bgv), "{bgv}");
        assert!(load_all(&parse(&["--no-data".to_string()]).unwrap().data).unwrap().is_none());
    }
}
