//! Where webhook requests may go. A webhook URL is chosen by a user, and the server makes the
//! request from inside the operator's network: without a guard, anyone could make it call a
//! private service, the cloud's metadata address, or the server itself (SSRF).
//!
//! So a request goes only to a public address, or to one inside a network the operator allowed
//! (`WEBHOOK_ALLOWED_NETWORKS`, e.g. `127.0.0.1/32` for local development). The guard stands
//! where the connection is made: a URL naming an address is checked before any request, and a
//! host name is resolved by [`GuardedResolver`], which hands the HTTP client only addresses that
//! pass (so a name that resolves to a public address when registered and to a private one later
//! gains nothing). Redirects are never followed.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::Arc;

use ipnet::IpNet;
use reqwest::Url;
use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// The networks an operator allows beside the public internet.
#[derive(Clone, Debug, Default)]
pub struct AllowedNetworks(pub Vec<IpNet>);

impl AllowedNetworks {
    /// Whether a request may go to `address`.
    pub fn permits(&self, address: IpAddr) -> bool {
        is_public(address) || self.allows(address)
    }

    /// Whether the operator allowed `address` explicitly.
    fn allows(&self, address: IpAddr) -> bool {
        let address = canonical(address);
        self.0.iter().any(|network| network.contains(&address))
    }
}

/// Why a webhook URL is refused.
pub fn check_url(url: &str, allowed: &AllowedNetworks) -> Result<Url, String> {
    check_url_of("a webhook URL", url, allowed)
}

/// [`check_url`] for `what` (`a push endpoint`): the same guard, in its words.
pub fn check_url_of(what: &str, url: &str, allowed: &AllowedNetworks) -> Result<Url, String> {
    if url.len() > 2048 {
        return Err(format!("{what} is at most 2048 characters"));
    }
    let parsed = Url::parse(url).map_err(|error| format!("not a URL: {error}"))?;
    if !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(format!("{what} carries no user name or password"));
    }
    if parsed.fragment().is_some() {
        return Err(format!("{what} has no #fragment"));
    }
    let literal = match parsed.host() {
        None => return Err(format!("{what} names a host")),
        Some(url::Host::Ipv4(address)) => Some(IpAddr::V4(address)),
        Some(url::Host::Ipv6(address)) => Some(IpAddr::V6(address)),
        Some(url::Host::Domain(_)) => None,
    };
    match (parsed.scheme(), literal) {
        ("https", None) => Ok(parsed),
        ("https" | "http", Some(address)) if allowed.allows(address) => Ok(parsed),
        ("https", Some(address)) if is_public(address) => Ok(parsed),
        ("https", Some(address)) => Err(format!(
            "{address} is not a public address, and the server's operator has not allowed it"
        )),
        ("http", _) => Err(format!(
            "{what} is https://, or http:// to an address the server's operator allowed for local development (WEBHOOK_ALLOWED_NETWORKS)"
        )),
        (scheme, _) => Err(format!("{what} is https://, not {scheme}://")),
    }
}

/// Whether a URL about to be requested names an address the guard refuses (names are checked
/// as they are resolved).
pub fn refused_literal(url: &Url, allowed: &AllowedNetworks) -> Option<IpAddr> {
    let address = match url.host()? {
        url::Host::Ipv4(address) => IpAddr::V4(address),
        url::Host::Ipv6(address) => IpAddr::V6(address),
        url::Host::Domain(_) => return None,
    };
    (!allowed.permits(address)).then_some(address)
}

/// Resolves host names for the webhook client, keeping only the addresses the guard permits.
#[derive(Clone, Debug)]
pub struct GuardedResolver {
    allowed: Arc<AllowedNetworks>,
}

impl GuardedResolver {
    /// A resolver permitting public addresses and `allowed`.
    pub fn new(allowed: AllowedNetworks) -> GuardedResolver {
        GuardedResolver {
            allowed: Arc::new(allowed),
        }
    }
}

/// A name that resolved to no address the guard permits, or to none at all. Which addresses
/// it found, and whether it found any, are not said: a delivery's error is shown to the
/// webhook's owner, who could otherwise use deliveries to learn how the server's own network
/// resolves names.
#[derive(Debug, thiserror::Error)]
#[error("{host} resolves to no address a webhook may reach")]
struct NoPermittedAddress {
    host: String,
}

impl Resolve for GuardedResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let allowed = self.allowed.clone();
        Box::pin(async move {
            let host = name.as_str().to_owned();
            let found: Vec<SocketAddr> = match tokio::net::lookup_host((host.as_str(), 0)).await {
                Ok(found) => found.collect(),
                Err(_) => Vec::new(),
            };
            let permitted: Vec<SocketAddr> = found
                .into_iter()
                .filter(|address| allowed.permits(address.ip()))
                .collect();
            if permitted.is_empty() {
                return Err(Box::new(NoPermittedAddress { host }) as _);
            }
            Ok(Box::new(permitted.into_iter()) as Addrs)
        })
    }
}

/// An IPv4 address written as IPv6 (`::ffff:a.b.c.d`) is that IPv4 address.
fn canonical(address: IpAddr) -> IpAddr {
    match address {
        IpAddr::V6(v6) => v6.to_ipv4_mapped().map_or(address, IpAddr::V4),
        v4 => v4,
    }
}

