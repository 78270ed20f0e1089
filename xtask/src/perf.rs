//! `cargo xtask plot`: ours against Phantom from the saved outputs of one same-run comparison.
//!
//! A data folder holds, for each round `R` of the comparison (ours and Phantom alternated in
//! one device call), up to four files:
//!
//! - `ours_bfv_R.txt`: our `bfv_bench` output, markdown rows
//!   `| set | parameters | variant | operation | ours GPU us | ... |`;
//! - `peer_bfv_R.txt`: Phantom's `bfv_bench` output: two passes (its `main` runs BEHZ first,
//!   then HPS), each a banner `BFV Performance Test ...` and one block per parameter set
//!   (`| Encryption parameters :`, `poly_modulus_degree: N`,
//!   `coeff_modulus size: B (a + b + ...) bits`, then CSV rows `function,trials,median,...`);
//! - `ours_bgv_R.txt`: our `bgv_bench` output, lines `BGV <N> <op> <median> <min> <max>`;
//! - `peer_bgv_R.txt`: Phantom's `bgv_bench` output, blocks as above, one pass.
//!
//! Which Phantom block is which of our sets: at each N, the first block is our `phantom-N`
//! (one special prime) and the third block at N >= 16384 is our `phantom-N-hybrid` (and our BGV
//! set at that N; at N = 4096 the BGV set is the only block). The ratio of a cell is our
//! median over Phantom's median of the same round.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result, anyhow, bail};

/// The committed BGV rounds of the H100 same-run comparison, each operation back to back
/// (relative to the project root; docs/performance.md). Later comparisons keep their tables in
/// docs/performance.md and their raw outputs in the git history: pass their folder with `--data`.
pub const DEFAULT_DATA: &str = "docs/perf/data/h100/bgv";

/// The committed BFV round of the same comparison (docs/performance.md's BFV table).
pub const DEFAULT_BFV_DATA: &str = "docs/perf/data/h100/bfv";

/// One operation column of the comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Op {
    Encrypt,
    EncryptResident,
    Decrypt,
    DecryptResident,
    AddInPlace,
    Add,
    MulRelin,
    Rotate,
}

impl Op {
    pub const ALL: [Op; 8] = [
        Op::Encrypt,
        Op::EncryptResident,
        Op::Decrypt,
        Op::DecryptResident,
        Op::AddInPlace,
        Op::Add,
        Op::MulRelin,
        Op::Rotate,
    ];

    /// The column heading.
    pub fn label(self) -> &'static str {
        match self {
            Op::Encrypt => "Encrypt",
            Op::EncryptResident => "Encrypt, pt on device",
            Op::Decrypt => "Decrypt",
            Op::DecryptResident => "Decrypt, pt on device",
            Op::AddInPlace => "Add in place",
            Op::Add => "Add",
            Op::MulRelin => "Mul+Relin",
            Op::Rotate => "Rotate 1",
        }
    }

    /// Phantom's benchmark row timing the same operation.
    pub fn phantom_function(self) -> &'static str {
        match self {
            Op::Encrypt | Op::EncryptResident => "encrypt_asymmetric",
            Op::Decrypt | Op::DecryptResident => "decrypt",
            Op::AddInPlace | Op::Add => "add_inplace",
            Op::MulRelin => "multiply",
            Op::Rotate => "rotate_rows_inplace_one_step",
        }
    }

    /// The operation of one of our `bfv_bench` row names.
    fn from_bfv(name: &str) -> Option<Op> {
        Some(match name {
            "Encrypt (pk)" => Op::Encrypt,
            "Encrypt (pk), plaintext on the backend" => Op::EncryptResident,
            "Decrypt" => Op::Decrypt,
            "Decrypt, plaintext left on the backend" => Op::DecryptResident,
            "Add in place" => Op::AddInPlace,
            "Add" => Op::Add,
            "Mul+Relin" => Op::MulRelin,
            "Rotate rows by 1" => Op::Rotate,
            _ => return None,
        })
    }

    /// The operation of one of our `bgv_bench` op names.
    fn from_bgv(name: &str) -> Option<Op> {
        Some(match name {
            "Encrypt" => Op::Encrypt,
            "Decrypt" => Op::Decrypt,
            "DecryptResident" => Op::DecryptResident,
            "AddInPlace" => Op::AddInPlace,
            "Add" => Op::Add,
            "MulRelin" => Op::MulRelin,
            "Rotate" => Op::Rotate,
            _ => return None,
        })
    }
}

