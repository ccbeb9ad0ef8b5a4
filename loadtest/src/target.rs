//! Where the bots connect: server URLs read and checked to be loopback only, and the
//! pool of 127.0.0.x source addresses client sockets are bound to, so that one address
//! running out of ports (for one server) does not end a run.

use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Why a URL or source address setting was refused.
#[derive(Debug, thiserror::Error)]
pub enum TargetError {
    /// Not `ws://`, `http://` or a bare `host:port`.
    #[error("unsupported URL `{0}`: expected ws://127.0.0.1:PORT or http://127.0.0.1:PORT")]
    Scheme(String),
    /// No port, or an unreadable one.
    #[error("URL `{0}` has no valid port")]
    Port(String),
    /// The host is not a loopback IPv4 address.
    #[error("refusing `{0}`: the load test only talks to 127.0.0.0/8")]
    NotLoopback(String),
    /// Zero or too many source addresses.
    #[error("source addresses must be between 1 and 254, not {0}")]
    Sources(usize),
}

/// A server (damka node or relay) on the loopback interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Target {
    /// Its address.
    pub addr: SocketAddrV4,
}

impl Target {
    /// Reads `ws://127.0.0.1:8080`, `http://localhost:8080/anything` or `127.0.0.1:8080`.
    /// Only 127.0.0.0/8 (and `localhost`) is accepted.
    pub fn parse(url: &str) -> Result<Target, TargetError> {
        let rest = ["ws://", "http://"]
            .iter()
            .find_map(|p| url.strip_prefix(p))
            .unwrap_or(url);
        if rest.contains("://") {
            return Err(TargetError::Scheme(url.to_string()));
        }
        let authority = rest.split('/').next().unwrap_or(rest);
        let (host, port) = authority
            .rsplit_once(':')
            .ok_or_else(|| TargetError::Port(url.to_string()))?;
        let port: u16 = port
            .parse()
            .ok()
            .filter(|p| *p != 0)
            .ok_or_else(|| TargetError::Port(url.to_string()))?;
        let ip = if host.eq_ignore_ascii_case("localhost") {
            Ipv4Addr::LOCALHOST
        } else {
            host.parse::<Ipv4Addr>()
                .map_err(|_| TargetError::NotLoopback(url.to_string()))?
        };
        Target::from_addr(SocketAddr::from((ip, port)))
    }

    /// A target from a socket address, refused unless it is IPv4 loopback.
    pub fn from_addr(addr: SocketAddr) -> Result<Target, TargetError> {
        match addr {
            SocketAddr::V4(a) if a.ip().is_loopback() && a.port() != 0 => Ok(Target { addr: a }),
            other => Err(TargetError::NotLoopback(other.to_string())),
        }
    }

    /// `host:port`, for the `Host` header and URLs.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }
}

/// Source addresses 127.0.0.1 ..= 127.0.0.N. Sockets bind to the current one; when it
/// runs out of ports, the next one becomes current.
#[derive(Debug)]
pub struct SourcePool {
    addrs: Vec<Ipv4Addr>,
    current: AtomicUsize,
    reserve_ports: bool,
}

impl SourcePool {
    /// `count` addresses starting at 127.0.0.1.
    pub fn new(count: usize) -> Result<SourcePool, TargetError> {
        if !(1..=254).contains(&count) {
            return Err(TargetError::Sources(count));
        }
        let addrs = (1..=count)
            .map(|i| Ipv4Addr::new(127, 0, 0, u8::try_from(i).unwrap_or(254)))
            .collect();
        Ok(SourcePool {
            addrs,
            current: AtomicUsize::new(0),
            reserve_ports: false,
        })
    }

    /// With `reserve`, sockets take their port at bind time (the kernel searches the
    /// address's bound ports for a free one); else at connect time.
    pub fn reserving_ports(mut self, reserve: bool) -> SourcePool {
        self.reserve_ports = reserve;
        self
    }

    /// Do sockets take their port at bind time?
    pub fn reserves_ports(&self) -> bool {
        self.reserve_ports
    }

    /// The address to bind now, with its index.
    pub fn current(&self) -> (usize, Ipv4Addr) {
        let i = self
            .current
            .load(Ordering::Relaxed)
            .min(self.addrs.len() - 1);
        (i, self.addrs[i])
    }

    /// Address `index` ran out of ports: move on, unless someone already did. Returns
    /// false when every address is used up.
    pub fn exhausted(&self, index: usize) -> bool {
        let next = index + 1;
        if next >= self.addrs.len() {
            return false;
        }
        let _ = self
            .current
            .compare_exchange(index, next, Ordering::Relaxed, Ordering::Relaxed);
        true
    }

    /// How many addresses have been used so far.
    pub fn used(&self) -> usize {
        self.current.load(Ordering::Relaxed) + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_urls_only() {
        assert_eq!(
            Target::parse("ws://127.0.0.1:8080/ws").unwrap().addr,
            "127.0.0.1:8080".parse().unwrap()
        );
        assert!(Target::parse("http://localhost:9").is_ok());
        assert!(Target::parse("127.0.0.5:7000").is_ok());
        for bad in [
            "ws://10.0.0.1:8080",
            "ws://example.com:80",
            "wss://127.0.0.1:1",
            "ws://127.0.0.1",
            "ws://127.0.0.1:0",
            "ws://[::1]:80",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn sources_advance_once() {
        let p = SourcePool::new(3).unwrap();
        assert_eq!(p.current(), (0, Ipv4Addr::new(127, 0, 0, 1)));
        assert!(p.exhausted(0));
        assert!(p.exhausted(0));
        assert_eq!(p.current().0, 1);
        assert!(p.exhausted(1));
        assert!(!p.exhausted(2));
        assert_eq!(p.used(), 3);
        assert!(SourcePool::new(0).is_err());
    }
}
