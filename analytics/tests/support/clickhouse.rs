//! A ClickHouse server of the test's own: Debian's `clickhouse-server` (18.16 on Debian 12, installed
//! by `scripts/setup`) started on free loopback ports with its config and data in a temporary
//! folder, stopped and removed when the handle drops. No test shares a server, so none sees
//! another's tables.

// Shared by the test crates of analytics, the api and the worker; each uses part of it.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct ClickHouse {
    child: Child,
    dir: PathBuf,
    pub http_port: u16,
}

#[path = "../../../core/tests/support/ports.rs"]
mod ports;
use ports::free_port;

/// A server's ports, chosen before any server of a cluster starts (each config lists them all).
#[derive(Clone, Copy)]
pub struct Ports {
    pub http: u16,
    pub tcp: u16,
    pub inter: u16,
}

impl Ports {
    pub fn free() -> Ports {
        Ports {
            http: free_port(),
            tcp: free_port(),
            inter: free_port(),
        }
    }
}

impl ClickHouse {
    /// Starts a server with `extra` (XML elements: `remote_servers`, `macros`, `zookeeper`) in its
    /// config, and waits until it answers.
    pub fn start_with(extra: &str) -> ClickHouse {
        Self::start_on(Ports::free(), extra)
    }

    fn start_on(ports: Ports, extra: &str) -> ClickHouse {
        let dir =
            std::env::temp_dir().join(format!("shipmate-ch-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("log")).expect("a temporary folder");
        let Ports {
            http: http_port,
            tcp: tcp_port,
            inter: inter_port,
        } = ports;
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
        let mut server = ClickHouse {
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
    /// A server that exited (a port taken meanwhile by another process, or still held a moment
    /// after a kill) is started again until the deadline.
    fn wait_ready(&mut self) {
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
            if let Some(status) = self.child.try_wait().ok().flatten() {
                // Said, so that a server that died is seen in the test's output, not only mended.
                let tail: String = log.lines().rev().take(5).collect::<Vec<_>>().join("\n");
                eprintln!(
                    "clickhouse-server on {addr} exited ({status}); starting it again:\n{tail}"
                );
                std::thread::sleep(Duration::from_millis(500));
                self.child = spawn(&self.dir);
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    fn exited(&mut self) -> bool {
        self.child.try_wait().ok().flatten().is_some()
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

/// What `sql` answers on `node` (in `database`), trimmed; a refusal is a failed test.
pub async fn answer(node: &ClickHouse, database: &str, sql: &str) -> String {
    let res = reqwest::Client::new()
        .post(format!(
            "http://127.0.0.1:{}/?database={database}",
            node.http_port
        ))
        .body(sql.to_owned())
        .send()
        .await
        .expect("ClickHouse answers");
    let ok = res.status().is_success();
    let text = res.text().await.expect("a whole answer");
    assert!(ok, "{sql}: {text}");
    text.trim().to_owned()
}

/// A statement that makes `n` events of `project` inside the server, evenly in time over
/// `span_ms` milliseconds from `start_us`, as the PostgreSQL benchmark's events are: 1,000
/// pages, 50 referrers, 10 countries, three devices, a pool of `visitors` a day (fewer than a
/// million; a visitor keeps country, device, browser and OS; hashes change daily), a signup in
/// ten events (one in ten of them with 19.99 EUR of revenue). Milliseconds: `n` times the span
/// in microseconds passes 2^64 at 10 M events.
pub fn generated(project: &str, start_us: i64, span_ms: i64, n: u64, visitors: u64) -> String {
    assert!(
        visitors < 1_000_000,
        "a day's visitor ids are numbered below a million"
    );
    format!(
        "INSERT INTO events (project_id, day, t, visitor, entry, seq, name, path, referrer_host, utm_source,
            utm_medium, utm_campaign, country, device, browser, os, screen_width, prop_keys, prop_values,
            revenue_micros, revenue_currency)
         SELECT toUUID('{project}'), toDate(toDateTime(intDiv(t, 1000000))), t,
                v + intDiv(t, 86400000000) * 1000000, toInt64(number), 0,
                if(number % 10 = 0, 'signup', 'page_view'), concat('/page/', toString(number * 7919 % 1000)),
                if(number % 3 = 0, concat('ref', toString(number % 50), '.example'), ''),
                if(number % 11 = 0, 'newsletter', ''), '', '',
                ['US','GB','DE','FR','IN','BR','JP','CA','AU','NL'][1 + intDiv(v, 36) % 10],
                ['desktop','mobile','tablet'][1 + v % 3], ['Chrome','Safari','Firefox'][1 + intDiv(v, 3) % 3],
                ['Windows','iOS','macOS','Android'][1 + intDiv(v, 9) % 4], NULL, [], [],
                if(number % 100 = 0, 19990000, 0), if(number % 100 = 0, 'EUR', '')
         FROM (SELECT number, toUInt64({start_us} + intDiv(number * {span_ms}, {n}) * 1000) AS t,
                      toInt64((number * 2654435761) % {visitors}) AS v
               FROM system.numbers LIMIT {n})"
    )
}

const USERS: &str = r#"<?xml version="1.0"?>
<yandex>
  <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
  <users><default><password></password><networks><ip>127.0.0.1</ip></networks><profile>default</profile><quota>default</quota></default></users>
  <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas>
</yandex>
"#;

/// A ZooKeeper of the test's own (Debian's `zookeeperd` jars, standalone), for replicated tables
/// and `ON CLUSTER` statements.
pub struct ZooKeeper {
    child: Child,
    dir: PathBuf,
    pub port: u16,
}

impl ZooKeeper {
    pub fn start() -> ZooKeeper {
        let dir =
            std::env::temp_dir().join(format!("shipmate-zk-{}", uuid::Uuid::new_v4().simple()));
        std::fs::create_dir_all(dir.join("data")).expect("a temporary folder");
        let port = free_port();
        std::fs::write(
            dir.join("zoo.cfg"),
            format!(
                "tickTime=500\ndataDir={}/data\nclientPort={port}\nclientPortAddress=127.0.0.1\nadmin.enableServer=false\n",
                dir.display()
            ),
        )
        .expect("the config is written");
        let child = Command::new("java")
            .args([
                "-Xmx256m",
                "-cp",
                "/usr/share/java/zookeeper.jar:/usr/share/java/*",
                "org.apache.zookeeper.server.ZooKeeperServerMain",
            ])
            .arg(dir.join("zoo.cfg"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("java runs ZooKeeper (scripts/setup --clickhouse installs zookeeperd)");
        let deadline = Instant::now() + Duration::from_secs(30);
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            assert!(Instant::now() < deadline, "ZooKeeper did not start");
            std::thread::sleep(Duration::from_millis(100));
        }
        ZooKeeper { child, dir, port }
    }
}

impl Drop for ZooKeeper {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// `shards` shards of `replicas` servers each, as the cluster `name`, with ZooKeeper. Servers are
/// in shard order: shard 1's replicas first.
pub struct Cluster {
    pub nodes: Vec<ClickHouse>,
    // Dropped after the servers (fields drop in order).
    _zookeeper: ZooKeeper,
}

impl Cluster {
    pub fn start(name: &str, shards: usize, replicas: usize) -> Cluster {
        let zookeeper = ZooKeeper::start();
        let ports: Vec<Vec<Ports>> = (0..shards)
            .map(|_| (0..replicas).map(|_| Ports::free()).collect())
            .collect();
        let shard_xml: String = ports
            .iter()
            .map(|replicas| {
                let list: String = replicas
                    .iter()
                    .map(|p| {
                        format!(
                            "<replica><host>127.0.0.1</host><port>{}</port></replica>",
                            p.tcp
                        )
                    })
                    .collect();
                format!("<shard><internal_replication>true</internal_replication>{list}</shard>")
            })
            .collect();
        let mut nodes = Vec::new();
        for (s, replicas) in ports.iter().enumerate() {
            for (r, p) in replicas.iter().enumerate() {
                let extra = format!(
                    "<remote_servers><{name}>{shard_xml}</{name}></remote_servers>
  <zookeeper><node><host>127.0.0.1</host><port>{zk}</port></node></zookeeper>
  <macros><shard>{shard}</shard><replica>s{shard}r{replica}</replica></macros>
  <distributed_ddl><path>/clickhouse/task_queue/ddl</path></distributed_ddl>",
                    zk = zookeeper.port,
                    shard = s + 1,
                    replica = r + 1,
                );
                nodes.push(ClickHouse::start_on(*p, &extra));
            }
        }
        // A node that answered may exit moments later (CI saw node 0 refuse connections after
        // answering, twice): the nodes must all stay up for a while in a row, and one that exits
        // is started again (its log's tail printed).
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut up_since = Instant::now();
        while up_since.elapsed() < Duration::from_secs(2) {
            assert!(
                Instant::now() < deadline,
                "the cluster's nodes kept exiting"
            );
            for node in &mut nodes {
                if node.exited() {
                    node.wait_ready();
                    up_since = Instant::now();
                }
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        Cluster {
            nodes,
            _zookeeper: zookeeper,
        }
    }
}
