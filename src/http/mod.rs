//! The HTTP layer: thin handlers over the services, the extractors ([`extract::AuthUser`],
//! the idempotency key), [`error::ApiError`] (problem+json), and the OpenAPI description
//! generated from the routes actually registered.

pub mod accounts;
pub mod auth;
pub mod error;
pub mod extract;
pub mod health;
pub mod matches;
pub mod rules;

use actix_web::App;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;
use utoipa_actix_web::service_config::ServiceConfig;

/// Registers every API route (also used to build the OpenAPI description).
pub fn configure(config: &mut ServiceConfig) {
    config
        .service(health::healthz)
        .service(health::readyz)
        .service(accounts::register)
        .service(accounts::me)
        .service(auth::login)
        .service(auth::refresh_tokens)
        .service(auth::logout)
        .service(rules::rules_catalog)
        .configure(matches::configure);
}

/// The document's fixed parts; the paths come from [`configure`].
#[derive(OpenApi)]
#[openapi(
    info(
        title = "kings-corner",
        description = "Kings in the Corner as persistent, asynchronous matches. Every error is \
                       `application/problem+json` with a stable `code`.",
        license(name = "MIT")
    ),
    modifiers(&BearerAuth),
    components(schemas(error::Problem)),
    tags(
        (name = "accounts", description = "Registration and the caller's account"),
        (name = "auth", description = "Access and refresh tokens"),
        (name = "rules", description = "Options and presets of the rule book"),
        (name = "matches", description = "Lobby, seats, private views, moves, the event feed, replays and exports"),
        (name = "operations", description = "Health checks"),
    )
)]
pub struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.bearer_format = Some("JWT".to_owned());
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// The OpenAPI description of every registered route.
pub fn openapi() -> utoipa::openapi::OpenApi {
    let (_, api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(configure)
        .split_for_parts();
    api
}

/// [`openapi`] as pretty JSON, the form committed as `openapi/openapi.json`.
pub fn openapi_json() -> String {
    openapi()
        .to_pretty_json()
        .expect("the OpenAPI document serialises")
}