/// One Phantom parameter block: its degree, its number of primes (ciphertext and special),
/// the pass it belongs to (0 = first banner) and its medians by function name.
#[derive(Debug, Clone, PartialEq)]
pub struct PeerBlock {
    pub pass: usize,
    pub degree: u64,
    pub primes: usize,
    pub medians: BTreeMap<String, f64>,
}

/// Parses a Phantom `bfv_bench`/`bgv_bench` output into its blocks, in order.
pub fn parse_peer(text: &str) -> Result<Vec<PeerBlock>> {
    let mut blocks: Vec<PeerBlock> = Vec::new();
    let mut banners = 0usize;
    for line in text.lines() {
        let trimmed = line.trim();
        if trimmed.contains("Performance Test") {
            banners += 1;
        } else if trimmed.starts_with("| Encryption parameters") {
            blocks.push(PeerBlock { pass: banners.saturating_sub(1), degree: 0, primes: 0, medians: BTreeMap::new() });
        } else if let Some(block) = blocks.last_mut() {
            let field = trimmed.trim_start_matches('|').trim();
            if let Some(n) = field.strip_prefix("poly_modulus_degree:") {
                block.degree = n.trim().parse().with_context(|| format!("bad degree line `{line}`"))?;
            } else if let Some(size) = field.strip_prefix("coeff_modulus size:") {
                let inner = size
                    .split_once('(')
                    .and_then(|(_, rest)| rest.split_once(')'))
                    .map(|(inner, _)| inner)
                    .ok_or_else(|| anyhow!("bad coeff_modulus line `{line}`"))?;
                block.primes = inner.split('+').count();
            } else if let Some((name, median)) = csv_median(trimmed) {
                block.medians.insert(name.to_string(), median);
            }
        }
    }
    if let Some(bad) = blocks.iter().find(|b| b.degree == 0 || b.primes == 0) {
        bail!("a Phantom block without its degree or primes: {bad:?}");
    }
    Ok(blocks)
}

/// `function,trials,median,...` -> (function, median).
fn csv_median(line: &str) -> Option<(&str, f64)> {
    let mut fields = line.split(',');
    let name = fields.next()?;
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_') {
        return None;
    }
    fields.next()?.trim().parse::<u64>().ok()?;
    let median = fields.next()?.trim().parse::<f64>().ok()?;
    Some((name, median))
}

/// Our BFV medians: (set, variant, op) -> microseconds, and the (set, variant) pairs in order.
#[derive(Debug, Clone, Default)]
pub struct OursBfv {
    pub medians: BTreeMap<(String, String, Op), f64>,
    pub pairs: Vec<(String, String)>,
}

/// Parses our `bfv_bench` output (the rows of Phantom's sets).
pub fn parse_ours_bfv(text: &str) -> OursBfv {
    let mut out = OursBfv::default();
    for line in text.lines() {
        if !line.starts_with("| phantom-") {
            continue;
        }
        let cells: Vec<&str> = line.trim().trim_matches('|').split('|').map(str::trim).collect();
        let [set, _params, variant, op, ours, ..] = cells[..] else { continue };
        let (Some(op), Ok(us)) = (Op::from_bfv(op), ours.parse::<f64>()) else { continue };
        let pair = (set.to_string(), variant.to_string());
        if !out.pairs.contains(&pair) {
            out.pairs.push(pair);
        }
        out.medians.insert((set.to_string(), variant.to_string(), op), us);
    }
    out
}

