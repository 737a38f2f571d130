//! The match endpoints: lobby, seats, private views, checked moves, the event feed (long-poll
//! and Server-Sent Events), replays and the verifiable export.

use std::collections::VecDeque;
use std::time::Duration;

use actix_web::http::header;
use actix_web::web::{self, Bytes};
use actix_web::{HttpRequest, HttpResponse, get, post};
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use utoipa::{IntoParams, ToSchema};

use super::error::{ApiError, Problem};
use crate::auth::AuthUser;
use crate::matches::export::{ExportEvent, ExportSeat, MatchExport};
use crate::matches::{MatchError, Matches, NewMatch};
use crate::rules::{Action, Event, GameState, Rules, Seat, View};
use crate::store::matches::{Listing, MatchRow, SeatRow};

/// Visibility of a match.
#[derive(Clone, Copy, Debug, Default, Deserialize, Serialize, ToSchema, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Visibility {
    /// Listed in the lobby; anyone may watch.
    #[default]
    Public,
    /// Joined with the invite code; invisible to others.
    Private,
}

/// A new match.
#[derive(Deserialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"rules": {"preset": "standard", "must_play": true}, "seats": 4, "visibility": "public", "client_seed": "my lucky seed"}))]
pub struct CreateMatch {
    /// A preset plus overrides (`{"preset": "night-one", "king_hold_penalty": 3}`); see `GET /v1/rules`.
    #[serde(default)]
    #[schema(value_type = Object)]
    pub rules: serde_json::Value,
    /// Number of seats (the `players` option); the creator takes seat 0.
    pub seats: Option<u8>,
    /// `public` (default) or `private`.
    #[serde(default)]
    pub visibility: Visibility,
    /// Mixed into every hand's shuffle seed (at most 128 characters).
    #[serde(default)]
    pub client_seed: String,
    /// Whether the server ends a turn whose only legal action is `end_turn` (default true).
    #[serde(default = "yes")]
    pub auto_end_turn: bool,
}

fn yes() -> bool {
    true
}

/// A seat and its player.
#[derive(Serialize, ToSchema)]
pub struct SeatInfo {
    /// Seat number.
    pub seat: Seat,
    /// Player.
    pub username: String,
}

/// The public summary of a match.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "status": "playing", "visibility": "public",
    "rules": {"players": 2, "decks": 1, "jokers": false, "hand_size": 7, "hand_size_5_plus": 7, "draw": "end",
              "draw_count": 1, "draw_until_playable": false, "must_play": false, "king_hold_penalty": 0,
              "empty_side": "any_card", "pile_to_empty_side": false, "partial_runs": false,
              "side_build": "down_alternating", "corner_build": "down_alternating", "ace_wrap": false,
              "ace_starter_takes_two": false, "foundations": false, "collect_corners": false,
              "blocked": "everyone_scores", "scoring": "penalty", "chips": null, "game_end": {"target": 50}},
    "seat_count": 2, "seats": [{"seat": 0, "username": "maya"}, {"seat": 1, "username": "leo"}],
    "version": 12, "commitment": "f9abbe969b2a4a61ac33cfb6c684907aed641b17a5b423ed72f782028cb73ab9",
    "shuffle_version": 1, "auto_end_turn": true, "turn": 1, "totals": [0, 0], "winners": null,
    "invite_code": null, "created_at": 1795969522, "updated_at": 1795969611
}))]
pub struct MatchSummary {
    /// Match id.
    pub id: String,
    /// `open` (waiting for players), `playing` or `finished`.
    pub status: String,
    /// `public` or `private`.
    pub visibility: String,
    /// The full rules.
    pub rules: Rules,
    /// Number of seats.
    pub seat_count: u8,
    /// The taken seats.
    pub seats: Vec<SeatInfo>,
    /// Events in the log.
    pub version: i64,
    /// Hex SHA-256 of the shuffle secret, revealed when the match ends.
    pub commitment: String,
    /// The shuffle algorithm (RULES.md §6).
    pub shuffle_version: i64,
    /// Whether forced `end_turn`s are taken automatically.
    pub auto_end_turn: bool,
    /// The seat to move, while playing.
    pub turn: Option<i64>,
    /// Running totals, once started (only in the single-match summary).
    pub totals: Option<Vec<u32>>,
    /// The winners, once finished.
    pub winners: Option<Vec<Seat>>,
    /// The invite code of a private match, shown to its players only.
    pub invite_code: Option<String>,
    /// Unix seconds.
    pub created_at: i64,
    /// Unix seconds.
    pub updated_at: i64,
}

