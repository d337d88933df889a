//! `operator`: the event-driven operator station (see `hlamesh_examples::operator`).
fn main() {
    std::process::exit(hlamesh_examples::roles::Role::Operator.main(std::env::args_os()));
}
