//! `hlamesh`: the command-line tool (FOM checking, status, certificates).
fn main() {
    eprintln!("hlamesh: no subcommands yet");
    std::process::exit(2);
}
