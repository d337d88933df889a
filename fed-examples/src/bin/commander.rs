//! `commander`: loads the scenario and drives the federation (see
//! `hlamesh_examples::commander`).
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin commander -- --scenario my.toml
//! cargo run --release -p hlamesh-examples --bin commander -- --cars 2 --duration 10
//! ```
fn main() {
    std::process::exit(hlamesh_examples::roles::Role::Commander.main(std::env::args_os()));
}
