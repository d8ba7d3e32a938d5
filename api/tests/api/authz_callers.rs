//! The authorization matrix's callers: who may call an endpoint (`Access`), and the eight
//! callers each row is tried with (`Fixture`).

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

/// The project roles, weakest first, as the last four callers of every row.
pub const ROLES: [&str; 4] = ["viewer", "member", "admin", "owner"];

/// Who may call an endpoint, and so what each of the eight callers gets.
#[derive(Clone, Copy, Debug)]
pub enum Access {
    /// API key, resource of the key's project: another project's key gets 404.
    KeyResource,
    /// API key, the key's own collection: another project's key works on its own project.
    KeyCollection,
    /// Session with at least this role in the project: a stranger or a lower role gets 403.
    Role(&'static str),
    /// The instance admin (the owner here, the instance's first account).
    InstanceAdmin,
    /// Any session.
    Session,
    /// No credential needed.
    Public,
}

impl Access {
    /// Expected statuses for: none, wrong scheme, other key, stranger, viewer, member, admin,
    /// owner (0 = any 2xx).
    pub fn expected(self) -> [u16; 8] {
        match self {
            Access::KeyResource => [401, 401, 404, 401, 401, 401, 401, 0],
            Access::KeyCollection => [401, 401, 0, 401, 401, 401, 401, 0],
            Access::Role(min) => {
                let rank = |r: &str| ROLES.iter().position(|x| *x == r).unwrap();
                let mut out = [401, 401, 401, 403, 0, 0, 0, 0];
                for (i, role) in ROLES.iter().enumerate() {
                    out[4 + i] = if rank(role) >= rank(min) { 0 } else { 403 };
                }
                out
            }
            Access::InstanceAdmin => [401, 401, 401, 403, 403, 403, 403, 0],
            Access::Session => [401, 401, 401, 0, 0, 0, 0, 0],
            Access::Public => [0; 8],
        }
    }

