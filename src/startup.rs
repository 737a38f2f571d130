//! Builds the application on a `TcpListener` (so tests can bind port 0) and runs it until
//! SIGTERM or Ctrl-C, finishing the requests in flight.

use std::net::TcpListener;
use std::sync::Arc;
use std::time::Duration;

use actix_web::dev::Server;
use actix_web::{App, HttpRequest, HttpResponse, HttpServer, middleware, web};
use tracing_actix_web::TracingLogger;
use utoipa_actix_web::AppExt;
use utoipa_swagger_ui::SwaggerUi;

use crate::accounts::{Accounts, Limits};
use crate::auth::sealing::KeyEncryptionKey;
use crate::auth::{Passwords, RateLimiter, TokenKeys};
use crate::config::Settings;
use crate::http;
use crate::http::client::TrustedProxies;
use crate::http::fallback::Fallback;
use crate::http::held::HeldConnections;
use crate::http::in_flight::InFlight;
use crate::http::request_log::RequestLog;
use crate::live::Notifier;
use crate::mail::{Mail, MailSettings};
use crate::matches::Matches;
use crate::notifications::push::vapid::VapidKey;
use crate::notifications::webhooks::{AllowedNetworks, WebhookSettings};
use crate::notifications::{NotificationSettings, Notifications};
use crate::process;
use crate::store::{Backend, Db};
use crate::time_source::{Clock, SystemClock};

const MINUTE: Duration = Duration::from_secs(60);
const HOUR: Duration = Duration::from_secs(3600);

/// Letters an account's own requests may send in an hour (verification and reset links), per
/// account and per address: enough for typos and a lost letter, too few to mail-bomb anyone.
const LETTERS_PER_HOUR: u32 = 5;

/// Requests for a reset link in an hour, per client address and per address or username.
const RESETS_PER_HOUR: u32 = 10;

