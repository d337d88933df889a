//! `viewer`: shows the federation live — a terminal map when stdout is a terminal, plain lines
//! otherwise (see `hlamesh_examples::viewer`).
fn main() {
    std::process::exit(hlamesh_examples::roles::Role::Viewer.main(std::env::args_os()));
}