fn summary(
    row: &MatchRow,
    seats: &[SeatRow],
    viewer_seated: bool,
    totals: Option<Vec<u32>>,
) -> MatchSummary {
    MatchSummary {
        id: row.id.clone(),
        status: row.status.clone(),
        visibility: row.visibility.clone(),
        rules: serde_json::from_str(&row.rules).unwrap_or_default(),
        seat_count: row.seats as u8,
        seats: seats
            .iter()
            .map(|seat| SeatInfo {
                seat: seat.seat as Seat,
                username: seat.username.clone(),
            })
            .collect(),
        version: row.version,
        commitment: row.commitment.clone(),
        shuffle_version: row.shuffle_version,
        auto_end_turn: row.auto_end_turn,
        turn: row.turn_seat,
        totals,
        winners: row
            .winners
            .as_deref()
            .and_then(|winners| serde_json::from_str(winners).ok()),
        invite_code: if viewer_seated {
            row.invite_code.clone()
        } else {
            None
        },
        created_at: row.created_at,
        updated_at: row.updated_at,
    }
}

/// Create a match; the creator takes seat 0.
#[utoipa::path(
    tag = "matches",
    request_body = CreateMatch,
    responses(
        (status = 201, description = "Created", body = MatchSummary),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Invalid rules (`invalid_rules`, naming the option in `field`) or body", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches")]
pub async fn create_match(
    matches: web::Data<Matches>,
    user: AuthUser,
    body: web::Json<CreateMatch>,
) -> Result<HttpResponse, ApiError> {
    let CreateMatch {
        rules,
        seats,
        visibility,
        client_seed,
        auto_end_turn,
    } = body.into_inner();
    check_client_seed(&client_seed)?;
    let mut spec = match rules {
        serde_json::Value::Null => serde_json::json!({}),
        other => other,
    };
    if let (Some(seats), Some(fields)) = (seats, spec.as_object_mut()) {
        if fields
            .get("players")
            .is_some_and(|players| players != &serde_json::json!(seats))
        {
            return Err(ApiError::invalid(
                "invalid_rules",
                "seats",
                "seats and rules.players disagree",
            ));
        }
        fields.insert("players".into(), seats.into());
    }
    let rules = Rules::resolve(&spec).map_err(|error| {
        let field = if error.option == "players" && seats.is_some() {
            "seats".to_owned()
        } else {
            error.option.clone()
        };
        ApiError::Invalid {
            code: "invalid_rules",
            detail: error.to_string(),
            field: Some(field),
        }
    })?;
    let new = NewMatch {
        rules,
        private: visibility == Visibility::Private,
        client_seed,
        auto_end_turn,
    };
    let row = matches.create(&user.account_id, new).await?;
    let seats = matches.db().seats(&row.id).await?;
    Ok(HttpResponse::Created()
        .insert_header((header::LOCATION, format!("/v1/matches/{}", row.id)))
        .json(summary(&row, &seats, true, None)))
}

fn check_client_seed(seed: &str) -> Result<(), ApiError> {
    if seed.chars().count() > 128 {
        return Err(ApiError::invalid(
            "invalid_client_seed",
            "client_seed",
            "A client seed is at most 128 characters.",
        ));
    }
    Ok(())
}

/// Which matches to list.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ListQuery {
    /// `true`: the caller's matches, newest first.
    pub mine: Option<bool>,
    /// `mine`: the caller's inbox, matches waiting for their move, longest-waiting first.
    pub turn: Option<String>,
    /// The `next_cursor` of the previous page.
    pub cursor: Option<String>,
    /// Page size, 1–100 (default 20).
    pub limit: Option<i64>,
}

/// A page of matches.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"matches": [], "next_cursor": null}))]
pub struct MatchPage {
    /// The matches.
    pub matches: Vec<MatchSummary>,
    /// Pass as `cursor` for the next page; `null` on the last page.
    pub next_cursor: Option<String>,
}

/// List the open public lobby (default), the caller's matches (`mine=true`) or their inbox (`turn=mine`).
#[utoipa::path(
    tag = "matches",
    params(ListQuery),
    responses(
        (status = 200, description = "A page", body = MatchPage),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad cursor, limit or filter", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches")]
