//! `cargo xtask bench`: runs the criterion CPU benchmarks (every `[[bench]]` target of the
//! workspace), then prints the transform table from criterion's saved medians.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};

use crate::util::{cargo, run, section, target_dir, workspace_packages};

#[derive(Debug, Default)]
pub struct Options {
    /// Only print the table from the results already in `target/criterion`.
    pub table_only: bool,
    /// Passed to the criterion harness after `--` (a filter, `--measurement-time 2`, ...).
    pub bench_args: Vec<String>,
}

pub fn run_command(options: &Options) -> Result<()> {
    if !options.table_only {
        for package in workspace_packages()? {
            for bench in &package.bench_targets {
                section(&format!("bench: {}/{bench}", package.name));
                let mut cmd = cargo();
                cmd.args(["bench", "-p", &package.name, "--bench", bench]);
                if !options.bench_args.is_empty() {
                    cmd.arg("--").args(&options.bench_args);
                }
                run(&mut cmd)?;
            }
        }
    }
    section("bench: transform medians (from target/criterion)");
    let results = read_criterion_medians(&target_dir().join("criterion"))?;
    println!("{}", transform_table(&results));
    Ok(())
}

/// One benchmark's id (`op/implementation/N/primes`) and median in nanoseconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Median {
    pub full_id: String,
    pub median_ns: f64,
}

