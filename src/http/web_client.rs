//! `GET /play`: the reference web client (`crate::web_client`), served from the binary. Not part of
//! the API description: these are the files of a page, and the page reaches the server only
//! through the API's public operations, as any other client does.

use actix_web::http::StatusCode;
use actix_web::http::header::{self, HeaderValue};
use actix_web::{HttpRequest, HttpResponse, guard, web};

use super::error::ApiError;
use super::headers;
use crate::web_client;

/// What the client's files may do: its own scripts and styles only (no inline code, so an
/// injected string can never run), calls to this server only, never framed (a click on
/// "resign" must be the player's own).
const POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                      connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'none'; \
                      frame-ancestors 'none'";

/// Registers `/play` (redirected to `/play/`, so the page's relative links resolve) and the
/// files under it.
pub fn configure(config: &mut web::ServiceConfig) {
    config
        .route(
            "/play",
            web::get().to(|| async {
                HttpResponse::PermanentRedirect()
                    .insert_header((header::LOCATION, "/play/"))
                    .finish()
            }),
        )
        .route(
            "/play/{path:.*}",
            web::route()
                .guard(guard::Any(guard::Get()).or(guard::Head()))
                .to(file),
        );
}

/// One file of the client, revalidated by `ETag` on every load (a new server's client is used
/// at once, an unchanged one costs a `304`).
async fn file(request: HttpRequest, path: web::Path<String>) -> Result<HttpResponse, ApiError> {
    let asset = web_client::asset(&path).ok_or_else(|| {
        ApiError::refused(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("The web client has no file `{path}`."),
        )
    })?;
    let unchanged = headers::unchanged(&request, &asset.etag);
    let mut response = if unchanged {
        HttpResponse::NotModified()
    } else {
        HttpResponse::Ok()
    };
    response
        .insert_header((header::ETAG, asset.etag.as_str()))
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header((header::CONTENT_SECURITY_POLICY, POLICY))
        .insert_header((header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY")))
        .insert_header((header::REFERRER_POLICY, "no-referrer"));
    if unchanged {
        return Ok(response.finish());
    }
    Ok(response.content_type(asset.content_type).body(asset.bytes))
}
