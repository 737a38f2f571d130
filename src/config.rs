//! Settings, from command-line flags with environment-variable fallbacks and defaults that
//! need nothing. `kings-corner --help` documents every one; bad values stop the server at start.

use std::net::SocketAddr;

use clap::{Args, Parser, Subcommand};

/// kings-corner: Kings in the Corner as persistent, asynchronous matches over HTTP.
#[derive(Debug, Parser)]
#[command(version, about, long_about = None)]
pub struct Cli {
    /// What to do; `serve` when absent.
    #[command(subcommand)]
    pub command: Option<Command>,
    #[command(flatten)]
    #[allow(missing_docs)]
    pub settings: Settings,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Run the HTTP server (applies pending migrations first).
    Serve,
    /// Apply pending database migrations and exit.
    Migrate,
    /// Print the OpenAPI description (JSON) and exit.
    Openapi,
    /// Check an exported match offline: commitment, every event hash, the re-deal and re-play.
    Verify {
        /// The file `GET /v1/matches/{id}/export` returned.
        file: std::path::PathBuf,
        /// Also print the rating change the result implies in its preset's pool
        /// (docs/ratings.md), every seat starting from a new player's rating unless `--prior`
        /// gives it.
        #[arg(long)]
        rate: bool,
        /// A seat's rating before the match, `SEAT=MU,SIGMA` (as a player page shows them);
        /// repeat for each seat. Implies `--rate`.
        #[arg(long = "prior", value_name = "SEAT=MU,SIGMA")]
        priors: Vec<String>,
        /// The moment the export is judged at (RFC 3339): no event may be dated after it, give
        /// or take five minutes of two clocks' skew. Default: this machine's clock; give the
        /// exporting server's time when this machine's clock is behind it.
        #[arg(long, value_name = "RFC3339", value_parser = parse_moment)]
        now: Option<i64>,
    },
    /// Copy the SQLite database into a new FILE while the server runs (or not): a consistent,
    /// compacted copy. PostgreSQL: use pg_dump.
    Backup {
        /// Where the copy goes: a file that does not exist yet.
        file: std::path::PathBuf,
    },
    /// Copy a SQLite database no server holds into an empty PostgreSQL database, then check
    /// the copy (row counts, digests, every ended match verified). Interrupted, the same
    /// command resumes where it stopped.
    Copy(CopyArgs),
    /// Play bots against each other on the engine (no server) and report their strength.
    Tournament(TournamentArgs),
    /// Ratings of rated tables (docs/ratings.md).
    #[command(subcommand)]
    Ratings(RatingsCommand),
    /// Letters (docs/notifications.md, "Letters").
    #[command(subcommand)]
    Mail(MailCommand),
    /// Moderation: the reports players made, and the operators' audit log (docs/operations.md,
    /// "Moderation"). Works on the server's database, beside the running servers.
    #[command(subcommand)]
    Admin(AdminCommand),
}

/// `kings-corner admin …`.
#[derive(Debug, Subcommand)]
pub enum AdminCommand {
    /// List the open reports, oldest first (at most 500): id, when, what about, reason, who
    /// reported, status.
    Reports {
        /// The resolved reports too, after the open ones.
        #[arg(long)]
        all: bool,
    },
    /// Show one report, with the reported message in the talk and play around it.
    Report {
        /// The report's id.
        id: String,
    },
    /// Resolve an open report with an outcome, which its reporter reads; recorded in the audit
    /// log.
    Resolve {
        /// The report's id.
        id: String,
        /// What was decided (1–500 characters): the reporter reads it.
        #[arg(long)]
        outcome: String,
        /// Who you are, as the audit log records you.
        #[arg(long, env = "KC_OPERATOR")]
        operator: String,
    },
    /// The audit log: every operator action, newest first.
    Audit {
        /// How many actions.
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
    },
}

/// `kings-corner mail …`.
#[derive(Debug, Subcommand)]
pub enum MailCommand {
    /// Stop mail to ADDRESS (every account with it) until its owner verifies it again: for the
    /// bounces a mail system reports after the SMTP server accepted a letter (a refusal during
    /// the SMTP transaction stops it by itself). Waiting letters to it are given up.
    Stop {
        /// The address that bounced.
        address: String,
        /// Why, as the owner will read it on their account.
        #[arg(long, default_value = "a letter to this address bounced")]
        reason: String,
    },
}

