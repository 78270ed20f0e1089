//! `cargo xtask roofline`: per parameter set and operation, what an ideal implementation must
//! move and multiply, and a GPU's lower bound on its time ([`Machine`]: the H200 by default).
//!
//! The model (docs/performance.md, "Roofline", states it with the formulas): a word is 8 bytes,
//! a limb `N` words; every input and output limb crosses HBM once (keys included, intermediates
//! never); BFV ciphertexts at rest in coefficient form, BGV ones in NTT form (as Phantom's and
//! ours), keys in NTT form. Word products are 64-bit modular multiplications in three classes
//! ([`Cost`]): the transforms' butterflies, the base conversions' inner products and the
//! element-wise products. On the integer pipe each is one 64 x 64 -> 128-bit product (about 8
//! IMAD issue slots; a real Shoup or Barrett product costs two or three, so the bound is
//! optimistic). Sets whose primes are below 2^40 (BGV's) may take the FP64 pipe for the
//! butterflies (six FP64 operations a product, kernels/ntt.cu) and the FP64 tensor cores for the
//! conversions (four 20-bit part products a word product, kernels/rns.cu); the classes' times
//! add up (the pipes are not overlapped).

use std::fmt::Write as _;
use std::path::PathBuf;

use anyhow::{Result, anyhow, bail};

use crate::perf::{self, Comparison, Op};

/// A GPU's rates.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Machine {
    pub name: &'static str,
    /// Bytes per second of HBM (what the tables divide by).
    pub bandwidth: f64,
    /// Where the bandwidth figure comes from.
    pub bandwidth_source: &'static str,
    pub sms: f64,
    /// Boost clock, Hz.
    pub clock: f64,
}

/// 32-bit IMAD issued per clock per SM (Hopper).
pub const IMAD_PER_CLOCK: f64 = 64.0;
/// IMAD slots per 64 x 64 -> 128-bit product (about four IMAD.WIDE, two slots each).
pub const IMAD_PER_PRODUCT: f64 = 8.0;
/// FP64 fused multiply-adds per clock per SM (Hopper, without tensor cores).
pub const FP64_PER_CLOCK: f64 = 64.0;
/// FP64 operations per modular product of the FP64 butterflies.
pub const FP64_PER_PRODUCT: f64 = 6.0;
/// FP64 tensor-core multiply-adds per clock per SM (Hopper: 67 TFLOPS at 132 SMs, 1.98 GHz).
pub const TENSOR_FMA_PER_CLOCK: f64 = 128.0;
/// 20-bit part products per word product of the tensor-core conversions.
pub const TENSOR_PARTS_PER_PRODUCT: f64 = 4.0;

/// The H100 SXM: HBM3 peak (its measured device-to-device copy: 2970 GB/s).
pub const H100: Machine =
    Machine { name: "H100 SXM", bandwidth: 3.35e12, bandwidth_source: "HBM3 peak", sms: 132.0, clock: 1.98e9 };

/// The H200: the device-to-device copy measured on the machines here (4.19 TB/s; HBM3e peak
/// 4.8), the H100's SMs and clocks.
pub const H200: Machine = Machine {
    name: "H200",
    bandwidth: 4.19e12,
    bandwidth_source: "measured device-to-device copy",
    sms: 132.0,
    clock: 1.98e9,
};

impl Machine {
    /// 64-bit word products per second on the integer pipe: 132 x 64 x 1.98e9 / 8 = 2.09e12.
    pub fn integer_products_per_second(&self) -> f64 {
        self.sms * IMAD_PER_CLOCK * self.clock / IMAD_PER_PRODUCT
    }

    /// Butterfly products per second on the FP64 pipe (primes below 2^43).
    pub fn fp64_products_per_second(&self) -> f64 {
        self.sms * FP64_PER_CLOCK * self.clock / FP64_PER_PRODUCT
    }

    /// Conversion products per second on the FP64 tensor cores (factors below 2^40).
    pub fn tensor_products_per_second(&self) -> f64 {
        self.sms * TENSOR_FMA_PER_CLOCK * self.clock / TENSOR_PARTS_PER_PRODUCT
    }
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
    /// Every prime below 2^40: the FP64 butterflies and the tensor-core conversions apply.
    pub short_primes: bool,
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
    // BFV's bases have 62-bit primes (its hybrid sets' ciphertext primes are short, but the
    // extension bases are not: counted on the integer pipe throughout).
    let bfv = |name, log_n, l, k, variants| Set { scheme: "BFV", name, log_n, l, k, variants, short_primes: false };
    let bgv = |name, log_n, l, k| Set { scheme: "BGV", name, log_n, l, k, variants: &[], short_primes: true };
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

/// Bytes and word products of one call, by class.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Cost {
    pub bytes: f64,
    /// Butterflies of the transforms.
    pub transform: f64,
    /// Inner products of the base conversions (ModUp, ModDown, BFV's extensions and scaling).
    pub conversion: f64,
    /// Element-wise products (tensor, key inner product, scalings).
    pub pointwise: f64,
}

