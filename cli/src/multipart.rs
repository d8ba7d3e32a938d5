//! The CLI's file uploads as `multipart/form-data`.

/// A `multipart/form-data` body (RFC 7578), written out here: the CLI sends one file per request
/// (a document, an analytics export) and reqwest's multipart feature would add a dependency for
/// these few lines.
pub struct Multipart {
    boundary: String,
    body: Vec<u8>,
}

impl Multipart {
    pub fn new() -> Self {
        Multipart {
            boundary: format!("shipmate-{:032x}", rand::random::<u128>()),
            body: Vec::new(),
        }
    }

    fn part(mut self, disposition: &str, content_type: Option<&str>, data: &[u8]) -> Self {
        let mut head = format!(
            "--{}\r\nContent-Disposition: form-data; {disposition}\r\n",
            self.boundary
        );
        if let Some(ct) = content_type {
            head.push_str(&format!("Content-Type: {ct}\r\n"));
        }
        head.push_str("\r\n");
        self.body.extend_from_slice(head.as_bytes());
        self.body.extend_from_slice(data);
        self.body.extend_from_slice(b"\r\n");
        self
    }

    pub fn text(self, name: &str, value: &str) -> Self {
        self.part(&format!("name=\"{name}\""), None, value.as_bytes())
    }

    pub fn file(self, name: &str, filename: &str, content_type: &str, data: &[u8]) -> Self {
        // Quotes and line breaks cannot be escaped in a filename parameter; they are replaced.
        let filename: String = filename
            .chars()
            .map(|c| {
                if matches!(c, '"' | '\r' | '\n' | '\\') {
                    '_'
                } else {
                    c
                }
            })
            .collect();
        self.part(
            &format!("name=\"{name}\"; filename=\"{filename}\""),
            Some(content_type),
            data,
        )
    }

    /// The `Content-Type` header and the body.
    pub fn finish(mut self) -> (String, Vec<u8>) {
        self.body
            .extend_from_slice(format!("--{}--\r\n", self.boundary).as_bytes());
        (
            format!("multipart/form-data; boundary={}", self.boundary),
            self.body,
        )
    }
}
