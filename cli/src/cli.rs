//! The command line: every command, flag and its `--help` text (the knowledge base's and the
//! analytics reads' in modules of their own).

mod analytics;
mod feedback;
mod kb;

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use shipmate_types::{ChangelogType, EventType, Role, StringEnum, WebhookFormat};

pub use analytics::*;
pub use feedback::{BoardsCommand, FeedbackCommand, TagsCommand};
pub use kb::{KbCommand, SearchArgs, UploadArgs};

const ENVIRONMENT: &str = "\
Environment:
  SHIPMATE_API_URL     API base URL (default: the one you signed in to, else http://127.0.0.1:8080)
  SHIPMATE_TOKEN       session token to use instead of the stored one (for scripts and CI)
  SHIPMATE_PROJECT     default for --project
  SHIPMATE_CONFIG_DIR  where credentials.json is kept (default: <config dir>/shipmate)
  SHIPMATE_NO_BROWSER  set to 1 to only print the sign-in URL instead of opening a browser";

/// Shipmate from the terminal: projects and their members, feedback, testimonials, changelog, knowledge base and analytics.
#[derive(Parser, Debug)]
#[command(name = "shipmate", version, after_help = ENVIRONMENT)]
pub struct Cli {
    /// Base URL of the Shipmate API.
    #[arg(long, env = "SHIPMATE_API_URL", global = true, value_name = "URL")]
    pub api_url: Option<String>,
    /// Print the raw JSON response instead of tables.
    #[arg(long, global = true)]
    pub json: bool,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Sign in through your browser (password or identity provider) or with --with-token; store the session token.
    Login(LoginArgs),
    /// Revoke the session and forget the stored token.
    Logout,
    /// Show who you are signed in as.
    Whoami,
    /// Create, list and inspect projects; rotate their API keys.
    #[command(subcommand)]
    Projects(ProjectsCommand),
    /// List a project's members, invite people, change roles, remove members.
    #[command(subcommand)]
    Members(MembersCommand),
    /// Add and list webhook endpoints, send test pings, see and retry deliveries (admins).
    #[command(subcommand)]
    Webhooks(WebhooksCommand),
    /// List and moderate feedback (bugs, feature requests, general feedback).
    #[command(subcommand)]
    Feedback(FeedbackCommand),
    /// List, approve and reject testimonials.
    #[command(subcommand)]
    Testimonials(TestimonialsCommand),
    /// Write, publish and list changelog entries.
    #[command(subcommand)]
    Changelog(ChangelogCommand),
    /// Manage knowledge base indexes.
    #[command(subcommand)]
    Indexes(IndexesCommand),
    /// Upload documents to a knowledge base index, search it, delete documents by external id.
    #[command(subcommand)]
    Kb(KbCommand),
    /// Earlier name of `kb upload`, kept for scripts.
    #[command(subcommand, hide = true)]
    Docs(DocsCommand),
    /// Earlier name of `kb search`, kept for scripts.
    #[command(hide = true)]
    Search(SearchArgs),
    /// Show analytics: overview and top pages.
    Stats(StatsArgs),
    /// Analytics beyond `stats`: who is on the site now.
    #[command(subcommand)]
    Analytics(AnalyticsCommand),
    /// Print shell completions (e.g. `shipmate completions bash > ~/.local/share/bash-completion/completions/shipmate`).
    Completions(CompletionsArgs),
}

/// How `login` signs in, shown by `shipmate login --help`.
const LOGIN_HELP: &str = "\
By default the browser opens on the server's first sign-in method (email and password, on the
dashboard's sign-in page); the page hands the session back to this command through a one-time
listener on 127.0.0.1. Set SHIPMATE_NO_BROWSER=1 to only print the URL (open it on this machine).

Without a browser (CI, servers), pipe a personal access token in:
  shipmate login --with-token < token.txt
Make one on the dashboard's account page (Account > Personal access tokens, at
<server>/dashboard/account), or with `POST /v1/auth/tokens` from a signed-in session.";

