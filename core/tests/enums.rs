//! The Postgres check constraints on enum columns list exactly the values of the Rust enums, so a
//! value the code writes is always accepted and every stored value reads back.

use std::collections::BTreeSet;

use shipmate_types::{
    BoardVisibility, ChangelogType, DocumentStatus, EventType, FeedbackStatus, FeedbackType,
    Importance, Role, Scope, StringEnum, TestimonialStatus, WebhookFormat,
};
use sqlx::PgPool;

/// The quoted literals of a constraint's definition (`'bug'::text` → `bug`).
async fn literals(db: &PgPool, constraint: &str) -> BTreeSet<String> {
    let def: String = sqlx::query_scalar(
        "select pg_get_constraintdef(oid) from pg_constraint where conname = $1",
    )
    .bind(constraint)
    .fetch_one(db)
    .await
    .unwrap_or_else(|e| panic!("constraint {constraint}: {e}"));
    def.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn names<E: StringEnum>() -> BTreeSet<String> {
    E::NAMES.iter().map(|s| s.to_string()).collect()
}

#[sqlx::test(migrations = "../migrations")]
async fn enum_columns_match_the_rust_enums(db: PgPool) {
    let cases = [
        ("feedback_type_check", names::<FeedbackType>()),
        ("changelog_entries_type_check", names::<ChangelogType>()),
        ("testimonials_status_check", names::<TestimonialStatus>()),
        ("kb_documents_status_check", names::<DocumentStatus>()),
        ("project_members_role_check", names::<Role>()),
        ("invites_role_check", names::<Role>()),
        ("api_keys_scopes_check", names::<Scope>()),
        ("deliveries_type_check", {
            let mut n = names::<EventType>();
            n.insert("webhook".into()); // the `channel <> 'webhook'` guard
            n
        }),
        ("webhooks_format_check", names::<WebhookFormat>()),
        (
            "feedback_boards_visibility_check",
            names::<BoardVisibility>(),
        ),
        ("feedback_votes_importance_check", names::<Importance>()),
        ("webhooks_events_check", {
            let mut n = names::<EventType>();
            n.remove("ping");
            n.insert("*".into());
            n
        }),
    ];
    for (constraint, expected) in cases {
        assert_eq!(literals(&db, constraint).await, expected, "{constraint}");
    }
}

#[sqlx::test(migrations = "../migrations")]
async fn feedback_statuses_follow_each_types_set(db: PgPool) {
    let mut expected = BTreeSet::new();
    for kind in FeedbackType::ALL {
        for status in kind.statuses() {
            expected.insert(status.as_str().to_owned());
        }
    }
    let mut found = literals(&db, "feedback_status_check").await;
    found.remove("feature"); // the type the sets hinge on
    assert_eq!(found, expected);
    assert_eq!(names::<FeedbackStatus>(), expected);
    // And the pairing itself: a feature request cannot be `done`, a bug cannot be `shipped`.
    let project = uuid::Uuid::now_v7();
    sqlx::query("insert into projects (id, name, slug, api_key, publishable_key) values ($1, 'p', 'p-enum', 'pk_a', 'pk_b')")
        .bind(project)
        .execute(&db)
        .await
        .expect("project");
    for (kind, status, ok) in [
        ("feature", "done", false),
        ("bug", "shipped", false),
        ("bug", "done", true),
    ] {
        let res = sqlx::query("insert into feedback (id, project_id, title, type, status) values ($1, $2, 't', $3, $4)")
            .bind(uuid::Uuid::now_v7())
            .bind(project)
            .bind(kind)
            .bind(status)
            .execute(&db)
            .await;
        assert_eq!(res.is_ok(), ok, "{kind}/{status}: {res:?}");
    }
}