/// `kings-corner ratings …`.
#[derive(Debug, Subcommand)]
pub enum RatingsCommand {
    /// Recompute every rating from the logs of the rated matches, in the order they were
    /// rated, and compare with the stored ratings and their history: exit 1 on any difference.
    /// Reads only: on PostgreSQL it may run beside the servers; a SQLite file is held by its
    /// one server, so stop it first (or rebuild a backup).
    Rebuild,
}

/// `kings-corner copy`: where from, where to.
#[derive(Debug, Args)]
pub struct CopyArgs {
    /// The SQLite database to copy: `sqlite://FILE`. Stop the server that uses it first.
    #[arg(long)]
    pub from: String,
    /// The PostgreSQL database to fill: `postgres://USER@HOST/DATABASE`, empty (or holding a
    /// copy of the same source that stopped), reached directly rather than through a pooler.
    #[arg(long)]
    pub to: String,
    /// Rows written per transaction.
    #[arg(long, default_value_t = 1000, value_parser = clap::value_parser!(u64).range(1..=10_000))]
    pub batch_rows: u64,
}

/// `kings-corner tournament`: side A against side B over paired deals.
#[derive(Debug, Args)]
pub struct TournamentArgs {
    /// Side A's level: `random`, `basic` or `expert`.
    #[arg(long, value_parser = ["random", "basic", "expert"])]
    pub a: String,
    /// Side B's level.
    #[arg(long, value_parser = ["random", "basic", "expert"])]
    pub b: String,
    /// Hands to play; each deal is played twice, the sides' seats swapped.
    #[arg(long, default_value_t = 1000)]
    pub games: usize,
    /// The rules' preset: `standard`, `draw-first`, `foundations` or `night-one`.
    #[arg(long, default_value = "standard", value_parser = ["standard", "draw-first", "foundations", "night-one"])]
    pub preset: String,
    /// Seats at the table (side A takes the even ones, then the odd ones).
    #[arg(long, default_value_t = 2, value_parser = clap::value_parser!(u8).range(2..=6))]
    pub players: u8,
    /// Seeds the deals and the bots: the same seed plays the same tournament.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads playing at once; all cores by default.
    #[arg(long)]
    pub threads: Option<usize>,
}

/// Every setting of the server. `Debug` hides the secret.
#[derive(Clone, Args)]
pub struct Settings {
    #[command(flatten)]
    #[allow(missing_docs)]
    pub database: DatabaseSettings,

    /// Address and port to listen on.
    #[arg(long, env = "BIND_ADDRESS", default_value = "127.0.0.1:8080")]
    pub bind: SocketAddr,

    /// Log filter, e.g. `info` or `kings_corner=debug,actix_web=info`.
    #[arg(long, env = "LOG_LEVEL", default_value = "info")]
    pub log_level: String,

    /// Log format: `text` or `json`.
    #[arg(long, env = "LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,

    /// Lifetime of access tokens (JWT), in seconds.
    #[arg(long, env = "ACCESS_TOKEN_TTL_SECONDS", default_value_t = 900, value_parser = clap::value_parser!(u64).range(30..=86_400))]
    pub access_token_ttl_seconds: u64,

    /// Lifetime of refresh tokens, in seconds.
    #[arg(long, env = "REFRESH_TOKEN_TTL_SECONDS", default_value_t = 30 * 86_400, value_parser = clap::value_parser!(u64).range(60..=365 * 86_400))]
    pub refresh_token_ttl_seconds: u64,

    /// Token signing secret (at least 32 bytes). When unset, a key is generated on first start
    /// and kept in the database, shared by every server process on it.
    #[arg(long, env = "JWT_SECRET", hide_env_values = true)]
    pub jwt_secret: Option<String>,

    /// Key encryption key (at least 32 bytes): when set, the generated token signing keys are
    /// stored sealed with it, and a copy of the database alone cannot forge tokens.
    #[arg(long, env = "KEY_ENCRYPTION_KEY", hide_env_values = true)]
    pub key_encryption_key: Option<String>,

