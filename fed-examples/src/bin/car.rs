//! `car`: one car of the example federation (see `hlamesh_examples::car`).
//!
//! ```text
//! cargo run --release -p hlamesh-examples --bin car -- --name car-1
//! ```
fn main() {
    std::process::exit(hlamesh_examples::roles::Role::Car.main(std::env::args_os()));
}
