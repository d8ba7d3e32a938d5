//! TCP proxies: one in front of Postgres that can make it unreachable (the api and the workers
//! connect through it, so an outage needs no control over the shared Postgres server), and a
//! load balancer in front of several apis.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;

pub struct PgProxy {
    pub port: u16,
    blocked: Arc<AtomicBool>,
    /// Bumped to cut every open connection.
    cut: Arc<watch::Sender<u64>>,
    /// Connections cut by an outage.
    pub dropped: Arc<AtomicU64>,
    /// Connections closed on arrival during an outage.
    pub refused: Arc<AtomicU64>,
}

impl PgProxy {
    pub async fn start(upstream: SocketAddr) -> PgProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy port");
        let port = listener.local_addr().expect("bound").port();
        let proxy = PgProxy {
            port,
            blocked: Arc::new(AtomicBool::new(false)),
            cut: Arc::new(watch::channel(0u64).0),
            dropped: Arc::default(),
            refused: Arc::default(),
        };
        let (blocked, cut, dropped, refused) = (
            proxy.blocked.clone(),
            proxy.cut.clone(),
            proxy.dropped.clone(),
            proxy.refused.clone(),
        );
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                // Subscribed before reading `blocked`: a connection accepted just as an outage
                // starts is either refused here or cut by the outage's signal, never missed.
                let mut outage = cut.subscribe();
                if blocked.load(Ordering::SeqCst) {
                    refused.fetch_add(1, Ordering::Relaxed);
                    continue;
                }
                let dropped = dropped.clone();
                tokio::spawn(async move {
                    let Ok(mut server) = TcpStream::connect(upstream).await else {
                        return;
                    };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = outage.changed() => {
                            dropped.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        proxy
    }

    /// Postgres goes away: open connections are closed, new ones closed on arrival.
    pub fn block(&self) {
        self.blocked.store(true, Ordering::SeqCst);
        self.cut.send_modify(|n| *n += 1);
    }

    pub fn unblock(&self) {
        self.blocked.store(false, Ordering::SeqCst);
    }
}

/// A TCP load balancer in front of several apis: each new connection goes to the next api in
/// turn, and to the one after when that one refuses it (a dead process), as a load balancer's
/// passive health check does.
pub struct Balancer {
    pub port: u16,
}

impl Balancer {
    pub async fn start(upstreams: Vec<SocketAddr>) -> Balancer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("balancer port");
        let port = listener.local_addr().expect("bound").port();
        let next = Arc::new(AtomicU64::new(0));
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let (upstreams, next) = (upstreams.clone(), next.clone());
                tokio::spawn(async move {
                    let first = next.fetch_add(1, Ordering::Relaxed) as usize;
                    for i in 0..upstreams.len() {
                        let to = upstreams[(first + i) % upstreams.len()];
                        if let Ok(mut server) = TcpStream::connect(to).await {
                            let _ = tokio::io::copy_bidirectional(&mut client, &mut server).await;
                            return;
                        }
                    }
                });
            }
        });
        Balancer { port }
    }
}
