//! A ClickHouse server of the test's own: Debian's `clickhouse-server` (18.16 on Debian 12, installed
//! by `scripts/setup`) started on free loopback ports with its config and data in a temporary
//! folder, stopped and removed when the handle drops. No test shares a server, so none sees
//! another's tables.

// Shared by the test crates of analytics, the api and the worker; each uses part of it.
#![allow(dead_code)]

use std::net::TcpListener;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ClickHouse {
    child: Child,
    dir: PathBuf,
    pub http_port: u16,
}

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port()
}

impl ClickHouse {
    /// Starts a server with `extra` (XML elements: `remote_servers`, `macros`, `zookeeper`) in its
    /// config, and waits until it answers.
    pub fn start_with(extra: &str) -> ClickHouse {
        let dir =
            std::env::temp_dir().join(format!("shipmate-ch-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("log")).expect("a temporary folder");
        let (http_port, tcp_port, inter_port) = (free_port(), free_port(), free_port());
        let d = dir.display();
        let config = format!(
            r#"<?xml version="1.0"?>
<yandex>
  <logger><level>warning</level><log>{d}/log/server.log</log><errorlog>{d}/log/error.log</errorlog><console>0</console></logger>
  <listen_host>127.0.0.1</listen_host>
  <http_port>{http_port}</http_port>
  <tcp_port>{tcp_port}</tcp_port>
  <interserver_http_port>{inter_port}</interserver_http_port>
  <interserver_http_host>127.0.0.1</interserver_http_host>
  <path>{d}/data/</path>
  <tmp_path>{d}/tmp/</tmp_path>
  <user_files_path>{d}/user_files/</user_files_path>
  <format_schema_path>{d}/format_schemas/</format_schema_path>
  <users_config>users.xml</users_config>
  <default_profile>default</default_profile>
  <default_database>default</default_database>
  <timezone>UTC</timezone>
  <max_concurrent_queries>100</max_concurrent_queries>
  <mark_cache_size>268435456</mark_cache_size>
  <uncompressed_cache_size>268435456</uncompressed_cache_size>
  {extra}
</yandex>
"#
        );
        std::fs::write(dir.join("config.xml"), config).expect("the config is written");
        std::fs::write(dir.join("users.xml"), USERS).expect("the users are written");
        let child = spawn(&dir);
        let server = ClickHouse {
            child,
            dir,
            http_port,
        };
        server.wait_ready();
        server
    }

    pub fn start() -> ClickHouse {
        Self::start_with("")
    }

    /// `http://127.0.0.1:PORT/DATABASE`, as `SHIPMATE_CLICKHOUSE_URL` takes it.
    pub fn url(&self, database: &str) -> String {
        format!("http://default@127.0.0.1:{}/{database}", self.http_port)
    }

    /// Waits until `/ping` answers `Ok.` (the server opens its ports once its tables are loaded).
    fn wait_ready(&self) {
        use std::io::{Read, Write};
        let deadline = Instant::now() + Duration::from_secs(30);
        let addr = format!("127.0.0.1:{}", self.http_port);
        loop {
            let answer = std::net::TcpStream::connect(&addr).ok().and_then(|mut s| {
                s.write_all(b"GET /ping HTTP/1.0\r\n\r\n").ok()?;
                let mut text = String::new();
                s.read_to_string(&mut text).ok()?;
                Some(text)
            });
            if answer.is_some_and(|a| a.ends_with("Ok.\n")) {
                return;
            }
            let log = std::fs::read_to_string(self.dir.join("log/error.log")).unwrap_or_default();
            assert!(
                Instant::now() < deadline,
                "clickhouse-server did not start:\n{log}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Starts the server again on its ports and data, after `kill`.
    pub fn restart(&mut self) {
        self.kill();
        self.child = spawn(&self.dir);
        self.wait_ready();
    }

    /// Stops the server at once (SIGKILL), as a crash would.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for ClickHouse {
    fn drop(&mut self) {
        self.kill();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn spawn(dir: &std::path::Path) -> Child {
    Command::new("clickhouse-server")
        .arg(format!("--config-file={}/config.xml", dir.display()))
        .current_dir(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("clickhouse-server starts (scripts/setup installs it)")
}

const USERS: &str = r#"<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"#;
