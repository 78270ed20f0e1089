//! Locating nvcc, reading the shared nvcc flags and compiling the CUDA kernels.
//!
//! Standard library only: `kernels/build.rs` (the `hegpu-kernels` crate) includes this file as
//! a module, and so does `xtask` (through `#[path = "../../kernels/build_support.rs"]`), so
//! that `cargo build --features cuda` and `cargo xtask kernels` compile the kernels with the
//! same compiler and the same flags.
//!
//! Paths are relative to the kernels directory (`kernels/` of the workspace, or the root of a
//! packaged `hegpu-kernels` crate), which holds the `.cu` files, `include/` and `nvcc.flags`.
//!
//! API (all errors are human-readable `String`s):
//! - [`find_nvcc`]: the nvcc to use, searched in a fixed order.
//! - [`nvcc_flags`]: the arguments listed in `nvcc.flags`, include paths made absolute.
//! - [`kernel_sources`]: every `*.cu` of the kernels directory, sorted by file name.
//! - [`module_name`]: the module name of a kernel source (`kernels/ntt.cu` -> `ntt`).
//! - [`compile_fatbin`]: one `.cu` file to one fatbin (SASS and PTX for the targets in the flags).
//!
//! Layout decision: every `kernels/<name>.cu` is compiled on its own into
//! `<name>.fatbin` and becomes one CUDA module called `<name>`. Separate modules need no
//! device linking (`-dc`/`nvlink`), keep `extern "C"` names of different files apart and
//! let a change in one file recompile only that file.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The file, in the kernels directory, that lists nvcc's arguments.
pub const FLAGS_FILE: &str = "nvcc.flags";

/// The kernels directory relative to the workspace root (for xtask).
pub const KERNELS_DIR: &str = "kernels";

/// Where `cargo xtask setup-cuda` installs the pinned pip nvcc, relative to the workspace root.
pub const PIP_NVCC: &str = ".cuda/pip/nvidia/cu13/bin/nvcc";

/// The nvcc to use, the first of:
/// 1. `$NVCC` (must exist),
/// 2. `$CUDA_PATH/bin/nvcc`,
/// 3. `nvcc` on `PATH`,
/// 4. `/usr/local/cuda/bin/nvcc`,
/// 5. `.cuda/pip/nvidia/cu13/bin/nvcc` (made by `cargo xtask setup-cuda` in the workspace root)
///    in `start` or the nearest of its ancestors that has one: `start` is the kernels crate's
///    directory, whose parent is the workspace root (or, for a crate that `cargo package`
///    unpacked under `target/package/`, an ancestor of it).
///
/// The error lists every place looked at and names `cargo xtask setup-cuda`.
pub fn find_nvcc(start: &Path) -> Result<PathBuf, String> {
    let mut tried = Vec::new();
    if let Some(explicit) = std::env::var_os("NVCC") {
        let path = PathBuf::from(explicit);
        if path.is_file() {
            return Ok(path);
        }
        return Err(format!(
            "NVCC={} does not exist; unset it to search the usual places, or run `cargo xtask setup-cuda`",
            path.display()
        ));
    }
    tried.push("$NVCC (unset)".to_string());
    if let Some(cuda_path) = std::env::var_os("CUDA_PATH") {
        let path = PathBuf::from(cuda_path).join("bin").join("nvcc");
        if path.is_file() {
            return Ok(path);
        }
        tried.push(path.display().to_string());
    } else {
        tried.push("$CUDA_PATH/bin/nvcc (CUDA_PATH unset)".to_string());
    }
    if let Some(path_var) = std::env::var_os("PATH") {
        for dir in std::env::split_paths(&path_var) {
            let path = dir.join("nvcc");
            if path.is_file() {
                return Ok(path);
            }
        }
    }
    tried.push("nvcc on PATH".to_string());
    let system = PathBuf::from("/usr/local/cuda/bin/nvcc");
    if system.is_file() {
        return Ok(system);
    }
    tried.push(system.display().to_string());
    if let Some(path) = pip_nvcc(start) {
        return Ok(path);
    }
    tried.push(format!("{PIP_NVCC} in {} and its ancestors", start.display()));
    Err(format!(
        "no CUDA compiler (nvcc) found; looked at: {}. Run `cargo xtask setup-cuda` to install the pinned \
         nvcc 13.0.88, or set NVCC to an nvcc binary",
        tried.join(", ")
    ))
}

/// [`PIP_NVCC`] under `start` or under the nearest ancestor of `start` that has it.
fn pip_nvcc(start: &Path) -> Option<PathBuf> {
    start.ancestors().map(|dir| dir.join(PIP_NVCC)).find(|path| path.is_file())
}

