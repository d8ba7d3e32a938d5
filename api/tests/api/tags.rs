//! Tags (contract part 3, "Feedback, further"): a project's coloured labels, set on entries by
//! members, carried by entries everywhere, and filtered by in every list.

use reqwest::{Method, StatusCode};
use serde_json::{json, Value};

use crate::helpers::*;

fn titles(list: &Value) -> Vec<&str> {
    let mut t: Vec<&str> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["title"].as_str().unwrap())
        .collect();
    t.sort();
    t
}

#[tokio::test]
async fn tags_label_entries_and_filter_every_list() {
    let app = spawn_app().await;
    let (owner, project) = app.owner_with_project("tags-a").await;
    let pid = id(&project).to_owned();
    let tags = format!("/v1/projects/{pid}/tags");

    // Making tags: colour optional (grey), names unique whatever the case, bad colours refused.
    let (status, mobile) = app
        .call(
            Method::POST,
            &tags,
            Auth::Session(&owner),
            Some(json!({"name": "Mobile", "color": "#FF8800"})),
        )
        .await;
    assert_eq!(status, StatusCode::CREATED, "{mobile}");
    assert_eq!(mobile["color"], "#ff8800");
    let (_, billing) = app
        .call(
            Method::POST,
            &tags,
            Auth::Session(&owner),
            Some(json!({"name": "billing"})),
        )
        .await;
    assert_eq!(billing["color"], "#6b7280");
    let (status, err) = app
        .call(
            Method::POST,
            &tags,
            Auth::Session(&owner),
            Some(json!({"name": "MOBILE"})),
        )
        .await;
    assert_eq!(
        (status, err["code"].as_str()),
        (StatusCode::CONFLICT, Some("tag_exists"))
    );
    for bad in [
        json!({"name": "x", "color": "red"}),
        json!({"name": ""}),
        json!({"name": "y", "color": "#12345"}),
    ] {
        let (status, err) = app
            .call(Method::POST, &tags, Auth::Session(&owner), Some(bad))
            .await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
    }
    let (_, list) = app
        .call(Method::GET, &tags, Auth::Session(&owner), None)
        .await;
    assert_eq!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect::<Vec<_>>(),
        ["billing", "Mobile"]
    );

    // Viewers see tags but neither make nor delete them; end users see nothing.
    let viewer = app
        .member_with_role(&owner, &pid, "viewer@example.com", "viewer")
        .await;
    let (status, _) = app
        .call(Method::GET, &tags, Auth::Session(&viewer), None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let (status, _) = app
        .call(
            Method::POST,
            &tags,
            Auth::Session(&viewer),
            Some(json!({"name": "z"})),
        )
        .await;
    assert_eq!(status, StatusCode::FORBIDDEN);
    let stranger = app.login("stranger@example.com").await;
    let (status, _) = app
        .call(Method::GET, &tags, Auth::Session(&stranger), None)
        .await;
    assert!(
        status == StatusCode::FORBIDDEN || status == StatusCode::NOT_FOUND,
        "{status}"
    );

    // Tagging entries: the project's tags only; another project's tag is refused and changes nothing.
    let k = key(&project);
    let mut ids = Vec::new();
    for title in ["Offline mode", "Invoices in PDF", "Dark mode"] {
        let (_, e) = app
            .call(
                Method::POST,
                "/v1/feedback",
                Auth::Key(k),
                Some(json!({"title": title, "type": "feature"})),
            )
            .await;
        ids.push(id(&e).to_owned());
    }
    let patch = |entry: String, body: Value| {
        let (app, owner) = (&app, &owner);
        async move {
            app.call(
                Method::PATCH,
                &format!("/v1/feedback/{entry}"),
                Auth::Session(owner),
                Some(body),
            )
            .await
        }
    };
    let (status, tagged) = patch(ids[0].clone(), json!({"tags": [id(&mobile)]})).await;
    assert_eq!(status, StatusCode::OK, "{tagged}");
    assert_eq!(
        tagged["tags"],
        json!([{"id": id(&mobile), "name": "Mobile", "color": "#ff8800"}])
    );
    let (_, both) = patch(ids[1].clone(), json!({"tags": [id(&mobile), id(&billing)]})).await;
    assert_eq!(both["tags"].as_array().unwrap().len(), 2);
    let (other_owner, other) = app.owner_with_project("tags-b").await;
    let (_, foreign) = app
        .call(
            Method::POST,
            &format!("/v1/projects/{}/tags", id(&other)),
            Auth::Session(&other_owner),
            Some(json!({"name": "Mobile"})),
        )
        .await;
    for bad in [
        json!({"tags": [id(&foreign)]}),
        json!({"tags": ["not-an-id"]}),
        json!({"tags": "x"}),
    ] {
        let (status, err) = patch(ids[2].clone(), bad).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{err}");
        assert_eq!(err["errors"][0]["field"], "tags", "{err}");
    }

    // Every list carries tags and takes `tag=`: members', the public board's, the roadmap.
    let (_, members) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}&tag={}", id(&mobile)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(
        titles(&members["data"]),
        ["Invoices in PDF", "Offline mode"]
    );
    assert_eq!(members["total"], 2);
    let (_, public) = app
        .call(
            Method::GET,
            &format!("/v1/feedback/by-project/tags-a?tag={}", id(&billing)),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(titles(&public["data"]), ["Invoices in PDF"]);
    assert_eq!(public["data"][0]["tags"].as_array().unwrap().len(), 2);
    let (_, road) = app
        .call(
            Method::GET,
            &format!("/v1/feedback/by-project/tags-a/roadmap?tag={}", id(&mobile)),
            Auth::None,
            None,
        )
        .await;
    assert_eq!(
        titles(&road["planned"]),
        ["Invoices in PDF", "Offline mode"]
    );
    let (status, _) = app
        .call(
            Method::GET,
            "/v1/feedback/by-project/tags-a?tag=nope",
            Auth::None,
            None,
        )
        .await;
    assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);

    // Deleting a tag takes it off its entries; `[]` clears an entry's tags.
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("{tags}/{}", id(&mobile)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::OK);
    let (_, all) = app
        .call(
            Method::GET,
            &format!("/v1/feedback?project_id={pid}"),
            Auth::Session(&owner),
            None,
        )
        .await;
    let invoices = all["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["title"] == "Invoices in PDF")
        .unwrap();
    assert_eq!(
        invoices["tags"],
        json!([{"id": id(&billing), "name": "billing", "color": "#6b7280"}])
    );
    let (_, cleared) = patch(ids[1].clone(), json!({"tags": []})).await;
    assert_eq!(cleared["tags"], json!([]));
    let (status, _) = app
        .call(
            Method::DELETE,
            &format!("{tags}/{}", id(&mobile)),
            Auth::Session(&owner),
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_FOUND);
}
