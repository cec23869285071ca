//! The ranges Services allocate from, as kube-apiserver reads its flags: a service CIDR
//! (`--service-cluster-ip-range`, IPv4 or IPv6) whose addresses are numbered by offset,
//! and a node port range (`--service-node-port-range`, `A-B` or `A+N`).

use std::fmt;
use std::net::IpAddr;

use ipnet::IpNet;

/// A service CIDR: the addresses a cluster IP may take (the network address, and for
/// IPv4 the broadcast address, excluded as the IP allocator excludes them).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    net: IpNet,
}

impl Cidr {
    /// Parses `10.0.0.0/24` (host bits must be zero, as `net.ParseCIDR` + the flag's check).
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let net = parse_net(text.trim()).ok_or_else(|| format!("invalid CIDR address: {text}"))?;
        if net.trunc() != net {
            return Err(format!(
                "{text} is not a network address (the host bits must be zero)"
            ));
        }
        let cidr = Cidr { net };
        if cidr.size() == 0 {
            return Err(format!("{text} holds no address a Service can take"));
        }
        Ok(cidr)
    }

    /// `IPv4` or `IPv6` (the `ipFamilies` value).
    pub fn family(&self) -> &'static str {
        match self.net {
            IpNet::V4(_) => "IPv4",
            IpNet::V6(_) => "IPv6",
        }
    }

    /// How many addresses can be allocated (offsets `0..size`, address = base + 1 +
    /// offset), capped at 2^64 - 1 for large IPv6 ranges.
    pub fn size(&self) -> u128 {
        let host = u32::from(self.net.max_prefix_len() - self.net.prefix_len());
        let total = 1u128.checked_shl(host).unwrap_or(u128::MAX);
        // The network address goes; IPv4 loses its broadcast address too.
        let reserved = if self.net.addr().is_ipv4() { 2 } else { 1 };
        total.saturating_sub(reserved).min(u128::from(u64::MAX))
    }

    /// The first address a Service may take (the `kubernetes` Service's).
    pub fn first(&self) -> IpAddr {
        self.at(0)
    }

    /// The address at `offset` (0-based, after the network address).
    pub fn at(&self, offset: u128) -> IpAddr {
        let n = to_u128(self.net.network()) + 1 + offset;
        match self.net {
            IpNet::V4(_) => IpAddr::V4((n as u32).into()),
            IpNet::V6(_) => IpAddr::V6(n.into()),
        }
    }

    /// The offset of `ip` when it can be allocated from this range.
    pub fn offset(&self, ip: IpAddr) -> Option<u128> {
        if !self.net.contains(&ip) {
            return None;
        }
        let off = (to_u128(ip) - to_u128(self.net.network())).checked_sub(1)?;
        (off < self.size()).then_some(off)
    }

    /// Whether `ip` is inside the CIDR (allocatable or not).
    pub fn contains(&self, ip: IpAddr) -> bool {
        self.net.contains(&ip)
    }

    /// The lower band kept for requested addresses (`ServiceIPStaticSubrange`): dynamic
    /// allocation takes the upper band first. min(max(16, size/16), 256) addresses.
    pub fn static_band(&self) -> u128 {
        (self.size() / 16).clamp(16, 256).min(self.size())
    }
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.net.fmt(f)
    }
}

/// `net.ParseCIDR`: an address and a prefix length (host bits allowed).
pub fn parse_net(text: &str) -> Option<IpNet> {
    text.parse().ok()
}

/// Whether `inner` is a strict subset of `outer` (NetworkPolicy's `except`).
pub fn strict_subset(outer: &IpNet, inner: &IpNet) -> bool {
    inner.prefix_len() > outer.prefix_len() && outer.trunc().contains(inner)
}

fn to_u128(ip: IpAddr) -> u128 {
    match ip {
        IpAddr::V4(v) => u128::from(u32::from(v)),
        IpAddr::V6(v) => u128::from(v),
    }
}

/// A node port range, both ends included.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PortRange {
    pub base: u16,
    pub last: u16,
}

