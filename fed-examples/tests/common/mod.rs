//! Shared test helpers: the transport's multi-process harness (namespaces lab when root,
//! loopback otherwise), not a copy.
#![allow(dead_code)]

#[path = "../../../transport/tests/common/mod.rs"]
pub mod lab;
