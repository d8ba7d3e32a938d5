//! `shipmate kb ask`: the answer written to the terminal as the model writes it (the API's
//! Server-Sent Events), then the sources it cites.

use std::io::Write;

use anyhow::bail;
use serde_json::Value;
use shipmate_types::sse::SseReader;

use super::{index_id, search_body};
use crate::cli::SearchArgs;
use crate::client::{Auth, ClientError, Problem};
use crate::commands::{project_id, seg};
use crate::ctx::Ctx;
use crate::output::{one_line, print_json};

pub async fn run(ctx: &Ctx, args: SearchArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &args.project.project).await?;
    let index = index_id(&ctx.client, &pid, &args.index).await?;
    let path = format!("/v1/indexes/{}/answer", seg(&index));
    let body = search_body(args, "question");
    if ctx.json {
        let answer = ctx.client.post(&path, Auth::InProject(&pid), &body).await?;
        return print_json(&answer.json);
    }
    let mut res = ctx
        .client
        .post_stream(&path, Auth::InProject(&pid), &body)
        .await?;
    let mut events = SseReader::default();
    let mut out = std::io::stdout();
    while let Some(bytes) = res.chunk().await.map_err(|e| ctx.client.transport(&e))? {
        for event in events.feed(&bytes) {
            let Ok(data) = serde_json::from_str::<Value>(&event.data) else {
                continue;
            };
            match event.name.as_str() {
                "delta" => {
                    write!(out, "{}", data["text"].as_str().unwrap_or_default())?;
                    out.flush()?;
                }
                "done" => {
                    writeln!(out)?;
                    print_sources(&data);
                    return Ok(());
                }
                "error" => {
                    writeln!(out)?;
                    let status = data["status"].as_u64().unwrap_or(502) as u16;
                    let problem = Problem::from_response(status, data.to_string().as_bytes(), true);
                    return Err(ClientError::Api(problem).into());
                }
                _ => {}
            }
        }
    }
    bail!("the answer stream ended before its last event")
}

fn print_sources(answer: &Value) {
    let citations = answer["citations"].as_array().cloned().unwrap_or_default();
    if citations.is_empty() {
        return;
    }
    println!("\nSources:");
    for (n, c) in citations.iter().enumerate() {
        // `kb upload` puts the file's path in the metadata; uploads of files keep their name.
        let meta = &c["metadata"];
        let source = ["path", "filename", "title", "url"]
            .iter()
            .find_map(|k| meta[k].as_str())
            .or_else(|| c["document_id"].as_str())
            .unwrap_or_default();
        let text = one_line(c["chunk_content"].as_str().unwrap_or_default(), 70);
        println!(
            "  [{}] {source} (chunk {}): {text}",
            n + 1,
            c["chunk_index"]
        );
    }
}
