//! Unknown query parameters, refused at the edge: a parameter the operation does not take is a
//! client's mistake (a misspelt `after`, say) that would otherwise pass in silence. The names each
//! operation takes are read from the OpenAPI description, which is built from the registered
//! routes, so the check and the description cannot disagree.

use std::collections::{HashMap, HashSet};

use actix_web::dev::ServiceRequest;
use actix_web::http::StatusCode;
use actix_web::web;

use super::error::ApiError;

/// The query parameters of every documented operation, by method and path template.
#[derive(Debug, Default)]
pub struct QueryNames(HashMap<(String, String), HashSet<String>>);

impl QueryNames {
    /// The query parameters of an OpenAPI description's operations.
    pub fn new(api: &serde_json::Value) -> QueryNames {
        let mut names = HashMap::new();
        for (path, item) in api["paths"].as_object().into_iter().flatten() {
            for (method, operation) in item.as_object().into_iter().flatten() {
                let taken = operation["parameters"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|parameter| parameter["in"] == "query")
                    .filter_map(|parameter| parameter["name"].as_str())
                    .map(str::to_owned)
                    .collect();
                names.insert((method.to_ascii_uppercase(), path.clone()), taken);
            }
        }
        QueryNames(names)
    }

    /// The first name of `query` that the operation does not take, if any (`None` too for a
    /// path the description does not know: the fallback answers those).
    fn unknown(&self, method: &str, template: &str, query: &str) -> Option<String> {
        let taken = self.0.get(&(method.to_owned(), template.to_owned()))?;
        url::form_urlencoded::parse(query.as_bytes())
            .map(|(name, _)| name)
            .find(|name| !taken.contains(name.as_ref()))
            .map(|name| name.into_owned())
    }
}

/// The refusal of a request naming a query parameter its operation does not take, with
/// `400 malformed_query` (checked by [`super::screen`]).
pub fn unknown_in(request: &ServiceRequest) -> Option<ApiError> {
    // Most requests (every move) carry no query: they cost nothing here.
    if request.query_string().is_empty() {
        return None;
    }
    let names = request.app_data::<web::Data<QueryNames>>()?;
    let template = request.match_pattern()?;
    let name = names.unknown(request.method().as_str(), &template, request.query_string())?;
    Some(ApiError::refused(
        StatusCode::BAD_REQUEST,
        "malformed_query",
        format!("This operation takes no query parameter `{name}`."),
    ))
}

#[cfg(test)]
mod tests {
    use super::QueryNames;

    #[test]
    fn only_the_parameters_an_operation_takes_pass() {
        let names = QueryNames::new(&crate::http::openapi());
        let stream = "/v1/matches/{id}/stream";
        assert_eq!(
            names.unknown("GET", stream, "after=3&watch=x&ticket=y"),
            None
        );
        assert_eq!(
            names.unknown("GET", stream, "after=3&afterr=4").as_deref(),
            Some("afterr")
        );
        assert_eq!(names.unknown("GET", "/v1/me", "").as_deref(), None);
        assert_eq!(names.unknown("GET", "/v1/me", "x=1").as_deref(), Some("x"));
        assert_eq!(names.unknown("GET", "/not/documented", "x=1"), None);
    }
}