pub async fn list_matches(
    matches: web::Data<Matches>,
    user: AuthUser,
    query: web::Query<ListQuery>,
) -> Result<web::Json<MatchPage>, ApiError> {
    let listing = match (query.mine, query.turn.as_deref()) {
        (_, Some("mine")) => Listing::Inbox,
        (_, Some(_)) => {
            return Err(ApiError::invalid(
                "invalid_query",
                "turn",
                "turn takes only `mine`",
            ));
        }
        (Some(true), None) => Listing::Mine,
        _ => Listing::Lobby,
    };
    let limit = query.limit.unwrap_or(20);
    if !(1..=100).contains(&limit) {
        return Err(ApiError::invalid(
            "invalid_query",
            "limit",
            "limit is 1 to 100",
        ));
    }
    let cursor = match &query.cursor {
        None => None,
        Some(cursor) => Some(decode_cursor(cursor).ok_or_else(|| {
            ApiError::invalid("invalid_query", "cursor", "not a cursor of this listing")
        })?),
    };
    let rows = matches
        .list(listing, &user.account_id, cursor, limit)
        .await?;
    let next_cursor = (rows.len() as i64 == limit).then(|| {
        let last = rows.last().expect("a full page");
        let key = if listing == Listing::Inbox {
            last.turn_since.unwrap_or(0)
        } else {
            last.created_at
        };
        URL_SAFE_NO_PAD.encode(format!("{key}:{}", last.id))
    });
    let ids: Vec<String> = rows.iter().map(|row| row.id.clone()).collect();
    let mut seats = matches.db().seats_of(&ids).await?;
    let page = rows
        .iter()
        .map(|row| {
            let seats = seats.remove(&row.id).unwrap_or_default();
            let seated = seats.iter().any(|seat| seat.account_id == user.account_id);
            summary(row, &seats, seated, None)
        })
        .collect();
    Ok(web::Json(MatchPage {
        matches: page,
        next_cursor,
    }))
}

fn decode_cursor(cursor: &str) -> Option<(i64, String)> {
    let text = String::from_utf8(URL_SAFE_NO_PAD.decode(cursor).ok()?).ok()?;
    let (key, id) = text.split_once(':')?;
    Some((key.parse().ok()?, id.to_owned()))
}

/// The public summary of a match.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 200, description = "The summary", body = MatchSummary),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}")]
pub async fn get_match(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
) -> Result<web::Json<MatchSummary>, ApiError> {
    full_summary(&matches, &user, &id).await.map(web::Json)
}

async fn full_summary(
    matches: &Matches,
    user: &AuthUser,
    id: &str,
) -> Result<MatchSummary, ApiError> {
    let checkpoint = matches.checkpoint();
    let (row, seats, seat) = matches.visible(id, &user.account_id).await?;
    let totals = if row.version > 0 {
        Some(
            matches
                .state(&row, checkpoint)
                .await?
                .state
                .totals()
                .to_vec(),
        )
    } else {
        None
    };
    Ok(summary(&row, &seats, seat.is_some(), totals))
}

/// Joining a match.
#[derive(Deserialize, ToSchema, Default)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"client_seed": "my lucky seed", "invite_code": "k2J9xQ0aPq1z"}))]
pub struct JoinMatch {
    /// Mixed into every hand's shuffle seed (at most 128 characters).
    #[serde(default)]
    pub client_seed: String,
    /// Required for a private match.
    pub invite_code: Option<String>,
}

/// Take the lowest free seat; the match starts by itself when every seat is taken.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id")),
    request_body = JoinMatch,
    responses(
        (status = 200, description = "Seated", body = MatchSummary),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match, or a wrong invite code", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`already_seated`, `match_full`, `seat_taken`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/join")]
pub async fn join_match(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
    body: Option<web::Json<JoinMatch>>,
) -> Result<web::Json<MatchSummary>, ApiError> {
    let JoinMatch {
        client_seed,
        invite_code,
    } = body.map(web::Json::into_inner).unwrap_or_default();
    check_client_seed(&client_seed)?;
    matches
        .join(&id, &user.account_id, &client_seed, invite_code.as_deref())
        .await?;
    full_summary(&matches, &user, &id).await.map(web::Json)
}