    /// Login attempts allowed per minute, per client address and per username.
    #[arg(long, env = "LOGIN_ATTEMPTS_PER_MINUTE", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub login_attempts_per_minute: u32,

    /// Registrations allowed per minute, per client address.
    #[arg(long, env = "REGISTRATIONS_PER_MINUTE", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub registrations_per_minute: u32,

    /// Password hashes computed at once (each takes 19 MiB while it runs); more wait their
    /// turn. 0: one per CPU core.
    #[arg(long, env = "PASSWORD_HASHING_CONCURRENCY", default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=256))]
    pub password_hashing_concurrency: u32,

    /// Long-polls and event streams held open at once; more answer 503 with Retry-After. Lowered
    /// at start if the open-files limit could not hold them.
    #[arg(long, env = "MAX_HELD_CONNECTIONS", default_value_t = 1000, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub max_held_connections: u32,

    /// Requests one account may have in flight at once (long-polls and streams aside); more
    /// answer 429 with Retry-After at once, so that no account can take the database pool or
    /// the workers from the others. Keep it below the database pool's size.
    #[arg(long, env = "MAX_REQUESTS_PER_ACCOUNT", default_value_t = 8, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub max_requests_per_account: u32,

    /// Longest a long-poll waits (whatever its `wait`) and an event stream stays open, in
    /// seconds: the stream then ends and its client resumes with `Last-Event-ID`, as after any
    /// dropped connection. Keep it below the idle timeout of any proxy in front.
    #[arg(long, env = "MAX_HOLD_SECONDS", default_value_t = 3600, value_parser = clap::value_parser!(u64).range(1..=86_400))]
    pub max_hold_seconds: u64,

    /// Addresses of proxies whose `X-Forwarded-For` is believed (comma-separated); the client
    /// address of a request from anywhere else is its TCP peer.
    #[arg(long, env = "TRUSTED_PROXIES", value_delimiter = ',')]
    pub trusted_proxies: Vec<std::net::IpAddr>,

    /// Origins of web pages that may call the API from a browser (CORS), comma-separated:
    /// `https://play.example.com,http://localhost:5173`, or `*` for any. None by default.
    /// Requests carry bearer tokens, never cookies, so no origin is sent credentials.
    #[arg(long, env = "CORS_ALLOWED_ORIGINS", value_delimiter = ',', value_parser = parse_origin)]
    pub cors_allowed_origins: Vec<String>,

    /// How often each server process looks for late seats to forfeit and reminders to write,
    /// in seconds.
    #[arg(long, env = "CLOCK_SWEEP_SECONDS", default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub clock_sweep_seconds: u64,

    /// How long each account's notifications are kept, in days (at least 30): a client that
    /// reconnects within that time gets everything it missed.
    #[arg(long, env = "NOTIFICATION_RETENTION_DAYS", default_value_t = 30, value_parser = clap::value_parser!(u32).range(30..=3650))]
    pub notification_retention_days: u32,

    /// Networks webhooks may reach beside the public internet (comma-separated CIDRs or
    /// addresses, e.g. `127.0.0.1/32` for a receiver on this machine; `http://` URLs are
    /// accepted only to these). Private, loopback and link-local addresses are refused unless
    /// listed.
    #[arg(long, env = "WEBHOOK_ALLOWED_NETWORKS", value_delimiter = ',', value_parser = parse_network)]
    pub webhook_allowed_networks: Vec<ipnet::IpNet>,

    /// How long one webhook delivery attempt may take, in seconds.
    #[arg(long, env = "WEBHOOK_TIMEOUT_SECONDS", default_value_t = 10, value_parser = clap::value_parser!(u64).range(1..=60))]
    pub webhook_timeout_seconds: u64,

    /// How long a failing webhook is retried (with exponential backoff) before it is disabled,
    /// in hours (at least 24).
    #[arg(long, env = "WEBHOOK_RETRY_HOURS", default_value_t = 72, value_parser = clap::value_parser!(u64).range(24..=720))]
    pub webhook_retry_hours: u64,

