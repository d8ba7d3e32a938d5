//! Server-Sent Events read as their bytes arrive (a chat provider's stream, the answer API's
//! stream): whole events out, whatever pieces the bytes came in. Lines end at `\n` (a `\r` before
//! it dropped), which never occurs inside a UTF-8 character, so bytes are cut there safely.

/// One event: its name (`message` when it names none) and its data lines joined by `\n`.
#[derive(Debug, PartialEq)]
pub struct SseEvent {
    pub name: String,
    pub data: String,
}

/// Reads one stream.
#[derive(Default)]
pub struct SseReader {
    partial: Vec<u8>,
    name: Option<String>,
    data: Option<String>,
}

impl SseReader {
    /// Takes the bytes that arrived; answers the events they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        self.partial.extend_from_slice(bytes);
        let mut events = Vec::new();
        while let Some(end) = self.partial.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.partial.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            events.extend(self.line(line.trim_end_matches(['\r', '\n'])));
        }
        events
    }

    /// The stream ended: the event it left open, if it had data.
    pub fn finish(&mut self) -> Option<SseEvent> {
        let rest = std::mem::take(&mut self.partial);
        let rest = String::from_utf8_lossy(&rest);
        let mut event = None;
        if !rest.is_empty() {
            event = self.line(rest.trim_end_matches('\r'));
        }
        event.or_else(|| self.line(""))
    }

    fn line(&mut self, line: &str) -> Option<SseEvent> {
        if line.is_empty() {
            let name = self.name.take();
            return self.data.take().map(|data| SseEvent {
                name: name.unwrap_or_else(|| "message".to_owned()),
                data,
            });
        }
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "event" => self.name = Some(value.to_owned()),
            "data" => match &mut self.data {
                Some(data) => {
                    data.push('\n');
                    data.push_str(value);
                }
                None => self.data = Some(value.to_owned()),
            },
            _ => {} // comments (`: ping`), `id:`, `retry:`
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn event(name: &str, data: &str) -> SseEvent {
        SseEvent {
            name: name.into(),
            data: data.into(),
        }
    }

    #[test]
    fn events_split_anywhere_come_out_whole() {
        let stream = "event: delta\ndata: {\"text\":\"Hé\"}\n\n: ping\n\nevent: done\r\ndata: a\r\ndata: b\r\n\r\ndata: [DONE]\n\n";
        for cut in 0..stream.len() {
            let mut reader = SseReader::default();
            let mut seen = reader.feed(&stream.as_bytes()[..cut]);
            seen.extend(reader.feed(&stream.as_bytes()[cut..]));
            assert_eq!(reader.finish(), None, "cut at {cut}");
            assert_eq!(
                seen,
                [
                    event("delta", "{\"text\":\"Hé\"}"),
                    event("done", "a\nb"),
                    event("message", "[DONE]")
                ],
                "cut at {cut}"
            );
        }
    }

    #[test]
    fn a_stream_ending_inside_an_event_still_gives_it() {
        let mut reader = SseReader::default();
        assert!(reader.feed(b"data: {\"a\":1}\n").is_empty());
        assert_eq!(reader.finish(), Some(event("message", "{\"a\":1}")));
        let mut reader = SseReader::default();
        assert!(reader.feed(b"data: last").is_empty());
        assert_eq!(reader.finish(), Some(event("message", "last")));
    }
}
