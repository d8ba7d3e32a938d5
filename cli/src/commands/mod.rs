//! One module per area; `run` builds the context and dispatches.

pub mod alerts;
pub mod analytics;
pub mod boards;
pub mod changelog;
pub mod feedback;
pub mod imports;
pub mod kb;
pub mod members;
pub mod pages;
pub mod projects;
pub mod segments;
pub mod tags;
pub mod testimonials;
pub mod webhooks;

use anyhow::anyhow;
use clap::CommandFactory;
use shipmate_types::common::List;
use shipmate_types::projects::ProjectView;

use crate::cli::{Cli, Command, Shell};
use crate::client::{Auth, Client};
use crate::ctx::Ctx;
use crate::login;

pub async fn run(cli: Cli) -> anyhow::Result<()> {
    if let Command::Completions(args) = &cli.command {
        completions(args.shell);
        return Ok(());
    }
    let ctx = Ctx::new(cli.api_url.as_deref(), cli.json)?;
    match cli.command {
        Command::Login(args) => login::login(&ctx, args).await,
        Command::Logout => login::logout(&ctx).await,
        Command::Whoami => login::whoami(&ctx).await,
        Command::Projects(c) => projects::run(&ctx, c).await,
        Command::Members(c) => members::run(&ctx, c).await,
        Command::Webhooks(c) => webhooks::run(&ctx, c).await,
        Command::Feedback(c) => feedback::run(&ctx, c).await,
        Command::Testimonials(c) => testimonials::run(&ctx, c).await,
        Command::Changelog(c) => changelog::run(&ctx, c).await,
        Command::Indexes(c) => kb::indexes(&ctx, c).await,
        Command::Kb(c) => kb::run(&ctx, c).await,
        Command::Docs(c) => kb::docs(&ctx, c).await,
        Command::Search(args) => kb::search(&ctx, args).await,
        Command::Stats(args) => analytics::stats(&ctx, args).await,
        Command::Analytics(c) => analytics::run(&ctx, c).await,
        Command::Completions(_) => Ok(()),
    }
}

fn completions(shell: Shell) {
    let shell = match shell {
        Shell::Bash => clap_complete::Shell::Bash,
        Shell::Zsh => clap_complete::Shell::Zsh,
        Shell::Fish => clap_complete::Shell::Fish,
    };
    clap_complete::generate(
        shell,
        &mut Cli::command(),
        "shipmate",
        &mut std::io::stdout(),
    );
}

/// The project named by id or slug, as `GET /v1/projects/:id` answers it (the API key only for
/// owners and admins).
pub async fn resolve_project(client: &Client, id_or_slug: &str) -> anyhow::Result<ProjectView> {
    if uuid::Uuid::parse_str(id_or_slug).is_ok() {
        return Ok(client
            .get_as(&format!("/v1/projects/{id_or_slug}"), Auth::Session, &[])
            .await?);
    }
    let list: List<ProjectView> = client.get_as("/v1/projects", Auth::Session, &[]).await?;
    list.data
        .into_iter()
        .find(|p| p.slug == id_or_slug)
        .ok_or_else(|| {
            anyhow!("you have no project `{id_or_slug}` (give its id or slug; `shipmate projects list` shows them)")
        })
}

/// The id of the project named by id or slug (an id is taken as is; the server checks ownership).
pub async fn project_id(client: &Client, id_or_slug: &str) -> anyhow::Result<String> {
    if uuid::Uuid::parse_str(id_or_slug).is_ok() {
        return Ok(id_or_slug.to_owned());
    }
    Ok(resolve_project(client, id_or_slug).await?.id.to_string())
}

/// A user-given id as one path segment: anything but unreserved characters is percent-encoded,
/// so an argument can never reach another endpoint.
pub fn seg(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