/// The arguments in `<kernels_dir>/nvcc.flags`: one argument per line, blank lines and
/// everything after `#` ignored, surrounding whitespace trimmed. Relative include
/// directories (`-I<dir>` or `-I <dir>`) are taken relative to `kernels_dir` and returned
/// absolute, so nvcc can run from any directory.
pub fn nvcc_flags(kernels_dir: &Path) -> Result<Vec<String>, String> {
    let path = kernels_dir.join(FLAGS_FILE);
    let text = std::fs::read_to_string(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    parse_flags(&text, kernels_dir)
}

/// Parses the text of an nvcc flags file (see [`nvcc_flags`]).
pub fn parse_flags(text: &str, base: &Path) -> Result<Vec<String>, String> {
    let mut flags = Vec::new();
    let mut include_next = false;
    for (line_no, raw) in text.lines().enumerate() {
        let line = raw.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        if line.contains(char::is_whitespace) && !line.starts_with("-I") {
            return Err(format!("{FLAGS_FILE}:{}: one argument per line, got {line:?}", line_no + 1));
        }
        if include_next {
            flags.push(absolute(line, base));
            include_next = false;
        } else if line == "-I" {
            flags.push(line.to_string());
            include_next = true;
        } else if let Some(dir) = line.strip_prefix("-I") {
            flags.push(format!("-I{}", absolute(dir.trim(), base)));
        } else {
            flags.push(line.to_string());
        }
    }
    if include_next {
        return Err(format!("{FLAGS_FILE}: -I at the end of the file has no directory"));
    }
    Ok(flags)
}

fn absolute(dir: &str, base: &Path) -> String {
    let path = Path::new(dir);
    if path.is_absolute() { dir.to_string() } else { base.join(path).display().to_string() }
}

/// Every `*.cu` file of `kernels_dir`, sorted by file name (headers under `include/` are not
/// sources).
pub fn kernel_sources(kernels_dir: &Path) -> Result<Vec<PathBuf>, String> {
    let entries = std::fs::read_dir(kernels_dir).map_err(|e| format!("cannot list {}: {e}", kernels_dir.display()))?;
    let mut sources = Vec::new();
    for entry in entries {
        let path = entry.map_err(|e| format!("cannot list {}: {e}", kernels_dir.display()))?.path();
        if path.is_file() && path.extension().is_some_and(|ext| ext == "cu") {
            sources.push(path);
        }
    }
    sources.sort();
    Ok(sources)
}

/// The module name of a kernel source: its file stem (`kernels/ntt.cu` -> `ntt`). Errors
/// unless the stem is a valid identifier (ASCII letters, digits, `_`, not starting with a digit).
pub fn module_name(source: &Path) -> Result<String, String> {
    let stem = source
        .file_stem()
        .and_then(|s| s.to_str())
        .ok_or_else(|| format!("{} has no UTF-8 file stem", source.display()))?;
    let valid = !stem.is_empty()
        && !stem.starts_with(|c: char| c.is_ascii_digit())
        && stem.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("kernel file name {stem:?} must be an identifier (letters, digits, _)"));
    }
    Ok(stem.to_string())
}

/// Compiles one `.cu` file to a fatbin at `output` with `nvcc -fatbin <flags> <source> -o <output>`.
/// The error holds nvcc's full diagnostic output.
pub fn compile_fatbin(nvcc: &Path, flags: &[String], source: &Path, output: &Path) -> Result<(), String> {
    let result = Command::new(nvcc)
        .arg("-fatbin")
        .args(flags)
        .arg(source)
        .arg("-o")
        .arg(output)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", nvcc.display()))?;
    if result.status.success() {
        return Ok(());
    }
    Err(format!(
        "{} failed on {} ({}):\n{}{}",
        nvcc.display(),
        source.display(),
        result.status,
        String::from_utf8_lossy(&result.stdout),
        String::from_utf8_lossy(&result.stderr)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_are_one_per_line_with_comments_and_absolute_includes() {
        let root = Path::new("/ws/kernels");
        let text =
            "# comment\n-O3   # trailing\n\n-I include\n-I\n/abs/inc\n-Irel\n--gencode=arch=compute_90,code=sm_90\n";
        let flags = parse_flags(text, root).unwrap();
        assert_eq!(
            flags,
            [
                "-O3",
                "-I/ws/kernels/include",
                "-I",
                "/abs/inc",
                "-I/ws/kernels/rel",
                "--gencode=arch=compute_90,code=sm_90"
            ]
        );
        assert!(parse_flags("-O3 -lineinfo\n", root).unwrap_err().contains("one argument per line"));
        assert!(parse_flags("-I\n", root).unwrap_err().contains("no directory"));
    }

    #[test]
    fn the_pip_nvcc_is_found_in_the_nearest_ancestor() {
        let dir = std::env::temp_dir().join(format!("hegpu_kernels_pip_nvcc_{}", std::process::id()));
        let nested = dir.join("target/package/hegpu-kernels-0.1.0");
        std::fs::create_dir_all(&nested).unwrap();
        assert_eq!(pip_nvcc(&nested), None);
        let nvcc = dir.join(PIP_NVCC);
        std::fs::create_dir_all(nvcc.parent().unwrap()).unwrap();
        std::fs::write(&nvcc, "").unwrap();
        assert_eq!(pip_nvcc(&nested), Some(nvcc.clone()));
        assert_eq!(pip_nvcc(&dir), Some(nvcc));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn module_names_are_identifiers() {
        assert_eq!(module_name(Path::new("kernels/ntt.cu")).unwrap(), "ntt");
        assert_eq!(module_name(Path::new("/x/modarith_test.cu")).unwrap(), "modarith_test");
        assert!(module_name(Path::new("kernels/2d.cu")).is_err());
        assert!(module_name(Path::new("kernels/a-b.cu")).is_err());
    }

    #[test]
    fn kernel_sources_are_the_sorted_cu_files() {
        let dir = std::env::temp_dir().join(format!("hegpu_kernels_build_support_{}", std::process::id()));
        std::fs::create_dir_all(dir.join("include")).unwrap();
        for name in ["b.cu", "a.cu", "notes.txt", "include/h.cuh"] {
            std::fs::write(dir.join(name), "").unwrap();
        }
        let sources = kernel_sources(&dir).unwrap();
        let names: Vec<_> = sources.iter().map(|p| p.file_name().unwrap().to_str().unwrap().to_string()).collect();
        assert_eq!(names, ["a.cu", "b.cu"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
