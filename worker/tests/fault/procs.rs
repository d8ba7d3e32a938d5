//! The processes the fault suite starts and stops: its own Redis, the api and the workers.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use shipmate_api::settings::ApiSettings;
use shipmate_api::Application;

/// Set in the api child's environment: its flags, one per line.
pub const API_ARGS_ENV: &str = "SHIPMATE_FAULT_API_ARGS";
/// Set in the api child's environment: where it writes the address it bound.
pub const API_ADDR_ENV: &str = "SHIPMATE_FAULT_API_ADDR_FILE";

/// A child process with its output in a log file; killed when dropped, so a failing test leaves
/// nothing running.
pub struct Proc {
    pub name: String,
    pub log: PathBuf,
    child: Child,
}

impl Proc {
    pub fn spawn(name: &str, mut cmd: Command, log: PathBuf) -> Proc {
        let out = File::create(&log).expect("log file");
        let err = out.try_clone().expect("log file");
        let child = cmd
            .stdin(Stdio::null())
            .stdout(out)
            .stderr(err)
            .spawn()
            .unwrap_or_else(|e| panic!("{name} starts: {e}"));
        Proc {
            name: name.to_owned(),
            log,
            child,
        }
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    pub fn running(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// SIGKILL: no chance to finish or acknowledge anything.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM, then waits (up to 10 s) for a clean exit.
    pub async fn terminate(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.pid().to_string()])
            .status();
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.running() {
            assert!(
                Instant::now() < deadline,
                "{} ignored SIGTERM for 10 s",
                self.name
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        self.kill();
    }
}

#[path = "../../../core/tests/support/ports.rs"]
mod ports;
pub use ports::free_port;

/// The suite's own `redis-server`: append-only file synced on every write, so a restart on the
/// same port and folder keeps every queued job (the api answers 202 only after `XADD` returns).
pub struct Redis {
    pub port: u16,
    dir: PathBuf,
    pub proc: Option<Proc>,
    starts: u32,
}

impl Redis {
    pub async fn start(dir: &Path) -> Redis {
        let mut redis = Redis {
            port: free_port(),
            dir: dir.to_owned(),
            proc: None,
            starts: 0,
        };
        redis.up().await;
        redis
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}", self.port)
    }

    /// Starts the server and waits until it answers PING.
    pub async fn up(&mut self) {
        self.starts += 1;
        let mut cmd = Command::new("redis-server");
        cmd.args(["--port", &self.port.to_string(), "--bind", "127.0.0.1"])
            .args([
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ])
            .arg("--dir")
            .arg(&self.dir);
        let log = self.dir.join(format!("redis-{}.log", self.starts));
        self.proc = Some(Proc::spawn("redis-server", cmd, log));
        let client = redis::Client::open(self.url()).expect("redis url");
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            if let Ok(mut c) = client.get_multiplexed_async_connection().await {
                if redis::cmd("PING")
                    .query_async::<String>(&mut c)
                    .await
                    .is_ok()
                {
                    return;
                }
            }
            assert!(Instant::now() < deadline, "redis-server did not start");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// SIGTERM and wait for the exit (Redis flushes its append-only file on the way out).
    pub async fn down(&mut self) {
        if let Some(mut p) = self.proc.take() {
            p.terminate().await;
        }
    }
}

/// Runs the api in this process: the body of the `api_process` pseudo-test, which the suite runs
/// in a child process (see `main.rs`). It is `shipmate-api`'s `main` without the `.env` read (the
/// parent's environment, `.env` included, is inherited).
pub async fn serve_api(args: &str, addr_file: &str) {
    shipmate_api::telemetry::init();
    let settings =
        ApiSettings::from_args(std::iter::once("shipmate-api").chain(args.lines())).unwrap();
    let app = Application::build(settings).await.expect("the api starts");
    // Written whole, then renamed: the parent never reads half an address.
    let tmp = format!("{addr_file}.tmp");
    std::fs::write(&tmp, app.addr().to_string()).unwrap();
    std::fs::rename(&tmp, addr_file).unwrap();
    tracing::info!(addr = %app.addr(), "shipmate-api listening");
    app.run_until_stopped().await.unwrap();
}

/// Starts the api as a child process and waits until `/healthz` answers; returns it and its base URL.
pub async fn spawn_api(dir: &Path, args: &[String]) -> (Proc, String) {
    let addr_file = dir.join("api.addr");
    let mut cmd = Command::new(std::env::current_exe().expect("the test binary"));
    // libtest runs only the `api_process` pseudo-test, which serves the api from the env vars.
    cmd.args(["api_process", "--exact", "--ignored", "--nocapture"])
        .env(API_ARGS_ENV, args.join("\n"))
        .env(API_ADDR_ENV, &addr_file);
    let mut api = Proc::spawn("shipmate-api", cmd, dir.join("api.log"));
    let deadline = Instant::now() + Duration::from_secs(60);
    let addr = loop {
        if let Ok(addr) = std::fs::read_to_string(&addr_file) {
            break addr;
        }
        assert!(
            api.running() && Instant::now() < deadline,
            "the api did not start; see {}",
            api.log.display()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    let base = format!("http://{addr}");
    let client = reqwest::Client::new();
    while !client
        .get(format!("{base}/healthz"))
        .send()
        .await
        .is_ok_and(|r| r.status().is_success())
    {
        assert!(Instant::now() < deadline, "the api never became healthy");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (api, base)
}

/// Starts a `shipmate-worker` process with the given flags (the binary of this package).
pub fn spawn_worker(dir: &Path, n: u32, args: &[String]) -> Proc {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_shipmate-worker"));
    cmd.args(args);
    Proc::spawn(
        &format!("shipmate-worker #{n}"),
        cmd,
        dir.join(format!("worker-{n}.log")),
    )
}
