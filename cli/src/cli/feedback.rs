//! `shipmate feedback ...`: entries, their boards and tags, and the GitHub connection.

use clap::Subcommand;
use shipmate_types::{
    BoardVisibility, FeedbackModeration, FeedbackSort, FeedbackStatus, FeedbackType,
};

use super::{one_of, PageArgs, ProjectArg, PAGES_HELP};

#[derive(Subcommand, Debug)]
pub enum FeedbackCommand {
    /// List a project's feedback (every moderation state), with submitters' addresses.
    #[command(after_help = PAGES_HELP)]
    List {
        #[command(flatten)]
        project: ProjectArg,
        #[command(flatten)]
        pages: PageArgs,
        /// Only entries of this type.
        #[arg(long = "type", value_name = "TYPE", value_parser = one_of::<FeedbackType>())]
        kind: Option<FeedbackType>,
        /// Only entries with this status.
        #[arg(long, value_parser = one_of::<FeedbackStatus>())]
        status: Option<FeedbackStatus>,
        /// Only entries with this tag (its id; `shipmate feedback tags` lists them).
        #[arg(long)]
        tag: Option<uuid::Uuid>,
        /// `top`, `new`, or by the customer value behind entries: `mrr`, `must_have`.
        #[arg(long, value_parser = one_of::<FeedbackSort>())]
        sort: Option<FeedbackSort>,
        /// Only one board's entries (its slug; `shipmate feedback boards list` lists them).
        #[arg(long)]
        board: Option<String>,
    },
    /// An entry's upvoters: name, email, company (with MRR) and how much it matters to them.
    Voters {
        /// Feedback entry id.
        id: String,
    },
    /// Move an entry to another status.
    ///
    /// Bugs and general feedback: new, in_progress, done, dismissed.
    /// Feature requests: planned, in_progress, shipped, cancelled.
    SetStatus {
        /// Feedback entry id.
        id: String,
        /// The new status.
        #[arg(value_parser = one_of::<FeedbackStatus>())]
        status: FeedbackStatus,
    },
    /// Delete an entry and its votes.
    Delete {
        /// Feedback entry id.
        id: String,
    },
    /// Merge a duplicate into another entry of the same project.
    ///
    /// Its votes move to the other entry (one per person), its voters are told, and it leaves
    /// every list. Prints the entry merged into.
    Merge {
        /// The duplicate's id.
        id: String,
        /// The id of the entry that absorbs it.
        #[arg(long, value_name = "ID")]
        into: uuid::Uuid,
    },
    /// Approve an entry for the public board, hold it as pending, or mark it as spam.
    Moderate {
        /// Feedback entry id.
        id: String,
        /// The moderation state.
        #[arg(value_parser = one_of::<FeedbackModeration>())]
        moderation: FeedbackModeration,
    },
    /// List an approved entry's comments, oldest first (members' comments are official).
    Comments {
        /// Feedback entry id.
        id: String,
    },
    /// Link an entry to GitHub issues (replacing its links; none removes them). Closing or
    /// reopening a linked issue moves the entry once GitHub is connected (`github-connect`).
    Link {
        /// Feedback entry id.
        id: String,
        /// `https://github.com/<owner>/<repo>/issues/<n>`, up to 20.
        urls: Vec<String>,
    },
    /// Set an entry's tags (replacing them; none removes them).
    Tag {
        /// Feedback entry id.
        id: String,
        /// Tag ids of the entry's project, up to 20.
        tags: Vec<uuid::Uuid>,
    },
    /// Move an entry to another board of its project.
    Move {
        /// Feedback entry id.
        id: String,
        /// The board's slug.
        board: String,
    },
    /// The project's boards: list, create (`--visibility public|private|segment`, `--segment
    /// plan=enterprise`) or delete (`--move-to` for a board with entries).
    Boards {
        #[command(subcommand)]
        command: BoardsCommand,
    },
    /// The project's tags: list, create (`--name`, `--color '#rrggbb'`) or delete.
    Tags {
        #[command(subcommand)]
        command: TagsCommand,
    },
    /// Connect GitHub (or make a new secret): prints the payload URL and secret for the
    /// repository's webhook settings (content type application/json, the "Issues" event).
    GithubConnect {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Disconnect GitHub: its deliveries are refused from now on; links stay.
    GithubDisconnect {
        #[command(flatten)]
        project: ProjectArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum TagsCommand {
    /// The project's tags, by name.
    List {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Add a tag; prints its id.
    Create {
        /// 1 to 40 characters, unique in the project.
        #[arg(long)]
        name: String,
        /// `#rrggbb` (grey when left out).
        #[arg(long)]
        color: Option<String>,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Delete a tag (entries keep their other tags).
    Delete {
        /// Tag id.
        tag: String,
        #[command(flatten)]
        project: ProjectArg,
    },
}

#[derive(Subcommand, Debug)]
pub enum BoardsCommand {
    /// The project's boards, the default board first.
    List {
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Add a board; prints its id.
    Create {
        /// 1 to 80 characters.
        #[arg(long)]
        name: String,
        /// 3 to 48 of a-z, 0-9 and -, unique in the project (its page: /f/<project>/b/<slug>).
        #[arg(long)]
        slug: String,
        /// `public` (the default), `private` (the team only) or `segment`.
        #[arg(long, value_parser = one_of::<BoardVisibility>())]
        visibility: Option<BoardVisibility>,
        /// For segment boards: `attribute=value` an end user's identify token must carry
        /// (repeatable; numbers are numbers).
        #[arg(long = "segment", value_name = "KEY=VALUE")]
        segment: Vec<String>,
        #[command(flatten)]
        project: ProjectArg,
    },
    /// Delete a board (never the default one).
    Delete {
        /// Board id.
        board: String,
        /// The id of the board that takes its entries (needed when it has any).
        #[arg(long, value_name = "BOARD_ID")]
        move_to: Option<String>,
        #[command(flatten)]
        project: ProjectArg,
    },
}
