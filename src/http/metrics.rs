//! `GET /metrics`: the Prometheus text format of [`crate::instruments`], for an operator's
//! scraper, never a browser page. It needs no token and is not part of the API description;
//! pages on other origins never read it (no CORS headers, whatever `CORS_ALLOWED_ORIGINS`
//! allows the API: [`super::cors::mend_answers`] takes them off). With `METRICS_BIND_ADDRESS`
//! it is served on a listener of its own instead, so that it can stay off the public network.
//!
//! Also here: the middleware that times every request for the latency histograms.

use std::time::Instant;

use actix_web::body::{BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::http::Method;
use actix_web::middleware::Next;
use actix_web::{HttpResponse, web};

use super::held::HeldConnections;
use crate::instruments;
use crate::matches::Matches;

/// The path it is served at.
pub const PATH: &str = "/metrics";

/// The content type of Prometheus's text format.
const TEXT_FORMAT: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Registers `GET /metrics`.
pub fn configure(config: &mut web::ServiceConfig) {
    config.route(PATH, web::get().to(scrape));
}

/// Every family, with the gauges read now.
async fn scrape(matches: web::Data<Matches>, held: web::Data<HeldConnections>) -> HttpResponse {
    instruments::observe(&matches.figures(held.figures()).await);
    HttpResponse::Ok()
        .content_type(TEXT_FORMAT)
        .insert_header(("Cache-Control", "no-store"))
        .body(instruments::recorder().render())
}

/// Middleware (outermost): each request's latency by the route pattern it matched, its method
/// and its status. An event stream counts until its headers are sent.
pub async fn time_requests(
    request: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, actix_web::Error> {
    let started = Instant::now();
    let method = method_label(request.method());
    let answered = next.call(request).await;
    let (route, status) = match &answered {
        Ok(response) => (response.request().match_pattern(), response.status()),
        Err(error) => (None, error.as_response_error().status_code()),
    };
    let route = route.unwrap_or_else(|| "unmatched".to_owned());
    instruments::request_answered(route, method, status.as_u16(), started.elapsed());
    answered.map(ServiceResponse::map_into_boxed_body)
}

/// The method as a label: the standard ones by name, anything else a client invents as
/// `other`, so that no client can add series.
fn method_label(method: &Method) -> &'static str {
    match *method {
        Method::GET => "GET",
        Method::HEAD => "HEAD",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::OPTIONS => "OPTIONS",
        _ => "other",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn invented_methods_share_one_label() {
        assert_eq!(method_label(&Method::POST), "POST");
        let invented = Method::from_bytes(b"BREW").unwrap();
        assert_eq!(method_label(&invented), "other");
    }
}
