//! Teams: each project's members with a role, and invites to join.

pub mod invites;
pub mod members;

use serde::{Deserialize, Serialize};

/// A member's role in a project, ordered by what it may do (`Viewer < Member < Admin < Owner`).
/// The `project_members_role_check` constraint lists the same values.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    utoipa::ToSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    Viewer,
    Member,
    Admin,
    Owner,
}

impl Role {
    pub const ALL: [&'static str; 4] = ["owner", "admin", "member", "viewer"];

    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "viewer",
            Role::Member => "member",
            Role::Admin => "admin",
            Role::Owner => "owner",
        }
    }

    pub fn parse(s: &str) -> Option<Role> {
        match s {
            "viewer" => Some(Role::Viewer),
            "member" => Some(Role::Member),
            "admin" => Some(Role::Admin),
            "owner" => Some(Role::Owner),
            _ => None,
        }
    }

    /// Owners and admins hold the project's keys; members and viewers never see the secret key.
    pub fn sees_secret_key(self) -> bool {
        self >= Role::Admin
    }
}

/// A role from a request body's field (422 listing the four values otherwise).
pub fn role_field(input: &mut crate::validate::Input, field: &str) -> Option<Role> {
    input
        .one_of(field, &Role::ALL)
        .and_then(|s| Role::parse(&s))
}

/// A role read back from Postgres, where the check constraint keeps it one of ours.
impl From<String> for Role {
    fn from(s: String) -> Self {
        Role::parse(&s).unwrap_or(Role::Viewer)
    }
}

#[cfg(test)]
mod tests {
    use super::Role;

    #[test]
    fn roles_are_ordered_by_power_and_round_trip() {
        assert!(
            Role::Viewer < Role::Member && Role::Member < Role::Admin && Role::Admin < Role::Owner
        );
        for s in Role::ALL {
            assert_eq!(Role::parse(s).map(Role::as_str), Some(s));
        }
        assert_eq!(Role::parse("root"), None);
        assert!(Role::Admin.sees_secret_key() && !Role::Member.sees_secret_key());
    }
}