    /// Serve `GET /metrics` (Prometheus) on this address of its own instead of the API's port,
    /// for example `127.0.0.1:9090`, so that it can stay off the public network. Unset: on the
    /// API's port.
    #[arg(long, env = "METRICS_BIND_ADDRESS")]
    pub metrics_bind: Option<SocketAddr>,

    /// Serve the reference web client at `/play` (`true` or `false`).
    #[arg(long, env = "WEB_CLIENT", default_value_t = true, action = clap::ArgAction::Set)]
    pub web_client: bool,

    /// The SMTP server letters go through: `smtp://host:25` (no TLS: a relay on the same
    /// host), `smtp://user:password@host:587?tls=required` (STARTTLS), or
    /// `smtps://user:password@host:465` (implicit TLS). Unset: no mail at all (everything else
    /// works; email settings answer `mail_unavailable`). Never logged.
    #[arg(long, env = "SMTP_URL", hide_env_values = true)]
    pub smtp_url: Option<String>,

    /// A PEM file of certificates to trust for the SMTP server, beside the public roots (a
    /// private certificate authority, or a test's).
    #[arg(long, env = "SMTP_CA_FILE")]
    pub smtp_ca_file: Option<std::path::PathBuf>,

    /// The `From:` of every letter: `Kings Corner <kings@example.com>`.
    #[arg(long, env = "MAIL_FROM")]
    pub mail_from: Option<String>,

    /// The public base URL of this server, for the links in letters and push messages:
    /// `https://kings.example.com` (the web client is at `/play` under it).
    #[arg(long, env = "PUBLIC_URL", value_parser = parse_public_url)]
    pub public_url: Option<url::Url>,

    /// Match states kept in memory (each a few kilobytes).
    #[arg(long, env = "MATCH_CACHE_CAPACITY", default_value_t = 10_000, value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub match_cache_capacity: u64,
}

/// What the store needs to connect: the only settings [`crate::store::Db::connect`] sees.
#[derive(Clone, Args)]
pub struct DatabaseSettings {
    /// Database URL: `sqlite://FILE` (created on first start) or `postgres://…`.
    #[arg(
        long = "database-url",
        env = "DATABASE_URL",
        default_value = "sqlite://kings-corner.db"
    )]
    pub url: String,

    /// Largest number of database connections in the pool.
    #[arg(long = "database-max-connections", value_name = "N", env = "DATABASE_MAX_CONNECTIONS", default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..=1000))]
    pub max_connections: u32,

    /// How long a request waits for a database connection before answering 503, in seconds.
    #[arg(long = "database-timeout-seconds", value_name = "SECONDS", env = "DATABASE_TIMEOUT_SECONDS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=300))]
    pub timeout_seconds: u64,

    /// How long one database statement may run before the request answers 503, in seconds.
    #[arg(long = "statement-timeout-seconds", value_name = "SECONDS", env = "STATEMENT_TIMEOUT_SECONDS", default_value_t = 5, value_parser = clap::value_parser!(u64).range(1..=300))]
    pub statement_timeout_seconds: u64,

    /// What sits between the server and PostgreSQL: `none`, or `transaction` for a pooler in
    /// transaction mode (PgBouncer's `pool_mode = transaction`): every statement then runs in a
    /// transaction, prepared statements are unnamed, and no session setting is relied on.
    #[arg(long = "database-pooler", value_name = "MODE", env = "DATABASE_POOLER", value_enum, default_value_t = Pooler::None)]
    pub pooler: Pooler,

    /// PostgreSQL behind a transaction pooler: a direct URL for what needs a session of its
    /// own (the `LISTEN` for other processes' moves, the migrations' lock). Defaults to
    /// `DATABASE_URL`.
    #[arg(
        long = "database-listen-url",
        value_name = "URL",
        env = "DATABASE_LISTEN_URL"
    )]
    pub listen_url: Option<String>,
}

/// What sits between the server and PostgreSQL ([`DatabaseSettings::pooler`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Pooler {
    /// The server's connections are PostgreSQL sessions of their own.
    None,
    /// A pooler that lends a PostgreSQL session for one transaction at a time.
    Transaction,
}