/// A built server, bound and ready to run.
pub struct Application {
    server: Server,
    address: std::net::SocketAddr,
    /// `/metrics` on a listener of its own (`METRICS_BIND_ADDRESS`), and its address.
    metrics: Option<(Server, std::net::SocketAddr)>,
    db: Db,
    matches: Arc<Matches>,
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
        Application::build_with_clock(settings, listener, Arc::new(SystemClock)).await
    }

    /// As [`Application::build_with_listener`], keeping match time by `clock` (tests move it).
    pub async fn build_with_clock(
        settings: Settings,
        listener: TcpListener,
        clock: Arc<dyn Clock>,
    ) -> anyhow::Result<Application> {
        // Before anything records: every figure from the start goes to the one recorder.
        crate::instruments::recorder();
        let db = Db::connect(&settings.database).await?;
        db.migrate().await?;
        // SQLite: `kings-corner backup` asks this process for a copy (see `backup`). Without
        // the socket (a path too long for one, say) the server still serves; only online
        // backups wait for it to stop.
        if let Some(file) = crate::store::sqlite_path(&settings.database.url)
            && let Err(error) = crate::backup::serve(db.clone(), &file)
        {
            tracing::warn!(%error, "no backup socket beside the database: `kings-corner backup` works only while the server is stopped");
        }
        let kek = settings
            .key_encryption_key
            .as_deref()
            .map(|secret| Arc::new(KeyEncryptionKey::from_secret(secret)));
        let keys = TokenKeys::load(
            &db,
            settings.jwt_secret.as_deref(),
            kek.as_deref(),
            settings.access_token_ttl_seconds,
            clock.now(),
        )
        .await?;
        let longest_hold = Duration::from_secs(settings.max_hold_seconds);
        let notifier = match db.backend() {
            Backend::Sqlite => Notifier::in_process(),
            Backend::Postgres => Notifier::postgres(db.clone(), settings.database.session_url()),
        }
        .waiting_at_most(longest_hold)
        .catching_up(db.clone());
        let mail = Mail::new(MailSettings {
            smtp_url: settings.smtp_url.clone(),
            from: settings.mail_from.clone(),
            public_url: settings.public_url.clone(),
            smtp_ca_file: settings.smtp_ca_file.clone(),
        });
        mail.start(db.clone(), clock.clone())?;
        let vapid = Arc::new(VapidKey::load(&db, kek.as_deref(), clock.now()).await?);
        let notifications = web::Data::new(Notifications::new(
            db.clone(),
            notifier.clone(),
            clock.clone(),
            notification_settings(&settings),
            kek,
            mail.clone(),
            vapid,
        ));
        notifications.start();
        let matches = web::Data::new(Matches::new(
            db.clone(),
            settings.match_cache_capacity as usize,
            notifier,
            clock.clone(),
            notifications.relay(),
        ));
        matches
            .clone()
            .into_inner()
            .keep_time(Duration::from_secs(settings.clock_sweep_seconds));
        matches.clone().into_inner().keep_bots_playing();
        matches.clone().into_inner().keep_finishing_deletions();
        matches.clone().into_inner().keep_pairing();
        matches.clone().into_inner().keep_noting_vacations();
        let hashing = match settings.password_hashing_concurrency {
            0 => std::thread::available_parallelism().map_or(2, usize::from),
            chosen => chosen as usize,
        };
        let accounts = web::Data::new(Accounts::new(
            db.clone(),
            keys,
            settings.refresh_token_ttl_seconds,
            Passwords::new(hashing),
            Limits {
                logins: RateLimiter::new(settings.login_attempts_per_minute, MINUTE),
                registrations: RateLimiter::new(settings.registrations_per_minute, MINUTE),
                letters: RateLimiter::new(LETTERS_PER_HOUR, HOUR),
                resets: RateLimiter::new(RESETS_PER_HOUR, HOUR),
            },
            clock.clone(),
            mail.clone(),
        ));
        let address = listener.local_addr()?;
        let api = http::openapi();
        let fallback = web::Data::new(Fallback::new(&api));
        let query_names = web::Data::new(http::query_names::QueryNames::new(&api));
        let trusted_proxies = web::Data::new(TrustedProxies(settings.trusted_proxies.clone()));
        let files = Files::plan(&settings);
        let held = web::Data::new(HeldConnections::new(files.held_connections, longest_hold));
        let in_flight = web::Data::new(InFlight::new(settings.max_requests_per_account));
        let (matches_data, held_data) = (matches.clone(), held.clone());
        let match_service = matches.clone().into_inner();
        let cors_origins = settings.cors_allowed_origins.clone();
        let web_client = settings.web_client;
        let metrics_here = settings.metrics_bind.is_none();
        let server = HttpServer::new(move || {
            // The routes come from the same `configure` as the served description (built once
            // above), so the two cannot disagree.
            let (app, _) = App::new()
                .into_utoipa_app()
                .app_data(web::QueryConfig::default().error_handler(http::error::query_error))
                .app_data(held.clone())
                .app_data(in_flight.clone())
                .app_data(trusted_proxies.clone())
                .app_data(accounts.clone())
                .app_data(matches.clone())
                .app_data(notifications.clone())
                .configure(http::configure)
                .split_for_parts();
            // Innermost first. Each layer costs every request a call and a boxed future, so a
            // layer holds all the checks of one stage (docs/benchmarks.md, issue 40).
            app.wrap(middleware::from_fn(http::authenticate::authenticate))
                .wrap(middleware::from_fn(http::screen::refuse_malformed))
                .wrap(http::cors::policy(&cors_origins))
                .wrap(middleware::from_fn(http::cors::mend_answers))
                .wrap_fn(http::headers::add)
                .wrap(TracingLogger::<RequestLog>::new())
                .wrap(middleware::from_fn(http::metrics::time_requests))
                .service(
                    SwaggerUi::new("/docs/{_:.*}")
                        .external_url_unchecked("/openapi.json", api.clone()),
                )
                .route(
                    "/docs",
                    web::get().to(|| async {
                        HttpResponse::PermanentRedirect()
                            .insert_header(("Location", "/docs/"))
                            .finish()
                    }),
                )
                .configure(|config| {
                    if web_client {
                        http::web_client::configure(config);
                    }
                    if metrics_here {
                        http::metrics::configure(config);
                    }
                })
                .app_data(fallback.clone())
                .app_data(query_names.clone())
                .app_data(trusted_proxies.clone())
                .default_service(web::to(
                    |request: HttpRequest, fallback: web::Data<Fallback>| async move {
                        fallback.answer(&request)
                    },
                ))
        })
        .workers(files.workers)
        // Past this many open connections a worker stops accepting (they wait in the kernel's
        // backlog) instead of running out of files and failing every accept.
        .max_connections(files.connections_per_worker)
        .shutdown_timeout(30)
        .listen(listener)?
        .run();
        let metrics = match settings.metrics_bind {
            Some(bind) => Some(metrics_server(
                TcpListener::bind(bind)?,
                matches_data,
                held_data,
            )?),
            None => None,
        };
        Ok(Application {
            server,
            address,
            metrics,
            db,
            matches: match_service,
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

    /// Its match service (for what it counts, e.g. [`Matches::bot_statistics`]).
    pub fn matches(&self) -> Arc<Matches> {
        self.matches.clone()
    }

    /// The address `/metrics` has to itself, if `METRICS_BIND_ADDRESS` gave it one.
    pub fn metrics_address(&self) -> Option<std::net::SocketAddr> {
        self.metrics.as_ref().map(|(_, address)| *address)
    }

    /// Serves until stopped (SIGTERM or Ctrl-C stop it gracefully).
    pub async fn run(self) -> std::io::Result<()> {
        match self.metrics {
            Some((metrics, _)) => {
                // The metrics listener lives as long as the API's: whichever stops first
                // (a signal stops both) ends the process.
                tokio::select! {
                    served = self.server => served,
                    served = metrics => served,
                }
            }
            None => self.server.await,
        }
    }
}

/// `/metrics` alone on `listener`: one worker, no token, no CORS.
fn metrics_server(
    listener: TcpListener,
    matches: web::Data<Matches>,
    held: web::Data<HeldConnections>,
) -> std::io::Result<(Server, std::net::SocketAddr)> {
    let address = listener.local_addr()?;
    let server = HttpServer::new(move || {
        App::new()
            .app_data(matches.clone())
            .app_data(held.clone())
            .configure(http::metrics::configure)
    })
    .workers(1)
    .shutdown_timeout(5)
    .listen(listener)?
    .run();
    Ok((server, address))
}

/// Notification and webhook settings from the server's.
fn notification_settings(settings: &Settings) -> NotificationSettings {
    NotificationSettings {
        retention_seconds: i64::from(settings.notification_retention_days) * 86_400,
        webhooks: WebhookSettings {
            allowed_networks: AllowedNetworks(settings.webhook_allowed_networks.clone()),
            timeout: Duration::from_secs(settings.webhook_timeout_seconds),
            retry_window_seconds: settings.webhook_retry_hours as i64 * 3600,
        },
        public_url: settings
            .public_url
            .as_ref()
            .map(|url| url.as_str().trim_end_matches('/').to_owned()),
    }
}

/// How the process's open files are shared out.
struct Files {
    workers: usize,
    connections_per_worker: usize,
    held_connections: usize,
}

impl Files {
    /// Raises the open-files limit as far as allowed, then keeps files for the database (three
    /// per SQLite connection: the database, its log and its shared memory), the listener and
    /// logs, and room for requests that come and go beside the held ones.
    fn plan(settings: &Settings) -> Files {
        const FOR_THE_PROCESS: u64 = 64;
        const FOR_PASSING_REQUESTS: u64 = 64;
        let limit = process::raise_open_files_limit().unwrap_or(1024);
        let usable = limit
            .saturating_sub(FOR_THE_PROCESS + 3 * u64::from(settings.database.max_connections))
            .max(FOR_PASSING_REQUESTS * 2);
        let configured = u64::from(settings.max_held_connections);
        let held = configured.min(usable - FOR_PASSING_REQUESTS);
        if held < configured {
            tracing::warn!(
                open_files_limit = limit,
                max_held_connections = held,
                "the open-files limit holds fewer long-polls and streams than configured"
            );
        }
        let workers = std::thread::available_parallelism().map_or(2, usize::from);
        Files {
            workers,
            connections_per_worker: (usable as usize / workers).max(1),
            held_connections: held as usize,
        }
    }
}
