//! The OpenAPI description: generated from the routes actually registered, so it cannot drift
//! from them, then completed with the problem answers every operation shares, so that each
//! handler's annotation lists only its success and its own refusals, and reshaped for client
//! generators (`for_generators`), completed from the code's tables (`from_tables`), with the
//! static bounds the services check (`bounds`) and with what the server checks beyond the types
//! (`as_checked`).

mod as_checked;
mod bounds;
mod for_generators;
mod from_tables;

use actix_web::App;
use utoipa::openapi::path::Operation;
use utoipa::openapi::security::{Http, HttpAuthScheme, SecurityScheme};
use utoipa::openapi::{ContentBuilder, Ref, RefOr, ResponseBuilder};
use utoipa::{Modify, OpenApi};
use utoipa_actix_web::AppExt;

use super::{configure, error};

/// The document's fixed parts; the paths come from [`configure`].
#[derive(OpenApi)]
#[openapi(
    info(
        title = "kings-corner",
        description = "Kings in the Corner as persistent, asynchronous matches. The rules are \
                       in the rule book, `GET /v1/rules/book` (the repository's docs/rules.md), \
                       with a section for client authors: read your view, and on your turn \
                       (`turn` equals `your_seat`) send one of its `legal_actions` with its \
                       `version`. Every error is `application/problem+json` with a stable \
                       `code`. A path used with a method it does not take answers `405` \
                       (`method_not_allowed`) with `Allow`; an unknown path `404` (`not_found`).",
        license(name = "MIT", identifier = "MIT"),
        contact(name = "kings-corner maintainers")
    ),
    servers(
        (url = "http://127.0.0.1:8080", description = "A server started with the defaults (`cargo run`); \
                                                        use your own server's address")
    ),
    modifiers(&BearerAuth),
    components(schemas(error::Problem)),
    tags(
        (name = "accounts", description = "Registration, the caller's account and personal access tokens"),
        (name = "auth", description = "Access and refresh tokens"),
        (name = "rules", description = "Options and presets of the rule book"),
        (name = "matches", description = "Lobby, seats, invitations, private views, moves, table talk, rematches, the event feed, replays and exports"),
        (name = "seeks", description = "Quick pairing: ask for a kind of table, and the server seats you with others who asked for the same"),
        (name = "notifications", description = "The account-wide stream of what happened while you were away"),
        (name = "webhooks", description = "Signed deliveries of notifications to your own server"),
        (name = "operations", description = "Health checks"),
    )
)]
struct ApiDoc;

struct BearerAuth;

impl Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        let mut scheme = Http::new(HttpAuthScheme::Bearer);
        scheme.bearer_format = Some("JWT or kcp_…".to_owned());
        scheme.description = Some(
            "An access token from `POST /v1/auth/login` (may do everything), or a personal \
             access token `kcp_…` from `POST /v1/me/tokens` (may do what its scopes name). Each \
             operation lists the scope it needs: `play`, `read`, `webhooks` or `account`; a \
             token without it is refused with `403 insufficient_scope`."
                .to_owned(),
        );
        components.add_security_scheme("bearer", SecurityScheme::Http(scheme));
    }
}

/// The OpenAPI description of every registered route, as served at `/openapi.json`.
pub fn openapi() -> serde_json::Value {
    let mut api = serde_json::to_value(derived()).expect("the OpenAPI document serialises");
    from_tables::add(&mut api);
    bounds::add(&mut api);
    as_checked::add(&mut api);
    for_generators::reshape(&mut api);
    bounds::close_unions(&mut api);
    api
}

/// What utoipa derives from the annotations, with the shared problems added.
fn derived() -> utoipa::openapi::OpenApi {
    let (_, mut api) = App::new()
        .into_utoipa_app()
        .openapi(ApiDoc::openapi())
        .configure(configure)
        .split_for_parts();
    for (path, item) in api.paths.paths.iter_mut() {
        let stream = path.ends_with("/stream");
        for operation in [
            &mut item.get,
            &mut item.post,
            &mut item.put,
            &mut item.delete,
        ]
        .into_iter()
        .flatten()
        {
            add_shared_problems(operation, stream);
            split_summary(operation);
        }
    }
    api
}

/// [`openapi`] as pretty JSON, the form committed as `openapi/openapi.json`.
pub fn openapi_json() -> String {
    serde_json::to_string_pretty(&openapi()).expect("the OpenAPI document serialises")
}

/// utoipa makes a handler's first doc paragraph the summary and the rest the description. The
/// first paragraph says what the operation does in full, so it becomes the description's
/// opening, and the summary (the title generators and Swagger UI show) its first clause.
fn split_summary(operation: &mut Operation) {
    let Some(paragraph) = operation.summary.take() else {
        return;
    };
    operation.summary = Some(first_clause(&paragraph));
    operation.description = Some(match operation.description.take() {
        Some(rest) => format!("{paragraph}\n\n{rest}"),
        None => paragraph,
    });
}

/// Up to the first `. `, `: ` or `; ` outside parentheses and code.
fn first_clause(text: &str) -> String {
    let text = text.replace('\n', " ");
    let mut depth = 0i32;
    let mut in_code = false;
    let mut previous = ' ';
    for (index, character) in text.char_indices() {
        match character {
            '`' => in_code = !in_code,
            '(' if !in_code => depth += 1,
            ')' if !in_code => depth -= 1,
            ' ' if depth == 0 && !in_code && matches!(previous, '.' | ':' | ';') => {
                return text[..index - 1].to_owned();
            }
            _ => {}
        }
        previous = character;
    }
    text.trim_end_matches('.').to_owned()
}

