//! The `kings-corner` binary: parse the settings, then serve, migrate, print the OpenAPI, verify
//! an export, back up, copy, play a tournament, or rebuild the ratings.

use clap::Parser;
use kings_corner::config::{Cli, Command, MailCommand, RatingsCommand};
use kings_corner::model::Named;
use kings_corner::{startup, store, telemetry};

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    let settings = cli.settings;
    if let Err(problem) = settings.validate() {
        eprintln!("error: {problem}");
        std::process::exit(2);
    }
    match cli.command.unwrap_or(Command::Serve) {
        Command::Openapi => {
            println!("{}", kings_corner::http::openapi_json());
            Ok(())
        }
        Command::Verify {
            file,
            rate,
            priors,
            now,
        } => {
            let text = std::fs::read_to_string(&file)?;
            let export: kings_corner::matches::export::MatchExport = serde_json::from_str(&text)
                .map_err(|error| {
                    anyhow::anyhow!("{} is not a match export: {error}", file.display())
                })?;
            let now = now.unwrap_or_else(|| {
                kings_corner::time_source::Clock::now(&kings_corner::time_source::SystemClock)
            });
            match kings_corner::matches::export::verify_at(&export, Some(now)) {
                Ok(verified) => {
                    println!(
                        "ok: match {} verified: {} events, {} hand(s), winners {:?}",
                        export.match_id, verified.events, verified.hands, verified.winners
                    );
                    if rate || !priors.is_empty() {
                        match kings_corner::matches::rated::implied(&export, &verified, &priors) {
                            Ok(lines) => lines.iter().for_each(|line| println!("{line}")),
                            Err(problem) => {
                                eprintln!("error: {problem}");
                                std::process::exit(2);
                            }
                        }
                    }
                    Ok(())
                }
                Err(problem) => {
                    eprintln!("FAILED: match {}: {problem}", export.match_id);
                    std::process::exit(1);
                }
            }
        }
        Command::Tournament(args) => {
            let preset = serde_json::from_value(serde_json::json!(args.preset))?;
            let level = |name: &str| {
                kings_corner::bots::Level::from_name(name).expect("clap checked the level")
            };
            let mut tournament = kings_corner::bots::tournament::Tournament::new(
                level(&args.a),
                level(&args.b),
                args.games,
                preset,
                args.players,
            );
            tournament.seed = args.seed;
            if let Some(threads) = args.threads {
                tournament.threads = threads;
            }
            print!("{}", tournament.run());
            Ok(())
        }
        Command::Backup { file } => {
            match kings_corner::backup::run(&settings.database, &file).await {
                Ok(bytes) => {
                    println!("ok: {} written, {bytes} bytes", file.display());
                    Ok(())
                }
                Err(problem) => {
                    eprintln!("error: {problem}");
                    std::process::exit(1);
                }
            }
        }
        Command::Copy(args) => {
            let order = kings_corner::copy::CopyOrder {
                from: args.from,
                to: args.to,
                batch_rows: usize::try_from(args.batch_rows).unwrap_or(usize::MAX),
            };
            match kings_corner::copy::run(&settings.database, &order, |line| println!("{line}"))
                .await
            {
                Ok(report) => {
                    println!("{report}");
                    Ok(())
                }
                Err(problem) => {
                    eprintln!("error: {problem}");
                    std::process::exit(1);
                }
            }
        }
        Command::Ratings(RatingsCommand::Rebuild) => {
            let db = match store::Db::connect_existing(&settings.database).await {
                Ok(db) => db,
                Err(problem) => {
                    // The cause chain on one line (what the database said).
                    eprintln!("error: {:#}", anyhow::Error::from(problem));
                    std::process::exit(1);
                }
            };
            let matches = kings_corner::matches::Matches::new(
                db,
                1,
                kings_corner::live::Notifier::in_process(),
                std::sync::Arc::new(kings_corner::time_source::SystemClock),
                kings_corner::live::Wake::default(),
            );
            let report = matches.rebuild_ratings().await?;
            println!("{report}");
            if !report.differences.is_empty() {
                std::process::exit(1);
            }
            Ok(())
        }
        Command::Mail(MailCommand::Stop { address, reason }) => {
            let db = match store::Db::connect_existing(&settings.database).await {
                Ok(db) => db,
                Err(problem) => {
                    eprintln!("error: {:#}", anyhow::Error::from(problem));
                    std::process::exit(1);
                }
            };
            let now =
                kings_corner::time_source::Clock::now(&kings_corner::time_source::SystemClock);
            let accounts = db.stop_mail_to(&address, &reason, now).await?;
            let shown = kings_corner::mail::address::redact(&address);
            if accounts == 0 {
                eprintln!("error: no account has the address {shown}");
                std::process::exit(1);
            }
            println!("ok: mail to {shown} stopped for {accounts} account(s) until verified again");
            Ok(())
        }
        Command::Admin(command) => {
            match kings_corner::admin::run(command, &settings.database).await {
                Ok(said) => {
                    println!("{said}");
                    Ok(())
                }
                Err(problem) => {
                    eprintln!("error: {problem}");
                    std::process::exit(1);
                }
            }
        }
        Command::Migrate => {
            telemetry::init(&settings.log_level, &settings.log_format);
            let db = store::Db::connect(&settings.database).await?;
            db.migrate().await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Serve => {
            telemetry::init(&settings.log_level, &settings.log_format);
            kings_corner::process::explain_bus_errors();
            let app = match startup::Application::build(settings).await {
                Ok(app) => app,
                Err(error) => {
                    // The cause chain on one line, without a backtrace: it is the reader's
                    // setup, not the code, that needs fixing.
                    eprintln!("error: {error:#}");
                    std::process::exit(1);
                }
            };
            tracing::info!(address = %app.address(), "listening");
            app.run().await?;
            Ok(())
        }
    }
}
