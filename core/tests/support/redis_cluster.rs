//! A Redis Cluster of six `redis-server` processes on free loopback ports (three masters, a
//! replica each), made with `redis-cli --cluster create`, for the tests that need one. The
//! processes are killed when it is dropped.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

pub struct RedisCluster {
    pub ports: Vec<u16>,
    nodes: Vec<Option<Child>>,
    dir: PathBuf,
}

#[path = "ports.rs"]
mod ports;
pub use ports::free_port;

impl RedisCluster {
    /// Starts six nodes in `dir` and joins them, then waits until every slot is served.
    pub async fn start(dir: &Path) -> RedisCluster {
        std::fs::create_dir_all(dir).expect("cluster dir");
        let mut cluster = RedisCluster {
            ports: Vec::new(),
            nodes: Vec::new(),
            dir: dir.to_owned(),
        };
        for _ in 0..6 {
            let port = free_port();
            cluster.ports.push(port);
            cluster.nodes.push(Some(cluster.spawn(port)));
        }
        for port in &cluster.ports {
            wait_for(*port, "PING", "PONG").await;
        }
        let addrs: Vec<String> = cluster
            .ports
            .iter()
            .map(|p| format!("127.0.0.1:{p}"))
            .collect();
        let made = Command::new("redis-cli")
            .args(["--cluster", "create"])
            .args(&addrs)
            .args(["--cluster-replicas", "1", "--cluster-yes"])
            .stdout(Stdio::null())
            .status()
            .expect("redis-cli runs");
        assert!(made.success(), "redis-cli --cluster create failed");
        for port in &cluster.ports {
            wait_for(*port, "CLUSTER INFO", "cluster_state:ok").await;
        }
        // Writes count once a replica has them: wait until every replica has synced and each
        // master streams to its own (`state=online`; attached, a replica may still be syncing).
        let deadline = Instant::now() + Duration::from_secs(30);
        for port in &cluster.ports {
            while !ask(*port, "INFO replication")
                .await
                .is_ok_and(|i| i.contains("master_link_status:up") || i.contains("state=online"))
            {
                assert!(
                    Instant::now() < deadline,
                    "redis on {port}: replication never came up"
                );
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
        }
        cluster
    }

    /// A short node timeout, so a killed master's replica takes over within a few seconds;
    /// every write on disk before the node answers, as the fault suite's single Redis.
    fn spawn(&self, port: u16) -> Child {
        let log = std::fs::File::create(self.dir.join(format!("redis-{port}.log"))).expect("log");
        Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--cluster-enabled", "yes", "--cluster-node-timeout", "1000"])
            .args(["--cluster-config-file", &format!("nodes-{port}.conf")])
            .args([
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
            ])
            .args(["--appendfilename", &format!("appendonly-{port}.aof")])
            .args(["--appenddirname", &format!("aof-{port}")])
            .arg("--dir")
            .arg(&self.dir)
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log"))
            .stderr(log)
            .spawn()
            .expect("redis-server starts")
    }

    pub fn urls(&self) -> Vec<String> {
        self.ports
            .iter()
            .map(|p| format!("redis://127.0.0.1:{p}"))
            .collect()
    }

    /// The ports of the nodes that are masters now, by asking a live node.
    pub async fn masters(&self) -> Vec<u16> {
        for (i, port) in self.ports.iter().enumerate() {
            if self.nodes[i].is_none() {
                continue;
            }
            if let Ok(nodes) = ask(*port, "CLUSTER NODES").await {
                return nodes
                    .lines()
                    .filter(|l| l.contains("master") && !l.contains("fail"))
                    .filter_map(|l| l.split_whitespace().nth(1))
                    .filter_map(|a| a.split('@').next()?.rsplit(':').next()?.parse().ok())
                    .collect();
            }
        }
        Vec::new()
    }

    /// The port of the replica of the master on `master`.
    pub async fn replica_of(&self, master: u16) -> u16 {
        let nodes = ask(master, "CLUSTER NODES").await.unwrap_or_default();
        let id = |l: &str| l.split_whitespace().next().unwrap_or_default().to_owned();
        let port = |l: &str| {
            let addr = l.split_whitespace().nth(1)?;
            addr.split('@').next()?.rsplit(':').next()?.parse().ok()
        };
        let lines: Vec<&str> = nodes.lines().collect();
        let of = lines
            .iter()
            .find(|l| port(l) == Some(master))
            .map(|l| id(l))
            .expect("the master in CLUSTER NODES");
        lines
            .iter()
            .find(|l| l.contains("slave") && l.split_whitespace().nth(3) == Some(of.as_str()))
            .and_then(|l| port(l))
            .expect("a replica of the master")
    }

    /// Has the replica on `port` take its master's place with nothing lost (`CLUSTER FAILOVER`:
    /// the old master stays, as its replica), and waits until the two are linked again.
    pub async fn fail_over_to(&self, port: u16) {
        ask(port, "CLUSTER FAILOVER")
            .await
            .expect("CLUSTER FAILOVER");
        wait_for(port, "INFO replication", "state=online").await;
    }

    /// Restarts the replica on `port` with its data gone, so it asks its master on `master` for
    /// a full copy, and has the master hold that copy back (`repl-diskless-sync-delay`) until
    /// `release_sync`: the replica stays attached and syncing meanwhile.
    pub async fn resync_held(&mut self, port: u16, master: u16) {
        ask(master, "CONFIG SET repl-diskless-sync-delay 60")
            .await
            .expect("CONFIG SET");
        self.kill(port);
        let _ = std::fs::remove_dir_all(self.dir.join(format!("aof-{port}")));
        let i = self.index(port);
        self.nodes[i] = Some(self.spawn(port));
        wait_for(master, "INFO replication", "state=wait_bgsave").await;
    }

    /// Lets the master on `master` send the copy `resync_held` held back, and waits until its
    /// replica is online.
    pub async fn release_sync(&self, master: u16) {
        ask(master, "CONFIG SET repl-diskless-sync-delay 0")
            .await
            .expect("CONFIG SET");
        wait_for(master, "INFO replication", "state=online").await;
    }

    /// Whether node `port` serves `key`'s slot (another node's answers `MOVED`).
    pub async fn owns(&self, port: u16, key: &str) -> bool {
        ask(port, &format!("EXISTS {key}")).await.is_ok()
    }

    /// Forgets what node `port` has counted (`INFO commandstats`).
    pub async fn reset_counts(&self, port: u16) {
        ask(port, "CONFIG RESETSTAT")
            .await
            .expect("CONFIG RESETSTAT");
    }

    /// How many times node `port` has run `command` (lower case) since its counts were reset.
    pub async fn calls(&self, port: u16, command: &str) -> u64 {
        let stats = ask(port, "INFO commandstats")
            .await
            .expect("INFO commandstats");
        let head = format!("cmdstat_{command}:calls=");
        stats
            .lines()
            .find_map(|l| l.strip_prefix(head.as_str()))
            .and_then(|rest| rest.split(',').next()?.parse().ok())
            .unwrap_or(0)
    }

    /// SIGKILL one node: no chance to flush or pass anything on.
    pub fn kill(&mut self, port: u16) {
        let i = self.index(port);
        if let Some(mut child) = self.nodes[i].take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    fn index(&self, port: u16) -> usize {
        self.ports
            .iter()
            .position(|p| *p == port)
            .expect("a node of the cluster")
    }

    /// Waits until the live nodes have marked the killed master `victim` failed and agree that
    /// every slot is served again (its replica promoted).
    pub async fn wait_failed_over(&self, victim: u16, within: Duration) {
        let deadline = Instant::now() + within;
        loop {
            let mut ok = !self.masters().await.contains(&victim);
            for (i, port) in self.ports.iter().enumerate() {
                if self.nodes[i].is_some() {
                    ok &= ask(*port, "CLUSTER INFO")
                        .await
                        .is_ok_and(|i| i.contains("cluster_state:ok"));
                }
            }
            if ok {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "the cluster did not recover in {within:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

impl Drop for RedisCluster {
    fn drop(&mut self) {
        for child in self.nodes.iter_mut().flatten() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

async fn ask(port: u16, command: &str) -> redis::RedisResult<String> {
    let client = redis::Client::open(format!("redis://127.0.0.1:{port}"))?;
    let mut c = client.get_multiplexed_async_connection().await?;
    let mut parts = command.split_whitespace();
    let mut cmd = redis::cmd(parts.next().unwrap_or_default());
    for p in parts {
        cmd.arg(p);
    }
    cmd.query_async(&mut c).await
}

async fn wait_for(port: u16, command: &str, expected: &str) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !ask(port, command).await.is_ok_and(|a| a.contains(expected)) {
        assert!(
            Instant::now() < deadline,
            "redis on {port}: no {expected} within 20 s"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}