/// Give up a seat before the match starts.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 204, description = "Left"),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_seated`", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_started`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/leave")]
pub async fn leave_match(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    matches.leave(&id, &user.account_id).await?;
    Ok(HttpResponse::NoContent().finish())
}

/// A view of the table with the match's version.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({
    "match_id": "5b1e0c4e-3f7a-4d8e-9a51-0f6c2b7d9e10", "version": 2, "status": "playing", "hand_number": 1,
    "your_seat": 0, "hand": ["4C", "QC", "10D", "KD", "AH", "4H", "AS"],
    "piles": {"N": ["JS"], "E": ["KC"], "S": ["3C"], "W": ["8S"], "NE": [], "SE": [], "SW": [], "NW": []},
    "foundations": null, "stock_count": 34,
    "seats": [
        {"seat": 0, "hand_count": 7, "hand_penalties": 0, "total": 0, "hands_won": 0, "claimed_corners": 0, "in_game": true, "chips": null},
        {"seat": 1, "hand_count": 7, "hand_penalties": 0, "total": 0, "hands_won": 0, "claimed_corners": 0, "in_game": true, "chips": null}
    ],
    "turn": 0, "dealer": 1, "turn_progress": {"actions": 0, "drew": false, "played": false}, "pot": null,
    "last_hand": null, "winners": null,
    "legal_actions": [
        {"type": "play", "card": "10D", "to": "N"}, {"type": "play", "card": "KD", "to": "NE"},
        {"type": "move", "from": "E", "to": "NE"}, {"type": "end_turn"}
    ]
}))]
pub struct MatchView {
    /// Match id.
    pub match_id: String,
    /// The log's length this view reflects; send it as `expected_version` with a move.
    pub version: i64,
    /// The table.
    #[serde(flatten)]
    pub view: View,
}

fn view_for(state: &GameState, seat: Option<Seat>) -> View {
    match seat {
        Some(seat) => state.view(seat),
        None => state.spectator_view(),
    }
}

fn started(row: &MatchRow) -> Result<(), ApiError> {
    if row.version == 0 {
        return Err(ApiError::Conflict {
            code: "match_not_started",
            detail: "The match waits for players.".into(),
        });
    }
    Ok(())
}