impl DatabaseSettings {
    /// The URL for what needs a session of its own: `LISTEN`, the migrations' lock.
    pub fn session_url(&self) -> &str {
        self.listen_url.as_deref().unwrap_or(&self.url)
    }

    /// Whether the server talks to a pooler in transaction mode.
    pub fn behind_transaction_pooler(&self) -> bool {
        self.pooler == Pooler::Transaction
    }

    /// Whether the URL names a SQLite file.
    pub fn is_sqlite(&self) -> bool {
        self.url.starts_with("sqlite:")
    }
}

impl std::fmt::Debug for DatabaseSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DatabaseSettings")
            .field("url", &redact_password(&self.url))
            .field("max_connections", &self.max_connections)
            .field("timeout_seconds", &self.timeout_seconds)
            .field("statement_timeout_seconds", &self.statement_timeout_seconds)
            .field("pooler", &self.pooler)
            .field(
                "listen_url",
                &self.listen_url.as_deref().map(redact_password),
            )
            .finish()
    }
}

impl std::fmt::Debug for Settings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Settings")
            .field("database", &self.database)
            .field("bind", &self.bind)
            .field("log_level", &self.log_level)
            .field("log_format", &self.log_format)
            .field("access_token_ttl_seconds", &self.access_token_ttl_seconds)
            .field("refresh_token_ttl_seconds", &self.refresh_token_ttl_seconds)
            .field(
                "jwt_secret",
                &self.jwt_secret.as_ref().map(|_| "<redacted>"),
            )
            .field(
                "key_encryption_key",
                &self.key_encryption_key.as_ref().map(|_| "<redacted>"),
            )
            .field("login_attempts_per_minute", &self.login_attempts_per_minute)
            .field("registrations_per_minute", &self.registrations_per_minute)
            .field(
                "password_hashing_concurrency",
                &self.password_hashing_concurrency,
            )
            .field("match_cache_capacity", &self.match_cache_capacity)
            .field("max_held_connections", &self.max_held_connections)
            .field("max_requests_per_account", &self.max_requests_per_account)
            .field("max_hold_seconds", &self.max_hold_seconds)
            .field("trusted_proxies", &self.trusted_proxies)
            .field("cors_allowed_origins", &self.cors_allowed_origins)
            .field("clock_sweep_seconds", &self.clock_sweep_seconds)
            .field(
                "notification_retention_days",
                &self.notification_retention_days,
            )
            .field("webhook_allowed_networks", &self.webhook_allowed_networks)
            .field("webhook_timeout_seconds", &self.webhook_timeout_seconds)
            .field("webhook_retry_hours", &self.webhook_retry_hours)
            .field("web_client", &self.web_client)
            .field("metrics_bind", &self.metrics_bind)
            .finish()
    }
}

/// A network in CIDR notation, or one address (a network of one).
fn parse_network(text: &str) -> Result<ipnet::IpNet, String> {
    let text = text.trim();
    text.parse::<ipnet::IpNet>()
        .or_else(|_| text.parse::<std::net::IpAddr>().map(ipnet::IpNet::from))
        .map_err(|_| format!("`{text}` is neither a network (10.0.0.0/8) nor an address"))
}

/// `*`, or an origin as a browser sends it: `scheme://host[:port]`, no path.
fn parse_origin(text: &str) -> Result<String, String> {
    let text = text.trim();
    if text == "*" {
        return Ok(text.to_owned());
    }
    let refused =
        || format!("`{text}` is not an origin: write it as https://host or http://host:port, or *");
    let parsed = url::Url::parse(text).map_err(|_| refused())?;
    let bare = matches!(parsed.scheme(), "http" | "https")
        && parsed.host_str().is_some()
        && parsed.path() == "/"
        && !text.ends_with('/')
        && parsed.query().is_none()
        && parsed.username().is_empty();
    if !bare {
        return Err(refused());
    }
    Ok(parsed.origin().ascii_serialization())
}

