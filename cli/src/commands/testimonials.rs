//! `shipmate testimonials ...`

use serde_json::{json, Value};

use super::{project_id, seg, Ctx};
use crate::cli::{ProjectArg, TestimonialsCommand};
use crate::client::Auth;
use crate::output::{align_right, items, one_line, print_json, print_table, table, text, when};

pub async fn run(ctx: &Ctx, command: TestimonialsCommand) -> anyhow::Result<()> {
    match command {
        TestimonialsCommand::List { project } => list(ctx, &project).await,
        TestimonialsCommand::Approve { id, project } => {
            moderate(ctx, &id, &project, "approved").await
        }
        TestimonialsCommand::Reject { id, project } => {
            moderate(ctx, &id, &project, "rejected").await
        }
    }
}

async fn list(ctx: &Ctx, project: &ProjectArg) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let answer = ctx
        .client
        .get(
            "/v1/testimonials/all",
            Auth::Session,
            &[("project_id", pid.as_str())],
        )
        .await?;
    if ctx.json {
        return print_json(&answer);
    }
    println!("{}", stats_line(&answer["stats"]));
    let mut t = table(&["ID", "STATUS", "RATING", "AUTHOR", "TESTIMONIAL", "CREATED"]);
    for r in items(&answer, "data") {
        let author = match r["author_title"].as_str().filter(|s| !s.is_empty()) {
            Some(title) => format!("{}, {title}", text(&r["author_name"])),
            None => text(&r["author_name"]),
        };
        t.add_row(vec![
            text(&r["id"]),
            text(&r["status"]),
            format!("{}/5", text(&r["rating"])),
            one_line(&author, 40),
            one_line(&text(&r["content"]), 60),
            when(&r["created_at"]),
        ]);
    }
    align_right(&mut t, &[2]);
    if !t.is_empty() {
        println!();
    }
    print_table(&t, "No testimonials yet.");
    Ok(())
}

/// "3 testimonials: 1 pending, 1 approved, 1 rejected; average rating 4.5 (of approved ones)".
fn stats_line(stats: &Value) -> String {
    let average = match stats["average_rating"].as_f64() {
        Some(avg) => format!("{avg:.1}"),
        None => "n/a".to_owned(),
    };
    format!(
        "{} testimonials: {} pending, {} approved, {} rejected; average rating {average} (of approved ones)",
        text(&stats["total"]),
        text(&stats["pending"]),
        text(&stats["approved"]),
        text(&stats["rejected"]),
    )
}

async fn moderate(ctx: &Ctx, id: &str, project: &ProjectArg, status: &str) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let updated = ctx
        .client
        .patch(
            &format!("/v1/testimonials/{}", seg(id)),
            Auth::Session,
            &[("project_id", pid.as_str())],
            &json!({ "status": status }),
        )
        .await?;
    if ctx.json {
        return print_json(&updated);
    }
    println!("Testimonial {id} {}", text(&updated["status"]));
    Ok(())
}
