//! Structured logs with `tracing`: text for people, JSON for log pipelines.

use std::io::IsTerminal;

use tracing_subscriber::EnvFilter;

/// Installs the global subscriber (once; later calls do nothing).
pub fn init(filter: &str, format: &str) {
    let filter = EnvFilter::try_new(directives(filter)).unwrap_or_else(|_| EnvFilter::new("info"));
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter)
        // Colours for a terminal, plain text for a file or a pipe.
        .with_ansi(std::io::stderr().is_terminal())
        .with_writer(std::io::stderr);
    let _ = if format == "json" {
        builder.json().try_init()
    } else {
        builder.try_init()
    };
}

/// `LOG_LEVEL`, quieting actix's line for each request it cannot parse (a bad header, say): it
/// is logged at ERROR although the fault is the client's, so anyone could fill the log with
/// them. Naming `actix_http` in `LOG_LEVEL` shows them again.
fn directives(filter: &str) -> String {
    if filter.contains("actix_http") {
        filter.to_owned()
    } else {
        format!("{filter},actix_http::h1::dispatcher=off")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn unparsable_requests_are_not_logged_as_errors_unless_asked_for() {
        assert_eq!(
            super::directives("info"),
            "info,actix_http::h1::dispatcher=off"
        );
        assert_eq!(super::directives("actix_http=debug"), "actix_http=debug");
    }
}
