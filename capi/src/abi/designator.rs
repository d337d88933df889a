//! `connect`'s local settings designator.
//!
//! hlamesh's own form is `hlamesh:` followed by `key=value` pairs separated by `;`:
//!
//! ```text
//! hlamesh:interface=192.168.10.0/24;ttl=1;ca=/etc/hlamesh/ca.pem;cert=node.pem;key=node.key
//! hlamesh:secret=labsecret;ttl=0
//! hlamesh:config=/etc/hlamesh/transport.toml;ttl=1
//! ```
//!
//! Keys: `config` (a transport TOML file, read first), `interface` (an address, or a CIDR the
//! address falls in), `ttl`, `secret` (development mode), `ca`/`cert`/`key` (certificates; all
//! three), `allow_non_loopback` (`true` lets development mode leave loopback),
//! `discovery_port`, `data_port`, `discovery_group`, `metrics` (address of the Prometheus
//! endpoint). Settings start from the defaults, then `HLAMESH_*` environment variables, then the
//! designator. An unknown key or bad value is `ConnectionFailed` (the standard's
//! `InvalidLocalSettingsDesignator` is not among the exceptions `RtiError` has; the message
//! names the key).
//!
//! Designators meant for other RTIs (`thread://…`, `rti://host`, `crcAddress=host`, anything
//! without the `hlamesh:` prefix) and the empty designator are accepted, with a line on stderr
//! for non-empty ones, and use the environment's settings: an existing federate runs unchanged.

use std::path::PathBuf;

use hlamesh_lrc::error::{RtiError, RtiResult};
use hlamesh_transport::TransportConfig;
use hlamesh_transport::config::SecurityConfig;

/// What a designator asks for.
#[derive(Debug, Clone)]
pub enum Settings {
    /// The process's shared LRC, configured by the environment.
    Environment,
    /// A transport configured by an `hlamesh:` designator.
    Own(Box<TransportConfig>),
}

/// The prefix of hlamesh's own designators.
pub const PREFIX: &str = "hlamesh:";

fn bad(key: &str, value: &str, why: &str) -> RtiError {
    RtiError::ConnectionFailed(format!("local settings designator: {key}={value:?}: {why}"))
}

fn parse<T: std::str::FromStr>(key: &str, value: &str) -> RtiResult<T> {
    value
        .parse()
        .map_err(|_| bad(key, value, "not a valid value"))
}

/// Parses a designator (see the module docs).
pub fn parse_designator(designator: &str) -> RtiResult<Settings> {
    let d = designator.trim();
    let Some(rest) = d.strip_prefix(PREFIX) else {
        if !d.is_empty() {
            eprintln!(
                "hlamesh: local settings designator {d:?} is meant for another RTI; using \
                 hlamesh's settings from the environment (HLAMESH_*)"
            );
        }
        return Ok(Settings::Environment);
    };
    let pairs: Vec<(&str, &str)> = rest
        .split(';')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            p.split_once('=')
                .map(|(k, v)| (k.trim(), v.trim()))
                .ok_or_else(|| bad(p, "", "expected key=value"))
        })
        .collect::<RtiResult<_>>()?;
    let mut cfg = match pairs.iter().find(|(k, _)| *k == "config") {
        Some((_, path)) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| bad("config", path, &e.to_string()))?;
            TransportConfig::from_toml(&text).map_err(|e| bad("config", path, &e.to_string()))?
        }
        None => TransportConfig::default(),
    };
    cfg.apply_env()
        .map_err(|e| RtiError::ConnectionFailed(format!("HLAMESH_* environment: {e}")))?;
    let (mut ca, mut cert, mut key) = (None, None, None);
    let mut allow_non_loopback = None;
    for (k, v) in pairs {
        match k {
            "config" => {}
            "interface" if v.contains('/') => cfg.interface_cidr = Some(v.to_string()),
            "interface" => {
                cfg.interface = parse(k, v)?;
                cfg.interface_cidr = None;
            }
            "ttl" => cfg.multicast_ttl = parse(k, v)?,
            "discovery_port" => cfg.discovery_port = parse(k, v)?,
            "data_port" => cfg.data_port = parse(k, v)?,
            "discovery_group" => cfg.discovery_group = parse(k, v)?,
            "metrics" => cfg.metrics_addr = Some(parse(k, v)?),
            "secret" => {
                cfg.security = SecurityConfig::Development {
                    secret: v.to_string(),
                    allow_non_loopback: false,
                }
            }
            "allow_non_loopback" => allow_non_loopback = Some(parse::<bool>(k, v)?),
            "ca" => ca = Some(PathBuf::from(v)),
            "cert" => cert = Some(PathBuf::from(v)),
            "key" => key = Some(PathBuf::from(v)),
            _ => return Err(bad(k, v, "unknown key")),
        }
    }
    match (ca, cert, key) {
        (Some(ca), Some(cert), Some(key)) => {
            cfg.security = SecurityConfig::Certificates { ca, cert, key }
        }
        (None, None, None) => {}
        _ => {
            return Err(RtiError::ConnectionFailed(
                "local settings designator: ca, cert and key go together".into(),
            ));
        }
    }
    if let Some(allow) = allow_non_loopback
        && let SecurityConfig::Development {
            allow_non_loopback, ..
        } = &mut cfg.security
    {
        *allow_non_loopback = allow;
    }
    Ok(Settings::Own(Box::new(cfg)))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    fn other_rtis_designators_use_the_environment() {
        for d in ["", "thread://", "rti://host:8989", "crcAddress=host", "  "] {
            assert!(
                matches!(parse_designator(d).unwrap(), Settings::Environment),
                "{d}"
            );
        }
    }

    #[test]
    fn hlamesh_settings_are_applied() {
        let Settings::Own(c) =
            parse_designator("hlamesh:secret=s3;ttl=0;interface=127.0.0.1;discovery_port=23456")
                .unwrap()
        else {
            panic!("own settings expected")
        };
        assert_eq!(c.multicast_ttl, 0);
        assert_eq!(c.discovery_port, 23456);
        assert_eq!(c.interface, std::net::Ipv4Addr::LOCALHOST);
        assert!(
            matches!(c.security, SecurityConfig::Development { ref secret, .. } if secret == "s3")
        );
        let Settings::Own(c) = parse_designator("hlamesh:interface=10.0.0.0/8").unwrap() else {
            panic!("own settings expected")
        };
        assert_eq!(c.interface_cidr.as_deref(), Some("10.0.0.0/8"));
    }

    #[test]
    fn bad_settings_are_refused_with_the_key() {
        for (d, key) in [
            ("hlamesh:ttl=many", "ttl"),
            ("hlamesh:colour=blue", "colour"),
            ("hlamesh:interface", "interface"),
            ("hlamesh:ca=a.pem", "ca"),
            ("hlamesh:config=/nonexistent/x.toml", "config"),
        ] {
            match parse_designator(d) {
                Err(RtiError::ConnectionFailed(m)) => assert!(m.contains(key), "{d}: {m}"),
                other => panic!("{d}: {other:?}"),
            }
        }
    }
}
