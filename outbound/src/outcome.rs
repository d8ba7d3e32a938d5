//! What a delivery attempt came to: the channels' senders answer it, the delivery log records it.

/// What an attempt came to.
#[derive(Debug)]
pub enum Outcome {
    Delivered {
        status_code: Option<i32>,
    },
    /// Worth trying again on the schedule.
    Retry {
        status_code: Option<i32>,
        error: String,
    },
    /// Never worth trying again (an SMTP 5xx, a webhook deleted meanwhile).
    Permanent {
        status_code: Option<i32>,
        error: String,
    },
}