/// The problem answers an operation gives by its kind, where its annotation names none: every
/// one can answer 400 (a query parameter it does not take, a NUL in its text); one that needs
/// a token 401 and 403 (a scope it lacks); one with a body 400, 413, 415 and 422; one that
/// reads the database 503.
fn add_shared_problems(operation: &mut Operation, stream: bool) {
    let needs_token = operation.security.iter().flatten().any(|requirement| {
        serde_json::to_value(requirement)
            .is_ok_and(|value| value.as_object().is_some_and(|schemes| !schemes.is_empty()))
    });
    let has_body = operation.request_body.is_some();
    let query: Vec<&str> = operation
        .parameters
        .iter()
        .flatten()
        .filter(|parameter| {
            matches!(
                parameter.parameter_in,
                utoipa::openapi::path::ParameterIn::Query
            )
        })
        .map(|parameter| parameter.name.as_str())
        .collect();
    // Long-polls and streams are bounded by the cap on held connections instead.
    let holds = stream || query.contains(&"wait");
    // Every operation refuses a query parameter it does not take (`query_names`) and text
    // holding U+0000 anywhere in the request (`text`), at the edge.
    let mut shared = vec![(
        "400",
        if query.is_empty() {
            "A query parameter this operation does not take (`malformed_query`)"
        } else {
            "A query parameter that does not parse, one this operation does not take, or a \
             required one missing (`malformed_query`)"
        },
    )];
    shared.push((
        "400",
        "Text holding U+0000, which no text may hold, in the path, query or body \
         (`invalid_text`)",
    ));
    if needs_token {
        shared.push((
            "401",
            "Missing, invalid or expired token (`missing_token`, `invalid_token`)",
        ));
        shared.push((
            "403",
            "The token lacks the scope this operation needs (`insufficient_scope`)",
        ));
    }
    if has_body {
        shared.extend([
            ("400", "Malformed JSON (`malformed_json`)"),
            ("413", "Body too large (`payload_too_large`)"),
            ("415", "Not `application/json` (`unsupported_media_type`)"),
            ("422", "A body of the wrong shape (`invalid_body`)"),
        ]);
    }
    if needs_token && !holds {
        shared.push((
            "429",
            "`too_many_requests_in_flight`: the account has as many requests in flight as \
             the server allows each (`MAX_REQUESTS_PER_ACCOUNT`); see `Retry-After`",
        ));
    }
    if needs_token || has_body {
        shared.push((
            "503",
            "The database is unreachable now (`service_unavailable`): try again shortly",
        ));
    }
    for (status, description) in shared {
        let responses = &mut operation.responses.responses;
        match responses.get_mut(status) {
            // An operation's own answer with the status (`not_seated` as a 403, say) is
            // joined by the shared one's codes, unless it names them already.
            Some(RefOr::T(own)) => {
                if !own.description.contains(first_code(description)) {
                    own.description =
                        format!("{}; or {}", own.description, lowercase_first(description));
                }
                if status == "429" && own.headers.is_empty() {
                    own.headers.insert("Retry-After".into(), retry_after());
                }
            }
            Some(RefOr::Ref(_)) => {}
            None => {
                let mut answer = problem(description);
                if status == "429" {
                    answer.headers.insert("Retry-After".into(), retry_after());
                }
                responses.insert(status.to_owned(), RefOr::T(answer));
            }
        }
    }
}

/// `text` with its first letter in lower case, to follow "; or".
fn lowercase_first(text: &str) -> String {
    let mut characters = text.chars();
    characters.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(characters).collect()
    })
}

/// The first `code` quoted in `description`.
fn first_code(description: &str) -> &str {
    description
        .split('`')
        .nth(1)
        .filter(|code| code.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .unwrap_or(description)
}

/// The `Retry-After` header of a 429: seconds to wait.
fn retry_after() -> utoipa::openapi::header::Header {
    utoipa::openapi::header::HeaderBuilder::new()
        .schema(utoipa::openapi::schema::Object::with_type(
            utoipa::openapi::schema::Type::Integer,
        ))
        .description(Some("Seconds to wait"))
        .build()
}

fn problem(description: &str) -> utoipa::openapi::Response {
    ResponseBuilder::new()
        .description(description)
        .content(
            "application/problem+json",
            ContentBuilder::new()
                .schema(Some(Ref::from_schema_name("Problem")))
                .build(),
        )
        .build()
}

#[cfg(test)]
mod tests {
    use super::first_clause;

    #[test]
    fn a_summary_is_the_first_clause_outside_parentheses_and_code() {
        assert_eq!(
            first_clause("Log in: exchange a name for tokens."),
            "Log in"
        );
        assert_eq!(first_clause("Register an account."), "Register an account");
        assert_eq!(
            first_clause("The view (for others: a spectator's). Supports `a. b`."),
            "The view (for others: a spectator's)"
        );
        assert_eq!(
            first_clause("Send `{\"a\": 1}; ok` here; then wait"),
            "Send `{\"a\": 1}; ok` here"
        );
    }
}
