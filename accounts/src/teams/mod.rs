//! Teams: each project's members with a role, and invites to join.

pub mod invites;
pub mod members;

/// A member's role; the `project_members_role_check` constraint lists the same values.
pub use shipmate_types::Role;

/// A role read back from Postgres, where the check constraint keeps it one of ours (the least
/// privilege otherwise).
pub(crate) fn role_of(s: String) -> Role {
    s.parse().unwrap_or(Role::Viewer)
}
