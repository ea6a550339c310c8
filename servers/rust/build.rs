// Records the compiler version for /debug/runtime's runtime.version.
fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = std::process::Command::new(rustc)
        .arg("--version")
        .output()
        .expect("rustc --version");
    let version = String::from_utf8_lossy(&out.stdout);
    // "rustc 1.95.0 (59807616e 2026-04-14)" -> "1.95.0"
    let semver = version.split_whitespace().nth(1).unwrap_or("unknown");
    println!("cargo:rustc-env=PERFLAB_RUSTC_VERSION={semver}");
    println!("cargo:rerun-if-changed=build.rs");
}
