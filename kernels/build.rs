//! With feature `cuda`: compiles every `*.cu` of this crate to its own fatbin (SASS sm_80 and
//! sm_90, PTX compute_90, flags from `nvcc.flags`) and writes `$OUT_DIR/modules.rs`, which
//! `src/lib.rs` includes: one `Module` constant per file (`ntt.cu` -> `NTT`) and `MODULES`,
//! all of them. Without feature `cuda` it does nothing and needs no nvcc.

#[path = "build_support.rs"]
mod build_support;

use std::path::{Path, PathBuf};

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-changed=build_support.rs");
    println!("cargo:rerun-if-env-changed=CARGO_FEATURE_CUDA");
    if std::env::var_os("CARGO_FEATURE_CUDA").is_none() {
        return;
    }
    if let Err(message) = build_kernels() {
        eprintln!("error: hegpu-kernels (feature `cuda`) could not build its CUDA kernels:\n{message}");
        std::process::exit(1);
    }
}

/// A kernel source and where its fatbin goes.
struct Job {
    name: String,
    source: PathBuf,
    output: PathBuf,
}

fn build_kernels() -> Result<(), String> {
    let kernels_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);

    // The whole crate directory (sources, headers, flags), rescanned recursively by cargo: a
    // new `.cu` file is a new module, so listing the known files would miss it.
    println!("cargo:rerun-if-changed={}", kernels_dir.display());
    for var in ["NVCC", "CUDA_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let nvcc = build_support::find_nvcc(&kernels_dir)?;
    let flags = build_support::nvcc_flags(&kernels_dir)?;
    let sources = build_support::kernel_sources(&kernels_dir)?;
    if sources.is_empty() {
        return Err(format!("no *.cu found in {}", kernels_dir.display()));
    }

    let mut jobs = Vec::new();
    for source in sources {
        let name = build_support::module_name(&source)?;
        let output = out_dir.join(format!("{name}.fatbin"));
        jobs.push(Job { name, source, output });
    }

    // Compile the files in parallel: each nvcc run is single-threaded.
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|job| {
                let (nvcc, flags) = (&nvcc, &flags);
                scope.spawn(move || build_support::compile_fatbin(nvcc, flags, &job.source, &job.output))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|_| Err("an nvcc worker thread panicked".to_string())))
            .collect()
    });
    let errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
    if !errors.is_empty() {
        return Err(errors.join("\n"));
    }

    write_module_table(&out_dir, &jobs)
}

/// `modules.rs`: one constant per module, named after the file stem in upper case.
fn write_module_table(out_dir: &Path, jobs: &[Job]) -> Result<(), String> {
    let mut table = String::new();
    for job in jobs {
        let file = job.source.file_name().and_then(|f| f.to_str()).unwrap_or(&job.name);
        table.push_str(&format!(
            "/// `{file}` compiled to a fatbin: the CUDA module `{name}`.\n\
             pub const {constant}: Module = Module {{ name: {name:?}, fatbin: include_bytes!({output:?}) }};\n",
            name = job.name,
            constant = job.name.to_ascii_uppercase(),
            output = job.output.display().to_string(),
        ));
    }
    table.push_str("/// Every module of this crate, sorted by name.\npub const MODULES: &[Module] = &[");
    let constants: Vec<String> = jobs.iter().map(|job| job.name.to_ascii_uppercase()).collect();
    table.push_str(&constants.join(", "));
    table.push_str("];\n");
    let path = out_dir.join("modules.rs");
    std::fs::write(&path, table).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
