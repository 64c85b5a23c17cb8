//! Build script: packs the static musl binary's relative relocations (DT_RELR) into a few
//! hundred bytes instead of a 40 KiB table, keeping it position-independent (ASLR). musl applies
//! them itself at start-up (since 1.2.4; Rust bundles a newer one), and `scripts/test.sh` runs
//! the static binary. Only for musl: glibc builds would then need glibc 2.36 or newer to start.
fn main() {
    println!("cargo:rerun-if-changed=scripts/build.rs");
    let env = std::env::var("CARGO_CFG_TARGET_ENV").unwrap_or_default();
    let os = std::env::var("CARGO_CFG_TARGET_OS").unwrap_or_default();
    if os == "linux" && env == "musl" {
        println!("cargo:rustc-link-arg-bins=-Wl,-z,pack-relative-relocs");
    }
}
