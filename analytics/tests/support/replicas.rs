//! The cluster test's view of its replicas: each server's own rows, and a wait until every
//! shard's replicas hold the same ones.

use crate::server::{ClickHouse, Cluster};

/// Rows in one server's own shard of the events.
async fn local_rows(node: &ClickHouse, db: &str) -> u64 {
    let url = format!(
        "http://127.0.0.1:{}/?query=SELECT%20count()%20FROM%20{db}.events_local",
        node.http_port
    );
    let text = reqwest::get(url).await.unwrap().text().await.unwrap();
    text.trim().parse().unwrap_or_else(|_| panic!("{text}"))
}

/// Sharded by visitor: both shards hold events, each shard's replicas the same ones, `n` in all.
/// An insert reaches one replica of each shard and the other fetches it: polled until they agree.
pub async fn replicated(cluster: &Cluster, n: u64) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let mut counts = Vec::new();
        for node in &cluster.nodes {
            counts.push(local_rows(node, "shipmate_cluster").await);
        }
        let settled = counts[0] == counts[1] && counts[2] == counts[3];
        if settled && counts[0] > 0 && counts[2] > 0 && counts[0] + counts[2] == n {
            return;
        }
        let late = std::time::Instant::now() > deadline;
        assert!(
            !late,
            "the shards never held the {n} events once each: {counts:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}
