//! A PostgreSQL primary and a streaming replica of it, made for one test on free ports:
//! `initdb`, then `pg_basebackup -R -X stream`, both run with `pg_ctl` (as `postgres` when the
//! tests run as root: PostgreSQL refuses to run as root). Both are stopped when dropped.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

const BIN: &str = "/usr/lib/postgresql/15/bin";

pub struct PgPair {
    base: PathBuf,
    pub primary: u16,
    pub replica: u16,
}

#[path = "../../../core/tests/support/ports.rs"]
mod ports;
use ports::free_port;

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| o.stdout.starts_with(b"0\n"))
}

/// `bin` as the `postgres` user when this process is root.
fn pg(bin: &str) -> Command {
    let path = format!("{BIN}/{bin}");
    if is_root() {
        let mut cmd = Command::new("runuser");
        cmd.args(["-u", "postgres", "--", &path]);
        cmd
    } else {
        Command::new(path)
    }
}

fn run(mut cmd: Command, what: &str) {
    let out = cmd.stdin(Stdio::null()).output().expect(what);
    assert!(
        out.status.success(),
        "{what} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

impl PgPair {
    pub fn start() -> PgPair {
        let base =
            std::env::temp_dir().join(format!("shipmate-pg-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(&base).expect("a temporary folder");
        if is_root() {
            let mut chown = Command::new("chown");
            chown.arg("postgres:").arg(&base);
            run(chown, "chown");
        }
        let pair = PgPair {
            primary: free_port(),
            replica: free_port(),
            base,
        };
        let primary = pair.base.join("primary");
        let mut init = pg("initdb");
        init.args(["--auth=trust", "--username=postgres", "--no-sync", "-D"])
            .arg(&primary);
        run(init, "initdb");
        pair.ctl(&primary, pair.primary, "start");
        let mut backup = pg("pg_basebackup");
        backup
            .args([
                "-h",
                "127.0.0.1",
                "-p",
                &pair.primary.to_string(),
                "-U",
                "postgres",
            ])
            .args(["-R", "-X", "stream", "-D"])
            .arg(pair.base.join("replica"));
        run(backup, "pg_basebackup");
        pair.ctl(&pair.base.join("replica"), pair.replica, "start");
        pair
    }

    fn ctl(&self, data: &Path, port: u16, action: &str) {
        let opts = format!(
            "-p {port} -c listen_addresses=127.0.0.1 -c unix_socket_directories={} -c fsync=off",
            self.base.display()
        );
        let mut ctl = pg("pg_ctl");
        ctl.args(["-w", "-D"])
            .arg(data)
            .arg("-l")
            .arg(data.with_extension("log"))
            .args(["-o", &opts, "-m", "immediate", action]);
        // `-m` only matters to `stop`: a test stops at once, with no checkpoint.
        run(ctl, action);
    }

    pub fn url(port: u16, db: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{port}/{db}")
    }

    /// Stops the replica at once (`-m immediate`).
    pub fn stop_replica(&self) {
        self.ctl(&self.base.join("replica"), self.replica, "stop");
    }
}

impl Drop for PgPair {
    fn drop(&mut self) {
        for dir in ["replica", "primary"] {
            let mut ctl = pg("pg_ctl");
            ctl.arg("-D")
                .arg(self.base.join(dir))
                .args(["-m", "immediate", "stop"]);
            let _ = ctl.stdout(Stdio::null()).stderr(Stdio::null()).status();
        }
        let _ = std::fs::remove_dir_all(&self.base);
    }
}
