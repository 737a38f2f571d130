//! What the server answers where no route does: `405 Method Not Allowed` with `Allow` when the
//! path exists for other methods, `404` otherwise; both as problems. The routes are read from
//! the OpenAPI description, which is built from the registered routes.

use actix_web::http::header::ALLOW;
use actix_web::http::{Method, StatusCode};
use actix_web::{HttpRequest, HttpResponse, ResponseError};

use super::error::ApiError;

/// Every documented path, as segments (`None` for a `{parameter}`), with its methods.
#[derive(Clone, Debug)]
pub struct Fallback {
    routes: Vec<(Vec<Option<String>>, Vec<Method>)>,
}

impl Fallback {
    /// The routes of an OpenAPI description.
    pub fn new(api: &serde_json::Value) -> Fallback {
        let routes = api["paths"]
            .as_object()
            .into_iter()
            .flatten()
            .map(|(path, item)| {
                let segments = path
                    .split('/')
                    .map(|segment| (!segment.starts_with('{')).then(|| segment.to_owned()))
                    .collect();
                let methods = [
                    Method::GET,
                    Method::POST,
                    Method::PUT,
                    Method::DELETE,
                    Method::PATCH,
                ]
                .into_iter()
                .filter(|method| item.get(method.as_str().to_ascii_lowercase()).is_some())
                .collect();
                (segments, methods)
            })
            .collect();
        Fallback { routes }
    }

    /// The answer to a request no route took.
    pub fn answer(&self, request: &HttpRequest) -> HttpResponse {
        let segments: Vec<&str> = request.path().split('/').collect();
        let allowed = self.routes.iter().find_map(|(route, methods)| {
            let fits = route.len() == segments.len()
                && route.iter().zip(&segments).all(|(expected, segment)| {
                    expected
                        .as_deref()
                        .map_or(!segment.is_empty(), |expected| expected == *segment)
                });
            fits.then_some(methods)
        });
        match allowed {
            Some(methods) => {
                let allow = methods
                    .iter()
                    .map(Method::as_str)
                    .collect::<Vec<_>>()
                    .join(", ");
                let mut response = ApiError::refused(
                    StatusCode::METHOD_NOT_ALLOWED,
                    "method_not_allowed",
                    format!(
                        "{} takes {allow}, not {}.",
                        request.path(),
                        request.method()
                    ),
                )
                .error_response();
                if let Ok(value) = allow.parse() {
                    response.headers_mut().insert(ALLOW, value);
                }
                response
            }
            None => ApiError::not_found().error_response(),
        }
    }
}
