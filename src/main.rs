//! The `kings-corner` binary: parse the settings, then serve, migrate or print the OpenAPI.

use clap::Parser;
use kings_corner::config::{Cli, Command};
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
        Command::Migrate => {
            telemetry::init(&settings.log_level, &settings.log_format);
            let db = store::Db::connect(&settings).await?;
            db.migrate().await?;
            tracing::info!("migrations applied");
            Ok(())
        }
        Command::Serve => {
            telemetry::init(&settings.log_level, &settings.log_format);
            let app = startup::Application::build(settings).await?;
            tracing::info!(address = %app.address(), "listening");
            app.run().await?;
            Ok(())
        }
    }
}
