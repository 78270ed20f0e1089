//! `cargo xtask ci`: formatting, clippy and rustdoc with warnings denied (also with `cuda` when
//! nvcc is available), the kernel resource report, the packaging check, the quickstart and the
//! numbered examples, and `cargo xtask test` (the README's test command), whose totals end the
//! output.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::util::{cargo, cuda_package_args, cuda_packages, project_root, run, run_capture, section, target_dir};
use crate::{cuda, kernels, test};

#[derive(Debug, Default)]
pub struct Options {
    /// Skip everything that needs nvcc.
    pub cpu_only: bool,
}

pub fn run_command(options: &Options) -> Result<()> {
    let started = std::time::Instant::now();
    section("ci: cargo fmt --check");
    run(cargo().args(["fmt", "--all", "--check"]))?;

    section("ci: clippy (CPU)");
    run(cargo().args(["clippy", "--workspace", "--all-targets", "--", "-D", "warnings"]))?;

    section("ci: rustdoc (CPU; broken links are errors)");
    run(cargo().env("RUSTDOCFLAGS", "-D warnings").args(["doc", "--no-deps", "--workspace"]))?;

    let nvcc = if options.cpu_only { None } else { cuda::find_nvcc(&project_root()).ok() };
    let cuda_packages = if nvcc.is_some() { cuda_packages()? } else { Vec::new() };
    if let Some(nvcc) = &nvcc {
        println!("\nnvcc: {}", nvcc.display());
        if !cuda_packages.is_empty() {
            section("ci: clippy with feature `cuda` (builds the kernels)");
            run(cargo()
                .args(["clippy", "--all-targets"])
                .args(cuda_package_args(&cuda_packages))
                .args(["--", "-D", "warnings"]))?;
        }
        if !cuda_packages.is_empty() {
            section("ci: rustdoc with feature `cuda` (broken links are errors)");
            run(cargo()
                .env("RUSTDOCFLAGS", "-D warnings")
                .args(["doc", "--no-deps"])
                .args(cuda_package_args(&cuda_packages)))?;
        }
        kernels::run_command(&kernels::Options::default())?;
    } else {
        println!(
            "\nclippy with feature `cuda` and the kernel report were skipped: no nvcc (see `cargo xtask setup-cuda`)"
        );
    }

    package_check(nvcc.as_deref())?;

    section("ci: cargo run --release --example quickstart");
    run(cargo().args(["run", "--release", "--example", "quickstart"]))?;

    // On the CPU: the GPU pool example says it needs `cuda` and exits cleanly.
    for example in NUMBERED_EXAMPLES {
        section(&format!("ci: cargo run --release --example {example}"));
        run(cargo().args(["run", "--release", "--example", example]))?;
    }

    // Last, so that its closing line `N passed, N failed, N skipped` ends the CI log.
    section("ci: cargo xtask test (the README's test command)");
    let totals = test::run_command(&test::Options { cpu_only: options.cpu_only })?;

    section(&format!("ci: passed in {} s", started.elapsed().as_secs()));
    println!("tests: {}", totals.closing_line());
    Ok(())
}

/// The numbered examples (`examples/`, a newcomer's path after the quickstart), in order.
const NUMBERED_EXAMPLES: [&str; 7] = [
    "01_bfv_basics",
    "02_bgv_basics",
    "03_rotations",
    "04_client_server",
    "05_generic_circuit",
    "06_cyclotomic_ring",
    "07_gpu_pool",
];

/// The crate that holds the kernels: the GPU crates build it with `cuda` as their dependency.
const KERNELS_PACKAGE: &str = "hegpu-kernels";

/// A workspace package as the packaging check sees it.
#[derive(Debug)]
struct Publishable {
    name: String,
    version: String,
    has_cuda_feature: bool,
    /// The package whose manifest is the workspace root (the `hegpu` facade).
    is_root: bool,
}

/// The workspace packages that may be published (no `publish = false`), in metadata order.
fn publishable_packages(root: &Path) -> Result<Vec<Publishable>> {
    let text = run_capture(cargo().args(["metadata", "--format-version", "1", "--no-deps"]))?;
    let metadata: serde_json::Value = serde_json::from_str(&text).context("cargo metadata printed invalid JSON")?;
    let packages = metadata["packages"].as_array().context("cargo metadata has no `packages` array")?;
    let root_manifest = root.join("Cargo.toml");
    let mut result = Vec::new();
    for package in packages {
        // `publish = false` is an empty list; absent (null) means any registry.
        if package["publish"].as_array().is_some_and(Vec::is_empty) {
            continue;
        }
        let name = package["name"].as_str().context("a package without a name in cargo metadata")?.to_owned();
        let version = package["version"].as_str().context("a package without a version in cargo metadata")?.to_owned();
        let manifest = package["manifest_path"].as_str().context("a package without a manifest path")?;
        result.push(Publishable {
            name,
            version,
            has_cuda_feature: package["features"].get("cuda").is_some(),
            is_root: Path::new(manifest) == root_manifest,
        });
    }
    Ok(result)
}