/// `postgres://user:secret@host/db` → `postgres://user:<redacted>@host/db`.
fn redact_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme_end), Some(at)) if at > scheme_end => {
            let credentials = &url[scheme_end + 3..at];
            match credentials.split_once(':') {
                Some((user, _)) => {
                    format!("{}{user}:<redacted>{}", &url[..scheme_end + 3], &url[at..])
                }
                None => url.to_owned(),
            }
        }
        _ => url.to_owned(),
    }
}

impl Settings {
    /// Checks what clap cannot: the URL scheme and the secret's length.
    pub fn validate(&self) -> Result<(), String> {
        let url = &self.database.url;
        if !(url.starts_with("sqlite:")
            || url.starts_with("postgres://")
            || url.starts_with("postgresql://"))
        {
            return Err(format!(
                "DATABASE_URL must start with sqlite: or postgres:// (got `{}`)",
                url.split(':').next().unwrap_or_default()
            ));
        }
        let is_postgres =
            |url: &str| url.starts_with("postgres://") || url.starts_with("postgresql://");
        if let Some(listen) = &self.database.listen_url
            && !is_postgres(listen)
        {
            return Err("DATABASE_LISTEN_URL must start with postgres://".to_owned());
        }
        if self.database.behind_transaction_pooler() {
            if !is_postgres(url) {
                return Err(
                    "DATABASE_POOLER=transaction needs a postgres:// DATABASE_URL".to_owned(),
                );
            }
            if self.database.listen_url.is_none() {
                return Err(
                    "DATABASE_POOLER=transaction needs DATABASE_LISTEN_URL: a direct \
                    PostgreSQL URL for LISTEN and the migrations, which need a session of their own"
                        .to_owned(),
                );
            }
        }
        if let Some(secret) = &self.jwt_secret
            && secret.len() < 32
        {
            return Err("JWT_SECRET must be at least 32 bytes long".to_owned());
        }
        if let Some(secret) = &self.key_encryption_key
            && secret.len() < 32
        {
            return Err("KEY_ENCRYPTION_KEY must be at least 32 bytes long".to_owned());
        }
        // PUBLIC_URL alone serves Web Push (the VAPID token's contact); mail needs all three.
        if (self.smtp_url.is_some() || self.mail_from.is_some())
            && !(self.smtp_url.is_some() && self.mail_from.is_some() && self.public_url.is_some())
        {
            return Err(
                "mail needs all of SMTP_URL, MAIL_FROM and PUBLIC_URL (or neither SMTP_URL nor MAIL_FROM)"
                    .to_owned(),
            );
        }
        Ok(())
    }
}

/// `PUBLIC_URL`: an absolute http(s) URL with no query or fragment.
fn parse_public_url(text: &str) -> Result<url::Url, String> {
    let url = url::Url::parse(text).map_err(|error| format!("`{text}` is not a URL: {error}"))?;
    if !matches!(url.scheme(), "http" | "https") || url.host_str().is_none() {
        return Err("PUBLIC_URL is an http:// or https:// URL with a host".to_owned());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("PUBLIC_URL has no query or fragment".to_owned());
    }
    Ok(url)
}