    fn is_key(self) -> bool {
        matches!(self, Access::KeyResource | Access::KeyCollection)
    }
}

pub struct Fixture {
    /// Sessions of the viewer, member, admin and owner, in `ROLES` order.
    pub roles: [String; 4],
    pub key: String,
    pub other_key: String,
    pub stranger: String,
}

impl Fixture {
    /// The eight callers of a row, in `Access::expected` order. Where a key belongs, the
    /// signed-in callers send only their token, and the owner's call carries the key.
    pub fn callers(&self, access: Access) -> [(&'static str, Auth<'_>); 8] {
        let owner = &self.roles[3];
        let (wrong, last) = if access.is_key() {
            (Auth::Session(owner), Auth::Key(&self.key))
        } else {
            (Auth::Key(&self.key), Auth::Session(owner))
        };
        [
            ("no credential", Auth::None),
            ("wrong scheme", wrong),
            ("another project's key", Auth::Key(&self.other_key)),
            ("stranger", Auth::Session(&self.stranger)),
            ("viewer", Auth::Session(&self.roles[0])),
            ("member", Auth::Session(&self.roles[1])),
            ("admin", Auth::Session(&self.roles[2])),
            ("owner", last),
        ]
    }
}

/// One row of the matrix: a request, who may make it, and its body.
pub type Row = (Method, String, Access, Option<Value>);

impl Fixture {
    /// Sends every row as each of the eight callers, in order, and asserts each status.
    pub async fn check(&self, app: &TestApp, rows: Vec<Row>) {
        let endpoints = rows.len();
        let mut checked = 0;
        for (method, path, access, body) in rows {
            let mut done = false;
            for (n, ((who, auth), want)) in self
                .callers(access)
                .into_iter()
                .zip(access.expected())
                .enumerate()
            {
                // `{caller}` in a body keeps creations by different callers apart (slugs are unique).
                let body = body.as_ref().map(|b| {
                    serde_json::from_str::<Value>(
                        &b.to_string().replace("{caller}", &n.to_string()),
                    )
                    .unwrap()
                });
                let res = match body.as_ref().and_then(|b| b.get("$file")) {
                    Some(file) => send_file(app, &path, auth, file).await,
                    None => app.send(method.clone(), &path, auth, body).await,
                };
                let status = res.status();
                let text = res.text().await.unwrap_or_default();
                // A deletion or a merge removes its resource: later allowed callers find it gone.
                let removes = method == Method::DELETE || path.ends_with("/merge");
                let ok = if want == 0 {
                    status.is_success() || (removes && done && status == StatusCode::NOT_FOUND)
                } else {
                    status == StatusCode::from_u16(want).unwrap()
                };
                assert!(
                    ok,
                    "{method} {path} as {who}: got {status}, want {}: {text}",
                    if want == 0 {
                        "2xx".to_string()
                    } else {
                        want.to_string()
                    }
                );
                done |= status.is_success();
                checked += 1;
            }
        }
        assert_eq!(checked, endpoints * 8);
        println!(
            "authorization matrix: {endpoints} endpoints x 8 callers = {checked} requests checked"
        );
    }
}

/// A row's body `{"$file": {"name", "content"}}` is sent as a multipart file upload (POST).
async fn send_file(app: &TestApp, path: &str, auth: Auth<'_>, file: &Value) -> reqwest::Response {
    let part =
        reqwest::multipart::Part::bytes(file["content"].as_str().unwrap().as_bytes().to_vec())
            .file_name(file["name"].as_str().unwrap().to_owned());
    let req = app
        .client
        .post(app.url(path))
        .multipart(reqwest::multipart::Form::new().part("file", part));
    match auth {
        Auth::None => req,
        Auth::Session(t) => req.bearer_auth(t),
        Auth::Key(k) => req.header("X-Project-Key", k),
    }
    .send()
    .await
    .expect("request")
}

/// A setup request that must succeed.
pub async fn post(app: &TestApp, path: &str, auth: Auth<'_>, body: Value) -> Value {
    app.ok(Method::POST, path, auth, Some(body)).await
}

/// A second entry (to merge) and a stranger's comment on `entry` (to delete): (entry id, comment id).
pub async fn duplicate_and_comment(app: &TestApp, key: Auth<'_>, entry: &str) -> (String, String) {
    let body = serde_json::json!({"title": "Night theme", "type": "feature"});
    let duplicate = post(app, "/v1/feedback", key, body).await;
    let commenter = app.login("commenter@example.com").await;
    let path = format!("/v1/feedback/{entry}/comments");
    let body = serde_json::json!({"body": "Yes please"});
    let comment = post(app, &path, Auth::Session(&commenter), body).await;
    (id(&duplicate).to_owned(), id(&comment).to_owned())
}

/// What the matrix's rows act on: one of each resource of the project, made by its owner.
pub struct Resources {
    pub feedback: String,
    pub testimonial: String,
    pub change: String,
    pub index: String,
    pub document: String,
    pub api_key: String,
    pub duplicate: String,
    pub comment: String,
    pub webhook: String,
    pub delivery: String,
}

impl Resources {
    pub async fn create(app: &TestApp, pid: &str, key: &str, owner: &str) -> Resources {
        let k = Auth::Key(key);
        let s = Auth::Session(owner);
        let entry = post(
            app,
            "/v1/feedback",
            k,
            json!({"title": "Dark mode", "type": "feature"}),
        )
        .await;
        let testimonial = post(
            app,
            "/v1/testimonials",
            k,
            json!({"author_name": "Ada", "author_email": "ada@example.com", "content": "Great", "rating": 5}),
        )
        .await;
        let change = post(
            app,
            &format!("/v1/changelog/dashboard/{pid}"),
            s,
            json!({"title": "T", "content": "C", "type": "fix"}),
        )
        .await;
        let index = post(
            app,
            "/v1/indexes",
            k,
            json!({"name": "docs", "embedding_model": "all-minilm-l6-v2"}),
        )
        .await;
        let doc = post(
            app,
            &format!("/v1/indexes/{}/documents", id(&index)),
            k,
            json!({"content": "Shipmate answers every caller as the contract says."}),
        )
        .await;
        let scoped = post(
            app,
            &format!("/v1/projects/{pid}/api-keys"),
            s,
            json!({"name": "script tag", "scopes": ["analytics:write"]}),
        )
        .await;
        let (dup, comment_id) = duplicate_and_comment(app, k, id(&entry)).await;
        let (fid, tid, cid) = (id(&entry), id(&testimonial), id(&change));
        let (iid, did, kid) = (id(&index), id(&doc), id(&scoped));

        let hook = post(
            app,
            &format!("/v1/projects/{pid}/webhooks"),
            s,
            json!({"url": "https://93.184.216.34/hook", "events": ["*"]}),
        )
        .await;
        let wid = id(&hook).to_owned();
        let ping = post(
            app,
            &format!("/v1/projects/{pid}/webhooks/{wid}/test"),
            s,
            json!({}),
        )
        .await;
        let dlv = ping["delivery_id"].as_str().unwrap().to_owned();
        let db = sqlx::PgPool::connect(&app.db_url).await.unwrap();
        sqlx::query(
            "insert into email_suppressions (email, reason) values ('gone@example.com', 'test')",
        )
        .execute(&db)
        .await
        .unwrap();
        Resources {
            feedback: fid.to_owned(),
            testimonial: tid.to_owned(),
            change: cid.to_owned(),
            index: iid.to_owned(),
            document: did.to_owned(),
            api_key: kid.to_owned(),
            duplicate: dup,
            comment: comment_id,
            webhook: wid,
            delivery: dlv,
        }
    }
}
