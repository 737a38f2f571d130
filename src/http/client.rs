//! Who is asking: the client's address, for the request log and the rate limits. It is the TCP
//! peer, unless the peer is a proxy the operator trusts (`TRUSTED_PROXIES`): then the address
//! that proxy says it forwarded for (`X-Forwarded-For`, read from the right past every trusted
//! proxy). A client cannot choose its address by sending the header itself.

use std::net::IpAddr;

use actix_web::HttpRequest;
use actix_web::web;

/// The proxies whose `X-Forwarded-For` is believed.
#[derive(Clone, Debug, Default)]
pub struct TrustedProxies(pub Vec<IpAddr>);

/// The client's address of a request.
pub fn address_of(request: &HttpRequest) -> Option<IpAddr> {
    let peer = request.peer_addr()?.ip();
    let trusted = request
        .app_data::<web::Data<TrustedProxies>>()
        .map(|trusted| trusted.0.as_slice())
        .unwrap_or_default();
    if !trusted.contains(&peer) {
        return Some(peer);
    }
    let forwarded: Vec<IpAddr> = request
        .headers()
        .get_all("x-forwarded-for")
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .filter_map(|address| address.trim().parse().ok())
        .collect();
    Some(
        forwarded
            .into_iter()
            .rev()
            .find(|address| !trusted.contains(address))
            .unwrap_or(peer),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use actix_web::test::TestRequest;

    #[test]
    fn forwarded_addresses_count_only_from_trusted_proxies() {
        let proxy: IpAddr = "10.0.0.2".parse().unwrap();
        let forwarded = |peer: &str| {
            TestRequest::default()
                .peer_addr(format!("{peer}:4000").parse().unwrap())
                .insert_header(("x-forwarded-for", "6.6.6.6, 203.0.113.7, 10.0.0.2"))
                .app_data(web::Data::new(TrustedProxies(vec![proxy])))
                .to_http_request()
        };
        assert_eq!(
            address_of(&forwarded("10.0.0.2")),
            Some("203.0.113.7".parse().unwrap()),
            "from the right, past the trusted proxy"
        );
        assert_eq!(
            address_of(&forwarded("198.51.100.1")),
            Some("198.51.100.1".parse().unwrap()),
            "an untrusted peer's header is ignored"
        );
    }
}