/// A `--now` moment: RFC 3339, as Unix seconds.
fn parse_moment(text: &str) -> Result<i64, String> {
    crate::time_source::parse_rfc3339(text)
        .ok_or_else(|| format!("`{text}` is not an RFC 3339 time (2026-12-06T12:00:00Z)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Behind a transaction pooler the server needs PostgreSQL and a direct URL for its
    /// sessions; the direct URL is where LISTEN goes.
    #[test]
    fn a_transaction_pooler_needs_postgres_and_a_listen_url() {
        let settings = |arguments: &[&str]| {
            let mut all = vec!["kings-corner"];
            all.extend(arguments);
            Cli::try_parse_from(all).expect("the flags parse").settings
        };
        let on_sqlite = settings(&["--database-pooler", "transaction"]);
        assert!(on_sqlite.validate().unwrap_err().contains("postgres://"));
        let pooler = "postgres://kc@pgbouncer:6432/kc";
        let no_listen = settings(&["--database-url", pooler, "--database-pooler", "transaction"]);
        assert!(
            no_listen
                .validate()
                .unwrap_err()
                .contains("DATABASE_LISTEN_URL")
        );
        let direct = "postgres://kc@postgres:5432/kc";
        let complete = settings(&[
            "--database-url",
            pooler,
            "--database-pooler",
            "transaction",
            "--database-listen-url",
            direct,
        ]);
        assert_eq!(complete.validate(), Ok(()));
        assert!(complete.database.behind_transaction_pooler());
        assert_eq!(complete.database.session_url(), direct);
        let plain = settings(&["--database-url", direct]);
        assert_eq!(
            plain.database.session_url(),
            direct,
            "without a pooler, LISTEN goes to DATABASE_URL"
        );
        assert!(!plain.database.behind_transaction_pooler());
        let bad_listen = settings(&[
            "--database-url",
            direct,
            "--database-listen-url",
            "sqlite://x",
        ]);
        assert!(bad_listen.validate().is_err());
    }

    /// The operations page's configuration table lists every setting with its variable.
    #[test]
    fn the_operations_page_lists_every_setting() {
        use clap::CommandFactory;
        let page = include_str!("../docs/operations.md");
        let command = Cli::command();
        for argument in command.get_arguments() {
            let (Some(long), Some(env)) = (argument.get_long(), argument.get_env()) else {
                continue;
            };
            let row = format!("| `--{long}` | `{}` |", env.to_string_lossy());
            assert!(
                page.contains(&row),
                "docs/operations.md lacks the row {row}"
            );
        }
    }

    #[test]
    fn cors_origins_are_origins_or_a_star() {
        let parse = |flag: &str| {
            Cli::try_parse_from(["kings-corner", "--cors-allowed-origins", flag])
                .map(|cli| cli.settings.cors_allowed_origins)
        };
        assert_eq!(
            parse("https://play.example.com,http://localhost:5173").unwrap(),
            ["https://play.example.com", "http://localhost:5173"]
        );
        assert_eq!(parse("*").unwrap(), ["*"]);
        for wrong in [
            "play.example.com",
            "https://play.example.com/app",
            "ftp://x.org",
            "https://x.org/",
        ] {
            assert!(parse(wrong).is_err(), "{wrong}");
        }
    }

    #[test]
    fn debug_output_hides_secrets() {
        let mut settings = Cli::try_parse_from(["kings-corner"]).unwrap().settings;
        settings.jwt_secret = Some("super-secret-signing-key-of-32-bytes!".to_owned());
        settings.database.url = "postgres://kings:hunter2@db:5432/kings".to_owned();
        let printed = format!("{settings:?}");
        assert!(
            !printed.contains("super-secret") && !printed.contains("hunter2"),
            "{printed}"
        );
        assert!(printed.contains("postgres://kings:<redacted>@db:5432/kings"));
    }

    #[test]
    fn bad_settings_are_refused_with_a_message() {
        let mut settings = Cli::try_parse_from(["kings-corner"]).unwrap().settings;
        settings.database.url = "mysql://localhost/kings".to_owned();
        assert!(settings.validate().unwrap_err().contains("DATABASE_URL"));
        settings.database.url = "sqlite://x.db".to_owned();
        settings.jwt_secret = Some("short".to_owned());
        assert!(settings.validate().unwrap_err().contains("JWT_SECRET"));
        assert!(Cli::try_parse_from(["kings-corner", "--bind", "not-an-address"]).is_err());
        assert!(Cli::try_parse_from(["kings-corner", "--access-token-ttl-seconds", "0"]).is_err());
        assert!(Cli::try_parse_from(["kings-corner", "--webhook-retry-hours", "23"]).is_err());
        assert!(
            Cli::try_parse_from(["kings-corner", "--notification-retention-days", "29"]).is_err()
        );
        assert!(
            Cli::try_parse_from(["kings-corner", "--webhook-allowed-networks", "localhost"])
                .is_err()
        );
        let allowed = Cli::try_parse_from([
            "kings-corner",
            "--webhook-allowed-networks",
            "127.0.0.1,10.0.0.0/8",
        ])
        .unwrap()
        .settings
        .webhook_allowed_networks;
        assert_eq!(
            allowed,
            [
                "127.0.0.1/32".parse().unwrap(),
                "10.0.0.0/8".parse().unwrap()
            ]
        );
    }
}
