//! `shipmate stats` and `shipmate analytics ...`: the reads, their ranges and filters.

use clap::builder::PossibleValuesParser;
use clap::{Args, Subcommand};
use shipmate_types::analytics::Period;

use super::{one_of, ProjectArg};

#[derive(Args, Debug)]
pub struct StatsArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    #[command(flatten)]
    pub range: RangeArgs,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Print one read of the period as the server's CSV instead (`pages` when no read is named).
    #[arg(long, value_name = "READ", num_args = 0..=1, default_missing_value = "pages",
        value_parser = PossibleValuesParser::new(READS))]
    pub csv: Option<String>,
}

/// The analytics reads, as `--csv` and `shipmate analytics` name them.
pub const READS: [&str; 10] = [
    "overview",
    "pages",
    "referrers",
    "countries",
    "devices",
    "events",
    "timeseries",
    "utm",
    "entry-pages",
    "exit-pages",
];

/// The window of a read: a period ending today, or `--from`/`--to`.
#[derive(Args, Debug, Clone)]
pub struct RangeArgs {
    /// Time window (ignored with --from and --to).
    #[arg(long, default_value_t = Period::default(), value_parser = one_of::<Period>())]
    pub period: Period,
    /// First day (YYYY-MM-DD, UTC, inclusive); needs --to.
    #[arg(long, requires = "to")]
    pub from: Option<chrono::NaiveDate>,
    /// Last day (YYYY-MM-DD, UTC, inclusive); needs --from.
    #[arg(long, requires = "from")]
    pub to: Option<chrono::NaiveDate>,
}

/// The reads' filters: exact values, combined with AND (the server checks them).
#[derive(Args, Debug, Clone, Default)]
pub struct FilterArgs {
    /// Page path, e.g. /pricing.
    #[arg(long)]
    pub page: Option<String>,
    /// Referrer host, e.g. news.ycombinator.com.
    #[arg(long)]
    pub referrer: Option<String>,
    /// Two-letter country code.
    #[arg(long)]
    pub country: Option<String>,
    /// desktop, mobile or tablet.
    #[arg(long)]
    pub device: Option<String>,
    #[arg(long)]
    pub browser: Option<String>,
    #[arg(long)]
    pub os: Option<String>,
    #[arg(long)]
    pub utm_source: Option<String>,
    #[arg(long)]
    pub utm_medium: Option<String>,
    #[arg(long)]
    pub utm_campaign: Option<String>,
    /// Event name (page_view for page views).
    #[arg(long)]
    pub event: Option<String>,
    /// A saved segment's id: its filters are added to these.
    #[arg(long)]
    pub segment: Option<String>,
}

impl RangeArgs {
    pub fn query(&self) -> Vec<(&'static str, String)> {
        match (self.from, self.to) {
            (Some(from), Some(to)) => vec![("from", from.to_string()), ("to", to.to_string())],
            _ => vec![("period", self.period.to_string())],
        }
    }
}

impl FilterArgs {
    /// The filters and the segment, as query parameters.
    pub fn query(&self) -> Vec<(&'static str, String)> {
        let mut q = self.filters();
        q.extend(self.segment.clone().map(|s| ("segment", s)));
        q
    }

    /// The filters alone, by their names.
    pub fn filters(&self) -> Vec<(&'static str, String)> {
        [
            ("page", &self.page),
            ("referrer", &self.referrer),
            ("country", &self.country),
            ("device", &self.device),
            ("browser", &self.browser),
            ("os", &self.os),
            ("utm_source", &self.utm_source),
            ("utm_medium", &self.utm_medium),
            ("utm_campaign", &self.utm_campaign),
            ("event", &self.event),
        ]
        .into_iter()
        .filter_map(|(k, v)| v.clone().map(|v| (k, v)))
        .collect()
    }
}