/// The caller's private view (a spectator's view of a public match for others). Supports
/// `ETag` / `If-None-Match`.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 200, description = "The view", body = MatchView, headers(("ETag" = String, description = "Changes with every event"))),
        (status = 304, description = "Unchanged since the given ETag"),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_started`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/view")]
pub async fn get_view(
    request: HttpRequest,
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    // The cache answers when it is known to hold the newest version; otherwise the database.
    let (match_id, version, seat, state) = match matches.fresh(&id, &user.account_id) {
        Some((cached, seat)) => (id.into_inner(), cached.version, seat, cached.state),
        None => {
            let checkpoint = matches.checkpoint();
            let (row, seat) = matches.visible_row(&id, &user.account_id).await?;
            started(&row)?;
            let cached = matches.state(&row, checkpoint).await?;
            (row.id, row.version, seat, cached.state)
        }
    };
    let etag = format!(
        "\"v{version}-{}\"",
        seat.map_or("s".to_owned(), |seat| seat.to_string())
    );
    let unchanged = request
        .headers()
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| {
            tags.split(',')
                .any(|tag| tag.trim() == etag || tag.trim() == "*")
        });
    if unchanged {
        return Ok(HttpResponse::NotModified()
            .insert_header((header::ETAG, etag))
            .finish());
    }
    let body = MatchView {
        match_id,
        version,
        view: view_for(&state, seat),
    };
    Ok(HttpResponse::Ok()
        .insert_header((header::ETAG, etag))
        .insert_header((header::CACHE_CONTROL, "private, no-cache"))
        .json(body))
}

/// A move.
#[derive(Deserialize, Serialize, ToSchema)]
#[serde(deny_unknown_fields)]
#[schema(example = json!({"expected_version": 12, "action": {"type": "play", "card": "7H", "to": "N"}}))]
pub struct MoveRequest {
    /// The `version` of the view the move was chosen from.
    pub expected_version: i64,
    /// The action, exactly as RULES.md §4 and `legal_actions` write it.
    pub action: Action,
}

/// Make a move. Nothing is written on any error. With an `Idempotency-Key` header, a retry with
/// the same body gets the first answer again without a second move.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "Match id"),
        ("Idempotency-Key" = Option<String>, Header, description = "Up to 128 characters; makes retries safe"),
    ),
    request_body = MoveRequest,
    responses(
        (status = 200, description = "Accepted: the new view", body = MatchView),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 403, description = "`not_a_player`: you have no seat in this match", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`version_conflict` (with `current_version`) or `match_not_started`", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Refused by the rules (the engine's code, e.g. `not_your_turn`, `does_not_fit`, and a sentence), a bad body, or `idempotency_key_reused` with another body", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[post("/v1/matches/{id}/moves")]
pub async fn post_move(
    request: HttpRequest,
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
    body: web::Json<MoveRequest>,
) -> Result<HttpResponse, ApiError> {
    // A cached row that agrees with the client's version saves a read; anything else (a
    // stale version, a cache not known to be current) is settled by the database.
    let (row, seat) = match matches.fresh_row(&id, &user.account_id) {
        Some((row, seat)) if row.version == body.expected_version => (row, seat),
        _ => matches.visible_row(&id, &user.account_id).await?,
    };
    let seat = seat.ok_or(ApiError::Forbidden {
        code: "not_a_player",
        detail: "You have no seat in this match.".into(),
    })?;
    started(&row)?;
    let key = match request.headers().get("idempotency-key") {
        None => None,
        Some(value) => match value.to_str() {
            Ok(key) if !key.is_empty() && key.len() <= 128 => Some(key.to_owned()),
            _ => {
                return Err(ApiError::BadRequest {
                    code: "invalid_idempotency_key",
                    detail: "An Idempotency-Key is 1 to 128 visible ASCII characters.".into(),
                });
            }
        },
    };
    let request_hash = hex::encode(Sha256::digest(
        serde_json::to_vec(&body.0).expect("moves serialise"),
    ));
    if let Some(key) = &key
        && let Some(stored) = matches
            .db()
            .stored_response(&user.account_id, &row.id, key)
            .await?
    {
        if stored.request_hash != request_hash {
            return Err(ApiError::invalid(
                "idempotency_key_reused",
                "Idempotency-Key",
                "This Idempotency-Key was used for another request.",
            ));
        }
        return Ok(HttpResponse::build(
            actix_web::http::StatusCode::from_u16(stored.status as u16)
                .unwrap_or(actix_web::http::StatusCode::OK),
        )
        .content_type("application/json")
        .insert_header(("Idempotent-Replayed", "true"))
        .body(stored.response));
    }
    let match_id = row.id.clone();
    let respond = move |state: &GameState, version: i64| {
        serde_json::to_string(&MatchView {
            match_id,
            version,
            view: state.view(seat),
        })
        .expect("views serialise")
    };
    let idempotency = key
        .as_deref()
        .map(|key| (user.account_id.as_str(), key, request_hash.as_str()));
    let outcome = matches
        .play(
            &row,
            seat,
            body.expected_version,
            body.action,
            respond,
            idempotency,
        )
        .await;
    match outcome {
        Ok(response) => Ok(HttpResponse::Ok()
            .content_type("application/json")
            .body(response)),
        // A concurrent retry with the same key may have won the race: answer as it did.
        Err(MatchError::VersionConflict { .. }) if key.is_some() => {
            match matches
                .db()
                .stored_response(
                    &user.account_id,
                    &row.id,
                    key.as_deref().unwrap_or_default(),
                )
                .await?
            {
                Some(stored) if stored.request_hash == request_hash => Ok(HttpResponse::Ok()
                    .content_type("application/json")
                    .insert_header(("Idempotent-Replayed", "true"))
                    .body(stored.response)),
                _ => Err(outcome
                    .err()
                    .map(ApiError::from)
                    .unwrap_or(ApiError::Unavailable)),
            }
        }
        Err(error) => Err(error.into()),
    }
}

/// Where the feed starts and how long to wait.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct EventsQuery {
    /// Return events after this sequence number (default 0).
    pub after: Option<i64>,
    /// Seconds to wait for a new event when there is none yet (0–60, default 0).
    pub wait: Option<u64>,
}

/// One event of the log, as the caller may see it.
#[derive(Serialize, ToSchema)]
pub struct LoggedEvent {
    /// Its position; the match's version after it.
    pub seq: i64,
    /// The event, redacted for the caller (others' draws without the cards).
    pub event: Event,
}

/// A page of the event feed.
#[derive(Serialize, ToSchema)]
#[schema(example = json!({"events": [
    {"seq": 3, "event": {"type": "card_played", "seat": 0, "card": "10D", "to": "N"}},
    {"seq": 4, "event": {"type": "cards_drawn", "seat": 0, "reason": "turn_end", "count": 1}},
    {"seq": 5, "event": {"type": "turn_ended", "seat": 0, "passed": false}},
    {"seq": 6, "event": {"type": "turn_started", "seat": 1}}
], "version": 6}))]
pub struct EventsPage {
    /// Events after `after`, oldest first (at most 500).
    pub events: Vec<LoggedEvent>,
    /// The match's version now.
    pub version: i64,
}

const EVENTS_PAGE: i64 = 500;

async fn feed(
    matches: &Matches,
    row: &MatchRow,
    seat: Option<Seat>,
    after: i64,
) -> Result<Vec<LoggedEvent>, ApiError> {
    let stored = matches.db().events(&row.id, after, EVENTS_PAGE).await?;
    stored
        .into_iter()
        .map(|stored| {
            let event: Event = serde_json::from_str(&stored.event)
                .map_err(|error| ApiError::Internal(error.into()))?;
            Ok(LoggedEvent {
                seq: stored.seq,
                event: event.redacted_for(seat),
            })
        })
        .collect()
}

/// The caller's redacted feed of the log, long-polling up to `wait` seconds.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id"), EventsQuery),
    responses(
        (status = 200, description = "Events after `after`", body = EventsPage),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "Bad `after` or `wait`", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/events")]
pub async fn get_events(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
    query: web::Query<EventsQuery>,
) -> Result<web::Json<EventsPage>, ApiError> {
    let after = query.after.unwrap_or(0);
    let wait = query.wait.unwrap_or(0);
    if after < 0 {
        return Err(ApiError::invalid(
            "invalid_query",
            "after",
            "after is 0 or more",
        ));
    }
    if wait > 60 {
        return Err(ApiError::invalid(
            "invalid_query",
            "wait",
            "wait is 0 to 60 seconds",
        ));
    }
    let (mut row, seat) = matches.visible_row(&id, &user.account_id).await?;
    if row.version <= after && wait > 0 {
        matches
            .wait_past(&row.id, after, Duration::from_secs(wait))
            .await;
        row = matches
            .db()
            .match_by_id(&row.id)
            .await?
            .ok_or(ApiError::NotFound("There is no such match.".into()))?;
    }
    let events = feed(&matches, &row, seat, after).await?;
    Ok(web::Json(EventsPage {
        events,
        version: row.version,
    }))
}

/// The same feed as Server-Sent Events (`id` = seq, `event` = the event's type), resumable
/// with `Last-Event-ID`; a comment every 15 seconds keeps the connection open.
#[utoipa::path(
    tag = "matches",
    params(
        ("id" = String, Path, description = "Match id"),
        ("Last-Event-ID" = Option<i64>, Header, description = "Resume after this sequence number"),
    ),
    responses(
        (status = 200, description = "`text/event-stream`; each `data:` is a `LoggedEvent`", content_type = "text/event-stream", body = String),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/stream")]
pub async fn stream_events(
    request: HttpRequest,
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
) -> Result<HttpResponse, ApiError> {
    let (row, seat) = matches.visible_row(&id, &user.account_id).await?;
    let after: i64 = request
        .headers()
        .get("last-event-id")
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse().ok())
        .unwrap_or(0);
    let state = (
        matches.into_inner(),
        row,
        seat,
        after,
        VecDeque::<Bytes>::new(),
    );
    let stream = futures_util::stream::unfold(
        state,
        |(matches, row, seat, mut after, mut pending)| async move {
            loop {
                if let Some(chunk) = pending.pop_front() {
                    return Some((
                        Ok::<_, actix_web::Error>(chunk),
                        (matches, row, seat, after, pending),
                    ));
                }
                let events = feed(&matches, &row, seat, after).await.ok()?;
                if events.is_empty() {
                    let before = after;
                    matches
                        .wait_past(&row.id, before, Duration::from_secs(15))
                        .await;
                    if matches
                        .db()
                        .events(&row.id, before, 1)
                        .await
                        .ok()?
                        .is_empty()
                    {
                        pending.push_back(Bytes::from_static(b": keep-alive\n\n"));
                    }
                    continue;
                }
                for logged in events {
                    after = logged.seq;
                    let kind = serde_json::to_value(&logged.event).ok()?["type"]
                        .as_str()
                        .unwrap_or("event")
                        .to_owned();
                    let data = serde_json::to_string(&logged).ok()?;
                    pending.push_back(Bytes::from(format!(
                        "id: {}\nevent: {kind}\ndata: {data}\n\n",
                        logged.seq
                    )));
                }
            }
        },
    );
    Ok(HttpResponse::Ok()
        .content_type("text/event-stream")
        .insert_header((header::CACHE_CONTROL, "no-cache"))
        .insert_header(("X-Accel-Buffering", "no"))
        .streaming(stream))
}

/// Which point of the log to show.
#[derive(Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ReplayQuery {
    /// Show the table after event `at` (0 … version).
    pub at: i64,
}

/// The view as it was after event `at`: from the caller's seat while the match runs (a
/// spectator's for others), fully open, every hand shown, once it has ended.
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id"), ReplayQuery),
    responses(
        (status = 200, description = "The view at `at`", body = MatchView),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 422, description = "`at` outside 0 … version", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/replay")]
pub async fn get_replay(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
    query: web::Query<ReplayQuery>,
) -> Result<web::Json<MatchView>, ApiError> {
    let (row, seat) = matches.visible_row(&id, &user.account_id).await?;
    if !(0..=row.version).contains(&query.at) {
        return Err(ApiError::invalid(
            "invalid_query",
            "at",
            format!("at is 0 to {}", row.version),
        ));
    }
    let state = matches.state_at(&row, query.at).await?;
    let view = if row.status == "finished" {
        state.open_view()
    } else {
        view_for(&state, seat)
    };
    Ok(web::Json(MatchView {
        match_id: row.id,
        version: query.at,
        view,
    }))
}

/// The whole log of a finished match with its revealed secret and client seeds, for
/// `kings-corner verify` or any re-implementation of RULES.md §6. Its players may export any
/// match they played; anyone may export a finished public match (as anyone may replay it).
#[utoipa::path(
    tag = "matches",
    params(("id" = String, Path, description = "Match id")),
    responses(
        (status = 200, description = "The export", body = MatchExport),
        (status = 401, description = "Not logged in", body = Problem, content_type = "application/problem+json"),
        (status = 404, description = "No such match (or a private one you are not in)", body = Problem, content_type = "application/problem+json"),
        (status = 409, description = "`match_not_finished`: the secret stays secret until the end", body = Problem, content_type = "application/problem+json"),
    ),
    security(("bearer" = []))
)]
#[get("/v1/matches/{id}/export")]
pub async fn export_match(
    matches: web::Data<Matches>,
    user: AuthUser,
    id: web::Path<String>,
) -> Result<web::Json<MatchExport>, ApiError> {
    let (row, seats, _) = matches.visible(&id, &user.account_id).await?;
    if row.status != "finished" {
        return Err(ApiError::Conflict {
            code: "match_not_finished",
            detail: "A match is exported once it has ended.".into(),
        });
    }
    let secret = matches
        .db()
        .match_secret(&row.id)
        .await?
        .ok_or_else(|| ApiError::Internal(anyhow::anyhow!("no secret")))?;
    let mut events = Vec::with_capacity(row.version as usize);
    let mut after = 0;
    loop {
        let page = matches.db().events(&row.id, after, 5000).await?;
        let Some(last) = page.last() else { break };
        after = last.seq;
        for stored in page {
            let event = serde_json::from_str(&stored.event)
                .map_err(|error| ApiError::Internal(error.into()))?;
            events.push(ExportEvent {
                seq: stored.seq,
                hash: stored.hash,
                event,
            });
        }
    }
    Ok(web::Json(MatchExport {
        format: 1,
        match_id: row.id.clone(),
        rules: serde_json::from_str(&row.rules)
            .map_err(|error| ApiError::Internal(error.into()))?,
        seats: seats
            .iter()
            .map(|seat| ExportSeat {
                seat: seat.seat as Seat,
                username: seat.username.clone(),
                client_seed: seat.client_seed.clone(),
            })
            .collect(),
        commitment: row.commitment.clone(),
        secret,
        shuffle_version: row.shuffle_version as u32,
        event_format: crate::rules::EVENT_FORMAT_VERSION,
        events,
    }))
}