/// Parses our `bgv_bench` output: (N, op) -> median microseconds.
pub fn parse_ours_bgv(text: &str) -> BTreeMap<(u64, Op), f64> {
    let mut out = BTreeMap::new();
    for line in text.lines() {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let ["BGV", n, op, median, ..] = fields[..] else { continue };
        let (Ok(n), Some(op), Ok(median)) = (n.parse::<u64>(), Op::from_bgv(op), median.parse::<f64>()) else {
            continue;
        };
        out.insert((n, op), median);
    }
    out
}

/// Parses a set name `phantom-N` or `phantom-N-hybrid`.
fn parse_set(set: &str) -> Option<(u64, bool)> {
    let rest = set.strip_prefix("phantom-")?;
    let (n, hybrid) = match rest.strip_suffix("-hybrid") {
        Some(n) => (n, true),
        None => (rest, false),
    };
    Some((n.parse().ok()?, hybrid))
}

/// Phantom's block for one of our sets: pass (`None`: the only pass), degree, and whether it is
/// the hybrid (third) block at that degree.
fn peer_block(blocks: &[PeerBlock], pass: Option<usize>, degree: u64, hybrid: bool) -> Option<&PeerBlock> {
    let index = if hybrid && degree >= 16384 {
        2
    } else if hybrid {
        return None;
    } else {
        0
    };
    blocks.iter().filter(|b| b.degree == degree && pass.is_none_or(|p| b.pass == p)).nth(index)
}

/// Phantom's pass for one of our BFV variants (its `bfv_bench` runs BEHZ, then HPS).
fn bfv_pass(variant: &str) -> Option<usize> {
    match variant {
        "BEHZ" => Some(0),
        "HPS" => Some(1),
        _ => None,
    }
}

/// One row of the comparison: a set (and variant), and per operation the (ours, Phantom)
/// medians of each round.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub scheme: &'static str,
    pub set: String,
    pub variant: String,
    pub degree: u64,
    pub hybrid: bool,
    pub cells: BTreeMap<Op, Vec<(f64, f64)>>,
}

impl Row {
    /// `BFV phantom-16384 HPS`, `BGV 16384`.
    pub fn label(&self) -> String {
        if self.variant.is_empty() {
            format!("{} {}", self.scheme, self.set)
        } else {
            format!("{} {} {}", self.scheme, self.set, self.variant)
        }
    }

    /// The per-round ratios ours / Phantom of `op`.
    pub fn ratios(&self, op: Op) -> Vec<f64> {
        self.cells.get(&op).map(|v| v.iter().map(|(ours, peer)| ours / peer).collect()).unwrap_or_default()
    }
}

/// The parsed files of one data folder, by round.
#[derive(Debug, Clone, Default)]
pub struct Comparison {
    pub rounds: Vec<u32>,
    pub rows: Vec<Row>,
}

fn read_optional(path: &Path) -> Result<Option<String>> {
    if path.exists() {
        Ok(Some(std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?))
    } else {
        Ok(None)
    }
}

