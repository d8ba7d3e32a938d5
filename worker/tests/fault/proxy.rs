//! A TCP proxy in front of Postgres that can make it unreachable: the api and the workers connect
//! through it, so an outage needs no control over the shared Postgres server.

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
