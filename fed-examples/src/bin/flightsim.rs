//! `flightsim`: the example federation's aircraft, 60 Hz real-time paced (see
//! `hlamesh_examples::flightsim`).
fn main() {
    std::process::exit(hlamesh_examples::roles::Role::Flightsim.main(std::env::args_os()));
}
