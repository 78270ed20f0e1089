//! With feature `cuda`: compiles every `kernels/*.cu` of the workspace to its own fatbin
//! (SASS sm_80 and sm_90, PTX compute_90, flags from `kernels/nvcc.flags`) and writes
//! `$OUT_DIR/kernel_modules.rs`, which embeds them as `KERNEL_MODULES: &[(&str, &[u8])]`
//! (module name, fatbin bytes). Without feature `cuda` it does nothing and needs no nvcc.

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
        eprintln!("error: poly-cuda (feature `cuda`) could not build its CUDA kernels:\n{message}");
        std::process::exit(1);
    }
}

fn build_kernels() -> Result<(), String> {
    let manifest_dir = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").map_err(|e| e.to_string())?);
    let out_dir = PathBuf::from(std::env::var("OUT_DIR").map_err(|e| e.to_string())?);
    let root = build_support::workspace_root_from_manifest_dir(&manifest_dir)?;

    // The whole kernels/ tree (sources, headers, flags): cargo rescans a directory recursively.
    println!("cargo:rerun-if-changed={}", root.join(build_support::KERNELS_DIR).display());
    for var in ["NVCC", "CUDA_PATH"] {
        println!("cargo:rerun-if-env-changed={var}");
    }

    let nvcc = build_support::find_nvcc(&root)?;
    let flags = build_support::nvcc_flags(&root)?;
    let sources = build_support::kernel_sources(&root)?;
    if sources.is_empty() {
        return Err(format!("no kernels/*.cu found under {}", root.display()));
    }

    let mut jobs = Vec::new();
    for source in &sources {
        let name = build_support::module_name(source)?;
        let output = out_dir.join(format!("{name}.fatbin"));
        jobs.push((name, source.clone(), output));
    }

    // Compile the files in parallel: each nvcc run is single-threaded.
    let results: Vec<Result<(), String>> = std::thread::scope(|scope| {
        let handles: Vec<_> = jobs
            .iter()
            .map(|(_, source, output)| {
                let (nvcc, flags) = (&nvcc, &flags);
                scope.spawn(move || build_support::compile_fatbin(nvcc, flags, source, output))
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

fn write_module_table(out_dir: &Path, jobs: &[(String, PathBuf, PathBuf)]) -> Result<(), String> {
    let mut table = String::from(
        "/// Every `kernels/*.cu` compiled to a fatbin: (module name = file stem, fatbin bytes).\n\
         pub const KERNEL_MODULES: &[(&str, &[u8])] = &[\n",
    );
    for (name, _, output) in jobs {
        table.push_str(&format!("    ({name:?}, include_bytes!({:?})),\n", output.display().to_string()));
    }
    table.push_str("];\n");
    let path = out_dir.join("kernel_modules.rs");
    std::fs::write(&path, table).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