impl Cost {
    pub fn products(&self) -> f64 {
        self.transform + self.conversion + self.pointwise
    }

    pub fn memory_seconds(&self, machine: &Machine) -> f64 {
        self.bytes / machine.bandwidth
    }

    /// The products at their pipes' peak rates, one after the other: all on the integer pipe,
    /// or (`short_primes`) the butterflies on the FP64 pipe and the conversions on the tensor
    /// cores.
    pub fn multiply_seconds(&self, machine: &Machine, short_primes: bool) -> f64 {
        let integer = machine.integer_products_per_second();
        if short_primes {
            self.transform / machine.fp64_products_per_second()
                + self.conversion / machine.tensor_products_per_second()
                + self.pointwise / integer
        } else {
            self.products() / integer
        }
    }

    /// The lower bound: the larger of the two.
    pub fn bound_seconds(&self, machine: &Machine, short_primes: bool) -> f64 {
        self.memory_seconds(machine).max(self.multiply_seconds(machine, short_primes))
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

impl std::ops::Add for Cost {
    type Output = Cost;
    fn add(self, other: Cost) -> Cost {
        Cost {
            bytes: self.bytes + other.bytes,
            transform: self.transform + other.transform,
            conversion: self.conversion + other.conversion,
            pointwise: self.pointwise + other.pointwise,
        }
    }
}

fn transform(products: f64) -> Cost {
    Cost { transform: products, ..Cost::default() }
}

fn conversion(products: f64) -> Cost {
    Cost { conversion: products, ..Cost::default() }
}

fn pointwise(products: f64) -> Cost {
    Cost { pointwise: products, ..Cost::default() }
}

/// Key switching of one polynomial of `L` limbs (coefficient form) into two, added to the
/// ciphertext: ModUp of each digit (`k_j` primes extended to the other `L + k - k_j`), forward
/// NTT of the `d (L + k)` limbs, the inner product with the key (`2 d (L + k)` limb products),
/// inverse NTT of the two accumulators (`2 (L + k)` limbs), ModDown (`k` limbs converted to
/// `L`, then a subtraction and a product by `P^-1`: `2 N (k L + L)`). Products only; the bytes
/// are counted by the operation (only the key and the ciphertext cross HBM).
fn key_switch(set: &Set) -> Cost {
    let n = set.degree() as f64;
    let (l, k) = (set.l, set.k);
    let modup: u64 = (0..set.digits()).map(|j| (k.min(l - j * k)) * (l + k - k.min(l - j * k))).sum();
    let d = set.digits();
    conversion(n * modup as f64)
        + transform(ntt(set, d * (l + k)))
        + pointwise(2.0 * n * (d * (l + k)) as f64)
        + transform(ntt(set, 2 * (l + k)))
        + conversion(2.0 * n * (k * l) as f64)
        + pointwise(2.0 * n * l as f64)
}

/// Key switching as [`key_switch`] for a scheme whose ciphertexts stay in the NTT form (BGV, as
/// ours and Phantom's): the input polynomial is brought to coefficients first (`NTT(L)`), and
/// ModDown transforms only the special limbs back (`NTT(2k)`) and the converted ones forward
/// (`NTT(2L)`) instead of the whole accumulators (`NTT(2 (L + k))`).
fn key_switch_ntt_form(set: &Set) -> Cost {
    let mut cost = key_switch(set);
    cost.transform += -ntt(set, 2 * (set.l + set.k)) + ntt(set, set.l) + ntt(set, 2 * set.k) + ntt(set, 2 * set.l);
    cost
}

/// Bytes and products of one call of `kind` at `set`.
pub fn cost(set: &Set, kind: Kind) -> Cost {
    let n = set.degree() as f64;
    let l = set.l;
    let limb = 8.0 * n;
    let key = (2 * set.digits() * (set.l + set.k)) as f64;
    let bgv = set.scheme == "BGV";
    let bytes = |limbs: f64| Cost { bytes: limb * limbs, ..Cost::default() };
    match kind {
        // Plaintext (N words) + public key (2 L) in, ciphertext (2 L) out; NTT of u, two
        // products with the key, two inverse NTTs, the plaintext scaled per limb.
        Kind::Encrypt => bytes((1 + 4 * l) as f64) + transform(3.0 * ntt(set, l)) + pointwise(3.0 * n * l as f64),
        // Ciphertext (2 L) + secret key (L) in, plaintext (N words) out; NTT of c_1, product
        // with s, inverse NTT, then the scaling to t: an inner product of L terms per coefficient.
        // (BGV, ciphertexts in NTT form: the product with s, then one inverse NTT.)
        Kind::Decrypt => {
            bytes((3 * l + 1) as f64)
                + transform(if bgv { 1.0 } else { 2.0 } * ntt(set, l))
                + pointwise(n * l as f64)
                + conversion(n * l as f64)
        }
        // Two ciphertexts (4 L) in, one (2 L) out.
        Kind::Add => bytes((6 * l) as f64),
        // Two ciphertexts (4 L) + the relinearization key in, one ciphertext (2 L) out.
        Kind::MulRelin(variant) => {
            let io = bytes((6 * l) as f64 + key);
            if bgv {
                // Ciphertexts in NTT form: the tensor (4 products per limb), then key switching
                // of c_2 with the plaintext-modulus correction (2 N L).
                io + pointwise(4.0 * n * l as f64) + key_switch_ntt_form(set) + pointwise(2.0 * n * l as f64)
            } else {
                // The four input polynomials extended from q to the base B (b primes), forward
                // NTTs over q + B, the tensor, three inverse NTTs, the scaling by t/q of three
                // polynomials (two conversions of L x b each, and one product per limb), then
                // key switching of c_2.
                let b = if variant == "BEHZ" { l + 2 } else { l + 1 };
                io + conversion(4.0 * n * (l * b) as f64)
                    + transform(ntt(set, 4 * (l + b)))
                    + pointwise(4.0 * n * (l + b) as f64)
                    + transform(ntt(set, 3 * (l + b)))
                    + conversion(3.0 * n * (2 * l * b) as f64)
                    + pointwise(3.0 * n * (l + b) as f64)
                    + key_switch(set)
            }
        }
        // A ciphertext (2 L) + the Galois key in, a ciphertext out; the automorphism is a
        // permutation, then key switching of the permuted c_1 (BGV: with its correction).
        Kind::Rotate => {
            let io = bytes((4 * l) as f64 + key);
            if bgv { io + key_switch_ntt_form(set) + pointwise(2.0 * n * l as f64) } else { io + key_switch(set) }
        }
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

/// The markdown tables of `machine`, one per set.
pub fn tables(machine: &Machine, comparison: Option<&Comparison>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}: {:.2} TB/s ({}); word products per second: {:.2} x 10^12 on the integer pipe ({} SMs x {} \
         IMAD/clock x {:.2} GHz / {} IMAD a product), {:.2} x 10^12 butterfly products on the FP64 pipe \
         ({} FP64 operations a product), {:.2} x 10^12 conversion products on the FP64 tensor cores ({} \
         multiply-adds a clock and SM, {} part products a word product); the FP64 rates apply to sets of \
         primes below 2^40 (BGV). Bound = max(bytes / bandwidth, the products' time at their pipes' rates, \
         added).{}\n",
        machine.name,
        machine.bandwidth / 1e12,
        machine.bandwidth_source,
        machine.integer_products_per_second() / 1e12,
        machine.sms,
        IMAD_PER_CLOCK,
        machine.clock / 1e9,
        IMAD_PER_PRODUCT,
        machine.fp64_products_per_second() / 1e12,
        FP64_PER_PRODUCT,
        machine.tensor_products_per_second() / 1e12,
        TENSOR_FMA_PER_CLOCK,
        TENSOR_PARTS_PER_PRODUCT,
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
            "{} {}: N = {}, L = {}, k = {}, digits = {}{}\n",
            set.scheme,
            set.name,
            set.degree(),
            set.l,
            set.k,
            set.digits(),
            if set.short_primes { ", primes below 2^40" } else { "" }
        );
        let extra = if comparison.is_some() { " ours us | ours / bound |" } else { "" };
        let _ = writeln!(out, "| op | MB | M products | memory us | multiply us | bound us |{extra}");
        let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|{}", if comparison.is_some() { "---:|---:|" } else { "" });
        for kind in kinds(&set) {
            let c = cost(&set, kind);
            let bound = c.bound_seconds(machine, set.short_primes) * 1e6;
            let mut line = format!(
                "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
                kind.label(),
                c.bytes / 1e6,
                c.products() / 1e6,
                c.memory_seconds(machine) * 1e6,
                c.multiply_seconds(machine, set.short_primes) * 1e6,
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
    /// The GPU whose rates bound the operations.
    pub machine: Machine,
}

/// Parses `[--machine h200|h100] [--data DIR ... | --no-data]`; by default the H200 with the
/// bounds alone (its comparisons' outputs live in the git history: `--data` names them), and
/// for the H100 the committed folders of its comparison ([`perf::DEFAULT_DATA`],
/// [`perf::DEFAULT_BFV_DATA`]), whose medians were measured there.
pub fn parse(args: &[String]) -> Result<Options> {
    let root = crate::util::project_root();
    let mut data: Option<Vec<PathBuf>> = None;
    let mut machine = H200;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--machine" => {
                machine = match iter.next().map(String::as_str) {
                    Some("h200") => H200,
                    Some("h100") => H100,
                    other => bail!("--machine takes h200 or h100, not {other:?}"),
                }
            }
            "--data" => data
                .get_or_insert_with(Vec::new)
                .push(PathBuf::from(iter.next().ok_or_else(|| anyhow!("--data needs a folder"))?)),
            "--no-data" => data = Some(Vec::new()),
            other => bail!("`cargo xtask roofline` does not take `{other}` (see `cargo xtask help`)"),
        }
    }
    let data = data.unwrap_or_else(|| {
        if machine == H100 {
            vec![root.join(perf::DEFAULT_DATA), root.join(perf::DEFAULT_BFV_DATA)]
        } else {
            Vec::new()
        }
    });
    Ok(Options { data, machine })
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
    print!("{}", tables(&options.machine, comparison.as_ref()));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(name: &str) -> Set {
        sets().into_iter().find(|s| s.name == name).unwrap()
    }

    #[test]
    fn rates_are_derived() {
        assert!((H200.integer_products_per_second() - 2.091e12).abs() < 1e9);
        assert!((H200.fp64_products_per_second() - 2.788e12).abs() < 1e9);
        // 132 x 128 x 1.98e9 = 33.5e12 multiply-adds (67 TFLOPS), four per word product.
        assert!((H200.tensor_products_per_second() - 8.364e12).abs() < 1e9);
    }

    #[test]
    fn digits_and_modup() {
        assert_eq!(set("phantom-65536").digits(), 31);
        assert_eq!(set("phantom-65536-hybrid").digits(), 2);
        // ModUp products are N L^2 when k divides L (and for one special prime).
        let s = set("phantom-4096");
        let n = 4096.0;
        let ks = key_switch(&s);
        assert_eq!(ks.conversion, n * 4.0 + 2.0 * n * 2.0);
        assert_eq!(ks.transform, ntt(&s, 2 * 3) + ntt(&s, 6));
        assert_eq!(ks.pointwise, 2.0 * n * 6.0 + 2.0 * n * 2.0);
    }

    #[test]
    fn add_is_memory_bound_and_sized() {
        // 2^16 x 31 limbs: 6 L limbs of 512 KiB.
        let c = cost(&set("phantom-65536"), Kind::Add);
        assert_eq!(c.bytes, 6.0 * 31.0 * 65536.0 * 8.0);
        assert_eq!(c.products(), 0.0);
        assert!((c.bound_seconds(&H100, false) * 1e6 - 29.11).abs() < 0.01);
        assert!((c.bound_seconds(&H200, false) * 1e6 - 23.27).abs() < 0.01);
    }

    /// The FP64 pipes only lower the arithmetic time, and only for sets of short primes.
    #[test]
    fn short_primes_take_the_faster_pipes() {
        let c = cost(&set("65536"), Kind::MulRelin(""));
        assert!(c.multiply_seconds(&H200, true) < c.multiply_seconds(&H200, false));
        assert!(c.transform > 0.0 && c.conversion > 0.0 && c.pointwise > 0.0);
    }

    #[test]
    fn tables_have_a_row_per_operation() {
        let text = tables(&H200, None);
        assert_eq!(text.matches("| Mul+Relin").count(), 14 + 4);
        // The H200 by default, with the bounds alone; the H100 with its committed comparison.
        let options = parse(&[]).unwrap();
        assert_eq!((options.machine, options.data.len()), (H200, 0));
        let options = parse(&["--machine".into(), "h100".into()]).unwrap();
        assert_eq!(options.machine, H100);
        assert!(parse(&["--machine".into(), "a100".into()]).is_err());
        let comparison = load_all(&options.data).unwrap().unwrap();
        let text = tables(&H100, Some(&comparison));
        assert!(text.contains("| Mul+Relin HPS |"));
        // BFV: the one round; BGV: the mean of the nine rounds.
        assert_eq!(measured(&comparison, &set("phantom-16384"), Kind::MulRelin("HPS")), Some(134.0));
        let bgv = measured(&comparison, &set("65536"), Kind::MulRelin("")).unwrap();
        assert!((480.0..500.0).contains(&bgv), "{bgv}");
        assert!(load_all(&parse(&["--no-data".to_string()]).unwrap().data).unwrap().is_none());
    }
}
