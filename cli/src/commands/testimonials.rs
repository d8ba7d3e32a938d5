//! `shipmate testimonials ...`

use shipmate_types::testimonials::{ModerationDecision, Stats, Testimonial, TestimonialsWithStats};
use shipmate_types::Moderation;

use super::{pages, project_id, seg};
use crate::cli::{PageArgs, ProjectArg, TestimonialsCommand};
use crate::client::Auth;
use crate::ctx::Ctx;
use crate::output::{align_right, one_line, print_table, table, when};

pub async fn run(ctx: &Ctx, command: TestimonialsCommand) -> anyhow::Result<()> {
    match command {
        TestimonialsCommand::List { project, pages } => list(ctx, &project, pages).await,
        TestimonialsCommand::Approve { id, project } => {
            moderate(ctx, &id, &project, Moderation::Approved).await
        }
        TestimonialsCommand::Reject { id, project } => {
            moderate(ctx, &id, &project, Moderation::Rejected).await
        }
    }
}

async fn list(ctx: &Ctx, project: &ProjectArg, asked: PageArgs) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let answer = pages::fetch(
        ctx,
        "/v1/testimonials/all",
        Auth::Session,
        &[("project_id", pid.as_str())],
        asked,
    )
    .await?;
    let footer = pages::footer(&answer, asked);
    ctx.show(&answer, |answer: TestimonialsWithStats| {
        println!("{}", stats_line(&answer.stats));
        let mut t = table(&["ID", "STATUS", "RATING", "AUTHOR", "TESTIMONIAL", "CREATED"]);
        for r in answer.data {
            let author = match r.author_title.filter(|s| !s.is_empty()) {
                Some(title) => format!("{}, {title}", r.author_name),
                None => r.author_name,
            };
            t.add_row(vec![
                r.id.to_string(),
                r.status.to_string(),
                format!("{}/5", r.rating),
                one_line(&author, 40),
                one_line(&r.content, 60),
                when(r.created_at),
            ]);
        }
        align_right(&mut t, &[2]);
        if !t.is_empty() {
            println!();
        }
        print_table(&t, "No testimonials yet.");
        if let Some(footer) = footer {
            println!("{footer}");
        }
        Ok(())
    })
}

/// "3 testimonials: 1 pending, 1 approved, 1 rejected; average rating 4.5 (of approved ones)".
fn stats_line(stats: &Stats) -> String {
    let average = match stats.average_rating {
        Some(avg) => format!("{avg:.1}"),
        None => "n/a".to_owned(),
    };
    format!(
        "{} testimonials: {} pending, {} approved, {} rejected; average rating {average} (of approved ones)",
        stats.total, stats.pending, stats.approved, stats.rejected,
    )
}

async fn moderate(
    ctx: &Ctx,
    id: &str,
    project: &ProjectArg,
    status: Moderation,
) -> anyhow::Result<()> {
    let pid = project_id(&ctx.client, &project.project).await?;
    let updated = ctx
        .client
        .patch(
            &format!("/v1/testimonials/{}", seg(id)),
            Auth::Session,
            &[("project_id", pid.as_str())],
            &ModerationDecision { status },
        )
        .await?;
    ctx.show(&updated, |t: Testimonial| {
        println!("Testimonial {id} {}", t.status);
        Ok(())
    })
}
