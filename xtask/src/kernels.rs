//! `cargo xtask kernels`: compiles every `kernels/*.cu` with the shared flags for one
//! architecture (sm_90 unless told) with `-Xptxas -v`, and prints each kernel's
//! registers, static shared memory, stack and spills.
//!
//! The shared flags' own target selection (`-gencode`, `-arch`, output kind) is replaced
//! by `-cubin -arch=<arch>` so ptxas reports exactly one architecture.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context, Result, bail};

use crate::cuda;
use crate::util::{display, project_root, section};

#[derive(Debug)]
pub struct Options {
    /// Real architecture to report, e.g. `sm_90`.
    pub arch: String,
    /// Sources to compile instead of every `kernels/*.cu`.
    pub files: Vec<PathBuf>,
}

impl Default for Options {
    fn default() -> Self {
        Self { arch: "sm_90".to_owned(), files: Vec::new() }
    }
}

/// One kernel's resource use as ptxas reports it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct KernelResources {
    pub name: String,
    pub registers: u64,
    pub shared_bytes: u64,
    pub stack_bytes: u64,
    pub spill_store_bytes: u64,
    pub spill_load_bytes: u64,
}

/// Arguments that pick targets or the output kind; they take a value when `true`.
const TARGET_ARGS: [(&str, bool); 13] = [
    ("-gencode", true),
    ("--generate-code", true),
    ("-arch", true),
    ("--gpu-architecture", true),
    ("-code", true),
    ("--gpu-code", true),
    ("-o", true),
    ("--output-file", true),
    ("-fatbin", false),
    ("--fatbin", false),
    ("-cubin", false),
    ("--cubin", false),
    ("-ptx", false),
];

/// The shared flags without target, output-kind or output-file arguments.
pub fn strip_target_flags(flags: &[String]) -> Vec<String> {
    let mut kept = Vec::new();
    let mut skip_value = false;
    for flag in flags {
        if skip_value {
            skip_value = false;
            continue;
        }
        let mut dropped = false;
        for (name, takes_value) in TARGET_ARGS {
            if flag == name {
                skip_value = takes_value;
                dropped = true;
            } else if takes_value && flag.starts_with(&format!("{name}=")) {
                dropped = true;
            }
        }
        if !dropped && flag != "-c" && flag != "--compile" && flag != "--ptx" {
            kept.push(flag.clone());
        }
    }
    kept
}

/// Parses `-Xptxas -v` output (stderr of nvcc) into one entry per kernel.
pub fn parse_ptxas_verbose(text: &str) -> Vec<KernelResources> {
    let mut kernels: Vec<KernelResources> = Vec::new();
    for line in text.lines() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("ptxas info    : Compiling entry function '") {
            let name = rest.split('\'').next().unwrap_or(rest);
            kernels.push(KernelResources { name: name.to_owned(), ..KernelResources::default() });
            continue;
        }
        let Some(current) = kernels.last_mut() else { continue };
        // Lines look like "Used 14 registers, used 1 barriers, 2048 bytes smem" and
        // "512 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads".
        for part in line.trim_start_matches("ptxas info    : ").split(',') {
            let words: Vec<&str> = part.split_whitespace().collect();
            let words = if words.first() == Some(&"Used") { &words[1..] } else { &words[..] };
            let Some((count, what)) = words.split_first() else { continue };
            let Ok(value) = count.parse::<u64>() else { continue };
            match what {
                ["registers"] => current.registers = value,
                ["bytes", "smem"] => current.shared_bytes = value,
                ["bytes", "stack", "frame"] => current.stack_bytes = value,
                ["bytes", "spill", "stores"] => current.spill_store_bytes = value,
                ["bytes", "spill", "loads"] => current.spill_load_bytes = value,
                _ => {}
            }
        }
    }
    kernels
}

