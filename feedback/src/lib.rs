//! What a product's users tell it and hear back: the feedback board with votes, comments, merges
//! and the roadmap (`feedback`), testimonials with moderation (`testimonials`), and the changelog
//! that closes the loop on shipped requests (`changelog`).

pub mod changelog;
pub mod feedback;
pub mod testimonials;