/// Reads every round of `dir` and pairs ours with Phantom's figures.
pub fn load(dir: &Path) -> Result<Comparison> {
    let mut rounds = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("reading {}", dir.display()))? {
        let name = entry?.file_name().to_string_lossy().into_owned();
        let round = ["ours_bfv_", "ours_bgv_"]
            .iter()
            .find_map(|prefix| name.strip_prefix(prefix)?.strip_suffix(".txt")?.parse::<u32>().ok());
        if let Some(round) = round
            && !rounds.contains(&round)
        {
            rounds.push(round);
        }
    }
    rounds.sort_unstable();
    if rounds.is_empty() {
        bail!("{} has no ours_bfv_<R>.txt or ours_bgv_<R>.txt", dir.display());
    }
    let mut rows: Vec<Row> = Vec::new();
    let row_index = |rows: &mut Vec<Row>, scheme: &'static str, set: &str, variant: &str, degree, hybrid| {
        if let Some(i) = rows.iter().position(|r| r.scheme == scheme && r.set == set && r.variant == variant) {
            i
        } else {
            rows.push(Row {
                scheme,
                set: set.to_string(),
                variant: variant.to_string(),
                degree,
                hybrid,
                cells: BTreeMap::new(),
            });
            rows.len() - 1
        }
    };
    for &round in &rounds {
        if let (Some(ours), Some(peer)) = (
            read_optional(&dir.join(format!("ours_bfv_{round}.txt")))?,
            read_optional(&dir.join(format!("peer_bfv_{round}.txt")))?,
        ) {
            let ours = parse_ours_bfv(&ours);
            let peer = parse_peer(&peer)?;
            for (set, variant) in &ours.pairs {
                let Some((degree, hybrid)) = parse_set(set) else { continue };
                let i = row_index(&mut rows, "BFV", set, variant, degree, hybrid);
                let block = peer_block(&peer, bfv_pass(variant), degree, hybrid);
                for op in Op::ALL {
                    let us = ours.medians.get(&(set.clone(), variant.clone(), op));
                    let peer_us = block.and_then(|b| b.medians.get(op.phantom_function()));
                    if let (Some(&us), Some(&peer_us)) = (us, peer_us) {
                        rows[i].cells.entry(op).or_default().push((us, peer_us));
                    }
                }
            }
        }
        if let (Some(ours), Some(peer)) = (
            read_optional(&dir.join(format!("ours_bgv_{round}.txt")))?,
            read_optional(&dir.join(format!("peer_bgv_{round}.txt")))?,
        ) {
            let ours = parse_ours_bgv(&ours);
            let peer = parse_peer(&peer)?;
            for (&(degree, op), &us) in &ours {
                let hybrid = degree >= 16384;
                let i = row_index(&mut rows, "BGV", &degree.to_string(), "", degree, hybrid);
                let block = peer_block(&peer, None, degree, hybrid);
                if let Some(&peer_us) = block.and_then(|b| b.medians.get(op.phantom_function())) {
                    rows[i].cells.entry(op).or_default().push((us, peer_us));
                }
            }
        }
    }
    Ok(Comparison { rounds, rows })
}

impl Comparison {
    /// Appends the rows of `other` (another data folder) and the rounds it adds.
    pub fn merge(&mut self, other: Comparison) {
        for round in other.rounds {
            if !self.rounds.contains(&round) {
                self.rounds.push(round);
            }
        }
        self.rounds.sort_unstable();
        self.rows.extend(other.rows);
    }

    /// The operations with at least one figure, in column order.
    pub fn ops(&self) -> Vec<Op> {
        Op::ALL.into_iter().filter(|op| self.rows.iter().any(|r| r.cells.contains_key(op))).collect()
    }

    /// The markdown summary: one line per set, per operation the ratios of the rounds.
    pub fn summary_markdown(&self) -> String {
        let ops = self.ops();
        let mut out = String::new();
        let rounds: Vec<String> = self.rounds.iter().map(|r| format!("r{r}")).collect();
        let _ = writeln!(
            out,
            "Ratio = our median / Phantom's median in the same round (< 1: we are faster); each cell \
             gives the rounds {}.\n",
            rounds.join(" / ")
        );
        let _ = writeln!(
            out,
            "| scheme | set | variant | {} |",
            ops.iter().map(|o| o.label()).collect::<Vec<_>>().join(" | ")
        );
        let _ = writeln!(out, "|---|---|---|{}", "---:|".repeat(ops.len()));
        for row in &self.rows {
            let cells: Vec<String> = ops
                .iter()
                .map(|&op| {
                    let ratios = row.ratios(op);
                    if ratios.is_empty() {
                        "-".to_string()
                    } else {
                        ratios.iter().map(|r| format!("{r:.2}")).collect::<Vec<_>>().join(" / ")
                    }
                })
                .collect();
            let variant = if row.variant.is_empty() { "-" } else { &row.variant };
            let _ = writeln!(out, "| {} | {} | {} | {} |", row.scheme, row.set, variant, cells.join(" | "));
        }
        out
    }
}

