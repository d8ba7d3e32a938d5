//! Loopback ports for the servers a test starts (ClickHouse, Redis nodes, PostgreSQL pairs, api
//! processes), included by path from every test helper and benchmark that starts one.
//!
//! A port is chosen before its server binds it, sometimes a dozen at a time for a cluster. Taken
//! from the kernel's ephemeral range (`bind(0)`), it could meanwhile become the local end of any
//! outgoing connection and the server would exit (a CI run lost a ClickHouse node that way), so
//! ports come from below that range, where the kernel never hands one out by itself, and 10,000
//! below it, so a Redis Cluster node's bus port (its port + 10,000) stays outside it too.

// Each including crate uses part of it, and a crate with two helpers that start servers loads it
// twice: each copy starts at its own point of the range.
#![allow(dead_code, clippy::duplicate_mod)]

use std::net::TcpListener;
use std::sync::Mutex;

/// Ports below this are left to other services.
const LOWEST: u16 = 10_000;

/// Room above a chosen port for a Redis Cluster node's bus port.
const BUS_OFFSET: u16 = 10_000;

/// A loopback port free now, outside the ephemeral range and not handed out before by this copy
/// of the module. Each copy starts at its own point of the range (pid and clock), so two test
/// binaries, or two helpers in one benchmark, rarely try the same ports; the bind check settles
/// the rest.
pub fn free_port() -> u16 {
    static NEXT: Mutex<Option<u16>> = Mutex::new(None);
    let highest = ephemeral_low()
        .saturating_sub(BUS_OFFSET + 1)
        .max(LOWEST + 1_000);
    let span = u32::from(highest - LOWEST);
    let mut next = NEXT.lock().unwrap_or_else(|e| e.into_inner());
    let mut port = next.unwrap_or_else(|| {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let offset = (std::process::id().wrapping_mul(97) ^ nanos) % span;
        LOWEST + u16::try_from(offset).expect("below the range's span")
    });
    for _ in 0..span {
        port = if port >= highest { LOWEST } else { port + 1 };
        if TcpListener::bind(("127.0.0.1", port)).is_ok() {
            *next = Some(port);
            return port;
        }
    }
    panic!("no free loopback port between {LOWEST} and {highest}");
}

/// The first port the kernel picks for outgoing connections (32768 unless configured).
fn ephemeral_low() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|s| s.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}
