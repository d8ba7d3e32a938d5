use shipmate_api::settings::{AnalyticsCommand, Cli, Command};
use shipmate_api::{telemetry, Application};

/// Requests and jobs allocate on every core at once: glibc's malloc cost 15 % of the machine in the
/// analytics benchmark (benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    dotenvy::dotenv().ok();
    telemetry::init();
    let cli: Cli = shipmate_config::parse_masked();
    match cli.command {
        Some(Command::Migrate) => {
            shipmate_core::db::create_and_migrate(&cli.settings.common.database_url, 2).await?;
            tracing::info!("migrations applied");
        }
        Some(Command::Openapi) => {
            use utoipa::OpenApi;
            println!(
                "{}",
                shipmate_api::routes::ApiDoc::openapi().to_pretty_json()?
            );
        }
        Some(Command::Analytics {
            command: AnalyticsCommand::CopyToClickhouse { hours },
        }) => shipmate_api::maintenance::copy_to_clickhouse(&cli.settings, hours).await?,
        None => {
            let app = Application::build(cli.settings).await?;
            tracing::info!(addr = %app.addr(), "shipmate-api listening");
            app.run_until_stopped().await?;
        }
    }
    Ok(())
}