/// Options of `cargo xtask plot`.
#[derive(Debug, Clone)]
pub struct Options {
    pub data: PathBuf,
    pub out: Option<PathBuf>,
}

/// Parses `[--data DIR] [--out FILE.png]`.
pub fn parse(args: &[String]) -> Result<Options> {
    let mut options = Options { data: crate::util::project_root().join(DEFAULT_DATA), out: None };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        match arg.as_str() {
            "--data" => options.data = PathBuf::from(iter.next().ok_or_else(|| anyhow!("--data needs a folder"))?),
            "--out" => options.out = Some(PathBuf::from(iter.next().ok_or_else(|| anyhow!("--out needs a file"))?)),
            other => bail!("`cargo xtask plot` does not take `{other}` (see `cargo xtask help`)"),
        }
    }
    Ok(options)
}

/// The name of a data folder: the folders below `data` joined by `-` (`docs/perf/data/h100/bgv`
/// -> `h100-bgv`), with the folder that holds `data` (`docs/perf`); a folder outside any `data`:
/// its own name, with its parent's parent.
fn data_name(data: &Path) -> (PathBuf, String) {
    let below_data = data.ancestors().skip(1).find(|a| a.file_name().is_some_and(|n| n == "data")).and_then(|d| {
        let names: Vec<String> = data.strip_prefix(d).ok()?.iter().map(|n| n.to_string_lossy().into_owned()).collect();
        Some((d.parent().unwrap_or_else(|| Path::new(".")).to_path_buf(), names.join("-")))
    });
    below_data.filter(|(_, name)| !name.is_empty()).unwrap_or_else(|| {
        let name =
            data.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_else(|| "comparison".to_string());
        (data.parent().and_then(Path::parent).unwrap_or_else(|| Path::new(".")).to_path_buf(), name)
    })
}

/// The PNG beside the data: `docs/perf/data/h100/bgv` -> `docs/perf/h100-bgv-vs-phantom.png`.
pub fn default_png(data: &Path) -> PathBuf {
    let (parent, name) = data_name(data);
    parent.join(format!("{name}-vs-phantom.png"))
}

