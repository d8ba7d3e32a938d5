use shipmate_worker::settings::WorkerSettings;
use std::io::IsTerminal;
use tokio::sync::watch;

/// Requests and jobs allocate on every core at once: glibc's malloc cost 15 % of the machine in the
/// analytics benchmark (benches/README.md).
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    dotenvy::dotenv().ok();
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| "info,sqlx=warn,ort=warn".into());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        // Colour codes only for a person at a terminal, not in a log file.
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let settings: WorkerSettings = shipmate_config::parse_masked();
    let (tx, rx) = watch::channel(false);
    tokio::spawn(async move {
        shutdown_signal().await;
        tracing::info!("stopping after the batch in hand");
        let _ = tx.send(true);
    });
    shipmate_worker::run(settings, rx).await
}

async fn shutdown_signal() {
    let term = async {
        if let Ok(mut s) = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
        {
            s.recv().await;
        }
    };
    tokio::select! { _ = tokio::signal::ctrl_c() => {}, _ = term => {} }
}