/// Whether an address is reachable on the public internet: not loopback, private, link-local,
/// shared (carrier-grade NAT), documentation, benchmarking, multicast, reserved or unspecified.
/// (`IpAddr::is_global` does this but is not stable.)
pub fn is_public(address: IpAddr) -> bool {
    match canonical(address) {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(address: Ipv4Addr) -> bool {
    let [a, b, c, _] = address.octets();
    !(a == 0                                   // "this network"
        || a == 10                             // private
        || a == 127                            // loopback
        || (a == 100 && (64..128).contains(&b)) // shared address space (CGNAT)
        || (a == 169 && b == 254)              // link-local (cloud metadata lives here)
        || (a == 172 && (16..32).contains(&b)) // private
        || (a == 192 && b == 0 && c == 0)      // IETF protocol assignments
        || (a == 192 && b == 0 && c == 2)      // documentation
        || (a == 192 && b == 88 && c == 99)    // 6to4 relay anycast (deprecated)
        || (a == 192 && b == 168)              // private
        || (a == 198 && (18..20).contains(&b)) // benchmarking
        || (a == 198 && b == 51 && c == 100)   // documentation
        || (a == 203 && b == 0 && c == 113)    // documentation
        || a >= 224) // multicast, reserved, broadcast
}

fn is_public_v6(address: Ipv6Addr) -> bool {
    let segments = address.segments();
    if address.is_unspecified() || address.is_loopback() || address.is_multicast() {
        return false;
    }
    // NAT64 (64:ff9b::/96) and the deprecated IPv4-compatible form (::/96) carry an IPv4
    // address: public only if it is.
    if segments[..6] == [0x64, 0xff9b, 0, 0, 0, 0] || segments[..6] == [0; 6] {
        let [high, low] = [segments[6], segments[7]];
        let v4 = Ipv4Addr::new((high >> 8) as u8, high as u8, (low >> 8) as u8, low as u8);
        return is_public_v4(v4);
    }
    !((segments[0] & 0xfe00) == 0xfc00       // unique local
        || (segments[0] & 0xffc0) == 0xfe80  // link-local
        || (segments[0] & 0xffc0) == 0xfec0  // site-local (deprecated)
        || (segments[0] == 0x2001 && segments[1] == 0x0db8) // documentation
        || (segments[0] == 0x2001 && segments[1] < 0x0200) // IETF protocol assignments (Teredo, benchmarking, ORCHID)
        || segments[0] == 0x2002) // 6to4: embeds any IPv4 address
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn only_public_addresses_are_public() {
        for private in [
            "0.0.0.0",
            "10.1.2.3",
            "100.64.0.1",
            "127.0.0.1",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "192.0.2.7",
            "198.18.0.1",
            "224.0.0.1",
            "255.255.255.255",
            "::",
            "::1",
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "fc00::1",
            "fd12:3456::1",
            "fe80::1",
            "ff02::1",
            "2001:db8::1",
            "2002:a00:1::",
        ] {
            assert!(!is_public(ip(private)), "{private} is not public");
        }
        for public in [
            "1.1.1.1",
            "8.8.8.8",
            "172.32.0.1",
            "100.128.0.1",
            "2606:4700:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
        ] {
            assert!(is_public(ip(public)), "{public} is public");
        }
    }

    #[test]
    fn urls_are_checked_before_they_are_stored() {
        let none = AllowedNetworks::default();
        let loopback = AllowedNetworks(vec!["127.0.0.1/32".parse().unwrap()]);
        assert!(check_url("https://hooks.example.com/kc", &none).is_ok());
        assert!(check_url("https://8.8.8.8/kc", &none).is_ok());
        for refused in [
            "http://hooks.example.com/kc",
            "https://127.0.0.1/kc",
            "https://[::1]/kc",
            "https://169.254.169.254/latest/meta-data",
            "https://10.0.0.1/kc",
            "https://user:secret@hooks.example.com/kc",
            "https://hooks.example.com/kc#part",
            "ftp://hooks.example.com/kc",
            "hooks.example.com/kc",
            "http://127.0.0.1:9000/kc",
        ] {
            assert!(check_url(refused, &none).is_err(), "{refused} is refused");
        }
        assert!(check_url("http://127.0.0.1:9000/kc", &loopback).is_ok());
        assert!(check_url("http://[::ffff:127.0.0.1]:9000/kc", &loopback).is_ok());
        assert!(check_url("http://127.0.0.2:9000/kc", &loopback).is_err());
        assert!(check_url("http://localhost:9000/kc", &loopback).is_err());
    }

    #[tokio::test]
    async fn names_resolve_only_to_permitted_addresses() {
        let resolver = GuardedResolver::new(AllowedNetworks::default());
        let refused = resolver
            .resolve(Name::from_str("localhost").unwrap())
            .await
            .err()
            .expect("localhost is refused");
        assert_eq!(
            refused.to_string(),
            "localhost resolves to no address a webhook may reach"
        );
        let allowed = GuardedResolver::new(AllowedNetworks(vec![
            "127.0.0.0/8".parse().unwrap(),
            "::1/128".parse().unwrap(),
        ]));
        let addresses: Vec<SocketAddr> = allowed
            .resolve(Name::from_str("localhost").unwrap())
            .await
            .unwrap()
            .collect();
        assert!(!addresses.is_empty());
    }

    use std::str::FromStr;
}