pub fn run_command(options: &Options) -> Result<()> {
    let comparison = load(&options.data)?;
    let out = options.out.clone().unwrap_or_else(|| default_png(&options.data));
    let title = format!(
        "ours / Phantom, same run ({}): bar = mean of the rounds, line = their range",
        data_name(&options.data).1
    );
    crate::plot::draw(&comparison, &title, &out)?;
    print!("{}", comparison.summary_markdown());
    eprintln!("xtask: wrote {}", out.display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bgv_data() -> PathBuf {
        crate::util::project_root().join(DEFAULT_DATA)
    }

    fn bfv_data() -> PathBuf {
        crate::util::project_root().join(DEFAULT_BFV_DATA)
    }

    fn read(dir: PathBuf, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap()
    }

    #[test]
    fn ours_bfv_known_values() {
        let ours = parse_ours_bfv(&read(bfv_data(), "ours_bfv_1.txt"));
        let key = |set: &str, variant: &str, op| (set.to_string(), variant.to_string(), op);
        assert_eq!(ours.medians[&key("phantom-16384", "HPS", Op::MulRelin)], 134.0);
        assert_eq!(ours.medians[&key("phantom-4096", "HPS", Op::Encrypt)], 69.4);
        assert_eq!(ours.pairs.len(), 14);
        assert_eq!(ours.pairs[0], ("phantom-4096".to_string(), "HPS".to_string()));
    }

    #[test]
    fn peer_known_values() {
        let bgv = parse_peer(&read(bgv_data(), "peer_bgv_1.txt")).unwrap();
        assert_eq!(bgv.len(), 13);
        assert_eq!((bgv[0].degree, bgv[0].primes, bgv[0].pass), (4096, 3, 0));
        assert_eq!(bgv[0].medians["multiply"], 173.536);
        let bfv = parse_peer(&read(bfv_data(), "peer_bfv_1.txt")).unwrap();
        assert_eq!(bfv.len(), 26);
        assert_eq!(bfv.iter().filter(|b| b.pass == 1).count(), 13);
        // The first pass is BEHZ (413 us in docs/anchors.md), the second HPS (254 us).
        assert_eq!(bfv[0].medians["multiply"], 367.616);
        assert_eq!(bfv[13].medians["multiply"], 319.552);
        // The hybrid block at 2^16: 32 + 16 primes.
        let hybrid = peer_block(&bfv, Some(1), 65536, true).unwrap();
        assert_eq!((hybrid.primes, hybrid.medians["multiply"]), (48, 3684.8));
    }

    #[test]
    fn ours_bgv_known_values() {
        let bgv = parse_ours_bgv(&read(bgv_data(), "ours_bgv_1.txt"));
        assert_eq!(bgv[&(4096, Op::MulRelin)], 53.9);
        assert_eq!(bgv[&(65536, Op::Rotate)], 473.5);
        // Seven of bgv_bench's eleven operations have a Phantom row.
        assert_eq!(bgv.len(), 4 * 7);
    }

    #[test]
    fn comparison_pairs_the_right_blocks() {
        let bfv = load(&bfv_data()).unwrap();
        assert_eq!(bfv.rounds, vec![1]);
        assert_eq!(bfv.rows.len(), 14);
        let bgv = load(&bgv_data()).unwrap();
        assert_eq!(bgv.rounds, (1..=9).collect::<Vec<_>>());
        assert_eq!(bgv.rows.len(), 4);
        let mut c = bfv;
        c.merge(bgv);
        assert_eq!(c.rounds, (1..=9).collect::<Vec<_>>());
        let row = |scheme: &str, set: &str, variant: &str| {
            c.rows.iter().find(|r| r.scheme == scheme && r.set == set && r.variant == variant).unwrap()
        };
        // HPS against Phantom's HPS pass, round 1: 134 / 439.68.
        let hps = row("BFV", "phantom-16384", "HPS");
        assert_eq!(hps.cells[&Op::MulRelin][0], (134.0, 439.68));
        let behz = row("BFV", "phantom-16384", "BEHZ");
        assert_eq!(behz.cells[&Op::MulRelin][0].1, 566.24);
        // BGV at 4096: the only block; at 16384 the third (hybrid) one.
        assert_eq!(row("BGV", "4096", "").cells[&Op::MulRelin][0], (53.9, 173.536));
        assert_eq!(row("BGV", "16384", "").cells[&Op::MulRelin][0].0, 72.7);
        assert_eq!(row("BGV", "16384", "").cells[&Op::MulRelin].len(), 9);
        let summary = c.summary_markdown();
        assert_eq!(summary.lines().filter(|l| l.starts_with("| BFV") || l.starts_with("| BGV")).count(), 18);
    }

    #[test]
    fn png_goes_beside_the_data() {
        assert_eq!(
            default_png(Path::new("docs/perf/data/h100/bgv")),
            PathBuf::from("docs/perf/h100-bgv-vs-phantom.png")
        );
        assert_eq!(default_png(Path::new("docs/perf/data/h100")), PathBuf::from("docs/perf/h100-vs-phantom.png"));
        assert_eq!(default_png(Path::new("/tmp/runs/a")), PathBuf::from("/tmp/a-vs-phantom.png"));
    }
}