#[derive(Subcommand, Debug)]
pub enum AnalyticsCommand {
    /// Visitors of the last 5 minutes, page views of the last 30 and the top pages now.
    Realtime(RealtimeArgs),
    /// One read of a period with filters: overview, pages, referrers, countries, devices,
    /// events, timeseries, utm, entry-pages or exit-pages.
    Show(ShowArgs),
    /// Every goal's conversions over the period.
    Goals(ReadArgs),
    /// A custom event's property values over the period.
    Properties(PropertiesArgs),
    /// The pages viewed right after and right before --page within visits.
    Journeys(ReadArgs),
    /// Saved segments: named filters any read takes with --segment.
    #[command(subcommand)]
    Segments(SegmentsCommand),
    /// Alerts on the last hour's visitors or a goal's conversions.
    #[command(subcommand)]
    Alerts(AlertsCommand),
    /// Imports of Plausible's export: its days count before the project's first own event.
    #[command(subcommand)]
    Imports(ImportsCommand),
}

#[derive(Subcommand, Debug)]
pub enum ImportsCommand {
    /// The project's imports, with their status, days and rows.
    List(SegmentListArgs),
    /// Uploads Plausible's export (its ZIP, or one of its CSV files).
    Upload(ImportUploadArgs),
    /// Deletes an import and every figure it brought.
    Delete(SegmentDeleteArgs),
}

#[derive(Args, Debug)]
pub struct ImportUploadArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// The ZIP of Plausible's "Export data", or one of its CSV files.
    pub file: std::path::PathBuf,
    /// Wait until a worker has applied it (or it failed), then say which.
    #[arg(long)]
    pub wait: bool,
}

#[derive(Subcommand, Debug)]
pub enum AlertsCommand {
    /// The project's alerts, with the last hour's figure and whether each is going off.
    List(SegmentListArgs),
    /// Sets an alert: traffic_spike, traffic_drop (visitors above / below) or goal (--goal).
    Create(AlertCreateArgs),
    /// Deletes an alert.
    Delete(SegmentDeleteArgs),
}

#[derive(Args, Debug)]
pub struct AlertCreateArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// traffic_spike, traffic_drop or goal.
    #[arg(long)]
    pub kind: String,
    /// Visitors (or conversions) in the last hour.
    #[arg(long)]
    pub threshold: i64,
    /// The goal's id, for --kind goal.
    #[arg(long)]
    pub goal: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum SegmentsCommand {
    /// The project's segments.
    List(SegmentListArgs),
    /// Saves the filters given (at least one) under a name.
    Create(Box<SegmentCreateArgs>),
    /// Deletes a segment and the share links locked to it.
    Delete(SegmentDeleteArgs),
}

/// A project, and nothing else.
#[derive(Args, Debug)]
pub struct SegmentListArgs {
    #[command(flatten)]
    pub project: ProjectArg,
}

#[derive(Args, Debug)]
pub struct SegmentCreateArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    /// The segment's name.
    #[arg(long)]
    pub name: String,
    #[command(flatten)]
    pub filters: FilterArgs,
}

/// One item by its id.
#[derive(Args, Debug)]
pub struct SegmentDeleteArgs {
    /// Its id.
    pub id: String,
}

/// A project, a window, filters, and how to print.
#[derive(Args, Debug)]
pub struct ReadArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    #[command(flatten)]
    pub range: RangeArgs,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Print the server's CSV.
    #[arg(long)]
    pub csv: bool,
}

#[derive(Args, Debug)]
pub struct ShowArgs {
    /// The read.
    #[arg(value_parser = PossibleValuesParser::new(READS), default_value = "overview")]
    pub read: String,
    #[command(flatten)]
    pub args: ReadArgs,
    /// The overview adds the same numbers for the days just before.
    #[arg(long)]
    pub compare: bool,
    /// With referrers or utm: a goal's id; each row adds its conversions, their rate and, for a
    /// goal with a currency, its revenue.
    #[arg(long)]
    pub goal: Option<String>,
}

#[derive(Args, Debug)]
pub struct PropertiesArgs {
    /// The property's name (--event names the event, required).
    #[arg(long)]
    pub property: String,
    #[command(flatten)]
    pub args: ReadArgs,
}

#[derive(Args, Debug)]
pub struct RealtimeArgs {
    #[command(flatten)]
    pub project: ProjectArg,
    #[command(flatten)]
    pub filters: FilterArgs,
    /// Print the pages as the server's CSV.
    #[arg(long)]
    pub csv: bool,
}
