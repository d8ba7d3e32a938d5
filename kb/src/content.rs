//! Content types: the visible text of HTML (headings kept as Markdown headings, so the
//! Markdown-aware chunker keeps sections together), the text of PDFs, and the files the upload
//! takes.

use scraper::{ElementRef, Html, Node};
use shipmate_types::ContentType;

/// What an uploaded file holds, by its name's extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Text(ContentType),
    Pdf,
}

/// The kind of a file named `name`: `.md`/`.markdown`, `.txt`, `.html`/`.htm` or `.pdf`.
pub fn file_kind(name: &str) -> Option<FileKind> {
    let ext = name.rsplit_once('.')?.1.to_ascii_lowercase();
    Some(match ext.as_str() {
        "md" | "markdown" => FileKind::Text(ContentType::Markdown),
        "txt" => FileKind::Text(ContentType::Plain),
        "html" | "htm" => FileKind::Text(ContentType::Html),
        "pdf" => FileKind::Pdf,
        _ => return None,
    })
}

/// The text to chunk for content of this type: HTML becomes Markdown, the rest stays as sent.
pub fn to_text(content: String, kind: ContentType) -> String {
    match kind {
        ContentType::Html => html_to_markdown(&content),
        ContentType::Markdown | ContentType::Plain => content,
    }
}

/// Elements whose text a reader never sees.
const HIDDEN: [&str; 10] = [
    "head", "script", "style", "noscript", "template", "svg", "iframe", "object", "canvas", "math",
];
/// Elements that start a new block of text.
const BLOCKS: [&str; 24] = [
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "nav",
    "aside",
    "ul",
    "ol",
    "table",
    "tr",
    "blockquote",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "form",
    "fieldset",
    "address",
    "details",
    "summary",
];

/// The visible text of an HTML document or fragment as Markdown: headings `h1`-`h6` become `#`
/// headings, list items `- ` lines, `pre` a fenced block; scripts, styles, the head and elements
/// marked `hidden` are dropped.
pub fn html_to_markdown(html: &str) -> String {
    let doc = Html::parse_document(html);
    let mut out = Writer::default();
    out.element(doc.root_element());
    tidy(&out.text)
}

#[derive(Default)]
struct Writer {
    text: String,
    in_pre: usize,
}

impl Writer {
    fn element(&mut self, el: ElementRef) {
        let name = el.value().name();
        if HIDDEN.contains(&name)
            || el.value().attr("hidden").is_some()
            || el.value().attr("aria-hidden") == Some("true")
        {
            return;
        }
        let heading = match name.as_bytes() {
            [b'h', n @ b'1'..=b'6'] => Some(usize::from(n - b'0')),
            _ => None,
        };
        if let Some(level) = heading {
            self.block();
            self.text.push_str(&"#".repeat(level));
            self.text.push(' ');
            self.children(el);
            self.block();
            return;
        }
        match name {
            "br" => self.text.push('\n'),
            "hr" => self.block(),
            "li" => self.text.push_str("\n- "),
            "pre" => {
                self.block();
                self.text.push_str("```\n");
                self.in_pre += 1;
                self.children(el);
                self.in_pre -= 1;
                self.text.push_str("\n```");
                self.block();
                return;
            }
            "td" | "th" => self.text.push(' '),
            n if BLOCKS.contains(&n) => self.block(),
            _ => {}
        }
        self.children(el);
        if BLOCKS.contains(&name) {
            self.block();
        }
    }

    fn children(&mut self, el: ElementRef) {
        for child in el.children() {
            if let Some(e) = ElementRef::wrap(child) {
                self.element(e);
            } else if let Node::Text(t) = child.value() {
                self.push_text(t);
            }
        }
    }

    fn push_text(&mut self, t: &str) {
        if self.in_pre > 0 {
            self.text.push_str(t);
            return;
        }
        // Runs of whitespace are one space, as a browser shows them.
        let mut last_space = self.text.ends_with([' ', '\n']) || self.text.is_empty();
        for c in t.chars() {
            if c.is_whitespace() {
                if !last_space {
                    self.text.push(' ');
                }
                last_space = true;
            } else {
                self.text.push(c);
                last_space = false;
            }
        }
    }

    fn block(&mut self) {
        self.text.push_str("\n\n");
    }
}

/// Trailing spaces gone, at most one blank line in a row, no blank start or end.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.lines() {
        let line = line.trim_end();
        // Indentation from the source's layout means nothing outside `pre` fences; Markdown
        // would read four spaces as code.
        let line = if line.trim_start().starts_with('-') || line.trim_start().starts_with('#') {
            line.trim_start()
        } else {
            line
        };
        if line.trim().is_empty() {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
    }
    out
}

/// Why a PDF gave no text.
#[derive(Debug, PartialEq, Eq)]
pub enum PdfError {
    /// The file is not a PDF this reader can open (damaged, encrypted, ...).
    Unreadable(String),
    /// It opens, but has no text to extract (scanned pages, images only).
    NoText,
}

/// The text of a PDF's pages, paragraphs separated by blank lines.
pub fn pdf_text(bytes: &[u8]) -> Result<String, PdfError> {
    // The extractor panics on some malformed files: a bad upload must not take the request's
    // thread down with it.
    let extracted = std::panic::catch_unwind(|| pdf_extract::extract_text_from_mem(bytes))
        .map_err(|_| PdfError::Unreadable("the file is damaged".into()))?
        .map_err(|e| PdfError::Unreadable(e.to_string()))?;
    let text = tidy(&extracted);
    if text.trim().is_empty() {
        Err(PdfError::NoText)
    } else {
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_keeps_visible_text_and_headings_as_markdown() {
        let html = r#"<!doctype html><html><head><title>T</title><style>p{color:red}</style>
            <script>var secret = 1;</script></head><body>
            <h1>Install</h1><p>Run   the
            installer.</p><div hidden>gone</div><h2>Linux <em>only</em></h2>
            <ul><li>one</li><li>two</li></ul><script>alert(2)</script><pre>a  b
c</pre></body></html>"#;
        let md = html_to_markdown(html);
        assert_eq!(
            md,
            "# Install\n\nRun the installer.\n\n## Linux only\n\n- one\n- two\n\n```\na  b\nc\n```"
        );
    }

    #[test]
    fn files_are_known_by_extension() {
        assert_eq!(
            file_kind("a.MD"),
            Some(FileKind::Text(ContentType::Markdown))
        );
        assert_eq!(file_kind("x.htm"), Some(FileKind::Text(ContentType::Html)));
        assert_eq!(file_kind("r.pdf"), Some(FileKind::Pdf));
        assert_eq!(file_kind("logo.png"), None);
        assert_eq!(file_kind("README"), None);
    }

    #[test]
    fn garbage_is_an_unreadable_pdf() {
        assert!(matches!(
            pdf_text(b"not a pdf at all"),
            Err(PdfError::Unreadable(_))
        ));
    }
}
