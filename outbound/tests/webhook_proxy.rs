//! The webhook client ignores proxy settings from the environment: a proxy would resolve and
//! connect to the receiver itself, past the client's address checks. A test binary of its own,
//! with this one test, so the variables it sets reach no other test.

// Test code: a failed unwrap is a failed test.
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use shipmate_outbound::net::webhook_client;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

#[tokio::test]
async fn deliveries_go_straight_to_the_receiver_whatever_the_proxy_variables_say() {
    // A proxy that is not there: a client that used it could not deliver.
    let dead = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let dead_url = format!("http://{}", dead.local_addr().unwrap());
    drop(dead);
    for var in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        std::env::set_var(var, &dead_url);
    }
    for var in ["NO_PROXY", "no_proxy"] {
        std::env::remove_var(var);
    }

    let receiver = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/hook", receiver.local_addr().unwrap());
    let served = tokio::spawn(async move {
        let (mut conn, _) = receiver.accept().await.unwrap();
        let mut buf = vec![0u8; 4096];
        let n = conn.read(&mut buf).await.unwrap();
        conn.write_all(b"HTTP/1.1 204 No Content\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        String::from_utf8_lossy(&buf[..n]).into_owned()
    });

    let client = webhook_client(&["127.0.0.1".into()]);
    let res = client.post(&url).body("{}").send().await.unwrap();
    assert_eq!(res.status(), reqwest::StatusCode::NO_CONTENT);
    let request = tokio::time::timeout(Duration::from_secs(5), served)
        .await
        .unwrap()
        .unwrap();
    // Straight to the receiver: the origin-form path, not a proxy's absolute URL.
    assert!(request.starts_with("POST /hook HTTP/1.1\r\n"), "{request}");
}
