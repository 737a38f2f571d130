//! Builds the application on a `TcpListener` (so tests can bind port 0) and runs it until
//! SIGTERM or Ctrl-C, finishing the requests in flight.

use std::net::TcpListener;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpResponse, HttpServer, web};
use tracing_actix_web::TracingLogger;
use utoipa::OpenApi;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::auth::{RateLimiter, TokenKeys};
use crate::config::Settings;
use crate::http::{self, error::ApiError};
use crate::store::Db;

/// A built server, bound and ready to run.
pub struct Application {
    server: Server,
    address: std::net::SocketAddr,
    db: Db,
}

impl Application {
    /// Connects to the database, migrates, loads the signing keys and binds `settings.bind`.
    pub async fn build(settings: Settings) -> anyhow::Result<Application> {
        let listener = TcpListener::bind(settings.bind)?;
        Application::build_with_listener(settings, listener).await
    }

    /// As [`Application::build`], on a listener the caller bound.
    pub async fn build_with_listener(
        settings: Settings,
        listener: TcpListener,
    ) -> anyhow::Result<Application> {
        let db = Db::connect(&settings).await?;
        db.migrate().await?;
        let keys = TokenKeys::load(
            &db,
            settings.jwt_secret.as_deref(),
            settings.access_token_ttl_seconds,
        )
        .await?;
        let limiter = web::Data::new(RateLimiter::new(
            settings.login_attempts_per_minute,
            Duration::from_secs(60),
        ));
        let address = listener.local_addr()?;
        let (db_data, keys_data, settings_data) = (
            web::Data::new(db.clone()),
            web::Data::new(keys),
            web::Data::new(settings),
        );
        let server = HttpServer::new(move || {
            let (app, api) = App::new()
                .into_utoipa_app()
                .openapi(http::ApiDoc::openapi())
                .app_data(
                    web::JsonConfig::default()
                        .limit(http::error::JSON_LIMIT)
                        .error_handler(http::error::json_error),
                )
                .app_data(db_data.clone())
                .app_data(keys_data.clone())
                .app_data(settings_data.clone())
                .app_data(limiter.clone())
                .configure(http::configure)
                .split_for_parts();
            app.wrap(TracingLogger::default())
                .service(SwaggerUi::new("/docs/{_:.*}").url("/openapi.json", api))
                .route(
                    "/docs",
                    web::get().to(|| async {
                        HttpResponse::PermanentRedirect()
                            .insert_header(("Location", "/docs/"))
                            .finish()
                    }),
                )
                .default_service(web::to(|| async {
                    Err::<HttpResponse, _>(ApiError::NotFound(
                        "There is nothing at this path.".to_owned(),
                    ))
                }))
        })
        .shutdown_timeout(30)
        .listen(listener)?
        .run();
        Ok(Application {
            server,
            address,
            db,
        })
    }

    /// The address it listens on.
    pub fn address(&self) -> std::net::SocketAddr {
        self.address
    }

    /// Its database handle.
    pub fn db(&self) -> &Db {
        &self.db
    }

    /// Serves until stopped (SIGTERM or Ctrl-C stop it gracefully).
    pub async fn run(self) -> std::io::Result<()> {
        self.server.await
    }
}
