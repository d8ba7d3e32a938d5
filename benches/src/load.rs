//! A lean HTTP/1.1 load generator, as wrk and oha are: each connection is kept alive, writes a
//! request built once, and reads back only the status and a `Content-Length` body. The generator
//! shares the two cores with the service it measures, and reqwest's per-request work (URL parsing,
//! header maps, pooling) took a tenth of the machine at 15,000 requests/s.

use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A complete `POST` request to `url` (`http://host:port/path`) with `headers` and a JSON `body`.
pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> anyhow::Result<Vec<u8>> {
    let url = url::Url::parse(url)?;
    let host = url.host_str().unwrap_or("localhost");
    let port = url.port_or_known_default().unwrap_or(80);
    let mut req = format!(
        "POST {} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
        url.path(),
        body.len()
    );
    for (name, value) in headers {
        req += &format!("{name}: {value}\r\n");
    }
    req += "\r\n";
    req += body;
    Ok(req.into_bytes())
}

/// One kept-alive connection.
pub struct Conn {
    stream: TcpStream,
    buf: Vec<u8>,
}

impl Conn {
    /// Connects to the host and port of `url`.
    pub async fn open(url: &str) -> anyhow::Result<Conn> {
        let url = url::Url::parse(url)?;
        let addr = format!(
            "{}:{}",
            url.host_str().unwrap_or("localhost"),
            url.port_or_known_default().unwrap_or(80)
        );
        let stream = TcpStream::connect(addr).await?;
        stream.set_nodelay(true)?;
        Ok(Conn {
            stream,
            buf: Vec::with_capacity(4096),
        })
    }

    /// Sends `request` (from `post`) and returns the answer's status once its body is read.
    pub async fn send(&mut self, request: &[u8]) -> io::Result<u16> {
        self.stream.write_all(request).await?;
        self.buf.clear();
        loop {
            let mut headers = [httparse::EMPTY_HEADER; 32];
            let mut res = httparse::Response::new(&mut headers);
            if let httparse::Status::Complete(head) = res.parse(&self.buf).map_err(invalid)? {
                let length = res
                    .headers
                    .iter()
                    .find(|h| h.name.eq_ignore_ascii_case("content-length"))
                    .and_then(|h| {
                        std::str::from_utf8(h.value)
                            .ok()?
                            .trim()
                            .parse::<usize>()
                            .ok()
                    })
                    .ok_or_else(|| invalid("an answer without Content-Length"))?;
                let status = res.code.unwrap_or_default();
                while self.buf.len() < head + length {
                    self.fill().await?;
                }
                return Ok(status);
            }
            self.fill().await?;
        }
    }

    async fn fill(&mut self) -> io::Result<()> {
        let mut chunk = [0u8; 4096];
        let n = self.stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        self.buf.extend_from_slice(&chunk[..n]);
        Ok(())
    }
}

fn invalid(e: impl ToString) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, e.to_string())
}

/// `senders` loops posting as fast as answers come, for `seconds`, sender `i` to `urls[i % n]` (as
/// a load balancer spreads connections), each walking `requests` (clients) from its own starting
/// point: the requests answered 202, and their latencies.
pub async fn sustained(
    urls: Vec<String>,
    requests: std::sync::Arc<Vec<Vec<u8>>>,
    senders: usize,
    seconds: u64,
) -> (u64, Vec<std::time::Duration>) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for sender in 0..senders {
        let (url, requests) = (urls[sender % urls.len()].clone(), requests.clone());
        tasks.push(tokio::spawn(async move {
            let mut took = Vec::new();
            let mut conn: Option<Conn> = None;
            let mut next = sender;
            while std::time::Instant::now() < deadline {
                let request = &requests[next % requests.len()];
                next += 1;
                if conn.is_none() {
                    conn = Conn::open(&url).await.ok();
                }
                let Some(c) = conn.as_mut() else { continue };
                let t = std::time::Instant::now();
                match c.send(request).await {
                    Ok(202) => took.push(t.elapsed()),
                    Ok(_) => {}
                    Err(_) => conn = None,
                }
            }
            took
        }));
    }
    let mut took = Vec::new();
    for t in tasks {
        took.extend(t.await.unwrap_or_default());
    }
    (took.len() as u64, took)
}