impl PortRange {
    /// `utilnet.ParsePortRange`: `30000-32767`, `30000+2767` or a single port.
    pub fn parse(text: &str) -> Result<PortRange, String> {
        let invalid = || format!("unable to parse port range: {text}");
        let text = text.trim();
        let (base, last) = if let Some((a, b)) = text.split_once('-') {
            let a: u16 = a.parse().map_err(|_| invalid())?;
            let b: u16 = b.parse().map_err(|_| invalid())?;
            (a, b)
        } else if let Some((a, n)) = text.split_once('+') {
            let a: u16 = a.parse().map_err(|_| invalid())?;
            let n: u16 = n.parse().map_err(|_| invalid())?;
            (a, a.checked_add(n).ok_or_else(invalid)?)
        } else {
            let a: u16 = text.parse().map_err(|_| invalid())?;
            (a, a)
        };
        if last < base || base == 0 {
            return Err(invalid());
        }
        Ok(PortRange { base, last })
    }

    /// Whether `port` is in the range.
    pub fn contains(&self, port: i64) -> bool {
        (i64::from(self.base)..=i64::from(self.last)).contains(&port)
    }

    /// How many ports.
    pub fn size(&self) -> u32 {
        u32::from(self.last - self.base) + 1
    }
}

impl fmt::Display for PortRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", self.base, self.last)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cidrs_number_their_addresses_like_the_allocator() {
        let c = Cidr::parse("10.0.0.0/24").unwrap();
        assert_eq!(c.size(), 254);
        assert_eq!(c.first().to_string(), "10.0.0.1");
        assert_eq!(c.at(253).to_string(), "10.0.0.254");
        assert_eq!(c.offset("10.0.0.1".parse().unwrap()), Some(0));
        assert_eq!(c.offset("10.0.0.0".parse().unwrap()), None);
        assert_eq!(c.offset("10.0.0.255".parse().unwrap()), None);
        assert_eq!(c.offset("10.0.1.1".parse().unwrap()), None);
        assert_eq!(c.static_band(), 16);
        assert_eq!(c.family(), "IPv4");
        assert!(Cidr::parse("10.0.0.1/24").is_err());
        assert!(Cidr::parse("10.0.0.0/33").is_err());
        assert!(Cidr::parse("10.0.0.0/32").is_err());
        assert!(Cidr::parse("10.0.0.0").is_err());
        assert_eq!(c.to_string(), "10.0.0.0/24");
        assert!(c.contains("10.0.0.0".parse().unwrap()));
        assert!(!c.contains("fd00::1".parse().unwrap()));
        let outer = parse_net("10.0.0.5/16").unwrap();
        assert!(strict_subset(&outer, &parse_net("10.0.3.0/24").unwrap()));
        assert!(!strict_subset(&outer, &parse_net("10.0.0.0/16").unwrap()));
        assert!(!strict_subset(&outer, &parse_net("10.1.0.0/24").unwrap()));
        assert!(!strict_subset(&outer, &parse_net("fd00::/120").unwrap()));
        let v6 = Cidr::parse("fd00::/120").unwrap();
        assert_eq!(v6.size(), 255);
        assert_eq!(v6.first().to_string(), "fd00::1");
        assert_eq!(v6.family(), "IPv6");
        assert_eq!(
            Cidr::parse("fd00::/64").unwrap().size(),
            u128::from(u64::MAX)
        );
    }

    #[test]
    fn port_ranges_parse_like_the_flag() {
        assert_eq!(
            PortRange::parse("30000-32767").unwrap(),
            PortRange {
                base: 30000,
                last: 32767
            }
        );
        assert_eq!(PortRange::parse("30000+10").unwrap().size(), 11);
        assert_eq!(PortRange::parse("8080").unwrap().size(), 1);
        assert!(PortRange::parse("32767-30000").is_err());
        assert!(PortRange::parse("a-b").is_err());
        let r = PortRange::parse("30000-32767").unwrap();
        assert!(r.contains(30000) && r.contains(32767) && !r.contains(8080));
        assert_eq!(r.to_string(), "30000-32767");
    }
}