/// Reads every `<..>/new/benchmark.json` + `estimates.json` pair under `dir`.
pub fn read_criterion_medians(dir: &Path) -> Result<Vec<Median>> {
    let mut results = Vec::new();
    if !dir.is_dir() {
        return Ok(results);
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(current) = stack.pop() {
        for entry in std::fs::read_dir(&current).with_context(|| format!("could not list {}", current.display()))? {
            let path = entry?.path();
            if !path.is_dir() {
                continue;
            }
            let (benchmark, estimates) = (path.join("benchmark.json"), path.join("estimates.json"));
            if path.file_name().is_some_and(|n| n == "new") && benchmark.is_file() && estimates.is_file() {
                let read = |p: &Path| -> Result<serde_json::Value> {
                    let text = std::fs::read_to_string(p).with_context(|| format!("could not read {}", p.display()))?;
                    serde_json::from_str(&text).with_context(|| format!("invalid JSON in {}", p.display()))
                };
                let full_id = read(&benchmark)?["full_id"].as_str().unwrap_or_default().to_owned();
                let median_ns = read(&estimates)?["median"]["point_estimate"].as_f64().unwrap_or(f64::NAN);
                results.push(Median { full_id, median_ns });
            } else {
                stack.push(path);
            }
        }
    }
    results.sort_by(|a, b| a.full_id.cmp(&b.full_id));
    Ok(results)
}

/// A markdown table of the `{transform}_{direction}/{implementation}/{N}/{primes}` results:
/// one row per (direction, N, primes), one column per (transform, implementation), in
/// microseconds, then each of our transforms' time over fhe-math's NTT time.
pub fn transform_table(results: &[Median]) -> String {
    // (direction, N, primes) -> (transform implementation) -> median us
    let mut rows: BTreeMap<(String, u64, String), BTreeMap<String, f64>> = BTreeMap::new();
    let mut columns = BTreeSet::new();
    for result in results {
        let parts: Vec<&str> = result.full_id.split('/').collect();
        let [group, implementation, degree, primes] = parts[..] else { continue };
        let Some((transform, direction)) = group.rsplit_once('_') else { continue };
        let Ok(degree) = degree.parse::<u64>() else { continue };
        let column = format!("{transform} {implementation}");
        columns.insert(column.clone());
        rows.entry((direction.to_owned(), degree, primes.to_owned()))
            .or_default()
            .insert(column, result.median_ns / 1000.0);
    }
    let order = |c: &String| {
        let rank = ["ntt ours", "dgt ours", "hdgt ours", "ntt fhe-math"].iter().position(|k| k == c);
        (rank.unwrap_or(usize::MAX), c.clone())
    };
    let mut columns: Vec<String> = columns.into_iter().collect();
    columns.sort_by_key(order);
    let reference = "ntt fhe-math";
    let ours: Vec<&String> = columns.iter().filter(|c| c.ends_with(" ours")).collect();
    let with_ratios = columns.iter().any(|c| c == reference);

    let mut out = String::from("| direction | N | primes |");
    let mut rule = String::from("|---|---:|---|");
    for column in &columns {
        out.push_str(&format!(" {} (us) |", column_title(column)));
        rule.push_str("---:|");
    }
    if with_ratios {
        for column in &ours {
            out.push_str(&format!(" {} / fhe-math NTT |", column_title(column)));
            rule.push_str("---:|");
        }
    }
    out.push('\n');
    out.push_str(&rule);
    let mut keys: Vec<_> = rows.keys().cloned().collect();
    // forward before inverse, then by N, then by primes (1x before 16x)
    keys.sort_by_key(|(direction, degree, primes)| {
        let count = primes.split('x').next().and_then(|c| c.parse::<u64>().ok()).unwrap_or(0);
        (direction != "forward", *degree, count)
    });
    for key in keys {
        let values = &rows[&key];
        out.push_str(&format!("\n| {} | {} | {} |", key.0, key.1, key.2));
        for column in &columns {
            out.push_str(&format!(" {} |", values.get(column).map_or("-".to_owned(), |v| format_us(*v))));
        }
        if with_ratios {
            for column in &ours {
                let ratio = match (values.get(*column), values.get(reference)) {
                    (Some(a), Some(b)) if *b > 0.0 => format!("{:.2}", a / b),
                    _ => "-".to_owned(),
                };
                out.push_str(&format!(" {ratio} |"));
            }
        }
    }
    out
}

fn column_title(column: &str) -> String {
    let (transform, implementation) = column.split_once(' ').unwrap_or((column, ""));
    format!("{} {implementation}", transform.to_uppercase())
}

fn format_us(us: f64) -> String {
    if us >= 100.0 { format!("{us:.0}") } else { format!("{us:.1}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn median(id: &str, ns: f64) -> Median {
        Median { full_id: id.into(), median_ns: ns }
    }

    #[test]
    fn table_has_one_row_per_case_and_ratios_against_fhe_math() {
        let results = [
            median("ntt_forward/ours/4096/1x60", 20_000.0),
            median("ntt_forward/fhe-math/4096/1x60", 40_000.0),
            median("dgt_forward/ours/4096/1x60", 30_000.0),
            median("ntt_inverse/ours/4096/1x60", 1_000_000.0),
            median("ntt_forward/ours/4096/16x60", 320_000.0),
        ];
        let table = transform_table(&results);
        let lines: Vec<&str> = table.lines().collect();
        assert_eq!(lines.len(), 5, "{table}");
        assert_eq!(
            lines[0],
            "| direction | N | primes | NTT ours (us) | DGT ours (us) | NTT fhe-math (us) | NTT ours / fhe-math NTT | DGT ours / fhe-math NTT |"
        );
        assert_eq!(lines[2], "| forward | 4096 | 1x60 | 20.0 | 30.0 | 40.0 | 0.50 | 0.75 |");
        assert_eq!(lines[3], "| forward | 4096 | 16x60 | 320 | - | - | - | - |");
        assert_eq!(lines[4], "| inverse | 4096 | 1x60 | 1000 | - | - | - | - |");
    }

    #[test]
    fn reads_criterion_layout() {
        let dir = std::env::temp_dir().join(format!("xtask-bench-test-{}", std::process::id()));
        let new = dir.join("ntt_forward").join("ours").join("4096_1x60").join("new");
        std::fs::create_dir_all(&new).unwrap();
        std::fs::write(new.join("benchmark.json"), r#"{"full_id":"ntt_forward/ours/4096/1x60"}"#).unwrap();
        std::fs::write(new.join("estimates.json"), r#"{"median":{"point_estimate":1234.5}}"#).unwrap();
        let results = read_criterion_medians(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(results, vec![median("ntt_forward/ours/4096/1x60", 1234.5)]);
    }
}