#[derive(Args, Debug)]
#[command(after_help = LOGIN_HELP)]
pub struct LoginArgs {
    /// Sign-in method: `password` or an identity provider id such as `github` (default: the
    /// first one the server offers).
    #[arg(long, value_name = "ID")]
    pub provider: Option<String>,
    /// Read a personal access token (st_..., made on the dashboard's account page) from standard
    /// input instead of opening a browser.
    #[arg(long, conflicts_with = "provider")]
    pub with_token: bool,
}

/// The project a command works on.
#[derive(Args, Debug, Clone)]
pub struct ProjectArg {
    /// Project id or slug.
    #[arg(long, env = "SHIPMATE_PROJECT", value_name = "ID_OR_SLUG")]
    pub project: String,
}

/// Long lists come a page at a time; by default every page is fetched and printed as one list.
#[derive(Args, Debug, Clone, Copy)]
pub struct PageArgs {
    /// Print only this page (from 1), with where it sits in the whole list.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..))]
    pub page: Option<u32>,
    /// Entries per page, 1 to 100 (default: 50 with --page, else 100 while reading every page).
    #[arg(long, value_parser = clap::value_parser!(u8).range(1..=100))]
    pub per_page: Option<u8>,
}

/// How the whole of a long list is printed, shown by the list commands' `--help`.
pub(crate) const PAGES_HELP: &str = "\
Without --page, every page is fetched and printed as one list; --json then prints it as one page
holding all of it ({\"data\": [...], \"page\": 1, \"per_page\": <count>, \"total\": <count>}).";

#[derive(Subcommand, Debug)]
pub enum ProjectsCommand {
    /// Create a project (you receive its API key).
    Create {
        /// Display name.
        #[arg(long)]
        name: String,
        /// Slug used in public paths: 3 to 48 of a-z, 0-9 and -.
        #[arg(long)]
        slug: String,
    },
    /// List the projects you are a member of, with your role in each.
    List,
    /// Show a project: its publishable key, and its secret API key if you are an owner or admin.
    Show {
        /// Project id or slug.
        project: String,
    },
    /// Issue a new secret API key (or, with --publishable, publishable key); the old one stops
    /// working at once.
    RotateKey {
        /// Project id or slug.
        project: String,
        /// Rotate the publishable key (the one in web pages) instead of the secret key.
        #[arg(long)]
        publishable: bool,
    },
    /// Print the analytics script tag for a site, with the project's publishable key.
    Snippet {
        /// Project id or slug.
        project: String,
    },
}

#[derive(Subcommand, Debug)]
pub enum WebhooksCommand {
    /// List the project's webhook endpoints.
    List {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Add an endpoint; prints its signing secret (`whsec_...`), which receivers verify with.
    Create {
        /// The receiver's http(s) URL (private and loopback addresses are refused).
        url: String,
        /// Event names (repeat or comma-separate; `*` for all).
        #[arg(long = "event", value_delimiter = ',', default_value = "*", value_parser = webhook_event())]
        events: Vec<String>,
        /// What the endpoint is for.
        #[arg(long)]
        description: Option<String>,
        /// `slack` or `discord` to post that tool's message to its incoming-webhook URL.
        #[arg(long, value_parser = one_of::<WebhookFormat>())]
        format: Option<WebhookFormat>,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// The endpoint's recent deliveries, newest first.
    Deliveries {
        /// Webhook id.
        webhook: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Send a `ping` to the endpoint.
    Test {
        /// Webhook id.
        webhook: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Queue a delivery again (same `webhook-id`).
    Retry {
        /// Webhook id.
        webhook: String,
        /// Delivery id.
        delivery: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Delete an endpoint and its delivery log.
    Delete {
        /// Webhook id.
        webhook: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// List the events an endpoint can subscribe to.
    Events,
}

#[derive(Subcommand, Debug)]
pub enum MembersCommand {
    /// List the project's members and their roles (any member may).
    List {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Invite someone by email and print the invite link to send them (admins; owners for `owner`).
    ///
    /// The link is shown once, works once, for 7 days, and only for that email. Inviting the same
    /// email again replaces the pending invite.
    Invite {
        /// Email address of the person to invite.
        email: String,
        #[command(flatten)]
        project: ProjectArg,
        /// Role they get on accepting.
        #[arg(long, default_value_t = Role::Member, value_parser = one_of::<Role>())]
        role: Role,
    },
    /// Change a member's role (admins; only owners touch owners).
    Role {
        /// User id or email of the member.
        user: String,
        /// The new role.
        #[arg(value_parser = one_of::<Role>())]
        role: Role,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Remove a member from the project (admins, or yourself to leave). The last owner stays.
    Remove {
        /// User id or email of the member.
        user: String,
        #[command(flatten)]
        project: ProjectArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum TestimonialsCommand {
    /// List every testimonial (pending, approved, rejected) with totals.
    #[command(after_help = PAGES_HELP)]
    List {
        #[command(flatten)]
        project: ProjectArg,
        #[command(flatten)]
        pages: PageArgs,
    },
    /// Approve a testimonial: it is shown on the project's site.
    Approve {
        /// Testimonial id.
        id: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Reject a testimonial: it is never shown.
    Reject {
        /// Testimonial id.
        id: String,
        #[command(flatten)]
        project: ProjectArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum ChangelogCommand {
    /// Write a changelog entry (a draft unless --publish).
    ///
    /// The Markdown content comes from --file, or else from $VISUAL / $EDITOR on a temporary file.
    New {
        #[command(flatten)]
        project: ProjectArg,
        /// Title of the entry.
        #[arg(long)]
        title: String,
        /// Category of the change.
        #[arg(long = "type", value_name = "TYPE", value_parser = one_of::<ChangelogType>())]
        kind: ChangelogType,
        /// Markdown file with the content.
        #[arg(long, value_name = "PATH")]
        file: Option<PathBuf>,
        /// Publish at once instead of saving a draft.
        #[arg(long)]
        publish: bool,
    },
    /// Publish an entry.
    Publish {
        /// Changelog entry id.
        id: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Return an entry to draft.
    Unpublish {
        /// Changelog entry id.
        id: String,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// List every entry, drafts included.
    #[command(after_help = PAGES_HELP)]
    List {
        #[command(flatten)]
        project: ProjectArg,
        #[command(flatten)]
        pages: PageArgs,
    },
}

#[derive(Subcommand, Debug)]
pub enum IndexesCommand {
    /// Create an index. The project's first index locks its embedding model.
    Create {
        #[command(flatten)]
        project: ProjectArg,
        /// Index name, unique within the project.
        #[arg(long)]
        name: String,
        /// Embedding model (required for the project's first index; see GET /v1/indexes/models).
        #[arg(long, value_name = "MODEL")]
        model: Option<String>,
    },
    /// List the project's indexes.
    List {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Delete an index and all its documents.
    Delete {
        /// Index id or name.
        index: String,
        #[command(flatten)]
        project: ProjectArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum DocsCommand {
    /// Same as `shipmate kb upload`.
    Upload(UploadArgs),
}

#[derive(Args, Debug)]
pub struct CompletionsArgs {
    /// The shell to generate completions for.
    #[arg(value_enum)]
    pub shell: Shell,
}

#[derive(ValueEnum, Clone, Copy, Debug)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
}

/// One of the API's string enums, by its wire name: `--help`, completions and the error for a
/// wrong value list the names the server accepts, taken from the type the server uses.
pub(crate) fn one_of<T: StringEnum + Send + Sync>() -> impl TypedValueParser<Value = T> {
    // The possible-values check runs first, so the parse below always finds the value.
    PossibleValuesParser::new(T::NAMES).try_map(|s| T::parse(&s).ok_or("not a known value"))
}

/// `*` (every event) or an event a webhook can subscribe to; sent as the names, as the API takes.
fn webhook_event() -> PossibleValuesParser {
    PossibleValuesParser::new(
        std::iter::once("*").chain(EventType::subscribable().map(EventType::as_str)),
    )
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn the_command_line_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
