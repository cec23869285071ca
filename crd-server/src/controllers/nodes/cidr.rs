//! CIDR arithmetic for the node IPAM and the simulated kubelet: the cluster CIDR cut
//! into per-node ranges (`--node-cidr-mask-size`: /24 for IPv4, /64 for IPv6, as
//! kube-controller-manager's defaults), and addresses within one range.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// A parsed CIDR: its first address (as a number) and prefix length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    base: u128,
    prefix: u8,
    v6: bool,
}

impl Cidr {
    /// Parses `a.b.c.d/n` or an IPv6 CIDR, as `net.ParseCIDR` (the address is masked).
    pub fn parse(text: &str) -> Result<Cidr, String> {
        let bad = || format!("invalid CIDR address: {text}");
        let (addr, prefix) = text.split_once('/').ok_or_else(bad)?;
        let addr: IpAddr = addr.parse().map_err(|_| bad())?;
        let prefix: u8 = prefix.parse().map_err(|_| bad())?;
        let (value, bits, v6) = match addr {
            IpAddr::V4(a) => (u128::from(u32::from(a)), 32u8, false),
            IpAddr::V6(a) => (u128::from(a), 128u8, true),
        };
        if prefix > bits {
            return Err(bad());
        }
        let host_bits = u32::from(bits - prefix);
        let mask = if host_bits >= 128 {
            0
        } else {
            !((1u128 << host_bits) - 1)
        };
        Ok(Cidr {
            base: value & mask,
            prefix,
            v6,
        })
    }

    /// The prefix length.
    pub fn prefix(&self) -> u8 {
        self.prefix
    }

    fn bits(&self) -> u8 {
        if self.v6 { 128 } else { 32 }
    }

    /// The default per-node mask size of this family.
    pub fn node_mask(&self) -> u8 {
        if self.v6 { 64 } else { 24 }
    }

    /// How many per-node ranges of `mask` it holds (`None`: the mask is shorter
    /// than the CIDR's, as kube-controller-manager refuses at start).
    pub fn subnets(&self, mask: u8) -> Option<u128> {
        if mask < self.prefix || mask > self.bits() {
            return None;
        }
        Some(
            1u128
                .checked_shl(u32::from(mask - self.prefix))
                .unwrap_or(u128::MAX),
        )
    }

    /// The `index`th range of `mask` within it.
    pub fn subnet(&self, mask: u8, index: u128) -> Option<Cidr> {
        if index >= self.subnets(mask)? {
            return None;
        }
        let step = 1u128.checked_shl(u32::from(self.bits() - mask))?;
        Some(Cidr {
            base: self.base + index * step,
            prefix: mask,
            v6: self.v6,
        })
    }

    /// Which range of `mask` within it `other` is (`None`: not one of them).
    pub fn index_of(&self, mask: u8, other: &Cidr) -> Option<u128> {
        if other.v6 != self.v6 || other.prefix != mask || self.subnets(mask).is_none() {
            return None;
        }
        let step = 1u128.checked_shl(u32::from(self.bits() - mask))?;
        let offset = other.base.checked_sub(self.base)?;
        let index = offset / step;
        (index < self.subnets(mask)?).then_some(index)
    }

    /// How many addresses it holds (capped).
    pub fn size(&self) -> u128 {
        1u128
            .checked_shl(u32::from(self.bits() - self.prefix))
            .unwrap_or(u128::MAX)
    }

    /// The address at `offset` from its first one.
    pub fn address(&self, offset: u128) -> Option<IpAddr> {
        if offset >= self.size() {
            return None;
        }
        let v = self.base + offset;
        Some(if self.v6 {
            IpAddr::V6(Ipv6Addr::from(v))
        } else {
            IpAddr::V4(Ipv4Addr::from(u32::try_from(v).ok()?))
        })
    }

    /// The offset of `addr` within it (`None`: outside).
    pub fn offset_of(&self, addr: &IpAddr) -> Option<u128> {
        let v = match (addr, self.v6) {
            (IpAddr::V4(a), false) => u128::from(u32::from(*a)),
            (IpAddr::V6(a), true) => u128::from(*a),
            _ => return None,
        };
        let offset = v.checked_sub(self.base)?;
        (offset < self.size()).then_some(offset)
    }
}

impl std::fmt::Display for Cidr {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.address(0) {
            Some(a) => write!(f, "{a}/{}", self.prefix),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuts_per_node_ranges() {
        let c = Cidr::parse("10.244.0.0/16").unwrap();
        assert_eq!(c.subnets(24), Some(256));
        assert_eq!(c.subnet(24, 0).unwrap().to_string(), "10.244.0.0/24");
        assert_eq!(c.subnet(24, 3).unwrap().to_string(), "10.244.3.0/24");
        assert_eq!(c.subnet(24, 256), None);
        let third = Cidr::parse("10.244.3.0/24").unwrap();
        assert_eq!(c.index_of(24, &third), Some(3));
        assert_eq!(c.index_of(24, &Cidr::parse("10.245.0.0/24").unwrap()), None);
        assert_eq!(third.address(2).unwrap().to_string(), "10.244.3.2");
        assert_eq!(third.address(256), None);
        assert_eq!(third.offset_of(&"10.244.3.9".parse().unwrap()), Some(9));
        assert_eq!(Cidr::parse("10.244.1.7/16").unwrap(), c);
    }

    #[test]
    fn ipv6_and_bad_input() {
        let c = Cidr::parse("fd00:10:244::/56").unwrap();
        assert_eq!(c.node_mask(), 64);
        assert_eq!(c.subnet(64, 1).unwrap().to_string(), "fd00:10:244:1::/64");
        assert_eq!(
            Cidr::parse("10.244.0.0").unwrap_err(),
            "invalid CIDR address: 10.244.0.0"
        );
        assert!(Cidr::parse("10.244.0.0/33").is_err());
        assert!(Cidr::parse("nonsense/8").is_err());
        assert_eq!(Cidr::parse("10.0.0.0/25").unwrap().subnets(24), None);
    }
}