pub fn run_command(options: &Options) -> Result<()> {
    let root = project_root();
    section(&format!("kernels: ptxas resource report for {}", options.arch));
    let nvcc = cuda::find_nvcc(&root).map_err(|why| anyhow::anyhow!("{why:#}; run `cargo xtask setup-cuda`"))?;
    let sources = if options.files.is_empty() { cuda::kernel_sources(&root)? } else { options.files.clone() };
    if sources.is_empty() {
        println!("no kernels/*.cu yet: nothing to report");
        return Ok(());
    }
    let shared_flags = strip_target_flags(&cuda::nvcc_flags(&root)?);
    let out_dir = root.join("target").join("xtask-kernels");
    std::fs::create_dir_all(&out_dir).with_context(|| format!("could not create {}", out_dir.display()))?;

    let mut rows = Vec::new();
    for source in &sources {
        let kernels = compile_one(&nvcc, &root, &shared_flags, &options.arch, source, &out_dir)?;
        let file = source.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        rows.extend(kernels.into_iter().map(|k| (file.clone(), k)));
    }
    rows.sort_by(|a, b| (&a.0, &a.1.name).cmp(&(&b.0, &b.1.name)));
    print_table(&rows);
    let spilling: Vec<_> =
        rows.iter().filter(|(_, k)| k.spill_store_bytes + k.spill_load_bytes > 0).map(|(_, k)| &k.name).collect();
    if !spilling.is_empty() {
        println!("WARNING: register spills in {} kernel(s): {spilling:?}", spilling.len());
    }
    println!("(shared memory is the static amount; dynamic shared memory is set at launch)");
    Ok(())
}

fn compile_one(
    nvcc: &Path,
    root: &Path,
    shared_flags: &[String],
    arch: &str,
    source: &Path,
    out_dir: &Path,
) -> Result<Vec<KernelResources>> {
    let stem = source.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|| "kernel".into());
    let mut cmd = Command::new(nvcc);
    cmd.current_dir(root)
        .args(shared_flags)
        .args(["-cubin", &format!("-arch={arch}"), "-Xptxas", "-v", "-o"])
        .arg(out_dir.join(format!("{stem}.{arch}.cubin")))
        .arg(source);
    let shown = display(&cmd);
    println!("$ {shown}");
    let output = cmd.output().with_context(|| format!("could not start `{shown}`"))?;
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        eprintln!("{}{stderr}", String::from_utf8_lossy(&output.stdout));
        bail!("nvcc failed on {} ({})", source.display(), output.status);
    }
    // Warnings other than ptxas' own report still deserve to be seen.
    for line in stderr.lines().filter(|l| !l.starts_with("ptxas info") && !l.starts_with("    ")) {
        eprintln!("{line}");
    }
    Ok(parse_ptxas_verbose(&stderr))
}

fn print_table(rows: &[(String, KernelResources)]) {
    println!();
    println!("| file | kernel | registers | shared (B) | stack (B) | spill stores (B) | spill loads (B) |");
    println!("|---|---|---:|---:|---:|---:|---:|");
    for (file, k) in rows {
        println!(
            "| {file} | {} | {} | {} | {} | {} | {} |",
            k.name, k.registers, k.shared_bytes, k.stack_bytes, k.spill_store_bytes, k.spill_load_bytes
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "\
ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_Z3bigPd' for 'sm_90'
ptxas info    : Function properties for _Z3bigPd
    512 bytes stack frame, 8 bytes spill stores, 16 bytes spill loads
ptxas info    : Used 32 registers, used 0 barriers, 512 bytes cumulative stack size
ptxas info    : Compile time = 26.715 ms
ptxas info    : Compiling entry function 'add_mod' for 'sm_90'
ptxas info    : Function properties for add_mod
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 14 registers, used 1 barriers, 2048 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 2.704 ms
";

    #[test]
    fn parses_each_entry_function() {
        let kernels = parse_ptxas_verbose(SAMPLE);
        assert_eq!(
            kernels,
            vec![
                KernelResources {
                    name: "_Z3bigPd".into(),
                    registers: 32,
                    shared_bytes: 0,
                    stack_bytes: 512,
                    spill_store_bytes: 8,
                    spill_load_bytes: 16,
                },
                KernelResources {
                    name: "add_mod".into(),
                    registers: 14,
                    shared_bytes: 2048,
                    stack_bytes: 0,
                    spill_store_bytes: 0,
                    spill_load_bytes: 0,
                },
            ]
        );
    }

    #[test]
    fn target_flags_are_replaced() {
        let flags: Vec<String> = [
            "-O3",
            "-std=c++17",
            "-gencode",
            "arch=compute_80,code=sm_80",
            "-gencode=arch=compute_90,code=sm_90",
            "-arch",
            "sm_90",
            "-fatbin",
            "-I",
            "kernels/include",
            "-o",
            "x.fatbin",
        ]
        .map(String::from)
        .into();
        assert_eq!(strip_target_flags(&flags), ["-O3", "-std=c++17", "-I", "kernels/include"]);
    }
}
