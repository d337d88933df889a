//! What a simulator prints while it runs (`HLAMESH_SIM_TRACE`).

/// Whether trace topic `topic` is on: `HLAMESH_SIM_TRACE` is `1` or `all`, or lists it
/// (comma-separated).
pub fn trace(topic: &str) -> bool {
    std::env::var("HLAMESH_SIM_TRACE").is_ok_and(|v| topic_on(&v, topic))
}

/// Whether any tracing is on.
pub fn tracing_any() -> bool {
    std::env::var("HLAMESH_SIM_TRACE").is_ok_and(|v| !v.trim().is_empty() && v.trim() != "0")
}

fn topic_on(value: &str, topic: &str) -> bool {
    value
        .split(',')
        .map(str::trim)
        .any(|t| t == topic || t == "1" || t == "all")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn topics_are_listed_or_all() {
        assert!(topic_on("1", "ctl"));
        assert!(topic_on("all", "ctl"));
        assert!(topic_on("callbacks, ctl", "ctl"));
        assert!(!topic_on("callbacks", "ctl"));
        assert!(!topic_on("0", "ctl"));
    }
}