/// Every crate can be pulled alone as a dependency: `cargo package` of every publishable crate,
/// then the packaged crates built from their tarballs (cargo's verification, with the
/// workspace's crates in a local registry overlay, so each builds against the packaged form of
/// the others), the GPU crates with `cuda` when nvcc is found: a kernel file or header that
/// the tarball of `hegpu-kernels` lacks fails here.
///
/// The facade `hegpu` is packaged but not built: its manifest is the workspace root, whose
/// profiles would rebuild every dependency (and the kernels) optimized, for a crate of
/// re-exports whose crates are built here. `hegpu-kernels` is verified without `cuda` and
/// built with it as the packaged GPU crates' dependency, so nvcc runs once.
///
/// Every run builds from scratch (about two minutes on two cores): cargo takes a registry
/// package's earlier build, and its earlier unpacked sources, as those of any tarball of the
/// same version, so a second run would otherwise check the first run's kernels.
pub fn package_check(nvcc: Option<&Path>) -> Result<()> {
    let root = project_root();
    let packages = publishable_packages(&root)?;
    let started = std::time::Instant::now();
    let target = target_dir().join("package-check");
    if target.exists() {
        std::fs::remove_dir_all(&target).with_context(|| format!("could not remove {}", target.display()))?;
    }
    remove_unpacked_workspace_crates(&packages)?;

    section("ci: cargo package (every publishable crate)");
    let mut list = cargo();
    list.args(["package", "--no-verify", "--allow-dirty", "--target-dir"]).arg(&target);
    for package in &packages {
        list.args(["-p", &package.name]);
    }
    run(&mut list)?;

    let built: Vec<&Publishable> = packages.iter().filter(|p| !p.is_root).collect();
    let features: Vec<String> = match nvcc {
        Some(_) => built
            .iter()
            .filter(|p| p.has_cuda_feature && p.name != KERNELS_PACKAGE)
            .map(|p| format!("{}/cuda", p.name))
            .collect(),
        None => Vec::new(),
    };
    section(if features.is_empty() {
        "ci: build the packaged crates (no nvcc: without `cuda`)"
    } else {
        "ci: build the packaged crates, the GPU crates with `cuda`"
    });
    let mut verify = cargo();
    verify.args(["package", "--allow-dirty", "--target-dir"]).arg(&target);
    for package in &built {
        verify.args(["-p", &package.name]);
    }
    if !features.is_empty() {
        verify.args(["--features", &features.join(",")]);
    }
    // The packaged kernels crate is unpacked outside the workspace, where the search for the
    // `cargo xtask setup-cuda` nvcc does not reach: name the one found here.
    if let Some(nvcc) = nvcc {
        verify.env("NVCC", nvcc);
    }
    run(&mut verify)?;
    println!("packaging check: {} s", started.elapsed().as_secs());
    Ok(())
}

/// Removes the copies of the workspace's crates that cargo unpacked from the verification's
/// local registry into `$CARGO_HOME/registry/src/-<hash>/` (local registries are the
/// directories whose name starts with `-`; crates.io's is `index.crates.io-<hash>`). Cargo
/// unpacks them again from the new tarballs; it would otherwise reuse them as they are.
fn remove_unpacked_workspace_crates(packages: &[Publishable]) -> Result<()> {
    let cargo_home = match std::env::var_os("CARGO_HOME") {
        Some(home) => PathBuf::from(home),
        None => match std::env::var_os("HOME") {
            Some(home) => PathBuf::from(home).join(".cargo"),
            None => return Ok(()),
        },
    };
    let Ok(sources) = std::fs::read_dir(cargo_home.join("registry").join("src")) else { return Ok(()) };
    for source in sources.flatten() {
        if !source.file_name().to_string_lossy().starts_with('-') {
            continue;
        }
        for package in packages {
            let unpacked = source.path().join(format!("{}-{}", package.name, package.version));
            if unpacked.is_dir() {
                std::fs::remove_dir_all(&unpacked)
                    .with_context(|| format!("could not remove {}", unpacked.display()))?;
            }
        }
    }
    Ok(())
}
