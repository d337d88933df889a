//! Runs the namespace lab's own self-test (deploy/lab/test_lab.sh) when this machine can build
//! labs (root, iproute2, nftables); otherwise says so and checks only that the script refuses
//! clearly.

use std::process::Command;

#[test]
fn lab_script_self_test() {
    let root = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let script = root.join("deploy/lab/test_lab.sh");
    let is_root = Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0");
    let have_tools = ["ip", "nft", "python3"].iter().all(|t| {
        Command::new("sh")
            .arg("-c")
            .arg(format!("command -v {t}"))
            .output()
            .is_ok_and(|o| o.status.success())
    });
    if !(is_root && have_tools) {
        eprintln!("NOTE: not root or iproute2/nftables/python3 missing: lab self-test skipped");
        let out = Command::new(root.join("deploy/lab/lab.sh"))
            .args(["up", "2", "--prefix", "tnoroot"])
            .output()
            .expect("run lab.sh");
        assert!(
            !out.status.success(),
            "lab.sh up must refuse without root and tools"
        );
        return;
    }
    let out = Command::new("bash")
        .arg(&script)
        .output()
        .expect("run test_lab.sh");
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!("{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    let last = stdout.lines().last().unwrap_or_default();
    assert!(out.status.success(), "test_lab.sh failed: {last}");
    assert!(last.ends_with(" 0 failed"), "unexpected summary: {last}");
}
