//! Long lists, which the API answers a page at a time (`data`, `page`, `per_page`, `total`).

use std::collections::HashSet;

use serde_json::Value;

use crate::cli::PageArgs;
use crate::client::{Answer, Auth};
use crate::ctx::Ctx;

/// The API's largest page: reading a whole list takes as few requests as it can.
const MAX_PER_PAGE: u8 = 100;

/// The list at `path`: the page asked for with `--page`, else every page up to `total`, joined
/// into one page that holds the whole list (other fields, such as testimonials' `stats`, as the
/// first page had them).
pub async fn fetch(
    ctx: &Ctx,
    path: &str,
    auth: Auth<'_>,
    query: &[(&str, &str)],
    pages: PageArgs,
) -> anyhow::Result<Answer> {
    let get = |page: u32, per_page: Option<u8>| async move {
        let (page, per_page) = (page.to_string(), per_page.map(|n| n.to_string()));
        let mut q = query.to_vec();
        q.push(("page", &page));
        if let Some(n) = &per_page {
            q.push(("per_page", n));
        }
        ctx.client.get(path, auth, &q).await
    };
    if let Some(page) = pages.page {
        return Ok(get(page, pages.per_page).await?);
    }
    let per_page = pages.per_page.unwrap_or(MAX_PER_PAGE);
    let mut whole = get(1, Some(per_page)).await?;
    let mut items = take_data(&mut whole.json);
    // An entry created while the pages are read shifts the later ones: it must not show twice.
    let mut seen: HashSet<String> = items.iter().filter_map(id_of).collect();
    let mut total = total_of(&whole.json);
    let mut page = 1;
    while u64::from(page) * u64::from(per_page) < total {
        page += 1;
        let mut next = get(page, Some(per_page)).await?;
        let data = take_data(&mut next.json);
        if data.is_empty() {
            break;
        }
        total = total_of(&next.json);
        items.extend(
            data.into_iter()
                .filter(|item| id_of(item).is_none_or(|id| seen.insert(id))),
        );
    }
    let count = items.len();
    whole.json["data"] = Value::Array(items);
    whole.json["page"] = 1.into();
    whole.json["per_page"] = count.into();
    whole.json["total"] = count.into();
    Ok(whole)
}

/// Where a single page sits in the list ("Page 2 of 3, 120 in all; --page 3 for more"), or
/// nothing for a whole list.
pub fn footer(answer: &Answer, asked: PageArgs) -> Option<String> {
    asked.page?;
    let json = &answer.json;
    let page = json["page"].as_u64().unwrap_or(1);
    let per_page = json["per_page"].as_u64().unwrap_or(1).max(1);
    let total = total_of(json);
    let pages = total.div_ceil(per_page).max(1);
    let more = if page < pages {
        format!("; --page {} for more", page + 1)
    } else {
        String::new()
    };
    Some(format!("Page {page} of {pages}, {total} in all{more}"))
}

fn take_data(json: &mut Value) -> Vec<Value> {
    match json.get_mut("data").map(Value::take) {
        Some(Value::Array(items)) => items,
        _ => Vec::new(),
    }
}

fn total_of(json: &Value) -> u64 {
    json["total"].as_u64().unwrap_or(0)
}

fn id_of(item: &Value) -> Option<String> {
    item.get("id").and_then(Value::as_str).map(str::to_owned)
}
